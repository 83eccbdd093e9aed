#define _GNU_SOURCE
#include "harness/records/recread.h"

#include <math.h>
#include <string.h>

typedef struct {
    arena_t *a;
    const ytdoc *d;
    char *err;
    size_t errlen;
} rctx_t;

/* number at map[key]: NaN when absent or null */
static int num(rctx_t *c, const ytnode *map, const char *key, double *out)
{
    *out = NAN;
    const ytnode *n = yt_get(map, key);
    if (!n || yt_is_null(n)) return 0;
    if (n->kind == YT_SCALAR && n->plain &&
        (!strcmp(n->str, ".nan") || !strcmp(n->str, ".NaN") || !strcmp(n->str, ".inf")))
        return 0;
    return yt_double(c->d, n, out, c->err, c->errlen);
}

static int integer(rctx_t *c, const ytnode *map, const char *key, long long *out, long long dflt)
{
    *out = dflt;
    const ytnode *n = yt_get(map, key);
    if (!n || yt_is_null(n)) return 0;
    return yt_int(c->d, n, out, c->err, c->errlen);
}

static int text(rctx_t *c, const ytnode *map, const char *key, const char **out)
{
    *out = NULL;
    const ytnode *n = yt_get(map, key);
    if (!n || yt_is_null(n)) return 0;
    if (n->kind != YT_SCALAR) return yt_err(c->err, c->errlen, c->d, n, "%s must be text", key);
    *out = n->str;
    return 0;
}

static int numlist(rctx_t *c, const ytnode *map, const char *key, double **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const ytnode *s = yt_get(map, key);
    if (!s || yt_is_null(s)) return 0;
    if (s->kind != YT_SEQ)
        return yt_err(c->err, c->errlen, c->d, s, "%s must be a list of numbers", key);
    *out = ar_alloc(c->a, (s->n + 1) * sizeof **out);
    for (size_t i = 0; i < s->n; i++)
        if (yt_double(c->d, s->items[i], &(*out)[i], c->err, c->errlen)) return -1;
    *n = s->n;
    return 0;
}

static int read_kernels(rctx_t *c, const ytnode *root, record_t *r)
{
    const ytnode *ks = yt_get(root, "kernels");
    if (!ks || yt_is_null(ks)) return 0;
    if (ks->kind != YT_SEQ) return yt_err(c->err, c->errlen, c->d, ks, "kernels must be a list");
    r->k = ar_alloc(c->a, (ks->n + 1) * sizeof *r->k);
    for (size_t i = 0; i < ks->n; i++) {
        const ytnode *row = ks->items[i];
        if (row->kind != YT_MAP)
            return yt_err(c->err, c->errlen, c->d, row, "kernels: each row must be a mapping");
        krow_t *k = &r->k[r->nk++];
        if (text(c, row, "kernel", &k->kernel) || text(c, row, "layer", &k->layer) ||
            num(c, row, "calls", &k->calls) || num(c, row, "flops", &k->flops) ||
            num(c, row, "time_s", &k->time_s))
            return -1;
        if (!k->kernel) k->kernel = "unnamed";
    }
    return 0;
}

static int read_coll(rctx_t *c, const ytnode *root, record_t *r)
{
    const ytnode *rs = yt_get(root, "results");
    if (!rs || yt_is_null(rs)) return 0;
    if (rs->kind != YT_SEQ) return yt_err(c->err, c->errlen, c->d, rs, "results must be a list");
    r->c = ar_alloc(c->a, (rs->n + 1) * sizeof *r->c);
    for (size_t i = 0; i < rs->n; i++) {
        const ytnode *row = rs->items[i];
        if (row->kind != YT_MAP)
            return yt_err(c->err, c->errlen, c->d, row, "results: each row must be a mapping");
        crow_t *x = &r->c[r->nc++];
        const ytnode *ip = yt_get(row, "inplace");
        x->inplace = 0;
        if (ip && !yt_is_null(ip) && yt_bool(c->d, ip, &x->inplace, c->err, c->errlen)) {
            long long v; /* 0/1 is fine too */
            if (yt_int(c->d, ip, &v, c->err, c->errlen)) return -1;
            x->inplace = v != 0;
        }
        if (text(c, row, "op", &x->op) || text(c, row, "dtype", &x->dtype) ||
            text(c, row, "redop", &x->redop) || integer(c, row, "root", &x->root, -1) ||
            num(c, row, "bytes", &x->bytes) || num(c, row, "count", &x->count) ||
            numlist(c, row, "time_s", &x->time_s, &x->ntime) ||
            num(c, row, "median_s", &x->median_s) || num(c, row, "ci_lo_s", &x->ci_lo_s) ||
            num(c, row, "ci_hi_s", &x->ci_hi_s) || num(c, row, "min_s", &x->min_s) ||
            num(c, row, "max_s", &x->max_s) || num(c, row, "algbw_GBps", &x->algbw) ||
            num(c, row, "busbw_GBps", &x->busbw) || num(c, row, "latency_us", &x->latency_us) ||
            integer(c, row, "wrong", &x->wrong, 0))
            return -1;
        if (!x->op) return yt_err(c->err, c->errlen, c->d, row, "results: a row has no op");
        /* the factor comes from the benchmark, never from the operation's name */
        const ytnode *f = yt_get(row, "busbw_factor");
        if (!f || yt_is_null(f))
            return yt_err(c->err, c->errlen, c->d, row,
                          "results: the %s row has no busbw_factor (docs/record.md)", x->op);
        if (yt_double(c->d, f, &x->factor, c->err, c->errlen)) return -1;
        if (!(x->factor >= 0))
            return yt_err(c->err, c->errlen, c->d, f,
                          "results: busbw_factor must be a number >= 0 (got %s)", f->str);
        if (!(x->bytes >= 0))
            return yt_err(c->err, c->errlen, c->d, row, "results: a row has no bytes");
        if (!x->dtype) x->dtype = "";
        if (!x->redop) x->redop = "";
    }
    return 0;
}

int record_load(arena_t *a, const char *path, record_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->path = ar_strdup(a, path);
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    r->doc = d;
    rctx_t c = {a, d, err, errlen};
    const ytnode *root = d->root;
    if (!root) return yt_err(err, errlen, d, NULL, "the record is empty");
    if (root->kind != YT_MAP) return yt_err(err, errlen, d, root, "a record must be a mapping");
    if (integer(&c, root, "exadl_record", &r->version, -1)) return -1;
    if (r->version != 1)
        return yt_err(err, errlen, d, yt_get(root, "exadl_record") ? yt_get(root, "exadl_record")
                                                                   : root,
                      r->version < 0 ? "not an ExaDL record (no exadl_record: 1)"
                                     : "record format version %lld; this exadl reads 1",
                      r->version);
    if (text(&c, root, "benchmark", &r->benchmark) || text(&c, root, "status", &r->status) ||
        text(&c, root, "error", &r->error) || text(&c, root, "started_utc", &r->started_utc) ||
        text(&c, root, "backend", &r->backend) || text(&c, root, "precision", &r->precision) ||
        integer(&c, root, "ranks", &r->ranks, 1) || integer(&c, root, "gpus", &r->gpus, 0))
        return -1;
    if (!r->benchmark) r->benchmark = "unknown";
    if (!r->status) return yt_err(err, errlen, d, root, "the record has no status");
    r->system = yt_get(root, "system");
    r->config = yt_get(root, "config");
    r->validation = yt_get(root, "validation");
    const ytnode *t = yt_get(root, "timing");
    if (t && t->kind == YT_MAP) {
        if (numlist(&c, t, "step_s", &r->step_s, &r->nstep) ||
            numlist(&c, t, "warmup_s", &r->warmup_s, &r->nwarmup) ||
            num(&c, t, "samples_per_step", &r->samples_per_step))
            return -1;
    } else {
        r->samples_per_step = NAN;
    }
    const ytnode *f = yt_get(root, "flops");
    double nan = NAN;
    r->exec_per_step = r->exec_per_sample = r->conv_per_sample = r->conv_per_step = nan;
    r->fwd_conv_per_sample = r->conv_weights = r->parameters = r->memory_bytes = nan;
    r->kernels_steps = r->device_peak_flops = r->threads_per_rank = nan;
    if (f && f->kind == YT_MAP &&
        (num(&c, f, "executed_per_step", &r->exec_per_step) ||
         num(&c, f, "executed_per_sample", &r->exec_per_sample) ||
         num(&c, f, "convention_per_sample", &r->conv_per_sample) ||
         num(&c, f, "convention_per_step", &r->conv_per_step) ||
         num(&c, f, "forward_conv_per_sample", &r->fwd_conv_per_sample)))
        return -1;
    const ytnode *nw = yt_get(root, "network");
    if (nw && nw->kind == YT_MAP &&
        (num(&c, nw, "conv_weights", &r->conv_weights) ||
         num(&c, nw, "parameters", &r->parameters)))
        return -1;
    const ytnode *mem = yt_get(root, "memory");
    if (mem && mem->kind == YT_MAP && num(&c, mem, "rank0_bytes", &r->memory_bytes)) return -1;
    if (num(&c, root, "kernels_steps", &r->kernels_steps)) return -1;
    if (num(&c, root, "device_peak_flops", &r->device_peak_flops)) return -1;
    if (num(&c, root, "threads_per_rank", &r->threads_per_rank)) return -1;
    int orch = !strcmp(r->benchmark, "orchestration");
    if (read_kernels(&c, root, r) || (orch ? record_read_orch(a, d, root, r, err, errlen)
                                           : read_coll(&c, root, r)) ||
        record_read_gr(a, d, root, r, err, errlen))
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

const char *record_config(const record_t *r, const char *key)
{
    const ytnode *n = yt_get(r->config, key);
    return n && n->kind == YT_SCALAR ? n->str : NULL;
}
