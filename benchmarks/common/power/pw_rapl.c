/* pw_rapl: Linux powercap's RAPL zones (docs/energy.md "RAPL"): every
 * package zone intel-rapl:N and the DRAM sub-zone of each (intel-rapl:N:M
 * named "dram").  core and uncore are parts of the package and are left
 * out, so that nothing is counted twice; psys (the platform, on some client
 * parts) overlaps them all and is left out too. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/power/power.h"

/* an unsigned decimal counter: 0, or -1 with why */
static int read_count(const char *path, double *v, char *why, size_t whylen)
{
    char buf[64], *end;
    if (pw_read_small(path, buf, sizeof buf, 1, why, whylen)) return -1;
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno || end == buf || *end || buf[0] == '-') {
        snprintf(why, whylen, "%s: not an unsigned decimal count", path);
        return -1;
    }
    *v = (double)x;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_zone(power_sess_t *s, const char *dir, const char *zone, const char *domain,
                     const char *name)
{
    power_src_t *p = power_add(s, "rapl", domain, 1);
    if (!p) return;
    snprintf(p->name, sizeof p->name, "rapl:%s", name);
    p->per_j = 1e6;
    snprintf(p->path, sizeof p->path, "%s/%s/energy_uj", dir, zone);
    char range[560], why[200];
    snprintf(range, sizeof range, "%s/%s/max_energy_range_uj", dir, zone);
    if (read_count(range, &p->max_range, why, sizeof why)) p->max_range = 0; /* no wrap known */
}

void pw_rapl_open(power_sess_t *s)
{
    const char *root = s->cfg.powercap_root;
    DIR *d = opendir(root);
    if (!d) {
        power_absent(s, "rapl", "%s: %s (no powercap tree)", root, strerror(errno));
        return;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (!strncmp(e->d_name, "intel-rapl:", 11)) {
            names[n] = strdup(e->d_name);
            CHECK(names[n], "out of memory");
            n++;
        }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    int before = s->nsrc;
    for (int i = 0; i < n; i++) {
        char path[600], zname[64], why[200];
        snprintf(path, sizeof path, "%s/%s/name", root, names[i]);
        if (pw_read_small(path, zname, sizeof zname, 1, why, sizeof why)) continue;
        int sub = strchr(names[i] + 11, ':') != NULL;
        if (!sub && !strncmp(zname, "package-", 8)) {
            add_zone(s, root, names[i], "package", zname);
        } else if (!strcmp(zname, "dram")) {
            char nm[48];
            /* named after its package zone's number: intel-rapl:N:M -> dram-N */
            snprintf(nm, sizeof nm, "dram-%.*s", (int)strcspn(names[i] + 11, ":"), names[i] + 11);
            add_zone(s, root, names[i], "dram", nm);
        }
    }
    for (int i = 0; i < n; i++) free(names[i]);
    if (s->nsrc == before) power_absent(s, "rapl", "%s has no intel-rapl package or dram zone", root);
}

int pw_rapl_read(power_src_t *src, double *raw)
{
    return read_count(src->path, raw, src->reason, sizeof src->reason);
}
