#include "benchmarks/stemdl/st_data.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/networks/fcdensenet/data.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/train/tdlio.h"
#include "benchmarks/train/tstage.h"

/* the set's samples are data.h's of two steps no training reaches: sample i
 * of train is sample i of step TRAIN_STEP, of val sample i of VAL_STEP */
#define TRAIN_STEP (1LL << 40)
#define VAL_STEP (TRAIN_STEP + 1)

int st_data_is(const char *data) { return !strncmp(data, "files:", 6) || !strcmp(data, "cbed"); }

typedef struct {
    const cfg_t *cfg;
    uint64_t seed;
} cbed_src;

static void cbed_one(const cbed_src *g, int split, int64_t index, float *input, float *target)
{
    data_generate(g->cfg, g->seed, split ? VAL_STEP : TRAIN_STEP, index, 1, input, target);
}

/* the feed's generator: whole samples only (st_data_open asks for no box) */
static void cbed_gen(void *user, int split, int64_t index, const int o[3], const int e[3],
                     float *input, float *target)
{
    (void)o, (void)e;
    cbed_one(user, split, index, input, target);
}

static void make_gen(void *user, const char *split, int64_t index, float *input, float *target)
{
    cbed_one(user, !strcmp(split, "val"), index, input, target);
}

static shard_shape shape_of(const cfg_t *c)
{
    return (shard_shape){{c->c_in, c->height, c->width, 1}, c->c_out * c->height * c->width};
}

/* ---- the network over a st_model -------------------------------------------- */

#define M(model) ((const st_model *)(model))

static void facts(const void *model, net_facts *f)
{
    stemdl_network.facts(model, f);
    if (M(model)->feed) {
        f->train_samples = shard_feed_samples(M(model)->feed, 0);
        f->eval_samples = shard_feed_samples(M(model)->feed, 1);
    }
}

static void write_record(const void *model, rec_t *w)
{
    stemdl_network.write_record(model, w);
    if (M(model)->feed) shard_feed_write_record(M(model)->feed, w);
}

static void generate(const void *model, uint64_t seed, int64_t step, int64_t first_sample,
                     int batch, float *input, float *target)
{
    if (M(model)->feed) shard_feed_batch(M(model)->feed, step, first_sample, batch, input, target);
    else stemdl_network.generate(model, seed, step, first_sample, batch, input, target);
}

static void generate_eval(const void *model, int64_t first_sample, int batch, float *input,
                          float *target)
{
    CHECK(M(model)->feed != NULL, "validation samples need a data set (--data files:DIR or cbed)");
    shard_feed_eval(M(model)->feed, first_sample, batch, input, target);
}

const network_t *st_network(void)
{
    static network_t n;
    static int made;
    if (!made) {
        n = stemdl_network;
        n.facts = facts;
        n.write_record = write_record;
        n.generate = generate;
        n.generate_eval = generate_eval;
        made = 1;
    }
    return &n;
}

/* ---- opening and writing --------------------------------------------------- */

int st_data_open(st_model *m, const st_data_opts *o, uint64_t seed, int groups, int group,
                 int batch, int64_t steps, char *err, size_t errlen)
{
    /* the generator's parameters live as long as the process (one feed per run) */
    static cbed_src g;
    const cfg_t *c = &m->plan.cfg;
    g = (cbed_src){.cfg = c, .seed = seed};
    shard_feed_cfg fc = {.data = o->data, .shape = shape_of(c),
                         .shape_opts = "--c-in, --image, --c-out",
                         .box_o = {0, 0, 0}, .box_e = {c->c_in, c->height, c->width},
                         .gen = cbed_gen, .gen_user = &g, .seed = seed, .groups = groups,
                         .group = group, .batch = batch, .steps = steps};
    return shard_feed_open(&m->feed, &fc, &o->feed, err, errlen);
}

typedef struct {
    st_model *m;
    const st_data_opts *o;
    uint64_t seed;
    int groups, group, batch;
    int64_t steps;
} opener;

static int open_feed(void *user, shard_feed **feed, char *err, size_t errlen)
{
    opener *r = user;
    int rc = st_data_open(r->m, r->o, r->seed, r->groups, r->group, r->batch, r->steps, err,
                          errlen);
    *feed = r->m->feed;
    return rc;
}

int st_read_only(st_model *m, const st_data_opts *o, uint64_t seed, int S, int batch,
                 int64_t steps, const char *record, const comm_t *comm)
{
    opener r = {.m = m, .o = o, .seed = seed, .groups = comm->size / S, .group = comm->rank / S,
                .batch = batch, .steps = steps};
    tdlio_cfg d = {.program = "stemdl", .data = o->data, .feed = &o->feed, .steps = steps,
                   .first = (int64_t)r.group * batch, .batch = batch, .ranks_per_sample = S,
                   .record = record};
    stemdl_network.batch_floats(&m->plan, batch, &d.input_floats, &d.target_floats);
    return tdlio_run(&d, open_feed, &r, comm);
}

int st_make_data(const plan_t *p, const st_data_opts *o, uint64_t seed)
{
    const cfg_t *c = &p->cfg;
    if (strcmp(o->data, "cbed") && strcmp(o->data, "synthetic")) {
        fprintf(stderr, "stemdl: error: --make-data writes the cbed set, not --data '%s'\n", o->data);
        return 2;
    }
    const char *fmt = o->format ? o->format : shard_hdf5_available() ? "hdf5" : "raw";
    if (!strcmp(fmt, "hdf5") && !shard_hdf5_available()) {
        fprintf(stderr, "stemdl: error: --format hdf5: this build has no HDF5 (apt-get install "
                "libhdf5-dev, then make again; or --format raw)\n");
        return 2;
    }
    cbed_src g = {.cfg = c, .seed = seed};
    shard_make_cfg mc = {.dir = o->make_data, .encoding = fmt, .dataset = "stemdl-cbed",
                         .shape = shape_of(c), .seed = seed, .train = o->samples,
                         .val = o->val_samples, .per_shard = o->shard_samples};
    shard_make_stats st;
    char err[1024];
    if (shard_make(&mc, make_gen, &g, &st, err, sizeof err)) {
        fprintf(stderr, "stemdl: error: %s\n", err);
        return 1;
    }
    printf("stemdl: wrote %s: %lld train + %lld val samples of %d x %dx%d -> %d x %dx%d (%s), "
           "%d shards, %.4g MB in %.3g s\n",
           o->make_data, (long long)o->samples, (long long)o->val_samples, c->c_in, c->height,
           c->width, c->c_out, c->height, c->width, fmt, st.shards, st.bytes / 1e6, st.seconds);
    return 0;
}

int st_make_missing(const plan_t *p, st_data_opts *o, uint64_t seed, const comm_t *comm)
{
    if (!o->make_missing || strncmp(o->data, "files:", 6)) return 0;
    char path[600];
    snprintf(path, sizeof path, "%s/manifest.yaml", o->data + 6);
    int rc = 0;
    if (comm->rank == 0 && access(path, F_OK) != 0) {
        st_data_opts w = *o;
        w.make_data = o->data + 6;
        w.data = "cbed";
        double t0 = timer_now_s();
        rc = st_make_data(p, &w, seed) ? -1 : 0;
        o->feed.made_s = timer_now_s() - t0;
    }
    if (comm->mpi) CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm->world));
    return rc;
}

int st_stage(st_data_opts *o, const comm_t *comm, int print)
{
    if (!o->stage || strncmp(o->data, "files:", 6)) return 0;
    if ((size_t)snprintf(o->staged_data, sizeof o->staged_data, "files:%s", o->stage) >=
        sizeof o->staged_data) {
        fprintf(stderr, "stemdl: error: --stage %s: path too long\n", o->stage);
        return -1;
    }
    if (tstage_copy(o->data + 6, o->stage, comm, print, "stemdl", &o->feed.staged_s,
                    &o->feed.staged_bytes))
        return -1;
    o->feed.staged_from = o->data;
    o->data = o->staged_data;
    return 0;
}
