/* netns: an Open MPI job on one node inside an emulated slow network
 * (docs/lioncub.md, "Emulated Ethernet"): `harness/launchers/netns.sh --
 * mpirun -np N ARGS CMD`.  The script makes a network namespace whose
 * loopback is rate-limited with tc htb to $EXADL_NET_RATE (set per benchmark
 * in the suite's env: 1gbit, 10gbit, unlimited), checks the achieved rate and
 * points Open MPI's TCP transport at that loopback; where namespaces cannot
 * be made the launch fails with the script's one-line reason (exit 3).
 * mpirun is found as the mpirun launcher finds it.  All ranks on this node:
 * the emulation is a namespace of one host. */
#include "harness/launchers/launcher.h"

extern const launcher_t launcher_mpirun;

static char **netns_wrap(arena_t *a, const launcher_job_t *j, char *const *inner)
{
    launcher_job_t one = *j;
    one.nodes = 1; /* one namespace, one host: no mapping over nodes */
    char **m = launcher_mpirun.wrap(a, &one, inner);
    argv_t v = {0};
    argv_push(a, &v, path_join(a, exadl_root(), "harness/launchers/netns.sh"));
    argv_push(a, &v, "--");
    argv_push_argv(a, &v, m);
    return argv_done(a, &v);
}

const launcher_t launcher_netns = {
    .name = "netns",
    .summary = "mpirun on this node in a network namespace whose loopback is rate-limited to "
               "$EXADL_NET_RATE (tc htb; docs/lioncub.md)",
    .usage = "netns",
    .wrap = netns_wrap,
    .uses = LAUNCHER_USES_COMMAND | LAUNCHER_USES_ARGS,
};
