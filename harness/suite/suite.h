/* suite: a suite YAML file (or the embedded default) read into a checked
 * description of what to run: benchmarks with their configs, scales, scaling
 * mode, repetitions, timeouts, launcher, environment and reference files.
 * Every problem is reported as "FILE:LINE:COL: what is wrong". */
#ifndef EXADL_HARNESS_SUITE_H
#define EXADL_HARNESS_SUITE_H

#include <stddef.h>

#include "harness/launchers/launcher.h"
#include "harness/suite/machine.h"
#include "harness/suite/suite_bench.h"
#include "harness/util/util.h"

#define SUITE_FORMAT_VERSION 1

typedef struct {
    const char *path;         /* file it came from; "<default suite>" when embedded */
    const char *dir;          /* relative paths are resolved against it */
    const char *text;         /* the suite as read (saved into the run) */
    size_t textlen;
    const char *name, *description;
    const char *machine_name;   /* `machine:` (a name for reports and compare), or NULL */
    const launcher_t *launcher;   /* harness/launchers/registry.c */
    const char *launcher_command; /* mpirun / srun program */
    const char *template_text;    /* the launcher: text when a text chose the launcher */
    const char *launcher_mpi;     /* srun --mpi= (NULL: the site's choice, slurm.c; "auto") */
    const char *launcher_mpi_source; /* where launcher_mpi came from, for the report */
    const char **launcher_args;
    size_t nlauncher_args;
    int ranks_per_node;       /* 0: one node holds every rank (or Slurm's value) */
    int gpu_bind;             /* bind each rank to one GPU by its local rank */
    double kill_grace_s;      /* SIGTERM to SIGKILL */
    const char **references;  /* resolved paths */
    size_t nreferences;
    double device_peak_flops; /* per device; 0: unknown (probe) */
    kv_t *env;                /* the suite-wide env (each benchmark's env includes it) */
    size_t nenv;
    bench_spec_t *bench;
    size_t nbench;
    machine_t machine;
    /* `model:` (docs/ablation.md): the report predicts each stemdl entry's mode */
    int model;
    const char *model_machine;  /* resolved path, or NULL: fit to the run */
    const char *model_base;     /* the stemdl entry giving the single-rank step */
    int *model_scales;          /* extra scales to predict (beyond those run) */
    size_t nmodel_scales;
} suite_t;

/* Read and check a suite.  0, or -1 with "FILE:LINE:COL: message" in err. */
int suite_load_file(arena_t *a, const char *path, const machine_t *m, suite_t *s, char *err,
                    size_t errlen);
int suite_load_text(arena_t *a, const char *text, size_t len, const char *name,
                    const char *dir, const machine_t *m, suite_t *s, char *err, size_t errlen);

/* The embedded default suite, fitted to m (CPU ranks, or one rank per GPU; the
 * Open MPI root settings only when running as root). */
const char *suite_default_text(arena_t *a, const machine_t *m, int as_root);

/* The valid keys, for --help and docs. */
extern const char *const suite_top_keys[];
extern const char *const suite_bench_keys[];

const char *scaling_name(scaling_kind k);

#endif
