/* wf_files (wf_files.h): samples as files, credits as files removed. */
#define _GNU_SOURCE
#include "benchmarks/workflow/wf_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/common/fileio.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/workflow/wf_sample.h"

extern char **environ;

static void nap(int us)
{
    struct timespec t = {us / 1000000, (long)(us % 1000000) * 1000};
    nanosleep(&t, NULL);
}

/* DIR/pP/NAME into out (PATH_MAX) */
static void path_of(char *out, const wf_cfg *c, int p, const char *name)
{
    int n = snprintf(out, PATH_MAX, "%s/p%d%s%s", c->dir, p, name ? "/" : "", name ? name : "");
    CHECK(n > 0 && n < PATH_MAX, "%s: path too long", c->dir);
}

int wf_files_prepare(wf_cfg *c, const comm_t *comm, int *made_dir, char *err, size_t errlen)
{
    int rc = 0;
    *made_dir = 0;
    if (comm->rank == 0) {
        if (!c->dir_given) {
            const char *t = getenv("TMPDIR");
            snprintf(c->dir, sizeof c->dir, "%s/exadl-workflow-XXXXXX", t && *t ? t : "/tmp");
            if (!mkdtemp(c->dir))
                rc = -1, snprintf(err, errlen, "%s: cannot make: %s", c->dir, strerror(errno));
            else *made_dir = 1;
        } else if (mkdir(c->dir, 0755) == 0) *made_dir = 1;
        else if (errno != EEXIST)
            rc = -1, snprintf(err, errlen, "--dir %s: cannot make: %s", c->dir, strerror(errno));
        else {
            /* a folder of an earlier run would offer its samples as this one's */
            DIR *d = opendir(c->dir);
            struct dirent *e;
            if (!d) rc = -1, snprintf(err, errlen, "--dir %s: %s", c->dir, strerror(errno));
            while (d && (e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                    rc = -1, snprintf(err, errlen, "--dir %s: not empty (a run needs an empty folder)",
                                      c->dir);
                    break;
                }
            if (d) closedir(d);
        }
        for (int p = 0; !rc && p < comm->size - 1; p++) {
            char d[PATH_MAX];
            path_of(d, c, p, NULL);
            if (mkdir(d, 0755)) rc = -1, snprintf(err, errlen, "%s: cannot make: %s", d, strerror(errno));
        }
    }
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm->world));
    CHECK_MPI(MPI_Bcast(c->dir, (int)sizeof c->dir, MPI_CHAR, 0, comm->world));
    c->dir_given = 1;
    return rc;
}

static void marker(const wf_cfg *c, int p, const char *name, const char *text)
{
    char path[PATH_MAX], err[PATH_MAX + 128];
    path_of(path, c, p, name);
    CHECK(fileio_write_atomic(path, text, strlen(text), err, sizeof err) == 0, "%s", err);
}

void wf_files_launch(const wf_cfg *c, const comm_t *comm, char *const *argv)
{
    int p = comm->rank - 1, argc = 0;
    while (argv[argc]) argc++;
    char **av = XCALLOC((size_t)argc + 6, sizeof *av, "producer command");
    char id[16];
    snprintf(id, sizeof id, "%d", p);
    for (int i = 0; i < argc; i++) av[i] = argv[i];
    /* the folder rank 0 settled on, and the role: later options win */
    av[argc] = "--dir", av[argc + 1] = (char *)c->dir, av[argc + 2] = "--as-producer", av[argc + 3] = id;
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, av, environ);
    char how[160];
    if (rc) {
        snprintf(how, sizeof how, "could not start: %s", strerror(rc));
        marker(c, p, "failed", how);
        free(av);
        return;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
    char done[PATH_MAX], failed[PATH_MAX];
    path_of(done, c, p, "done"), path_of(failed, c, p, "failed");
    if (WIFSIGNALED(st))
        snprintf(how, sizeof how, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WEXITSTATUS(st))
        snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(st));
    else snprintf(how, sizeof how, "exited before it finished");
    if (WIFSIGNALED(st) || WEXITSTATUS(st) || (access(done, F_OK) && access(failed, F_OK)))
        marker(c, p, "failed", how);
    free(av);
}

/* sample files of producer p's folder now (its unconsumed queue) */
static int count_samples(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL, "%s: %s", dir, strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        n += e->d_name[0] == 'w' && l > 4 && !strcmp(e->d_name + l - 4, ".smp");
    }
    closedir(d);
    return n;
}

/* temp + rename, no fsync: the rename makes the whole file appear at once
 * to every reader; a sample is read within seconds, not kept */
static void write_sample(const char *dir, int64_t idx, const void *buf, size_t bytes, int half)
{
    char tmp[PATH_MAX], fin[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/.w%08" PRId64 ".tmp", dir, idx);
    snprintf(fin, sizeof fin, "%s/w%08" PRId64 ".smp", dir, idx);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    CHECK(fd >= 0, "%s: %s", tmp, strerror(errno));
    size_t len = half ? bytes / 2 : bytes, off = 0;
    while (off < len) {
        ssize_t w = write(fd, (const char *)buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        CHECK(w > 0, "%s: %s", tmp, strerror(errno));
        off += (size_t)w;
    }
    CHECK_SYS(close(fd));
    if (half) abort(); /* --fail-how abort: dies in the middle of a write */
    CHECK_SYS(rename(tmp, fin));
}

int wf_files_producer(const wf_cfg *c)
{
    /* a producer never outlives its rank (a job killed by its time limit) */
    CHECK_SYS(prctl(PR_SET_PDEATHSIG, SIGKILL));
    int p = c->as_producer, P = 0;
    char dir[PATH_MAX], text[128];
    path_of(dir, c, p, NULL);
    for (;; P++) { /* producers: the folders rank 0 made */
        char d[PATH_MAX];
        path_of(d, c, P, NULL);
        if (access(d, F_OK)) break;
    }
    CHECK(P > p, "%s: no such folder (rank 0 makes it)", dir);
    snprintf(text, sizeof text, "%ld\n", (long)getpid());
    marker(c, p, "pid", text);
    int credits = wf_credits(c, P);
    size_t bytes = wf_sample_bytes(c);
    unsigned char *buf = XCALLOC(bytes, 1, "sample");
    float *work = XMALLOC(2 * wf_cells(c) * sizeof(float), "simulation");
    double blocked = 0;
    int64_t idx = 0;
    for (int64_t seq = 0; seq < c->samples; seq++) {
        if (p == c->fail_producer && seq == c->fail_after) {
            if (c->fail_how == WF_STOP) {
                marker(c, p, "failed", "stopped (--fail-how stop)");
                free(buf), free(work);
                return 0;
            }
            if (c->fail_how == WF_EXIT) _exit(3);
            if (c->fail_how == WF_HANG) {
                marker(c, p, "hung", "waiting to be killed (--fail-how hang)\n");
                for (;;) pause();
            }
            write_sample(dir, idx, buf, bytes, 1); /* abort: half a temp file, then SIGABRT */
        }
        wf_sample_make(c, p, seq, buf, work);
        if (p == 0 && seq == c->corrupt_seq) buf[bytes - 1] ^= 0x5a;
        int copies = p == 0 && seq == c->duplicate_seq ? 2 : 1;
        for (int k = 0; k < copies; k++) {
            /* back-pressure: at most `credits` of its files wait in the folder */
            double t0 = timer_now_s();
            int waited = 0;
            while (count_samples(dir) >= credits) nap(c->poll_us), waited = 1;
            if (waited) blocked += timer_now_s() - t0;
            write_sample(dir, idx++, buf, bytes, 0);
        }
    }
    snprintf(text, sizeof text, "produced %d blocked_s %.9g\n", c->samples, blocked);
    marker(c, p, "done", text);
    free(buf), free(work);
    return 0;
}

typedef struct {
    const wf_cfg *c;
} fctx;

static void remove_sample(void *user, int p, int64_t idx)
{
    const fctx *x = user;
    char path[PATH_MAX], name[32];
    snprintf(name, sizeof name, "w%08" PRId64 ".smp", idx);
    path_of(path, x->c, p, name);
    CHECK(unlink(path) == 0 || errno == ENOENT, "%s: %s", path, strerror(errno));
}

/* the producer's end from its markers: 1 when it ended */
static int read_end(const wf_cfg *c, int p, wf_end *e)
{
    char path[PATH_MAX], err[PATH_MAX + 128];
    path_of(path, c, p, "done");
    char *t = access(path, F_OK) ? NULL : fileio_read(path, NULL, 256, err, sizeof err);
    if (t) {
        long long n;
        double b;
        CHECK(sscanf(t, "produced %lld blocked_s %lf", &n, &b) == 2, "%s: unreadable", path);
        e->produced = n, e->blocked_s = b;
        snprintf(e->how, sizeof e->how, "done");
        free(t);
        return 1;
    }
    path_of(path, c, p, "failed");
    t = access(path, F_OK) ? NULL : fileio_read(path, NULL, 256, err, sizeof err);
    if (!t) return 0;
    t[strcspn(t, "\n")] = 0;
    /* anyone who can write the shared folder wrote this: no control
     * characters reach the terminal or the record */
    for (char *q = t; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) *q = '?';
    e->failed = 1, e->produced = -1, e->blocked_s = NAN;
    snprintf(e->how, sizeof e->how, "%s", t);
    free(t);
    return 1;
}

/* Read producer p's sample files not taken yet while the queue has room;
 * the count of those left unread. */
static int take_files(const wf_cfg *c, int p, wf_tr *T, unsigned char *taken, int64_t ntaken,
                      unsigned char *buf, fctx *x, int *got, double *check_s)
{
    char dir[PATH_MAX], path[PATH_MAX + 64], err[PATH_MAX + 128];
    path_of(dir, c, p, NULL);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "%s: %s", dir, strerror(errno));
    struct dirent *e;
    int left = 0;
    while ((e = readdir(d))) {
        char *end;
        size_t l = strlen(e->d_name);
        if (e->d_name[0] != 'w' || l < 5 || strcmp(e->d_name + l - 4, ".smp")) continue;
        long long idx = strtoll(e->d_name + 1, &end, 10);
        if (end != e->d_name + l - 4 || idx < 0 || idx >= ntaken || taken[idx]) continue;
        if (T->qn >= c->queue) {
            left++;
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *data = fileio_read(path, &len, wf_sample_bytes(c) + 1, err, sizeof err);
        taken[idx] = 1, *got = 1;
        /* too large, unreadable, damaged: corrupt (fileio_read refuses over max) */
        if (data) memcpy(buf, data, len < wf_sample_bytes(c) ? len : wf_sample_bytes(c));
        double c0 = timer_now_s();
        wf_offer o = data ? wf_tr_offer(T, p, idx, buf, len) : (T->corrupt++, WF_CORRUPT);
        *check_s += timer_now_s() - c0;
        if (o != WF_NEW) remove_sample(x, p, idx);
        free(data);
    }
    closedir(d);
    return left;
}

void wf_files_trainer(const wf_cfg *c, int P, wf_tr *T, double *wall_s)
{
    int64_t ntaken = (int64_t)c->samples + 2; /* a producer writes samples (+1 duplicate) files */
    unsigned char *taken = XCALLOC((size_t)P * (size_t)ntaken, 1, "files taken");
    unsigned char *buf = XMALLOC(wf_sample_bytes(c), "sample");
    int *marked = XCALLOC((size_t)P, sizeof *marked, "producers"), left = P;
    fctx x = {c};
    double t0 = timer_now_s(), check_s = 0;
    for (;;) {
        int got = 0;
        for (int p = 0; p < P; p++) {
            if (T->ends[p].ended) continue;
            /* its end first, then its folder: a sample renamed before the end
             * marker was written is in this listing */
            if (!marked[p]) marked[p] = read_end(c, p, &T->ends[p]);
            int unread = take_files(c, p, T, taken + (size_t)p * (size_t)ntaken, ntaken, buf, &x, &got,
                                    &check_s);
            if (marked[p] && !unread) T->ends[p].ended = 1, left--;
        }
        int can = 0; /* a producer with a credit left (its files fewer than its credits) */
        for (int p = 0; p < P; p++) can |= !marked[p] && T->pending[p] < wf_credits(c, P);
        if (T->qn >= c->batch || (T->qn > 0 && !can)) {
            wf_tr_step(T, remove_sample, &x);
            continue;
        }
        if (!left && !T->qn) break;
        if (!got) nap(c->poll_us);
    }
    *wall_s = timer_now_s() - t0;
    /* stall: the trainer's time neither training nor checking samples
     * (listing, reading files, waiting) */
    T->stall_s = *wall_s - T->train_s - check_s;
    T->check_s = check_s;
    free(taken), free(buf), free(marked);
}

int wf_files_cleanup(const wf_cfg *c, int P, int made_dir)
{
    int partial = 0;
    for (int p = 0; p < P; p++) {
        char dir[PATH_MAX], path[PATH_MAX + 300];
        path_of(dir, c, p, NULL);
        DIR *d = opendir(dir);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            size_t l = strlen(e->d_name);
            partial += e->d_name[0] == '.' && l > 4 && !strcmp(e->d_name + l - 4, ".tmp");
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
        rmdir(dir);
    }
    if (made_dir) rmdir(c->dir);
    return partial;
}
