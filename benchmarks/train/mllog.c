#include "benchmarks/train/mllog.h"

#include <math.h>
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

/* ---- hyper-parameter keys (mllog.h, docs/data.md "Hyper-parameter keys") ---- */

#define HSRC "benchmarks/train/mllog.c"
#define HYPER(key, value) mllog_line(key, "POINT_IN_TIME", value, NULL, HSRC, __LINE__, -1)

/* lr_decay "STEP:FACTOR,..." (runcfg validated it: at most 8, steps rising) */
static int decay_read(const char *text, int64_t step[8], double factor[8])
{
    int n = 0;
    const char *p = text;
    if (!strcmp(text, "none")) return 0;
    while (*p && n < 8) {
        char *end;
        step[n] = strtoll(p, &end, 10);
        if (*end != ':') break;
        factor[n] = strtod(end + 1, &end);
        n++;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* a finite number as JSON (nan and inf are not JSON: the caller leaves such keys out) */
static void num(char *buf, size_t len, double x) { snprintf(buf, len, "%.9g", x); }

void mllog_hyper(const mllog_hyper_in *h)
{
    const runcfg_t *c = h->run;
    char v[512];
    int adam = !strcmp(c->optimizer, "adam"), lion = !strcmp(c->optimizer, "lion");
    int sgd = !strcmp(c->optimizer, "sgd");
    snprintf(v, sizeof v, "%llu", (unsigned long long)c->seed);
    HYPER("seed", v);
    /* every step applies its own gradients: no accumulation */
    HYPER("gradient_accumulation_frequency", "1");
    snprintf(v, sizeof v, "%d", h->nodes);
    HYPER("number_of_nodes", v);
    snprintf(v, sizeof v, "%d", h->accelerators_per_node);
    HYPER("accelerators_per_node", v);
    if (h->batchnorm_group_size > 0) {
        snprintf(v, sizeof v, "%d", h->batchnorm_group_size);
        HYPER("batchnorm_group_size", v);
    }
    HYPER("opt_name", adam ? "\"Adam\"" : lion ? "\"Lion\"" : sgd ? "\"SGD\"" : "\"unknown\"");

    /* CosmoFlow's form (mlcommons/hpc cosmoflow optimizers.py): the base rate
     * logged is the peak, the warm-up starts at peak / factor */
    num(v, sizeof v, c->lr);
    HYPER("opt_base_learning_rate", v);
    double per_epoch = h->train_samples > 0 ? (double)h->global_batch / (double)h->train_samples
                                            : 0; /* epochs per step */
    if (c->lr_warmup_steps == 0 || per_epoch > 0) {
        num(v, sizeof v, c->lr_warmup_steps * per_epoch);
        HYPER("opt_learning_rate_warmup_epochs", v);
    }
    if (c->lr_warmup_steps == 0 || c->lr_warmup_start > 0) {
        num(v, sizeof v, c->lr_warmup_steps ? c->lr / c->lr_warmup_start : 1.0);
        HYPER("opt_learning_rate_warmup_factor", v);
    }
    int64_t step[8];
    double factor[8], fmax = 1;
    int n = decay_read(c->lr_decay, step, factor);
    if (n == 0 || per_epoch > 0) {
        size_t k = (size_t)snprintf(v, sizeof v, "[");
        /* the factor of STEP applies from step STEP (1-based): after STEP - 1 steps */
        for (int i = 0; i < n; i++)
            k += (size_t)snprintf(v + k, sizeof v - k, "%s%.9g", i ? ", " : "",
                                  (double)(step[i] - 1) * per_epoch);
        snprintf(v + k, sizeof v - k, "]");
        HYPER("opt_learning_rate_decay_boundary_epochs", v);
    }
    for (int i = 0; i < n; i++)
        fmax = i == 0 || factor[i] > fmax ? factor[i] : fmax;
    /* one number where the schedule may have several: the largest, as the
     * reference implementation logs it */
    num(v, sizeof v, fmax);
    HYPER("opt_learning_rate_decay_factor", v);
    /* decoupled weight decay is Lion's only; ExaDL's Adam and SGD apply none */
    num(v, sizeof v, lion ? c->weight_decay : 0.0);
    HYPER("opt_weight_decay", v);

    /* DeepCAM's form (a warm-up to opt_lr * factor, from 0 when the factor is 1) */
    int from_zero = c->lr_warmup_steps == 0 || c->lr_warmup_start == 0;
    num(v, sizeof v, from_zero ? c->lr : c->lr_warmup_start);
    HYPER("opt_lr", v);
    HYPER("scheduler_type", "\"multistep\"");
    snprintf(v, sizeof v, "%d", c->lr_warmup_steps);
    HYPER("scheduler_lr_warmup_steps", v);
    num(v, sizeof v, from_zero ? 1.0 : c->lr / c->lr_warmup_start);
    HYPER("scheduler_lr_warmup_factor", v);
    size_t k = (size_t)snprintf(v, sizeof v, "[");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(v + k, sizeof v - k, "%s%lld", i ? ", " : "", (long long)step[i] - 1);
    snprintf(v + k, sizeof v - k, "]");
    HYPER("scheduler_milestones", v);
    /* one rate: the factors must be its powers (rate^1, rate^2, ...) */
    double rate = n ? factor[0] : 1.0, p = 1;
    int geometric = 1;
    for (int i = 0; i < n; i++) {
        p *= rate;
        if (fabs(factor[i] - p) > 1e-9 * p) geometric = 0;
    }
    if (geometric) {
        num(v, sizeof v, rate);
        HYPER("scheduler_decay_rate", v);
    }

    /* the optimizer's own */
    if (adam || lion) {
        snprintf(v, sizeof v, "[%.9g, %.9g]", c->beta1, c->beta2);
        HYPER("opt_betas", v);
        num(v, sizeof v, c->beta1);
        HYPER(adam ? "opt_adam_beta_1" : "opt_lion_beta_1", v);
        num(v, sizeof v, c->beta2);
        HYPER(adam ? "opt_adam_beta_2" : "opt_lion_beta_2", v);
    }
    if (adam) {
        num(v, sizeof v, c->eps);
        HYPER("opt_eps", v);
        HYPER("opt_adam_epsilon", v);
    }
    if (sgd) {
        num(v, sizeof v, c->momentum);
        HYPER("opt_momentum", v);
    }
}
