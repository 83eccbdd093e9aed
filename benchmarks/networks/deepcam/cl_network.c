#include "benchmarks/networks/deepcam/cl_network.h"

#include <stdio.h>

#include "benchmarks/common/check.h"
#include "benchmarks/networks/deepcam/cl_bnsync.h"
#include "benchmarks/networks/deepcam/cl_data.h"
#include "benchmarks/networks/deepcam/cl_net.h"
#include "benchmarks/networks/deepcam/cl_plan.h"
#include "benchmarks/networks/deepcam/cl_split.h"

static void facts(const void *model, net_facts *f)
{
    const cl_plan *p = model;
    f->layers = p->layers;
    f->params = p->params;
    f->fwd_conv_flops = p->fwd_conv_flops;
    /* the convention of the other workloads: forward, data and weight gradients */
    f->convention_flops = 3 * p->fwd_conv_flops;
    /* --spatial HxW: groups of N = H W ranks share each sample (cl_split.h) */
    f->replica_ranks = cl_split_of(p);
    f->eval_samples = p->eval_samples;
    /* MLPerf DeepCAM's batchnorm_group_size: the ranks whose statistics each
     * batch norm combines; a split's group (N > 1) always syncs (climate) */
    f->bn_group_ranks = p->bn ? p->bn->ranks : 1;
}

/* One slice per parameter layer, in forward order. */
static int slices(const void *model, net_slice **out)
{
    const cl_plan *p = model;
    net_slice *s = XCALLOC((size_t)p->layers, sizeof *s, "parameter slices");
    for (int l = 0; l < p->layers; l++) {
        const cl_op *o = &p->op[p->layer_op[l]];
        s[l] = (net_slice){.name = o->name, .off = o->off, .count = o->count};
    }
    *out = s;
    return p->layers;
}

/* One tensor per layer, in the order backward completes them (the reverse
 * of forward). */
static int tensors(const void *model, gsync_tensor **out)
{
    const cl_plan *p = model;
    gsync_tensor *t = XCALLOC((size_t)p->layers, sizeof *t, "gradient tensors");
    for (int l = 0; l < p->layers; l++) {
        const cl_op *o = &p->op[p->layer_op[p->layers - 1 - l]];
        snprintf(t[l].name, sizeof t[l].name, "%.40s", o->name);
        t[l].layer = o->layer, t[l].off = o->off, t[l].count = o->count;
    }
    *out = t;
    return p->layers;
}

static void describe(const void *model, FILE *f, int64_t executed_per_step, int batch)
{
    cl_plan_print(model, f, executed_per_step, batch);
}

static void write_record(const void *model, rec_t *w)
{
    const cl_plan *p = model;
    rec_key(w, "network");
    rec_flow_map_begin(w);
    rec_kv_int(w, "layers", p->layers);
    rec_kv_int(w, "convolutions", p->convs);
    rec_kv_int(w, "conv_weights", p->conv_weights);
    rec_kv_int(w, "parameters", p->params);
    /* whose statistics batch norm uses (docs/climate.md "Synchronised batch
     * norm"): this rank's batch's, or its group's (the reductions' payload
     * per step and rank, counted from the plan) */
    const cl_bnsync *bn = p->bn;
    rec_kv_str(w, "batch_norm", bn ? "synchronised" : "per-rank");
    rec_kv_int(w, "bn_group_ranks", bn ? bn->ranks : 1);
    rec_kv_int(w, "bn_sync_reductions_per_step", bn ? cl_plan_bnsync_reductions(p) : 0);
    rec_kv_int(w, "bn_sync_bytes_per_step", bn ? cl_plan_bnsync_bytes(p) : 0);
    /* the split (docs/spatial.md "The climate network"), with stemdl's
     * keys (the report's split table reads them): the H x W grid, and what the
     * busiest rank of a group sends in halos per step (counted from the
     * plan, fp32 activations); batch norm is then synchronised over (at
     * least) the group, the image pool summed over it */
    int N = cl_split_of(p), sg[2];
    cl_split_grid(p, sg);
    if (N > 1) {
        char grid[32];
        snprintf(grid, sizeof grid, "%dx%d", sg[0], sg[1]);
        int64_t msgs = 0, hb = cl_split_halo_bytes(p, sg, p->cfg.run.batch, 4, &msgs);
        rec_kv_int(w, "spatial_ranks", N);
        rec_kv_str(w, "spatial_grid", grid);
        rec_kv_int(w, "halo_convolutions", cl_split_halo_ops(p, sg));
        rec_kv_int(w, "halo_bytes_per_step", hb);
        rec_kv_int(w, "halo_messages_per_step", msgs);
        /* every level is split on the one grid: no redistribution between
         * levels (stemdl's per-level plans shuffle; the same table shows both) */
        rec_kv_int(w, "shuffle_bytes_per_step", 0);
        rec_kv_int(w, "shuffle_messages_per_step", 0);
    }
    rec_map_end(w);
}

static void batch_floats(const void *model, int batch, size_t *input, size_t *target)
{
    const cl_cfg *c = &((const cl_plan *)model)->cfg;
    size_t px = (size_t)c->height * (size_t)c->width;
    *input = (size_t)batch * (size_t)c->channels * px;
    *target = (size_t)batch * px;
}

static void generate(const void *model, uint64_t seed, int64_t step, int64_t first_sample,
                     int batch, float *input, float *target)
{
    const cl_cfg *c = &((const cl_plan *)model)->cfg;
    cl_data_shape s = {.channels = c->channels, .h = c->height, .w = c->width, .max_blobs = 3,
                       .max_bands = 2};
    cl_data_generate(&s, seed, step, first_sample, batch, input, target);
}

/* The validation split (network.h): sample i of eval_samples is sample i of
 * step 0 of a seed of its own (the run's seed ^ "climatev"), so it is the
 * same set for every rank count and batch, never a training sample of the
 * run's seed; positions wrap modulo the split. */
static void generate_eval(const void *model, int64_t first_sample, int batch, float *input,
                          float *target)
{
    const cl_plan *p = model;
    const cl_cfg *c = &p->cfg;
    CHECK(p->eval_samples > 0, "climate: validation samples asked of a run without a split");
    cl_data_shape s = {.channels = c->channels, .h = c->height, .w = c->width, .max_blobs = 3,
                       .max_bands = 2};
    size_t in1, tg1;
    batch_floats(model, 1, &in1, &tg1);
    uint64_t seed = c->run.seed ^ 0x636c696d61746576ULL;
    for (int i = 0; i < batch; i++)
        cl_data_generate(&s, seed, 0, (first_sample + i) % p->eval_samples, 1,
                         input + (size_t)i * in1, target + (size_t)i * tg1);
}

static void *create(const void *model, const kern_ops *ops, void *ctx, int batch, int dry,
                    char *err, size_t errlen)
{
    return cl_net_create(model, ops, ctx, batch, dry, err, errlen);
}

static void release(void *inst) { cl_net_free(inst); }
static size_t bytes(const void *inst) { return cl_net_bytes(inst); }
static size_t bytes_needed(const void *model, const kern_ops *ops, int batch)
{
    return cl_net_bytes_needed(model, ops, batch);
}
static void init_params(void *inst, uint64_t seed) { cl_net_init_params(inst, seed); }
static void get_params(const void *inst, float *host) { cl_net_get_params(inst, host); }
static void set_params(void *inst, const float *host) { cl_net_set_params(inst, host); }
static void params(const void *inst, net_params *p) { cl_net_param_arrays(inst, p); }
static void load(void *inst, const float *input, const float *target)
{
    cl_net_load(inst, input, target);
}
static double forward(void *inst, kc_t *kc) { return cl_net_forward(inst, kc); }
static void backward(void *inst, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    cl_net_backward(inst, kc, ready, user);
}

const network_t climate_network = {
    .name = "DeepLabv3+ (DeepCAM)",
    .oom_hint = "try a smaller --batch, --image, --width-div or preset",
    .facts = facts,
    .slices = slices,
    .tensors = tensors,
    .describe = describe,
    .write_record = write_record,
    .batch_floats = batch_floats,
    .generate = generate,
    .generate_eval = generate_eval,
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
