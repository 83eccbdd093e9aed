/* manytask: many-task launch throughput (mt.h, docs/ensembles.md): N short
 * tasks, C at a time, through a launcher; tasks per second, launch latency
 * percentiles, failures counted and retried.  A process of its own (no MPI):
 * the suite runs it with the local launcher and it launches its tasks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/record/header.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/manytask/mt.h"

typedef struct {
    mt_cfg mt;
    const char *record, *task_text;
    char *words[32];
    char *task_buf; /* the words point into it (malloc'ed) */
} args_t;

static void usage(void)
{
    printf("usage: manytask [options]\n"
           "  --tasks N            tasks to run (default 100)\n"
           "  --concurrency C      at most C at once (default 4)\n"
           "  --launcher L         direct | mpirun (mpirun -np 1) | srun (a job step: srun -n1 -N1\n"
           "                       --exclusive) (default mpirun)\n"
           "  --task 'CMD ARGS'    the task, split at spaces (default true)\n"
           "  --retries R          a failed attempt is queued again until a task failed R + 1\n"
           "                       times (default 2)\n"
           "  --plant-failures K   the first attempt(s) of tasks 0, K, 2K, ... run `false` (tests)\n"
           "  --plant-attempts A   how many first attempts fail (default 1)\n"
           "  --record FILE        write the result record\n"
           "  --check-config       check the options, run nothing (exit 0, or 2 with the error)\n");
}

static void parse(args_t *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->mt = (mt_cfg){.tasks = 100, .concurrency = 4, .retries = 2, .launcher = 1, .plant_attempts = 1};
    a->task_text = "true";
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) usage(), exit(0);
        if (i + 1 >= argc) check_usage("%s needs a value (see manytask --help)", o);
        const char *v = argv[++i];
        if (!strcmp(o, "--tasks")) a->mt.tasks = (int)opt_int(o, v, 1, 10000000);
        else if (!strcmp(o, "--concurrency")) a->mt.concurrency = (int)opt_int(o, v, 1, 4096);
        else if (!strcmp(o, "--retries")) a->mt.retries = (int)opt_int(o, v, 0, 100);
        else if (!strcmp(o, "--launcher")) a->mt.launcher = opt_choice(o, v, mt_launchers);
        else if (!strcmp(o, "--task")) a->task_text = v;
        else if (!strcmp(o, "--plant-failures")) a->mt.plant_every = (int)opt_int(o, v, 0, 10000000);
        else if (!strcmp(o, "--plant-attempts")) a->mt.plant_attempts = (int)opt_int(o, v, 1, 101);
        else if (!strcmp(o, "--record")) a->record = v;
        else check_usage("unknown option '%s' (see manytask --help)", o);
    }
    char *t = a->task_buf = strdup(a->task_text), *save = NULL;
    CHECK(t != NULL, "out of memory");
    int n = 0;
    for (char *w = strtok_r(t, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (n == 31) check_usage("--task: more than 31 words");
        a->words[n++] = w;
    }
    if (!n) check_usage("--task: empty");
    a->mt.task = a->words;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* nearest-rank percentile of sorted x */
static double pct(const double *x, int n, double p)
{
    if (n == 0) return 0;
    int k = (int)(p / 100.0 * n + 0.999999);
    return x[(k < 1 ? 1 : k > n ? n : k) - 1];
}

static void write_config(rec_t *w, const void *arg)
{
    const args_t *a = arg;
    rec_key(w, "config");
    rec_map_begin(w);
    rec_kv_int(w, "tasks", a->mt.tasks);
    rec_kv_int(w, "concurrency", a->mt.concurrency);
    rec_kv_str(w, "launcher", mt_launchers[a->mt.launcher]);
    rec_kv_str(w, "task", a->task_text);
    rec_kv_int(w, "retries", a->mt.retries);
    rec_kv_int(w, "plant_failures", a->mt.plant_every);
    rec_kv_int(w, "plant_attempts", a->mt.plant_attempts);
    rec_map_end(w);
}

int main(int argc, char **argv)
{
    check_set_program("manytask");
    args_t a;
    int check_only = opt_take_check_config(&argc, argv); /* opt.h */
    parse(&a, argc, argv);
    if (check_only) {
        free(a.task_buf);
        return opt_config_valid();
    }
    char started[32], err[512];
    timer_utc_iso(started, sizeof started);
    mt_result r;
    if (mt_run(&a.mt, &r, err, sizeof err)) {
        fprintf(stderr, "manytask: error: %s\n", err);
        free(a.task_buf);
        return 1;
    }
    /* latency of the attempts that succeeded, sorted */
    double *lat = XMALLOC((size_t)(r.attempts + 1) * sizeof *lat, "latencies");
    int n = 0;
    for (int i = 0; i < r.attempts; i++)
        if (r.ok[i]) lat[n++] = r.latency_s[i];
    qsort(lat, (size_t)n, sizeof *lat, cmp_double);
    double rate = r.done / r.wall_s;
    printf("manytask: %d tasks, %d at a time, through %s: %.4g tasks/s; latency p50 %.4g s, p90 %.4g s, "
           "p99 %.4g s, max %.4g s; %d failed attempt(s), %d task(s) failed for good\n",
           a.mt.tasks, a.mt.concurrency, mt_launchers[a.mt.launcher], rate, pct(lat, n, 50),
           pct(lat, n, 90), pct(lat, n, 99), n ? lat[n - 1] : 0, r.failed_attempts, r.failed);
    int rc = 0;
    if (a.record) {
        sysinfo_t si;
        sysinfo_collect(&si);
        char why[320] = "";
        if (r.done == 0) snprintf(why, sizeof why, "no task succeeded; first failure: %s", r.first_error);
        rec_header_t h = {.benchmark = "manytask", .status = r.done ? "ok" : "failed",
                          .error = r.done ? NULL : why, .started_utc = started, .argc = argc,
                          .argv = argv, .system = &si, .config = write_config, .config_arg = &a,
                          .ranks = 1, .backend = "cpu", .precision = "none"};
        rec_t *w = rec_header_open(a.record, &h, err, sizeof err);
        CHECK(w != NULL, "%s", err);
        rec_key(w, "tasks");
        rec_map_begin(w);
        rec_kv_str(w, "retry_policy", "a failed attempt is queued again at the end until the task "
                                      "has failed retries + 1 times; then it counts as failed");
        rec_kv_str(w, "latency", "per attempt: fork of the launcher to its exit, successful "
                                 "attempts; percentiles by nearest rank");
        rec_kv_double(w, "wall_s", r.wall_s);
        rec_kv_double(w, "tasks_per_s", rate);
        rec_kv_int(w, "done", r.done);
        rec_kv_int(w, "failed", r.failed);
        rec_kv_int(w, "attempts", r.attempts);
        rec_kv_int(w, "failed_attempts", r.failed_attempts);
        rec_kv_int(w, "retried", r.attempts - a.mt.tasks);
        rec_kv_double(w, "latency_p50_s", pct(lat, n, 50));
        rec_kv_double(w, "latency_p90_s", pct(lat, n, 90));
        rec_kv_double(w, "latency_p99_s", pct(lat, n, 99));
        rec_kv_double(w, "latency_max_s", n ? lat[n - 1] : 0);
        rec_kv_doubles(w, "latency_s", r.latency_s, (size_t)r.attempts);
        rec_kv_str(w, "first_failure", r.first_error[0] ? r.first_error : NULL);
        rec_map_end(w);
        rec_key(w, "validation");
        rec_seq_begin(w);
        char detail[320];
        snprintf(detail, sizeof detail, "%d of %d tasks done, %d failed for good after %d retries",
                 r.done, a.mt.tasks, r.failed, a.mt.retries);
        rec_validation(w, "every_task_done", r.failed ? "fail" : "pass", 0, detail);
        rec_seq_end(w);
        if (rec_header_close(w, err, sizeof err)) fprintf(stderr, "manytask: error: %s\n", err), rc = 1;
    }
    if (!r.done) rc = 1;
    free(lat);
    mt_result_free(&r);
    free(a.task_buf);
    return rc;
}
