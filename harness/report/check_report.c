/* check_report (check_report.h). */
#define _GNU_SOURCE
#include "harness/report/check_report.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "harness/checks/failures.h"
#include "harness/report/summary.h"

/* text of a file into a Markdown table cell: no pipes, no line breaks */
static void cell(sb_t *b, const char *s)
{
    for (; s && *s; s++) sb_printf(b, "%s", *s == '|' ? "\\|" : *s == '\n' || *s == '\r' ? " " : (char[]){*s, 0});
}

static void at_of(const check_t *k, char *at, size_t len)
{
    const char *sp = k->row ? " " : "", *row = k->row ? k->row : "";
    if (k->bench && k->scale) snprintf(at, len, "%s n=%d%s%s", k->bench, k->scale, sp, row);
    else if (k->bench) snprintf(at, len, "%s%s%s", k->bench, sp, row);
    else snprintf(at, len, "%s", k->where);
}

static void bound_of(const check_t *k, char *buf, size_t len)
{
    char lo[48], hi[48];
    check_value_text(k->lo, k->unit, 0, lo, sizeof lo);
    check_value_text(k->hi, k->unit, 0, hi, sizeof hi);
    snprintf(buf, len, "[%s, %s]", isnan(k->lo) ? "-inf" : lo, isnan(k->hi) ? "inf" : hi);
}

static int same_check(const check_t *x, const check_t *y)
{
    return !strcmp(x->reference, y->reference) && !strcmp(x->metric, y->metric) &&
           !strcmp(x->reference_file ? x->reference_file : "", y->reference_file ? y->reference_file : "") &&
           !strcmp(x->where ? x->where : "", y->where ? y->where : "");
}

int check_report_write(const char *path, const results_t *r, const checks_t *ck,
                       const char *const *files, size_t nfiles, char *err, size_t errlen)
{
    ck_tally_t t = checks_tally(ck);
    const char *verdict = t.ref_errors ? "REFERENCE ERROR" /* the file is wrong, not the machine */
                          : (t.fail || t.described_fail) ? "FAILED" : "PASSED";
    int f = t.fail + t.described_fail;
    sb_t b = {0};
    time_t now = time(NULL);
    struct tm tm;
    char when[32];
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sb_printf(&b, "# Check of run %s: %s\n\n", r->name, verdict);
    sb_printf(&b, "**Verdict: %s** (%s), checked %s by `exadl check` against:", verdict,
              checks_line(ck), when);
    for (size_t i = 0; i < nfiles; i++) sb_printf(&b, " `%s`", files[i]);
    sb_printf(&b, ".  Machine %s, run started %s.  The run's own report.md keeps the verdict "
                  "of the run.\n\n", r->machine, r->started_utc ? r->started_utc : "?");
    char m[112], bd[112], mg[96], at[256], wbuf[256];
    if (t.ref_errors) {
        sb_puts(&b, "## Reference errors\n\nChecks whose `where` selects nothing this run ran: "
                    "the reference file is wrong, not the machine (exit status 2).\n\n"
                    "| metric | where | reference | file | why |\n|---|---|---|---|---|\n");
        for (size_t i = 0; i < ck->n; i++) {
            const check_t *k = &ck->c[i];
            if (k->outcome != CK_ERROR) continue;
            sb_puts(&b, "| "), cell(&b, k->metric), sb_puts(&b, " | "), cell(&b, k->where);
            sb_puts(&b, " | "), cell(&b, k->reference), sb_puts(&b, " | ");
            cell(&b, k->reference_file), sb_puts(&b, " | "), cell(&b, k->detail), sb_puts(&b, " |\n");
        }
        sb_puts(&b, "\n");
    }
    if (f) {
        sb_printf(&b, "## Failed checks\n\n| metric | where | measured | bound | margin | reference | why |\n"
                      "|---|---|---|---|---|---|---|\n");
        for (size_t i = 0; i < ck->n; i++) {
            const check_t *k = &ck->c[i];
            if (k->outcome != CK_FAIL) continue;
            check_value_text(k->measured, k->unit, 0, m, sizeof m);
            bound_of(k, bd, sizeof bd);
            at_of(k, at, sizeof at);
            sb_puts(&b, "| ");
            cell(&b, k->metric), sb_puts(&b, " | "), cell(&b, at), sb_puts(&b, " | ");
            cell(&b, m), sb_puts(&b, " | "), cell(&b, bd), sb_puts(&b, " | ");
            cell(&b, check_margin(k, mg, sizeof mg)), sb_puts(&b, " | "), cell(&b, k->reference);
            sb_puts(&b, " | "), cell(&b, k->detail ? k->detail : ""), sb_puts(&b, " |\n");
        }
        sb_puts(&b, "\n");
    }
    int nw = 0;
    for (size_t i = 0; i < ck->n; i++) {
        const check_t *k = &ck->c[i];
        if (k->outcome == CK_NA || k->outcome == CK_ERROR || !check_warning(k, wbuf, sizeof wbuf))
            continue;
        if (!nw++) sb_puts(&b, "## Warnings\n\n");
        at_of(k, at, sizeof at);
        sb_puts(&b, "- "), cell(&b, k->metric), sb_puts(&b, " "), cell(&b, at);
        sb_printf(&b, " (%s): ", ck_name(k->outcome)), cell(&b, wbuf), sb_puts(&b, "\n");
    }
    if (nw) sb_puts(&b, "\n");
    sb_puts(&b, "## Every check, grouped\n\nOne line per check of a reference file; a check that "
                "matches several rows is one line with its count (its failing rows are listed under Failed "
                "checks).\n\n"
                "| outcome | reference | metric | where | rows | measured | bound |\n"
                "|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < ck->n;) {
        size_t j = i, np = 0, nf = 0, nn = 0;
        double lo = INFINITY, hi = -INFINITY;
        while (j < ck->n && same_check(&ck->c[i], &ck->c[j])) {
            const check_t *k = &ck->c[j++];
            np += k->outcome == CK_PASS, nf += k->outcome == CK_FAIL, nn += k->outcome == CK_NA;
            if (!isnan(k->measured)) lo = fmin(lo, k->measured), hi = fmax(hi, k->measured);
        }
        const check_t *k = &ck->c[i];
        char ml[48], mh[48];
        check_value_text(lo, k->unit, 0, ml, sizeof ml);
        check_value_text(hi, k->unit, 0, mh, sizeof mh);
        if (!isfinite(lo)) snprintf(m, sizeof m, "-");
        else if (lo == hi) snprintf(m, sizeof m, "%s", ml);
        else snprintf(m, sizeof m, "%s .. %s", ml, mh);
        bound_of(k, bd, sizeof bd);
        const char *oc = nf ? "FAIL" : np ? "PASS" : k->outcome == CK_ERROR ? "ERROR" : "N/A";
        sb_printf(&b, "| %s | ", oc), cell(&b, k->reference), sb_puts(&b, " | "), cell(&b, k->metric);
        sb_puts(&b, " | "), cell(&b, k->where), sb_printf(&b, " | %zu", j - i);
        if (nf) sb_printf(&b, " (%zu failed)", nf);
        sb_puts(&b, " | "), cell(&b, m), sb_puts(&b, " | "), cell(&b, bd), sb_puts(&b, " |\n");
        (void)nn;
        i = j;
    }
    int rc = fileio_write_atomic(path, sb_str(&b), b.len, err, errlen);
    sb_free(&b);
    return rc;
}
