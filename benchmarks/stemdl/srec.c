#include "benchmarks/stemdl/srec.h"

#include <stdio.h>

static void write_config(rec_t *w, const void *cfg) { cfg_write(cfg, w); }

void srec_fill(tprog_run *run, const args_t *a)
{
    const cfg_t *c = &a->cfg;
    run->meta.benchmark = "stemdl";
    run->meta.config = write_config;
    run->meta.config_arg = c;
    snprintf(run->title, sizeof run->title, "%s%s", c->preset[0] ? "preset " : "custom network",
             c->preset);
}
