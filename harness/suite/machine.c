/* What this machine or Slurm allocation offers (machine.h): the host's
 * cores and GPUs, and inside an allocation the ranks and nodes it holds,
 * derived from Slurm's variables (docs/harness.md "Running under Slurm"). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/suite/machine.h"

static int count_gpus(void)
{
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    int present = 0;
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') present++;
        closedir(d);
    }
    if (!present) return 0;
    if (cvd) {
        if (!*cvd || !strcmp(cvd, "-1") || !strcmp(cvd, "none")) return 0;
        int n = 1;
        for (const char *p = cvd; *p; p++) n += *p == ',';
        return n < present ? n : present;
    }
    return present;
}

/* a whole non-negative decimal number below 10^7; -1 when s is anything else */
static long count_of(const char *s)
{
    if (!s || !isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    return *end || errno || v > 10000000 ? -1 : v;
}

int machine_count_list(const char *s, int *v, int max)
{
    /* Slurm's compressed per-node counts: "72(x2),36" is 72, 72, 36 */
    int n = 0;
    if (!s || !*s) return -1;
    for (const char *p = s; *p;) {
        if (!isdigit((unsigned char)*p)) return -1;
        char *end;
        long c = strtol(p, &end, 10);
        long rep = 1;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x' || !isdigit((unsigned char)p[2])) return -1;
            rep = strtol(p + 2, &end, 10);
            if (*end != ')' || rep < 1) return -1;
            p = end + 1;
        }
        if (c > 10000000 || rep > 100000) return -1;
        for (long i = 0; i < rep; i++) {
            if (n >= max) return -1;
            v[n++] = (int)c;
        }
        if (*p == ',') {
            p++;
            if (!*p) return -1;
        } else if (*p) {
            return -1;
        }
    }
    return n;
}

/* SLURM_GPUS_PER_NODE: "4", "a100:4", "a100:2,v100:2" (the counts added) */
static int gpus_of(const char *s)
{
    if (!s || !*s) return -1;
    int total = 0;
    for (const char *p = s; *p;) {
        size_t l = strcspn(p, ",");
        const char *c = p + l;
        while (c > p && isdigit((unsigned char)c[-1])) c--;
        if (c == p + l || (c > p && c[-1] != ':')) return -1;
        total += atoi(c);
        p += l + (p[l] == ',');
    }
    return total;
}

typedef struct {
    const char *(*get)(void *ctx, const char *name);
    void *ctx;
    machine_t *m;
} env_t;

static const char *env(const env_t *e, const char *name)
{
    const char *v = e->get(e->ctx, name);
    return v && *v ? v : NULL;
}

static int bad(const env_t *e, const char *name, const char *v, const char *what)
{
    snprintf(e->m->slurm_error, sizeof e->m->slurm_error, "%s='%.60s' is not %s", name, v, what);
    return -1;
}

/* a variable that must be a count when set; 0 when unset, -1 when malformed */
static int env_count(const env_t *e, const char *name, long *out)
{
    const char *v = env(e, name);
    *out = 0;
    if (!v) return 0;
    *out = count_of(v);
    return *out < 0 ? bad(e, name, v, "a whole number") : 0;
}

enum { MAX_NODES = 65536 };

/* per-node counts of list variable name over nodes nodes: n entries, the most on
 * one node and the total; 0 when unset, -1 when malformed or of another length */
static int env_list(const env_t *e, const char *name, int nodes, int *most, long *total,
                    int *uneven)
{
    const char *v = env(e, name);
    *most = 0, *total = 0, *uneven = 0;
    if (!v) return 0;
    static int c[MAX_NODES];
    int n = machine_count_list(v, c, MAX_NODES);
    if (n < 0) return bad(e, name, v, "a Slurm count list such as 4(x2),2");
    if (n != nodes) {
        snprintf(e->m->slurm_error, sizeof e->m->slurm_error,
                 "%s='%.60s' lists %d node(s) but the allocation has %d", name, v, n, nodes);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (c[i] > *most) *most = c[i];
        *total += c[i];
        *uneven |= c[i] != c[0];
    }
    return 1;
}

static void derive(const env_t *e)
{
    machine_t *m = e->m;
    long nodes, ntasks, ntpn, cpt, gpn = 0;
    if (env_count(e, "SLURM_JOB_NUM_NODES", &nodes) || (!nodes && env_count(e, "SLURM_NNODES", &nodes)) ||
        env_count(e, "SLURM_NTASKS", &ntasks) || (!ntasks && env_count(e, "SLURM_NPROCS", &ntasks)) ||
        env_count(e, "SLURM_NTASKS_PER_NODE", &ntpn) || env_count(e, "SLURM_CPUS_PER_TASK", &cpt))
        return;
    if (nodes < 1) nodes = 1;
    if (nodes > MAX_NODES) {
        bad(e, "SLURM_JOB_NUM_NODES", env(e, "SLURM_JOB_NUM_NODES"), "a node count exadl plans for");
        return;
    }
    m->slurm_nodes = (int)nodes;
    const char *g = env(e, "SLURM_GPUS_PER_NODE");
    if (g && (gpn = gpus_of(g)) < 0) {
        bad(e, "SLURM_GPUS_PER_NODE", g, "a GPU count such as 4 or a100:4");
        return;
    }
    if (!g && env_count(e, "SLURM_GPUS_ON_NODE", &gpn)) return;
    m->slurm_gpus_per_node = (int)gpn;
    int tmost, cmost, tun, cun;
    long ttot, ctot;
    int has_t = env_list(e, "SLURM_TASKS_PER_NODE", (int)nodes, &tmost, &ttot, &tun);
    int has_c = env_list(e, "SLURM_JOB_CPUS_PER_NODE", (int)nodes, &cmost, &ctot, &cun);
    if (has_t < 0 || has_c < 0) return;
    char *how = m->slurm_how;
    size_t hl = sizeof m->slurm_how;
    if (ntasks > 0) {
        m->slurm_tasks = (int)ntasks;
        m->slurm_tasks_per_node = ntpn > 0 ? (int)ntpn : has_t ? tmost : (int)((ntasks + nodes - 1) / nodes);
        snprintf(how, hl, "SLURM_NTASKS=%ld on %ld node(s), at most %d per node%s", ntasks, nodes,
                 m->slurm_tasks_per_node, has_t && tun ? " (uneven: SLURM_TASKS_PER_NODE)" : "");
    } else if (gpn > 0) { /* -N 4 --gpus-per-node=4: one rank per GPU */
        m->slurm_tasks_per_node = (int)gpn;
        m->slurm_tasks = (int)(gpn * nodes);
        snprintf(how, hl, "no SLURM_NTASKS: one rank per GPU, %ld GPU(s) per node on %ld node(s)",
                 gpn, nodes);
    } else if (has_c) { /* -N 4 --exclusive, -c 8: one rank per CPU (per task's CPUs) */
        long per = cpt > 0 ? cpt : 1;
        static int c[MAX_NODES];
        int n = machine_count_list(env(e, "SLURM_JOB_CPUS_PER_NODE"), c, MAX_NODES);
        long tot = 0;
        int most = 0;
        for (int i = 0; i < n; i++) {
            int k = (int)(c[i] / per);
            tot += k;
            if (k > most) most = k;
        }
        if (most < 1) {
            snprintf(m->slurm_error, sizeof m->slurm_error,
                     "SLURM_JOB_CPUS_PER_NODE=%.40s holds no task of SLURM_CPUS_PER_TASK=%ld CPUs",
                     env(e, "SLURM_JOB_CPUS_PER_NODE"), per);
            return;
        }
        m->slurm_tasks = (int)tot;
        m->slurm_tasks_per_node = most;
        snprintf(how, hl, "no SLURM_NTASKS: one rank per %s, SLURM_JOB_CPUS_PER_NODE=%.40s%s",
                 per > 1 ? "task's CPUs (SLURM_CPUS_PER_TASK)" : "CPU",
                 env(e, "SLURM_JOB_CPUS_PER_NODE"), cun ? " (uneven)" : "");
    } else if (has_t) {
        m->slurm_tasks = (int)ttot;
        m->slurm_tasks_per_node = tmost;
        snprintf(how, hl, "SLURM_TASKS_PER_NODE=%.40s", env(e, "SLURM_TASKS_PER_NODE"));
    } else {
        m->slurm_tasks = (int)nodes;
        m->slurm_tasks_per_node = 1;
        snprintf(how, hl, "no task, CPU or GPU counts: one rank per node on %ld node(s)", nodes);
    }
}

void machine_slurm_env(machine_t *m, const char *(*get)(void *ctx, const char *name), void *ctx)
{
    env_t e = {get, ctx, m};
    m->slurm = 0;
    m->slurm_tasks = m->slurm_nodes = m->slurm_tasks_per_node = m->slurm_gpus_per_node = 0;
    m->slurm_job[0] = m->slurm_how[0] = m->slurm_error[0] = 0;
    const char *job = env(&e, "SLURM_JOB_ID");
    if (!job) job = env(&e, "SLURM_JOBID");
    if (!job) return;
    m->slurm = 1;
    snprintf(m->slurm_job, sizeof m->slurm_job, "%s", job);
    derive(&e);
    if (m->slurm_error[0]) m->slurm_tasks = m->slurm_nodes = m->slurm_tasks_per_node = 0;
}

void machine_cpu_bf16(const char *text, size_t len, char *out, size_t n)
{
    int avx = 0, amx = 0;
    if (n) out[0] = 0;
    const char *end = text ? text + len : NULL;
    /* lines are "key\t: value"; the first flags line (cpu 0's) speaks for the
     * host: a suite is one precision for all its ranks */
    for (const char *p = text; p && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (eol - p > 5 && !memcmp(p, "flags", 5) && (p[5] == ' ' || p[5] == '\t')) {
            const char *c = memchr(p, ':', (size_t)(eol - p));
            for (const char *w = c ? c + 1 : eol; w < eol;) {
                while (w < eol && (*w == ' ' || *w == '\t')) w++;
                const char *we = w;
                while (we < eol && *we != ' ' && *we != '\t') we++;
                size_t wl = (size_t)(we - w);
                avx |= wl == 11 && !memcmp(w, "avx512_bf16", 11);
                amx |= wl == 8 && !memcmp(w, "amx_bf16", 8);
                w = we;
            }
            break;
        }
        p = eol + 1;
    }
    snprintf(out, n, "%s%s%s", avx ? "avx512_bf16" : "", avx && amx ? " and " : "",
             amx ? "amx_bf16" : "");
}

/* /proc/cpuinfo's first 1 MiB (cpu 0's flags come within its first few KiB);
 * a missing or unreadable file gives no bf16 */
static void detect_cpu_bf16(machine_t *m)
{
    enum { MAX_BYTES = 1 << 20 };
    FILE *f = fopen("/proc/cpuinfo", "r");
    char *buf = f ? malloc(MAX_BYTES) : NULL;
    size_t len = buf ? fread(buf, 1, MAX_BYTES, f) : 0;
    machine_cpu_bf16(buf && !ferror(f) ? buf : NULL, len, m->cpu_bf16, sizeof m->cpu_bf16);
    free(buf);
    if (f) fclose(f);
}

static const char *real_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

void machine_detect(machine_t *m)
{
    memset(m, 0, sizeof *m);
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    m->cores = c > 0 ? (int)c : 1;
    m->gpus = count_gpus();
    detect_cpu_bf16(m);
    machine_slurm_env(m, real_getenv, NULL);
}

int machine_devices(const machine_t *m)
{
    if (m->slurm && m->slurm_tasks > 0) return m->slurm_tasks;
    if (m->gpus > 0) return m->gpus;
    return m->cores > 0 ? m->cores : 1;
}

int machine_gpus_per_node(const machine_t *m)
{
    if (m->slurm && m->slurm_gpus_per_node > 0) return m->slurm_gpus_per_node;
    return m->gpus;
}

int machine_ranks_per_node(const machine_t *m, int suite_rpn)
{
    if (suite_rpn > 0) return suite_rpn;
    if (m->slurm && m->slurm_tasks_per_node > 0) return m->slurm_tasks_per_node;
    return machine_gpus_per_node(m) > 0 ? machine_gpus_per_node(m) : 0;
}

const char *machine_check_launch(arena_t *a, const machine_t *m, int scale, int rpn)
{
    if (!m->slurm) return NULL;
    if (m->slurm_error[0])
        return ar_printf(a, "the Slurm allocation cannot be read: %s", m->slurm_error);
    if (scale > m->slurm_tasks)
        return ar_printf(a, "scale %d needs %d ranks but Slurm job %s holds %d (%s): ask for more "
                            "(sbatch -n %d) or lower the scales", scale, scale, m->slurm_job,
                         m->slurm_tasks, m->slurm_how, scale);
    if (rpn > m->slurm_tasks_per_node)
        return ar_printf(a, "ranks_per_node %d: Slurm job %s holds at most %d rank(s) per node (%s)",
                         rpn, m->slurm_job, m->slurm_tasks_per_node, m->slurm_how);
    int nodes = rpn > 0 && rpn < scale ? (scale + rpn - 1) / rpn : 1;
    if (nodes > m->slurm_nodes)
        return ar_printf(a, "scale %d at %d rank(s) per node needs %d nodes but Slurm job %s has %d",
                         scale, rpn, nodes, m->slurm_job, m->slurm_nodes);
    return NULL;
}
