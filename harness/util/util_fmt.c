/* util: number formatting, quoting, names (see util.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "harness/util/util.h"

/* ---- formatting ------------------------------------------------------------------ */
void fmt_si(double v, const char *unit, char *buf, size_t len)
{
    static const char *pre[] = {"", "k", "M", "G", "T", "P", "E"};
    if (!isfinite(v)) {
        snprintf(buf, len, "n/a");
        return;
    }
    double a = fabs(v);
    int i = 0;
    while (i < 6 && a >= 999.5) {
        a /= 1000;
        v /= 1000;
        i++;
    }
    const char *f = a >= 99.95 ? "%.0f%s%s%s" : (a >= 9.995 ? "%.1f%s%s%s" : "%.2f%s%s%s");
    snprintf(buf, len, f, v, *pre[i] || *unit ? " " : "", pre[i], unit);
}

void fmt_duration(double s, char *buf, size_t len)
{
    if (!isfinite(s) || s < 0) {
        snprintf(buf, len, "?");
        return;
    }
    if (s < 60 || s >= 1e12) { /* beyond 30,000 years: no cast to long */
        snprintf(buf, len, s < 10 ? "%.2f s" : s < 60 ? "%.1f s" : "%.3g s", s);
        return;
    }
    long t = (long)(s + 0.5);
    if (t < 3600) snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
    else snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

void fmt_num(double v, char *buf, size_t len)
{
    if (!isfinite(v)) snprintf(buf, len, "n/a");
    else snprintf(buf, len, "%.4g", v);
}

char *shell_quote(arena_t *a, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        "_-./=:,+@%") == strlen(s))
        return ar_strdup(a, s);
    sb_t b = {0};
    sb_puts(&b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'') sb_puts(&b, "'\\''");
        else sb_putn(&b, p, 1);
    }
    sb_puts(&b, "'");
    char *r = ar_strdup(a, b.s);
    sb_free(&b);
    return r;
}

const char *short_host(void)
{
    static char h[256];
    if (!h[0]) {
        snprintf(h, sizeof h, "%s", check_host());
        char *d = strchr(h, '.');
        if (d && d != h) *d = 0;
    }
    return h;
}

char *sanitize_name(arena_t *a, const char *s)
{
    char *r = ar_strdup(a, s && *s ? s : "unnamed");
    for (char *p = r; *p; p++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-", *p))
            *p = '_';
    return r;
}

