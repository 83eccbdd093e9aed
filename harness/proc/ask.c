/* A program asked about its input (ask.h). */
#define _GNU_SOURCE
#include "harness/proc/ask.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/proc/launch.h"

/* the last non-empty line of file path, printable ASCII (log_tail), into line */
static void last_line(const char *path, char *line, size_t len)
{
    arena_t *a = ar_new();
    const char *t = log_tail(a, path, 1, 4096);
    snprintf(line, len, "%s", strcmp(t, "(no log)") ? t : "");
    ar_free(a);
}

char *ask_program(char *const *argv, const kv_t *env, size_t nenv, double timeout_s, int *code,
                  char *why, size_t whylen)
{
    *code = -1;
    if (why && whylen) why[0] = 0;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char errlog[4096];
    snprintf(errlog, sizeof errlog, "%s/exadl-stderr-XXXXXX", tmp);
    int fd = mkstemp(errlog);
    if (fd < 0) {
        if (why) snprintf(why, whylen, "cannot create a file in %s: %s", tmp, strerror(errno));
        return NULL;
    }
    close(fd);
    spawn_opts_t o = {.argv = argv, .env = env, .nenv = nenv, .log = errlog,
                      .timeout_s = timeout_s, .grace_s = 1, .capture = 1};
    spawn_result_t r;
    int bad = spawn_run(&o, &r);
    if (r.exited) *code = r.code;
    if (bad && why) {
        char said[512];
        last_line(errlog, said, sizeof said);
        /* a program that stopped on its input says why on its last line */
        snprintf(why, whylen, "%s", r.exited && said[0] ? said : r.why);
    }
    unlink(errlog);
    if (bad) {
        spawn_result_free(&r);
        return NULL;
    }
    return r.out;
}
