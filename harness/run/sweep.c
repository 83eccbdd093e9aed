#define _GNU_SOURCE
#include "harness/run/sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"

void sweep_judge(arena_t *a, const launch_t *l, const spawn_result_t *r, outcome_t *o)
{
    o->why = ar_strdup(a, r->why);
    if (r->exited && r->code > 128 && r->code < 128 + 32) /* a shell reports a signal so */
        o->why = ar_printf(a, "%s (128 + %s: the command died of a signal)", r->why,
                           signal_name(r->code - 128));
    o->elapsed_s = r->elapsed_s;
    o->exit_code = r->exited ? r->code : -1;
    o->sig = r->signaled ? r->sig : -1;
    o->rec = NULL;
    char err[1024];
    if (path_is_file(l->record)) {
        record_t *rec = ar_alloc(a, sizeof *rec);
        if (record_load(a, l->record, rec, err, sizeof err) == 0) o->rec = rec;
        else o->error = ar_printf(a, "unreadable record: %s", err);
    }
    if (!r->started) {
        o->status = LS_FAILED;
        o->error = o->why;
    } else if (r->timed_out) {
        o->status = LS_TIMEOUT;
        o->error = o->why;
    } else if (r->interrupted) {
        o->status = LS_INTERRUPTED;
        o->error = o->why;
    } else if (o->rec && !strcmp(o->rec->status, "invalid")) {
        o->status = LS_INVALID;
        o->error = o->rec->error ? o->rec->error : "the record says a validation failed";
    } else if (o->rec && strcmp(o->rec->status, "ok")) {
        o->status = LS_FAILED;
        o->error = ar_printf(a, "record status %s: %s", o->rec->status,
                             o->rec->error ? o->rec->error : "(no error given)");
    } else if (!(r->exited && r->code == 0)) {
        o->status = LS_FAILED;
        if (!o->error) o->error = ar_printf(a, "%s%s", o->why, o->rec ? " (its record says ok)" : "");
    } else if (!o->rec) {
        o->status = LS_FAILED;
        if (!o->error) o->error = ar_printf(a, "exited 0 but wrote no record at %s", l->record);
    } else if (o->rec->ranks != l->scale) {
        /* e.g. N singletons instead of one N-rank job: the launcher is broken */
        o->status = LS_FAILED;
        o->error = ar_printf(a, "the record says %lld ranks but the launch asked for %d (is "
                                "the launcher starting one MPI job?)",
                             o->rec->ranks, l->scale);
    } else {
        o->status = LS_OK;
    }
    if (o->status != LS_OK) o->log_tail = log_tail(a, l->log, 25, 3000);
}

/* time the remaining launches will take, from those done */
static double eta(const outcome_t *o, size_t done, const launchplan_t *p, size_t next,
                  const char *const *skip, size_t nskip)
{
    double left = 0, all = 0;
    size_t nall = 0;
    for (size_t i = 0; i < done; i++)
        if (o[i].status != LS_NOTRUN) all += o[i].elapsed_s, nall++;
    if (!nall) return NAN;
    for (size_t i = next; i < p->n; i++) {
        const launch_t *l = &p->l[i];
        int skipped = 0;
        for (size_t k = 0; k < nskip; k++) skipped |= !strcmp(skip[k], l->b->name);
        if (skipped) continue;
        double same = 0, bench = 0;
        size_t ns = 0, nb = 0;
        for (size_t j = 0; j < done; j++) {
            if (strcmp(o[j].bench, l->b->name) || o[j].status == LS_NOTRUN) continue;
            bench += o[j].elapsed_s, nb++;
            if (o[j].scale == l->scale) same += o[j].elapsed_s, ns++;
        }
        left += ns ? same / (double)ns : nb ? bench / (double)nb : all / (double)nall;
    }
    return left;
}

outcome_t *sweep_run(arena_t *a, const suite_t *s, const launchplan_t *p, const char *const *skip,
                     size_t nskip, FILE *f, size_t *nout, double *launches_s, int *interrupted)
{
    outcome_t *o = ar_alloc(a, (p->n + 1) * sizeof *o);
    size_t n = 0, total = 0;
    for (size_t i = 0; i < p->n; i++) {
        int sk = 0;
        for (size_t k = 0; k < nskip; k++) sk |= !strcmp(skip[k], p->l[i].b->name);
        total += !sk;
    }
    double t0 = timer_now_s();
    *launches_s = 0;
    *interrupted = 0;
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        const launch_t *l = &p->l[i];
        int sk = 0;
        for (size_t j = 0; j < nskip; j++) sk |= !strcmp(skip[j], l->b->name);
        if (sk) continue;
        outcome_t *x = &o[n++];
        memset(x, 0, sizeof *x);
        x->bench = l->b->name;
        x->program = l->b->program;
        x->scaling = l->b->scaling;
        x->scale = l->scale, x->rep = l->rep, x->nodes = l->nodes;
        x->id = l->id, x->record_path = l->record, x->log_path = l->log;
        x->command = argv_join(a, l->argv);
        x->exit_code = x->sig = -1;
        if (*interrupted || launch_interrupted()) {
            *interrupted = 1;
            x->status = LS_NOTRUN;
            x->why = "not run: exadl was interrupted";
            x->error = x->why;
            continue;
        }
        k++;
        fprintf(f, "[%zu/%zu] %-14s n=%-4d rep %d/%d  ", k, total, l->b->name, l->scale, l->rep,
                l->b->repetitions);
        fflush(f);
        char *part = ar_printf(a, "%s.part", l->log);
        char *hdr = ar_printf(a, "# exadl launch %s\n# command: %s\n# timeout: %.0f s\n", l->id,
                              x->command, l->b->timeout_s);
        spawn_opts_t so = {.argv = l->argv, .env = l->env, .nenv = l->nenv, .log = part,
                           .header = hdr, .timeout_s = l->b->timeout_s,
                           .grace_s = s->kill_grace_s};
        spawn_result_t r;
        unlink(l->record); /* a stale record must not pass for this launch's */
        spawn_run(&so, &r);
        rename(part, l->log); /* the log appears whole */
        sweep_judge(a, l, &r, x);
        *launches_s += r.elapsed_s;
        if (r.interrupted) *interrupted = 1;
        char el[32], tot[32], left[32];
        fmt_duration(r.elapsed_s, el, sizeof el);
        fmt_duration(timer_now_s() - t0, tot, sizeof tot);
        double e = eta(o, n, p, i + 1, skip, nskip);
        fmt_duration(e, left, sizeof left);
        fprintf(f, "%-7s %9s | elapsed %s, left ~%s%s%s\n", lstatus_name(x->status), el, tot,
                k == total ? "0 s" : left, x->status == LS_OK ? "" : "\n        ",
                x->status == LS_OK ? "" : x->error);
        fflush(f);
    }
    *nout = n;
    return o;
}
