#include "benchmarks/cosmoflow/cf_dlio.h"

#include "benchmarks/cosmoflow/model/cf_feed.h"
#include "benchmarks/train/tdlio.h"

typedef struct {
    const cf_args *a;
    cf_model *m;
    int64_t steps;
} opener;

/* the feed of this rank's sub-volume, kept in the model (cf_model_free closes it) */
static int open_feed(void *user, shard_feed **feed, char *err, size_t errlen)
{
    opener *o = user;
    const runcfg_t *c = &o->a->cfg.run;
    int rc = cf_feed_open(&o->m->feed, &o->m->plan, &o->m->part, o->a->cfg.data, &o->a->feed,
                          c->seed, c->batch, o->steps, err, errlen);
    *feed = o->m->feed;
    return rc;
}

int cf_read_only(const cf_args *a, cf_model *m, comm_t *comm)
{
    const runcfg_t *c = &a->cfg.run;
    opener o = {.a = a, .m = m, .steps = (int64_t)c->steps + c->warmup};
    tdlio_cfg d = {.program = "cosmoflow", .data = a->cfg.data, .feed = &a->feed,
                   .steps = o.steps, .first = (int64_t)m->part.group * c->batch,
                   .batch = c->batch, .ranks_per_sample = m->part.ranks_per_sample,
                   .record = a->t.record};
    cosmoflow_network.batch_floats(m, c->batch, &d.input_floats, &d.target_floats);
    return tdlio_run(&d, open_feed, &o, comm);
}
