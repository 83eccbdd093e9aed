#include "benchmarks/cosmoflow/un_rec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/record/header.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/train/kernels/kern.h"

/* the 3^3 convolutions: the layers that exchange halos */
static int halo_layer(const un_layer *ly) { return ly->kind == UN_CBR && ly->k == 3; }

int64_t un_rec_halo(const un_plan *p, int S, int rank, int64_t *messages)
{
    int nb = (S > 1) * ((rank > 0) + (rank < S - 1));
    int64_t bytes = 0, msgs = 0;
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        if (!halo_layer(ly)) continue;
        int64_t plane = (int64_t)(ly->ext + 2) * (ly->ext + 2);
        int out = l > 0; /* the first layer's input gradient is not computed */
        bytes += nb * plane * (2 * ly->ci + out * ly->co) * (int64_t)sizeof(float);
        msgs += nb * (2 + out);
    }
    if (messages) *messages = msgs * p->cfg.batch;
    return bytes * p->cfg.batch;
}

static void write_config(rec_t *w, const void *arg)
{
    const un_plan *p = arg;
    const un_cfg *c = &p->cfg;
    rec_key(w, "config");
    rec_map_begin(w);
    rec_kv_str(w, "network", "unet3d");
    rec_kv_str(w, "preset", c->preset[0] ? c->preset : NULL);
    rec_kv_int(w, "size", c->size);
    rec_kv_int(w, "channels", c->channels);
    rec_kv_int(w, "classes", c->classes);
    rec_kv_int(w, "filters", c->filters);
    rec_kv_int(w, "batch", c->batch);
    rec_kv_int(w, "steps", c->steps);
    rec_kv_int(w, "seed", (int64_t)c->seed);
    rec_kv_double(w, "lr", c->lr);
    rec_kv_str(w, "optimizer", "sgd (momentum 0.9)");
    rec_kv_str(w, "spatial", c->spatial);
    rec_map_end(w);
}

static void write_network(rec_t *w, const un_plan *p)
{
    rec_key(w, "network");
    rec_flow_map_begin(w);
    rec_kv_int(w, "layers", p->nlayers);
    rec_kv_int(w, "conv_weights", p->conv_weights);
    rec_kv_int(w, "bn_parameters", p->bn_params);
    rec_kv_int(w, "parameters", p->params);
    rec_map_end(w);
}

/* batch norm's sums and the loss's, over the spatial ranks: 3 MPI_Allreduce
 * per conv + BN + ReLU layer (forward: C + 1 and C doubles; backward
 * 2C + 1) and 2 of one double for the loss */
static void sync_counts(const un_plan *p, int64_t *n, int64_t *bytes)
{
    *n = 2, *bytes = 2 * 8;
    for (int l = 0; l < p->nlayers; l++)
        if (p->layers[l].kind == UN_CBR) *n += 3, *bytes += (4 * (int64_t)p->layers[l].co + 2) * 8;
}

static void write_spatial(rec_t *w, const un_plan *p, int S)
{
    int64_t msgs, bytes = un_rec_halo(p, S, 0, &msgs), ns, nsb;
    int units = p->cfg.size >> UN_LEVELS;
    sync_counts(p, &ns, &nsb);
    rec_key(w, "spatial");
    rec_map_begin(w);
    rec_kv_str(w, "network", "unet3d");
    rec_key(w, "split");
    rec_flow_seq_begin(w);
    rec_int(w, S), rec_int(w, 1), rec_int(w, 1);
    rec_seq_end(w);
    rec_kv_int(w, "ranks_per_sample", S);
    rec_kv_int(w, "groups", 1);
    rec_kv_int(w, "size", p->cfg.size);
    rec_kv_int(w, "units", units);
    rec_kv_int(w, "halo", 1);
    rec_kv_int(w, "kernel", 3);
    rec_kv_bool(w, "overlap", 0);
    rec_kv_str(w, "head", "none: every layer is split along D (the skip tensors too, so the "
                          "concatenations are local); batch norm's and the loss's sums over the "
                          "ranks");
    rec_kv_str(w, "rank0_note", "halo bytes: fp32 padded planes ((e+2)^2 x channels) rank 0 "
                                "sends per sample of its batch, counted from the layer list");
    rec_key(w, "rank0_units");
    rec_flow_seq_begin(w);
    rec_int(w, units / S), rec_int(w, units), rec_int(w, units);
    rec_seq_end(w);
    rec_kv_int(w, "halo_bytes_per_sample", bytes / p->cfg.batch);
    rec_kv_int(w, "halo_messages_per_step", msgs);
    rec_kv_int(w, "gather_bytes_per_sample", 0);
    /* when split (S > 1; alone they are no messages) */
    rec_kv_int(w, "sync_allreduces_per_step", ns);
    rec_kv_int(w, "sync_bytes_per_step", nsb);
    rec_key(w, "layers");
    rec_seq_begin(w);
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        if (!halo_layer(ly)) continue;
        rec_flow_map_begin(w);
        rec_kv_str(w, "layer", ly->name);
        rec_kv_int(w, "extent", ly->ext);
        rec_kv_int(w, "kernel", ly->k);
        rec_kv_int(w, "c_in", ly->ci);
        rec_kv_int(w, "c_out", ly->co);
        rec_kv_int(w, "fwd_flops", ly->fwd_flops);
        rec_kv_int(w, "halo_in", 2);
        rec_kv_int(w, "halo_out", l > 0);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
}

/* docs/record.md "gradient_reduction": one MPI_Allreduce of every
 * gradient after backward (no engine: nothing overlaps, all exposed) */
static void write_reduction(rec_t *w, const un_plan *p, const un_result *r)
{
    rec_key(w, "gradient_reduction");
    rec_map_begin(w);
    rec_kv_str(w, "transport", r->nranks > 1 ? "mpi" : "none");
    /* no engine option here: the U-Net's reduction is inline by construction */
    rec_kv_str(w, "engine", r->nranks > 1 ? "inline" : "none");
    rec_kv_str(w, "engine_reason", r->nranks > 1 ? "the 3D U-Net reduces after backward, on its own thread"
                                                 : "one rank: nothing is reduced");
    rec_kv_str(w, "orchestration", "none (one MPI_Allreduce after backward)");
    rec_kv_int(w, "cache_capacity", 0);
    rec_kv_str(w, "grouping", "none");
    rec_kv_int(w, "groups", 1);
    rec_kv_int(w, "fusion_bytes", p->params * (int64_t)sizeof(float));
    rec_kv_double(w, "cycle_ms", 0);
    rec_kv_str(w, "clock", "seconds, rank 0");
    rec_key(w, "tensors");
    rec_seq_begin(w);
    for (int l = 0; l < p->nlayers; l++) {
        const un_layer *ly = &p->layers[l];
        rec_flow_map_begin(w);
        rec_kv_str(w, "name", ly->name);
        rec_kv_int(w, "bytes", (ly->nw + ly->nbn) * (int64_t)sizeof(float));
        rec_kv_int(w, "group", 0);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_key(w, "group_list");
    rec_seq_begin(w);
    rec_flow_map_begin(w);
    rec_kv_int(w, "group", 0);
    rec_kv_str(w, "label", "all");
    rec_kv_int(w, "bytes", p->params * (int64_t)sizeof(float));
    rec_kv_int(w, "reductions", r->nranks > 1 ? r->steps : 0);
    rec_map_end(w);
    rec_seq_end(w);
    size_t n = (size_t)r->steps;
    double *zero = XCALLOC(n ? n : 1, sizeof(double), "zeros");
    rec_key(w, "steps");
    rec_map_begin(w);
    rec_kv_doubles(w, "exposed_s", r->allreduce_s, n);
    rec_kv_doubles(w, "negotiation_s", zero, n);
    rec_kv_doubles(w, "reduce_s", r->allreduce_s, n);
    rec_kv_doubles(w, "backward_end_s", zero, n);
    int64_t *cyc = XCALLOC(n ? n : 1, sizeof(int64_t), "cycles");
    rec_kv_ints(w, "cycles", cyc, n);
    free(cyc);
    rec_map_end(w);
    free(zero);
    rec_map_end(w);
}

static void write_kernels(rec_t *w, const ktab_t *t, const un_rec_meta *m)
{
    rec_key(w, "kernels");
    rec_seq_begin(w);
    for (int i = 0; t && i < t->n; i++) {
        const ktab_row *k = &t->rows[i];
        rec_flow_map_begin(w);
        rec_kv_str(w, "kernel", k->kernel);
        rec_kv_str(w, "layer", k->layer);
        rec_kv_int(w, "calls", k->calls);
        rec_kv_int(w, "flops", k->flops);
        rec_kv_double(w, "time_s", k->time_s);
        /* the host loops of the step (batch norm, loss, SGD) are fp32 */
        rec_kv_str(w, "dtype", m->fast_ctx ? kern_fast_kernel_dtype(m->fast_ctx, k->kernel) : "fp32");
        rec_map_end(w);
    }
    rec_seq_end(w);
}

static void write_results(rec_t *w, const un_plan *p, const un_result *r, const ktab_t *t,
                          const un_rec_meta *m)
{
    size_t n = (size_t)r->steps;
    double spp = p->cfg.batch;  /* samples per step: the ranks share their samples */
    rec_key(w, "timing");
    rec_map_begin(w);
    rec_kv_str(w, "combine", "max over ranks");
    rec_kv_str(w, "sync", "barrier before each step");
    rec_kv_doubles(w, "warmup_s", r->warm_s, (size_t)r->warmup);
    rec_kv_doubles(w, "step_s", r->step_s, n);
    rec_kv_doubles(w, "allreduce_s", r->allreduce_s, n);
    rec_kv_double(w, "samples_per_step", spp);
    rec_kv_str(w, "per_rank", "one list per timed step, one value per rank: rank_step_s its own "
                              "step (barrier to its end)");
    rec_key(w, "rank_step_s");
    rec_seq_begin(w);
    for (size_t i = 0; i < n; i++) {
        rec_flow_seq_begin(w);
        for (int k = 0; k < r->nranks; k++) rec_double(w, r->rank_step_s[i * r->nranks + k]);
        rec_seq_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);

    stats_summary_t st;
    stats_summarize(r->step_s, n, &st);
    double sum = 0, min = r->step_s[0];
    for (size_t i = 0; i < n; i++) sum += r->step_s[i], min = r->step_s[i] < min ? r->step_s[i] : min;
    rec_key(w, "summary");
    rec_map_begin(w);
    rec_kv_double(w, "median_s", st.median);
    rec_kv_double(w, "ci_lo_s", st.ci_lo);
    rec_kv_double(w, "ci_hi_s", st.ci_hi);
    rec_kv_bool(w, "ci_exact", st.ci_exact);
    rec_kv_double(w, "min_s", st.min);
    rec_kv_double(w, "max_s", st.max);
    rec_kv_double(w, "samples_per_s", spp / st.median);
    rec_map_end(w);

    rec_key(w, "flops");
    rec_map_begin(w);
    rec_kv_int(w, "executed_per_step", r->flops_step);
    rec_kv_int(w, "executed_per_rank_step", r->flops_rank_step);
    rec_kv_int(w, "executed_per_sample", (int64_t)(r->flops_step / spp));
    rec_kv_int(w, "convention_per_sample", 3 * p->fwd_conv_flops);
    rec_kv_int(w, "convention_per_step", (int64_t)(3 * p->fwd_conv_flops * spp));
    rec_kv_int(w, "forward_conv_per_sample", p->fwd_conv_flops);
    rec_kv_double(w, "sustained_flops", (double)r->flops_step * (double)n / sum);
    rec_kv_double(w, "peak_flops", (double)r->flops_step / min);
    rec_map_end(w);

    write_reduction(w, p, r);
    rec_kv_int(w, "kernels_steps", r->steps);
    write_kernels(w, t, m);
    rec_key(w, "loss");
    rec_map_begin(w);
    rec_kv_doubles(w, "warmup", r->warm_loss, (size_t)r->warmup);
    rec_kv_doubles(w, "steps", r->loss, n);
    rec_map_end(w);
    rec_key(w, "memory");
    rec_map_begin(w);
    rec_kv_int(w, "rank0_bytes", m->bytes);
    rec_map_end(w);
}

int un_rec_write(const char *path, const un_plan *p, const un_result *r, const ktab_t *table,
                 const un_rec_meta *m, char *err, size_t errlen)
{
    int S = m->ranks;
    int64_t counted = un_rec_halo(p, S, 0, NULL);
    int halo_ok = !table || r->halo_bytes_step == counted;
    char detail[256];
    snprintf(detail, sizeof detail, "rank 0 sent %lld halo bytes in the last step, %lld counted "
             "from the layer list", (long long)r->halo_bytes_step, (long long)counted);
    int ran = !m->error && r && r->steps > 0 && r->failed_step < 0;
    rec_header_t h = {
        .benchmark = "cosmoflow",
        .status = !ran ? "failed" : halo_ok ? "ok" : "invalid",
        .error = !ran ? (m->error ? m->error : "a loss was not finite") : halo_ok ? NULL : detail,
        .started_utc = m->started_utc, .argc = m->argc, .argv = m->argv, .system = m->system,
        .config = write_config, .config_arg = p, .ranks = S, .gpus = 0, .backend = "cpu",
        .precision = "fp32",
    };
    rec_t *w = rec_header_open(path, &h, err, errlen);
    if (!w) return -1;
    rec_kv_str(w, "kernels_impl", m->kernels);
    rec_kv_int(w, "threads_per_rank", m->threads);
    if (m->fast_ctx) rec_kv_str(w, "cpu_isa", kern_fast_cpu_isa());
    write_network(w, p);
    write_spatial(w, p, S);
    if (ran) write_results(w, p, r, table, m);
    rec_key(w, "validation");
    rec_seq_begin(w);
    if (ran) {
        rec_validation(w, "loss_finite", "pass", 1, "every step's loss is finite");
        rec_validation(w, "halo_bytes_counted", !table ? "skipped" : halo_ok ? "pass" : "fail", 1,
                       table ? detail : "the host loops do not count their halo bytes");
    }
    rec_seq_end(w);
    return rec_header_close(w, err, errlen);
}
