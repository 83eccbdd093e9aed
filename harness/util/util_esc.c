/* esc (esc.h). */
#define _GNU_SOURCE
#include "harness/util/esc.h"

#include <stdio.h>
#include <string.h>

/* the length of the valid, non-control UTF-8 sequence at s (2 to 4), or 0 */
static size_t utf8_ok(const unsigned char *s)
{
    unsigned c = s[0], cp, n;
    if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07;
    else return 0;
    for (unsigned i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the NUL */
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
        return 0; /* overlong, out of range, a surrogate, a C1 control */
    return n;
}

int esc_has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        size_t n = *p >= 0x80 ? utf8_ok(p) : (*p >= 0x20 && *p != 0x7f);
        if (!n) return 1;
        p += n;
    }
    return 0;
}

/* md: 0 for a terminal, 1 for report.md */
static void esc_sb(sb_t *bp, const char *s, int md)
{
    sb_t b = *bp;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = *p >= 0x80 ? utf8_ok(p) : 0;
        if (n) {
            sb_putn(&b, (const char *)p, n);
            p += n;
            continue;
        }
        unsigned c = *p++;
        if (md && (c == '\n' || c == '\r' || c == '\t')) sb_puts(&b, " ");
        else if (!md && c == '\n') sb_puts(&b, "\\n");
        else if (!md && c == '\r') sb_puts(&b, "\\r");
        else if (!md && c == '\t') sb_puts(&b, "\\t");
        else if (c < 0x20 || c >= 0x7f) sb_printf(&b, "\\x%02x", c);
        else if (c == '\\') sb_puts(&b, "\\\\");
        else if (md && c == '&') sb_puts(&b, "&amp;");
        else if (md && strchr("`*_[]<>|~", (int)c)) sb_printf(&b, "\\%c", c);
        else sb_putn(&b, (const char *)p - 1, 1);
    }
    *bp = b;
}

static const char *esc(arena_t *a, const char *s, int md)
{
    sb_t b = {0};
    esc_sb(&b, s, md);
    const char *r = ar_strdup(a, b.len ? sb_str(&b) : "");
    sb_free(&b);
    return r;
}

const char *esc_term_buf(char *buf, size_t len, const char *s)
{
    sb_t b = {0};
    esc_sb(&b, s ? s : "(null)", 0);
    const char *e = b.len ? sb_str(&b) : "";
    if (strlen(e) < len) {
        snprintf(buf, len, "%s", e);
    } else if (len > 4) { /* cut before a partial \xHH or UTF-8 sequence */
        size_t k = len - 4;
        while (k > 0 && ((unsigned char)e[k] & 0xc0) == 0x80) k--;
        for (size_t j = k; j > 0 && j + 4 > k; j--)
            if (e[j - 1] == '\\') k = j - 1;
        snprintf(buf, len, "%.*s...", (int)k, e);
    } else if (len) {
        buf[0] = 0;
    }
    sb_free(&b);
    return buf;
}

const char *esc_term(arena_t *a, const char *s) { return s ? esc(a, s, 0) : "(null)"; }

const char *esc_md(arena_t *a, const char *s) { return s ? esc(a, s, 1) : ""; }
