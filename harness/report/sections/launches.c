/* Report section: every launch (status, how it ended, time, hosts and
 * step, record, log; "(busy)" where the machine was busy during it, with the
 * numbers in a list after the table: harness/run/interference.h), the optional benchmarks skipped, why the run stopped
 * early (a simulated launch marked "(simulated)"), and for each failed launch its error, command and the end of its
 * log (launches interrupted or not run are listed, not repeated there). */
#include "harness/report/runctx.h"

/* the launches measured while the machine was busy, with what was measured:
 * their numbers may be the machine's, not the code's */
static void busy_list(sb_t *o, const runctx_t *c)
{
    const runinfo_t *ri = &c->ri;
    int busy = 0, unknown = 0;
    for (size_t i = 0; i < ri->no; i++) {
        busy += ri->o[i].intf.verdict == INTF_BUSY;
        unknown += ri->o[i].status != LS_NOTRUN && ri->o[i].intf.verdict == INTF_UNKNOWN;
    }
    if (busy) {
        sb_printf(o, "\n**%d of %zu launch%s measured while the machine was busy** (other "
                     "processes took more than half of the cores the launch left free plus a "
                     "quarter core; docs/harness.md \"Interference\"):\n\n",
                  busy, ri->no, ri->no == 1 ? " was" : "es were");
        for (size_t i = 0; i < ri->no; i++)
            if (ri->o[i].intf.verdict == INTF_BUSY)
                sb_printf(o, "- %s: %s\n", ri->o[i].id, intf_line(c->a, &ri->o[i].intf));
    } else if (ri->no > (size_t)unknown) {
        sb_puts(o, "\nNo launch was measured while the machine was busy (docs/harness.md "
                   "\"Interference\").\n");
    }
    if (unknown)
        sb_printf(o, "\nInterference unknown for %d launch%s (results.yaml says why).\n", unknown,
                  unknown == 1 ? "" : "es");
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    const runinfo_t *ri = &c->ri;
    sb_puts(o, "\n## Launches\n\n");
    int ok, failed, intr, notrun;
    outcome_count(ri->o, ri->no, &ok, &failed, &intr, &notrun);
    if (ri->stopped_by)
        sb_printf(o, "The run stopped early: %s. %d launch%s interrupted and %d not run; `exadl run "
                     "--resume %s` runs them.\n\n", ri->stopped_by, intr, intr == 1 ? " was" : "es were",
                  notrun, ri->name);
    if (ri->kept)
        sb_printf(o, "%d launch%s kept from before the run was resumed (run.yaml's history).\n\n",
                  ri->kept, ri->kept == 1 ? " was" : "es were");
    sb_puts(o, "| launch | status | how it ended | time | hosts | step | record | log |\n"
               "|---|---|---|---:|---|---|---|---|\n");
    for (size_t i = 0; i < ri->no; i++) {
        const outcome_t *x = &ri->o[i];
        char t[32];
        fmt_duration(x->elapsed_s, t, sizeof t);
        sb_printf(o, "| %s%s%s | %s | %s | %s | %s | %s | ", x->id,
                  x->status == LS_OK && record_simulated(x->rec) ? " (simulated)" : "",
                  x->intf.verdict == INTF_BUSY ? " (busy)" : "",
                  x->status == LS_OK ? "ok" : lstatus_name(x->status), x->why ? x->why : "-",
                  x->status == LS_NOTRUN ? "-" : t, x->hosts ? x->hosts : "-",
                  x->step ? x->step : "-");
        if (x->rec) sb_printf(o, "[records/%s.yaml](records/%s.yaml)", x->id, x->id);
        else sb_puts(o, "none");
        if (x->status == LS_NOTRUN) sb_puts(o, " | - |\n");
        else sb_printf(o, " | [logs/%s.log](logs/%s.log) |\n", x->id, x->id);
    }
    busy_list(o, c);
    if (ri->nskipped) {
        sb_puts(o, "\nSkipped benchmarks:\n\n");
        for (size_t i = 0; i < ri->nskipped; i++)
            sb_printf(o, "- %s: %s\n", ri->skipped[i].name, ri->skipped[i].reason);
    }
    if (!failed) return;
    sb_puts(o, "\n### Failed launches\n");
    for (size_t i = 0; i < ri->no; i++) {
        const outcome_t *x = &ri->o[i];
        if (x->status == LS_OK || x->status == LS_INTERRUPTED || x->status == LS_NOTRUN) continue;
        sb_printf(o, "\n**%s**: %s%s%s.\n", x->id, lstatus_name(x->status), x->error ? ": " : "",
                  x->error ? x->error : "");
        if (x->command) sb_printf(o, "\nCommand: `%s`\n", x->command);
        if (x->log_tail && *x->log_tail)
            sb_printf(o, "\nEnd of logs/%s.log:\n\n```\n%s\n```\n", x->id, x->log_tail);
    }
}

const section_t section_launches = {.name = "launches", .md = md};
