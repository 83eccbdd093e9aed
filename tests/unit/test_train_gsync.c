/* The gradient-reduction engine over real MPI jobs.  Run without arguments it
 * starts itself under mpirun with 1, 2 and 3 ranks ($EXADL_MPIRUN) and passes
 * on what rank 0 of each job reports.
 *
 * Each job reduces synthetic tensors whose values are small integers (sums
 * exact in fp32) while every rank reports its layers in its own random order,
 * with random pauses, for every orchestration, grouping and fusion setting. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/gsync/gsync.h"
#include "tests/unit/tap.h"

static comm_t comm;

#define NLAYERS 9

/* Tensors of 9 layers: some with a bias, sizes from 1 to 3000 floats, laid
 * out in one array in forward order like the network's, listed backward. */
static int make_tensors(gsync_tensor *t, int64_t *total)
{
    static const int64_t w[NLAYERS] = {700, 3, 3000, 17, 1, 250, 999, 64, 1500};
    static const int bias[NLAYERS] = {1, 0, 0, 1, 0, 0, 1, 0, 1};
    int64_t off[NLAYERS][2], o = 0;
    for (int l = 0; l < NLAYERS; l++) {
        off[l][0] = o;
        o += w[l];
        off[l][1] = o;
        o += bias[l] ? 5 : 0;
    }
    int n = 0;
    for (int l = NLAYERS - 1; l >= 0; l--) {
        if (bias[l]) {
            snprintf(t[n].name, sizeof t[n].name, "l%d.b", l);
            t[n].layer = l, t[n].off = off[l][1], t[n].count = 5;
            n++;
        }
        snprintf(t[n].name, sizeof t[n].name, "l%d.w", l);
        t[n].layer = l, t[n].off = off[l][0], t[n].count = w[l];
        n++;
    }
    *total = o;
    return n;
}

static float value(int rank, int64_t i, int step) { return (float)((rank + 1) * (1 + (i + step) % 13)); }

static void run_setting(int orchestration, const char *grouping, int64_t fusion, double cycle_ms,
                        int inline_engine)
{
    gsync_tensor t[2 * NLAYERS];
    int64_t total;
    int nt = make_tensors(t, &total);
    float *grad = XMALLOC((size_t)total * sizeof *grad, "gradients");
    gsync_cfg cfg;
    gsync_cfg_default(&cfg);
    cfg.orchestration = orchestration;
    T_ASSERT(gsync_parse_grouping(&cfg, grouping) == 0, "grouping %s", grouping);
    cfg.fusion_bytes = fusion;
    cfg.cycle_ms = cycle_ms;
    cfg.timeout_s = 20;
    cfg.inline_engine = inline_engine;
    char err[512];
    gsync_t *g = gsync_create(&cfg, &comm, (gsync_transport){.name = "mpi"}, t, nt, NLAYERS, grad, err,
                              sizeof err);
    T_ASSERT(g, "%s", err);
    rng_t r = rng_stream(99, (uint64_t)comm.rank, 0, 0);
    for (int step = 0; step < 3; step++) {
        for (int64_t i = 0; i < total; i++) grad[i] = value(comm.rank, i, step);
        int order[NLAYERS];
        for (int l = 0; l < NLAYERS; l++) order[l] = l;
        for (int l = NLAYERS - 1; l > 0; l--) {
            int j = (int)(rng_next(&r) % (uint64_t)(l + 1)), x = order[l];
            order[l] = order[j], order[j] = x;
        }
        gsync_begin(g);
        for (int l = 0; l < NLAYERS; l++) {
            long pause_ns = (long)(rng_next(&r) % 400000);
            if (inline_engine) {
                /* the inline engine's cycles run in the pauses */
                gsync_progress(g, timer_now_s() + (double)pause_ns * 1e-9);
            } else {
                struct timespec ts = {0, pause_ns};
                nanosleep(&ts, NULL);
            }
            gsync_ready(g, order[l], NULL, 0);
        }
        gsync_finish(g);
        /* the sum over ranks of (rank + 1) * v is v * size * (size + 1) / 2 */
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; i < total; i++) {
            float want = (float)(comm.size * (comm.size + 1) / 2) * value(0, i, step);
            if (grad[i] != want && bad++ == 0) first = i;
        }
        int64_t all_bad;
        CHECK_MPI(MPI_Allreduce(&bad, &all_bad, 1, MPI_INT64_T, MPI_SUM, comm.world));
        T_ASSERT(all_bad == 0, "step %d: %lld wrong sums (first at %lld on some rank)", step,
                 (long long)all_bad, (long long)first);
        const gsync_step *st = gsync_last_step(g);
        for (int k = 0; k < gsync_ngroups(g); k++) {
            const gsync_group_time *x = &st->groups[k];
            T_ASSERT(!isnan(x->ready_s), "group %d has no ready time", k);
            T_ASSERT(x->start_s >= x->ready_s - 1e-9 && x->end_s >= x->start_s,
                     "group %d: ready %.6f start %.6f end %.6f out of order", k, x->ready_s,
                     x->start_s, x->end_s);
            if (comm.size > 1) T_ASSERT(x->reductions >= 1, "group %d was never reduced", k);
        }
        if (comm.size > 1) T_ASSERT(st->cycles >= 1, "no engine cycle ran");
    }
    gsync_free(g);
    free(grad);
}

static void test_any_ready_order_gives_exact_sums(void)
{
    const char *groupings[] = {"none", "layer", "3", "1"};
    for (int o = 0; o < 2; o++)
        for (int gi = 0; gi < 4; gi++)
            for (int f = 0; f < 2; f++) /* 64 B forces many small fusions through the buffer */
                run_setting(o, groupings[gi], f ? 8 << 20 : 64, f ? 1.0 : 0.0, 0);
}

/* The inline engine (gsync_progress between gradients, as under SMPI):
 * the same exact sums for every orchestration and grouping. */
static void test_inline_engine_gives_exact_sums(void)
{
    const char *groupings[] = {"none", "layer", "3", "1"};
    for (int o = 0; o < 2; o++)
        for (int gi = 0; gi < 4; gi++)
            for (int f = 0; f < 2; f++)
                run_setting(o, groupings[gi], f ? 8 << 20 : 64, f ? 1.0 : 0.0, 1);
}

/* Groups of similar byte size: as many as asked, contiguous, none empty. */
static void test_count_groups_balance_bytes(void)
{
    gsync_tensor t[2 * NLAYERS];
    int64_t total;
    int nt = make_tensors(t, &total);
    float *grad = XCALLOC((size_t)total, sizeof *grad, "gradients");
    for (int want = 1; want <= nt + 2; want++) {
        gsync_cfg cfg;
        gsync_cfg_default(&cfg);
        char text[16], err[256];
        snprintf(text, sizeof text, "%d", want);
        T_ASSERT(gsync_parse_grouping(&cfg, text) == 0, "grouping %s", text);
        gsync_t *g = gsync_create(&cfg, &comm, (gsync_transport){.name = "mpi"}, t, nt, NLAYERS, grad,
                                  err, sizeof err);
        T_ASSERT(g, "%s", err);
        int G = gsync_ngroups(g), expect = want < nt ? want : nt;
        T_ASSERT(G == expect, "asked %d groups of %d tensors, got %d", want, nt, G);
        int64_t sum = 0;
        T_ASSERT(gsync_group_of(g, 0) == 0, "the first tensor is not in group 0");
        for (int i = 1; i < nt; i++) {
            int d = gsync_group_of(g, i) - gsync_group_of(g, i - 1);
            T_ASSERT(d == 0 || d == 1, "tensors %d and %d: groups %d then %d (not contiguous)", i - 1,
                     i, gsync_group_of(g, i - 1), gsync_group_of(g, i));
        }
        for (int k = 0; k < G; k++) {
            T_ASSERT(gsync_group_bytes(g, k) > 0, "group %d empty", k);
            sum += gsync_group_bytes(g, k);
        }
        T_ASSERT(sum == total * (int64_t)sizeof(float), "groups hold %lld bytes of %lld", (long long)sum,
                 (long long)(total * 4));
        gsync_free(g);
    }
    free(grad);
}

/* ---- a transport that works like the CUDA one: reductions queued, then
 * waited for; times from the "device" (settle), here synthetic and unlike
 * the host's: gradient t ready at 10 ms x (t + 1), reduction i running from
 * 1 s + i to 1.5 s + i ----------------------------------------------------------- */

enum { DEV_MAXCALLS = 64 };
typedef struct {
    MPI_Comm comm;
    int nslots, marked[2 * NLAYERS], ncalls, waits, begins;
    int call_slots[DEV_MAXCALLS][2 * NLAYERS], call_n[DEV_MAXCALLS];
    int64_t fusion_elems, fused_max; /* prepare's bound; the largest call of several buffers */
} devtr_t;

static void dev_prepare(void *c, int nslots, int64_t fusion_elems)
{
    ((devtr_t *)c)->nslots = nslots;
    ((devtr_t *)c)->fusion_elems = fusion_elems;
}
static void dev_begin(void *c)
{
    devtr_t *d = c;
    d->ncalls = 0;
    d->begins++;
    memset(d->marked, 0, sizeof d->marked);
}
static void dev_mark(void *c, int slot) { ((devtr_t *)c)->marked[slot] = 1; }
static void dev_allreduce(void *c, float *const *bufs, const int64_t *counts, const int *slots, int n)
{
    devtr_t *d = c;
    if (d->ncalls >= DEV_MAXCALLS) abort();
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += counts[i];
    if (n > 1 && total > d->fused_max) d->fused_max = total;
    for (int i = 0; i < n; i++) {
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, bufs[i], (int)counts[i], MPI_FLOAT, MPI_SUM, d->comm));
        d->call_slots[d->ncalls][i] = slots[i];
    }
    d->call_n[d->ncalls++] = n;
}
static int dev_wait(void *c, double timeout_s, char *err, size_t errlen)
{
    (void)timeout_s, (void)err, (void)errlen;
    ((devtr_t *)c)->waits++;
    return 0;
}
static int dev_settle(void *c, double *ready_s, int nslots, double *start_s, double *end_s, int max_calls)
{
    devtr_t *d = c;
    for (int t = 0; t < nslots; t++) ready_s[t] = d->marked[t] ? 0.010 * (t + 1) : NAN;
    for (int i = 0; i < d->ncalls && i < max_calls; i++) start_s[i] = 1.0 + i, end_s[i] = 1.5 + i;
    return d->ncalls;
}

/* gsync_settle puts the device's times in the step: each group ready when its
 * last gradient was made, started and ended with its first and last
 * reduction, exposed = last reduction end - last gradient; the sums stay
 * exact; the engine waits once per step. */
static void test_device_transport_times(void)
{
    gsync_tensor t[2 * NLAYERS];
    int64_t total;
    int nt = make_tensors(t, &total);
    float *grad = XMALLOC((size_t)total * sizeof *grad, "gradients");
    devtr_t d = {0};
    CHECK_MPI(MPI_Comm_dup(comm.world, &d.comm));
    gsync_transport tr = {.name = "device", .prepare = dev_prepare, .begin = dev_begin, .mark = dev_mark,
                          .settle = dev_settle, .ctx = &d};
    if (comm.size > 1) tr.allreduce = dev_allreduce, tr.wait = dev_wait;
    gsync_cfg cfg;
    gsync_cfg_default(&cfg);
    T_ASSERT(gsync_parse_grouping(&cfg, "3") == 0, "grouping");
    cfg.fusion_bytes = 4096;
    cfg.timeout_s = 20;
    char err[512];
    gsync_t *g = gsync_create(&cfg, &comm, tr, t, nt, NLAYERS, grad, err, sizeof err);
    T_ASSERT(g, "%s", err);
    T_ASSERT(d.nslots == nt, "prepare saw %d slots of %d", d.nslots, nt);
    /* the fusion buffer is sized once, here (issue 28 item 11): 4096 bytes
     * = 1024 floats where there are reductions, none on one rank */
    T_ASSERT(d.fusion_elems == (comm.size > 1 ? (total < 1024 ? total : 1024) : 0),
             "prepare's fusion bound %lld floats (%d ranks, %lld in all)", (long long)d.fusion_elems, comm.size,
             (long long)total);
    for (int step = 0; step < 2; step++) {
        for (int64_t i = 0; i < total; i++) grad[i] = value(comm.rank, i, step);
        gsync_begin(g);
        for (int l = NLAYERS - 1; l >= 0; l--) gsync_ready(g, l, NULL, 0);
        gsync_finish(g);
        gsync_settle(g);
        int64_t bad = 0;
        for (int64_t i = 0; i < total; i++)
            bad += grad[i] != (float)(comm.size * (comm.size + 1) / 2) * value(0, i, step);
        T_ASSERT(bad == 0, "step %d: %lld wrong sums", step, (long long)bad);
        const gsync_step *st = gsync_last_step(g);
        double last_ready = 0.010 * nt, last_end = d.ncalls ? 1.5 + (d.ncalls - 1) : 0;
        T_ASSERT(st->backward_end_s == last_ready, "backward end %.6f, expected the last gradient's %.6f",
                 st->backward_end_s, last_ready);
        for (int k = 0; k < gsync_ngroups(g); k++) {
            double ready = 0;
            int c0 = -1, c1 = -1;
            for (int i = 0; i < nt; i++)
                if (gsync_group_of(g, i) == k && 0.010 * (i + 1) > ready) ready = 0.010 * (i + 1);
            for (int c = 0; c < d.ncalls; c++)
                for (int i = 0; i < d.call_n[c]; i++)
                    if (gsync_group_of(g, d.call_slots[c][i]) == k) {
                        if (c0 < 0) c0 = c;
                        c1 = c;
                    }
            const gsync_group_time *x = &st->groups[k];
            T_ASSERT(x->ready_s == ready, "group %d ready at %.6f, expected %.6f", k, x->ready_s, ready);
            if (comm.size > 1) {
                T_ASSERT(c0 >= 0, "group %d never reduced", k);
                T_ASSERT(x->start_s == 1.0 + c0 && x->end_s == 1.5 + c1,
                         "group %d: [%.3f, %.3f], expected [%.3f, %.3f] (its reductions %d..%d)", k,
                         x->start_s, x->end_s, 1.0 + c0, 1.5 + c1, c0, c1);
            } else {
                T_ASSERT(x->start_s == ready && x->end_s == ready, "one rank: group %d start/end not its ready time",
                         k);
            }
        }
        if (comm.size > 1) {
            T_ASSERT(d.waits == step + 1, "the engine waited %d times in %d steps", d.waits, step + 1);
            T_ASSERT(st->exposed_s == last_end - last_ready, "exposed %.6f, expected %.6f", st->exposed_s,
                     last_end - last_ready);
            T_ASSERT(st->reduce_s == 0.5 * d.ncalls, "reduce_s %.6f for %d reductions", st->reduce_s, d.ncalls);
        } else {
            T_ASSERT(st->exposed_s == 0 && d.ncalls == 0, "one rank: exposed %.6f, %d reductions", st->exposed_s,
                     d.ncalls);
        }
    }
    T_ASSERT(d.begins == 2, "begin called %d times in 2 steps", d.begins);
    T_ASSERT(d.fused_max <= d.fusion_elems, "a fused call of %lld floats, above prepare's %lld",
             (long long)d.fused_max, (long long)d.fusion_elems);
    if (comm.size > 1) T_ASSERT(d.fused_max > 0, "no call fused several tensors: the bound was not exercised");
    gsync_free(g);
    MPI_Comm_free(&d.comm);
    free(grad);
}

static void child(void)
{
    comm_init(NULL, NULL, &comm);
    /* only rank 0 speaks; a failure on another rank shows through the
     * collective checks, or as a non-zero exit the parent sees */
    if (comm.rank != 0 && !freopen("/dev/null", "w", stdout)) return;
    tap_run_(comm.size == 1 ? "gsync_np1_any_ready_order_gives_exact_sums"
             : comm.size == 2 ? "gsync_np2_any_ready_order_gives_exact_sums"
                              : "gsync_np3_any_ready_order_gives_exact_sums",
             test_any_ready_order_gives_exact_sums);
    tap_run_(comm.size == 1 ? "gsync_np1_inline_engine_gives_exact_sums"
             : comm.size == 2 ? "gsync_np2_inline_engine_gives_exact_sums"
                              : "gsync_np3_inline_engine_gives_exact_sums",
             test_inline_engine_gives_exact_sums);
    if (comm.size == 1) T_RUN(test_count_groups_balance_bytes);
    tap_run_(comm.size == 1 ? "gsync_np1_device_transport_times"
             : comm.size == 2 ? "gsync_np2_device_transport_times"
                              : "gsync_np3_device_transport_times",
             test_device_transport_times);
    comm_finalize(&comm);
}

int main(int argc, char **argv)
{
    check_set_program("test_train_gsync");
    if (argc > 1 && !strcmp(argv[1], "--child")) {
        child();
        return tap_failed_ ? 1 : 0;
    }
    const char *mpirun = getenv("EXADL_MPIRUN") ? getenv("EXADL_MPIRUN") : "mpirun";
    int failed = 0;
    for (int np = 1; np <= 3; np++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "%s -np %d %s --child 2>&1", mpirun, np, argv[0]);
        FILE *p = popen(cmd, "r");
        CHECK(p != NULL, "cannot run %s", cmd);
        char line[2048];
        int reported = 0;
        while (fgets(line, sizeof line, p)) {
            fputs(line, stdout);
            reported += !strncmp(line, "PASS: ", 6) || !strncmp(line, "FAIL: ", 6);
        }
        int rc = pclose(p);
        if (!reported || (rc != 0 && WIFEXITED(rc) && WEXITSTATUS(rc) != 1)) {
            printf("FAIL: gsync_np%d: the job exited with status %d before reporting\n", np, rc);
            failed = 1;
        }
    }
    return failed;
}
