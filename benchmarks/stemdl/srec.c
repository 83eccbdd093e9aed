#include "benchmarks/stemdl/srec.h"

#include <stdio.h>

#include "benchmarks/train/trec.h"

static void write_config(rec_t *w, const void *cfg) { cfg_write(cfg, w); }

int srec_write(const srec_t *s, const char *path, char *err, size_t errlen)
{
    trec_meta_t m = {.benchmark = "stemdl", .error = s->error, .started_utc = s->started_utc,
                     .argc = s->argc, .argv = s->argv, .system = s->sys,
                     .config = write_config, .config_arg = &s->args->cfg};
    return trec_write(path, s->job, s->result, &m, err, errlen);
}

void srec_print_summary(const srec_t *s, const char *record_path)
{
    const cfg_t *c = &s->args->cfg;
    char title[64];
    snprintf(title, sizeof title, "%s%s", c->preset[0] ? "preset " : "custom network", c->preset);
    trec_print_summary(s->job, s->result, s->sys, "stemdl", title, record_path);
}
