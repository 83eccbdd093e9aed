/* sweep_resume: what becomes of each launch of a plan before the sweep runs
 * any (sweep_impl.h): the earlier run's journal and the records decide what
 * is kept; sweep_count (sweep.h) counts it. */
#define _GNU_SOURCE
#include "harness/run/sweep_impl.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/proc/argv.h"
#include "harness/run/runstate.h"
#include "harness/util/util.h"

static void fill_from_plan(arena_t *a, const launch_t *l, outcome_t *x)
{
    x->bench = l->b->name;
    x->program = l->b->program;
    x->scaling = l->b->scaling;
    x->scale = l->scale, x->rep = l->rep, x->nodes = l->nodes;
    x->id = l->id, x->record_path = l->record, x->log_path = l->log;
    x->command = argv_join(a, l->argv);
}

/* an outcome of an earlier run (journal), its record read again */
static void keep_earlier(arena_t *a, const launch_t *l, const outcome_t *e, outcome_t *x)
{
    *x = *e;
    fill_from_plan(a, l, x);
    x->rec = NULL;
    char err[1024];
    if (path_is_file(l->record)) {
        record_t *rec = ar_alloc(a, sizeof *rec);
        if (record_load(a, l->record, rec, err, sizeof err) == 0) x->rec = rec;
        else if (x->status == LS_OK) x->status = LS_FAILED, x->error = ar_printf(a, "unreadable record: %s", err);
    } else if (x->status == LS_OK) {
        x->status = LS_FAILED;
        x->error = ar_printf(a, "its record %s is gone", l->record);
    }
    if (x->status != LS_OK) x->log_tail = log_tail(a, l->log, 25, 3000);
}

/* analyze: a launch the journal does not know */
static void judge_unrecorded(arena_t *a, const launch_t *l, outcome_t *x)
{
    char *part = ar_printf(a, "%s.part", l->log);
    if (path_is_file(l->record)) {
        spawn_result_t r = {.started = 1, .exited = 1};
        snprintf(r.why, sizeof r.why, "no exit status recorded (exadl stopped before it could); "
                                      "judged by its record");
        sweep_judge(a, l, &r, x);
        x->exit_code = -1;
    } else if (path_is_file(part) || path_is_file(l->log)) {
        x->status = LS_INTERRUPTED;
        x->why = "the run stopped during this launch (exadl was stopped before recording how it "
                 "ended)";
        x->error = x->why;
        x->log_tail = log_tail(a, path_is_file(part) ? part : l->log, 25, 3000);
    } else {
        x->status = LS_NOTRUN;
        x->why = x->error = "not run";
    }
}

/* resume and analyze: a launch without a final journal line whose record is
 * whole and says ok (the journal may be empty, cut or lost; the record is
 * the launch's own word): 1 with x judged by it */
static int record_finished(arena_t *a, const launch_t *l, outcome_t *x)
{
    struct stat st;
    if (lstat(l->record, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    outcome_t y = *x;
    spawn_result_t r = {.started = 1, .exited = 1};
    snprintf(r.why, sizeof r.why, "finished earlier; no final journal line: judged by its record");
    sweep_judge(a, l, &r, &y);
    if (y.status != LS_OK) return 0;
    y.exit_code = -1;
    *x = y;
    return 1;
}

int sweep_decide(arena_t *a, const sweep_opts_t *opt, size_t i, outcome_t *x)
{
    const launch_t *l = &opt->p->l[i];
    for (size_t k = 0; k < opt->nskip; k++)
        if (!strcmp(opt->skip[k], l->b->name)) return SW_SKIP;
    const outcome_t *e = NULL;
    for (size_t k = 0; k < opt->nearlier; k++)
        if (!strcmp(opt->earlier[k].id, l->id)) e = &opt->earlier[k];
    memset(x, 0, sizeof *x);
    fill_from_plan(a, l, x);
    x->exit_code = x->sig = -1;
    /* the journal's final word is kept, except an ok whose record is no
     * longer whole: resume runs that launch again (its record moved aside) */
    if (e && lstatus_final(e->status) &&
        (opt->run_none || !opt->resuming || e->status != LS_OK ||
         record_finished(a, l, &(outcome_t){0}))) {
        keep_earlier(a, l, e, x);
        return SW_JOURNAL;
    }
    if ((opt->run_none || opt->resuming) && record_finished(a, l, x))
        return SW_RECORD;
    if (opt->run_none) {
        if (e) keep_earlier(a, l, e, x);
        else judge_unrecorded(a, l, x);
    }
    return SW_RUN;
}

void sweep_count(arena_t *a, const sweep_opts_t *opt, size_t *kept, size_t *to_run)
{
    *kept = *to_run = 0;
    outcome_t x;
    for (size_t i = 0; i < opt->p->n; i++) {
        int d = sweep_decide(a, opt, i, &x);
        *kept += d == SW_JOURNAL || d == SW_RECORD;
        *to_run += d == SW_RUN;
    }
}

/* resume: the journal is rewritten from the launches kept when it did not
 * read or lacks a finished launch; the old one is moved aside, not lost */
void sweep_rebuild_journal(arena_t *a, const sweep_opts_t *opt, const int *d,
                           const outcome_t *ko, size_t n)
{
    size_t nrec = 0, nkept = 0;
    for (size_t i = 0; i < n; i++) {
        nrec += d[i] == SW_RECORD;
        nkept += d[i] == SW_JOURNAL || d[i] == SW_RECORD;
    }
    if (!opt->journal_damage && !nrec) return;
    outcome_t *k = ar_alloc(a, (n + 1) * sizeof *k);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] == SW_JOURNAL || d[i] == SW_RECORD) k[m++] = ko[i];
    char err[1024], aside[4096];
    const char *why = opt->journal_damage
                          ? opt->journal_damage
                          : ar_printf(a, "it lacks %zu finished launch(es) with whole records", nrec);
    if (journal_rebuild(opt->rundir, k, m, aside, sizeof aside, err, sizeof err))
        fprintf(stderr, "exadl run: warning: %s/journal.yaml: %s, and it cannot be rebuilt: %s\n",
                opt->rundir, why, err);
    else
        fprintf(stderr, "exadl run: warning: %s/journal.yaml: %s: rebuilt from the records (%zu "
                        "launch(es) finished earlier)%s%s\n", opt->rundir, why, nkept,
                aside[0] ? "; the old one kept as " : "", aside[0] ? path_basename(aside) : "");
}
