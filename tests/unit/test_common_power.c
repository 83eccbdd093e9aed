/* power: the node's counters read over a window (docs/energy.md), on a
 * powercap-shaped folder the test advances (a wrap included), the fake NVML
 * (tests/support/fake_nvml.c) and a site meter file and command: exact
 * energies, and "n/a" with the reason for what cannot be read. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/power/power.h"
#include "tests/unit/tap.h"

static char tmp[256];

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmp, rel);
    FILE *f = fopen(p, "w");
    T_ASSERT(f, "cannot write %s", p);
    fputs(text, f);
    fclose(f);
}

static void dir(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmp, rel);
    T_ASSERT(mkdir(p, 0755) == 0, "mkdir %s", p);
}

static void zone(const char *z, const char *name, const char *energy, const char *range)
{
    char p[128];
    dir(z);
    snprintf(p, sizeof p, "%s/name", z);
    put(p, name);
    snprintf(p, sizeof p, "%s/energy_uj", z);
    put(p, energy);
    if (range) {
        snprintf(p, sizeof p, "%s/max_energy_range_uj", z);
        put(p, range);
    }
}

static void fresh(void)
{
    snprintf(tmp, sizeof tmp, "%s/power.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    T_ASSERT(mkdtemp(tmp), "mkdtemp");
}

static void cleanup(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd)) fprintf(stderr, "cannot remove %s\n", tmp);
}

/* absent paths under /proc/self: nobody, not even root, can create them (a
 * sentinel such as /nonexistent may exist: an earlier root run made it) */
static power_cfg_t cfg(const char *root)
{
    return (power_cfg_t){.powercap_root = root, .nvml_lib = "/proc/self/exadl-absent/libnvidia-ml.so.1",
                         .meter = NULL, .meter_accuracy = NAN, .interval_s = 0};
}

static const power_src_t *find(const power_sess_t *s, const char *name)
{
    for (int i = 0; i < s->nsrc; i++)
        if (!strcmp(s->src[i].name, name)) return &s->src[i];
    return NULL;
}

/* package 0 wraps at 10 J (10^7 uJ) between the second and third reading:
 * 9 J -> 9.5 J -> (wrap) 0.5 J -> 2 J is 0.5 + 1 + 1.5 = 3 J exactly */
static void test_rapl_wrap(void)
{
    fresh();
    zone("intel-rapl:0", "package-0\n", "9000000\n", "10000000\n");
    zone("intel-rapl:0:0", "dram\n", "100\n", "10000000\n");
    zone("intel-rapl:0:1", "core\n", "5\n", "10000000\n");   /* inside the package: left out */
    zone("intel-rapl-mmio:0", "package-0\n", "5\n", NULL);  /* a second view of it: left out */
    power_cfg_t c = cfg(tmp);
    power_sess_t s;
    power_open(&s, &c);
    T_ASSERT(s.nsrc == 2, "%d sources, want package and dram", s.nsrc);
    power_start(&s);
    put("intel-rapl:0/energy_uj", "9500000\n");
    put("intel-rapl:0:0/energy_uj", "1000100\n");
    power_sample(&s);
    put("intel-rapl:0/energy_uj", "500000\n");
    power_sample(&s);
    put("intel-rapl:0/energy_uj", "2000000\n");
    put("intel-rapl:0:0/energy_uj", "2000100\n");
    power_stop(&s);
    const power_src_t *pk = find(&s, "rapl:package-0"), *dr = find(&s, "rapl:dram-0");
    T_ASSERT(pk && dr, "sources named %s, %s", s.src[0].name, s.src[1].name);
    T_ASSERT(pk->ok && pk->energy_j == 3.0, "package %.17g J (ok %d: %s), want 3", pk->energy_j,
             pk->ok, pk->reason);
    T_ASSERT(dr->ok && dr->energy_j == 2.0, "dram %.17g J, want 2", dr->energy_j);
    const char *basis;
    char why[256];
    double e = power_node(&s, &basis, why, sizeof why);
    T_ASSERT(e == 5.0 && !strcmp(basis, "components"), "node %.17g J basis %s", e, basis);
    T_ASSERT(s.npts == 3, "%zu power points, want 3 (the readings after the start)", s.npts);
    power_close(&s);
    cleanup();
}

/* a counter that is not a number, one that is a folder, one that runs
 * backwards with no wrap range: each n/a with why, the node's energy n/a */
static void test_rapl_unreadable(void)
{
    fresh();
    zone("intel-rapl:0", "package-0\n", "12345\n", NULL);
    zone("intel-rapl:1", "package-1\n", "garbage\n", "100\n");
    dir("intel-rapl:2");
    put("intel-rapl:2/name", "package-2\n");
    dir("intel-rapl:2/energy_uj");
    power_cfg_t c = cfg(tmp);
    power_sess_t s;
    power_open(&s, &c);
    T_ASSERT(s.nsrc == 3, "%d sources", s.nsrc);
    power_start(&s);
    put("intel-rapl:0/energy_uj", "100\n");
    power_stop(&s);
    const power_src_t *a = find(&s, "rapl:package-0"), *b = find(&s, "rapl:package-1"),
                      *d = find(&s, "rapl:package-2");
    T_ASSERT(a && !a->ok && strstr(a->reason, "backwards"), "package-0: %s", a ? a->reason : "-");
    T_ASSERT(b && !b->ok && strstr(b->reason, "not an unsigned decimal"), "package-1: %s",
             b ? b->reason : "-");
    T_ASSERT(d && !d->ok && strstr(d->reason, "directory"), "package-2: %s", d ? d->reason : "-");
    const char *basis;
    char why[256];
    double e = power_node(&s, &basis, why, sizeof why);
    T_ASSERT(isnan(e) && !strcmp(basis, "n/a") && strstr(why, "package-0"), "node %g %s: %s", e,
             basis, why);
    power_close(&s);
    cleanup();
}

static void test_absent(void)
{
    power_cfg_t c = cfg("/proc/self/exadl-absent/powercap");
    power_sess_t s;
    power_open(&s, &c);
    T_ASSERT(s.nsrc == 0 && s.nabsent == 3, "%d sources, %d absent", s.nsrc, s.nabsent);
    T_ASSERT(strstr(s.absent[0].reason, "No such file"), "rapl: %s", s.absent[0].reason);
    T_ASSERT(strstr(s.absent[1].reason, "not loaded"), "nvml: %s", s.absent[1].reason);
    T_ASSERT(strstr(s.absent[2].reason, "EXADL_POWER_METER"), "site: %s", s.absent[2].reason);
    power_start(&s);
    power_stop(&s);
    const char *basis;
    char why[256];
    T_ASSERT(isnan(power_node(&s, &basis, why, sizeof why)) && !strcmp(basis, "n/a"), "%s", why);
    power_close(&s);
}

/* GPU 0 has the energy counter (1 J -> 4.5 J), GPU 1 only its power (250 W) */
static void test_nvml(void)
{
    char lib[PATH_MAX + 64], exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    T_ASSERT(n > 0, "readlink");
    exe[n] = 0;
    *strrchr(exe, '/') = 0;
    snprintf(lib, sizeof lib, "%s/../lib/libexadl_fake_nvml.so", exe);
    if (access(lib, R_OK)) T_SKIP("%s not built", lib);
    fresh();
    put("count", "2\n");
    put("gpu0_energy_mj", "1000\n");
    put("gpu1_power_mw", "250000\n");
    setenv("EXADL_FAKE_NVML_DIR", tmp, 1);
    power_cfg_t c = cfg("/proc/self/exadl-absent");
    c.nvml_lib = lib;
    power_sess_t s;
    power_open(&s, &c);
    T_ASSERT(s.nsrc == 2, "%d NVML sources (absent: %s)", s.nsrc, s.nabsent > 1 ? s.absent[1].reason : "");
    power_start(&s);
    put("gpu0_energy_mj", "4500\n");
    power_stop(&s);
    const power_src_t *g0 = find(&s, "nvml:gpu0"), *g1 = find(&s, "nvml:gpu1");
    T_ASSERT(g0 && g0->counter && g0->ok && g0->energy_j == 3.5, "gpu0 %.17g J", g0 ? g0->energy_j : -1);
    T_ASSERT(g1 && !g1->counter && g1->ok && g1->peak_w == 250.0 && g1->accuracy == 0.05,
             "gpu1 peak %.17g W", g1 ? g1->peak_w : -1);
    double avg = g1->energy_j / (s.t1 - s.t0);
    T_ASSERT(fabs(avg - 250.0) < 1e-9, "gpu1 average %.17g W", avg);
    /* a read failing during the window: n/a, never 0 */
    power_close(&s);
    power_open(&s, &c);
    power_start(&s);
    put("gpu0_energy_mj", "oops\n");
    power_stop(&s);
    g0 = find(&s, "nvml:gpu0");
    T_ASSERT(g0 && !g0->ok && strstr(g0->reason, "Unknown Error"), "gpu0 %s", g0 ? g0->reason : "-");
    power_close(&s);
    unsetenv("EXADL_FAKE_NVML_DIR");
    cleanup();
}

/* the site meter, a file (kJ) and a command (J); a bad reading is n/a */
static void test_site(void)
{
    fresh();
    char m[400], f[300];
    snprintf(f, sizeof f, "%s/meter", tmp);
    put("meter", "12.5 kJ\n");
    snprintf(m, sizeof m, "file:%s", f);
    power_cfg_t c = cfg("/proc/self/exadl-absent");
    c.meter = m;
    c.meter_accuracy = 0.01;
    power_sess_t s;
    power_open(&s, &c);
    T_ASSERT(s.nsrc == 1 && s.src[0].ok && s.src[0].counter, "meter: %s", s.src[0].reason);
    power_start(&s);
    put("meter", "13 kJ\n");
    power_stop(&s);
    const char *basis;
    char why[256];
    double e = power_node(&s, &basis, why, sizeof why);
    T_ASSERT(e == 500.0 && !strcmp(basis, "meter") && s.src[0].accuracy == 0.01, "node %.17g J %s",
             e, basis);
    power_close(&s);
    snprintf(m, sizeof m, "command:cat %s", f);
    power_open(&s, &c);
    power_start(&s);
    put("meter", "13250 J\n");
    power_stop(&s);
    e = power_node(&s, &basis, why, sizeof why);
    T_ASSERT(e == 250.0 && !strcmp(basis, "meter"), "command: node %.17g J %s (%s)", e, basis,
             s.src[0].reason);
    power_close(&s);
    put("meter", "13 Wh\n");
    power_open(&s, &c);
    T_ASSERT(!s.src[0].ok && strstr(s.src[0].reason, "NUMBER J"), "unit Wh: %s", s.src[0].reason);
    power_close(&s);
    snprintf(m, sizeof m, "command:false");
    power_open(&s, &c);
    T_ASSERT(!s.src[0].ok && strstr(s.src[0].reason, "status 1"), "false: %s", s.src[0].reason);
    power_close(&s);
    cleanup();
}

static void test_env(void)
{
    power_cfg_t c;
    char err[256];
    setenv("EXADL_POWER_INTERVAL_S", "-1", 1);
    T_ASSERT(power_cfg_env(&c, err, sizeof err) == -1 && strstr(err, "EXADL_POWER_INTERVAL_S"), "%s",
             err);
    unsetenv("EXADL_POWER_INTERVAL_S");
    setenv("EXADL_POWER_METER", "/dev/meter", 1);
    T_ASSERT(power_cfg_env(&c, err, sizeof err) == -1 && strstr(err, "EXADL_POWER_METER"), "%s", err);
    unsetenv("EXADL_POWER_METER");
    T_ASSERT(power_cfg_env(&c, err, sizeof err) == 0 && c.interval_s == 0.1, "defaults");
}

int main(void)
{
    T_RUN(test_rapl_wrap);
    T_RUN(test_rapl_unreadable);
    T_RUN(test_absent);
    T_RUN(test_nvml);
    T_RUN(test_site);
    T_RUN(test_env);
    T_DONE();
}
