/* mpirun: an Open MPI job, `mpirun -np N [--map-by ppr:RPN:node -x VAR...]
 * ARGS CMD`.  The program is launcher_command, else $EXADL_MPIRUN (the tests
 * and run.sh point it at the right installation), else mpirun from PATH. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/launchers/launcher.h"

/* the suite's launcher_args already place or bind the ranks */
static int user_binds(const launcher_job_t *j)
{
    static const char *const k[] = {"--map-by", "-map-by", "--bind-to", "-bind-to", "--cpus-per-proc",
                                    "-cpus-per-proc", "--cpus-per-rank", "--rank-by", NULL};
    for (size_t i = 0; i < j->nargs; i++)
        for (size_t q = 0; k[q]; q++)
            if (!strncmp(j->args[i], k[q], strlen(k[q]))) return 1;
    return 0;
}

static char **mpirun_wrap(arena_t *a, const launcher_job_t *j, char *const *inner)
{
    argv_t v = {0};
    const char *env = getenv("EXADL_MPIRUN");
    argv_push(a, &v, j->command ? j->command : env && *env ? env : "mpirun");
    argv_push(a, &v, "-np");
    argv_pushf(a, &v, "%d", j->scale);
    /* Open MPI binds each rank to one core by default at np <= 2: a rank of
     * T threads gets T cores (PE=T), or no binding where the node has fewer
     * cores than its ranks' threads (binding would refuse to start); the
     * bindings it reports land in the log, and results.yaml keeps them */
    int rpn = j->nodes > 1 ? j->ranks_per_node : j->scale;
    int bind = j->threads > 0 && !user_binds(j);
    int fits = j->cores_per_node <= 0 || rpn * j->threads <= j->cores_per_node;
    if (bind && j->threads > 1 && fits) {
        argv_push(a, &v, "--map-by");
        if (j->nodes > 1) argv_pushf(a, &v, "ppr:%d:node:PE=%d", j->ranks_per_node, j->threads);
        else argv_pushf(a, &v, "slot:PE=%d", j->threads);
    } else if (j->nodes > 1) { /* spread evenly rather than filling the first node's slots */
        argv_push(a, &v, "--map-by");
        argv_pushf(a, &v, "ppr:%d:node", j->ranks_per_node);
    }
    if (bind && j->threads > 1 && !fits) {
        argv_push(a, &v, "--bind-to");
        argv_push(a, &v, "none");
    }
    if (bind) argv_push(a, &v, "--report-bindings");
    argv_push_list(a, &v, j->args, j->nargs);
    argv_push_argv(a, &v, inner);
    return argv_done(a, &v);
}

/* Open MPI sets the variables only on the node mpirun runs on unless told */
static void mpirun_exports(arena_t *a, argv_t *v, const char *const *env)
{
    for (size_t i = 0; env[i]; i++) {
        argv_push(a, v, "-x");
        argv_push(a, v, env[i]);
    }
}

/* why ranks died, as mpirun says it: "mpirun noticed that process rank 1 with
 * PID 42 on node n01 exited on signal 9 (Killed)." or, for an exit code, the
 * "Process name: [[J,0],R]" / "Exit code: N" pair */
/* "[vm:02196] MCW rank 1 bound to socket 0[core 1[hwt 0]]: [./B]" or "MCW rank 0
 * is not bound (or bound to all available processors)": one entry per rank */
static void read_bindings(arena_t *a, const char *log, launch_facts_t *f)
{
    sb_t b = {0};
    int n = 0, minb = INT_MAX, unbound = 0;
    for (const char *p = log; (p = strstr(p, "MCW rank ")); p++) {
        int rank;
        if (sscanf(p, "MCW rank %d", &rank) != 1 || rank < 0) continue;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *nb = strstr(p, "is not bound");
        const char *map = strstr(p, "]: [");
        int cores = 0;
        if (nb && nb < p + len) {
            cores = -1;
            sb_printf(&b, "%srank %d: not bound (all cores)", n ? "; " : "", rank);
        } else if (map && map < p + len) {
            map += 3; /* the map: [B/.][./.]; a core is a group between / and ] */
            int any = 0;
            for (const char *q = map; q < p + len; q++) {
                if (*q == 'B') any = 1;
                if (*q == '/' || *q == ']') cores += any, any = 0;
            }
            sb_printf(&b, "%srank %d: %.*s", n ? "; " : "", rank, (int)(p + len - map), map);
        } else {
            continue;
        }
        if (cores < 0) unbound = 1;
        else if (cores < minb) minb = cores;
        n++;
        if (n > 4096) break;
    }
    if (n) f->bindings = ar_strdup(a, sb_str(&b));
    f->min_cores_bound = minb != INT_MAX ? minb : unbound ? -1 : 0;
    sb_free(&b);
}

static void mpirun_read_log(arena_t *a, const char *log, launch_facts_t *f)
{
    read_bindings(a, log, f);
    const char *p = strstr(log, "mpirun noticed that process rank ");
    int rank, code;
    char node[128], how[160];
    if (p && sscanf(p, "mpirun noticed that process rank %d with PID %*d on node %127s %159[^\n]",
                    &rank, node, how) == 3) {
        size_t l = strlen(how);
        if (l && how[l - 1] == '.') how[l - 1] = 0;
        f->cause = ar_printf(a, "rank %d on %s: %s", rank, node, how);
        return;
    }
    p = strstr(log, "Process name:");
    const char *c = p ? strstr(p, "Exit code:") : NULL;
    if (p && c && sscanf(p, "Process name: [[%*d,%*d],%d]", &rank) == 1 &&
        sscanf(c, "Exit code: %d", &code) == 1)
        f->cause = ar_printf(a, "rank %d: exit code %d (the first rank to fail)", rank, code);
}

const launcher_t launcher_mpirun = {
    .name = "mpirun",
    .summary = "an Open MPI job, mpirun -np N [default]; the program: launcher_command, "
               "$EXADL_MPIRUN, mpirun",
    .usage = "mpirun",
    .wrap = mpirun_wrap,
    .uses = LAUNCHER_USES_COMMAND | LAUNCHER_USES_ARGS,
    .exports = mpirun_exports,
    .read_log = mpirun_read_log,
};
