/* orch_cfg: the `orchestration` program's options: its command line (usage,
 * defaults, parsing, one clear error on a bad value) and the record's config
 * block, which lists every option that ran (docs/collectives.md "The
 * orchestration benchmark").
 * defines: orch_cfg_t, orch_cfg_parse, orch_cfg_write */
#ifndef EXADL_ORCH_CFG_H
#define EXADL_ORCH_CFG_H

#include <stddef.h>

#include "benchmarks/common/record/header.h"

#define ORCH_MAX_TENSOR_COUNTS 16

typedef struct {
    int modes[3], groupings[4];
    int ngroups;
    int tensor_counts[ORCH_MAX_TENSOR_COUNTS], ncounts; /* 0: the gb2019 list */
    size_t tensor_bytes;
    int ready_per_cycle, steps, warmup_steps;
    double timeout_s;
    unsigned long long seed;
    const char *record;
} orch_cfg_t;

/* argv's options into *o (defaults first); --help prints the usage and
 * exits 0, a bad option or value exits 2 naming it (mpiopt.h). */
void orch_cfg_parse(int argc, char **argv, orch_cfg_t *o);
/* The record header's config callback (rec_header_t.config; arg: the
 * orch_cfg_t). */
void orch_cfg_write(rec_t *r, const void *arg);

#endif
