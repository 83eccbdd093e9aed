/* exadl bind -- COMMAND: COMMAND bound to one GPU chosen by the local rank */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "harness/cli/cmds.h"
#include "harness/proc/launch.h"
#include "harness/suite/suite.h"

static const char help_bind[] =
    "usage: exadl bind -- COMMAND [ARG...]\n"
    "\n"
    "Run COMMAND bound to one GPU chosen by the local rank (OMPI_COMM_WORLD_LOCAL_RANK,\n"
    "SLURM_LOCALID, MPI_LOCALRANKID or PMI_LOCAL_RANK): CUDA_VISIBLE_DEVICES becomes\n"
    "the (local rank mod GPUs)-th visible GPU.  `exadl run` puts this in front of\n"
    "each benchmark when GPUs are present (suite key gpu_bind: local_rank).\n"
    "Exit status: COMMAND's own; 2 bad usage (no command); 127 COMMAND could not start.\n";

static int cmd_bind(int argc, char **argv)
{
    if (argc && !strcmp(argv[0], "--")) argc--, argv++;
    else if (wants_help(argc, argv)) return fputs(help_bind, stdout), 0;
    if (!argc) return usage_error("bind", "no command given (exadl bind -- COMMAND ...)");
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                                       "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "PALS_LOCAL_RANKID",
                                       NULL};
    int lr = -1;
    for (int i = 0; vars[i] && lr < 0; i++)
        if (getenv(vars[i])) lr = atoi(getenv(vars[i]));
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    char list[64][32];
    int n = 0;
    if (cvd && *cvd) {
        for (const char *p = cvd; *p && n < 64;) {
            size_t l = strcspn(p, ",");
            snprintf(list[n++], sizeof list[0], "%.*s", (int)(l < 31 ? l : 31), p);
            p += l + (p[l] == ',');
        }
    } else {
        machine_t m;
        machine_detect(&m);
        for (n = 0; n < m.gpus && n < 64; n++) snprintf(list[n], sizeof list[0], "%d", n);
    }
    if (lr >= 0 && n > 0) {
        setenv("CUDA_VISIBLE_DEVICES", list[lr % n], 1);
        char b[16];
        snprintf(b, sizeof b, "%d", lr);
        setenv("EXADL_LOCAL_RANK", b, 1);
    }
    spawn_exec(argv);
    fprintf(stderr, "exadl bind: error: cannot start %s: %s\n", argv[0], check_errno_str());
    return 127;
}

const command_t command_bind = {
    .name = "bind",
    .run = cmd_bind,
    .help = help_bind,
    .synopsis = "bind -- CMD",
    .summary = "run CMD bound to one GPU by its local rank",
};
