#include "benchmarks/networks/fcdensenet/fd_links.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/ytree.h"

/* A figure of a machine file: a number, or a mapping whose value is one. */
static int figure(const ytdoc *d, const ytnode *block, const char *key, double *out, char *err,
                  size_t errlen)
{
    const ytnode *n = block ? yt_get(block, key) : NULL;
    if (n && n->kind == YT_MAP) n = yt_get(n, "value");
    if (!n)
        return yt_err(err, errlen, d, block ? block : d->root,
                      "intra_node.%s is required for the plan model's links", key);
    if (yt_double(d, n, out, err, errlen)) return -1;
    if (!(*out > 0) || !isfinite(*out))
        return yt_err(err, errlen, d, n, "intra_node.%s must be a positive number", key);
    return 0;
}

static int from_machine(const ytdoc *d, fdl_links *l, const char *path, char *err, size_t errlen)
{
    const ytnode *intra = yt_get(d->root, "intra_node");
    if (intra && intra->kind != YT_MAP)
        return yt_err(err, errlen, d, intra, "intra_node must be a mapping");
    if (figure(d, intra, "latency_s", &l->latency_s, err, errlen) ||
        figure(d, intra, "bandwidth_Bps", &l->bytes_per_s, err, errlen))
        return -1;
    snprintf(l->source, sizeof l->source, "machine file %s (intra_node)", path);
    return 0;
}

static int from_pingpong(const ytdoc *d, const ytnode *res, fdl_links *l, char *err, size_t errlen)
{
    double b0 = INFINITY, t0 = 0, b1 = -1, t1 = 0;
    for (size_t i = 0; i < res->n; i++) {
        const ytnode *r = res->items[i], *op = r->kind == YT_MAP ? yt_get(r, "op") : NULL;
        if (!op || op->kind != YT_SCALAR || strcmp(op->str, "pingpong")) continue;
        const ytnode *bn = yt_get(r, "bytes"), *tn = yt_get(r, "median_s");
        double b, t;
        if (!bn || !tn)
            return yt_err(err, errlen, d, r, "a pingpong row without bytes and median_s");
        if (yt_double(d, bn, &b, err, errlen) || yt_double(d, tn, &t, err, errlen)) return -1;
        if (!(t > 0) || !isfinite(t) || !(b > 0))
            return yt_err(err, errlen, d, r, "a pingpong row's bytes and median_s must be positive");
        if (b < b0) b0 = b, t0 = t;
        if (b > b1) b1 = b, t1 = t;
    }
    if (b1 < 0)
        return yt_err(err, errlen, d, res, "no pingpong rows (run collectives --op pingpong)");
    if (!(b1 > b0) || !(t1 > t0))
        return yt_err(err, errlen, d, res, "the pingpong rows need two sizes, the larger slower "
                      "(e.g. -b 8 -e 2M)");
    l->latency_s = t0;
    l->bytes_per_s = (b1 - b0) / (t1 - t0);
    snprintf(l->source, sizeof l->source, "pingpong record: %.0f B and %.0f B", b0, b1);
    return 0;
}

int fdl_load(const char *path, fdl_links *l, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    int rc = -1;
    const ytnode *res = NULL;
    if (!d->root || d->root->kind != YT_MAP)
        snprintf(err, errlen, "%s: not a machine file or a collectives record (a mapping)", path);
    else if (yt_get(d->root, "exadl_machine"))
        rc = from_machine(d, l, path, err, errlen);
    else if ((res = yt_get(d->root, "results")) && res->kind == YT_SEQ)
        rc = from_pingpong(d, res, l, err, errlen);
    else
        snprintf(err, errlen, "%s: neither a machine file (exadl_machine) nor a collectives "
                 "record with pingpong results", path);
    yt_free(d);
    return rc;
}
