#include "benchmarks/train/ttt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/mllog.h"

void ttt_mllog(const char *key, const char *event, const char *value, const char *meta, int line)
{
    mllog_line(key, event, value, meta, "benchmarks/train/ttt.c", line, -1);
}

#define POINT(t, key, value, meta) \
    do { if ((t)->print) ttt_mllog(key, "POINT_IN_TIME", value, meta, __LINE__); } while (0)
#define START(t, key, meta) \
    do { if ((t)->print) ttt_mllog(key, "INTERVAL_START", "null", meta, __LINE__); } while (0)
#define STOP(t, key, meta) \
    do { if ((t)->print) ttt_mllog(key, "INTERVAL_END", "null", meta, __LINE__); } while (0)

/* a name as a JSON string: only [A-Za-z0-9._-] kept, so nothing needs escaping */
static void json_word(char *buf, size_t len, const char *s)
{
    size_t k = 0;
    if (len < 3) return;
    buf[k++] = '"';
    for (; s && *s && k + 2 < len; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        buf[k++] = ok ? c : '_';
    }
    buf[k++] = '"';
    buf[k] = 0;
}

void ttt_begin(ttt_result *t, const ttt_cfg *c, int print, int64_t global_batch,
               int64_t train_samples, int64_t eval_samples, const char *optimizer, double lr)
{
    memset(t, 0, sizeof *t);
    t->enabled = c->eval_every > 0 || c->mllog;
    if (!t->enabled) return;
    t->mllog = c->mllog;
    t->print = print && c->mllog;
    t->eval_every = c->eval_every;
    t->target_loss = c->target_loss;
    t->lr = lr;
    t->benchmark = c->benchmark;
    t->global_batch = global_batch;
    t->train_samples = train_samples;
    t->eval_samples = eval_samples;
    /* init_start is the program's start (mllog.h), printed there or now */
    t->t_init = mllog_init_start(t->print);
    char v[160];
    json_word(v, sizeof v, c->benchmark);
    POINT(t, "submission_benchmark", v, NULL);
    POINT(t, "submission_org", "\"ExaDL\"", NULL);
    POINT(t, "submission_division", "\"open\"", NULL);
    POINT(t, "submission_status", "\"research\"", NULL);
    json_word(v, sizeof v, check_host());
    POINT(t, "submission_platform", v, NULL);
    /* the page cache is not dropped (that needs root): said, not pretended */
    POINT(t, "cache_clear", "false", NULL);
    snprintf(v, sizeof v, "%lld", (long long)global_batch);
    POINT(t, "global_batch_size", v, NULL);
    snprintf(v, sizeof v, "%lld", (long long)train_samples);
    POINT(t, "train_samples", v, NULL);
    snprintf(v, sizeof v, "%lld", (long long)eval_samples);
    POINT(t, "eval_samples", v, NULL);
    /* opt_name, opt_base_learning_rate and the other hyper-parameters:
     * mllog_hyper, from the run's whole configuration */
    (void)optimizer;
}

void ttt_run_start(ttt_result *t)
{
    if (!t->enabled) return;
    /* printed already where staging came first (mllog.h); the record's
     * clock is the training's own either way */
    mllog_run_start(t->print);
    t->t_run = timer_now_s();
    t->init_s = t->t_run - t->t_init;
}

static int epoch_of(const ttt_result *t, int s)
{
    if (t->train_samples <= 0) return 1; /* samples made in memory: one open-ended epoch */
    return (int)((int64_t)s * t->global_batch / t->train_samples) + 1;
}

void ttt_step(ttt_result *t, int s)
{
    if (!t->enabled) return;
    int e = epoch_of(t, s);
    if (e == t->epoch) return;
    char m[64];
    if (t->epoch > 0) {
        snprintf(m, sizeof m, "\"epoch_num\": %d", t->epoch);
        STOP(t, "epoch_stop", m);
    }
    snprintf(m, sizeof m, "\"epoch_num\": %d", e);
    START(t, "epoch_start", m);
    t->epoch = e;
}

int ttt_eval_due(const ttt_result *t, int s, int total)
{
    if (!t->enabled || t->eval_every <= 0 || t->eval_samples <= 0) return 0;
    return (s + 1) % t->eval_every == 0 || s + 1 == total;
}

int ttt_eval_point(ttt_result *t, int s, double loss, double mae, double eval_s)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->step = realloc(t->step, (size_t)t->cap * sizeof *t->step);
        t->loss = realloc(t->loss, (size_t)t->cap * sizeof *t->loss);
        t->mae = realloc(t->mae, (size_t)t->cap * sizeof *t->mae);
        t->epochs = realloc(t->epochs, (size_t)t->cap * sizeof *t->epochs);
        t->time_s = realloc(t->time_s, (size_t)t->cap * sizeof *t->time_s);
        CHECK(t->step && t->loss && t->mae && t->epochs && t->time_s, "out of memory (evaluations)");
    }
    double epochs = t->train_samples > 0
                        ? (double)(s + 1) * (double)t->global_batch / (double)t->train_samples
                        : NAN;
    t->step[t->n] = s + 1;
    t->loss[t->n] = loss;
    t->mae[t->n] = mae;
    if (isfinite(mae)) t->has_mae = 1;
    t->epochs[t->n] = epochs;
    t->time_s[t->n] = timer_now_s() - t->t_run;
    t->n++;
    t->eval_s += eval_s;
    char m[96], v[64];
    snprintf(m, sizeof m, "\"epoch_num\": %d", t->epoch > 0 ? t->epoch : 1);
    /* eval_start and eval_stop frame the evaluation just made: printed after it */
    START(t, "eval_start", m);
    STOP(t, "eval_stop", m);
    snprintf(v, sizeof v, "%.9g", isfinite(loss) ? -loss : -1e30);
    snprintf(m, sizeof m, "\"epoch_num\": %.6g, \"step\": %d", isfinite(epochs) ? epochs : 0.0, s + 1);
    POINT(t, "eval_accuracy", v, m);
    if (isfinite(mae)) {
        /* MLPerf HPC CosmoFlow's quality: the validation MAE, lower is better */
        snprintf(v, sizeof v, "%.9g", mae);
        snprintf(m, sizeof m, "\"epoch_num\": %.6g, \"step\": %d", isfinite(epochs) ? epochs : 0.0, s + 1);
        POINT(t, "eval_error", v, m);
    }
    if (t->target_loss > 0 && isfinite(loss) && loss <= t->target_loss && !t->reached) {
        t->reached = 1;
        t->step_reached = s + 1;
        t->samples_to_target = (int64_t)(s + 1) * t->global_batch;
        t->epochs_to_target = epochs;
        t->time_to_train_s = t->time_s[t->n - 1];
        return 1;
    }
    return 0;
}

void ttt_end(ttt_result *t, int steps_done)
{
    if (!t->enabled) return;
    t->steps_done = steps_done;
    if (!t->reached) t->time_to_train_s = timer_now_s() - t->t_run;
    char m[64];
    if (t->epoch > 0) {
        snprintf(m, sizeof m, "\"epoch_num\": %d", t->epoch);
        STOP(t, "epoch_stop", m);
    }
    STOP(t, "run_stop", t->reached || t->target_loss <= 0 ? "\"status\": \"success\""
                                                           : "\"status\": \"aborted\"");
}

void ttt_write_record(const ttt_result *t, rec_t *w)
{
    if (!t->enabled) return;
    rec_key(w, "time_to_train");
    rec_map_begin(w);
    rec_kv_str(w, "quality", "validation loss (the network's loss on the val split, mean over "
                             "ranks); MLLOG eval_accuracy = minus it");
    if (t->has_mae)
        rec_kv_str(w, "eval_error", "validation mean absolute error of the network's outputs (mean "
                                    "over the val split and ranks, same forwards as the loss); "
                                    "MLLOG eval_error; curve val_mae");
    rec_kv_int(w, "eval_every", t->eval_every);
    rec_kv_double(w, "target_loss", t->target_loss);
    rec_kv_bool(w, "reached", t->reached);
    rec_kv_int(w, "steps", t->steps_done);
    rec_kv_int(w, "global_batch", t->global_batch);
    rec_kv_int(w, "train_samples", t->train_samples);
    rec_kv_int(w, "eval_samples", t->eval_samples);
    if (t->reached) {
        rec_kv_int(w, "steps_to_target", t->step_reached);
        rec_kv_int(w, "samples_to_target", t->samples_to_target);
        rec_kv_double(w, "epochs_to_target", t->epochs_to_target);
    }
    rec_kv_double(w, "time_to_train_s", t->time_to_train_s);
    rec_kv_str(w, "time_note", t->reached ? "run_start to the evaluation that reached the target"
                                          : "run_start to the end of the budget (not reached)");
    rec_kv_double(w, "init_s", t->init_s);
    rec_kv_double(w, "eval_s", t->eval_s);
    int64_t *st = XMALLOC((size_t)t->n * sizeof *st + 1, "evaluation steps");
    for (int i = 0; i < t->n; i++) st[i] = t->step[i];
    rec_key(w, "curve");
    rec_map_begin(w);
    rec_kv_ints(w, "step", st, (size_t)t->n);
    rec_kv_doubles(w, "epoch", t->epochs, (size_t)t->n);
    rec_kv_doubles(w, "time_s", t->time_s, (size_t)t->n);
    rec_kv_doubles(w, "val_loss", t->loss, (size_t)t->n);
    if (t->has_mae) rec_kv_doubles(w, "val_mae", t->mae, (size_t)t->n);
    rec_map_end(w);
    free(st);
    rec_map_end(w);
}

void ttt_free(ttt_result *t)
{
    free(t->step);
    free(t->loss);
    free(t->mae);
    free(t->epochs);
    free(t->time_s);
    memset(t, 0, sizeof *t);
}
