#include "benchmarks/train/keytab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/ytree.h"

enum { LIST_MAX = 64 }; /* entries one list key can take, whatever its field holds */

static void normalise(const char *key, char *out, size_t len)
{
    snprintf(out, len, "%s", key);
    for (char *p = out; *p; p++)
        if (*p == '-') *p = '_';
}

/* The key and the start of its part, or NULL. */
static const kt_key *find(const kt_spec *s, const char *name, size_t *base)
{
    char norm[64];
    normalise(name, norm, sizeof norm);
    for (size_t t = 0; t < s->nparts; t++)
        for (const kt_key *k = s->parts[t].keys; k->key; k++)
            if (!strcmp(k->key, norm)) {
                *base = s->parts[t].base;
                return k;
            }
    return NULL;
}

/* Every key name: the extra ones first, then the tables'; malloc'ed, NULL-terminated. */
static const char **names_of(const kt_spec *s)
{
    size_t n = 0, k = 0;
    for (const char *const *e = s->extra; e && *e; e++) n++;
    for (size_t t = 0; t < s->nparts; t++)
        for (const kt_key *key = s->parts[t].keys; key->key; key++) n++;
    const char **names = XMALLOC((n + 1) * sizeof *names, "key names");
    for (const char *const *e = s->extra; e && *e; e++) names[k++] = *e;
    for (size_t t = 0; t < s->nparts; t++)
        for (const kt_key *key = s->parts[t].keys; key->key; key++) names[k++] = key->key;
    names[k] = NULL;
    return names;
}

static int set_int_checked(const kt_key *k, long long v, int *dst, char *err, size_t errlen)
{
    if (v < (long long)k->min || v > (long long)k->max) {
        snprintf(err, errlen, "%s must be between %.0f and %.0f, not %lld", k->key, k->min, k->max, v);
        return -1;
    }
    *dst = (int)v;
    return 0;
}

static int set_list(const kt_key *k, char *base, const char *value, char *err, size_t errlen)
{
    int *dst = (int *)(base + k->off), *n = (int *)(base + k->aux);
    int vals[LIST_MAX], cnt = 0, cap = k->cap < LIST_MAX ? k->cap : LIST_MAX;
    long long iv;
    const char *p = value;
    while (*p) {
        char item[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item || cnt == cap) {
            snprintf(err, errlen, "%s: '%s' is not a list of at most %d integers like 1,2,4", k->key,
                     value, cap);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = 0;
        if (opt_parse_int(item, &iv)) {
            snprintf(err, errlen, "%s: '%s' is not an integer", k->key, item);
            return -1;
        }
        if (set_int_checked(k, iv, &vals[cnt], err, errlen)) return -1;
        cnt++;
        p += len;
        if (*p == ',') p++;
    }
    if (cnt == 0) {
        snprintf(err, errlen, "%s: empty list", k->key);
        return -1;
    }
    memcpy(dst, vals, (size_t)cnt * sizeof *dst);
    *n = cnt;
    return 0;
}

/* Set a key of the part at base from text (the command line and YAML scalars both land here). */
static int set_text(const kt_key *k, char *base, const char *value, char *err, size_t errlen)
{
    long long iv;
    double dv;
    switch (k->type) {
    case KT_INT:
        if (opt_parse_int(value, &iv)) {
            snprintf(err, errlen, "%s: '%s' is not an integer", k->key, value);
            return -1;
        }
        return set_int_checked(k, iv, (int *)(base + k->off), err, errlen);
    case KT_U64:
        if (opt_parse_int(value, &iv) || iv < 0) {
            snprintf(err, errlen, "%s: '%s' is not a non-negative integer", k->key, value);
            return -1;
        }
        *(uint64_t *)(base + k->off) = (uint64_t)iv;
        return 0;
    case KT_DOUBLE:
        if (opt_parse_double(value, &dv)) {
            snprintf(err, errlen, "%s: '%s' is not a number", k->key, value);
            return -1;
        }
        if (dv < k->min || dv > k->max) {
            snprintf(err, errlen, "%s must be between %g and %g, not %g", k->key, k->min, k->max, dv);
            return -1;
        }
        *(double *)(base + k->off) = dv;
        return 0;
    case KT_BOOL:
        if (!strcmp(value, "true") || !strcmp(value, "1") || !strcmp(value, "on")) {
            *(int *)(base + k->off) = 1;
        } else if (!strcmp(value, "false") || !strcmp(value, "0") || !strcmp(value, "off")) {
            *(int *)(base + k->off) = 0;
        } else {
            snprintf(err, errlen, "%s: '%s' is not true or false", k->key, value);
            return -1;
        }
        return 0;
    case KT_CHOICE: {
        for (int i = 0; k->choices[i]; i++)
            if (!strcmp(value, k->choices[i])) {
                snprintf(base + k->off, k->aux, "%s", value);
                return 0;
            }
        /* the choices named, as common/opt.c names them */
        int n = snprintf(err, errlen, "%s: unknown value '%s' (choose one of:", k->key, value);
        for (int i = 0; k->choices[i] && n >= 0 && (size_t)n < errlen; i++)
            n += snprintf(err + n, errlen - (size_t)n, "%s %s", i ? "," : "", k->choices[i]);
        if (n >= 0 && (size_t)n < errlen) snprintf(err + n, errlen - (size_t)n, ")");
        return -1;
    }
    case KT_WORD:
        if (!k->valid(value)) {
            snprintf(err, errlen, "%s: '%s' is not %s", k->key, value, k->what);
            return -1;
        }
        snprintf(base + k->off, k->aux, "%s", value);
        return 0;
    case KT_LIST:
        return set_list(k, base, value, err, errlen);
    }
    return -1;
}

int kt_set(const kt_spec *s, void *cfg, const char *key, const char *value, char *err,
           size_t errlen)
{
    char norm[64];
    normalise(key, norm, sizeof norm);
    if (s->set_extra) {
        int rc = s->set_extra(cfg, norm, value, err, errlen);
        if (rc != 1) return rc;
    }
    size_t base = 0;
    const kt_key *k = find(s, norm, &base);
    if (!k) {
        const char **names = names_of(s);
        const char *sug = yt_suggest(norm, names);
        if (sug)
            snprintf(err, errlen, "unknown parameter '%s' (did you mean '%s'?)", key, sug);
        else
            snprintf(err, errlen, "unknown parameter '%s' (see --help)", key);
        free(names);
        return -2;
    }
    if (set_text(k, (char *)cfg + base, value, err, errlen)) return -1;
    if (s->after_set) s->after_set(cfg, k);
    return 0;
}

/* A YAML value as text: scalars as they are, sequences of scalars joined with commas. */
static int yaml_value_text(const ytdoc *d, const ytnode *v, const kt_key *k, char *buf, size_t len,
                           char *err, size_t errlen)
{
    if (k && k->type == KT_LIST) {
        if (v->kind != YT_SEQ)
            return yt_err(err, errlen, d, v, "%s must be a list like [1, 2, 4]", k->key);
        size_t used = 0;
        buf[0] = 0;
        for (size_t i = 0; i < v->n; i++) {
            const ytnode *it = v->items[i];
            if (it->kind != YT_SCALAR || !it->plain)
                return yt_err(err, errlen, d, it, "%s: every entry must be an integer", k->key);
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", it->str);
            if (used >= len) return yt_err(err, errlen, d, v, "%s: list too long", k->key);
        }
        return 0;
    }
    if (v->kind != YT_SCALAR)
        return yt_err(err, errlen, d, v, "%s must be a single value, not a %s", k ? k->key : "value",
                      yt_kind_name(v->kind));
    /* "12" is a string in YAML: numbers and booleans must be written plain,
     * as the entries of lists already must */
    if (k && k->type != KT_CHOICE && k->type != KT_WORD && !v->plain)
        return yt_err(err, errlen, d, v, "%s must be %s, not the quoted string \"%s\"", k->key,
                      k->type == KT_BOOL ? "true or false" : "a number", v->str);
    snprintf(buf, len, "%s", v->str);
    return 0;
}

/* Apply one key of the file; its own message becomes FILE:LINE:COL: message. */
static int apply(const kt_spec *s, void *cfg, const ytdoc *d, const ytnode *kn, const ytnode *v,
                 const kt_key *k, char *err, size_t errlen)
{
    char msg[512], text[1024];
    if (yaml_value_text(d, v, k, text, sizeof text, err, errlen)) return -1;
    if (kt_set(s, cfg, kn->str, text, msg, sizeof msg)) return yt_err(err, errlen, d, v, "%s", msg);
    return 0;
}

int kt_load_yaml(const kt_spec *s, void *cfg, const char *path, char *err, size_t errlen)
{
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    int rc = -1;
    const char **names = names_of(s);
    if (!d->root) {
        /* FILE:LINE:COL like every other message of this function */
        snprintf(err, errlen, "%s:1:1: the file is empty; expected a mapping of parameters", path);
        goto out;
    }
    if (yt_expect(d, d->root, YT_MAP, s->what, err, errlen)) goto out;
    if (yt_check_keys(d, d->root, names, err, errlen)) goto out;
    for (size_t i = 0; s->first && i < d->root->n; i++)
        if (!strcmp(yt_key(d->root, i)->str, s->first) &&
            apply(s, cfg, d, yt_key(d->root, i), yt_val(d->root, i), NULL, err, errlen))
            goto out;
    for (size_t i = 0; i < d->root->n; i++) {
        const ytnode *kn = yt_key(d->root, i);
        size_t base;
        if (s->first && !strcmp(kn->str, s->first)) continue;
        if (apply(s, cfg, d, kn, yt_val(d->root, i), find(s, kn->str, &base), err, errlen)) goto out;
    }
    rc = 0;
out:
    free(names);
    yt_free(d);
    return rc;
}

void kt_write(const kt_spec *s, const void *cfg, rec_t *r)
{
    for (size_t t = 0; t < s->nparts; t++) {
        const char *base = (const char *)cfg + s->parts[t].base;
        for (const kt_key *k = s->parts[t].keys; k->key; k++) {
            if (k->describe_only && !(s->was_set && s->was_set(cfg, k))) continue;
            rec_key(r, k->key);
            switch (k->type) {
            case KT_INT: rec_int(r, *(const int *)(base + k->off)); break;
            case KT_BOOL: rec_bool(r, *(const int *)(base + k->off)); break;
            case KT_U64: rec_int(r, (int64_t) * (const uint64_t *)(base + k->off)); break;
            case KT_DOUBLE: rec_double(r, *(const double *)(base + k->off)); break;
            case KT_CHOICE:
            case KT_WORD: rec_str(r, base + k->off); break;
            case KT_LIST: {
                const int *v = (const int *)(base + k->off);
                int n = *(const int *)(base + k->aux);
                rec_flow_seq_begin(r);
                for (int j = 0; j < n; j++) rec_int(r, v[j]);
                rec_seq_end(r);
                break;
            }
            }
        }
    }
}

void kt_print_help(const kt_spec *s, FILE *f)
{
    for (size_t t = 0; t < s->nparts; t++)
        for (const kt_key *k = s->parts[t].keys; k->key; k++) {
            char opt[40];
            snprintf(opt, sizeof opt, "--%s %s", k->key,
                     k->type == KT_LIST ? "A,B,.." : k->type == KT_BOOL ? "BOOL" : "V");
            for (char *p = opt + 2; *p && *p != ' '; p++)
                if (*p == '_') *p = '-';
            fprintf(f, "  %-22s %s\n", opt, k->help);
        }
}
