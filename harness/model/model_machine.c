/* Machine files for the scaling model (model_machine.h). */
#define _GNU_SOURCE
#include "harness/model/model_machine.h"

#include <math.h>
#include <string.h>

#include "benchmarks/common/record/read.h"
#include "benchmarks/common/ytree.h"

typedef struct {
    arena_t *a;
    const ytdoc *d;
    char *err;
    size_t errlen;
    const ytnode *sources; /* short name -> citation */
    rd_t rd;
} mctx_t;

#define MACHINE_MAX_RANKS 100000000

static const char *const top_keys[] = {"exadl_machine", "name", "description", "sources", "device",
                                       "nodes", "ranks_per_node", "device_peak_flops",
                                       "hierarchical", "allreduce", "intra_node", "inter_node",
                                       "negotiation", "straggler_cv", NULL};
static const char *const link_keys[] = {"latency_s", "bandwidth_Bps", "reduce_Bps", "rails",
                                        "topology", NULL};
static const char *const neg_keys[] = {"coordinator_base_s", "coordinator_per_rank_s",
                                       "coordinator_per_level_s", "coordinator_per_request_s",
                                       "bitvector_base_s",
                                       "bitvector_per_level_s", NULL};
static const char *const fig_keys[] = {"value", "source", "assumption", "fit", "unit", "note",
                                       NULL};

/* a figure: a number, or {value, source | assumption, fit, unit, note} */
static int figure(mctx_t *c, const ytnode *map, const char *key, const char *path, mfig_t *f,
                  double lo, int positive)
{
    memset(f, 0, sizeof *f);
    f->key = path;
    f->value = NAN;
    const ytnode *n = yt_get(map, key);
    if (!n || yt_is_null(n)) return 0;
    f->line = n->line;
    const ytnode *v = n;
    if (n->kind == YT_MAP) {
        if (yt_check_keys(c->d, n, fig_keys, c->err, c->errlen)) return -1;
        v = yt_get(n, "value");
        if (!v) return yt_err(c->err, c->errlen, c->d, n, "%s: a figure needs value:", path);
        if (rd_str(&c->rd, n, "source", NULL, &f->source)) return -1;
        const ytnode *cite = f->source ? yt_get(c->sources, f->source) : NULL;
        if (cite && cite->kind == YT_SCALAR)
            f->source = ar_printf(c->a, "%s (%s)", cite->str, f->source);
        if (rd_str(&c->rd, n, "assumption", NULL, &f->assumption) ||
            rd_bool(&c->rd, n, "fit", 0, &f->fit))
            return -1;
    }
    if (rd_num_node(&c->rd, v, RD_FINITE, &f->value)) return -1;
    if (!isfinite(f->value) || f->value < lo || (positive && f->value <= 0))
        return yt_err(c->err, c->errlen, c->d, v, "%s: %g is out of range (%s %g)", path, f->value,
                      positive ? "must be above" : "at least", lo);
    f->given = 1;
    return 0;
}

static int need(mctx_t *c, const ytnode *where, const mfig_t *f)
{
    if (f->given) return 0;
    return yt_err(c->err, c->errlen, c->d, where, "%s is required", f->key);
}

static int link_block(mctx_t *c, const ytnode *root, const char *key, mfig_t *lat, mfig_t *bw,
                      mfig_t *red, mfig_t *rails, const char **topology)
{
    const ytnode *n = yt_get(root, key);
    mfig_t dummy;
    if (!rails) rails = &dummy;
    const char *lp = ar_printf(c->a, "%s.latency_s", key),
               *bp = ar_printf(c->a, "%s.bandwidth_Bps", key);
    const char *rp = ar_printf(c->a, "%s.reduce_Bps", key), *ap = ar_printf(c->a, "%s.rails", key);
    if (!n || yt_is_null(n)) {
        memset(lat, 0, sizeof *lat), memset(bw, 0, sizeof *bw), memset(red, 0, sizeof *red);
        lat->key = lp, bw->key = bp, red->key = rp, rails->key = ap;
        lat->value = bw->value = red->value = rails->value = NAN;
        return 0;
    }
    if (yt_expect(c->d, n, YT_MAP, key, c->err, c->errlen) ||
        yt_check_keys(c->d, n, link_keys, c->err, c->errlen))
        return -1;
    if (figure(c, n, "latency_s", lp, lat, 0, 0) || figure(c, n, "bandwidth_Bps", bp, bw, 0, 1) ||
        figure(c, n, "reduce_Bps", rp, red, 0, 1) || figure(c, n, "rails", ap, rails, 1, 1))
        return -1;
    if (need(c, n, lat) || need(c, n, bw)) return -1;
    if (topology && rd_str(&c->rd, n, "topology", NULL, topology)) return -1;
    return 0;
}

int mfile_load(arena_t *a, const char *path, mfile_t *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->path = ar_strdup(a, path);
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    mctx_t c = {a, d, err, errlen, NULL, {d, err, errlen, NULL, NULL}};
    const ytnode *root = d->root, *n;
    if (!root) return yt_err(err, errlen, d, NULL, "the machine file is empty");
    if (yt_expect(d, root, YT_MAP, "a machine file", err, errlen) ||
        yt_check_keys(d, root, top_keys, err, errlen))
        return -1;
    long long ver = 0;
    if (!(n = yt_get(root, "exadl_machine")))
        return yt_err(err, errlen, d, root, "not a machine file (no exadl_machine: 1)");
    if (yt_int(d, n, &ver, err, errlen)) return -1;
    if (ver != MACHINE_FORMAT_VERSION)
        return yt_err(err, errlen, d, n, "machine file format %lld; this exadl reads %d", ver,
                      MACHINE_FORMAT_VERSION);
    if (rd_str(&c.rd, root, "name", path_basename(m->path), &m->name) ||
        rd_str(&c.rd, root, "description", NULL, &m->description) ||
        rd_str(&c.rd, root, "device", NULL, &m->device))
        return -1;
    if ((n = yt_get(root, "sources")) && !yt_is_null(n)) {
        if (yt_expect(d, n, YT_MAP, "sources", err, errlen)) return -1;
        c.sources = n;
    }
    if (figure(&c, root, "nodes", "nodes", &m->nodes, 1, 1) ||
        figure(&c, root, "ranks_per_node", "ranks_per_node", &m->ranks_per_node, 1, 1) ||
        figure(&c, root, "device_peak_flops", "device_peak_flops", &m->device_peak_flops, 0, 1))
        return -1;
    if (need(&c, root, &m->nodes) || need(&c, root, &m->ranks_per_node)) return -1;
    if (m->nodes.value != floor(m->nodes.value) ||
        m->ranks_per_node.value != floor(m->ranks_per_node.value))
        return yt_err(err, errlen, d, yt_get(root, "nodes"),
                      "nodes and ranks_per_node must be whole numbers");
    /* the machine's size becomes int rank counts (the model's scales) */
    if (m->nodes.value * m->ranks_per_node.value > MACHINE_MAX_RANKS)
        return yt_err(err, errlen, d, yt_get(root, "nodes"),
                      "nodes x ranks_per_node is %.6g ranks; at most %d",
                      m->nodes.value * m->ranks_per_node.value, MACHINE_MAX_RANKS);
    if (rd_bool(&c.rd, root, "hierarchical", 0, &m->hierarchical)) return -1;
    m->algo = AR_AUTO;
    const char *s;
    if (rd_str(&c.rd, root, "allreduce", NULL, &s)) return -1;
    if (s && ar_algo_parse(s, &m->algo))
        return yt_err(err, errlen, d, yt_get(root, "allreduce"),
                      "allreduce: '%s' is not auto, ring, tree or rd", s);
    if (!yt_get(root, "intra_node"))
        return yt_err(err, errlen, d, root, "intra_node: {latency_s, bandwidth_Bps} is required");
    if (link_block(&c, root, "intra_node", &m->intra_latency, &m->intra_bandwidth,
                   &m->intra_reduce, NULL, NULL) ||
        link_block(&c, root, "inter_node", &m->inter_latency, &m->inter_bandwidth,
                   &m->inter_reduce, &m->inter_rails, &m->topology))
        return -1;
    if (m->nodes.value > 1 && !m->inter_latency.given)
        return yt_err(err, errlen, d, root, "inter_node: {latency_s, bandwidth_Bps} is required "
                      "for more than one node");
    /* the spread of one rank's step time across ranks (std / mean): the
     * straggler term (docs/model.md) */
    if (figure(&c, root, "straggler_cv", "straggler_cv", &m->straggler_cv, 0, 0)) return -1;
    if ((n = yt_get(root, "negotiation")) && !yt_is_null(n)) {
        if (yt_expect(d, n, YT_MAP, "negotiation", err, errlen) ||
            yt_check_keys(d, n, neg_keys, err, errlen))
            return -1;
        m->has_negotiation = 1;
        if (figure(&c, n, "coordinator_base_s", "negotiation.coordinator_base_s", &m->coord_base, 0,
                   0) ||
            figure(&c, n, "coordinator_per_rank_s", "negotiation.coordinator_per_rank_s",
                   &m->coord_per_rank, 0, 0) ||
            figure(&c, n, "coordinator_per_level_s", "negotiation.coordinator_per_level_s",
                   &m->coord_per_level, 0, 0) ||
            figure(&c, n, "coordinator_per_request_s", "negotiation.coordinator_per_request_s",
                   &m->coord_per_request, 0, 0) ||
            figure(&c, n, "bitvector_base_s", "negotiation.bitvector_base_s", &m->bv_base, 0, 0) ||
            figure(&c, n, "bitvector_per_level_s", "negotiation.bitvector_per_level_s",
                   &m->bv_per_level, 0, 0))
            return -1;
    }
    return 0;
}

static double val(const mfig_t *f, double dflt) { return f->given ? f->value : dflt; }

void mfile_net(const mfile_t *m, mnet_t *net, mneg_t *neg)
{
    memset(net, 0, sizeof *net);
    net->ranks_per_node = (int)val(&m->ranks_per_node, 0);
    net->hierarchical = m->hierarchical;
    net->algo = m->algo;
    net->intra.alpha_s = val(&m->intra_latency, 0);
    net->intra.beta_s = 1 / val(&m->intra_bandwidth, INFINITY);
    net->intra.gamma_s = 1 / val(&m->intra_reduce, INFINITY);
    net->inter.alpha_s = val(&m->inter_latency, net->intra.alpha_s);
    net->inter.beta_s = m->inter_bandwidth.given ? 1 / m->inter_bandwidth.value : net->intra.beta_s;
    net->inter.gamma_s = m->inter_reduce.given ? 1 / m->inter_reduce.value : net->intra.gamma_s;
    memset(neg, 0, sizeof *neg);
    /* a block that only adds the per-request cost keeps the latency-based rest */
    neg->from_latency = !m->has_negotiation ||
                        !(m->coord_base.given || m->coord_per_rank.given ||
                          m->coord_per_level.given || m->bv_base.given || m->bv_per_level.given);
    neg->coord_per_request_s = val(&m->coord_per_request, 0);
    neg->coord_base_s = val(&m->coord_base, 0);
    neg->coord_per_rank_s = val(&m->coord_per_rank, 0);
    neg->coord_per_level_s = val(&m->coord_per_level, 0);
    neg->bv_base_s = val(&m->bv_base, 0);
    neg->bv_per_level_s = val(&m->bv_per_level, 0);
}

void mfile_figures(const mfile_t *m, const mfig_t **out)
{
    const mfig_t *all[] = {&m->nodes, &m->ranks_per_node, &m->device_peak_flops,
                           &m->intra_latency, &m->intra_bandwidth, &m->intra_reduce,
                           &m->inter_latency, &m->inter_bandwidth, &m->inter_reduce,
                           &m->inter_rails, &m->coord_base, &m->coord_per_rank,
                           &m->coord_per_level, &m->coord_per_request, &m->bv_base,
                           &m->bv_per_level, &m->straggler_cv};
    size_t k = 0;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (all[i]->given) out[k++] = all[i];
    out[k] = NULL;
}

const char *mfig_origin(arena_t *a, const mfig_t *f)
{
    if (!f->given) return "not given";
    if (f->source && f->assumption)
        return ar_printf(a, "source: %s; assumption: %s", f->source, f->assumption);
    if (f->source) return ar_printf(a, "source: %s", f->source);
    if (f->assumption) return ar_printf(a, "assumption: %s", f->assumption);
    return "no source given";
}
