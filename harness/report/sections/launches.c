/* Report section: every launch (status, how it ended, time, record, log),
 * the optional benchmarks skipped, and for each failed launch its error,
 * command and the end of its log. */
#include "harness/report/runctx.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    const runinfo_t *ri = &c->ri;
    sb_puts(o, "\n## Launches\n\n| launch | status | how it ended | time | record | log |\n"
               "|---|---|---|---:|---|---|\n");
    int failed = 0;
    for (size_t i = 0; i < ri->no; i++) {
        const outcome_t *x = &ri->o[i];
        char t[32];
        fmt_duration(x->elapsed_s, t, sizeof t);
        sb_printf(o, "| %s | %s | %s | %s | ", x->id,
                  x->status == LS_OK ? "ok" : lstatus_name(x->status), x->why ? x->why : "-",
                  x->status == LS_NOTRUN ? "-" : t);
        if (x->rec) sb_printf(o, "[records/%s.yaml](records/%s.yaml)", x->id, x->id);
        else sb_puts(o, "none");
        sb_printf(o, " | [logs/%s.log](logs/%s.log) |\n", x->id, x->id);
        failed += x->status != LS_OK;
    }
    if (ri->nskipped) {
        sb_puts(o, "\nSkipped benchmarks:\n\n");
        for (size_t i = 0; i < ri->nskipped; i++)
            sb_printf(o, "- %s: %s\n", ri->skipped[i].name, ri->skipped[i].reason);
    }
    if (!failed) return;
    sb_puts(o, "\n### Failed launches\n");
    for (size_t i = 0; i < ri->no; i++) {
        const outcome_t *x = &ri->o[i];
        if (x->status == LS_OK) continue;
        sb_printf(o, "\n**%s**: %s%s%s.\n", x->id, lstatus_name(x->status), x->error ? ": " : "",
                  x->error ? x->error : "");
        if (x->command) sb_printf(o, "\nCommand: `%s`\n", x->command);
        if (x->log_tail && *x->log_tail)
            sb_printf(o, "\nEnd of logs/%s.log:\n\n```\n%s\n```\n", x->id, x->log_tail);
    }
}

const section_t section_launches = {.name = "launches", .md = md};
