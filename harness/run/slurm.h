/* slurm: what `exadl run` asks the Slurm it runs under.  The job's facts
 * (scontrol show job -o: state, partition, node list, time limit, end time)
 * for the report's provenance and the sweep; whether the allocation has
 * ended (the job's state or end time, asked only when a launch failed or the
 * end time passed, never per launch); srun's --mpi when the suite gives none
 * (SLURM_MPI_TYPE, else slurm.conf's MpiDefault unless it is none, else pmix
 * where `srun --mpi=list` lists it); Slurm hostlists ("n[01-04,07]")
 * expanded.  Every answer is untrusted text and read defensively.
 * defines: slurm_job_t, slurm_job_query, slurm_job_ended, slurm_step_cancel, slurm_site_mpi,
 *          slurm_choose_mpi,
 *          slurm_mpi_types, slurm_hostlist_expand, slurm_parse_time */
#ifndef EXADL_HARNESS_SLURM_H
#define EXADL_HARNESS_SLURM_H

#include <stddef.h>

#include "harness/suite/suite.h"
#include "harness/util/util.h"

typedef struct {
    const char *id, *name, *state, *reason, *partition, *account, *qos, *cluster;
    const char *nodelist, *time_limit, *start, *end, *submit_dir;
    int nodes, cpus, tasks;
    double end_epoch;          /* EndTime as seconds since the epoch; NAN when unknown */
} slurm_job_t;

/* `scontrol show job -o ID` read into j (fields absent stay NULL or 0).  0, or
 * -1 with err (scontrol missing, the job unknown to Slurm). */
int slurm_job_query(arena_t *a, const char *id, slurm_job_t *j, char *err, size_t errlen);
/* The fields of one `scontrol show job -o` line (slurm_job_query's parser). */
void slurm_job_parse(arena_t *a, const char *line, slurm_job_t *j);

/* Has job id's allocation ended?  1 with why ("Slurm job 7 ended: state
 * TIMEOUT"), 0 when it still runs, -1 when Slurm cannot say (why says so). */
int slurm_job_ended(arena_t *a, const char *id, const char **why);

/* `scancel --quiet STEP`: a step whose srun was killed ends too. */
void slurm_step_cancel(arena_t *a, const char *step);

/* srun's --mpi when the suite gives none: NULL where the site has chosen
 * (SLURM_MPI_TYPE set, MpiDefault other than none: srun applies it itself) or
 * nothing better is known; else "pmix" when srun lists it.  source says
 * which, for the report. */
const char *slurm_site_mpi(arena_t *a, const char **source);
/* s->launcher_mpi for a launcher of job steps: the suite's launcher_mpi
 * (not auto), else none where launcher_args holds --mpi, else
 * slurm_site_mpi; launcher_mpi_source says which. */
void slurm_choose_mpi(arena_t *a, suite_t *s);
/* `srun --mpi=list` as "pmix, pmi2, none" (NULL when srun cannot say). */
const char *slurm_mpi_types(arena_t *a);

/* "n[01-03,07],login1" -> n01 n02 n03 n07 login1 (at most max).  The count,
 * or -1 when the text is not a hostlist. */
int slurm_hostlist_expand(arena_t *a, const char *list, const char **hosts, int max);

/* "2026-11-23T13:48:06" (local time, as Slurm prints it) -> seconds since the
 * epoch; NAN for anything else ("Unknown", "None"). */
double slurm_parse_time(const char *s);

#endif
