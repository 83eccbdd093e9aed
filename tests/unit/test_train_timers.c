/* Deferred kernel timers (kern_ops.timer_start/stop/flush, as the CUDA set
 * has them: the elapsed time is written at flush, through a pointer into a
 * kernel table) and tables that go away unflushed: a step abandoned, a test
 * that failed half-way.  ktab_free must make the kernel set forget the
 * timers pointing into the freed rows, or the next flush writes freed memory
 * (ASan in the sanitizer build; the count of writes here).  The kernel set
 * below is the reference set with timers that defer like CUDA events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/tap.h"

enum { MAXP = 64 };
typedef struct {
    double *acc[MAXP]; /* where each pending timer writes at flush */
    int n, writes;
} deferred;

static void *dt_start(void *ctx)
{
    deferred *d = ctx;
    if (d->n >= MAXP) abort();
    d->acc[d->n++] = NULL;
    return (void *)(intptr_t)d->n;
}

static void dt_stop(void *ctx, void *token, double *accum_s)
{
    deferred *d = ctx;
    d->acc[(intptr_t)token - 1] = accum_s;
}

static void dt_flush(void *ctx)
{
    deferred *d = ctx;
    for (int i = 0; i < d->n; i++)
        if (d->acc[i]) *d->acc[i] += 1e-3, d->writes++;
    d->n = 0;
}

static void dt_discard(void *ctx, const void *lo, const void *hi)
{
    deferred *d = ctx;
    for (int i = 0; i < d->n; i++)
        if (d->acc[i] && (const void *)d->acc[i] >= lo && (const void *)d->acc[i] < hi) d->acc[i] = NULL;
}

static kern_ops deferred_ops(void)
{
    kern_ops o = *kern_ref_ops();
    o.name = "deferred";
    o.timer_start = dt_start;
    o.timer_stop = dt_stop;
    o.timer_flush = dt_flush;
    o.timer_discard = dt_discard;
    return o;
}

/* Two tables timed by one kernel set; the first is freed before the flush:
 * the flush writes only the second's rows. */
static void test_freed_table_is_not_written(void)
{
    kern_ops o = deferred_ops();
    deferred d = {0};
    float xs[2 * 4 * 4] = {0}, ys[2 * 4 * 4];
    tview x = {xs, 2, 1, 4, 4, 16}, y = {ys, 2, 1, 4, 4, 16};
    ktab_t a, b;
    ktab_init(&a, 8);
    ktab_init(&b, 8);
    kc_t ka = {.ops = &o, .ctx = &d, .tab = &a, .timing = 1}, kb = {.ops = &o, .ctx = &d, .tab = &b, .timing = 1};
    kc_relu_fwd(&ka, "a", &x, &y);
    kc_relu_fwd(&kb, "b", &x, &y);
    kc_relu_fwd(&ka, "a", &x, &y);
    T_ASSERT(d.n == 3, "%d timers pending, expected 3", d.n);
    ktab_free(&a); /* abandoned before its flush */
    dt_flush(&d);
    int writes = d.writes;
    double tb = b.rows[0].time_s;
    ktab_free(&b);
    T_ASSERT(writes == 1, "the flush wrote %d timers, expected 1 (the freed table's 2 must be dropped)", writes);
    T_ASSERT(tb > 0, "the live table's row got no time");
}

/* A table flushed normally loses nothing; freeing it afterwards drops nothing. */
static void test_flushed_table_keeps_its_times(void)
{
    kern_ops o = deferred_ops();
    deferred d = {0};
    float xs[16] = {0}, ys[16];
    tview x = {xs, 1, 1, 4, 4, 16}, y = {ys, 1, 1, 4, 4, 16};
    ktab_t a;
    ktab_init(&a, 8);
    kc_t ka = {.ops = &o, .ctx = &d, .tab = &a, .timing = 1};
    for (int i = 0; i < 3; i++) kc_relu_fwd(&ka, "a", &x, &y);
    dt_flush(&d);
    double t = a.rows[0].time_s;
    ktab_free(&a);
    T_ASSERT(d.writes == 3 && t > 2.9e-3, "%d writes, time %g", d.writes, t);
}

int main(void)
{
    T_RUN(test_freed_table_is_not_written);
    T_RUN(test_flushed_table_keeps_its_times);
    T_DONE();
}
