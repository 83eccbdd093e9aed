#include "benchmarks/cosmoflow/cf_rec.h"

#include <stdio.h>
#include <string.h>

static void write_config(rec_t *w, const void *cfg) { cf_write(cfg, w); }

/* The halo exchange's and the feature gather's time per step, after the summary. */
static void print_spatial(const train_result *r)
{
    double halo = 0, gather = 0;
    for (int i = 0; i < r->kernels.n; i++) {
        if (!strcmp(r->kernels.rows[i].kernel, "halo")) halo += r->kernels.rows[i].time_s;
        if (!strcmp(r->kernels.rows[i].kernel, "gather")) gather += r->kernels.rows[i].time_s;
    }
    if (halo > 0 || gather > 0)
        printf("  spatial     halo exchange %.4g s, feature gather %.4g s per step (rank 0, mean)\n",
               halo / r->steps, gather / r->steps);
    fflush(stdout);
}

void cf_rec_fill(tprog_run *run, const cf_args *a)
{
    const cf_cfg *c = &a->cfg;
    run->meta.benchmark = "cosmoflow";
    run->meta.config = write_config;
    run->meta.config_arg = c;
    snprintf(run->title, sizeof run->title, "%s%s, spatial %s",
             c->preset[0] ? "preset " : "custom network", c->preset, c->spatial);
    run->summary_more = print_spatial;
}
