#define _GNU_SOURCE
#include "benchmarks/manytask/mt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"

const char *const mt_launchers[] = {"direct", "mpirun", "srun", NULL};

/* The launcher's words before the task. */
static int prefix(int launcher, const char **w)
{
    int n = 0;
    if (launcher == 1) w[n++] = "mpirun", w[n++] = "-np", w[n++] = "1", w[n++] = "--oversubscribe";
    if (launcher == 2)
        w[n++] = "srun", w[n++] = "-n1", w[n++] = "-N1", w[n++] = "--exclusive", w[n++] = "--quiet";
    return n;
}

typedef struct {
    pid_t pid;
    int task;
    double t0;
} slot_t;

static pid_t start(const mt_cfg *c, int task, int attempt)
{
    const char *argv[64];
    int n = prefix(c->launcher, argv);
    int plant = c->plant_every > 0 && task % c->plant_every == 0 && attempt < c->plant_attempts;
    if (plant) argv[n++] = "false";
    else
        for (int i = 0; c->task[i] && n < 63; i++) argv[n++] = c->task[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) dup2(null, 0), dup2(null, 1);
        /* a task sees a plain environment, not the launcher of this program */
        static const char *const drop[] = {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                                           "PMIX_RANK", "PMIX_NAMESPACE", NULL};
        for (int i = 0; drop[i]; i++) unsetenv(drop[i]);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "manytask: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

int mt_run(const mt_cfg *c, mt_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    int cap = c->tasks * (c->retries + 1);
    r->latency_s = XCALLOC((size_t)cap, sizeof(double), "latencies");
    r->ok = XCALLOC((size_t)cap, sizeof(int), "outcomes");
    /* the queue: task ids, failed ones appended again */
    int *queue = XMALLOC((size_t)cap * sizeof *queue, "task queue");
    int *tries = XCALLOC((size_t)c->tasks, sizeof *tries, "attempts per task");
    for (int i = 0; i < c->tasks; i++) queue[i] = i;
    int head = 0, tail = c->tasks, running = 0;
    slot_t *slots = XCALLOC((size_t)c->concurrency, sizeof *slots, "slots");
    double t_start = timer_now_s();
    while (head < tail || running > 0) {
        while (head < tail && running < c->concurrency) {
            int k = 0;
            while (slots[k].pid) k++;
            int task = queue[head++];
            slots[k].task = task;
            slots[k].t0 = timer_now_s();
            slots[k].pid = start(c, task, tries[task]);
            if (slots[k].pid < 0) {
                snprintf(err, errlen, "fork: %s", strerror(errno));
                free(queue), free(tries), free(slots);
                return -1;
            }
            running++;
        }
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
            continue;
        }
        double t1 = timer_now_s();
        int k = 0;
        while (k < c->concurrency && slots[k].pid != pid) k++;
        if (k == c->concurrency) continue; /* not ours */
        int task = slots[k].task, ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        slots[k].pid = 0;
        running--;
        r->latency_s[r->attempts] = t1 - slots[k].t0;
        r->ok[r->attempts++] = ok;
        tries[task]++;
        if (ok) {
            r->done++;
            continue;
        }
        r->failed_attempts++;
        if (!r->first_error[0])
            snprintf(r->first_error, sizeof r->first_error, "task %d attempt %d: %s %d", task,
                     tries[task], WIFEXITED(status) ? "exit status" : "signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        if (tries[task] <= c->retries) queue[tail++] = task;
        else r->failed++;
    }
    r->wall_s = timer_now_s() - t_start;
    free(queue), free(tries), free(slots);
    return 0;
}

void mt_result_free(mt_result *r)
{
    free(r->latency_s);
    free(r->ok);
}
