#include "benchmarks/cosmoflow/cf_rec.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/train/trec.h"

static void write_config(rec_t *w, const void *cfg) { cf_write(cfg, w); }

int cf_rec_write(const cf_rec *s, const char *path, char *err, size_t errlen)
{
    trec_meta_t m = {.benchmark = "cosmoflow", .error = s->error, .started_utc = s->started_utc,
                     .argc = s->argc, .argv = s->argv, .system = s->sys,
                     .config = write_config, .config_arg = &s->args->cfg};
    return trec_write(path, s->job, s->result, &m, err, errlen);
}

void cf_rec_print_summary(const cf_rec *s, const char *record_path)
{
    const cf_cfg *c = &s->args->cfg;
    char title[96];
    snprintf(title, sizeof title, "%s%s, spatial %s", c->preset[0] ? "preset " : "custom network",
             c->preset, c->spatial);
    trec_print_summary(s->job, s->result, s->sys, "cosmoflow", title, record_path);
    const train_result *r = s->result;
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
