#include "benchmarks/common/power/power.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"

static int env_double(const char *name, double dflt, double lo, double hi, double *v, char *err,
                      size_t errlen)
{
    const char *e = getenv(name);
    *v = dflt;
    if (!e || !*e) return 0;
    char *end;
    errno = 0;
    double x = strtod(e, &end);
    if (errno || end == e || *end || !(x >= lo && x <= hi)) {
        snprintf(err, errlen, "environment variable %s: '%.40s' is not a number in [%g, %g]", name,
                 e, lo, hi);
        return -1;
    }
    *v = x;
    return 0;
}

int power_cfg_env(power_cfg_t *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    const char *root = getenv("EXADL_POWERCAP_ROOT");
    c->powercap_root = root && *root ? root : "/sys/class/powercap";
    const char *lib = getenv("EXADL_NVML_LIB");
    c->nvml_lib = lib && *lib ? lib : "libnvidia-ml.so.1";
    const char *m = getenv("EXADL_POWER_METER");
    c->meter = m && *m ? m : NULL;
    if (c->meter && strncmp(c->meter, "file:", 5) && strncmp(c->meter, "command:", 8)) {
        snprintf(err, errlen,
                 "environment variable EXADL_POWER_METER: '%.40s' is neither file:PATH nor "
                 "command:PROGRAM [ARGS]", c->meter);
        return -1;
    }
    /* 3600 s: an interval longer than an hour samples nothing useful */
    if (env_double("EXADL_POWER_INTERVAL_S", 0.1, 0, 3600, &c->interval_s, err, errlen)) return -1;
    return env_double("EXADL_POWER_METER_ACCURACY", NAN, 0, 1, &c->meter_accuracy, err, errlen);
}

power_src_t *power_add(power_sess_t *s, const char *source, const char *domain, int counter)
{
    if (s->nsrc == POWER_MAX_SOURCES) return NULL;
    power_src_t *p = &s->src[s->nsrc++];
    memset(p, 0, sizeof *p);
    snprintf(p->source, sizeof p->source, "%s", source);
    snprintf(p->domain, sizeof p->domain, "%s", domain);
    p->counter = counter;
    p->accuracy = NAN;
    p->ok = 1;
    return p;
}

void power_absent(power_sess_t *s, const char *source, const char *fmt, ...)
{
    if (s->nabsent == POWER_MAX_ABSENT) return;
    power_absent_t *a = &s->absent[s->nabsent++];
    snprintf(a->source, sizeof a->source, "%s", source);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->reason, sizeof a->reason, fmt, ap);
    va_end(ap);
}

void power_open(power_sess_t *s, const power_cfg_t *c)
{
    memset(s, 0, sizeof *s);
    s->cfg = *c;
    pw_rapl_open(s);
    pw_nvml_open(s);
    pw_site_open(s);
}

static int raw_read(power_sess_t *s, power_src_t *p, double *raw)
{
    if (!strcmp(p->source, "rapl")) return pw_rapl_read(p, raw);
    if (!strcmp(p->source, "nvml")) return pw_nvml_read(s, p, raw);
    return pw_site_read(p, raw);
}

/* a source's reading at time t: the energy since its last reading (a
 * counter, unwrapped) or its power, the interval's power into last_w */
static void read_one(power_sess_t *s, power_src_t *p, double t, int first)
{
    double raw;
    if (!p->ok) return;
    if (raw_read(s, p, &raw)) {
        p->ok = 0;
        return;
    }
    double dt = t - p->last_t;
    if (p->counter) {
        if (!first) {
            double d = raw - p->last;
            if (raw < p->last) {
                /* powercap counts from 0 up to max_energy_range_uj, then
                 * starts again at 0: one wrap between two readings (the
                 * interval is far shorter than a wrap's period) */
                if (p->max_range > 0 && p->last <= p->max_range) {
                    d = raw + (p->max_range - p->last);
                } else {
                    snprintf(p->reason, sizeof p->reason,
                             "the energy counter went backwards (%.17g then %.17g) and has no "
                             "wrap range", p->last, raw);
                    p->ok = 0;
                    return;
                }
            }
            /* the raw units summed and divided once: exact for whole units */
            p->sum_raw += d;
            p->energy_j = p->sum_raw / p->per_j;
            p->last_w = dt > 0 ? d / p->per_j / dt : NAN;
        }
    } else {
        /* power samples: the trapezoid between this reading and the last */
        if (!first) {
            p->energy_j += 0.5 * (p->last + raw) * dt;
            p->last_w = raw;
        } else {
            p->last_w = raw;
        }
    }
    if (!first && isfinite(p->last_w) && p->last_w > p->peak_w) p->peak_w = p->last_w;
    if (first && !p->counter) p->peak_w = raw;
    p->last = raw;
    p->last_t = t;
}

static int in_basis(const power_sess_t *s, const power_src_t *p)
{
    int meter = 0;
    for (int i = 0; i < s->nsrc; i++) meter |= !strcmp(s->src[i].source, "site");
    return meter ? !strcmp(p->source, "site") : strcmp(p->source, "site") != 0;
}

static void sample_at(power_sess_t *s, double t, int first)
{
    double w = 0;
    int any = 0;
    for (int i = 0; i < s->nsrc; i++) {
        power_src_t *p = &s->src[i];
        read_one(s, p, t, first);
        if (p->ok && in_basis(s, p) && isfinite(p->last_w)) w += p->last_w, any = 1;
    }
    if (first || !any) return;
    if (s->npts == POWER_MAX_POINTS) {
        s->truncated = 1;
        return;
    }
    s->pts[s->npts++] = (power_point_t){.t_s = t - s->t0, .w = w};
}

void power_sample(power_sess_t *s)
{
    pthread_mutex_lock(&s->mu);
    sample_at(s, timer_now_s(), 0);
    pthread_mutex_unlock(&s->mu);
}

static void *sampler(void *arg)
{
    power_sess_t *s = arg;
    struct timespec next;
    CHECK_SYS(clock_gettime(CLOCK_MONOTONIC, &next));
    long step_ns = (long)(s->cfg.interval_s * 1e9);
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        next.tv_sec += step_ns / 1000000000L;
        next.tv_nsec += step_ns % 1000000000L;
        if (next.tv_nsec >= 1000000000L) next.tv_sec++, next.tv_nsec -= 1000000000L;
        int rc = 0;
        while (!s->stop && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&s->cv, &s->mu, &next);
        if (s->stop) break;
        sample_at(s, timer_now_s(), 0);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void power_start(power_sess_t *s)
{
    s->pts = XCALLOC(POWER_MAX_POINTS, sizeof *s->pts, "power samples");
    s->t0 = timer_now_s();
    for (int i = 0; i < s->nsrc; i++) s->src[i].last_t = s->t0;
    CHECK(pthread_mutex_init(&s->mu, NULL) == 0, "mutex");
    pthread_condattr_t ca;
    CHECK(pthread_condattr_init(&ca) == 0, "condattr");
    CHECK(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0, "monotonic condition clock");
    CHECK(pthread_cond_init(&s->cv, &ca) == 0, "condition");
    pthread_condattr_destroy(&ca);
    sample_at(s, s->t0, 1);
    s->running = s->cfg.interval_s > 0 && s->nsrc > 0;
    if (s->running) CHECK(pthread_create(&s->th, NULL, sampler, s) == 0, "power sampler thread");
}

void power_stop(power_sess_t *s)
{
    if (s->running) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        CHECK(pthread_join(s->th, NULL) == 0, "power sampler thread");
        s->running = 0;
    }
    s->t1 = timer_now_s();
    sample_at(s, s->t1, 0);
    /* no sample between the ends: the peak is the window's average */
    for (int i = 0; i < s->nsrc; i++) {
        power_src_t *p = &s->src[i];
        if (p->ok && p->counter && s->npts <= 1 && s->t1 > s->t0)
            p->peak_w = p->energy_j / (s->t1 - s->t0);
    }
}

double power_node(const power_sess_t *s, const char **basis, char *why, size_t whylen)
{
    double meter = NAN, comp = 0;
    int ncomp = 0, bad = -1;
    for (int i = 0; i < s->nsrc; i++) {
        const power_src_t *p = &s->src[i];
        if (!strcmp(p->source, "site")) {
            if (p->ok) meter = p->energy_j;
            continue;
        }
        if (!p->ok && bad < 0) bad = i;
        comp += p->energy_j, ncomp++;
    }
    if (isfinite(meter)) {
        *basis = "meter";
        snprintf(why, whylen, "the site meter (the whole node)");
        return meter;
    }
    if (ncomp && bad < 0) {
        *basis = "components";
        snprintf(why, whylen, "the sum of the RAPL and NVML counters (CPU packages, DRAM, GPUs: "
                              "not the whole node)");
        return comp;
    }
    *basis = "n/a";
    if (bad >= 0)
        snprintf(why, whylen, "%s: %s", s->src[bad].name, s->src[bad].reason);
    else
        snprintf(why, whylen, "no power source on this node%s",
                 s->nabsent ? " (see absent)" : "");
    return NAN;
}

void power_close(power_sess_t *s)
{
    if (s->pts) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
    }
    free(s->pts);
    s->pts = NULL;
    pw_nvml_close(s);
}

const char *power_note(const power_src_t *src)
{
    if (!strcmp(src->source, "rapl"))
        return "RAPL: the vendor states no accuracy; a model on Sandy and Ivy Bridge, a "
               "measurement from Haswell on; the CPU package or its DRAM only, not the node";
    if (!strcmp(src->source, "site"))
        return "the site's node meter: its accuracy as the site states it "
               "(EXADL_POWER_METER_ACCURACY)";
    return src->counter ? "NVML total energy counter (mJ, Volta and later): the GPU board; "
                          "NVIDIA states no accuracy for it"
                        : "NVML board power sampled and integrated: +-5% of the draw on Fermi and "
                          "Kepler (NVIDIA), a 1 s average from Ampere on (GA100 excepted)";
}

int pw_read_small(const char *path, char *buf, size_t n, int first_line, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "%.150s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t got = read(fd, buf, n - 1);
    int e = errno;
    close(fd);
    if (got < 0) {
        snprintf(why, whylen, "%.150s: %s", path, strerror(e));
        return -1;
    }
    buf[got] = 0;
    if (first_line) buf[strcspn(buf, "\n")] = 0;
    return 0;
}
