/* What exadl reads back from the processes it starts (launch.h): a probe's
 * output (spawn_capture, with the environment and wrapper `exadl run` set
 * for probes) and the tail of a launch's log.  Apart from launch.c, which
 * starts, waits for and stops processes and owns exadl's signal handlers:
 * these only call spawn_run or read a file, and share none of its state. */
#define _GNU_SOURCE
#include "harness/proc/launch.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const kv_t *g_probe_env;
static size_t g_probe_nenv;

void launch_set_probe_env(const kv_t *env, size_t n)
{
    g_probe_env = env;
    g_probe_nenv = n;
}

static char **(*g_probe_wrap)(void *ctx, char *const *argv);
static void *g_probe_ctx;

void launch_set_probe_wrap(char **(*fn)(void *ctx, char *const *argv), void *ctx)
{
    g_probe_wrap = fn;
    g_probe_ctx = ctx;
}

int launch_probes_wrapped(void) { return g_probe_wrap != NULL; }

char *spawn_capture(char *const *argv, double timeout_s, char *why, size_t whylen)
{
    if (g_probe_wrap) argv = g_probe_wrap(g_probe_ctx, argv);
    spawn_opts_t o = {.argv = argv, .env = g_probe_env, .nenv = g_probe_nenv,
                      .timeout_s = timeout_s, .grace_s = 1, .capture = 1};
    spawn_result_t r;
    int bad = spawn_run(&o, &r);
    if (bad) {
        if (why) snprintf(why, whylen, "%s", r.why);
        spawn_result_free(&r);
        return NULL;
    }
    return r.out;
}

char *log_tail(arena_t *a, const char *path, int max_lines, size_t max_bytes)
{
    /* a run folder is untrusted: a FIFO planted as a log must not block */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return ar_strdup(a, "(no log)");
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return ar_strdup(a, "(the log is not a regular file)");
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return ar_strdup(a, "(no log)");
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long start = size > (long)max_bytes ? size - (long)max_bytes : 0;
    fseek(f, start, SEEK_SET);
    char *buf = ar_alloc(a, max_bytes + 1);
    size_t n = fread(buf, 1, max_bytes, f);
    fclose(f);
    buf[n] = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
    int lines = 0;
    char *p = buf + n;
    while (p > buf) {
        if (p[-1] == '\n' && ++lines >= max_lines) break;
        p--;
    }
    if (start > 0 && p == buf) { /* the first line is cut: drop it */
        char *nl = strchr(p, '\n');
        if (nl) p = nl + 1;
    }
    for (char *q = p; *q; q++)
        if ((unsigned char)*q < 32 && *q != '\n' && *q != '\t') *q = '?';
        else if ((unsigned char)*q >= 127) *q = '?'; /* keep it ASCII: valid UTF-8 */
    return p;
}
