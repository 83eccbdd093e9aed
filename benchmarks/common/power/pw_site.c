/* pw_site: the site's node-level meter (docs/energy.md "Site meter"), the
 * kind of measurement Green500 asks for: a file (file:PATH) or a command
 * (command:PROGRAM ARGS, split at blanks and started without a shell) whose
 * first line is a number and its unit: "J" or "kJ" (a cumulative energy
 * counter of the node) or "W" or "kW" (the node's power, sampled and
 * integrated).  The unit of the first reading (at open) decides which. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/power/power.h"

extern char **environ;

#define SITE_MAX_ARGS 16

/* the command's first line of output into buf: 0, or -1 with why */
static int run_command(const char *cmd, char *buf, size_t n, char *why, size_t whylen)
{
    char copy[512], *argv[SITE_MAX_ARGS + 1], *save = NULL;
    snprintf(copy, sizeof copy, "%s", cmd);
    int argc = 0;
    for (char *t = strtok_r(copy, " \t", &save); t && argc < SITE_MAX_ARGS;
         t = strtok_r(NULL, " \t", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    if (!argc) {
        snprintf(why, whylen, "the meter's command is empty");
        return -1;
    }
    int fd[2];
    if (pipe(fd)) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    CHECK(posix_spawn_file_actions_init(&fa) == 0 &&
              posix_spawn_file_actions_adddup2(&fa, fd[1], 1) == 0 &&
              posix_spawn_file_actions_addclose(&fa, fd[0]) == 0 &&
              posix_spawn_file_actions_addclose(&fa, fd[1]) == 0,
          "the meter command's file actions");
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc) {
        close(fd[0]);
        snprintf(why, whylen, "%s: %s", argv[0], strerror(rc));
        return -1;
    }
    size_t got = 0;
    ssize_t k;
    while (got + 1 < n && (k = read(fd[0], buf + got, n - 1 - got)) != 0) {
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) break;
        got += (size_t)k;
    }
    buf[got] = 0;
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            snprintf(why, whylen, "waitpid: %s", strerror(errno));
            return -1;
        }
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        snprintf(why, whylen, "%s exited with status %d", argv[0],
                 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        return -1;
    }
    return 0;
}

/* "NUMBER UNIT": the value in J or W, *energy whether it is J: 0 or -1 */
static int parse(const char *buf, double *v, int *energy, char *why, size_t whylen)
{
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    while (*end == ' ' || *end == '\t') end++;
    size_t u = strcspn(end, " \t\r\n");
    double k = 1;
    if (u == 2 && end[0] == 'k') k = 1e3, end++, u--;
    if (errno || end == buf || !isfinite(x) || x < 0 || u != 1 || (*end != 'J' && *end != 'W')) {
        snprintf(why, whylen, "the meter's reading is not 'NUMBER J', 'NUMBER kJ', 'NUMBER W' or "
                              "'NUMBER kW'");
        return -1;
    }
    *v = x * k;
    *energy = *end == 'J';
    return 0;
}

static int reading(const power_src_t *src, double *v, int *energy, char *why, size_t whylen)
{
    char buf[256];
    int rc = src->index ? run_command(src->path, buf, sizeof buf, why, whylen)
                        : pw_read_small(src->path, buf, sizeof buf, 0, why, whylen);
    return rc ? rc : parse(buf, v, energy, why, whylen);
}

void pw_site_open(power_sess_t *s)
{
    const char *m = s->cfg.meter;
    if (!m) {
        power_absent(s, "site", "no site meter named (EXADL_POWER_METER)");
        return;
    }
    int cmd = !strncmp(m, "command:", 8);
    power_src_t *p = power_add(s, "site", "node", 1);
    if (!p) return;
    snprintf(p->name, sizeof p->name, "site:node");
    snprintf(p->path, sizeof p->path, "%s", m + (cmd ? 8 : 5));
    p->index = cmd;
    p->per_j = 1;
    p->accuracy = s->cfg.meter_accuracy;
    double v;
    int energy;
    if (reading(p, &v, &energy, p->reason, sizeof p->reason)) {
        p->ok = 0;
        return;
    }
    p->counter = energy;
}

int pw_site_read(power_src_t *src, double *raw)
{
    int energy;
    if (reading(src, raw, &energy, src->reason, sizeof src->reason)) return -1;
    if (energy != src->counter) {
        snprintf(src->reason, sizeof src->reason, "the meter's unit changed during the window");
        return -1;
    }
    return 0;
}
