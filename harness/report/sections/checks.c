/* Report section: every reference check (PASS, FAIL or N/A) with the
 * measured and expected values, the bound and where it was measured;
 * failures first; a check matching many rows with one outcome is one row;
 * published numbers side by side. */
#include <math.h>
#include <string.h>

#include "harness/report/runctx.h"
#include "harness/report/summary.h"

/* the same check of a reference file, with the same outcome */
static int same_group(const check_t *x, const check_t *y)
{
    return x->outcome == y->outcome && !strcmp(x->reference, y->reference) &&
           !strcmp(x->reference_file ? x->reference_file : "", y->reference_file ? y->reference_file : "") &&
           !strcmp(x->metric, y->metric) && !strcmp(x->where ? x->where : "", y->where ? y->where : "");
}

/* one row; n > 1: a group of n rows measured in [lo, hi] */
static void row(sb_t *o, const check_t *c, size_t n, double lo, double hi)
{
    const char *u = c->unit ? c->unit : "";
    int ex = !strcmp(c->kind, "exact") || c->lo == c->hi;
    char t[4][64], r0[64], r1[64];
    double v[4] = {c->measured, c->expected, c->lo, c->hi};
    for (int k = 0; k < 4; k++) check_value_text(v[k], u, ex, t[k], sizeof t[k]);
    sb_printf(o, "| **%s** | %s (%s) | %s | ", ck_name(c->outcome), c->reference, c->kind, c->metric);
    if (n > 1) sb_printf(o, "%s (%zu rows) | ", c->where, n);
    else if (c->bench && c->scale)
        sb_printf(o, "%s n=%d%s%s | ", c->bench, c->scale, c->row ? " " : "", c->row ? c->row : "");
    else if (c->bench) sb_printf(o, "%s%s%s | ", c->bench, c->row ? " " : "", c->row ? c->row : "");
    else sb_printf(o, "%s | ", c->where);
    if (n > 1 && isfinite(lo)) {
        check_value_text(lo, u, ex, r0, sizeof r0), check_value_text(hi, u, ex, r1, sizeof r1);
        if (lo == hi) sb_printf(o, "%s", r0);
        else sb_printf(o, "%s .. %s", r0, r1);
    } else {
        sb_printf(o, "%s", t[0]);
    }
    sb_printf(o, " | %s | [%s, %s", t[1], isnan(c->lo) ? "-inf" : t[2], isnan(c->hi) ? "inf" : t[3]);
    sb_printf(o, "] | %s%s%s |\n", c->detail ? c->detail : "",
              c->source && strcmp(c->source, "run") && strcmp(c->source, "none") ? " from " : "",
              c->source && strcmp(c->source, "run") && strcmp(c->source, "none") ? c->source : "");
}

static void md(sb_t *o, const runctx_t *rc, const void *self)
{
    (void)self;
    const checks_t *ck = &rc->ck;
    sb_puts(o, "\n## Reference checks\n\n");
    if (!ck->n) {
        sb_puts(o, "The suite names no reference files. `exadl check RUN --reference FILE` "
                   "evaluates some.\n");
        return;
    }
    sb_printf(o, "%s. Bounds are fractions of the expected value (ReFrame style). Published "
                 "numbers are shown side by side; they pass or fail only where this run "
                 "measured the same thing (otherwise N/A). Counts of configurations no launch "
                 "ran come from the workload's `--describe` (note \"from\") and are counted "
                 "apart; an ERROR is a `where` that selects nothing this run ran: the "
                 "reference file is wrong, not the machine.\n\n"
                 "| outcome | reference (kind) | metric | measured on | measured | expected | "
                 "bound | note |\n|---|---|---|---|---:|---:|---|---|\n", checks_line(ck));
    /* failures first, one row each; then the rest, a check that matched
     * several rows with one outcome (wrong: 0 over every collective size) as
     * one row with its count and range */
    for (size_t i = 0; i < ck->n; i++) /* reference errors, then failures */
        if (ck->c[i].outcome == CK_ERROR) row(o, &ck->c[i], 1, NAN, NAN);
    for (size_t i = 0; i < ck->n; i++)
        if (ck->c[i].outcome == CK_FAIL) row(o, &ck->c[i], 1, NAN, NAN);
    for (size_t i = 0; i < ck->n;) {
        size_t j = i;
        double lo = INFINITY, hi = -INFINITY;
        while (j < ck->n && same_group(&ck->c[i], &ck->c[j])) {
            if (!isnan(ck->c[j].measured)) lo = fmin(lo, ck->c[j].measured), hi = fmax(hi, ck->c[j].measured);
            j++;
        }
        if (ck->c[i].outcome != CK_FAIL && ck->c[i].outcome != CK_ERROR) {
            if (j - i > 1) row(o, &ck->c[i], j - i, lo, hi);
            else row(o, &ck->c[i], 1, NAN, NAN);
        }
        i = j;
    }
}

const section_t section_checks = {.name = "checks", .md = md};
