/* Report section: the title, the run's status and command, and the summary
 * table (report/summary.c, the one `exadl run` ends with). */
#define _GNU_SOURCE
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/checks/failures.h"
#include "harness/report/runctx.h"
#include "harness/report/summary.h"
#include "harness/util/esc.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    const runinfo_t *ri = &c->ri;
    int p, f, na, ok, nfail, intr, notrun;
    outcome_count(ri->o, ri->no, &ok, &nfail, &intr, &notrun);
    checks_count(&c->ck, &p, &f, &na);
    ck_tally_t tl = checks_tally(&c->ck);
    f = tl.fail + tl.described_fail; /* failed checks; reference errors are said apart */
    sb_printf(o, "# ExaDL report: suite %s on %s\n\n", esc_md(c->a, ri->suite),
              esc_md(c->a, ri->machine ? ri->machine : ri->host));
    sb_printf(o, "Run `%s`, started %s, finished %s. ", ri->name, ri->started_utc,
              ri->finished_utc);
    if (ri->interrupted)
        sb_printf(o, "Status: **interrupted** (%s: %d of %zu launches ok, %d failed, %d "
                     "interrupted, %d not run; `exadl run --resume` completes it). ",
                  ri->stopped_by ? ri->stopped_by : "the run stopped early", ok, ri->no, nfail,
                  intr, notrun);
    else if (tl.ref_errors) /* the reference file is wrong, not the machine (exit 2) */
        sb_printf(o, "Status: **REFERENCE ERROR** (%d check%s of the reference files select%s "
                     "nothing this run ran; %d of %zu launch%s failed, %d check%s failed). ",
                  tl.ref_errors, tl.ref_errors == 1 ? "" : "s", tl.ref_errors == 1 ? "s" : "", nfail, ri->no,
                  ri->no == 1 ? "" : "es", f, f == 1 ? "" : "s");
    else if (nfail || f)
        sb_printf(o, "Status: **FAILED** (%d of %zu launch%s failed, %d check%s failed). ", nfail,
                  ri->no, ri->no == 1 ? "" : "es", f, f == 1 ? "" : "s");
    else sb_printf(o, "Status: **ok** (%zu launch%s; %s). ", ri->no, ri->no == 1 ? "" : "es",
                   checks_line(&c->ck));
    sb_printf(o, "\n\nCommand: `%s`\n\n", ri->command);
    /* interference on the first page: a number measured beside other jobs
     * may be slower than the machine can do (docs/harness.md "Interference") */
    size_t busy = 0, judged = 0;
    for (size_t i = 0; i < ri->no; i++) {
        if (ri->o[i].intf.verdict == INTF_BUSY) busy++;
        if (ri->o[i].intf.verdict != INTF_UNKNOWN) judged++;
    }
    if (busy)
        sb_printf(o, "**Interference:** %zu of %zu launch%s measured while the machine was busy "
                     "(other processes or steal time; section Launches marks them): their numbers "
                     "may be lower than the machine can give, and comparisons say so.\n\n",
                  busy, judged, judged == 1 ? " was" : "es were");
    sb_puts(o, "## Summary\n\n");
    /* the headline: each training workload's throughput at its largest scale,
     * with its 95% CI */
    int head = 0;
    for (size_t i = 0; i < c->t.n; i++) {
        const metric_t *m = &c->t.m[i];
        if (strcmp(m->metric, "throughput_samples_per_s")) continue;
        int larger = 0;
        for (size_t j = 0; j < c->t.n && !larger; j++)
            larger = !strcmp(c->t.m[j].metric, m->metric) && !strcmp(c->t.m[j].bench, m->bench) &&
                     c->t.m[j].scale > m->scale;
        if (larger) continue;
        sb_printf(o, "%s%s at %d rank%s%s: %.4g samples/s", head++ ? "; " : "Headline: ", m->bench,
                  m->scale, m->scale == 1 ? "" : "s",
                  strstr(m->bench, " (simulated)") ? "" : report_sim_mark(c, m->bench, m->scale),
                  m->value);
        if (isfinite(m->lo)) sb_printf(o, " [95%% CI %.4g, %.4g]", m->lo, m->hi);
    }
    if (head) sb_puts(o, ".\n\n");
    char *buf = NULL;
    size_t blen = 0;
    FILE *mem = open_memstream(&buf, &blen);
    if (mem) {
        summary_print(mem, &c->t, &c->ck, 1);
        fclose(mem);
        sb_putn(o, buf, blen);
        free(buf);
    }
    /* simulated points said at once (sections/simulation.c) */
    int sim = 0;
    for (size_t i = 0; i < ri->no; i++) {
        const outcome_t *x = &ri->o[i];
        if (x->status != LS_OK || !record_simulated(x->rec)) continue;
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = ri->o[j].status == LS_OK && record_simulated(ri->o[j].rec) &&
                  !strcmp(ri->o[j].bench, x->bench) && ri->o[j].scale == x->scale;
        if (dup) continue;
        sb_printf(o, "%s%s n=%d", sim++ ? ", " : "\n**Simulated, not measured** (SimGrid's "
                  "seconds on a described machine; section Simulation): ", sanitize_name(c->a, x->bench),
                  x->scale);
    }
    if (sim) sb_puts(o, ".\n");
    /* the failed checks with value, bound and margin, and the warnings, on
     * the first page: the full table is further down */
    buf = NULL, blen = 0;
    mem = open_memstream(&buf, &blen);
    if (mem) {
        checks_print_failures(mem, &c->ck);
        fclose(mem);
        if (blen) sb_puts(o, "\n```\n"), sb_putn(o, buf, blen), sb_puts(o, "```\n");
        free(buf);
    }
}

const section_t section_summary = {.name = "summary", .md = md};
