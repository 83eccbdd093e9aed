#include "benchmarks/common/watchdog.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/common/check.h"

struct wd {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC: a clock step does not fire it */
    int done;
    double timeout_s;
    char what[256], hint[256];
};

static void *wd_main(void *arg)
{
    wd_t *w = arg;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    double whole = floor(w->timeout_s);
    dl.tv_sec += (time_t)whole;
    dl.tv_nsec += (long)((w->timeout_s - whole) * 1e9);
    if (dl.tv_nsec >= 1000000000L) dl.tv_sec++, dl.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&w->mu);
    int rc = 0;
    while (!w->done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&w->cv, &w->mu, &dl);
    int fire = !w->done;
    pthread_mutex_unlock(&w->mu);
    if (fire) {
        fprintf(stderr, "%s: error: [%s] %s: not complete after %g s: %s\n", check_program(), check_host(),
                w->what, w->timeout_s, w->hint);
        fflush(stderr);
        _exit(1);
    }
    return NULL;
}

wd_t *wd_arm(double timeout_s, const char *what, const char *hint)
{
    CHECK(timeout_s > 0 && isfinite(timeout_s), "watchdog for %s: timeout %g s", what, timeout_s);
    wd_t *w = XCALLOC(1, sizeof *w, "watchdog");
    w->timeout_s = timeout_s;
    snprintf(w->what, sizeof w->what, "%s", what);
    snprintf(w->hint, sizeof w->hint, "%s", hint);
    pthread_condattr_t ca;
    CHECK(pthread_condattr_init(&ca) == 0, "pthread_condattr_init");
    CHECK(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0, "pthread_condattr_setclock");
    CHECK(pthread_cond_init(&w->cv, &ca) == 0, "pthread_cond_init");
    pthread_condattr_destroy(&ca);
    CHECK(pthread_mutex_init(&w->mu, NULL) == 0, "pthread_mutex_init");
    int rc = pthread_create(&w->thread, NULL, wd_main, w);
    CHECK(rc == 0, "cannot start the watchdog of %s: %s", what, strerror(rc));
    return w;
}

void wd_disarm(wd_t *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    CHECK(pthread_join(w->thread, NULL) == 0, "pthread_join (watchdog)");
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

double wd_timeout_s(const char *env, double floor_s, double at_least_s)
{
    const char *v = getenv(env);
    if (v && *v) {
        char *end = NULL;
        errno = 0;
        double t = strtod(v, &end);
        if (errno || end == v || *end || !(t > 0) || !isfinite(t))
            check_usage("%s='%s': not a positive number of seconds", env, v);
        return t;
    }
    return floor_s > at_least_s ? floor_s : at_least_s;
}
