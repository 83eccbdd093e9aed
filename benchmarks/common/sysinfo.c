#define _GNU_SOURCE
#include "benchmarks/common/sysinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "benchmarks/common/check.h"

static void read_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t') colon++;
                colon[strcspn(colon, "\n")] = 0;
                snprintf(buf, len, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

void sysinfo_set_version(sysinfo_t *si, const char *key, const char *value)
{
    int i;
    for (i = 0; i < si->nversions; i++)
        if (!strcmp(si->versions[i].key, key)) break;
    if (i == si->nversions) {
        CHECK(si->nversions < SYSINFO_MAX_VERSIONS, "too many version entries");
        si->nversions++;
        snprintf(si->versions[i].key, sizeof si->versions[i].key, "%s", key);
    }
    snprintf(si->versions[i].value, sizeof si->versions[i].value, "%s", value ? value : "");
}

void sysinfo_collect(sysinfo_t *si)
{
    memset(si, 0, sizeof *si);
    read_cpu_model(si->cpu_model, sizeof si->cpu_model);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    si->cpu_cores = n > 0 ? (int)n : 1;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(si->os, sizeof si->os, "%s %s %s", u.sysname, u.release, u.machine);
    static const char *fixed[] = {"mpi", "nccl", "cudnn", "cuda_runtime", "cuda_driver", NULL};
    for (int i = 0; fixed[i]; i++) sysinfo_set_version(si, fixed[i], NULL);
#if defined(__clang__)
    sysinfo_set_version(si, "compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    sysinfo_set_version(si, "compiler", "gcc " __VERSION__);
#else
    sysinfo_set_version(si, "compiler", "unknown");
#endif
}

void sysinfo_set_hosts(sysinfo_t *si, char **hosts, int nhosts)
{
    si->hosts = hosts;
    si->nhosts = nhosts;
}

void sysinfo_write(const sysinfo_t *si, rec_t *r)
{
    rec_key(r, "system");
    rec_map_begin(r);
    rec_key(r, "hosts");
    rec_flow_seq_begin(r);
    if (si->nhosts == 0) rec_str(r, check_host());
    for (int i = 0; i < si->nhosts; i++) rec_str(r, si->hosts[i]);
    rec_seq_end(r);
    rec_key(r, "cpu");
    rec_map_begin(r);
    rec_kv_str(r, "model", si->cpu_model);
    rec_kv_int(r, "cores", si->cpu_cores);
    rec_map_end(r);
    rec_kv_str(r, "os", si->os);
    rec_key(r, "gpu");
    rec_map_begin(r);
    rec_kv_str(r, "model", si->gpu_model[0] ? si->gpu_model : NULL);
    rec_kv_int(r, "count", si->gpu_count);
    rec_kv_str(r, "driver", si->gpu_driver[0] ? si->gpu_driver : NULL);
    rec_kv_str(r, "compute_capability", si->gpu_cc[0] ? si->gpu_cc : NULL);
    rec_key(r, "memory_bytes");
    if (si->gpu_memory_bytes > 0) rec_int(r, si->gpu_memory_bytes); else rec_null(r);
    rec_map_end(r);
    rec_key(r, "versions");
    rec_map_begin(r);
    for (int i = 0; i < si->nversions; i++)
        rec_kv_str(r, si->versions[i].key, si->versions[i].value[0] ? si->versions[i].value : NULL);
    rec_map_end(r);
    /* an emulated cluster (tests/support/vcluster.sh) says so, that no one
     * takes its numbers for a real cluster's; absent elsewhere */
    const char *emu = getenv("EXADL_EMULATED_NETWORK");
    if (emu && *emu) rec_kv_str(r, "network_emulated", emu);
    rec_map_end(r);
}
