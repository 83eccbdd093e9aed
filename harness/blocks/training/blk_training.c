/* Block training (blk_training.h): a training record's timing, its device
 * peak and threads, and the counted-kernel table (docs/record.md "STEMDL");
 * the rows of its scale's step time, throughput, FLOP rates and efficiency.
 * The derived numbers: harness/analysis/analysis_train.c. */
#define _GNU_SOURCE
#include "harness/blocks/training/blk_training.h"

#include <math.h>
#include <string.h>

static int read_kernels(const rd_t *c, const ytnode *root, trinfo_t *r)
{
    const ytnode *ks;
    if (rd_list(c, root, "kernels", &ks)) return -1;
    if (!ks) return 0;
    r->k = rd_alloc(c, (ks->n + 1) * sizeof *r->k);
    for (size_t i = 0; i < ks->n; i++) {
        const ytnode *row = ks->items[i];
        if (row->kind != YT_MAP) return rd_err(c, row, "kernels: each row must be a mapping");
        krow_t *k = &r->k[r->nk++];
        if (rd_str(c, row, "kernel", "unnamed", &k->kernel) ||
            rd_str(c, row, "layer", NULL, &k->layer) || rd_num(c, row, "calls", RD_ANY, &k->calls) ||
            rd_num(c, row, "flops", RD_ANY, &k->flops) ||
            rd_num(c, row, "time_s", RD_ANY, &k->time_s))
            return -1;
    }
    return 0;
}

/* timing.rank_compute_s (or rank_step_s): one list per timed step, one number
 * per rank, every list as long as the first.  Absent: 0 rows. */
static int read_rank_table(const rd_t *c, const ytnode *t, const char *key, double **out,
                           size_t *steps, size_t *ranks)
{
    const ytnode *l;
    *out = NULL, *steps = *ranks = 0;
    if (!t || rd_list(c, t, key, &l)) return t ? -1 : 0;
    if (!l || l->n == 0) return 0;
    size_t nr = l->items[0]->kind == YT_SEQ ? l->items[0]->n : 0;
    if (nr == 0) return rd_err(c, l->items[0], "timing: %s: each step must be a list of per-rank times", key);
    *out = rd_alloc(c, (l->n * nr + 1) * sizeof **out);
    for (size_t i = 0; i < l->n; i++) {
        const ytnode *row = l->items[i];
        if (row->kind != YT_SEQ || row->n != nr)
            return rd_err(c, row, "timing: %s: step %zu must list %zu ranks, like the first", key, i, nr);
        for (size_t k = 0; k < nr; k++)
            if (rd_num_node(c, row->items[k], RD_FINITE, &(*out)[i * nr + k])) return -1;
    }
    *steps = l->n, *ranks = nr;
    return 0;
}

const trinfo_t training_none = {.samples_per_step = NAN, .device_peak_flops = NAN,
                                .threads_per_rank = NAN, .kernels_steps = NAN};

static int read_training(const rd_t *c, const ytnode *root, record_t *rec)
{
    const ytnode *t;
    if (rd_map(c, root, "timing", &t)) return -1;
    trinfo_t *r = rd_alloc(c, sizeof *r);
    *r = training_none;
    rec->blk[BLOCK_training] = r;
    /* raw samples: the analysis takes their median, so each must be finite */
    if (rd_nums(c, t, "step_s", RD_FINITE, &r->step_s, &r->nstep) ||
        rd_nums(c, t, "warmup_s", RD_FINITE, &r->warmup_s, &r->nwarmup) ||
        rd_num(c, t, "samples_per_step", RD_ANY, &r->samples_per_step) ||
        read_rank_table(c, t, "rank_compute_s", &r->rank_compute_s, &r->rank_steps, &r->rank_cols))
        return -1;
    if (rd_num(c, root, "kernels_steps", RD_ANY, &r->kernels_steps) ||
        rd_num(c, root, "device_peak_flops", RD_ANY, &r->device_peak_flops) ||
        rd_num(c, root, "threads_per_rank", RD_ANY, &r->threads_per_rank))
        return -1;
    const ytnode *loss;
    if (read_kernels(c, root, r) || rd_map(c, root, "loss", &loss) ||
        (loss && rd_nums(c, loss, "steps", RD_ANY, &r->loss, &r->nloss)))
        return -1;
    return 0;
}

double training_final_loss(const record_t *r)
{
    const trinfo_t *t = rec_training(r);
    return t->nloss ? t->loss[t->nloss - 1] : NAN;
}

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

int training_same_work(const record_t *a, const record_t *b, const char *const *also)
{
    static const char *const keys[] = {"preset", "image", "height", "width", "batch", NULL};
    for (const char *const *k = keys; *k; k++)
        if (!same(record_config(a, *k), record_config(b, *k))) return 0;
    for (const char *const *k = also; k && *k; k++)
        if (!same(record_config(a, *k), record_config(b, *k))) return 0;
    return 1;
}

static const metric_info_t catalog[] = {
    {"step_time_s", "s", -1, 1, "median time of a timed training step (max over ranks), "
                                "timed steps of all repetitions pooled"},
    {"throughput_samples_per_s", "samples/s", 1, 1, "samples per step / median step time"},
    {"throughput_per_device", "samples/s", 1, 1, "throughput / devices (GPUs, or ranks on CPU)"},
    {"efficiency", "", 1, 1, "weak: X(N) N0 / (N X(N0)); strong: T(N0) N0 / (N T(N)); "
                             "N0 the smallest scale run"},
    {"sustained_flops", "FLOP/s", 1, 1, "executed FLOPs of all timed steps / their total time"},
    {"peak_flops", "FLOP/s", 1, 1, "executed FLOPs of one step / the fastest step"},
    {"sustained_flops_per_device", "FLOP/s", 1, 1, "sustained_flops / devices"},
    {"peak_flops_per_device", "FLOP/s", 1, 1, "peak_flops / devices"},
    {"convention_sustained_flops", "FLOP/s", 1, 1, "as sustained_flops, counting 3 x the "
                                                   "forward conv FLOPs (published convention)"},
    {"convention_peak_flops", "FLOP/s", 1, 1, "as peak_flops, 3 x forward conv convention"},
    {"convention_sustained_flops_per_device", "FLOP/s", 1, 1, "per device"},
    {"convention_peak_flops_per_device", "FLOP/s", 1, 1, "per device"},
    {"fraction_of_peak", "", 1, 1, "sustained_flops_per_device / the device's measured or "
                                   "given peak"},
    {"launches_ok", "", 1, 1, "launches at this scale that ended ok"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_training = {
    .name = "training",
    .key = "timing, kernels, kernels_steps, device_peak_flops, threads_per_rank, loss",
    .read = read_training, .catalog = catalog, .section = "training",
    .no_derive = "its numbers are the analysis' grouping by entry and scale (sres_t, "
                 "harness/analysis/analysis_train.c), which every block's derive reads",
    .rows = training_rows, .rows_at = BLOCK_ROWS_ENTRY};
