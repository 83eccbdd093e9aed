/* Block energy (blk_energy.h): the `energy` block of the training records
 * (docs/record.md "energy"), written by benchmarks/train/tpower.c. */
#define _GNU_SOURCE
#include "harness/blocks/energy/blk_energy.h"

#include <stdio.h>
#include <string.h>

static int read_nodes(const rd_t *c, const ytnode *m, eninfo_t *e)
{
    const ytnode *l;
    if (rd_list(c, m, "node_list", &l)) return -1;
    if (!l) return 0;
    e->n = rd_alloc(c, (l->n + 1) * sizeof *e->n);
    for (size_t i = 0; i < l->n; i++) {
        const ytnode *x = l->items[i];
        if (x->kind != YT_MAP) return rd_err(c, x, "energy.node_list: each must be a mapping");
        ennode_t *n = &e->n[e->nn++];
        if (rd_int_req(c, x, "node", &n->node) || rd_str(c, x, "host", "", &n->host) ||
            rd_str(c, x, "basis", "n/a", &n->basis) || rd_str(c, x, "how", "", &n->how) ||
            rd_num(c, x, "energy_j", RD_ANY, &n->energy_j) ||
            rd_num(c, x, "window_s", RD_ANY, &n->window_s) ||
            rd_num(c, x, "avg_power_w", RD_ANY, &n->avg_w) ||
            rd_num(c, x, "peak_power_w", RD_ANY, &n->peak_w))
            return -1;
    }
    return 0;
}

static int read_sources(const rd_t *c, const ytnode *m, eninfo_t *e)
{
    const ytnode *l;
    if (rd_list(c, m, "sources", &l)) return -1;
    if (!l) return 0;
    e->s = rd_alloc(c, (l->n + 1) * sizeof *e->s);
    for (size_t i = 0; i < l->n; i++) {
        const ytnode *x = l->items[i];
        if (x->kind != YT_MAP) return rd_err(c, x, "energy.sources: each must be a mapping");
        ensrc_t *s = &e->s[e->ns++];
        if (rd_int_req(c, x, "node", &s->node) || rd_str_req(c, x, "name", &s->name) ||
            rd_str(c, x, "source", "", &s->source) || rd_str(c, x, "domain", "", &s->domain) ||
            rd_str(c, x, "reads", "", &s->reads) || rd_str_req(c, x, "status", &s->status) ||
            rd_str(c, x, "reason", "", &s->reason) ||
            rd_str(c, x, "accuracy_note", "", &s->accuracy_note) ||
            rd_num(c, x, "energy_j", RD_ANY, &s->energy_j) ||
            rd_num(c, x, "peak_power_w", RD_ANY, &s->peak_w) ||
            rd_num(c, x, "accuracy", RD_ANY, &s->accuracy))
            return -1;
    }
    return 0;
}

static int read_absent_series(const rd_t *c, const ytnode *m, eninfo_t *e)
{
    const ytnode *l;
    if (rd_list(c, m, "absent", &l)) return -1;
    if (l) {
        e->absent = rd_alloc(c, (l->n + 1) * sizeof *e->absent);
        for (size_t i = 0; i < l->n; i++) {
            const ytnode *x = l->items[i];
            long long node;
            const char *src, *why;
            if (x->kind != YT_MAP) return rd_err(c, x, "energy.absent: each must be a mapping");
            if (rd_int_req(c, x, "node", &node) || rd_str_req(c, x, "source", &src) ||
                rd_str_req(c, x, "reason", &why))
                return -1;
            size_t len = strlen(src) + strlen(why) + 32;
            char *t = rd_alloc(c, len);
            snprintf(t, len, "node %lld: %s: %s", node, src, why);
            e->absent[e->nabsent++] = t;
        }
    }
    if (rd_list(c, m, "series", &l)) return -1;
    for (size_t i = 0; l && i < l->n; i++) {
        const ytnode *x = l->items[i];
        long long node;
        double *t = NULL, *w = NULL;
        size_t nt = 0, nw = 0;
        if (x->kind != YT_MAP) return rd_err(c, x, "energy.series: each must be a mapping");
        if (rd_int_req(c, x, "node", &node) || rd_nums(c, x, "t_s", RD_FINITE, &t, &nt) ||
            rd_nums(c, x, "power_w", RD_ANY, &w, &nw))
            return -1;
        if (nt != nw) return rd_err(c, x, "energy.series: t_s and power_w differ in length");
        for (size_t k = 0; k < e->nn; k++)
            if (e->n[k].node == node) e->n[k].t_s = t, e->n[k].w = w, e->n[k].npts = nt;
    }
    return 0;
}

static int read_energy(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *m;
    if (rd_map(c, root, "energy", &m)) return -1;
    if (!m) return 0;
    eninfo_t *e = rd_alloc(c, sizeof *e);
    if (rd_str(c, m, "basis", "n/a", &e->basis) || rd_str(c, m, "reason", "", &e->reason) ||
        rd_str(c, m, "combine", "", &e->combine) || rd_str(c, m, "window", "", &e->window) ||
        rd_int_req(c, m, "nodes", &e->nodes) ||
        rd_num(c, m, "interval_s", RD_COUNT, &e->interval_s) ||
        rd_num(c, m, "energy_j", RD_ANY, &e->energy_j) ||
        rd_num(c, m, "window_s", RD_ANY, &e->window_s) ||
        rd_num(c, m, "avg_power_w", RD_ANY, &e->avg_w) ||
        rd_num(c, m, "peak_power_w", RD_ANY, &e->peak_w) ||
        rd_num(c, m, "samples", RD_COUNT, &e->samples) ||
        rd_num(c, m, "j_per_sample", RD_ANY, &e->j_per_sample) ||
        rd_num(c, m, "flops_per_w_executed", RD_ANY, &e->flops_per_w) ||
        rd_num(c, m, "flops_per_w_convention", RD_ANY, &e->conv_flops_per_w) ||
        read_nodes(c, m, e) || read_sources(c, m, e) || read_absent_series(c, m, e))
        return -1;
    if (e->energy_j < 0) return rd_err(c, m, "energy: energy_j is negative");
    r->blk[BLOCK_energy] = e;
    return 0;
}

static const metric_info_t catalog[] = {
    {"energy_j_per_sample", "J", -1, 1,
     "energy of the timed steps per sample, all nodes (median over launches, 95% CI)"},
    {"energy_flops_per_w", "FLOP/s/W", 1, 1,
     "executed FLOPs of the timed steps per joule (FLOP/s per W), all nodes"},
    {"energy_conv_flops_per_w", "FLOP/s/W", 1, 1,
     "convention FLOPs (3 x forward conv) of the timed steps per joule, all nodes"},
    {"energy_avg_power_w", "W", -1, 1, "average power of all nodes over the timed steps"},
    {"energy_peak_power_w", "W", -1, 1,
     "the sum of the nodes' highest power between two samples (an upper bound)"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_energy = {.name = "energy", .key = "energy", .read = read_energy,
                              .catalog = catalog, .derive = energy_derive, .rows = energy_rows,
                              .rows_at = BLOCK_ROWS_RUN, .section = "energy"};
