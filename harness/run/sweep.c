#define _GNU_SOURCE
#include "harness/run/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"
#include "harness/blocks/recread.h"
#include "harness/run/runstate.h"
#include "harness/run/slurm.h"
#include "harness/run/sweep_impl.h"
#include "harness/util/safefile.h"

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

/* the log's text for the launcher's lines: its head (srun names the step
 * there) and its tail (the ranks' fates), at most 96 KiB in all */
static char *log_text(arena_t *a, const char *path)
{
    char err[256];
    size_t len;
    char *t = fileio_read(path, &len, (size_t)64 << 20, err, sizeof err);
    if (!t) return NULL;
    char *r = len <= 98304 ? ar_strndup(a, t, len)
                           : ar_printf(a, "%.32768s\n%s", t, t + len - 65536);
    free(t);
    return r;
}

/* Slurm: has the allocation ended?  Its state is asked only here, after a
 * launch failed, and when the job's end time has passed. */
static int allocation_ended(arena_t *a, const sweep_opts_t *opt, double *end, const char **why)
{
    if (!opt->slurm_job) return 0;
    int e = slurm_job_ended(a, opt->slurm_job, why);
    if (e == 0) *end = NAN; /* the limit was raised: ask again only after a failure */
    return e == 1;
}

static const char *stop_reason(arena_t *a)
{
    int sig = launch_stop_signal();
    if (launch_interrupted()) return ar_printf(a, "exadl got %s", signal_name(sig));
    return ar_printf(a, "exadl got %s (finish the running launch, start no other)",
                     signal_name(sig));
}

/* the hosts rank 0 recorded (system.hosts), comma-separated: a launch's hosts
 * where the launcher's log names none (mpirun); NULL without a record */
static const char *record_hosts(arena_t *a, const record_t *rec)
{
    const ytnode *h = rec ? yt_get(rec->system, "hosts") : NULL;
    if (!h || h->kind != YT_SEQ || !h->n) return NULL;
    sb_t b = {0};
    for (size_t k = 0; k < h->n; k++) {
        const char *n = h->items[k]->kind == YT_SCALAR ? h->items[k]->str : "";
        /* the record is untrusted: host names only (they reach the report's tables) */
        if (*n && strlen(n) < 256 && n[strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                  "0123456789.-_")] == 0)
            sb_printf(&b, "%s%s", b.len ? "," : "", n);
    }
    char *r = b.len ? ar_strdup(a, sb_str(&b)) : NULL;
    sb_free(&b);
    return r;
}

/* the launch's own folder, RUN/launches/<id>/ ({launch_dir}), made before
 * it starts; one left by an earlier attempt (a resume) is used again, a link
 * or a file at either name is refused (safefile.h) */
static int make_launch_dir(arena_t *a, const sweep_opts_t *opt, const launch_t *l, char *err,
                           size_t errlen)
{
    const char *parent = opt->rundir ? path_join(a, opt->rundir, "launches") : NULL;
    if (parent && sf_mkdir(parent, err, errlen)) return -1;
    return sf_mkdir(l->dir, err, errlen);
}

static void run_one(arena_t *a, const sweep_opts_t *opt, const launch_t *l, outcome_t *x,
                    sweep_result_t *res, double *end)
{
    const suite_t *s = opt->s;
    char *part = ar_printf(a, "%s.part", l->log);
    char *hdr = ar_printf(a, "# exadl launch %s\n# command: %s\n# timeout: %.0f s\n", l->id,
                          x->command, l->b->timeout_s);
    spawn_opts_t so = {.argv = l->argv, .env = l->env, .nenv = l->nenv, .log = part,
                       .header = hdr, .timeout_s = l->b->timeout_s, .grace_s = s->kill_grace_s};
    spawn_result_t r;
    unlink(l->record); /* a stale record must not pass for this launch's */
    intf_sample_t before, after;
    int threads = launchplan_threads(l->b); /* 0: not set, one per rank */
    char derr[sizeof r.why - 32];
    intf_sample(&before);
    if (l->dir && make_launch_dir(a, opt, l, derr, sizeof derr)) {
        memset(&r, 0, sizeof r); /* not started: failed with the reason */
        snprintf(r.why, sizeof r.why, "its folder {launch_dir}: %s", derr);
    } else {
        spawn_run(&so, &r);
    }
    intf_sample(&after);
    if (s->launcher->job_steps) /* the ranks ran on compute nodes this host's counters miss */
        intf_unknown(&x->intf, "the launch ran as job steps on compute nodes; this host's "
                               "counters do not see them");
    else intf_judge(&before, &after, l->scale * (threads > 1 ? threads : 1), &x->intf);
    rename(part, l->log); /* the log appears whole */
    sweep_judge(a, l, &r, x);
    /* SimGrid's seconds are computed, not measured: the host's load does not
     * change them (docs/simulate.md), so no verdict */
    if (x->rec && record_simulated(x->rec))
        intf_unknown(&x->intf, "simulated: SimGrid's time does not depend on how busy this host was");
    res->launches_s += r.elapsed_s;
    res->ran++;
    launch_facts_t f;
    char *text = log_text(a, l->log);
    launcher_read_log(a, s->launcher, text, &f);
    x->step = f.step, x->hosts = f.hosts ? f.hosts : record_hosts(a, x->rec), x->affinity = f.bindings;
    if (threads > 1 && f.min_cores_bound > 0 && f.min_cores_bound < threads)
        fprintf(stderr, "exadl run: warning: %s: %d threads per rank, but a rank was bound to %d "
                        "core(s) (%s): the threads share them (launcher_args: --bind-to none, or "
                        "fewer ranks per node)\n", l->id, threads, f.min_cores_bound, f.bindings);
    if (x->status == LS_FAILED && f.cause && !(x->rec && strcmp(x->rec->status, "ok"))) {
        /* the ranks' fate, not the launcher's exit code (srun's 143 for a rank SIGKILLed) */
        int said = x->error && x->why && !strncmp(x->error, x->why, strlen(x->why));
        x->why = ar_printf(a, "%s (%s)", f.cause, r.why);
        if (said || !x->error) x->error = x->why;
    }
    /* a step exadl stopped whose srun did not end it: Slurm ends it */
    if ((r.interrupted || r.timed_out) && f.step && s->launcher->job_steps) slurm_step_cancel(a, f.step);
    const char *why = NULL;
    /* a step Slurm refused because the job is over: the job's state may still
     * read RUNNING (its end time passed before Slurm's next check) */
    int over = x->status != LS_OK && !r.interrupted && opt->slurm_job &&
               (allocation_ended(a, opt, end, &why) || f.allocation_over);
    if (over && !why)
        why = ar_printf(a, "Slurm job %s has ended (%s)", opt->slurm_job, f.not_started_why);
    if (over) {
        x->status = f.not_started ? LS_NOTRUN : LS_INTERRUPTED;
        x->why = f.not_started ? ar_printf(a, "not run: %s", f.not_started_why)
                               : ar_printf(a, "stopped: %s", why);
        x->error = why;
        res->interrupted = 1;
        res->stopped_by = why;
    }
    if (r.interrupted) {
        res->interrupted = 1;
        res->stopped_by = stop_reason(a);
    }
    char err[512];
    if (opt->rundir && journal_append(opt->rundir, x, err, sizeof err) && opt->progress)
        fprintf(opt->progress, "exadl: warning: %s\n", err);
}

void sweep_run(arena_t *a, const sweep_opts_t *opt, sweep_result_t *res)
{
    const launchplan_t *p = opt->p;
    memset(res, 0, sizeof *res);
    outcome_t *o = ar_alloc(a, (p->n + 1) * sizeof *o);
    outcome_t *ko = ar_alloc(a, (p->n + 1) * sizeof *ko); /* decided before anything runs */
    int *d = ar_alloc(a, (p->n + 1) * sizeof *d);
    size_t n = 0, total = 0;
    for (size_t i = 0; i < p->n; i++) {
        d[i] = sweep_decide(a, opt, i, &ko[i]);
        total += d[i] == SW_RUN;
    }
    if (opt->rundir && !opt->run_none) sweep_rebuild_journal(a, opt, d, ko, p->n);
    double t0 = timer_now_s(), end = opt->slurm_end_epoch;
    size_t k = 0;
    int shown_tail = 0; /* the first failed launch's log was printed */
    FILE *f = opt->progress;
    for (size_t i = 0; i < p->n; i++) {
        const launch_t *l = &p->l[i];
        if (d[i] == SW_SKIP) continue;
        outcome_t *x = &o[n++];
        *x = ko[i];
        if (d[i] == SW_JOURNAL || d[i] == SW_RECORD) {
            res->kept++;
            continue;
        }
        if (opt->run_none) continue; /* judged by sweep_decide() */
        if (!res->interrupted && (launch_interrupted() || launch_draining()))
            res->interrupted = 1, res->stopped_by = stop_reason(a);
        const char *why;
        if (!res->interrupted && isfinite(end) && (double)time(NULL) >= end &&
            allocation_ended(a, opt, &end, &why))
            res->interrupted = 1, res->stopped_by = why;
        if (res->interrupted) {
            x->status = LS_NOTRUN;
            x->why = x->error = ar_printf(a, "not run: %s", res->stopped_by);
            continue;
        }
        struct stat st;
        char aside[4096], err[1024];
        if (lstat(l->record, &st) == 0) { /* partial or failed: kept, never deleted */
            if (sf_move_aside(l->record, "partial", aside, sizeof aside, err, sizeof err))
                fprintf(stderr, "exadl run: warning: %s\n", err);
            else if (f)
                fprintf(f, "exadl: %s: its record did not read as a finished launch; kept as %s\n",
                        l->id, path_basename(aside));
        }
        k++;
        if (f) {
            fprintf(f, "[%zu/%zu] %-14s n=%-4d rep %d/%d  ", k, total, l->b->name, l->scale, l->rep,
                    l->b->repetitions);
            fflush(f);
        }
        run_one(a, opt, l, x, res, &end);
        if (!f) continue;
        char el[32], tot[32], left[32];
        fmt_duration(x->elapsed_s, el, sizeof el);
        fmt_duration(timer_now_s() - t0, tot, sizeof tot);
        double e = eta(o, n, p, i + 1, opt->skip, opt->nskip);
        fmt_duration(e, left, sizeof left);
        fprintf(f, "%-7s %9s | elapsed %s, left ~%s%s%s\n", lstatus_name(x->status), el, tot,
                k == total ? "0 s" : left, x->status == LS_OK ? "" : "\n        ",
                x->status == LS_OK ? "" : x->error ? x->error : x->why);
        if (x->intf.verdict == INTF_BUSY) /* at once: the number may be the machine's, not the code's */
            fprintf(f, "exadl: warning: launch %zu/%zu %s scale %d rep %d: measured while the "
                       "machine was busy (%s)\n", k, total, l->b->name, l->scale, l->rep,
                    intf_line(a, &x->intf));
        if (x->status != LS_OK && x->log_tail && !shown_tail++) {
            /* the first failure's own words (mpirun's "running as root", a missing
             * library): the report has every log, the terminal this one */
            const char *t = x->log_tail, *q = t + strlen(t);
            if (q > t && q[-1] == '\n') q--;
            for (int lines = 0; q > t; q--) /* the start of the last 12 lines */
                if (q[-1] == '\n' && ++lines == 12) break;
            t = q;
            fprintf(f, "        the first failed launch's log (%s) ends:\n", x->log_path ? x->log_path : "?");
            while (*t) {
                size_t len = strcspn(t, "\n");
                fprintf(f, "          | %.*s\n", (int)(len > 200 ? 200 : len), t);
                t += len + (t[len] == '\n');
            }
        }
        fflush(f);
    }
    res->o = o;
    res->n = n;
}
