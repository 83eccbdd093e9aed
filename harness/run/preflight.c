/* The 1-rank job before a run (preflight.h). */
#define _GNU_SOURCE
#include "harness/run/preflight.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/proc/launch.h"
#include "harness/run/launchplan.h"
#include "harness/run/slurm.h"

/* the line of out that says best why MPI did not start */
static const char *cause_of(arena_t *a, const char *out)
{
    static const char *const marks[] = {
        "OMPI was not built with SLURM's PMI support", "Unable to create step",
        "Unable to allocate resources", "OPAL ERROR", "PMIX ERROR", "PMI2_Init", "PMI_Init",
        "srun: error:", "cannot start", "not found", "No such file", "MPI_Init", "error", NULL};
    for (int m = 0; marks[m]; m++) {
        const char *p = strstr(out, marks[m]);
        if (!p) continue; /* from the mark to the end of its line */
        size_t l = strcspn(p, "\n");
        while (l && (p[l - 1] == ' ' || p[l - 1] == '\r')) l--;
        return ar_strndup(a, p, l > 240 ? 240 : l);
    }
    const char *last = NULL; /* else the last line that is not exadl's header */
    for (const char *p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
        if (*p != '#' && *p != '\n' && strncmp(p, "srun: ", 6)) last = p;
    return last ? ar_strndup(a, last, strcspn(last, "\n")) : "no output";
}

/* what to set, for the launcher that failed */
static const char *fix_for(arena_t *a, const suite_t *s, const char *out)
{
    if (!s->launcher->job_steps)
        return ar_printf(a, "check launcher %s's settings (launcher_command, launcher_args, or the "
                            "template)", s->launcher->name);
    if (strstr(out, "Unable to create step") || strstr(out, "Unable to allocate"))
        return "the allocation cannot start a 1-rank step (see srun's message); check the job "
               "(squeue, scontrol show job $SLURM_JOB_ID)";
    const char *types = slurm_mpi_types(a);
    const char *now = s->launcher_mpi ? s->launcher_mpi : "the site default";
    int has_pmix = types && strstr(types, "pmix");
    if (has_pmix && (!s->launcher_mpi || strcmp(s->launcher_mpi, "pmix")))
        return ar_printf(a, "set `launcher_mpi: pmix` in the suite (srun --mpi=%s cannot start this "
                            "MPI; srun here offers %s; Debian's Open MPI starts only under pmix)",
                         now, types);
    return ar_printf(a, "set `launcher_mpi:` in the suite to a plugin this MPI supports (srun here "
                        "offers %s; now %s), or build the MPI library with Slurm's PMI support",
                     types ? types : "none", now);
}

int preflight_run(arena_t *a, const suite_t *s, double timeout_s, preflight_t *p)
{
    memset(p, 0, sizeof *p);
    char *probe = path_join(a, exadl_bindir(), "mpiprobe");
    if (!path_is_exec(probe)) {
        p->message = ar_printf(a, "preflight: %s is not built (make)", probe);
        return -1;
    }
    char *inner[] = {probe, NULL};
    char **argv = launchplan_wrap(a, s, NULL, inner, 1, 1, 0);
    p->command = argv_join(a, argv);
    char logp[] = "/tmp/exadl-preflight.XXXXXX";
    int fd = mkstemp(logp);
    if (fd < 0) {
        p->message = "preflight: cannot create a temporary file in /tmp";
        return -1;
    }
    close(fd);
    spawn_opts_t o = {.argv = argv, .env = s->env, .nenv = s->nenv, .log = logp,
                      .timeout_s = timeout_s, .grace_s = s->kill_grace_s};
    spawn_result_t r;
    int bad = spawn_run(&o, &r);
    p->elapsed_s = r.elapsed_s;
    char err[256];
    size_t len = 0;
    char *text = fileio_read(logp, &len, (size_t)1 << 20, err, sizeof err);
    unlink(logp);
    const char *out = text ? ar_strndup(a, text, len) : "";
    free(text);
    const char *ranks = strstr(out, "ranks: "), *hosts = strstr(out, "hosts: ");
    if (!bad && ranks && atoi(ranks + 7) == 1) {
        p->ok = 1;
        p->hosts = hosts ? ar_strndup(a, hosts + 7, strcspn(hosts + 7, "\n")) : NULL;
        return 0;
    }
    const char *what = bad ? r.why : ranks ? "it did not start one rank" : "mpiprobe printed no ranks";
    p->message = ar_printf(a, "preflight: a 1-rank job under launcher %s failed (%s): %s; %s "
                              "[command: %s]", s->launcher->name, what, cause_of(a, out),
                           fix_for(a, s, out), p->command);
    return -1;
}
