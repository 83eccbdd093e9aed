/* Records: the STEMDL kind (docs/record.md "STEMDL"): timing, FLOPs, the
 * network, memory and the counted-kernel table; its gradient_reduction block
 * is read by read_stemdl_gr.c. */
#define _GNU_SOURCE
#include <math.h>

#include "harness/records/kinds.h"

static int read_kernels(const rd_t *c, const ytnode *root, record_t *r)
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

int record_read_stemdl(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *t, *f, *nw, *mem;
    if (rd_map(c, root, "timing", &t) || rd_map(c, root, "flops", &f) ||
        rd_map(c, root, "network", &nw) || rd_map(c, root, "memory", &mem))
        return -1;
    /* raw samples: the analysis takes their median, so each must be finite */
    if (rd_nums(c, t, "step_s", RD_FINITE, &r->step_s, &r->nstep) ||
        rd_nums(c, t, "warmup_s", RD_FINITE, &r->warmup_s, &r->nwarmup) ||
        rd_num(c, t, "samples_per_step", RD_ANY, &r->samples_per_step) ||
        read_rank_table(c, t, "rank_compute_s", &r->rank_compute_s, &r->rank_steps, &r->rank_cols))
        return -1;
    if (rd_num(c, f, "executed_per_step", RD_ANY, &r->exec_per_step) ||
        rd_num(c, f, "executed_per_sample", RD_ANY, &r->exec_per_sample) ||
        rd_num(c, f, "convention_per_sample", RD_ANY, &r->conv_per_sample) ||
        rd_num(c, f, "convention_per_step", RD_ANY, &r->conv_per_step) ||
        rd_num(c, f, "forward_conv_per_sample", RD_ANY, &r->fwd_conv_per_sample))
        return -1;
    if (rd_num(c, nw, "conv_weights", RD_ANY, &r->conv_weights) ||
        rd_num(c, nw, "parameters", RD_ANY, &r->parameters) ||
        rd_num(c, mem, "rank0_bytes", RD_ANY, &r->memory_bytes) ||
        rd_num(c, root, "kernels_steps", RD_ANY, &r->kernels_steps) ||
        rd_num(c, root, "device_peak_flops", RD_ANY, &r->device_peak_flops) ||
        rd_num(c, root, "threads_per_rank", RD_ANY, &r->threads_per_rank))
        return -1;
    if (read_kernels(c, root, r) || record_read_gr(c, root, r) || record_read_ux(c, root, r) ||
        record_read_ens(c, root, r))
        return -1;
    /* derived where the record leaves them out */
    if (isnan(r->conv_per_sample) && !isnan(r->fwd_conv_per_sample))
        r->conv_per_sample = 3 * r->fwd_conv_per_sample;
    if (isnan(r->conv_per_step) && !isnan(r->conv_per_sample) && r->samples_per_step > 0)
        r->conv_per_step = r->conv_per_sample * r->samples_per_step;
    if (isnan(r->exec_per_sample) && !isnan(r->exec_per_step) && r->samples_per_step > 0)
        r->exec_per_sample = r->exec_per_step / r->samples_per_step;
    return 0;
}
