/* Reference files evaluated (refcheck.h); read: refload.c. */
#define _GNU_SOURCE
#include "harness/checks/refcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/checks/rowkeys.h"
#include "harness/checks/rowindex.h"
#include "harness/checks/where.h"
#include "harness/proc/argv.h"
#include "harness/workloads/workload.h"

const char *ck_name(ck_outcome o)
{
    return o == CK_PASS ? "PASS" : o == CK_FAIL ? "FAIL" : o == CK_ERROR ? "ERROR" : "N/A";
}

/* ---- evaluation ----------------------------------------------------------------- */

static int bench_matches(const metric_t *m, const char *want)
{
    return !strcmp(m->bench, want) || !strcmp(m->kind ? m->kind : "", want) ||
           !strcmp(path_basename(m->program ? m->program : ""), want);
}

/* does row m satisfy every where key but scale? */
static int row_matches(const refspec_t *s, const metric_t *m)
{
    if (strcmp(m->metric, s->metric)) return 0;
    for (size_t i = 0; i < s->nwhere; i++) {
        const kv_t *w = &s->where[i];
        if (!strcmp(w->key, "scale")) continue;
        if (!strcmp(w->key, "benchmark")) {
            if (!bench_matches(m, w->value)) return 0;
            continue;
        }
        const char *p = metric_param(m, w->key);
        if (!p || !where_value_same(p, w->value)) return 0;
    }
    return 1;
}

static const char *where_text(arena_t *a, const refspec_t *s)
{
    sb_t b = {0};
    for (size_t i = 0; i < s->nwhere; i++)
        sb_printf(&b, "%s%s=%s", i ? " " : "", s->where[i].key, s->where[i].value);
    char *r = ar_strdup(a, b.len ? sb_str(&b) : "(any)");
    sb_free(&b);
    return r;
}

static const char *where_get(const refspec_t *s, const char *key)
{
    for (size_t i = 0; i < s->nwhere; i++)
        if (!strcmp(s->where[i].key, key)) return s->where[i].value;
    return NULL;
}

/* a where key that may become `--KEY VALUE` of the describing program */
static int describe_key_ok(const char *k)
{
    static const char *const files[] = {"config", "config_file", "record", "dump_weights", NULL};
    if (!*k || strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(k) || *k == '_')
        return 0;
    for (size_t i = 0; files[i]; i++)
        if (!strcmp(k, files[i])) return 0;
    return 1;
}

/* scale: N (a number) asks the run, never the describer */
static int numbered_scale(const refspec_t *s)
{
    const char *sc = where_get(s, "scale");
    long long want = -1;
    if (!sc || !strcmp(sc, "largest") || !strcmp(sc, "max") || !strcmp(sc, "smallest") ||
        !strcmp(sc, "min"))
        return 0;
    opt_parse_int(sc, &want);
    return want >= 0;
}

int reference_describe_question(arena_t *a, const refspec_t *s, describe_q_t *q, const char **why)
{
    memset(q, 0, sizeof *q);
    const workload_t *w = workload_describer(where_get(s, "benchmark"));
    if (!s->describable || numbered_scale(s) || !w || !workload_describes(w, s->metric)) return 0;
    q->program = w->program;
    q->args[q->nargs++] = (char *)w->describe;
    for (size_t i = 0; i < s->nwhere && q->nargs < DESCRIBE_MAX_ARGS - 2; i++) {
        if (!strcmp(s->where[i].key, "benchmark") || !strcmp(s->where[i].key, "scale")) continue;
        /* a reference file is data: its keys become options of a process, so
         * only configuration words, and none that names a file */
        if (!describe_key_ok(s->where[i].key)) {
            *why = ar_printf(a, "where key '%s' cannot be passed to %s %s (configuration keys "
                                "only, no file options)",
                             sanitize_name(a, s->where[i].key), w->program, w->describe);
            return -1;
        }
        char *o = ar_printf(a, "--%s", s->where[i].key);
        for (char *p = o + 2; *p; p++)
            if (*p == '_') *p = '-';
        q->args[q->nargs++] = o;
        q->args[q->nargs++] = (char *)s->where[i].value;
    }
    q->args[q->nargs] = NULL;
    return 1;
}

/* network metrics nothing measured, from the describe answer the probe stage
 * recorded: lines "name  value ..." (`stemdl --describe --preset gb2019`) */
static double describe(arena_t *a, const refspec_t *s, const probe_t *probe, const char **why,
                       const char **source, int *unanswered)
{
    describe_q_t q;
    if (reference_describe_question(a, s, &q, why) != 1) return NAN;
    *source = ar_printf(a, "%s %s", q.program, q.args[0]);
    const probe_answer_t *x = probe_find(probe, q.program, q.args, q.nargs);
    if (!x) {
        const char *cmd = ar_printf(a, "%s %s", q.program, argv_join(a, q.args));
        *why = !probe ? ar_printf(a, "not evaluated: no recorded answers (`%s`)", cmd)
               : probe->missing
                   ? ar_printf(a, "not evaluated: %s is missing (no recorded `%s`)", probe->path, cmd)
                   : ar_printf(a, "not evaluated: %s has no answer of `%s`", probe->path, cmd);
        *unanswered = 1;
        return NAN;
    }
    if (x->error) {
        *why = x->error;
        return NAN;
    }
    char *out = ar_strdup(a, x->output); /* strtok writes into it */
    /* "name  value ..." lines; convention falls back to 3 x forward */
    double v = NAN, fwd = NAN;
    size_t lm = strlen(s->metric), lf = strlen("forward_conv_flops_per_sample");
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        line += strspn(line, " \t");
        if (!strncmp(line, s->metric, lm) && strchr(" \t:", line[lm]) && line[lm])
            v = strtod(line + lm + strspn(line + lm, " \t:"), NULL);
        else if (!strncmp(line, "forward_conv_flops_per_sample", lf) && strchr(" \t:", line[lf]) &&
                 line[lf])
            fwd = strtod(line + lf + strspn(line + lf, " \t:"), NULL);
    }
    if (isnan(v) && !strcmp(s->metric, "convention_flops_per_sample")) v = 3 * fwd;
    if (isnan(v)) *why = ar_printf(a, "%s printed no %s line", *source, s->metric);
    return v;
}

static void add(arena_t *a, checks_t *out, const reference_t *r, const refspec_t *s,
                const mtable_t *t, const metric_t *m, double measured, const char *source,
                const char *detail)
{
    AR_GROW(a, out->c, out->n, out->cap);
    check_t *c = &out->c[out->n++];
    memset(c, 0, sizeof *c);
    c->reference = r->label ? r->label : r->name;
    c->reference_file = r->path;
    c->row = m ? rowkeys_text(a, m, t) : NULL;
    c->kind = r->kind;
    c->metric = s->metric;
    c->where = where_text(a, s);
    c->unit = s->unit ? s->unit : (metric_info(s->metric) ? metric_info(s->metric)->unit : "");
    c->bench = m ? m->bench : NULL;
    c->scale = m ? m->scale : 0;
    c->expected = s->value;
    c->lo = isnan(s->lower) ? NAN : s->value * (1 + s->lower);
    c->hi = isnan(s->upper) ? NAN : s->value * (1 + s->upper);
    if (!isnan(c->lo) && !isnan(c->hi) && c->lo > c->hi) { /* negative expected values */
        double sw = c->lo;
        c->lo = c->hi;
        c->hi = sw;
    }
    c->measured = measured;
    c->source = source;
    c->detail = detail;
    c->ci_lo = m ? m->lo : NAN, c->ci_hi = m ? m->hi : NAN;
    if (isnan(measured)) {
        c->outcome = strcmp(r->kind, "published") ? CK_FAIL : CK_NA;
    } else {
        int ok = (isnan(c->lo) || measured >= c->lo) && (isnan(c->hi) || measured <= c->hi);
        c->outcome = ok ? CK_PASS : CK_FAIL;
    }
}

/* a published number of another configuration: N/A, with what this run has */
static const char *not_comparable(arena_t *a, const refspec_t *s, const mtable_t *t)
{
    const metric_t *best = NULL;
    const char *bn = where_get(s, "benchmark");
    for (size_t j = 0; j < t->n; j++) {
        const metric_t *m = &t->m[j];
        if (strcmp(m->metric, s->metric) || (bn && !bench_matches(m, bn))) continue;
        if (!best || m->scale > best->scale) best = m;
    }
    if (!best) return "no measurement of this run matches";
    char v1[32];
    fmt_si(best->value, best->unit, v1, sizeof v1);
    return ar_printf(a, "not comparable: this run has %s = %s at n=%d (%s)", s->metric, v1,
                     best->scale, best->bench);
}

/* check s matched no row of t: a count of a configuration no launch ran
 * (exact references: --describe), a published number of another
 * configuration (N/A), a where that selects nothing this run ran (the
 * reference's mistake: ERROR), or a configuration that ran and measured
 * nothing (the machine's failure: FAIL) */
static void no_match(arena_t *a, const reference_t *r, const refspec_t *s, const mtable_t *t,
                     const where_facts_t *facts, const probe_t *probe, long long want,
                     checks_t *out)
{
    const char *why = NULL, *source = NULL;
    int unanswered = 0, published = !strcmp(r->kind, "published");
    double v = want < 0 ? describe(a, s, probe, &why, &source, &unanswered) : NAN;
    if (!isnan(v)) {
        add(a, out, r, s, t, NULL, v, source, NULL);
        return;
    }
    if (unanswered) { /* the answer was never recorded: not evaluated, and why */
        add(a, out, r, s, t, NULL, NAN, "none", why);
        out->c[out->n - 1].outcome = CK_NA;
        return;
    }
    if (why && !source) { /* a where key no describe question may carry */
        add(a, out, r, s, t, NULL, NAN, "none", ar_printf(a, "reference error: %s", why));
        out->c[out->n - 1].outcome = CK_ERROR;
        return;
    }
    if (source) { /* the describe answer failed or lacked the metric */
        add(a, out, r, s, t, NULL, NAN, source, why);
        out->c[out->n - 1].outcome = CK_FAIL;
        return;
    }
    /* a where key or value that matches nothing is the reference's mistake;
     * published references are checked for their keys only */
    const char *bad = where_diagnose_f(a, s->metric, s->where, s->nwhere, facts, !published);
    if (!bad && !published) bad = where_ran(a, s->where, s->nwhere, t);
    if (bad) {
        add(a, out, r, s, t, NULL, NAN, "none", bad);
        out->c[out->n - 1].outcome = CK_ERROR;
        return;
    }
    add(a, out, r, s, t, NULL, NAN, "none",
        published ? not_comparable(a, s, t) : where_nothing_measured(a, s->where, s->nwhere, t));
}

void reference_evaluate(arena_t *a, const reference_t *r, const mtable_t *t,
                        const probe_t *probe, checks_t *out)
{
    const rowindex_t *ix = rowindex_build(a, t); /* linear in checks + rows, not their product */
    const where_facts_t *facts = NULL; /* read when a first check matches nothing */
    for (size_t i = 0; i < r->n; i++) {
        const refspec_t *s = &r->c[i];
        const char *sc = where_get(s, "scale");
        const metric_info_t *mi = metric_info(s->metric);
        long long want = -1;
        int largest = !sc ? (mi && mi->per_scale) : (!strcmp(sc, "largest") || !strcmp(sc, "max"));
        int smallest = sc && (!strcmp(sc, "smallest") || !strcmp(sc, "min"));
        if (sc && !largest && !smallest) opt_parse_int(sc, &want);
        size_t found = 0, *rows, nrows = rowindex_candidates(a, ix, s->metric, s->where,
                                                             s->nwhere, &rows), nhit = 0;
        for (size_t j = 0; j < nrows; j++) /* the index's candidates, tested here */
            if (row_matches(s, &t->m[rows[j]])) rows[nhit++] = rows[j];
        if (largest || smallest) /* extreme scale of this benchmark (and row params) */
            nhit = rowindex_keep_extreme(a, ix, rows, nhit, largest);
        for (size_t j = 0; j < nhit; j++) {
            const metric_t *m = &t->m[rows[j]];
            if (want >= 0 && m->scale != want) continue;
            found++;
            add(a, out, r, s, t, m, m->value, "run", NULL);
            /* how many launches the number rests on */
            out->c[out->n - 1].launches = (int)rowindex_launches_ok(ix, m->bench, m->scale);
        }
        if (found) continue;
        if (!facts) facts = where_facts_build(a, t, ix);
        no_match(a, r, s, t, facts, probe, want, out);
    }
}

const char *checks_unanswered_note(arena_t *a, const checks_t *c, const probe_t *probe)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += c->c[i].detail && !strncmp(c->c[i].detail, "not evaluated: ", 15);
    if (!n) return NULL;
    return ar_printf(a, "%zu check%s not evaluated: %s %s", n, n == 1 ? "" : "s",
                     probe ? probe->path : "the run folder's " PROBE_FILE,
                     probe && !probe->missing ? "has no recorded describe answer for them"
                                              : "is missing (no recorded describe answers)");
}

void check_value_text(double v, const char *unit, int exact, char *buf, size_t len)
{
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    int si = unit && (!strcmp(unit, "FLOP/s") || !strcmp(unit, "FLOP"));
    if (v == floor(v) && fabs(v) < 1e16 && (exact || (!si && fabs(v) >= 1e6)))
        snprintf(buf, len, "%.0f%s%s", v, unit && *unit ? " " : "", unit ? unit : "");
    else if (si && fabs(v) >= 1e4)
        fmt_si(v, unit, buf, len);
    else
        snprintf(buf, len, "%.4g%s%s", v, unit && *unit ? " " : "", unit ? unit : "");
}
