/* The embedded default suite and what this machine offers (`scales: auto`). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/suite/suite.h"

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

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : 0; /* SLURM_TASKS_PER_NODE may read "4(x2)": atoi takes the 4 */
}

void machine_detect(machine_t *m)
{
    memset(m, 0, sizeof *m);
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    m->cores = c > 0 ? (int)c : 1;
    m->gpus = count_gpus();
    m->slurm_tasks = env_int("SLURM_NTASKS");
    m->slurm_nodes = env_int("SLURM_JOB_NUM_NODES");
    m->slurm_tasks_per_node = env_int("SLURM_NTASKS_PER_NODE");
    if (!m->slurm_tasks_per_node) m->slurm_tasks_per_node = env_int("SLURM_TASKS_PER_NODE");
}

int machine_devices(const machine_t *m)
{
    if (m->slurm_tasks > 0) return m->slurm_tasks;
    if (m->gpus > 0) return m->gpus;
    return m->cores > 0 ? m->cores : 1;
}

const char *suite_default_text(arena_t *a, const machine_t *m, int as_root)
{
    sb_t b = {0};
    sb_puts(&b,
            "# ExaDL default suite (embedded in exadl; `exadl suite` prints it, a copy is\n"
            "# saved in every run folder). Edit a copy and run `exadl run FILE.yaml`.\n"
            "exadl_suite: 1\n"
            "name: default\n");
    if (m->gpus > 0)
        sb_printf(&b,
                  "description: STEMDL weak scaling and CosmoFlow spatial scaling, one rank per "
                  "GPU (%d GPUs seen), and the NCCL collectives sweep\n", m->gpus);
    else
        sb_printf(&b,
                  "description: STEMDL weak scaling and CosmoFlow spatial scaling over MPI ranks "
                  "on CPU cores (%d cores, no GPU seen) and the MPI collectives sweep\n", m->cores);
    sb_puts(&b,
            "launcher: mpirun\n"
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
            "benchmarks:\n"
            "  - name: stemdl\n"
            "    program: stemdl\n");
    if (m->gpus > 0)
        sb_puts(&b,
                "    config: {preset: gb2019, backend: cuda, precision: bf16, steps: 20, "
                "warmup: 5}\n");
    else
        sb_puts(&b,
                "    # small: about a second per step on one core; fast kernels, one thread "
                "per rank;\n"
                "    # 5 ms engine cycles: each rank's reduction thread shares a core with its\n"
                "    # compute (docs/ablation.md, \"Cycle time on 2 cores\")\n"
                "    config: {preset: small, kernels: fast, threads: 1, steps: 10, warmup: 2, "
                "cycle_ms: 5}\n");
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
        sb_puts(&b, "    # small: 64^3 samples, tens of ms per step on a core; --spatial auto splits\n"
                    "    # each sample over the ranks (the halo exchange: docs/cosmoflow.md)\n"
                    "    config: {preset: small, spatial: auto, kernels: fast, threads: 1, steps: 8, "
                    "warmup: 2, cycle_ms: 5}\n");
    sb_printf(&b,
              "  - name: collectives\n"
              "    program: collectives\n"
              "    optional: true              # skipped where the program is not built yet\n"
              "    repetitions: 1\n"
              "    config: {backend: %s, op: all, b: 8, e: %s, f: 4}\n",
              m->gpus > 0 ? "nccl" : "mpi", m->gpus > 0 ? "1073741824" : "16777216");
    char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}
