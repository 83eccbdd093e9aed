/* exadl sysinfo: the system block a record of this machine would hold */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"
#include "harness/cli/cmds.h"
#include "harness/proc/launch.h"
#include "harness/suite/suite.h"
#include "harness/workloads/workload.h"

static const char help_sysinfo[] =
    "usage: exadl sysinfo\n"
    "\n"
    "Print the `system:` block a result record of this machine would hold (hosts, CPU,\n"
    "GPU, library versions), as `stemdl --sysinfo` reports it.  Where stemdl is not\n"
    "built, exadl's own view (no library versions but MPI's) is printed instead.\n"
    "Exit status: 0 ok, 2 bad usage.\n";

static int cmd_sysinfo(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_sysinfo, stdout), 0;
    if (argc) return usage_error("sysinfo", "takes no arguments");
    arena_t *a = ar_new();
    const workload_t *wl = workloads; /* the first workload that prints a system block */
    while (wl->name && !wl->sysinfo) wl++;
    char *prog = wl->name ? path_join(a, exadl_bindir(), wl->program) : NULL;
    char *sv[] = {prog, "--sysinfo", NULL};
    char why[256] = "not built";
    char *out = prog && path_is_exec(prog) ? spawn_capture(sv, 60, why, sizeof why) : NULL;
    if (out && strstr(out, "system:")) {
        fputs(out, stdout);
        free(out);
        ar_free(a);
        return 0;
    }
    free(out);
    fprintf(stderr, "exadl sysinfo: %s --sysinfo unavailable (%s); exadl's own view "
                    "follows (library versions other than MPI's unknown)\n",
            wl->name ? wl->program : "no workload's", why);
    sysinfo_t si;
    sysinfo_collect(&si);
    char *host = (char *)check_host();
    sysinfo_set_hosts(&si, &host, 1);
    char *mv[] = {"mpirun", "--version", NULL};
    char *mo = spawn_capture(mv, 20, NULL, 0);
    if (mo) {
        mo[strcspn(mo, "\n")] = 0;
        sysinfo_set_version(&si, "mpi", mo);
        free(mo);
    }
    machine_t m;
    machine_detect(&m);
    si.gpu_count = m.gpus;
    char err[256];
    rec_t *w = rec_open("-", err, sizeof err);
    if (!w) return fprintf(stderr, "exadl sysinfo: error: %s\n", err), ar_free(a), 1;
    rec_map_begin(w);
    sysinfo_write(&si, w);
    rec_map_end(w);
    int rc = rec_close(w, err, sizeof err);
    ar_free(a);
    return rc ? 1 : 0;
}

const command_t command_sysinfo = {
    .name = "sysinfo",
    .run = cmd_sysinfo,
    .help = help_sysinfo,
    .synopsis = "sysinfo",
    .summary = "the system block a record of this machine holds",
};
