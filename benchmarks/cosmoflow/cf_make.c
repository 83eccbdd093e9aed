#include "benchmarks/cosmoflow/cf_make.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/common/shard/shard.h"
#include "benchmarks/cosmoflow/model/cf_data.h"
#include "benchmarks/cosmoflow/model/cf_grf.h"
#include "benchmarks/cosmoflow/model/cf_network.h"

typedef struct {
    const cf_model *m;
    uint64_t seed;
    int grf;
} gen_ctx;

/* the synthetic set's val samples come from a step no training reaches */
#define VAL_STEP (1LL << 40)

static void gen(void *user, const char *split, int64_t index, float *input, float *target)
{
    const gen_ctx *g = user;
    int D = g->m->plan.cfg.size, o[3] = {0, 0, 0}, e[3] = {D, D, D};
    int val = !strcmp(split, "val");
    if (g->grf)
        cf_grf_box(D, g->m->plan.cfg.channels, g->m->plan.cfg.targets, g->seed, val, index, o, e,
                   input, target);
    else
        cf_data_generate(&g->m->plan, &g->m->part, g->seed, val ? VAL_STEP : 0, index, 1, input,
                         target);
}

int cf_make_data(const cf_args *a)
{
    const cf_cfg *c = &a->cfg;
    int grf = !strcmp(c->data, "grf");
    if (!grf && strcmp(c->data, "synthetic")) {
        fprintf(stderr, "cosmoflow: error: --make-data writes --data grf or synthetic samples, "
                "not '%s'\n", c->data);
        return 2;
    }
    const char *fmt = a->format ? a->format : shard_hdf5_available() ? "hdf5" : "raw";
    if (!strcmp(fmt, "hdf5") && !shard_hdf5_available()) {
        fprintf(stderr, "cosmoflow: error: --format hdf5: this build has no HDF5 (apt-get install "
                "libhdf5-dev, then make again; or --format raw)\n");
        return 2;
    }
    cf_model m;
    cf_model_whole(&m, c);
    gen_ctx g = {.m = &m, .seed = c->run.seed, .grf = grf};
    shard_make_cfg mc = {
        .dir = a->make_data, .encoding = fmt, .dataset = grf ? "cosmoflow-grf" : "cosmoflow-synthetic",
        .shape = {{c->size, c->size, c->size, c->channels}, c->targets},
        .seed = c->run.seed, .train = a->samples, .val = a->val_samples,
        .per_shard = a->shard_samples,
    };
    shard_make_stats st;
    char err[1024];
    int rc = shard_make(&mc, gen, &g, &st, err, sizeof err);
    cf_model_free(&m);
    if (rc) {
        fprintf(stderr, "cosmoflow: error: %s\n", err);
        return 1;
    }
    printf("cosmoflow: wrote %s: %lld train + %lld val samples of %d^3 x %d (%s), %d shards, "
           "%.4g MB in %.3g s (%.4g MB/s, generation included)\n",
           a->make_data, (long long)a->samples, (long long)a->val_samples, c->size, c->channels,
           fmt, st.shards, st.bytes / 1e6, st.seconds, st.bytes / 1e6 / (st.seconds > 0 ? st.seconds : 1e-9));
    return 0;
}
