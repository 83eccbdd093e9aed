/* Writing inside folders that may come from someone else (safefile.h). */
#define _GNU_SOURCE
#include "harness/util/safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the subfolders of a run folder exadl writes into */
static const char *const sf_subdirs[] = {"records", "logs", "plots", "references", "model",
                                         "launches"};

static const char *kind_of(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a file or folder";
}

/* every entry of the folder dfd (named path) a plain file or folder */
static int check_entries(int dfd, const char *path, char *err, size_t errlen)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        snprintf(err, errlen, "%s: cannot list: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) continue; /* gone meanwhile */
            snprintf(err, errlen, "%s/%s: %s", path, e->d_name, strerror(errno));
            rc = -1;
        } else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
            /* the name is data: only printable ASCII reaches the terminal */
            char name[256];
            size_t k = 0;
            const unsigned char *p = (const unsigned char *)e->d_name;
            for (; *p && k + 1 < sizeof name; p++) name[k++] = *p >= 32 && *p < 127 ? (char)*p : '?';
            name[k] = 0;
            snprintf(err, errlen, "%s/%s is %s: exadl writes into this folder and does not follow "
                     "or replace such entries (remove it, or analyse a clean copy)", path, name,
                     kind_of(st.st_mode));
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

int sf_check_rundir(const char *dir, char *err, size_t errlen)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(err, errlen, "%s: cannot open the folder: %s", dir, strerror(errno));
        return -1;
    }
    int rc = check_entries(dfd, dir, err, errlen);
    for (size_t i = 0; rc == 0 && i < sizeof sf_subdirs / sizeof *sf_subdirs; i++) {
        int sfd = openat(dfd, sf_subdirs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sfd < 0) {
            if (errno == ENOENT) continue;
            snprintf(err, errlen, "%s/%s: not a folder: %s", dir, sf_subdirs[i], strerror(errno));
            rc = -1;
            break;
        }
        char sub[PATH_MAX];
        snprintf(sub, sizeof sub, "%s/%s", dir, sf_subdirs[i]);
        rc = check_entries(sfd, sub, err, errlen);
        close(sfd);
    }
    close(dfd);
    return rc;
}

int sf_mkdir(const char *path, char *err, size_t errlen)
{
    if (mkdir(path, 0755) == 0) return 0;
    int e = errno;
    struct stat st;
    if (e == EEXIST && lstat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return 0;
        snprintf(err, errlen, "%s is %s, not a folder: exadl does not write through it", path,
                 kind_of(st.st_mode));
        return -1;
    }
    snprintf(err, errlen, "cannot create %s: %s", path, strerror(e));
    return -1;
}

int sf_append(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot append: %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: not followed)" : "");
        return -1;
    }
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file: not appended to", path);
    } else {
        size_t off = 0;
        while (off < len) {
            ssize_t w = write(fd, data + off, len - off);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) break;
            off += (size_t)w;
        }
        if (off != len || fsync(fd) != 0)
            snprintf(err, errlen, "%s: cannot append: %s", path, strerror(errno));
        else
            rc = 0;
    }
    close(fd);
    return rc;
}

int sf_move_aside(const char *path, const char *suffix, char *aside, size_t asidelen, char *err,
                  size_t errlen)
{
    for (int i = 1; i < 10000; i++) {
        if (snprintf(aside, asidelen, "%s.%s-%d", path, suffix, i) >= (int)asidelen) break;
        struct stat st;
        if (lstat(aside, &st) == 0) continue;
        /* under the folder's lock: no other exadl takes the name meanwhile */
        if (rename(path, aside) == 0) return 0;
        snprintf(err, errlen, "cannot move %s aside to %s: %s", path, aside, strerror(errno));
        return -1;
    }
    snprintf(err, errlen, "cannot find a free name to move %s aside", path);
    return -1;
}

/* the lock file's text as one printable line (it is data of the folder) */
static void holder_text(int fd, char *out, size_t outlen)
{
    char buf[512];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    size_t k = 0;
    for (ssize_t i = 0; i < (n > 0 ? n : 0) && k + 1 < outlen; i++) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch == '\n') {
            if (k && k + 2 < outlen) out[k++] = ';', out[k++] = ' ';
        } else {
            out[k++] = ch >= 32 && ch < 127 ? (char)ch : '?';
        }
    }
    while (k && (out[k - 1] == ' ' || out[k - 1] == ';')) k--;
    out[k] = 0;
}

/* the lock this process holds: removed at exit, so that a folder an
 * analyze only read is left as it was */
static char held_path_[PATH_MAX];
static int held_fd_ = -1;

static void unlock_at_exit(void)
{
    struct stat a, b;
    /* still our file at that name (nobody can take it while we hold it) */
    if (held_fd_ >= 0 && fstat(held_fd_, &a) == 0 && lstat(held_path_, &b) == 0 &&
        a.st_ino == b.st_ino && a.st_dev == b.st_dev)
        unlink(held_path_);
}

/* open and lock path; 1 when a remover came between (the file locked is no
 * longer at the name: try again), 0 locked, -1 with err */
static int lock_once(const char *dir, const char *path, int *fdp, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0 && (errno == EROFS || errno == EACCES || errno == EPERM))
        return *fdp = -1, 0; /* a folder nobody here can write: its files go elsewhere */
    struct stat st, at;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: cannot open the lock file: %s", path,
                 fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0) close(fd);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char who[400];
        holder_text(fd, who, sizeof who);
        close(fd);
        if (e == EWOULDBLOCK)
            snprintf(err, errlen, "%s is in use by another exadl (%s): one writer per run folder; "
                     "wait until it ends", dir, who[0] ? who : "holder unknown");
        else
            snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(e));
        return -1;
    }
    if (lstat(path, &at) != 0 || at.st_ino != st.st_ino || at.st_dev != st.st_dev) {
        close(fd); /* the holder before us removed it as it ended */
        return 1;
    }
    *fdp = fd;
    return 0;
}

int sf_lock_dir(const char *dir, const char *command, char *err, size_t errlen)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/exadl.lock", dir) >= (int)sizeof path) {
        snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    int fd = -1, rc = 1;
    for (int tries = 0; rc == 1 && tries < 100; tries++)
        rc = lock_once(dir, path, &fd, err, errlen);
    if (rc == 1) snprintf(err, errlen, "%s: the lock file keeps being replaced", path);
    if (rc) return -1;
    if (fd < 0) return 0;
    char host[256] = "?", since[32] = "?";
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = 0;
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char text[1024];
    int n = snprintf(text, sizeof text, "pid %ld\nhost %s\nsince %s\ncommand %s\n",
                     (long)getpid(), host, since, command ? command : "exadl");
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof text) n = (int)sizeof text - 1;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
        snprintf(err, errlen, "%s: cannot write the lock file: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (held_fd_ < 0) { /* one lock per process (run, analyze, model: one folder) */
        snprintf(held_path_, sizeof held_path_, "%s", path);
        held_fd_ = fd;
        if (atexit(unlock_at_exit) != 0) held_fd_ = -1;
    }
    return 0; /* fd stays open: the lock is held until exadl exits */
}
