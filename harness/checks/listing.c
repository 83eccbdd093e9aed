/* checks_print (refcheck.h): every check on the terminal, one line each, a
 * check that matched many rows with one outcome (wrong: 0 over every
 * collective size) as one line with its count and range; failing rows one
 * by one, each with the keys that tell it apart. */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/checks/refcheck.h"

static int same(const char *x, const char *y) { return !strcmp(x ? x : "", y ? y : ""); }

/* rows of the same check with the same outcome (not failed: those are listed each) */
static int one_line(const check_t *x, const check_t *y)
{
    return x->outcome == y->outcome && x->outcome != CK_FAIL && same(x->reference, y->reference) &&
           same(x->reference_file, y->reference_file) && same(x->metric, y->metric) &&
           same(x->where, y->where) && same(x->bench, y->bench) && same(x->source, y->source);
}

/* where check k (rows i..j of c) was measured */
static void at_of(const checks_t *c, size_t i, size_t j, char *at, size_t len)
{
    const check_t *k = &c->c[i];
    if (!k->bench) {
        snprintf(at, len, "%s", k->where);
        return;
    }
    int lo = k->scale, hi = k->scale;
    for (size_t x = i; x < j; x++) lo = c->c[x].scale < lo ? c->c[x].scale : lo,
                                   hi = c->c[x].scale > hi ? c->c[x].scale : hi;
    if (j - i > 1 && lo != hi) snprintf(at, len, "%s n=%d..%d (%zu rows)", k->bench, lo, hi, j - i);
    else if (j - i > 1) snprintf(at, len, "%s n=%d (%zu rows)", k->bench, lo, j - i);
    else if (k->scale) snprintf(at, len, "%s n=%d%s%s", k->bench, k->scale, k->row ? " " : "",
                                k->row ? k->row : "");
    else snprintf(at, len, "%s%s%s", k->bench, k->row ? " " : "", k->row ? k->row : "");
}

void checks_print(FILE *f, const checks_t *c)
{
    const check_t *ref = NULL;
    for (size_t i = 0, j; i < c->n; i = j) {
        const check_t *k = &c->c[i];
        for (j = i + 1; j < c->n && one_line(k, &c->c[j]);) j++;
        int desc = check_described(k);
        if (!ref || !same(ref->reference, k->reference) ||
            !same(ref->reference_file, k->reference_file)) {
            ref = k;
            fprintf(f, "reference %s (%s)\n", k->reference, k->kind);
        }
        if (desc && (i == 0 || !check_described(&c->c[i - 1]) ||
                     !same(c->c[i - 1].reference, k->reference)))
            fprintf(f, "  exact counts of a configuration no launch ran (%s):\n", k->source);
        char m[112], e[48], lo[48], hi[48], at[256];
        int ex = !strcmp(k->kind, "exact") || k->lo == k->hi; /* an exact match: every digit */
        double mlo = INFINITY, mhi = -INFINITY;
        for (size_t x = i; x < j; x++)
            if (!isnan(c->c[x].measured))
                mlo = fmin(mlo, c->c[x].measured), mhi = fmax(mhi, c->c[x].measured);
        check_value_text(isfinite(mlo) ? mlo : NAN, k->unit, ex, m, 48);
        if (isfinite(mlo) && mhi > mlo) {
            size_t l = strlen(m);
            snprintf(m + l, sizeof m - l, " .. ");
            check_value_text(mhi, k->unit, ex, m + l + 4, sizeof m - l - 4);
        }
        check_value_text(k->expected, k->unit, ex, e, sizeof e);
        check_value_text(k->lo, k->unit, ex, lo, sizeof lo);
        check_value_text(k->hi, k->unit, ex, hi, sizeof hi);
        at_of(c, i, j, at, sizeof at);
        fprintf(f, "  %-5s %-34s %-26s measured %-14s expected %-14s bound [%s, %s]%s%s%s\n",
                ck_name(k->outcome), k->metric, at, m, e, isnan(k->lo) ? "-inf" : lo,
                isnan(k->hi) ? "inf" : hi, k->detail ? "  (" : "", k->detail ? k->detail : "",
                k->detail ? ")" : "");
    }
}
