/* peakcache: the CPU peak as a property of the machine (docs/harness.md "The
 * peak").  `exadl run` measures it with PEAK_PROBES runs of peak_cpu and
 * keeps it in a per-host cache file, a probe file (probe.h) holding only the
 * peak, keyed by host name, CPU model and online CPU count; later runs on the
 * same machine copy it into their probe.yaml (saying where it came from)
 * instead of measuring again.  The file:
 *   $EXADL_PEAK_CACHE, else $XDG_CACHE_HOME/exadl/peak-HOST.yaml, else
 *   $HOME/.cache/exadl/peak-HOST.yaml
 * A cache for another host, CPU model or CPU count is never used.  Data and
 * files only: nothing here starts a process.
 * defines: PEAK_PROBES, peak_machine_t, peakcache_machine, peakcache_path,
 *          peakcache_load, peakcache_store */
#ifndef EXADL_HARNESS_PEAKCACHE_H
#define EXADL_HARNESS_PEAKCACHE_H

#include "harness/run/probe.h"

#define PEAK_PROBES 5 /* runs of peak_cpu per measurement: a median and its CI */

typedef struct {
    const char *host;      /* short host name */
    const char *cpu_model; /* /proc/cpuinfo's first "model name" ("unknown": none) */
    int cpus;              /* online CPUs */
} peak_machine_t;

/* This machine. */
void peakcache_machine(arena_t *a, peak_machine_t *m);
/* The cache file of this host (see above); NULL when no folder can be named. */
const char *peakcache_path(arena_t *a, const peak_machine_t *m);
/* The cache at path for machine m into p's peak: 1 used; 0 none to use, with
 * why (no file; another machine's) in *why; -1 a damaged file (*why: its
 * error).  p is changed only on 1. */
int peakcache_load(arena_t *a, const char *path, const peak_machine_t *m, probe_t *p,
                   const char **why);
/* p's peak (with its machine, time and interference) into path, the folder
 * made where missing; 0, or -1 with err. */
int peakcache_store(const char *path, const probe_t *p, char *err, size_t errlen);

#endif
