/* suite: a suite YAML file (or the embedded default) read into a checked
 * description of what to run: benchmarks with their configs, scales, scaling
 * mode, repetitions, timeouts, launcher, environment and reference files.
 * Every problem is reported as "FILE:LINE:COL: what is wrong". */
#ifndef EXADL_HARNESS_SUITE_H
#define EXADL_HARNESS_SUITE_H

#include <stddef.h>

#include "harness/launchers/launcher.h"
#include "harness/util/util.h"

#define SUITE_FORMAT_VERSION 1

/* What this machine (or Slurm allocation) offers, for `scales: auto` and the
 * plan (machine.c).  Inside an allocation (SLURM_JOB_ID set) the ranks and
 * nodes come from Slurm's variables: SLURM_NTASKS (and SLURM_NTASKS_PER_NODE
 * or SLURM_TASKS_PER_NODE); without a task count one rank per GPU
 * (SLURM_GPUS_PER_NODE) or per CPU (SLURM_JOB_CPUS_PER_NODE divided by
 * SLURM_CPUS_PER_TASK) on each of SLURM_JOB_NUM_NODES nodes; uneven nodes give
 * the most per node (srun treats --ntasks-per-node as a maximum). */
typedef struct {
    int cores;          /* online CPUs of this host */
    int gpus;           /* NVIDIA GPUs visible on this host (CUDA_VISIBLE_DEVICES respected) */
    int slurm;          /* inside a Slurm allocation */
    int slurm_tasks;    /* ranks the allocation holds (0 when slurm_error) */
    int slurm_nodes;    /* SLURM_JOB_NUM_NODES */
    int slurm_tasks_per_node; /* the most ranks one node holds */
    int slurm_gpus_per_node;  /* SLURM_GPUS_PER_NODE (or _ON_NODE); 0: none asked for */
    char slurm_job[32];       /* SLURM_JOB_ID */
    char slurm_how[200];      /* where the numbers came from, for messages */
    char slurm_error[200];    /* a malformed or inconsistent variable; "" when fine */
} machine_t;
void machine_detect(machine_t *m);
/* The Slurm part of m from the variables get(ctx, NAME) returns (NULL: unset);
 * machine_detect passes getenv, the tests recorded allocations. */
void machine_slurm_env(machine_t *m, const char *(*get)(void *ctx, const char *name), void *ctx);
/* Slurm's compressed per-node counts ("72(x2),36") into v: the count of nodes,
 * or -1 when malformed or longer than max. */
int machine_count_list(const char *s, int *v, int max);
/* Devices `auto` scales go up to: the allocation's ranks, else GPUs, else cores. */
int machine_devices(const machine_t *m);
/* GPUs per node: the allocation's when it asked for GPUs, else this host's. */
int machine_gpus_per_node(const machine_t *m);
/* Ranks per node a plan uses: the suite's (suite_rpn > 0), else the
 * allocation's most per node, else one per GPU, else 0 (one node holds all). */
int machine_ranks_per_node(const machine_t *m, int suite_rpn);
/* Whether a launch of scale ranks at rpn per node fits the allocation: NULL, or
 * why not (always NULL outside Slurm). */
const char *machine_check_launch(arena_t *a, const machine_t *m, int scale, int rpn);

/* weak: fixed batch per rank; strong: fixed global batch (global_batch);
 * spatial: the program's batch unchanged at every scale while more ranks
 * split each sample (cosmoflow --spatial auto): strong scaling of one
 * sample's work, efficiency T(N0) N0 / (N T(N)) */
typedef enum { SCALING_WEAK, SCALING_STRONG, SCALING_SPATIAL } scaling_kind;

/* kv_t (a key and its value): harness/util/util.h */

typedef struct {
    const char *name;         /* unique within the suite */
    const char *program;      /* as written */
    const char *program_path; /* resolved; NULL when not found */
    int optional;             /* skipped (not failed) when the program is unusable */
    kv_t *config;
    size_t nconfig;
    const char *config_file;  /* resolved path, passed as --config */
    const char **args;        /* extra arguments, as written */
    size_t nargs;
    scaling_kind scaling;
    long long global_batch;   /* strong scaling: samples per step over all ranks */
    int *scales;
    size_t nscales;
    int repetitions;
    double timeout_s;
    kv_t *env;                /* suite env, then the benchmark's own */
    size_t nenv;
    int line;                 /* where it was defined */
} bench_spec_t;

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
