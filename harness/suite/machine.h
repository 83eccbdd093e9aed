/* machine: what the host or the Slurm allocation offers a suite (machine.c).
 * Its own header so that the suite's value readers (suite_values) need not
 * include the suite parser that calls them.
 * defines: machine_t, machine_detect, machine_slurm_env, machine_count_list,
 *          machine_devices, machine_gpus_per_node, machine_ranks_per_node,
 *          machine_check_launch, machine_cpu_bf16 */
#ifndef EXADL_HARNESS_MACHINE_H
#define EXADL_HARNESS_MACHINE_H

#include "harness/util/util.h"

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
    char cpu_bf16[32];  /* the CPU's bf16 flags: "avx512_bf16", "amx_bf16" or both joined
                         * by " and "; "" when it has neither (the default suite runs fp32) */
} machine_t;
void machine_detect(machine_t *m);
/* The bf16 flags (avx512_bf16, amx_bf16) of the first "flags" line of a
 * /proc/cpuinfo text into out (machine_t.cpu_bf16's form; "" when none or no
 * such line); text may be NULL (no file).  One pass over at most len bytes. */
void machine_cpu_bf16(const char *text, size_t len, char *out, size_t n);
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

#endif
