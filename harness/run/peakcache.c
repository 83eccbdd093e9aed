/* The per-host peak cache (peakcache.h). */
#define _GNU_SOURCE
#include "harness/run/peakcache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* /proc/cpuinfo's first "model name" value, trimmed; "unknown" without one */
static const char *cpu_model(arena_t *a)
{
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (!f) return "unknown";
    char line[512];
    const char *r = "unknown";
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10)) continue;
        char *v = strchr(line, ':');
        if (!v) continue;
        v += 1 + strspn(v + 1, " \t");
        size_t n = strcspn(v, "\r\n");
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
        if (n) r = ar_strndup(a, v, n);
        break;
    }
    fclose(f);
    return r;
}

void peakcache_machine(arena_t *a, peak_machine_t *m)
{
    m->host = short_host();
    m->cpu_model = cpu_model(a);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->cpus = n > 0 && n < (1 << 20) ? (int)n : 0;
}

const char *peakcache_path(arena_t *a, const peak_machine_t *m)
{
    const char *env = getenv("EXADL_PEAK_CACHE");
    if (env && *env) return env;
    const char *name = ar_printf(a, "exadl/peak-%s.yaml", sanitize_name(a, m->host));
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') return path_join(a, xdg, name);
    const char *home = getenv("HOME");
    if (home && home[0] == '/') return path_join(a, path_join(a, home, ".cache"), name);
    return NULL;
}

int peakcache_load(arena_t *a, const char *path, const peak_machine_t *m, probe_t *p,
                   const char **why)
{
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        *why = ar_printf(a, "no peak cache at %s yet", path);
        return 0;
    }
    char err[1024];
    size_t len;
    char *text = fileio_read(path, &len, (size_t)1 << 20, err, sizeof err);
    if (!text) return *why = ar_strdup(a, err), -1;
    probe_t c;
    int rc = probe_read_text(a, text, len, path, &c, err, sizeof err);
    free(text);
    if (rc) return *why = ar_strdup(a, err), -1;
    if (!c.has_peak || c.peak.error || !c.peak_cpu_model || !c.peak_host)
        return *why = ar_printf(a, "%s holds no measured peak with its machine (host, cpu_model, "
                                   "cpus)", path), -1;
    if (strcmp(c.peak_host, m->host) || strcmp(c.peak_cpu_model, m->cpu_model) || c.peak_cpus != m->cpus) {
        *why = ar_printf(a, "%s is for another machine (%s, %s, %d CPUs; this is %s, %s, %d CPUs)",
                         path, c.peak_host, c.peak_cpu_model, c.peak_cpus, m->host, m->cpu_model,
                         m->cpus);
        return 0;
    }
    p->peak = c.peak;
    p->has_peak = 1;
    p->peak_via_launcher = 0;
    p->peak_host = c.peak_host;
    p->peak_outputs = c.peak_outputs, p->npeak_outputs = c.npeak_outputs;
    p->peak_cpu_model = c.peak_cpu_model, p->peak_cpus = c.peak_cpus;
    p->peak_measured_utc = c.peak_measured_utc;
    p->peak_intf = c.peak_intf;
    p->peak_from = ar_printf(a, "the peak cache %s", path);
    return 1;
}

/* mkdir -p of path's folder */
static int make_dirs(char *dir)
{
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        int bad = mkdir(dir, 0755) && errno != EEXIST;
        *s = '/';
        if (bad) return -1;
    }
    return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

int peakcache_store(const char *path, const probe_t *p, char *err, size_t errlen)
{
    arena_t *a = ar_new();
    char *dir = path_dirname(a, path);
    if (dir && *dir && strcmp(dir, ".") && make_dirs(dir)) {
        snprintf(err, errlen, "%s: cannot make the folder: %s", dir, strerror(errno));
        ar_free(a);
        return -1;
    }
    ar_free(a);
    probe_t c = {0};
    c.has_peak = 1;
    c.peak = p->peak;
    c.peak_host = p->peak_host;
    c.peak_outputs = p->peak_outputs, c.npeak_outputs = p->npeak_outputs;
    c.peak_cpu_model = p->peak_cpu_model, c.peak_cpus = p->peak_cpus;
    c.peak_measured_utc = p->peak_measured_utc;
    c.peak_intf = p->peak_intf;
    c.peak_from = p->peak_from;
    return probe_write_file(path, &c, err, errlen);
}
