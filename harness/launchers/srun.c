/* srun: one Slurm job step, `srun --ntasks=N --nodes=M --ntasks-per-node=RPN
 * --kill-on-bad-exit=1 [--mpi=TYPE] --verbose ARGS CMD`.  Slurm carries the
 * environment to every node itself, so there is nothing to export.  --mpi is
 * the suite's launcher_mpi or the site's choice (harness/run/slurm.c: Debian's
 * Open MPI starts only under pmix); --verbose makes srun name the step and
 * its hosts in the log ("launching StepId=7.3 on host n01, 4 tasks: 0-3"),
 * which read_log turns into the launch's provenance. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "harness/launchers/launcher.h"

static char **srun_wrap(arena_t *a, const launcher_job_t *j, char *const *inner)
{
    argv_t v = {0};
    int rpn = j->ranks_per_node;
    argv_push(a, &v, j->command ? j->command : "srun");
    argv_pushf(a, &v, "--ntasks=%d", j->scale);
    argv_pushf(a, &v, "--nodes=%d", j->nodes);
    if (rpn) argv_pushf(a, &v, "--ntasks-per-node=%d", rpn < j->scale ? rpn : j->scale);
    argv_push(a, &v, "--kill-on-bad-exit=1"); /* one failed rank ends the step */
    if (j->mpi) argv_pushf(a, &v, "--mpi=%s", j->mpi);
    argv_push(a, &v, "--verbose"); /* the step ID and hosts, for read_log */
    int own = 0; /* the suite's launcher_args give the CPUs per task themselves */
    for (size_t i = 0; i < j->nargs; i++)
        own |= !strncmp(j->args[i], "--cpus-per-task", 15) || !strncmp(j->args[i], "-c", 2);
    if (j->threads > 1 && !own) /* a rank of T threads gets T CPUs (Slurm binds to them) */
        argv_pushf(a, &v, "--cpus-per-task=%d", j->threads);
    argv_push_list(a, &v, j->args, j->nargs);
    argv_push_argv(a, &v, inner);
    return argv_done(a, &v);
}

/* the line starting at p, without its newline, arena-copied and capped */
static char *line_at(arena_t *a, const char *p)
{
    size_t l = strcspn(p, "\n");
    return ar_strndup(a, p, l > 300 ? 300 : l);
}

/* append item to a comma list unless it is there already */
static void add_unique(arena_t *a, const char **list, const char *item)
{
    if (!*list) {
        *list = item;
        return;
    }
    size_t n = strlen(item);
    for (const char *p = *list; (p = strstr(p, item)); p += n)
        if ((p == *list || p[-1] == ',') && (p[n] == ',' || !p[n])) return;
    *list = ar_printf(a, "%s,%s", *list, item);
}

/* "srun: error: n01: tasks 0-1: Exited with exit code 1" -> "tasks 0-1 on n01: ..." */
static const char *task_line(arena_t *a, const char *l)
{
    const char *h = l + strlen("srun: error: ");
    const char *c = strstr(h, ": task");
    if (!c) return NULL;
    const char *t = c + 2, *m = strstr(t, ": ");
    if (!m) return NULL;
    return ar_printf(a, "%.*s on %.*s: %s", (int)(m - t), t, (int)(c - h), h, m + 2);
}

static void srun_read_log(arena_t *a, const char *log, launch_facts_t *f)
{
    const char *causes = NULL, *hosts_list = NULL;
    int ncause = 0, more = 0;
    for (const char *p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char *l = line_at(a, p);
        char step[64], host[128];
        const char *x;
        if (sscanf(l, "srun: launching StepId=%63[^ ] on host %127[^,]", step, host) == 2) {
            if (!f->step) f->step = ar_strdup(a, step);
            add_unique(a, &f->hosts, ar_strdup(a, host));
        } else if (sscanf(l, "srun: jobid %*[0-9]: nodes(%*d):`%127[^']'", host) == 1) {
            hosts_list = ar_strdup(a, host); /* compressed (n[01-04]); the launching lines win */
        } else if ((x = strstr(l, "*** STEP ")) && sscanf(x, "*** STEP %63s", step) == 1) {
            if (!f->step) f->step = ar_strdup(a, step);
            const char *why = strstr(x, " CANCELLED AT ");
            const char *due = why ? strstr(why, " DUE TO ") : NULL;
            if (why) {
                char *d = due ? ar_strdup(a, due + 8) : NULL;
                if (d && strstr(d, " ***")) *strstr(d, " ***") = 0;
                const char *c = ar_printf(a, "step %s cancelled%s%s", step, d ? " due to " : "",
                                          d ? d : "");
                causes = causes ? ar_printf(a, "%s; %s", causes, c) : c;
                ncause++;
            }
        } else if (!strncmp(l, "srun: error: Unable to create step", 34) ||
                   !strncmp(l, "srun: error: Unable to allocate resources", 41) ||
                   (!strncmp(l, "srun: error: Slurm job ", 23) && strstr(l, "has expired")) ||
                   strstr(l, "Expired or invalid job")) {
            if (!f->not_started) f->not_started_why = ar_strdup(a, l + 6);
            f->not_started = 1;
            f->allocation_over |= strstr(l, "already completing or completed") ||
                                  strstr(l, "has expired") || strstr(l, "Expired or invalid job") ||
                                  strstr(l, "Invalid job id");
        } else if (!strncmp(l, "srun: error: ", 13) && strstr(l, ": task")) {
            const char *c = task_line(a, l);
            if (!c) continue;
            if (ncause < 3) causes = causes ? ar_printf(a, "%s; %s", causes, c) : c;
            else more++;
            ncause++;
        } else if ((x = strstr(l, "srun: error: Task launch for StepId=")) &&
                   sscanf(x, "srun: error: Task launch for StepId=%63s failed on node %127[^:]", step,
                          host) == 2) {
            /* a node whose slurmd is gone ("... failed on node n2: Communication
             * connection failure"): the node named, once per node */
            const char *why = strstr(x + 36, ": ");
            const char *c = ar_printf(a, "task launch failed on node %s%s%s", host, why ? ": " : "",
                                      why ? why + 2 : "");
            if (!causes || !strstr(causes, c)) causes = causes ? ar_printf(a, "%s; %s", causes, c) : c;
            ncause++;
        } else if (strstr(l, "oom_kill event") || strstr(l, "oom-kill event")) {
            const char *c = "out of memory (Slurm saw an oom-kill event)";
            if (!causes || !strstr(causes, c)) causes = causes ? ar_printf(a, "%s; %s", causes, c) : c;
        }
    }
    if (!f->hosts && hosts_list) f->hosts = hosts_list;
    if (more) causes = ar_printf(a, "%s (and %d more)", causes, more);
    f->cause = causes;
}

const launcher_t launcher_srun = {
    .name = "srun",
    .summary = "a Slurm job step: srun --ntasks=N --nodes=M --ntasks-per-node=RPN "
               "--mpi=TYPE (inside an allocation)",
    .usage = "srun",
    .wrap = srun_wrap,
    .uses = LAUNCHER_USES_COMMAND | LAUNCHER_USES_ARGS,
    .job_steps = 1,
    .read_log = srun_read_log,
};
