/* The launcher: real processes in their own group, logs, exit status and
 * signals, a timeout that kills the whole group (grandchildren included),
 * environment set and unset, a program that cannot start; the log tail. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/proc/launch.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/exadl-launch-XXXXXX";
static char logp[600];

static char *slurp(const char *p)
{
    char err[256];
    char *t = fileio_read(p, NULL, 1 << 20, err, sizeof err);
    return t ? t : calloc(1, 1);
}

static void test_exit_and_log(void)
{
    char *argv[] = {"/bin/sh", "-c", "echo to-out; echo to-err >&2; exit 3", NULL};
    spawn_opts_t o = {.argv = argv, .log = logp, .header = "# header\n", .timeout_s = 10};
    spawn_result_t r;
    int rc = spawn_run(&o, &r);
    char *t = slurp(logp);
    int ok = strstr(t, "# header\n") && strstr(t, "to-out") && strstr(t, "to-err");
    free(t);
    T_ASSERT(rc == 1 && r.started && r.exited && r.code == 3 && !r.timed_out, "exit 3: %s", r.why);
    T_ASSERT(!strcmp(r.why, "exit status 3"), "why: %s", r.why);
    T_ASSERT(ok, "stdout and stderr in the log after the header");
}

static void test_signal(void)
{
    char *argv[] = {"/bin/sh", "-c", "kill -SEGV $$", NULL};
    spawn_opts_t o = {.argv = argv, .log = logp, .timeout_s = 10};
    spawn_result_t r;
    int rc = spawn_run(&o, &r);
    T_ASSERT(rc == 1 && r.signaled && r.sig == SIGSEGV, "SIGSEGV recorded: %s", r.why);
    T_ASSERT(strstr(r.why, "SIGSEGV"), "why: %s", r.why);
}

static void test_timeout_kills_group(void)
{
    char pidf[700], cmd[1024];
    snprintf(pidf, sizeof pidf, "%s/grandchild.pid", dir);
    /* the grandchild ignores SIGTERM: only the SIGKILL to the group ends it */
    snprintf(cmd, sizeof cmd, "sh -c 'trap \"\" TERM; echo $$ > %s; exec sleep 60' & sleep 60",
             pidf);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    spawn_opts_t o = {.argv = argv, .log = logp, .timeout_s = 0.5, .grace_s = 0.3};
    spawn_result_t r;
    int rc = spawn_run(&o, &r);
    T_ASSERT(rc == 1 && r.timed_out && r.elapsed_s < 30, /* not the 60 s sleep */ "timed out (%s, %.2f s)", r.why, r.elapsed_s);
    T_ASSERT(strstr(r.why, "timed out"), "why: %s", r.why);
    char *t = slurp(pidf);
    int gp = atoi(t);
    free(t);
    T_ASSERT(gp > 1, "the grandchild wrote its pid");
    int alive = 1;
    for (int i = 0; i < 100 && alive; i++) { /* a zombie counts as dead: killed, not reaped */
        char sp[64], st[256] = "";
        snprintf(sp, sizeof sp, "/proc/%d/stat", gp);
        FILE *f = fopen(sp, "r");
        if (f) {
            if (!fgets(st, sizeof st, f)) st[0] = 0;
            fclose(f);
        }
        char *rp = strrchr(st, ')');
        alive = f && rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
        if (alive) usleep(10000);
    }
    if (alive) kill(gp, SIGKILL);
    T_ASSERT(!alive, "the grandchild %d outlived the timeout", gp);
}

static void test_env_and_missing(void)
{
    setenv("EXADL_TEST_DROP", "was here", 1);
    kv_t env[] = {{"EXADL_TEST_SET", "hello"}, {"EXADL_TEST_DROP", NULL}};
    char *argv[] = {"/bin/sh", "-c", "echo \"[$EXADL_TEST_SET][${EXADL_TEST_DROP-unset}]\"", NULL};
    spawn_opts_t o = {.argv = argv, .env = env, .nenv = 2, .capture = 1, .timeout_s = 10};
    spawn_result_t r;
    int rc = spawn_run(&o, &r);
    int ok = r.out && !strcmp(r.out, "[hello][unset]\n");
    char got[128];
    snprintf(got, sizeof got, "%s", r.out ? r.out : "(null)");
    spawn_result_free(&r);
    unsetenv("EXADL_TEST_DROP");
    T_ASSERT(rc == 0 && ok, "env in the child: %s", got);
    T_ASSERT(getenv("EXADL_TEST_SET") == NULL, "the parent's env is untouched");
    char *bad[] = {"/proc/self/exadl-absent/program", NULL};
    spawn_opts_t o2 = {.argv = bad, .log = logp, .timeout_s = 10};
    rc = spawn_run(&o2, &r);
    T_ASSERT(rc == 1 && !r.started && strstr(r.why, "cannot start /proc/self/exadl-absent/program"), "%s", r.why);
}

static void test_capture_large(void)
{
    /* more than a pipe buffer while the parent waits */
    char *argv[] = {"/bin/sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo 0123456789012345678901234567890123456789; i=$((i+1)); done", NULL};
    char *out = spawn_capture(argv, 20, NULL, 0);
    size_t n = out ? strlen(out) : 0;
    free(out);
    T_ASSERT(n == 3000 * 41, "captured %zu bytes", n);
}

static void test_log_tail(void)
{
    FILE *f = fopen(logp, "w");
    for (int i = 1; i <= 100; i++) fprintf(f, "line %d\n", i);
    fprintf(f, "bad \x01 byte \xff\n\n");
    fclose(f);
    arena_t *a = ar_new();
    char *t = log_tail(a, logp, 3, 4000);
    int ok = !strcmp(t, "line 99\nline 100\nbad ? byte ?");
    char got[256];
    snprintf(got, sizeof got, "%s", t);
    char *t2 = log_tail(a, logp, 1000, 30); /* byte limit: whole lines only */
    int ok2 = !strncmp(t2, "line 100\n", 9) || !strncmp(t2, "line 99\n", 8);
    ar_free(a);
    T_ASSERT(ok, "tail: '%s'", got);
    T_ASSERT(ok2, "byte-limited tail starts at a line");
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    launch_become_subreaper(); /* as exadl run does */
    snprintf(logp, sizeof logp, "%s/x.log", dir);
    T_RUN(test_exit_and_log);
    T_RUN(test_signal);
    T_RUN(test_timeout_kills_group);
    T_RUN(test_env_and_missing);
    T_RUN(test_capture_large);
    T_RUN(test_log_tail);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) return 1;
    T_DONE();
}
