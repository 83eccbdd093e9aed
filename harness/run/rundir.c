#define _GNU_SOURCE
#include "harness/run/rundir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void utc_stamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

static int mkdir_p(const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    if (!path_is_dir(tmp)) {
        snprintf(err, errlen, "%s exists and is not a folder", tmp);
        return -1;
    }
    return 0;
}

char *rundir_create(arena_t *a, const char *parent, const char *suite, const char *host,
                    char *err, size_t errlen)
{
    if (mkdir_p(parent, err, errlen)) return NULL;
    char stamp[32];
    utc_stamp(stamp, sizeof stamp);
    char *base = ar_printf(a, "%s-%s-%s", stamp, sanitize_name(a, host),
                           sanitize_name(a, suite));
    char *dir = NULL;
    for (int i = 1; i < 10000; i++) {
        dir = i == 1 ? path_join(a, parent, base)
                     : path_join(a, parent, ar_printf(a, "%s-%d", base, i));
        if (mkdir(dir, 0755) == 0) break; /* exclusive: mkdir fails on an existing name */
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
            return NULL;
        }
        dir = NULL;
    }
    if (!dir) {
        snprintf(err, errlen, "cannot find a free name for %s in %s", base, parent);
        return NULL;
    }
    dir = path_abs(a, dir);
    static const char *const sub[] = {"records", "logs", "plots", "references"};
    for (int i = 0; i < 4; i++) {
        char *s = path_join(a, dir, sub[i]);
        if (mkdir(s, 0755) != 0) {
            snprintf(err, errlen, "cannot create %s: %s", s, strerror(errno));
            return NULL;
        }
    }
    return dir;
}

char *rundir_copy(arena_t *a, const char *src, const char *dir, char *err, size_t errlen)
{
    size_t len;
    char *text = fileio_read(src, &len, (size_t)64 << 20, err, errlen);
    if (!text) return NULL;
    const char *base = path_basename(src);
    char *name = ar_strdup(a, base);
    for (int i = 2; path_is_file(path_join(a, dir, name)) && i < 1000; i++)
        name = ar_printf(a, "%d-%s", i, base);
    int rc = fileio_write_atomic(path_join(a, dir, name), text, len, err, errlen);
    free(text);
    return rc ? NULL : name;
}
