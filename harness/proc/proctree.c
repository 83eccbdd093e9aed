/* Processes below one (proctree.h): /proc read with system calls only. */
#define _GNU_SOURCE
#include "harness/proc/proctree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { MAXP = 32768 };

/* one snapshot at a time: the crash handler may interrupt a walk, and then
 * takes the other buffer set */
static pid_t g_pid[2][MAXP], g_ppid[2][MAXP];
static volatile int g_busy;

/* the parent PID in /proc/PID/stat ("pid (comm) S ppid ..."; comm may hold
 * spaces and parentheses: the last ')' ends it) */
static pid_t read_ppid(const char *pid)
{
    char path[64] = "/proc/";
    int k = 6;
    for (int i = 0; pid[i] && k < 50; i++) path[k++] = pid[i];
    const char *tail = "/stat";
    for (int i = 0; tail[i]; i++) path[k++] = tail[i];
    path[k] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    char *rp = NULL;
    for (char *p = buf; *p; p++)
        if (*p == ')') rp = p;
    if (!rp || !rp[1] || !rp[2] || !rp[3]) return -1;
    char *p = rp + 4; /* ") S " */
    pid_t v = 0;
    while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
    return v;
}

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* every process and its parent into the buffer set b: their count */
static int snapshot(int b)
{
    int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    int n = 0;
    char buf[8192];
    for (;;) {
        long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (got <= 0) break;
        for (long off = 0; off < got;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] < '1' || d->d_name[0] > '9' || n >= MAXP) continue;
            pid_t pid = 0;
            int ok = 1;
            for (const char *p = d->d_name; *p; p++) {
                if (*p < '0' || *p > '9') ok = 0;
                else pid = pid * 10 + (*p - '0');
            }
            if (!ok) continue;
            pid_t pp = read_ppid(d->d_name);
            if (pp < 0) continue; /* gone meanwhile */
            g_pid[b][n] = pid, g_ppid[b][n] = pp, n++;
        }
    }
    close(fd);
    return n;
}

int proctree_below(pid_t root, pid_t *out, int max)
{
    int b = g_busy ? 1 : 0;
    g_busy++;
    int n = snapshot(b), found = 0;
    /* breadth first over out itself: out[0..found) are the ones whose children
     * are still to be looked for */
    pid_t frontier = root;
    for (int next = -1;; next++) {
        if (next >= 0) {
            if (next >= found) break;
            frontier = out[next];
        }
        for (int i = 0; i < n && found < max; i++)
            if (g_ppid[b][i] == frontier && g_pid[b][i] != root) out[found++] = g_pid[b][i];
    }
    g_busy--;
    return found;
}

int proctree_signal(pid_t root, int sig)
{
    static pid_t below[2][4096];
    int b = g_busy ? 1 : 0;
    int n = proctree_below(root, below[b], 4096);
    for (int i = 0; i < n; i++) kill(below[b][i], sig);
    return n;
}
