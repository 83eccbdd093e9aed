/* watchdog.h: the deadline of ncclCommInitRank (issue 28 item 11), without
 * NCCL: a call that comes back in time is left alone; one that does not
 * (here a child process that sleeps) ends with exit status 1 and one line
 * naming the call, the rank and the host; EXADL_NCCL_INIT_TIMEOUT_S sets the
 * limit and a bad value is refused.  No time is measured: the child either
 * is ended by its watchdog or finishes its 60 s sleep and exits 0 (FAIL). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/watchdog.h"
#include "tests/unit/tap.h"

/* runs fn in a child with stderr into buf; returns the child's wait status */
static int in_child(void (*fn)(void), char *buf, size_t len)
{
    int fd[2];
    T_ASSERT(pipe(fd) == 0, "pipe");
    fflush(stdout);
    pid_t pid = fork();
    T_ASSERT(pid >= 0, "fork");
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 2);
        fn();
        _exit(0);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = read(fd[0], buf + n, len - 1 - n)) > 0) n += (size_t)r;
    buf[n] = 0;
    close(fd[0]);
    int st = 0;
    T_ASSERT(waitpid(pid, &st, 0) == pid, "waitpid");
    return st;
}

static void hang(void)
{
    check_set_program("test_common_watchdog");
    (void)wd_arm(0.05, "ncclCommInitRank (rank 3 of 8)", "a rank did not join");
    for (int i = 0; i < 60; i++) sleep(1); /* the blocked call */
}

static void test_fires(void)
{
    char buf[1024];
    int st = in_child(hang, buf, sizeof buf);
    T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1, "the hung child: wait status %#x (expected exit 1)", st);
    T_ASSERT(strstr(buf, "test_common_watchdog: error: [") && strstr(buf, check_host()) &&
                 strstr(buf, "ncclCommInitRank (rank 3 of 8): not complete after 0.05 s: a rank did not join"),
             "message: %s", buf);
    T_ASSERT(strchr(buf, '\n') == buf + strlen(buf) - 1, "more than one line: %s", buf);
}

static void test_disarmed(void)
{
    /* armed and disarmed many times: never fires, nothing left running */
    for (int i = 0; i < 50; i++) wd_disarm(wd_arm(0.5, "quick call", "none"));
    wd_disarm(NULL);
}

static void bad_env(void)
{
    check_set_program("test_common_watchdog");
    setenv("EXADL_NCCL_INIT_TIMEOUT_S", "soon", 1);
    (void)wd_timeout_s("EXADL_NCCL_INIT_TIMEOUT_S", 300, 0);
}

static void test_timeout_value(void)
{
    unsetenv("EXADL_NCCL_INIT_TIMEOUT_S");
    T_ASSERT(wd_timeout_s("EXADL_NCCL_INIT_TIMEOUT_S", 300, 60) == 300, "default: the floor");
    T_ASSERT(wd_timeout_s("EXADL_NCCL_INIT_TIMEOUT_S", 300, 900) == 900, "a longer --comm-timeout wins");
    setenv("EXADL_NCCL_INIT_TIMEOUT_S", "12.5", 1);
    T_ASSERT(wd_timeout_s("EXADL_NCCL_INIT_TIMEOUT_S", 300, 900) == 12.5, "the variable sets it");
    unsetenv("EXADL_NCCL_INIT_TIMEOUT_S");
    char buf[512];
    int st = in_child(bad_env, buf, sizeof buf);
    T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2, "EXADL_NCCL_INIT_TIMEOUT_S=soon: wait status %#x", st);
    T_ASSERT(strstr(buf, "EXADL_NCCL_INIT_TIMEOUT_S='soon'"), "message: %s", buf);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    T_RUN(test_fires);
    T_RUN(test_disarmed);
    T_RUN(test_timeout_value);
    T_DONE();
}
