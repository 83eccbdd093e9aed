/* Block spatial (blk_spatial.h): CosmoFlow's `spatial` block (docs/record.md
 * "cosmoflow"; the rest of its record is the training blocks'): the split,
 * the groups, the per-layer geometry and rank 0's halo traffic; the rows of
 * its dense layers that its describe answer gives. */
#define _GNU_SOURCE
#include "harness/blocks/spatial/blk_spatial.h"

#include <string.h>

static int triple(const rd_t *c, const ytnode *m, const char *key, long long out[3])
{
    const ytnode *l;
    if (rd_list(c, m, key, &l)) return -1;
    if (!l) return rd_err(c, m, "spatial: %s is required", key);
    if (l->n != 3) return rd_err(c, l, "spatial: %s must list 3 numbers (D, H, W)", key);
    for (int a = 0; a < 3; a++) {
        if (rd_int_node(c, l->items[a], &out[a])) return -1;
        if (out[a] < 1) return rd_err(c, l->items[a], "spatial: %s must be at least 1", key);
    }
    return 0;
}

static int layers(const rd_t *c, const ytnode *m, spinfo_t *s)
{
    const ytnode *ls;
    if (rd_list(c, m, "layers", &ls)) return -1;
    if (!ls) return 0;
    s->l = rd_alloc(c, (ls->n + 1) * sizeof *s->l);
    for (size_t i = 0; i < ls->n; i++) {
        const ytnode *x = ls->items[i];
        if (x->kind != YT_MAP) return rd_err(c, x, "spatial.layers: each must be a mapping");
        splayer_t *l = &s->l[s->nl++];
        if (rd_str_req(c, x, "layer", &l->name) || rd_num_req(c, x, "extent", RD_COUNT, &l->extent) ||
            rd_num_req(c, x, "c_in", RD_COUNT, &l->c_in) ||
            rd_num_req(c, x, "c_out", RD_COUNT, &l->c_out) ||
            rd_num(c, x, "fwd_flops", RD_COUNT, &l->fwd_flops) ||
            rd_int_in(c, x, "halo_in", -1, 0, 8, &l->halo_in) ||
            rd_int_in(c, x, "halo_out", -1, 0, 8, &l->halo_out))
            return -1;
        if ((l->halo_in < 0) != (l->halo_out < 0))
            return rd_err(c, x, "spatial.layers: halo_in and halo_out go together");
    }
    return 0;
}

static int read_spatial(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *m;
    if (rd_map(c, root, "spatial", &m)) return -1;
    if (!m) return 0;
    spinfo_t *s = rd_alloc(c, sizeof *s);
    if (triple(c, m, "split", s->split) || triple(c, m, "rank0_units", s->rank0_units) ||
        rd_int_req(c, m, "ranks_per_sample", &s->ranks_per_sample) ||
        rd_int_req(c, m, "groups", &s->groups) || rd_int_req(c, m, "size", &s->size) ||
        rd_int_req(c, m, "units", &s->units) || rd_int_req(c, m, "halo", &s->halo) ||
        rd_int(c, m, "kernel", 2 * s->halo + 1, &s->kernel) ||
        rd_bool(c, m, "overlap", 0, &s->overlap) ||
        rd_num(c, m, "halo_bytes_per_sample", RD_COUNT, &s->halo_bytes_per_sample) ||
        rd_num(c, m, "halo_messages_per_step", RD_COUNT, &s->halo_messages_per_step) ||
        rd_num(c, m, "gather_bytes_per_sample", RD_COUNT, &s->gather_bytes_per_sample) ||
        rd_str(c, m, "network", NULL, &s->network) ||
        rd_num(c, m, "sync_allreduces_per_step", RD_COUNT, &s->sync_allreduces_per_step) ||
        rd_num(c, m, "sync_bytes_per_step", RD_COUNT, &s->sync_bytes_per_step) ||
        layers(c, m, s))
        return -1;
    if (s->ranks_per_sample != s->split[0] * s->split[1] * s->split[2])
        return rd_err(c, m, "spatial: ranks_per_sample %lld is not the product of split", s->ranks_per_sample);
    if (s->ranks_per_sample < 1 || s->groups < 1 || s->units < 1 || s->halo < 0)
        return rd_err(c, m, "spatial: ranks_per_sample, groups and units must be at least 1");
    int unet = s->network && !strcmp(s->network, "unet3d");
    if (s->network && !unet)
        return rd_err(c, m, "spatial: network '%s': unknown (unet3d, or absent for CosmoFlow)", s->network);
    for (size_t i = 0; unet && i < s->nl; i++)
        if (s->l[i].halo_in < 0)
            return rd_err(c, m, "spatial: network unet3d: layer %s needs halo_in and halo_out", s->l[i].name);
    if (unet && (s->split[1] != 1 || s->split[2] != 1))
        return rd_err(c, m, "spatial: network unet3d splits D only (split [N, 1, 1])");
    r->blk[BLOCK_spatial] = s;
    return 0;
}

/* per configuration (its describe answer) */
static const metric_info_t catalog[] = {
    {"forward_dense_flops_per_sample", "FLOP", 0, 0,
     "forward FLOPs of the dense layers per sample"},
    {"dense_weights", "weights", 0, 0, "dense-layer weights (no biases)"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_spatial = {.name = "spatial", .key = "spatial",
                               .read = read_spatial, .catalog = catalog, .section = "spatial",
                               .derive = spatial_derive,
                               .no_rows = "its catalog rows are counts the program's "
                                          "--describe answers for the exact reference checks "
                                          "(workloads/registry.c), no run's numbers"};
