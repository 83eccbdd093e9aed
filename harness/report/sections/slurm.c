/* Report section: the Slurm allocation the run ran in (job, cluster,
 * partition, nodes, time limit, how the ranks were read, srun's --mpi and who
 * chose it, the preflight); each launch's step and hosts are in the Launches
 * table.  Nothing outside Slurm. */
#include "harness/report/runctx.h"

static const char *or_na(const char *s) { return s && *s ? s : "n/a"; }

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    const runinfo_t *ri = &c->ri;
    const slurm_job_t *j = ri->slurm;
    if (!j) return;
    sb_puts(o, "\n## Slurm\n\n| | |\n|---|---|\n");
    sb_printf(o, "| job | %s%s%s%s |\n", or_na(j->id), j->name ? " (" : "", j->name ? j->name : "",
              j->name ? ")" : "");
    if (j->cluster) sb_printf(o, "| cluster | %s |\n", j->cluster);
    sb_printf(o, "| partition | %s%s%s%s%s |\n", or_na(j->partition), j->account ? ", account " : "",
              j->account ? j->account : "", j->qos ? ", QOS " : "", j->qos ? j->qos : "");
    sb_printf(o, "| nodes | %d: %s |\n", j->nodes, or_na(j->nodelist));
    sb_printf(o, "| CPUs, tasks | %d, %d |\n", j->cpus, j->tasks);
    sb_printf(o, "| time limit | %s (started %s, ends %s) |\n", or_na(j->time_limit), or_na(j->start),
              or_na(j->end));
    if (ri->slurm_ranks) sb_printf(o, "| ranks and nodes from | %s |\n", ri->slurm_ranks);
    if (ri->launcher_mpi_source)
        sb_printf(o, "| srun --mpi | %s, chosen by %s |\n", ri->launcher_mpi ? ri->launcher_mpi : "not given",
                  ri->launcher_mpi_source);
    if (ri->preflight) sb_printf(o, "| preflight | %s |\n", ri->preflight);
    if (ri->nslurm_jobs > 1) {
        sb_puts(o, "| jobs of this run | ");
        for (size_t i = 0; i < ri->nslurm_jobs; i++) sb_printf(o, "%s%s", i ? ", " : "", ri->slurm_jobs[i]);
        sb_puts(o, " (resumed) |\n");
    }
    sb_puts(o, "\nEach launch is one job step; its step ID and hosts are in the Launches table.\n");
}

const section_t section_slurm = {.name = "slurm", .md = md};
