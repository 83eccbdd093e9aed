#include "benchmarks/stemdl/srec.h"

#include <stdio.h>
#include <string.h>

static void write_config(rec_t *w, const void *cfg) { cfg_write(cfg, w); }

void srec_fill(tprog_run *run, const args_t *a, const sysinfo_t *si, int argc, char **argv,
               const char *started_utc)
{
    const cfg_t *c = &a->cfg;
    memset(run, 0, sizeof *run);
    run->meta = (trec_meta_t){.benchmark = "stemdl", .started_utc = started_utc, .argc = argc,
                              .argv = argv, .system = si, .config = write_config,
                              .config_arg = c};
    run->record = a->t.record;
    snprintf(run->title, sizeof run->title, "%s%s", c->preset[0] ? "preset " : "custom network",
             c->preset);
}
