/* interference: how busy the machine was while a launch (or the peak probe)
 * ran, measured from the kernel's counters and judged by one stated rule
 * (docs/harness.md "Interference").  Before and after each launch exadl
 * samples /proc/loadavg (1-minute load), /proc/stat (busy and steal ticks
 * of every CPU) and getrusage (the CPU time of exadl and of every process of
 * the launch, which exadl reaps: it is their subreaper).  Over the launch:
 *   others_cores = (busy ticks - own CPU time) / wall time   other processes
 *   steal_cores  = steal ticks / wall time                   the hypervisor
 *   own_cores    = own CPU time / wall time                  the launch
 * The rule: with launch_cores = min(cpus, ranks x threads) and free_cores =
 * cpus - launch_cores, a launch is busy when
 *   others_cores + steal_cores > 0.25 + 0.5 x free_cores
 * (other work took more than half of the cores the launch left free, plus a
 * quarter core for the system's own chores); quiet otherwise; unknown when
 * the counters cannot say: no /proc/stat, a launch shorter than 0.05 s (a few
 * clock ticks), or launches that ran on other nodes (job steps).  The load
 * average is recorded, not judged: its minute-long memory holds this run's
 * own previous launch.
 * defines: intf_sample_t, intf_verdict_t, intf_t, intf_sample, intf_judge,
 *          intf_unknown, intf_verdict_name, intf_line, intf_write,
 *          intf_journal, intf_read, INTF_* */
#ifndef EXADL_HARNESS_INTERFERENCE_H
#define EXADL_HARNESS_INTERFERENCE_H

#include "benchmarks/common/record/read.h"
#include "benchmarks/common/record/record.h"
#include "harness/util/util.h"

#define INTF_SLACK_CORES 0.25     /* the system's own chores */
#define INTF_FREE_SHARE 0.5       /* of the cores the launch left free */
#define INTF_MIN_WALL_S 0.05      /* shorter: the tick counters cannot tell */

typedef struct {
    double t_s;                   /* monotonic clock */
    double load1;                 /* /proc/loadavg's first field; NaN unreadable */
    int have_stat, have_steal;    /* /proc/stat read; it has a steal column */
    unsigned long long busy_ticks, steal_ticks; /* summed over CPUs */
    int cpus;                     /* the cpuN lines of /proc/stat */
    double own_cpu_s;             /* exadl + its reaped descendants, user + system */
} intf_sample_t;

typedef enum { INTF_UNKNOWN = 0, INTF_QUIET, INTF_BUSY } intf_verdict_t;

typedef struct {
    int measured;                 /* 0: nothing recorded (a folder of an older exadl) */
    intf_verdict_t verdict;
    const char *why;              /* unknown: why; else NULL */
    double load1_before, load1_after;
    int cpus, launch_cores;
    double wall_s, own_cpu_s;
    double own_cores, others_cores, steal_cores; /* steal: NaN where the kernel has none */
    double threshold_cores;       /* what others + steal had to exceed to be busy */
} intf_t;

/* The counters now. */
void intf_sample(intf_sample_t *s);
/* The launch between before and after, which asked for ranks x threads cores. */
void intf_judge(const intf_sample_t *before, const intf_sample_t *after, int ranks_x_threads,
                intf_t *out);
/* Measured and unknown, for why (a static string). */
void intf_unknown(intf_t *out, const char *why);
/* "quiet", "busy", "unknown" */
const char *intf_verdict_name(intf_verdict_t v);
/* One line for people: "load 3.9 on 2 cores; other processes 1.7 cores". */
const char *intf_line(arena_t *a, const intf_t *x);
/* The flow map under key (results.yaml, probe.yaml): nothing when not measured. */
void intf_write(rec_t *w, const char *key, const intf_t *x);
/* The same as one flow map in journal.yaml's line ("{verdict: busy, ...}"). */
void intf_journal(sb_t *b, const intf_t *x);
/* The map at key of m, if any (x->measured stays 0 without one).  0 or -1. */
int intf_read(const rd_t *c, const ytnode *m, const char *key, intf_t *x);

#endif
