#include "benchmarks/cosmoflow/model/cf_feed.h"

#include <string.h>

#include "benchmarks/cosmoflow/model/cf_grf.h"

int cf_feed_is(const char *data) { return !strncmp(data, "files:", 6) || !strcmp(data, "grf"); }

typedef struct {
    int D, C, T;
    uint64_t seed;
} grf_src;

static void grf_gen(void *user, int split, int64_t index, const int o[3], const int e[3],
                    float *input, float *target)
{
    const grf_src *g = user;
    cf_grf_box(g->D, g->C, g->T, g->seed, split, index, o, e, input, target);
}

int cf_feed_open(cf_feed **out, const cf_plan *p, const cf_part *pt, const char *data,
                 const cf_feed_opts *o, uint64_t seed, int batch, int64_t steps, char *err,
                 size_t errlen)
{
    /* the generator's parameters live as long as the process (one feed per run) */
    static grf_src g;
    int D = p->cfg.size;
    g = (grf_src){.D = D, .C = p->cfg.channels, .T = p->cfg.targets, .seed = seed};
    shard_feed_cfg c = {
        .data = data, .shape = {{D, D, D, p->cfg.channels}, p->cfg.targets},
        .shape_opts = "--size, --channels, --targets", .gen = grf_gen, .gen_user = &g,
        .seed = seed, .groups = pt->groups, .group = pt->group, .batch = batch, .steps = steps};
    for (int a = 0; a < 3; a++)
        c.box_o[a] = cf_part_offset(p, pt, a, 0), c.box_e[a] = cf_part_extent(p, pt, a, 0);
    return shard_feed_open(out, &c, o, err, errlen);
}

void cf_feed_batch(cf_feed *f, int64_t step, int64_t first, int batch, float *input,
                   float *target)
{
    shard_feed_batch(f, step, first, batch, input, target);
}

void cf_feed_eval(cf_feed *f, int64_t first, int batch, float *input, float *target)
{
    shard_feed_eval(f, first, batch, input, target);
}

int64_t cf_feed_samples(const cf_feed *f, int split) { return shard_feed_samples(f, split); }

void cf_feed_io(const cf_feed *f, int64_t *bytes, int64_t *samples, double *read_s)
{
    shard_feed_io(f, bytes, samples, read_s);
}

void cf_feed_write_record(const cf_feed *f, rec_t *w) { shard_feed_write_record(f, w); }
void cf_feed_close(cf_feed *f) { shard_feed_close(f); }
