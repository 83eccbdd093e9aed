/* The embedded default suite (what this machine offers: machine.c). */
#define _GNU_SOURCE
#include <string.h>

#include "harness/suite/suite.h"

const char *suite_default_text(arena_t *a, const machine_t *m, int as_root)
{
    sb_t b = {0};
    int gpus = machine_gpus_per_node(m);
    int bf16 = m->cpu_bf16[0] != 0; /* the CPU entries run bf16 where the CPU has it */
    sb_puts(&b,
            "# ExaDL default suite (embedded in exadl; `exadl suite` prints it, a copy is\n"
            "# saved in every run folder). Edit a copy and run `exadl run FILE.yaml`.\n"
            "exadl_suite: 1\n"
            "name: default\n");
    if (gpus > 0)
        sb_printf(&b,
                  "description: STEMDL weak scaling and CosmoFlow spatial scaling, one rank per GPU (%d GPUs seen), and "
                  "the NCCL collectives sweep\n", gpus);
    else if (m->slurm)
        sb_printf(&b,
                  "description: STEMDL weak scaling and CosmoFlow spatial scaling over MPI ranks on CPU cores (%d ranks in "
                  "Slurm job %s, no GPU asked for%s) and the MPI collectives sweep\n",
                  machine_devices(m), m->slurm_job, bf16 ? ", in bf16" : ", in fp32");
    else
        sb_printf(&b,
                  "description: STEMDL weak scaling and CosmoFlow spatial scaling over MPI ranks on CPU cores (%d cores, no "
                  "GPU seen%s) and the MPI collectives sweep\n", m->cores, bf16 ? ", in bf16" : ", in fp32");
    if (gpus <= 0 && bf16) /* the CPU entries' precision, and why (issue 29) */
        sb_printf(&b, "# bf16: this CPU has %s (oneDNN's bf16 kernels); fp32 where it has neither\n"
                      "# avx512_bf16 nor amx_bf16. For fp32 here: `exadl suite > my.yaml`, drop\n"
                      "# `precision: bf16`, `exadl run my.yaml`.\n", m->cpu_bf16);
    else if (gpus <= 0)
        sb_puts(&b, "# fp32: this CPU has neither avx512_bf16 nor amx_bf16 (oneDNN's bf16 kernels\n"
                    "# need one); bf16 where it has either.\n");
    if (m->slurm) /* inside an allocation each launch is one job step */
        sb_printf(&b, "launcher: srun               # one job step of Slurm job %s per launch\n",
                  m->slurm_job);
    else
        sb_puts(&b, "launcher: mpirun\n");
    sb_puts(&b,
            "scaling: weak               # fixed batch per rank\n"
            "scales: auto                # 1, 2, 4, ... up to the ranks this machine has\n"
            "repetitions: 3              # launches per scale; their timed steps are pooled\n"
            "timeout_s: 1200             # per launch; the process group is killed after it\n"
            "env:\n"
            "  # more ranks than cores may be asked for: let Open MPI oversubscribe\n"
            "  OMPI_MCA_rmaps_base_oversubscribe: \"1\"\n");
    if (as_root)
        sb_puts(&b,
                "  # added because exadl runs as root here: Open MPI refuses root otherwise\n"
                "  OMPI_ALLOW_RUN_AS_ROOT: \"1\"\n"
                "  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: \"1\"\n");
    sb_puts(&b,
            "references:\n"
            "  - reference/stemdl-exact.yaml   # FLOP counts of gb2019 and bench256\n"
            "  - reference/summit-2019.yaml    # published Summit results, side by side\n"
            "  - reference/cosmoflow-exact.yaml # FLOP and parameter counts of cosmo128/256/512\n"
            "  - reference/modelpar-exact.yaml  # counts of modelpar's presets, yfcc15b's 15e9\n"
            "  - reference/climate-exact.yaml  # parameter and FLOP counts of deepcam and gb2018\n"
            "  - reference/climate-sc18.yaml   # published SC18 climate results, side by side\n"
            "benchmarks:\n"
            "  - name: stemdl\n"
            "    program: stemdl\n");
    if (gpus > 0)
        sb_puts(&b,
                "    config: {preset: gb2019, backend: cuda, precision: bf16, steps: 20, "
                "warmup: 5}\n");
    else
        sb_printf(&b,
                "    # small: about a second per step on one core; fast kernels, one thread "
                "per rank;\n"
                "    # 5 ms engine cycles: each rank's reduction thread shares a core with its\n"
                "    # compute (docs/ablation.md, \"Cycle time on 2 cores\")\n"
                "    config: {preset: small, kernels: fast, threads: 1, steps: 10, warmup: 2, "
                "cycle_ms: 5%s}\n", bf16 ? ", precision: bf16" : "");
    /* cosmoflow: one sample split over the ranks (spatial scaling) */
    sb_puts(&b,
            "  - name: cosmoflow\n"
            "    program: cosmoflow\n"
            "    optional: true              # skipped where the program is not built yet\n"
            "    scaling: spatial            # one sample per step, split over more ranks\n"
            "    repetitions: 2\n");
    if (m->gpus > 0)
        sb_puts(&b, "    config: {preset: cosmo128, backend: cuda, precision: bf16, spatial: auto, "
                    "steps: 10, warmup: 3}\n");
    else
        sb_printf(&b, "    # small: 64^3 samples, tens of ms per step on a core; --spatial auto splits\n"
                      "    # each sample over the ranks (the halo exchange: docs/cosmoflow.md)\n"
                      "    config: {preset: small, spatial: auto, kernels: fast, threads: 1, steps: 8, "
                      "warmup: 2, cycle_ms: 5%s}\n", bf16 ? ", precision: bf16" : "");
    /* climate: DeepCAM's DeepLabv3+ at an eighth of its widths (docs/climate.md);
     * CPU only: the CUDA set's segmentation kernels have never run on a GPU
     * (docs/climate.md "CUDA"); a GPU item waits for that run.  bf16 where
     * the CPU has it, as the other CPU entries (its dilated and grouped
     * convolutions in bf16, batch norm and the loss fp32: docs/climate.md) */
    if (gpus <= 0)
        sb_printf(&b,
                  "  - name: climate\n"
                  "    program: climate\n"
                  "    optional: true              # skipped where the program is not built yet\n"
                  "    repetitions: 2\n"
                  "    # small: 64x96 fields, tens of ms per step on a core\n"
                  "    config: {preset: small, batch: 2, kernels: fast, threads: 1, steps: 10, "
                  "warmup: 2, cycle_ms: 5%s}\n", bf16 ? ", precision: bf16" : "");
    /* modelpar: the weights sharded over one model group of every rank
     * (docs/modelparallel.md); CPU only (its halo exchange uses host buffers): 1
     * rank against a group of 2 (4 where the machine has 4 ranks) */
    if (gpus <= 0)
        sb_printf(&b,
                  "  - name: modelpar\n"
                  "    program: modelpar\n"
                  "    optional: true              # skipped where the program is not built yet\n"
                  "    scaling: spatial            # a model group shares each sample\n"
                  "    scales: [1, %d]              # model_ranks 0: each rank a tile of every layer\n"
                  "    repetitions: 2\n"
                  "    config: {preset: small, batch: 2, model_ranks: 0, kernels: fast, threads: 1, "
                  "steps: 6, warmup: 2}\n", machine_devices(m) >= 4 ? 4 : 2);
    /* workflow (docs/workflow.md): a trainer and 2 producers at once through
     * files, each producer a process of its own; about a second a launch on
     * 2 busy cores.  3 ranks: one more than the cores, oversubscribed,
     * except in an allocation too small for them */
    if (!m->slurm || machine_devices(m) >= 3)
        sb_puts(&b,
                "  - name: workflow\n"
                "    program: workflow\n"
                "    optional: true              # skipped where the program is not built yet\n"
                "    scales: [3]                 # rank 0 trains, ranks 1-2 start a producer each\n"
                "    repetitions: 2\n"
                "    config: {mode: files, samples: 60, grid: 16, sim_steps: 50, queue: 6, batch: 3}\n");
    /* search: the master and 2 workers training 12 small FC-DenseNet
     * candidates (docs/search.md), a few seconds on 2 cores; CPU only (the
     * candidates are the tiny preset's size), 3 ranks (under Slurm where the
     * allocation has them) */
    if (gpus <= 0 && (!m->slurm || machine_devices(m) >= 3))
        sb_puts(&b,
                "  - name: search\n"
                "    program: search\n"
                "    optional: true              # skipped where the program is not built yet\n"
                "    scales: [3]                 # the master and 2 worker ranks\n"
                "    repetitions: 1\n"
                "    config: {fitness: train, mode: async, evals: 12, population: 4, steps: 2}\n");
    sb_puts(&b,
            "  - name: collectives\n"
            "    program: collectives\n"
            "    optional: true              # skipped where the program is not built yet\n"
            "    repetitions: 3              # a busbw check rests on 3 launches, not one\n");
    /* one rank moves nothing (bus bandwidth 0): from 2 ranks up; one CPU core
     * still runs 2 ranks (oversubscribed), one GPU or a 1-rank allocation cannot */
    if (machine_devices(m) >= 2)
        sb_puts(&b, "    scales: {min: 2, max: auto} # 2, 4, ...: one rank moves no bytes\n");
    else if (gpus <= 0 && !m->slurm)
        sb_puts(&b, "    scales: [2]                 # one core: 2 ranks share it (one rank moves "
                    "no bytes)\n");
    else
        sb_puts(&b, "    # one device here: 1 rank, which moves no bytes (bus bandwidth 0)\n");
    if (gpus > 0)
        sb_puts(&b, "    config: {backend: nccl, op: all, b: 8, e: 1073741824, f: 4}\n");
    else /* OSU's 100 calls per size above 8 KiB took 1:50 a launch at 2 ranks on 2 busy cores */
        sb_puts(&b, "    # 20 timed calls per size (small sizes still 10 batches of >= 100 us):\n"
                    "    # 3 launches in less time than one with OSU's counts (1000, 100)\n"
                    "    config: {backend: mpi, op: all, b: 8, e: 16777216, f: 4, n: 20, w: 2}\n");
    char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}
