/* Report section: the title, the run's status and command, and the summary
 * table (report/summary.c, the one `exadl run` ends with). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "harness/checks/failures.h"
#include "harness/report/runctx.h"
#include "harness/report/summary.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    const runinfo_t *ri = &c->ri;
    int p, f, na, ok, nfail, intr, notrun;
    outcome_count(ri->o, ri->no, &ok, &nfail, &intr, &notrun);
    checks_count(&c->ck, &p, &f, &na);
    sb_printf(o, "# ExaDL report: suite %s on %s\n\n", ri->suite, ri->machine ? ri->machine : ri->host);
    sb_printf(o, "Run `%s`, started %s, finished %s. ", ri->name, ri->started_utc,
              ri->finished_utc);
    if (ri->interrupted)
        sb_printf(o, "Status: **interrupted** (%s: %d of %zu launches ok, %d failed, %d "
                     "interrupted, %d not run; `exadl run --resume` completes it). ",
                  ri->stopped_by ? ri->stopped_by : "the run stopped early", ok, ri->no, nfail,
                  intr, notrun);
    else if (nfail || f)
        sb_printf(o, "Status: **FAILED** (%d of %zu launches failed, %d checks failed). ", nfail,
                  ri->no, f);
    else sb_printf(o, "Status: **ok** (%zu launch%s, %d check%s passed). ", ri->no,
                   ri->no == 1 ? "" : "es", p, p == 1 ? "" : "s");
    sb_printf(o, "\n\nCommand: `%s`\n\n## Summary\n\n", ri->command);
    char *buf = NULL;
    size_t blen = 0;
    FILE *mem = open_memstream(&buf, &blen);
    if (mem) {
        summary_print(mem, &c->t, &c->ck, 1);
        fclose(mem);
        sb_putn(o, buf, blen);
        free(buf);
    }
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
