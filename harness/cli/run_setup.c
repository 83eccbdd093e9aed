/* The stages of `exadl run` that set a run up (run_stages.h): the suite, the
 * preflight, the run folder; for a new run, a resumed one (--resume DIR) and
 * `exadl analyze DIR`. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"
#include "harness/cli/cmds.h"
#include "benchmarks/common/record/read.h"
#include "harness/cli/run_stages.h"
#include "harness/proc/launch.h"
#include "harness/run/launchplan.h"
#include "harness/run/preflight.h"
#include "harness/run/rundir.h"
#include "harness/util/safefile.h"

int run_stop(run_t *r, int status)
{
    r->status = status;
    return 1;
}

static const char *cmd_name(const run_t *r) { return r->analyze ? "analyze" : "run"; }

static int fail(run_t *r, const char *msg)
{
    fprintf(stderr, "exadl %s: error: %s\n", cmd_name(r), msg);
    return run_stop(r, 2);
}

static int load_references(run_t *r, const char *const *paths, size_t n)
{
    runctx_t *c = &r->c;
    char err[1024];
    c->refs = ar_alloc(c->a, (n + 1) * sizeof *c->refs);
    for (size_t i = 0; i < n; i++) {
        if (reference_load(c->a, paths[i], &c->refs[c->nrefs], err, sizeof err)) return fail(r, err);
        c->nrefs++;
    }
    return 0;
}

/* a run folder's suite, read with the settings it was planned with */
static int suite_of_folder(run_t *r)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    char err[1024];
    const char *dir = path_abs(a, r->resume);
    if (!path_is_dir(dir)) return fail(r, ar_printf(a, "%s is not a folder", r->resume));
    /* a folder from anywhere: nothing is written through a link in it, and
     * one exadl at a time writes it (safefile.h) */
    if (sf_check_rundir(dir, err, sizeof err) ||
        sf_lock_dir(dir, ar_printf(a, "exadl %s %s", r->analyze ? "analyze" : "run --resume",
                                   r->resume), err, sizeof err))
        return fail(r, err);
    const char *suite = path_join(a, dir, "suite.yaml");
    if (!path_is_file(suite))
        return fail(r, ar_printf(a, "%s: no suite.yaml (not a run folder of exadl run)", dir));
    if (runstate_read(a, dir, &r->st, err, sizeof err)) {
        if (!r->analyze || path_is_file(path_join(a, dir, "run.yaml")))
            return fail(r, ar_printf(a, "%s%s", err, r->analyze ? "" :
                                     " (a run folder without a readable run.yaml cannot be resumed; "
                                     "`exadl analyze DIR` reads its records)"));
        /* an older exadl's folder: plan for this machine; paths beside the folder */
        fprintf(stderr, "exadl analyze: warning: %s has no run.yaml; planning its suite for this "
                        "machine\n", dir);
        r->st.suite_dir = dir;
        r->st.machine = r->now;
        r->st.suite_source = suite;
    }
    size_t len;
    char *text = fileio_read(suite, &len, (size_t)64 << 20, err, sizeof err);
    if (!text) return fail(r, err);
    int rc = suite_load_text(a, text, len, suite, r->st.suite_dir, &r->st.machine, &c->s, err,
                             sizeof err);
    free(text);
    if (rc) return fail(r, err);
    /* the plan is the one the run was made with; the job running it now must hold it */
    if (c->s.launcher->job_steps && !r->analyze) {
        if (!r->now.slurm)
            return fail(r, ar_printf(a, "%s: launcher %s starts job steps of a Slurm allocation, and "
                                        "there is none here (no SLURM_JOB_ID): resume inside salloc "
                                        "or an sbatch script", dir, c->s.launcher->name));
        int rpn = launchplan_ranks_per_node(&c->s);
        for (size_t i = 0; i < c->s.nbench; i++)
            for (size_t k = 0; k < c->s.bench[i].nscales; k++) {
                int sc = c->s.bench[i].scales[k];
                const char *why = machine_check_launch(a, &r->now, sc, rpn && rpn < sc ? rpn : sc);
                if (why)
                    return fail(r, ar_printf(a, "%s was planned for %s; in this job: %s", dir,
                                             r->st.machine.slurm_how[0] ? r->st.machine.slurm_how
                                                                        : "another machine", why));
            }
    }
    if (!c->s.launcher_mpi && r->st.launcher_mpi) c->s.launcher_mpi = r->st.launcher_mpi;
    if (!c->s.launcher_mpi_source) c->s.launcher_mpi_source = r->st.launcher_mpi_source;
    const char **refs = ar_alloc(a, (r->st.nreferences + 1) * sizeof *refs);
    for (size_t i = 0; i < r->st.nreferences; i++) refs[i] = path_join(a, dir, r->st.references[i]);
    return load_references(r, refs, r->st.nreferences);
}

/* every probe as a 1-rank launch (launch.h launch_set_probe_wrap) */
static char **probe_wrap(void *ctx, char *const *argv)
{
    run_t *r = ctx;
    return launchplan_wrap(r->c.a, &r->c.s, NULL, (char **)argv, 1, 1, 0);
}

/* on compute nodes, probes (`--help` of optional benchmarks, the peak probe,
 * `stemdl --describe`) run as 1-rank launches, as the benchmarks do */
static int probes_through_launcher(run_t *r)
{
    if (r->c.s.launcher->job_steps && r->now.slurm) launch_set_probe_wrap(probe_wrap, r);
    return 0;
}

/* as root without Open MPI's root variables every launch would fail: refuse
 * before the first (a dry run and analyze start none) */
static int root_refusal(run_t *r)
{
    const char *why = r->dry || r->analyze ? NULL : run_root_refusal(r->c.a, &r->c.s);
    return why ? fail(r, why) : 0;
}

int run_stage_suite(run_t *r)
{
    runctx_t *c = &r->c;
    machine_detect(&r->now);
    char err[1024];
    char started[32];
    timer_utc_iso(started, sizeof started);
    c->ri.started_utc = ar_strdup(c->a, started);
    if (r->resume) return suite_of_folder(r) || root_refusal(r) || probes_through_launcher(r);
    int rc;
    if (r->suite_file) rc = suite_load_file(c->a, r->suite_file, &r->now, &c->s, err, sizeof err);
    else {
        const char *text = suite_default_text(c->a, &r->now, geteuid() == 0);
        rc = suite_load_text(c->a, text, strlen(text), "<default suite>", exadl_root(), &r->now,
                             &c->s, err, sizeof err);
    }
    for (size_t i = 0; i < r->nextra; i++)
        if (!path_is_file(r->extra[i])) {
            fprintf(stderr, "exadl run: error: reference file %s not found\n", r->extra[i]);
            rc = -1, err[0] = 0;
        }
    if (rc) {
        if (err[0]) fprintf(stderr, "exadl run: error: %s\n", err);
        return run_stop(r, 2);
    }
    const suite_t *s = &c->s;
    if (s->launcher->job_steps && !r->now.slurm && !r->dry)
        return fail(r, ar_printf(c->a, "%s: launcher %s starts job steps of a Slurm allocation, "
                                       "and there is none here (no SLURM_JOB_ID): run exadl inside "
                                       "salloc or an sbatch script (docs/harness.md \"Running under "
                                       "Slurm\")", s->path, s->launcher->name));
    slurm_choose_mpi(c->a, &c->s);
    r->st.machine = r->now;
    r->st.suite_dir = path_abs(c->a, s->dir);
    r->st.suite_source = s->path;
    const char **refs = ar_alloc(c->a, (s->nreferences + r->nextra + 1) * sizeof *refs);
    for (size_t i = 0; i < s->nreferences + r->nextra; i++)
        refs[i] = i < s->nreferences ? s->references[i] : r->extra[i - s->nreferences];
    return load_references(r, refs, s->nreferences + r->nextra) || root_refusal(r) ||
           probes_through_launcher(r);
}

int run_stage_preflight(run_t *r)
{
    const suite_t *s = &r->c.s;
    if (r->analyze || r->dry) return 0;
    if (!(r->preflight == 1 || (r->preflight == -1 && s->launcher->job_steps))) return 0;
    preflight_t p;
    if (preflight_run(r->c.a, s, 120, &p)) {
        if (launch_interrupted()) {
            fprintf(stderr, "exadl run: interrupted (%s) during the preflight; nothing ran\n",
                    signal_name(launch_stop_signal()));
            return run_stop(r, 130);
        }
        return fail(r, p.message);
    }
    r->c.ri.preflight = ar_printf(r->c.a, "1 rank started on %s in %.1f s: %s",
                                  p.hosts ? p.hosts : "?", p.elapsed_s, p.command);
    printf("exadl: preflight: %s\n", r->c.ri.preflight);
    return 0;
}

/* the first node of the allocation: where the launches run */
static const char *first_node(arena_t *a)
{
    const char *hosts[1];
    const char *l = getenv("SLURM_JOB_NODELIST");
    if (slurm_hostlist_expand(a, l, hosts, 1) >= 1) return sanitize_name(a, hosts[0]);
    return short_host();
}

static const char **push(arena_t *a, const char *const *v, size_t *n, const char *x)
{
    const char **w = ar_alloc(a, (*n + 2) * sizeof *w);
    for (size_t i = 0; v && i < *n; i++) w[i] = v[i];
    w[(*n)++] = x;
    return w;
}

static int new_folder(run_t *r)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    runinfo_t *ri = &c->ri;
    char err[1024];
    const char *parent = r->out ? r->out : path_join(a, exadl_root(), "results");
    ri->host = r->now.slurm ? first_node(a) : short_host();
    ri->machine = r->machine ? r->machine : c->s.machine_name;
    r->st.machine_name = ri->machine;
    char *dir = rundir_create(a, parent, c->s.name, ri->host, err, sizeof err);
    if (!dir) return fail(r, err);
    ri->dir = dir;
    sb_t cmd = {0};
    sb_puts(&cmd, "exadl run");
    for (int i = 0; i < r->argc; i++) sb_printf(&cmd, " %s", shell_quote(a, r->argv[i]));
    ri->command = ar_strdup(a, sb_str(&cmd));
    sb_free(&cmd);
    if (sf_lock_dir(dir, ri->command, err, sizeof err)) return fail(r, err);
    if (fileio_write_atomic(path_join(a, dir, "suite.yaml"), c->s.text, c->s.textlen, err,
                            sizeof err))
        fprintf(stderr, "exadl run: warning: %s\n", err);
    ri->references = ar_alloc(a, (c->nrefs + 1) * sizeof *ri->references);
    for (size_t i = 0; i < c->nrefs; i++) {
        char *cp = rundir_copy(a, c->refs[i].path, path_join(a, dir, "references"), err, sizeof err);
        if (cp) ri->references[ri->nreferences++] = ar_printf(a, "references/%s", cp);
        else fprintf(stderr, "exadl run: warning: %s\n", err);
    }
    runstate_t *st = &r->st;
    st->started_utc = ri->started_utc, st->command = ri->command, st->host = ri->host;
    st->exadl_host = short_host();
    st->references = ri->references, st->nreferences = ri->nreferences;
    st->nhistory = 0;
    st->history = push(a, NULL, &st->nhistory, ar_printf(a, "%s: %s", ri->started_utc, ri->command));
    return 0;
}

/* analyze: the run's own facts from the folder's results.yaml (when it reads:
 * a folder stopped hard has none, and its analysis says what it sees now), so
 * that re-analysis writes the same results.yaml (docs/harness.md "Resume and
 * analyze"): when the run ended, its cost, the launches a resume kept */
static void prior_results(run_t *r)
{
    arena_t *a = r->c.a;
    char err[1024];
    const char *path = path_join(a, r->c.ri.dir, "results.yaml");
    if (!path_is_file(path)) return;
    ytdoc *d = yt_load_file(path, err, sizeof err);
    if (!d) return;
    ar_defer(a, (void (*)(void *))yt_free, d);
    rd_t c = {d, err, sizeof err, NULL, NULL};
    const ytnode *run = d->root ? yt_get(d->root, "run") : NULL;
    const ytnode *cost = d->root ? yt_get(d->root, "harness_cost") : NULL;
    const char *fin;
    if (!run || !cost || rd_str(&c, run, "finished_utc", NULL, &fin) || !fin ||
        strlen(fin) > 40 || fin[strspn(fin, "0123456789-:TZ.")] ||
        rd_int_in(&c, run, "launches_kept", 0, 0, 100000000, &r->prior.kept) ||
        rd_num(&c, cost, "wall_s", RD_ANY, &r->prior.wall_s) ||
        rd_num(&c, cost, "launches_s", RD_ANY, &r->prior.launches_s) ||
        rd_num(&c, cost, "peak_probe_s", RD_ANY, &r->prior.probe_s) ||
        rd_num(&c, cost, "analysis_s", RD_ANY, &r->prior.analysis_s) ||
        rd_num(&c, cost, "plots_s", RD_ANY, &r->prior.plots_s) ||
        rd_num(&c, cost, "report_s", RD_ANY, &r->prior.report_s))
        return;
    r->prior.finished_utc = ar_strdup(a, fin);
    r->prior.have = 1;
}

static int old_folder(run_t *r)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    runinfo_t *ri = &c->ri;
    runstate_t *st = &r->st;
    char err[1024];
    ri->dir = path_abs(a, r->resume);
    ri->host = st->host ? st->host : short_host();
    /* the name the run was given (--machine), never the analysing machine's */
    if (r->machine) st->machine_name = r->machine;
    ri->machine = st->machine_name ? st->machine_name : c->s.machine_name;
    if (r->analyze) prior_results(r);
    ri->command = st->command ? st->command : "exadl run (an older exadl)";
    if (st->started_utc) ri->started_utc = st->started_utc;
    ri->references = st->references, ri->nreferences = st->nreferences;
    int skipped;
    if (journal_read(a, ri->dir, &r->earlier, &r->nearlier, &skipped, err, sizeof err))
        return fail(r, err);
    struct stat jst;
    const char *jpath = path_join(a, ri->dir, "journal.yaml");
    if (lstat(jpath, &jst) == 0 && !S_ISREG(jst.st_mode))
        r->journal_damage = "it is not a file";
    else if (skipped)
        r->journal_damage = ar_printf(a, "%d unreadable line(s)", skipped);
    if (r->journal_damage && r->analyze) /* resume says so as it rebuilds the journal (sweep_resume.c) */
        fprintf(stderr, "exadl analyze: warning: %s: %s (each launch without a line is judged by "
                        "its record)\n", jpath, r->journal_damage);
    char now[32];
    timer_utc_iso(now, sizeof now);
    st->history = push(a, st->history, &st->nhistory,
                       ar_printf(a, "%s: exadl %s %s", now, r->analyze ? "analyze" : "run --resume",
                                 shell_quote(a, r->resume)));
    return 0;
}

int run_stage_rundir(run_t *r)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    runinfo_t *ri = &c->ri;
    runstate_t *st = &r->st;
    if ((r->resume ? old_folder(r) : new_folder(r))) return 1;
    ri->name = path_basename(ri->dir), ri->suite = c->s.name;
    ri->suite_file = "suite.yaml";
    /* where exadl ran the launches (a folder analysed elsewhere keeps it) */
    ri->exadl_host = r->analyze && st->exadl_host ? st->exadl_host : short_host();
    ri->launcher_mpi = c->s.launcher_mpi, ri->launcher_mpi_source = c->s.launcher_mpi_source;
    st->launcher_mpi = c->s.launcher_mpi, st->launcher_mpi_source = c->s.launcher_mpi_source;
    if (st->machine.slurm) ri->slurm_ranks = st->machine.slurm_how;
    if (r->now.slurm) { /* the allocation this process runs in (a resume may be another job) */
        slurm_job_t *j = ar_alloc(a, sizeof *j);
        char err[512];
        if (slurm_job_query(a, r->now.slurm_job, j, err, sizeof err)) {
            fprintf(stderr, "exadl %s: warning: %s\n", cmd_name(r), err);
            j->id = r->now.slurm_job;
            j->nodelist = getenv("SLURM_JOB_NODELIST");
            j->partition = getenv("SLURM_JOB_PARTITION");
        }
        ri->slurm = j;
        if (!st->nslurm_jobs || strcmp(st->slurm_jobs[st->nslurm_jobs - 1], r->now.slurm_job))
            st->slurm_jobs = push(a, st->slurm_jobs, &st->nslurm_jobs, r->now.slurm_job);
    }
    ri->slurm_jobs = st->slurm_jobs, ri->nslurm_jobs = st->nslurm_jobs;
    ri->history = st->history, ri->nhistory = st->nhistory;
    char err[1024];
    if (runstate_write(ri->dir, st, err, sizeof err))
        fprintf(stderr, "exadl %s: warning: %s (the run cannot be resumed)\n", cmd_name(r), err);
    /* the peak and describe probes (run_probe.c) run like the benchmarks;
     * analyze starts none */
    if (!r->analyze) launch_set_probe_env(c->s.env, c->s.nenv);
    launchplan_build(a, &c->s, ri->dir, &c->plan);
    return 0;
}
