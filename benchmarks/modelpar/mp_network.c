#include "benchmarks/modelpar/mp_network.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/modelpar/mp_stats.h"

static const mp_model *MM(const void *model) { return model; }

static void facts(const void *model, net_facts *f)
{
    const mp_geom *g = &MM(model)->g;
    f->layers = MP_LAYERS + (g->dslice ? 2 : 0);
    f->params = g->params_rank;
    /* per sample, the whole image: the GEMMs of the forward pass */
    int64_t fwd = 0;
    for (int l = 0; l < MP_LAYERS; l++)
        fwd += 2 * g->positions * g->layer[l].in * (int64_t)g->layer[l].co;
    f->fwd_conv_flops = fwd;
    f->convention_flops = 3 * fwd;
    f->replica_ranks = g->M;
    f->sharded = g->M > 1;
}

static int slices(const void *model, net_slice **out)
{
    const mp_geom *g = &MM(model)->g;
    net_slice *s = XCALLOC(MP_LAYERS + 2, sizeof *s, "parameter slices");
    int n = 0;
    for (int l = 0; l < MP_LAYERS; l++)
        s[n++] = (net_slice){.name = g->layer[l].name, .off = g->layer[l].off_w,
                             .count = g->layer[l].params_rank};
    if (g->dslice) {
        s[n++] = (net_slice){.name = "tp1", .off = g->off_tp1, .count = g->tp_params_rank / 2};
        s[n++] = (net_slice){.name = "tp2", .off = g->off_tp2, .count = g->tp_params_rank / 2};
    }
    *out = s;
    return n;
}

static int tensors(const void *model, gsync_tensor **out)
{
    const mp_geom *g = &MM(model)->g;
    gsync_tensor *t = XCALLOC(2 * MP_LAYERS + 2, sizeof *t, "gradient tensors");
    int n = 0;
    for (int l = MP_LAYERS - 1; l >= 0; l--) {
        const mp_layer *L = &g->layer[l];
        int id = mp_lc_id(g, l);
        snprintf(t[n].name, sizeof t[n].name, "%s.w", L->name);
        t[n].layer = id, t[n].off = L->off_w, t[n].count = L->off_b - L->off_w;
        n++;
        snprintf(t[n].name, sizeof t[n].name, "%s.b", L->name);
        t[n].layer = id, t[n].off = L->off_b, t[n].count = g->tile * L->co;
        n++;
        if (l == 2 && g->dslice) /* backward: tp2, then tp1 */
            for (int k = 3; k >= 2; k--, n++) {
                snprintf(t[n].name, sizeof t[n].name, "tp%d.w", k - 1);
                t[n].layer = k, t[n].off = k == 3 ? g->off_tp2 : g->off_tp1;
                t[n].count = g->tp_params_rank / 2;
            }
    }
    *out = t;
    return n;
}

void mp_describe(const void *model, FILE *f, int64_t executed, int batch)
{
    const mp_geom *g = &MM(model)->g;
    fprintf(f, "locally connected autoencoder: %d x %d positions, %d channel(s), kernel %d\n",
            g->cfg.size, g->cfg.size, g->cfg.channels, g->cfg.kernel);
    fprintf(f, "  %-5s %6s %6s %8s %20s\n", "layer", "c_in", "c_out", "field", "parameters");
    for (int l = 0; l < MP_LAYERS; l++)
        fprintf(f, "  %-5s %6d %6d %8d %20lld\n", g->layer[l].name, g->layer[l].ci,
                g->layer[l].co, g->layer[l].in, (long long)g->layer[l].params_total);
    if (g->dslice)
        fprintf(f, "  %-5s %6d %6d %8s %20lld  (tensor-parallel pair: %d hidden units, %d a rank)\n",
                "tp1+2", g->cfg.hidden2, g->cfg.hidden2, "-", 2LL * g->cfg.dense * g->cfg.hidden2,
                g->cfg.dense, g->dslice);
    int64_t halo_rank, halo = mp_geom_halo_bytes(g, batch, &halo_rank);
    int64_t mem = mp_geom_rank_bytes(g, batch);
    /* the lines exadl check reads (reference/modelpar-exact.yaml) carry the
     * metric catalog's names: forward_conv_flops_per_sample and
     * convention_flops_per_sample as the network block, mp_* as the
     * model_parallel block */
    int64_t fwd = 0;
    for (int l = 0; l < MP_LAYERS; l++)
        fwd += 2 * g->positions * g->layer[l].in * (int64_t)g->layer[l].co;
    fprintf(f, "parameters: %lld\n", (long long)g->params_total);
    fprintf(f, "train_flops_per_sample: %lld\n", (long long)mp_geom_flops(g, 1, 1));
    fprintf(f, "forward_conv_flops_per_sample: %lld (the locally connected layers' GEMMs)\n",
            (long long)fwd);
    fprintf(f, "convention_flops_per_sample: %lld (3 x forward)\n", (long long)(3 * fwd));
    fprintf(f, "ranks: %d = %d model group(s) x %d model ranks (grid %dx%d, tiles %dx%d)\n",
            g->ranks, g->groups, g->M, g->gy, g->gx, g->th, g->tw);
    fprintf(f, "mp_parameters_per_rank: %lld\n", (long long)g->params_rank);
    fprintf(f, "train_flops_per_step_rank0: %lld (batch %d, formula, no optimizer)\n",
            (long long)mp_geom_flops(g, batch, 0), batch);
    fprintf(f, "executed_flops_per_step_rank0: %lld (dry step, optimizer included)\n",
            (long long)executed);
    fprintf(f, "mp_halo_bytes_per_step: %lld (model group 0)\n", (long long)halo);
    fprintf(f, "mp_tp_bytes_per_step: %lld (rank 0)\n", (long long)mp_geom_tp_bytes(g, batch));
    fprintf(f, "halo_bytes_per_step_rank0: %lld\n", (long long)halo_rank);
    fprintf(f, "mp_memory_formula_bytes: %lld (rank 0: buffers %lld, optimizer state and the "
               "runtime's copy of the shard)\n",
            (long long)mem, (long long)mp_geom_bytes(g, batch));
}

static void write_record(const void *model, rec_t *w)
{
    const mp_geom *g = &MM(model)->g;
    rec_key(w, "network");
    rec_flow_map_begin(w);
    rec_kv_int(w, "layers", MP_LAYERS);
    rec_kv_int(w, "parameters", g->params_total);
    rec_kv_int(w, "train_flops_per_sample", mp_geom_flops(g, 1, 1));
    rec_map_end(w);
    mp_stats_write(model, w);
}

static void batch_floats(const void *model, int batch, size_t *input, size_t *target)
{
    const mp_geom *g = &MM(model)->g;
    *input = (size_t)batch * (size_t)g->positions * (size_t)g->cfg.channels;
    *target = 1; /* the autoencoder's target is its input */
}

static void generate(const void *model, uint64_t seed, int64_t step, int64_t first, int batch,
                     float *input, float *target)
{
    const mp_geom *g = &MM(model)->g;
    size_t per = (size_t)g->positions * (size_t)g->cfg.channels;
    for (int i = 0; i < batch; i++) {
        rng_t r = rng_stream(seed, 0xA070E, (uint64_t)step, (uint64_t)(first + i));
        for (size_t j = 0; j < per; j++) input[i * per + j] = (float)(rng_uniform(&r) - 0.5);
    }
    target[0] = 0;
}

const network_t modelpar_network = {
    .name = "locally connected autoencoder",
    .oom_hint = "try a smaller preset or --batch, or more --model-ranks",
    /* the model */
    .facts = facts, .slices = slices, .tensors = tensors, .describe = mp_describe,
    .write_record = write_record, .batch_floats = batch_floats, .generate = generate,
    /* an instance (mp_net.c) */
    .create = mp_net_create, .release = mp_net_free, .bytes = mp_net_bytes,
    .bytes_needed = mp_net_bytes_needed, .init_params = mp_net_init_params,
    .get_params = mp_net_get_params, .set_params = mp_net_set_params, .params = mp_net_params,
    .load = mp_net_load, .forward = mp_net_forward, .backward = mp_net_backward,
};
