/* sr_rec: the search's record (docs/record.md "search"): the header, the
 * `search` block (rates, idle fraction, decision cost, messages, the best
 * against candidates evaluated, the completion order, every candidate) and
 * the validation list; and the completion order read back for --replay.
 * defines: sr_outcome, sr_write_record, sr_read_replay, sr_trace_hash */
#ifndef EXADL_SEARCH_SR_REC_H
#define EXADL_SEARCH_SR_REC_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/sysinfo.h"
#include "benchmarks/search/sr.h"

/* What the master gathered after the search. */
typedef struct {
    const sr_cand *cand;
    const sr_stats *st;
    int ngroups;
    double *busy_s, *wall_s;      /* [group] from each group's leader */
    double idle_fraction;         /* 1 - sum busy / sum wall over the groups */
    uint64_t trace_hash;          /* sr_trace_hash */
    uint64_t replay_hash;         /* the --replay record's trace_hash; 0: none */
    int replay_failed;            /* the replay diverged */
    char error[512];
} sr_outcome;

/* FNV-1a of every generated candidate's genome, in candidate order. */
uint64_t sr_trace_hash(const sr_cand *cand, int64_t n);

int sr_write_record(const sr_cfg *c, const sr_outcome *o, const sysinfo_t *si, int ranks, int argc,
                    char **argv, const char *started);

/* The completion order and trace hash of an earlier search record: 0, or -1
 * with err naming the file and what is wrong. */
int sr_read_replay(const char *path, int64_t **order, int64_t *n, uint64_t *hash, char *err,
                   size_t errlen);

#endif
