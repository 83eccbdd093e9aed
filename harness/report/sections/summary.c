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
    sb_printf(o, "# ExaDL report: suite %s on %s\n\n", esc_md(c->a, ri->suite),
              esc_md(c->a, ri->machine ? ri->machine : ri->host));
    sb_printf(o, "Run `%s`, started %s, finished %s. ", ri->name, ri->started_utc,
              ri->finished_utc);
    if (ri->interrupted)
        sb_printf(o, "Status: **interrupted** (%s: %d of %zu launches ok, %d failed, %d "
                     "interrupted, %d not run; `exadl run --resume` completes it). ",
                  ri->stopped_by ? ri->stopped_by : "the run stopped early", ok, ri->no, nfail,
                  intr, notrun);
    else if (nfail || f)
        sb_printf(o, "Status: **FAILED** (%d of %zu launch%s failed, %d check%s failed). ", nfail,
                  ri->no, ri->no == 1 ? "" : "es", f, f == 1 ? "" : "s");
    else sb_printf(o, "Status: **ok** (%zu launch%s, %d check%s passed). ", ri->no,
                   ri->no == 1 ? "" : "es", p, p == 1 ? "" : "s");
    sb_printf(o, "\n\nCommand: `%s`\n\n## Summary\n\n", ri->command);
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
