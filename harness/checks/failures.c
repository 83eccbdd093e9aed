/* failures (failures.h). */
#include "harness/checks/failures.h"

#include <math.h>
#include <string.h>

const char *check_margin(const check_t *c, char *buf, size_t len)
{
    double v = c->measured;
    if (isnan(v)) snprintf(buf, len, "nothing measured");
    else if (!isnan(c->lo) && v < c->lo)
        snprintf(buf, len, "%+.3g%% under the lower bound", c->lo ? (v - c->lo) / fabs(c->lo) * 100 : -INFINITY);
    else if (!isnan(c->hi) && v > c->hi)
        snprintf(buf, len, "%+.3g%% over the upper bound", c->hi ? (v - c->hi) / fabs(c->hi) * 100 : INFINITY);
    else snprintf(buf, len, "within bounds");
    return buf;
}

const char *check_warning(const check_t *c, char *buf, size_t len)
{
    if (isnan(c->measured) || c->lo == c->hi || !strcmp(c->kind, "exact")) return NULL;
    /* counts that must be 0 or all (wrong, launches_ok) need no statistics */
    if (!strcmp(c->metric, "wrong") || !strcmp(c->metric, "launches_ok") || c->expected == 0)
        return NULL;
    char a[32], b[32];
    for (int side = 0; side < 2; side++) {
        double bound = side ? c->hi : c->lo;
        if (isnan(bound) || isnan(c->ci_lo) || isnan(c->ci_hi)) continue;
        if (c->ci_lo < bound && bound < c->ci_hi) {
            check_value_text(c->ci_lo, c->unit, 0, a, sizeof a);
            check_value_text(c->ci_hi, c->unit, 0, b, sizeof b);
            snprintf(buf, len, "its 95%% CI [%s, %s] straddles the bound: the verdict may flip on "
                     "the next identical run", a, b);
            return buf;
        }
    }
    if (c->launches == 1) {
        snprintf(buf, len, "rests on one launch: the variation between launches is unknown "
                 "(repetitions: 3 or more for an acceptance threshold)");
        return buf;
    }
    return NULL;
}

static void where_of(const check_t *k, char *at, size_t len)
{
    const char *sp = k->row ? " " : "", *row = k->row ? k->row : "";
    if (k->bench && k->scale) snprintf(at, len, "%s n=%d%s%s", k->bench, k->scale, sp, row);
    else if (k->bench) snprintf(at, len, "%s%s%s", k->bench, sp, row);
    else snprintf(at, len, "%s", k->where);
}

void checks_print_failures(FILE *f, const checks_t *c)
{
    int nf = 0, nw = 0, ne = 0;
    char buf[256];
    for (size_t i = 0; i < c->n; i++) {
        ne += c->c[i].outcome == CK_ERROR;
        nf += c->c[i].outcome == CK_FAIL;
        nw += c->c[i].outcome != CK_NA && c->c[i].outcome != CK_ERROR && check_warning(&c->c[i], buf, sizeof buf) != NULL;
    }
    /* first what must be fixed before any verdict: the reference files */
    if (ne)
        fprintf(f, "REFERENCE ERROR%s (%d): the reference file%s, not the machine (exit status 2):\n",
                ne == 1 ? "" : "S", ne, ne == 1 ? " is wrong" : "s are wrong");
    for (size_t i = 0; i < c->n && ne; i++) {
        const check_t *k = &c->c[i];
        if (k->outcome == CK_ERROR)
            fprintf(f, "  ERROR %s where %s: %s  (%s, %s)\n", k->metric, k->where, k->detail,
                    k->reference, k->reference_file ? k->reference_file : "?");
    }
    if (nf) fprintf(f, "FAILED check%s (%d):\n", nf == 1 ? "" : "s", nf);
    for (size_t i = 0; i < c->n && nf; i++) {
        const check_t *k = &c->c[i];
        if (k->outcome != CK_FAIL) continue;
        char m[48], lo[48], hi[48], at[160], mg[96];
        check_value_text(k->measured, k->unit, 0, m, sizeof m);
        check_value_text(k->lo, k->unit, 0, lo, sizeof lo);
        check_value_text(k->hi, k->unit, 0, hi, sizeof hi);
        where_of(k, at, sizeof at);
        fprintf(f, "  FAIL %s %s: measured %s, bound [%s, %s], %s%s%s%s  (%s)\n", k->metric, at, m,
                isnan(k->lo) ? "-inf" : lo, isnan(k->hi) ? "inf" : hi,
                check_margin(k, mg, sizeof mg), k->detail ? " (" : "", k->detail ? k->detail : "",
                k->detail ? ")" : "", k->reference);
    }
    if (nw) fprintf(f, "warnings:\n");
    const check_t *last = NULL; /* a check that matched many rows warns once */
    for (size_t i = 0; i < c->n && nw; i++) {
        const check_t *k = &c->c[i];
        char at[160];
        if (k->outcome == CK_NA || k->outcome == CK_ERROR || !check_warning(k, buf, sizeof buf))
            continue;
        if (last && !strcmp(last->reference, k->reference) && !strcmp(last->metric, k->metric) &&
            !strcmp(last->where ? last->where : "", k->where ? k->where : ""))
            continue;
        last = k;
        where_of(k, at, sizeof at);
        fprintf(f, "  warning: %s %s (%s, %s): %s\n", k->metric, at, ck_name(k->outcome),
                k->reference, buf);
    }
}
