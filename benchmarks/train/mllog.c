#include "benchmarks/train/mllog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "benchmarks/common/timer.h"

#define SRC "benchmarks/train/mllog.c"

static struct {
    int started;           /* mllog_program_start ran */
    long long start_ms;    /* its wall-clock time (MLLOG time_ms) */
    double start_s;        /* and monotonic time */
    int init_printed, run_printed, staging_open;
} g;

static long long now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

void mllog_line(const char *key, const char *event, const char *value, const char *meta,
                const char *file, int line, long long time_ms)
{
    printf(":::MLLOG {\"namespace\": \"\", \"time_ms\": %lld, \"event_type\": \"%s\", \"key\": "
           "\"%s\", \"value\": %s, \"metadata\": {\"file\": \"%s\", \"lineno\": %d%s%s}}\n",
           time_ms < 0 ? now_ms() : time_ms, event, key, value, file, line, meta ? ", " : "",
           meta ? meta : "");
    fflush(stdout);
}

/* rank 0 by the launcher's environment, before MPI is up; no variable: one process */
static int env_rank0(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return !strcmp(v, "0");
    }
    return 1;
}

void mllog_program_start(int argc, char **argv)
{
    g.started = 1;
    g.start_ms = now_ms();
    g.start_s = timer_now_s();
    /* answers that train nothing print no MLLOG line */
    static const char *const no_run[] = {"--help", "-h", "--describe", "--sysinfo",
                                         "--check-config", "--make-data", "--write-data", NULL};
    int asked = 0;
    for (int i = 1; i < argc; i++) {
        for (int k = 0; no_run[k]; k++)
            if (!strcmp(argv[i], no_run[k])) return;
        if (i + 1 < argc && !strcmp(argv[i], "--mllog")) asked = !strcmp(argv[i + 1], "true");
    }
    if (asked && env_rank0()) mllog_init_start(1);
}

double mllog_init_start(int print)
{
    if (!g.started) {
        g.started = 1;
        g.start_ms = now_ms();
        g.start_s = timer_now_s();
    }
    if (print && !g.init_printed) {
        mllog_line("init_start", "INTERVAL_START", "null", NULL, SRC, __LINE__, g.start_ms);
        g.init_printed = 1;
    }
    return g.start_s;
}

void mllog_run_start(int print)
{
    mllog_init_start(print);
    if (g.run_printed) return;
    g.run_printed = 1;
    if (!print) return;
    mllog_line("init_stop", "INTERVAL_END", "null", NULL, SRC, __LINE__, -1);
    mllog_line("run_start", "INTERVAL_START", "null", NULL, SRC, __LINE__, -1);
}

int mllog_run_started(void) { return g.run_printed; }

void mllog_staging(int print, int start)
{
    if (start) {
        mllog_run_start(print);
        g.staging_open = 1;
        if (print) mllog_line("staging_start", "INTERVAL_START", "null", NULL, SRC, __LINE__, -1);
    } else if (g.staging_open) {
        g.staging_open = 0;
        if (print) mllog_line("staging_stop", "INTERVAL_END", "null", NULL, SRC, __LINE__, -1);
    }
}
