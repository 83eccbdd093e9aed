#include "benchmarks/networks/fcdensenet/stemdl_network.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/networks/fcdensenet/data.h"
#include "benchmarks/networks/fcdensenet/fd_model.h"
#include "benchmarks/networks/fcdensenet/fd_split.h"
#include "benchmarks/networks/fcdensenet/net.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/train/trec.h"

static void facts(const void *model, net_facts *f)
{
    const plan_t *p = model;
    f->layers = p->n;
    f->params = p->params;
    f->fwd_conv_flops = p->fwd_conv_flops;
    /* the published STEMDL figures: forward, data gradient, weight gradient */
    f->convention_flops = 3 * p->fwd_conv_flops;
    /* spatial parallelism (fd_split.h): S ranks share each sample */
    f->replica_ranks = fd_split_of(&p->cfg);
}

/* One slice per layer: its weights and bias are contiguous (plan.c). */
static int slices(const void *model, net_slice **out)
{
    const plan_t *p = model;
    net_slice *s = XCALLOC((size_t)p->n, sizeof *s, "parameter slices");
    for (int i = 0; i < p->n; i++) {
        const plan_layer *l = &p->layers[i];
        int64_t count = l->weights + (l->bias ? l->c_out : 0);
        s[i] = (net_slice){.name = l->name, .off = l->off_w, .count = count};
    }
    *out = s;
    return p->n;
}

/* Backward makes the tensors in the reverse of forward order (net_pass.c: a
 * layer's bias gradient before its weights'). */
static int tensors(const void *model, gsync_tensor **out)
{
    int n = plan_tensors(model, out);
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        gsync_tensor t = (*out)[i];
        (*out)[i] = (*out)[j];
        (*out)[j] = t;
    }
    return n;
}

static void describe(const void *model, FILE *f, int64_t executed_per_step, int batch)
{
    const plan_t *p = model;
    plan_print(p, f, executed_per_step, batch);
    int S = fd_split_of(&p->cfg);
    if (S <= 1) return;
    /* what a rank of the split holds, against the unsplit network */
    plan_t whole = *p;
    snprintf(whole.cfg.spatial, sizeof whole.cfg.spatial, "1x1");
    const kern_ops *ops = kern_ref_ops();
    size_t mine = net_bytes_needed(p, ops, batch), all = net_bytes_needed(&whole, ops, batch);
    char a[32], b[32];
    trec_si((double)mine, a, sizeof a);
    trec_si((double)all, b, sizeof b);
    int hw[2];
    fd_split_hw(&p->cfg, hw);
    if (hw[1] == 1)
        fprintf(f, "spatial                        %s: %d ranks per sample along H, tiles of %d of %d "
                "rows (docs/spatial.md)\n",
                p->cfg.spatial, S, p->cfg.height / S, p->cfg.height);
    else
        fprintf(f, "spatial                        %s: %d ranks per sample, %d along H and %d along W, "
                "tiles of %d x %d of %d x %d (docs/spatial.md)\n",
                p->cfg.spatial, S, hw[0], hw[1], p->cfg.height / hw[0], p->cfg.width / hw[1],
                p->cfg.height, p->cfg.width);
    fprintf(f, "memory_per_rank_bytes          %zu  (%sB of network buffers at batch %d, fp32; "
            "unsplit %sB, %.2fx)\n",
            mine, a, batch, b, all ? (double)mine / (double)all : 0.0);
    fprintf(f, "halo_bytes_per_sample_step     %lld  (a rank with every neighbour, fp32)\n",
            (long long)fd_split_halo_bytes(p, 4));
    fprintf(f, "spatial_plan                   %s  (levels 0..%d split along H, %s; shuffle bytes "
            "%lld per rank and step)\n",
            p->cfg.spatial_plan, fd_plan_level(&p->cfg) - 1,
            fd_plan_level(&p->cfg) > p->cfg.levels ? "no whole-sample levels" : "then whole samples",
            (long long)fd_split_shuffle_bytes(p, batch, 4));
    fdm_print(&stemdl_network, p, batch, f);
}

static void write_record(const void *model, rec_t *w)
{
    const plan_t *p = model;
    rec_key(w, "network");
    rec_flow_map_begin(w);
    rec_kv_int(w, "layers", p->n);
    rec_kv_int(w, "conv_weights", p->weights);
    rec_kv_int(w, "biases", p->biases);
    rec_kv_int(w, "parameters", p->params);
    int S = fd_split_of(&p->cfg);
    if (S > 1) {
        /* the split's plan and what it sends per step (fd_split.h), counted
         * from the geometry; the kernel table holds the measured times */
        int esz = strcmp(p->cfg.run.precision, "fp32") == 0 ? 4 : 2;
        fd_rank_counts rc;
        /* the busiest rank's: one neighbour along an axis of 2 tiles */
        fd_split_rank_counts(p, p->cfg.run.batch, esz, 1, &rc);
        rec_kv_int(w, "spatial_ranks", S);
        rec_kv_str(w, "spatial_plan", p->cfg.spatial_plan);
        rec_kv_int(w, "spatial_shuffle_level", fd_plan_level(&p->cfg));
        rec_kv_int(w, "halo_bytes_per_step", rc.halo_bytes);
        rec_kv_int(w, "halo_messages_per_step", rc.halo_msgs);
        rec_kv_int(w, "shuffle_bytes_per_step", rc.shuffle_bytes);
        rec_kv_int(w, "shuffle_messages_per_step", rc.shuffle_msgs);
    }
    /* what the plan model predicted for this run (also the data plan's,
     * which runs unsplit), for the report to set beside the measured step */
    if (p->cfg.model_predicted_step_s > 0)
        rec_kv_double(w, "predicted_step_s", p->cfg.model_predicted_step_s);
    rec_map_end(w);
}

static void batch_floats(const void *model, int batch, size_t *input, size_t *target)
{
    const cfg_t *c = &((const plan_t *)model)->cfg;
    *input = (size_t)batch * c->c_in * c->height * c->width;
    *target = (size_t)batch * c->c_out * c->height * c->width;
}

static void generate(const void *model, uint64_t seed, int64_t step, int64_t first_sample,
                     int batch, float *input, float *target)
{
    data_generate(&((const plan_t *)model)->cfg, seed, step, first_sample, batch, input, target);
}

static void *create(const void *model, const kern_ops *ops, void *ctx, int batch, int dry,
                    char *err, size_t errlen)
{
    return net_create(model, ops, ctx, batch, dry, err, errlen);
}

static void release(void *inst) { net_free(inst); }
static size_t bytes(const void *inst) { return net_bytes(inst); }
static size_t bytes_needed(const void *model, const kern_ops *ops, int batch)
{
    return net_bytes_needed(model, ops, batch);
}
static void init_params(void *inst, uint64_t seed) { net_init_params(inst, seed); }
static void get_params(const void *inst, float *host) { net_get_params(inst, host); }
static void set_params(void *inst, const float *host) { net_set_params(inst, host); }
static void params(const void *inst, net_params *p) { net_param_arrays(inst, p); }
static void load(void *inst, const float *input, const float *target) { net_load(inst, input, target); }
static double forward(void *inst, kc_t *kc) { return net_forward(inst, kc, NULL, NULL); }
static void backward(void *inst, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    net_backward(inst, kc, ready, user);
}

const network_t stemdl_network = {
    .name = "FC-DenseNet",
    .oom_hint = "try a smaller --batch, --image or preset",
    .facts = facts,
    .slices = slices,
    .tensors = tensors,
    .describe = describe,
    .write_record = write_record,
    .batch_floats = batch_floats,
    .generate = generate,
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
