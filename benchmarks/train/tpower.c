#include "benchmarks/train/tpower.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

void tpower_check_env(void)
{
    power_cfg_t c;
    char err[256];
    if (power_cfg_env(&c, err, sizeof err)) check_usage("%s", err);
}

void tpower_help(FILE *f)
{
    fprintf(f,
            "\n"
            "Energy of the timed steps (docs/energy.md), read by local rank 0 of each node\n"
            "into the record's energy block; a source that is absent or fails is n/a, never 0:\n"
            "  EXADL_POWERCAP_ROOT         the powercap tree of RAPL (default /sys/class/powercap)\n"
            "  EXADL_NVML_LIB              the NVML library (default libnvidia-ml.so.1)\n"
            "  EXADL_POWER_METER           the node's meter: file:PATH or command:PROGRAM ARGS,\n"
            "                              whose first line is 'NUMBER J|kJ' or 'NUMBER W|kW'\n"
            "  EXADL_POWER_METER_ACCURACY  the meter's relative accuracy (0.01: +-1%%)\n"
            "  EXADL_POWER_INTERVAL_S      sampling interval (default 0.1; 0: the window's ends only)\n"
            "  a bad value is a usage error (exit 2)\n");
}

void tpower_open(tpower_t *p, const comm_t *world)
{
    memset(p, 0, sizeof *p);
    power_cfg_t c;
    char err[256];
    if (power_cfg_env(&c, err, sizeof err)) check_usage("%s", err);
    p->interval_s = c.interval_s;
    p->lead = world->local_rank == 0;
#if EXADL_SMPI
    /* simulated ranks share one real host: no node of theirs to measure */
    p->on = 0;
#else
    p->on = p->lead;
#endif
    if (p->on) power_open(&p->s, &c);
}

void tpower_begin(tpower_t *p)
{
    if (p->on && !p->begun) power_start(&p->s);
    p->begun = 1;
}

void tpower_end(tpower_t *p)
{
    if (p->on && p->begun && !p->ended) power_stop(&p->s);
    p->ended = p->begun;
}

/* this node's window as the bytes the gather sends */
static void fill(const tpower_t *p, tpower_node_t *n)
{
    memset(n, 0, sizeof *n);
    snprintf(n->host, sizeof n->host, "%s", check_host());
    if (!p->on || !p->ended) {
        snprintf(n->basis, sizeof n->basis, "n/a");
        snprintf(n->why, sizeof n->why, "%s",
                 !p->on ? "simulated ranks (SimGrid): no node to measure"
                        : "the timed steps did not run to their end");
        n->energy_j = n->window_s = n->peak_w = NAN;
        return;
    }
    const power_sess_t *s = &p->s;
    const char *basis;
    n->energy_j = power_node(s, &basis, n->why, sizeof n->why);
    snprintf(n->basis, sizeof n->basis, "%s", basis);
    n->window_s = s->t1 - s->t0;
    n->nsrc = s->nsrc;
    n->nabsent = s->nabsent;
    memcpy(n->src, s->src, sizeof n->src);
    memcpy(n->absent, s->absent, sizeof n->absent);
    /* the series decimated to TPOWER_POINTS: every k-th point */
    size_t k = (s->npts + TPOWER_POINTS - 1) / TPOWER_POINTS;
    n->peak_w = 0;
    for (size_t i = 0; i < s->npts; i++)
        if (s->pts[i].w > n->peak_w) n->peak_w = s->pts[i].w;
    /* no sample between the ends: the average; no energy: no peak either */
    if (!s->npts || !isfinite(n->energy_j)) n->peak_w = n->energy_j / n->window_s;
    for (size_t i = 0; k && i < s->npts && n->npts < TPOWER_POINTS; i += k) {
        n->t_s[n->npts] = (float)s->pts[i].t_s;
        n->w[n->npts++] = (float)s->pts[i].w;
    }
    n->truncated = s->truncated;
}

void tpower_gather(tpower_t *p, const comm_t *world)
{
    MPI_Comm leaders;
    CHECK_MPI(MPI_Comm_split(world->world, p->lead ? 0 : MPI_UNDEFINED, world->rank, &leaders));
    if (!p->lead) return;
    int size, rank;
    CHECK_MPI(MPI_Comm_size(leaders, &size));
    CHECK_MPI(MPI_Comm_rank(leaders, &rank));
    tpower_node_t *mine = XMALLOC(sizeof *mine, "energy of this node");
    fill(p, mine);
    if (rank == 0) {
        p->nnodes = size;
        p->nodes = XMALLOC((size_t)size * sizeof *p->nodes, "energy of every node");
    }
    CHECK_MPI(MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, p->nodes, (int)sizeof *mine, MPI_BYTE,
                         0, leaders));
    free(mine);
    CHECK_MPI(MPI_Comm_free(&leaders));
}

static void write_source(rec_t *w, int node, const power_src_t *s)
{
    rec_flow_map_begin(w);
    rec_kv_int(w, "node", node);
    rec_kv_str(w, "name", s->name);
    rec_kv_str(w, "source", s->source);
    rec_kv_str(w, "domain", s->domain);
    rec_kv_str(w, "reads", s->counter ? "energy counter" : "power, sampled");
    rec_kv_str(w, "status", s->ok ? "ok" : "n/a");
    rec_kv_double(w, "energy_j", s->ok ? s->energy_j : NAN);
    rec_kv_double(w, "peak_power_w", s->ok ? s->peak_w : NAN);
    rec_kv_double(w, "accuracy", s->accuracy);
    rec_kv_str(w, "accuracy_note", power_note(s));
    if (!s->ok) rec_kv_str(w, "reason", s->reason);
    rec_map_end(w);
}

/* the nodes combined (docs/energy.md "How the nodes are combined") */
typedef struct {
    double total, window, peak;
    const char *basis, *why;
} combined_t;

static void combine(const tpower_t *p, combined_t *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < p->nnodes; i++) {
        const tpower_node_t *n = &p->nodes[i];
        c->total += n->energy_j;
        c->peak += n->peak_w;
        if (n->window_s > c->window) c->window = n->window_s;
        if (!isfinite(n->energy_j) && !c->why) c->why = n->why;
        c->basis = !c->basis || !strcmp(c->basis, n->basis) ? n->basis : "mixed";
    }
    if (!isfinite(c->total) || !c->basis) c->basis = "n/a";
}

void tpower_print(const tpower_t *p, double samples, double exec_flops, FILE *f)
{
    combined_t c;
    combine(p, &c);
    if (!isfinite(c.total)) {
        fprintf(f, "  energy      n/a: %s\n", c.why ? c.why : "no node measured");
        return;
    }
    fprintf(f, "  energy      %.4g J over the timed steps (%s, %d node%s), %.4g J/sample, "
               "%.4g W average, %.4g FLOP/s per W\n",
            c.total, c.basis, p->nnodes, p->nnodes > 1 ? "s" : "", c.total / samples,
            c.total / c.window, exec_flops / c.total);
}

void tpower_write(const tpower_t *p, double samples, double exec_flops, double conv_flops,
                  rec_t *w)
{
    combined_t c;
    combine(p, &c);
    double total = c.total, window = c.window, peak = c.peak;
    const char *basis = c.basis, *why = c.why;
    rec_key(w, "energy");
    rec_map_begin(w);
    rec_kv_str(w, "window", "the timed steps: from the barrier before the first to the end of the "
                            "last (the data preparation between them included), each node's clock");
    rec_kv_str(w, "sampler", "a thread of local rank 0 on each node");
    rec_kv_double(w, "interval_s", p->interval_s);
    rec_kv_str(w, "combine", "energy: the sum over nodes, n/a when any node's is; a node's is its "
                             "site meter's where it has one, else the sum of its RAPL and NVML "
                             "counters; window: the longest node's; peak: the sum of the nodes' "
                             "peaks (an upper bound: they need not coincide)");
    rec_kv_int(w, "nodes", p->nnodes);
    rec_kv_str(w, "basis", basis);
    if (why) rec_kv_str(w, "reason", why);
    rec_kv_double(w, "energy_j", total);
    rec_kv_double(w, "window_s", window);
    rec_kv_double(w, "avg_power_w", window > 0 ? total / window : NAN);
    rec_kv_double(w, "peak_power_w", isfinite(total) ? peak : NAN);
    rec_kv_double(w, "samples", samples);
    rec_kv_double(w, "j_per_sample", total / samples);
    /* FLOP/s per W is FLOPs per J */
    rec_kv_double(w, "flops_per_w_executed", exec_flops / total);
    rec_kv_double(w, "flops_per_w_convention", conv_flops / total);
    rec_key(w, "node_list");
    rec_seq_begin(w);
    for (int i = 0; i < p->nnodes; i++) {
        const tpower_node_t *n = &p->nodes[i];
        rec_flow_map_begin(w);
        rec_kv_int(w, "node", i);
        rec_kv_str(w, "host", n->host);
        rec_kv_str(w, "basis", n->basis);
        rec_kv_double(w, "energy_j", n->energy_j);
        rec_kv_double(w, "window_s", n->window_s);
        rec_kv_double(w, "avg_power_w", n->energy_j / n->window_s);
        rec_kv_double(w, "peak_power_w", n->peak_w);
        rec_kv_str(w, "how", n->why);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_key(w, "sources");
    rec_seq_begin(w);
    for (int i = 0; i < p->nnodes; i++)
        for (int k = 0; k < p->nodes[i].nsrc; k++) write_source(w, i, &p->nodes[i].src[k]);
    rec_seq_end(w);
    rec_key(w, "absent");
    rec_seq_begin(w);
    for (int i = 0; i < p->nnodes; i++)
        for (int k = 0; k < p->nodes[i].nabsent; k++) {
            rec_flow_map_begin(w);
            rec_kv_int(w, "node", i);
            rec_kv_str(w, "source", p->nodes[i].absent[k].source);
            rec_kv_str(w, "reason", p->nodes[i].absent[k].reason);
            rec_map_end(w);
        }
    rec_seq_end(w);
    /* each node's power between two samples, for the report's plot */
    rec_key(w, "series");
    rec_seq_begin(w);
    for (int i = 0; i < p->nnodes; i++) {
        const tpower_node_t *n = &p->nodes[i];
        double t[TPOWER_POINTS], v[TPOWER_POINTS];
        for (int k = 0; k < n->npts; k++) t[k] = n->t_s[k], v[k] = n->w[k];
        rec_map_begin(w);
        rec_kv_int(w, "node", i);
        rec_kv_bool(w, "truncated", n->truncated);
        rec_kv_doubles(w, "t_s", t, (size_t)n->npts);
        rec_kv_doubles(w, "power_w", v, (size_t)n->npts);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
}

void tpower_free(tpower_t *p)
{
    if (p->on) power_close(&p->s);
    free(p->nodes);
    p->nodes = NULL;
    p->on = 0;
}
