/* probe.yaml of a run folder (probe.h): written by exadl run's probe stage,
 * read by everything that analyses the folder. */
#define _GNU_SOURCE
#include "harness/run/probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/record/read.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/ytree.h"

enum { MAX_ARGS = 64, MAX_ANSWERS = 4096, MAX_PEAK_PROBES = 101 };

static const char *const top_keys[] = {"exadl_probe", "peak", "describe", NULL};
static const char *const peak_keys[] = {"program", "args", "via_launcher", "host", "output",
                                        "error", "outputs", "from", "cpu_model", "cpus",
                                        "measured_utc", "interference", NULL};
static const char *const answer_keys[] = {"program", "args", "output", "error", NULL};

static void *arena_alloc(void *ctx, size_t n) { return ar_alloc(ctx, n); }

static int same_question(const probe_answer_t *x, const char *program, char *const *args,
                         size_t nargs)
{
    if (strcmp(x->program, program) || x->nargs != nargs) return 0;
    for (size_t i = 0; i < nargs; i++)
        if (strcmp(x->args[i], args[i])) return 0;
    return 1;
}

const probe_answer_t *probe_find(const probe_t *p, const char *program, char *const *args,
                                 size_t nargs)
{
    for (size_t i = 0; p && i < p->nd; i++)
        if (same_question(&p->d[i], program, args, nargs)) return &p->d[i];
    return NULL;
}

void probe_answer_set(arena_t *a, probe_answer_t *x, const char *program, char *const *args,
                      size_t nargs, const char *output, const char *error)
{
    x->program = ar_strdup(a, program);
    x->args = ar_alloc(a, (nargs + 1) * sizeof *x->args);
    for (size_t i = 0; i < nargs; i++) x->args[i] = ar_strdup(a, args[i]);
    x->nargs = nargs;
    x->output = output ? ar_strdup(a, output) : NULL;
    x->error = output ? NULL : ar_strdup(a, error ? error : "no answer");
}

void probe_put(arena_t *a, probe_t *p, const char *program, char *const *args, size_t nargs,
               const char *output, const char *error)
{
    probe_answer_t *x = (probe_answer_t *)probe_find(p, program, args, nargs);
    if (!x) {
        AR_GROW(a, p->d, p->nd, p->dcap);
        x = &p->d[p->nd++];
    }
    probe_answer_set(a, x, program, args, nargs, output, error);
}

/* ---- reading ------------------------------------------------------------------ */

/* program, args, output | error of one answer map */
static int read_answer(arena_t *a, const rd_t *c, const ytnode *m, const char *const *keys,
                       probe_answer_t *x)
{
    const ytdoc *d = c->doc;
    if (yt_expect(d, m, YT_MAP, "an answer", c->err, c->errlen) ||
        yt_check_keys(d, m, keys, c->err, c->errlen))
        return -1;
    if (rd_str_req(c, m, "program", &x->program)) return -1;
    if (!x->program[0] || strchr(x->program, '/'))
        return rd_err(c, yt_get(m, "program"), "program: a program's name (no path)");
    const ytnode *l;
    if (rd_list(c, m, "args", &l)) return -1;
    size_t n = l ? l->n : 0;
    if (n > MAX_ARGS) return rd_err(c, l, "args: %zu arguments, at most %d", n, MAX_ARGS);
    x->args = ar_alloc(a, (n + 1) * sizeof *x->args);
    for (size_t i = 0; i < n; i++) {
        if (l->items[i]->kind != YT_SCALAR) return rd_err(c, l->items[i], "args: plain values only");
        if (rd_str_node(c, l->items[i], &x->args[i])) return -1;
    }
    x->nargs = n;
    if (rd_str(c, m, "output", NULL, &x->output) || rd_str(c, m, "error", NULL, &x->error))
        return -1;
    if (!x->output == !x->error)
        return rd_err(c, m, "an answer has output: or error: (one of them)");
    return 0;
}

/* the repeated probe's outputs and where and when it was measured */
static int read_repeats(arena_t *a, const rd_t *c, const ytnode *pk, probe_t *p)
{
    const ytnode *l;
    long long cpus;
    if (rd_list(c, pk, "outputs", &l) || rd_str(c, pk, "from", NULL, &p->peak_from) ||
        rd_str(c, pk, "cpu_model", NULL, &p->peak_cpu_model) ||
        rd_int_in(c, pk, "cpus", 0, 0, 1 << 20, &cpus) ||
        rd_str(c, pk, "measured_utc", NULL, &p->peak_measured_utc) ||
        intf_read(c, pk, "interference", &p->peak_intf))
        return -1;
    p->peak_cpus = (int)cpus;
    const char *said[] = {"from", "cpu_model", "measured_utc", "host"}; /* they reach report and terminal */
    const char *v[] = {p->peak_from, p->peak_cpu_model, p->peak_measured_utc, p->peak_host};
    for (int k = 0; k < 4; k++)
        for (const char *s = v[k]; s && *s; s++)
            if ((unsigned char)*s < 32 || *s == 127)
                return rd_err(c, yt_get(pk, said[k]), "%s: a control character", said[k]);
    size_t n = l ? l->n : 0;
    if (n > MAX_PEAK_PROBES) return rd_err(c, l, "outputs: %zu, at most %d", n, MAX_PEAK_PROBES);
    if (n && p->peak.error) return rd_err(c, l, "outputs: beside error: (one of them)");
    p->peak_outputs = ar_alloc(a, (n + 1) * sizeof *p->peak_outputs);
    for (size_t i = 0; i < n; i++) {
        if (l->items[i]->kind != YT_SCALAR) return rd_err(c, l->items[i], "outputs: text only");
        if (rd_str_node(c, l->items[i], &p->peak_outputs[i])) return -1;
    }
    p->npeak_outputs = n;
    return 0;
}

int probe_read_text(arena_t *a, const char *text, size_t len, const char *name, probe_t *p,
                    char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->path = ar_strdup(a, name);
    ytdoc *d = yt_load_string(text, len, name, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    rd_t c = {d, err, errlen, arena_alloc, a};
    const ytnode *r = d->root;
    if (!r || r->kind != YT_MAP || !yt_get(r, "exadl_probe"))
        return yt_err(err, errlen, d, r, "not a probe record (no exadl_probe: %d)",
                      PROBE_FORMAT_VERSION);
    if (yt_check_keys(d, r, top_keys, err, errlen)) return -1;
    long long ver;
    if (rd_int_req(&c, r, "exadl_probe", &ver)) return -1;
    if (ver != PROBE_FORMAT_VERSION)
        return yt_err(err, errlen, d, yt_get(r, "exadl_probe"), "probe format %lld; this exadl "
                      "reads %d", ver, PROBE_FORMAT_VERSION);
    const ytnode *pk;
    if (rd_map(&c, r, "peak", &pk)) return -1;
    if (pk) {
        if (read_answer(a, &c, pk, peak_keys, &p->peak) ||
            rd_bool(&c, pk, "via_launcher", 0, &p->peak_via_launcher) ||
            rd_str(&c, pk, "host", NULL, &p->peak_host) || read_repeats(a, &c, pk, p))
            return -1;
        p->has_peak = 1;
    }
    const ytnode *l;
    if (rd_list(&c, r, "describe", &l)) return -1;
    if (l && l->n > MAX_ANSWERS)
        return rd_err(&c, l, "describe: %zu answers, at most %d", l->n, MAX_ANSWERS);
    for (size_t i = 0; l && i < l->n; i++) {
        probe_answer_t x = {0};
        if (read_answer(a, &c, l->items[i], answer_keys, &x)) return -1;
        if (probe_find(p, x.program, (char *const *)x.args, x.nargs))
            return rd_err(&c, l->items[i], "describe: the same question twice");
        AR_GROW(a, p->d, p->nd, p->dcap);
        p->d[p->nd++] = x;
    }
    return 0;
}

int probe_read(arena_t *a, const char *dir, probe_t *p, char *err, size_t errlen)
{
    const char *path = path_join(a, dir, PROBE_FILE);
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        memset(p, 0, sizeof *p);
        p->path = path;
        p->missing = 1;
        return 1;
    }
    size_t len;
    char *text = fileio_read(path, &len, (size_t)64 << 20, err, errlen);
    if (!text) return -1;
    int rc = probe_read_text(a, text, len, path, p, err, errlen);
    free(text);
    return rc;
}

void probe_read_or_warn(arena_t *a, const char *dir, probe_t *p, const char *cmd)
{
    char err[1024];
    if (probe_read(a, dir, p, err, sizeof err) >= 0) return;
    fprintf(stderr, "exadl %s: warning: %s (its answers are not used)\n", cmd, err);
    memset(p, 0, sizeof *p);
    p->path = path_join(a, dir, PROBE_FILE);
    p->missing = 1;
}

int probe_read_or_fail(arena_t *a, const char *dir, probe_t *p, const char *cmd)
{
    char err[1024];
    if (probe_read(a, dir, p, err, sizeof err) >= 0) return 0;
    fprintf(stderr, "exadl %s: error: %s (remove %s/%s to %s without the recorded answers)\n",
            cmd, err, dir, PROBE_FILE, cmd);
    return -1;
}

/* ---- writing ------------------------------------------------------------------ */

static void write_answer(rec_t *w, const probe_answer_t *x)
{
    rec_kv_str(w, "program", x->program);
    rec_key(w, "args");
    rec_seq_begin(w);
    for (size_t i = 0; i < x->nargs; i++) rec_str(w, x->args[i]);
    rec_seq_end(w);
    if (x->output) rec_kv_str(w, "output", x->output);
    else rec_kv_str(w, "error", x->error);
}

int probe_write(const char *dir, const probe_t *p, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, PROBE_FILE);
    return probe_write_file(path, p, err, errlen);
}

int probe_write_file(const char *path, const probe_t *p, char *err, size_t errlen)
{
    rec_t *w = rec_open(path, err, errlen); /* a temporary file renamed over the old one */
    if (!w) return -1;
    rec_map_begin(w);
    rec_kv_int(w, "exadl_probe", PROBE_FORMAT_VERSION);
    if (p->has_peak) {
        rec_key(w, "peak");
        rec_map_begin(w);
        write_answer(w, &p->peak);
        rec_kv_bool(w, "via_launcher", p->peak_via_launcher);
        if (p->peak_host) rec_kv_str(w, "host", p->peak_host);
        if (p->npeak_outputs) {
            rec_key(w, "outputs");
            rec_seq_begin(w);
            for (size_t i = 0; i < p->npeak_outputs; i++) rec_str(w, p->peak_outputs[i]);
            rec_seq_end(w);
        }
        if (p->peak_from) rec_kv_str(w, "from", p->peak_from);
        if (p->peak_cpu_model) rec_kv_str(w, "cpu_model", p->peak_cpu_model);
        if (p->peak_cpus) rec_kv_int(w, "cpus", p->peak_cpus);
        if (p->peak_measured_utc) rec_kv_str(w, "measured_utc", p->peak_measured_utc);
        intf_write(w, "interference", &p->peak_intf);
        rec_map_end(w);
    }
    rec_key(w, "describe");
    rec_seq_begin(w);
    for (size_t i = 0; i < p->nd; i++) {
        rec_map_begin(w);
        write_answer(w, &p->d[i]);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
    return rec_close(w, err, errlen);
}
