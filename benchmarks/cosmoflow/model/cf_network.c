#include "benchmarks/cosmoflow/model/cf_network.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/cosmoflow/model/cf_feed.h"

int cf_model_build(cf_model *m, const cf_cfg *c, const comm_t *comm, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->comm.cart = MPI_COMM_NULL;
    cf_plan_build(&m->plan, c);
    if (cf_part_make(&m->plan, comm->size, comm->rank, &m->part, err, errlen)) return -1;
    if (comm->mpi && cf_comm_open(&m->comm, &m->part, comm->world, err, errlen)) return -1;
    /* a data set (files:DIR, grf) is opened by the program with its options (cf_feed.h) */
    if (strcmp(c->data, "synthetic") && !cf_feed_is(c->data)) {
        m->file = XCALLOC(1, sizeof *m->file, "sample file");
        if (cf_data_open(m->file, &m->plan, c->data, err, errlen)) {
            free(m->file);
            m->file = NULL;
            cf_comm_close(&m->comm);
            return -1;
        }
    }
    return 0;
}

void cf_model_whole(cf_model *m, const cf_cfg *c)
{
    memset(m, 0, sizeof *m);
    m->comm.cart = MPI_COMM_NULL;
    m->comm.size = 1;
    cf_plan_build(&m->plan, c);
    int one[3] = {1, 1, 1};
    cf_part_for(&m->plan, one, 0, &m->part);
}

void cf_model_free(cf_model *m)
{
    cf_comm_close(&m->comm);
    if (m->file) {
        cf_data_close(m->file);
        free(m->file);
        m->file = NULL;
    }
    cf_feed_close(m->feed);
    m->feed = NULL;
}

/* ---- network_t ----------------------------------------------------------------- */

static const cf_model *M(const void *model) { return model; }

static void facts(const void *model, net_facts *f)
{
    const cf_plan *p = &M(model)->plan;
    f->layers = p->nlayers;
    f->params = p->params;
    f->fwd_conv_flops = p->fwd_conv_flops;
    f->convention_flops = 3 * p->fwd_conv_flops;
    f->replica_ranks = M(model)->part.ranks_per_sample;
    if (M(model)->feed) {
        f->train_samples = cf_feed_samples(M(model)->feed, 0);
        f->eval_samples = cf_feed_samples(M(model)->feed, 1);
    }
}

/* One slice per layer: its weights, then its biases. */
static int slices(const void *model, net_slice **out)
{
    const cf_plan *p = &M(model)->plan;
    net_slice *s = XCALLOC((size_t)p->nlayers, sizeof *s, "parameter slices");
    for (int i = 0; i < p->nlayers; i++)
        s[i] = (net_slice){.name = p->layers[i].name, .off = p->layers[i].off_w,
                           .count = p->layers[i].nw + p->layers[i].co};
    *out = s;
    return p->nlayers;
}

/* Backward order: fc3, fc2, fc1, then the convolutions from the last. */
static int tensors(const void *model, gsync_tensor **out)
{
    const cf_plan *p = &M(model)->plan;
    gsync_tensor *t = XCALLOC((size_t)p->nlayers * 2, sizeof *t, "gradient tensors");
    int n = 0;
    for (int i = p->nlayers - 1; i >= 0; i--) {
        const cf_layer *L = &p->layers[i];
        snprintf(t[n].name, sizeof t[n].name, "%s.w", L->name);
        t[n].layer = i, t[n].off = L->off_w, t[n].count = L->nw;
        n++;
        snprintf(t[n].name, sizeof t[n].name, "%s.b", L->name);
        t[n].layer = i, t[n].off = L->off_b, t[n].count = L->co;
        n++;
    }
    *out = t;
    return n;
}

static void describe(const void *model, FILE *f, int64_t executed_per_step, int batch)
{
    cf_describe(model, f, executed_per_step, batch);
}

/* The network and its decomposition (docs/record.md "cosmoflow"). */
static void write_record(const void *model, rec_t *w)
{
    const cf_model *m = model;
    const cf_plan *p = &m->plan;
    const cf_part *pt = &m->part;
    rec_key(w, "network");
    rec_flow_map_begin(w);
    rec_kv_int(w, "layers", p->nlayers);
    rec_kv_int(w, "conv_weights", p->conv_weights);
    rec_kv_int(w, "dense_weights", p->dense_weights);
    rec_kv_int(w, "biases", p->biases);
    rec_kv_int(w, "parameters", p->params);
    rec_kv_int(w, "forward_dense_flops_per_sample", p->fwd_dense_flops);
    rec_map_end(w);

    int64_t msgs, bytes = cf_part_halo_bytes(p, pt, sizeof(float), &msgs);
    rec_key(w, "spatial");
    rec_map_begin(w);
    rec_key(w, "split");
    rec_flow_seq_begin(w);
    for (int a = 0; a < 3; a++) rec_int(w, pt->split[a]);
    rec_seq_end(w);
    rec_kv_int(w, "ranks_per_sample", pt->ranks_per_sample);
    rec_kv_int(w, "groups", pt->groups);
    rec_kv_int(w, "size", p->cfg.size);
    rec_kv_int(w, "units", p->units);
    rec_kv_int(w, "halo", p->halo);
    rec_kv_int(w, "kernel", p->cfg.kernel);
    rec_kv_bool(w, "overlap", p->cfg.overlap);
    rec_kv_str(w, "head", "gather: every spatial rank gets the whole features (MPI_Allgatherv) and "
                          "runs the dense head; its gradients count once per group");
    rec_kv_str(w, "rank0_note", "halo bytes: fp32 elements sent by rank 0 per sample of its batch");
    rec_key(w, "rank0_units");
    rec_flow_seq_begin(w);
    for (int a = 0; a < 3; a++) rec_int(w, pt->units[a]);
    rec_seq_end(w);
    rec_kv_int(w, "halo_bytes_per_sample", bytes);
    rec_kv_int(w, "halo_messages_per_step", msgs);
    rec_kv_int(w, "gather_bytes_per_sample",
               pt->ranks_per_sample > 1 ? (int64_t)p->feat_c * pt->units[0] * pt->units[1] *
                                              pt->units[2] * (int64_t)sizeof(float) *
                                              (pt->ranks_per_sample - 1)
                                        : 0);
    rec_key(w, "layers");
    rec_seq_begin(w);
    for (int l = 0; l < p->cfg.blocks; l++) {
        const cf_layer *L = &p->layers[l];
        rec_flow_map_begin(w);
        rec_kv_str(w, "layer", L->name);
        rec_kv_int(w, "extent", L->ext);
        rec_kv_int(w, "kernel", L->k);
        rec_kv_int(w, "c_in", L->ci);
        rec_kv_int(w, "c_out", L->co);
        rec_kv_int(w, "fwd_flops", L->fwd_flops);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
    if (m->feed) cf_feed_write_record(m->feed, w);
}

static void batch_floats(const void *model, int batch, size_t *input, size_t *target)
{
    const cf_model *m = model;
    const cf_part *pt = &m->part;
    size_t vox = 1;
    for (int a = 0; a < 3; a++) vox *= (size_t)cf_part_extent(&m->plan, pt, a, 0);
    *input = (size_t)batch * vox * m->plan.cfg.channels;
    *target = (size_t)batch * m->plan.cfg.targets;
}

static void generate(const void *model, uint64_t seed, int64_t step, int64_t first, int batch,
                     float *input, float *target)
{
    const cf_model *m = model;
    if (m->feed) cf_feed_batch(m->feed, step, first, batch, input, target);
    else if (m->file) cf_data_read(m->file, &m->plan, &m->part, step, first, batch, input, target);
    else cf_data_generate(&m->plan, &m->part, seed, step, first, batch, input, target);
    if (m->plan.cfg.log_input) {
        /* MLPerf's log(1 + x) of particle counts; signed so that the
         * synthetic data's negative voxels stay finite (equal on x >= 0).
         * Data preparation, as the loading: not in the step's FLOPs */
        size_t nin, ntg;
        batch_floats(model, batch, &nin, &ntg);
        for (size_t i = 0; i < nin; i++)
            input[i] = input[i] < 0 ? -log1pf(-input[i]) : log1pf(input[i]);
    }
}

/* validation samples (a data set's val split; network.h) */
static void generate_eval(const void *model, int64_t first, int batch, float *input, float *target)
{
    const cf_model *m = model;
    CHECK(m->feed != NULL, "validation samples need a data set (--data files:DIR or grf)");
    cf_feed_eval(m->feed, first, batch, input, target);
}

static void *create(const void *model, const kern_ops *ops, void *ctx, int batch, int dry,
                    char *err, size_t errlen)
{
    return cf_net_create(model, ops, ctx, batch, dry, err, errlen);
}

static void release(void *inst) { cf_net_free(inst); }
static size_t bytes(const void *inst) { return cf_net_bytes(inst); }
static size_t bytes_needed(const void *model, const kern_ops *ops, int batch)
{
    return cf_net_bytes_needed(model, ops, batch);
}
static void init_params(void *inst, uint64_t seed) { cf_net_init_params(inst, seed); }
static void get_params(const void *inst, float *host) { cf_net_get_params(inst, host); }
static void set_params(void *inst, const float *host) { cf_net_set_params(inst, host); }
static void params(const void *inst, net_params *p)
{
    const cf_net *n = inst;
    p->master = n->master;
    p->compute = n->wc;
    p->grads = n->grads;
}
static void load(void *inst, const float *input, const float *target)
{
    cf_net_load(inst, input, target);
}
static double forward(void *inst, kc_t *kc) { return cf_net_forward(inst, kc); }
/* MLPerf HPC CosmoFlow's eval_error (network.h forward_mae): Keras's mean
 * absolute error, over the batch's samples and the 4 (cfg.targets)
 * parameters; the output and the target read back as fp32 (a few floats) */
static double forward_mae(void *inst)
{
    const cf_net *n = inst;
    if (n->dry) return NAN;
    int k = n->p->cfg.targets;
    size_t cnt = (size_t)n->batch * (size_t)k;
    float *y = XMALLOC(2 * cnt * sizeof *y, "output and target for the MAE"), *t = y + cnt;
    tview vy = {n->out, n->batch, 1, 1, k, k}, vt = {n->tgt, n->batch, 1, 1, k, k};
    n->ops->get_f32(n->ctx, &vy, y);
    n->ops->get_f32(n->ctx, &vt, t);
    double sum = 0;
    for (size_t i = 0; i < cnt; i++) sum += fabs((double)y[i] - (double)t[i]);
    free(y);
    return sum / (double)cnt;
}
static void backward(void *inst, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    cf_net_backward(inst, kc, ready, user);
}

const network_t cosmoflow_network = {
    .name = "CosmoFlow",
    .oom_hint = "try a smaller --size, --batch or preset, or more --spatial ranks per sample",
    .facts = facts,
    .slices = slices,
    .tensors = tensors,
    .describe = describe,
    .write_record = write_record,
    .batch_floats = batch_floats,
    .generate = generate,
    .generate_eval = generate_eval,
    .forward_mae = forward_mae,
    .create = create,
    .release = release,
    .bytes = bytes,
    .bytes_needed = bytes_needed,
    .init_params = init_params,
    .get_params = get_params,
    .set_params = set_params,
    .params = params,
    .load = load,
    .forward = forward,
    .backward = backward,
};
