/* Report section: every reference check (PASS, FAIL or N/A) with the
 * measured and expected values, the bound and where it was measured;
 * published numbers side by side. */
#include <math.h>
#include <string.h>

#include "harness/report/runctx.h"
#include "harness/report/summary.h"

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
                 "measured the same thing (otherwise N/A).\n\n"
                 "| outcome | reference (kind) | metric | measured on | measured | expected | "
                 "bound | note |\n|---|---|---|---|---:|---:|---|---|\n", checks_line(ck));
    for (size_t i = 0; i < ck->n; i++) {
        const check_t *c = &ck->c[i];
        const char *u = c->unit ? c->unit : "";
        int ex = !strcmp(c->kind, "exact") || c->lo == c->hi;
        char t[4][64];
        double v[4] = {c->measured, c->expected, c->lo, c->hi};
        for (int k = 0; k < 4; k++) check_value_text(v[k], u, ex, t[k], sizeof t[k]);
        sb_printf(o, "| **%s** | %s (%s) | %s | ", ck_name(c->outcome), c->reference, c->kind,
                  c->metric);
        if (c->bench && c->scale) sb_printf(o, "%s n=%d | ", c->bench, c->scale);
        else if (c->bench) sb_printf(o, "%s | ", c->bench);
        else sb_printf(o, "%s | ", c->where);
        sb_printf(o, "%s | %s | [%s, %s", t[0], t[1], isnan(c->lo) ? "-inf" : t[2],
                  isnan(c->hi) ? "inf" : t[3]);
        sb_printf(o, "] | %s%s%s |\n", c->detail ? c->detail : "",
                  c->source && strcmp(c->source, "run") && strcmp(c->source, "none") ? " from " : "",
                  c->source && strcmp(c->source, "run") && strcmp(c->source, "none") ? c->source : "");
    }
}

const section_t section_checks = {.name = "checks", .md = md};
