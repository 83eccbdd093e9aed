/* How busy the machine was during a launch (interference.h). */
#define _GNU_SOURCE
#include "harness/run/interference.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"

static double tv_s(struct timeval t) { return (double)t.tv_sec + 1e-6 * (double)t.tv_usec; }

static double own_cpu_s(void)
{
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &kids)) return NAN;
    return tv_s(self.ru_utime) + tv_s(self.ru_stime) + tv_s(kids.ru_utime) + tv_s(kids.ru_stime);
}

/* /proc/stat: the "cpu" line's busy and steal ticks, and the cpuN lines */
static void read_stat(intf_sample_t *s)
{
    FILE *f = fopen("/proc/stat", "re");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "cpu", 3)) continue;
        if (line[3] >= '0' && line[3] <= '9') {
            s->cpus++;
            continue;
        }
        if (line[3] != ' ') continue;
        /* user nice system idle iowait irq softirq steal ... */
        unsigned long long v[8] = {0};
        int n = sscanf(line + 3, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                       &v[3], &v[4], &v[5], &v[6], &v[7]);
        if (n < 7) continue;
        s->busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6];
        s->have_steal = n >= 8;
        s->steal_ticks = n >= 8 ? v[7] : 0;
        s->have_stat = 1;
    }
    fclose(f);
    if (s->cpus < 1) s->have_stat = 0;
}

void intf_sample(intf_sample_t *s)
{
    memset(s, 0, sizeof *s);
    s->t_s = timer_now_s();
    s->load1 = NAN;
    FILE *f = fopen("/proc/loadavg", "re");
    if (f) {
        double l;
        if (fscanf(f, "%lf", &l) == 1 && isfinite(l) && l >= 0) s->load1 = l;
        fclose(f);
    }
    read_stat(s);
    s->own_cpu_s = own_cpu_s();
}

void intf_unknown(intf_t *out, const char *why)
{
    memset(out, 0, sizeof *out);
    out->measured = 1;
    out->verdict = INTF_UNKNOWN;
    out->why = why;
    out->load1_before = out->load1_after = out->wall_s = out->own_cpu_s = NAN;
    out->own_cores = out->others_cores = out->steal_cores = out->threshold_cores = NAN;
}

void intf_judge(const intf_sample_t *b, const intf_sample_t *e, int ranks_x_threads, intf_t *out)
{
    intf_unknown(out, NULL);
    out->load1_before = b->load1, out->load1_after = e->load1;
    out->wall_s = e->t_s - b->t_s;
    out->own_cpu_s = e->own_cpu_s - b->own_cpu_s;
    out->cpus = e->cpus;
    if (!b->have_stat || !e->have_stat || b->cpus != e->cpus) {
        out->why = "no /proc/stat to read (or its CPUs changed during the launch)";
        return;
    }
    if (!(out->wall_s >= INTF_MIN_WALL_S)) {
        out->why = "the launch took less than 0.05 s: too short for the kernel's tick counters";
        return;
    }
    if (e->busy_ticks < b->busy_ticks || e->steal_ticks < b->steal_ticks || !isfinite(out->own_cpu_s)) {
        out->why = "the kernel's counters went backwards";
        return;
    }
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0) hz = 100;
    double busy_s = (double)(e->busy_ticks - b->busy_ticks) / (double)hz;
    int want = ranks_x_threads > 0 ? ranks_x_threads : 1;
    out->launch_cores = want < out->cpus ? want : out->cpus;
    out->own_cores = out->own_cpu_s / out->wall_s;
    out->others_cores = fmax(0, busy_s - out->own_cpu_s) / out->wall_s;
    out->steal_cores = e->have_steal && b->have_steal
                           ? (double)(e->steal_ticks - b->steal_ticks) / (double)hz / out->wall_s
                           : NAN;
    out->threshold_cores = INTF_SLACK_CORES + INTF_FREE_SHARE * (out->cpus - out->launch_cores);
    double taken = out->others_cores + (isfinite(out->steal_cores) ? out->steal_cores : 0);
    out->verdict = taken > out->threshold_cores ? INTF_BUSY : INTF_QUIET;
}

const char *intf_verdict_name(intf_verdict_t v)
{
    return v == INTF_BUSY ? "busy" : v == INTF_QUIET ? "quiet" : "unknown";
}

const char *intf_line(arena_t *a, const intf_t *x)
{
    if (!x->measured) return "not recorded";
    if (x->verdict == INTF_UNKNOWN) return ar_printf(a, "unknown: %s", x->why ? x->why : "?");
    sb_t b = {0};
    if (isfinite(x->load1_before)) sb_printf(&b, "load %.1f on %d cores; ", x->load1_before, x->cpus);
    else sb_printf(&b, "%d cores; ", x->cpus);
    sb_printf(&b, "other processes %.2f cores", x->others_cores);
    if (isfinite(x->steal_cores) && x->steal_cores >= 0.005)
        sb_printf(&b, ", steal %.2f cores", x->steal_cores);
    sb_printf(&b, "; the launch %.2f cores of the %d it asked for", x->own_cores, x->launch_cores);
    const char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}

/* the numbers of an intf_t, in the order every writer and reader uses */
static const struct {
    const char *key;
    size_t off;
} nums[] = {
    {"loadavg_1min_before", offsetof(intf_t, load1_before)},
    {"loadavg_1min_after", offsetof(intf_t, load1_after)},
    {"wall_s", offsetof(intf_t, wall_s)},
    {"own_cpu_s", offsetof(intf_t, own_cpu_s)},
    {"own_cores", offsetof(intf_t, own_cores)},
    {"others_cores", offsetof(intf_t, others_cores)},
    {"steal_cores", offsetof(intf_t, steal_cores)},
    {"busy_above_cores", offsetof(intf_t, threshold_cores)},
};
enum { NNUMS = sizeof nums / sizeof *nums };

static double *num_at(intf_t *x, size_t i) { return (double *)((char *)x + nums[i].off); }
static double num_of(const intf_t *x, size_t i) { return *(const double *)((const char *)x + nums[i].off); }

void intf_write(rec_t *w, const char *key, const intf_t *x)
{
    if (!x->measured) return;
    rec_key(w, key);
    rec_flow_map_begin(w);
    rec_kv_str(w, "verdict", intf_verdict_name(x->verdict));
    if (x->why) rec_kv_str(w, "why", x->why);
    rec_kv_int(w, "cpus", x->cpus);
    rec_kv_int(w, "launch_cores", x->launch_cores);
    for (size_t i = 0; i < NNUMS; i++) rec_kv_double(w, nums[i].key, num_of(x, i));
    rec_map_end(w);
}

void intf_journal(sb_t *b, const intf_t *x)
{
    sb_printf(b, "{verdict: %s", intf_verdict_name(x->verdict));
    if (x->why) { /* exadl's own static words: printable ASCII, no quotes */
        sb_puts(b, ", why: \"");
        for (const char *p = x->why; *p; p++)
            if (*p >= 32 && *p < 127 && *p != '"' && *p != '\\') sb_putn(b, p, 1);
        sb_puts(b, "\"");
    }
    sb_printf(b, ", cpus: %d, launch_cores: %d", x->cpus, x->launch_cores);
    for (size_t i = 0; i < NNUMS; i++) {
        char num[40];
        rec_format_double(num_of(x, i), num, sizeof num);
        sb_printf(b, ", %s: %s", nums[i].key, num);
    }
    sb_puts(b, "}");
}

int intf_read(const rd_t *c, const ytnode *m, const char *key, intf_t *x)
{
    const ytnode *n;
    memset(x, 0, sizeof *x);
    if (rd_map(c, m, key, &n)) return -1;
    if (!n) return 0;
    const char *v;
    long long cpus, lc;
    if (rd_str_req(c, n, "verdict", &v) || rd_str(c, n, "why", NULL, &x->why) ||
        rd_int_in(c, n, "cpus", 0, 0, 1 << 20, &cpus) ||
        rd_int_in(c, n, "launch_cores", 0, 0, 1 << 20, &lc))
        return -1;
    for (size_t i = 0; i < NNUMS; i++)
        if (rd_num(c, n, nums[i].key, RD_ANY, num_at(x, i))) return -1;
    for (const char *p = x->why; p && *p; p++) /* it reaches the report as it is */
        if ((unsigned char)*p < 32 || *p == 127)
            return rd_err(c, yt_get(n, "why"), "why: a control character");
    if (!strcmp(v, "busy")) x->verdict = INTF_BUSY;
    else if (!strcmp(v, "quiet")) x->verdict = INTF_QUIET;
    else if (!strcmp(v, "unknown")) x->verdict = INTF_UNKNOWN;
    else return rd_err(c, yt_get(n, "verdict"), "verdict: '%s' (quiet, busy or unknown)", v);
    x->cpus = (int)cpus, x->launch_cores = (int)lc;
    x->measured = 1;
    return 0;
}
