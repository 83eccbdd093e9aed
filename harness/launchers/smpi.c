/* smpi: the benchmark as simulated ranks under SimGrid's smpirun on a
 * platform description (docs/simulate.md): `harness/launchers/smpi.sh -np N
 * -- CMD`.  The script runs the simulated build of the program
 * (build-smpi/bin, make smpi) on $EXADL_SMPI_PLATFORM (default: Summit,
 * reference/platforms/summit-flat.xml), and appends a `simulation:` block
 * (simulated: true, platform, wall time and peak memory of the simulation) to
 * the record, which is otherwise an ordinary record: the analysis, checks
 * and report apply unchanged.  Scales up to the platform's rank slots (27,648
 * on Summit); all simulated ranks are one process on this machine. */
#include "harness/launchers/launcher.h"

static char **smpi_wrap(arena_t *a, const launcher_job_t *j, char *const *inner)
{
    argv_t v = {0};
    argv_push(a, &v, path_join(a, exadl_root(), "harness/launchers/smpi.sh"));
    argv_push(a, &v, "-np");
    argv_pushf(a, &v, "%d", j->scale > 0 ? j->scale : 1);
    argv_push(a, &v, "--");
    argv_push_argv(a, &v, inner);
    return argv_done(a, &v);
}

const launcher_t launcher_smpi = {
    .name = "smpi",
    .summary = "simulated ranks under SimGrid's smpirun on $EXADL_SMPI_PLATFORM (default: "
               "Summit; make smpi; docs/simulate.md)",
    .usage = "smpi",
    .wrap = smpi_wrap,
};
