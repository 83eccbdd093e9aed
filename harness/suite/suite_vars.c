/* The placeholders of a suite's args and config values (suite_vars.h). */
#include "harness/suite/suite_vars.h"

#include <stdio.h>
#include <string.h>

const char suite_vars_names[] = "{run_dir}, {launch_dir}";

enum { V_NONE = -1, V_RUN_DIR, V_LAUNCH_DIR };
static const char *const names[] = {"run_dir", "launch_dir"};

/* the placeholder at p (*p == '{', p[1] != '{'): its index and length, or
 * V_NONE with len 0 when no '}' closes it (unbalanced) or, with len > 0,
 * an unknown name */
static int placeholder_at(const char *p, size_t *len)
{
    size_t n = strcspn(p + 1, "{}");
    if (p[1 + n] != '}') {
        *len = 0;
        return V_NONE;
    }
    *len = n + 2;
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (strlen(names[i]) == n && !strncmp(p + 1, names[i], n)) return i;
    return V_NONE;
}

int suite_vars_check(const char *text, size_t *at, char *why, size_t whylen)
{
    for (const char *p = text; *p; p++) {
        if ((*p == '{' && p[1] == '{') || (*p == '}' && p[1] == '}')) {
            p++; /* a literal brace */
            continue;
        }
        if (*p == '}') {
            *at = (size_t)(p - text);
            snprintf(why, whylen, "unbalanced '}' (no '{' opens it; write }} for a literal brace)");
            return -1;
        }
        if (*p != '{') continue;
        size_t len;
        if (placeholder_at(p, &len) != V_NONE) {
            p += len - 1;
            continue;
        }
        *at = (size_t)(p - text);
        if (!len) {
            snprintf(why, whylen, "unbalanced '{' (no '}' closes it; write {{ for a literal brace)");
        } else {
            /* the suite's own text, but shown on a terminal: printable ASCII only */
            char name[48];
            size_t k = 0;
            for (size_t i = 0; i < len && k + 4 < sizeof name; i++)
                name[k++] = p[i] >= 32 && p[i] < 127 ? p[i] : '?';
            if (k < len) name[k++] = '.', name[k++] = '.', name[k++] = '.';
            name[k] = 0;
            snprintf(why, whylen, "unknown placeholder %s (known: %s; write {{ and }} for literal "
                                  "braces)", name, suite_vars_names);
        }
        return -1;
    }
    return 0;
}

const char *suite_vars_expand(arena_t *a, const char *text, const suite_vars_t *v)
{
    if (!strpbrk(text, "{}")) return text;
    sb_t b = {0};
    for (const char *p = text; *p; p++) {
        if ((*p == '{' && p[1] == '{') || (*p == '}' && p[1] == '}')) {
            sb_putn(&b, p++, 1);
            continue;
        }
        size_t len;
        int k = *p == '{' ? placeholder_at(p, &len) : V_NONE;
        if (k == V_NONE) { /* checked text has none: kept as written */
            sb_putn(&b, p, 1);
            continue;
        }
        sb_puts(&b, k == V_RUN_DIR ? v->run_dir : v->launch_dir);
        p += len - 1;
    }
    const char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}

int suite_vars_uses_launch_dir(const char *text)
{
    for (const char *p = text; (p = strpbrk(p, "{}")); p++) {
        if (p[1] == *p) { /* a literal brace */
            p++;
            continue;
        }
        size_t len;
        if (*p == '{' && placeholder_at(p, &len) == V_LAUNCH_DIR) return 1;
    }
    return 0;
}
