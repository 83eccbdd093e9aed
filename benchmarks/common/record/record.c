#define _GNU_SOURCE
#include "benchmarks/common/record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "benchmarks/common/check.h"

struct rec {
    yaml_emitter_t em;
    FILE *f;
    char *path, *tmp; /* tmp NULL when writing to stdout */
    int failed;
    char why[256];
};

static int write_handler(void *data, unsigned char *buf, size_t size)
{
    rec_t *r = data;
    return fwrite(buf, 1, size, r->f) == size;
}

static void emit(rec_t *r, yaml_event_t *ev)
{
    if (r->failed) {
        yaml_event_delete(ev);
        return;
    }
    if (!yaml_emitter_emit(&r->em, ev)) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "YAML emitter: %s",
                 r->em.problem ? r->em.problem : "write failed");
    }
}

rec_t *rec_open(const char *path, char *err, size_t errlen)
{
    rec_t *r = XCALLOC(1, sizeof *r, "record writer");
    r->path = strdup(path);
    if (strcmp(path, "-") == 0) {
        r->f = stdout;
    } else {
        if (asprintf(&r->tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) r->tmp = NULL;
        CHECK(r->tmp != NULL, "out of memory");
        /* a fresh file ("x": O_EXCL), never through a link planted at the
         * temporary name */
        unlink(r->tmp);
        r->f = fopen(r->tmp, "wxe");
        if (!r->f) {
            snprintf(err, errlen, "%s: cannot create: %s", r->tmp, strerror(errno));
            free(r->tmp);
            free(r->path);
            free(r);
            return NULL;
        }
    }
    CHECK(yaml_emitter_initialize(&r->em), "libyaml emitter initialisation failed");
    yaml_emitter_set_output(&r->em, write_handler, r);
    yaml_emitter_set_unicode(&r->em, 1);
    yaml_emitter_set_width(&r->em, 100);
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    emit(r, &ev);
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
    emit(r, &ev);
    return r;
}

static void rec_free(rec_t *r)
{
    yaml_emitter_delete(&r->em);
    free(r->path);
    free(r->tmp);
    free(r);
}

void rec_abandon(rec_t *r)
{
    if (!r) return;
    if (r->tmp) {
        fclose(r->f);
        unlink(r->tmp);
    }
    rec_free(r);
}

int rec_close(rec_t *r, char *err, size_t errlen)
{
    yaml_event_t ev;
    yaml_document_end_event_initialize(&ev, 1);
    emit(r, &ev);
    yaml_stream_end_event_initialize(&ev);
    emit(r, &ev);
    if (!r->failed && !yaml_emitter_flush(&r->em)) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "flush failed");
    }
    if (!r->tmp) {
        fflush(r->f);
        int bad = r->failed;
        if (bad) snprintf(err, errlen, "%s", r->why);
        rec_free(r);
        return bad ? -1 : 0;
    }
    if (!r->failed && (fflush(r->f) != 0 || fsync(fileno(r->f)) != 0)) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "%s", strerror(errno));
    }
    if (fclose(r->f) != 0 && !r->failed) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "%s", strerror(errno));
    }
    if (!r->failed && rename(r->tmp, r->path) != 0) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "rename to %s: %s", r->path, strerror(errno));
    }
    if (r->failed) {
        snprintf(err, errlen, "%s: cannot write: %s", r->path, r->why);
        unlink(r->tmp);
        rec_free(r);
        return -1;
    }
    /* make the rename itself durable */
    char *dir = strdup(r->path);
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
    rec_free(r);
    return 0;
}

/* A mapping or sequence opens in block style (one entry a line) or flow
 * style ({...} or [...] on one line); the rec_*_begin functions name the pair. */
static void map_begin(rec_t *r, yaml_mapping_style_t style)
{
    yaml_event_t ev;
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, style);
    emit(r, &ev);
}

static void seq_begin(rec_t *r, yaml_sequence_style_t style)
{
    yaml_event_t ev;
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, style);
    emit(r, &ev);
}

void rec_map_begin(rec_t *r) { map_begin(r, YAML_BLOCK_MAPPING_STYLE); }
void rec_flow_map_begin(rec_t *r) { map_begin(r, YAML_FLOW_MAPPING_STYLE); }
void rec_seq_begin(rec_t *r) { seq_begin(r, YAML_BLOCK_SEQUENCE_STYLE); }
void rec_flow_seq_begin(rec_t *r) { seq_begin(r, YAML_FLOW_SEQUENCE_STYLE); }

void rec_map_end(rec_t *r)
{
    yaml_event_t ev;
    yaml_mapping_end_event_initialize(&ev);
    emit(r, &ev);
}

void rec_seq_end(rec_t *r)
{
    yaml_event_t ev;
    yaml_sequence_end_event_initialize(&ev);
    emit(r, &ev);
}

/* A copy of s with every byte that is not part of valid UTF-8 replaced by
 * '?' (no overlong forms, no surrogates, nothing past U+10FFFF: what libyaml's
 * parser reads back). */
static char *utf8_clean(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), i = 0, o = 0;
    char *out = XMALLOC(n + 1, "record string");
    while (i < n) {
        unsigned c = p[i];
        size_t w = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                                 : (c & 0xF8) == 0xF0 ? 4 : 0;
        unsigned long v = w == 2 ? c & 0x1F : w == 3 ? c & 0x0F : c & 0x07;
        int ok = w == 1;
        if (w > 1 && i + w <= n) {
            ok = 1;
            for (size_t k = 1; k < w; k++) {
                if ((p[i + k] & 0xC0) != 0x80) ok = 0;
                v = v << 6 | (p[i + k] & 0x3F);
            }
            if (v < (w == 2 ? 0x80ul : w == 3 ? 0x800ul : 0x10000ul) || v > 0x10FFFF ||
                (v >= 0xD800 && v <= 0xDFFF))
                ok = 0;
        }
        if (!ok) {
            out[o++] = '?';
            i++;
        } else {
            memcpy(out + o, p + i, w);
            o += w;
            i += w;
        }
    }
    out[o] = 0;
    return out;
}

static void scalar(rec_t *r, const char *text, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    /* libyaml refuses text that is not UTF-8 (leaving ev uninitialised) and
     * lets surrogates through as "\uD800", which its own parser then rejects;
     * argv, host names and messages can hold such bytes: write them as '?' */
    char *clean = utf8_clean(text);
    int ok = yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)clean, (int)strlen(clean),
                                          1, 1, style);
    free(clean);
    if (!ok) {
        if (!r->failed) snprintf(r->why, sizeof r->why, "cannot encode the string '%.60s'", text);
        r->failed = 1;
        return;
    }
    emit(r, &ev);
}

/* A string that a YAML reader would take for a number, bool or null must be
 * quoted, or it would come back as something else. */
static int looks_typed(const char *s)
{
    static const char *words[] = {"",     "~",   "null", "Null", "NULL", "true", "True",
                                  "TRUE", "false", "False", "FALSE", "yes",  "Yes",  "YES",
                                  "no",   "No",  "NO",   "on",   "On",   "ON",   "off",
                                  "Off",  "OFF", ".nan", ".NaN", ".inf", "-.inf", ".Inf",
                                  NULL};
    for (size_t i = 0; words[i]; i++)
        if (!strcmp(s, words[i])) return 1;
    char *end;
    (void)strtod(s, &end);
    return end != s && *end == 0;
}

void rec_key(rec_t *r, const char *key) { scalar(r, key, YAML_PLAIN_SCALAR_STYLE); }

void rec_str(rec_t *r, const char *v)
{
    if (!v) {
        rec_null(r);
        return;
    }
    scalar(r, v, looks_typed(v) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
}

void rec_int(rec_t *r, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    scalar(r, buf, YAML_PLAIN_SCALAR_STYLE);
}

void rec_format_double(double v, char *buf, size_t len)
{
    if (isnan(v)) {
        snprintf(buf, len, ".nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, v > 0 ? ".inf" : "-.inf");
        return;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* YAML 1.1 readers (PyYAML) take "1e-09" for a string: a float needs a dot */
    char *e = strchr(buf, 'e');
    if (e && !strchr(buf, '.') && strlen(buf) + 2 < len) {
        memmove(e + 2, e, strlen(e) + 1);
        e[0] = '.';
        e[1] = '0';
    }
}

void rec_double(rec_t *r, double v)
{
    char buf[40];
    rec_format_double(v, buf, sizeof buf);
    scalar(r, buf, YAML_PLAIN_SCALAR_STYLE);
}

void rec_bool(rec_t *r, int v) { scalar(r, v ? "true" : "false", YAML_PLAIN_SCALAR_STYLE); }
void rec_null(rec_t *r) { scalar(r, "null", YAML_PLAIN_SCALAR_STYLE); }

void rec_kv_str(rec_t *r, const char *key, const char *v) { rec_key(r, key), rec_str(r, v); }
void rec_kv_int(rec_t *r, const char *key, int64_t v) { rec_key(r, key), rec_int(r, v); }
void rec_kv_double(rec_t *r, const char *key, double v) { rec_key(r, key), rec_double(r, v); }
void rec_kv_bool(rec_t *r, const char *key, int v) { rec_key(r, key), rec_bool(r, v); }

void rec_kv_doubles(rec_t *r, const char *key, const double *x, size_t n)
{
    rec_key(r, key);
    rec_flow_seq_begin(r);
    for (size_t i = 0; i < n; i++) rec_double(r, x[i]);
    rec_seq_end(r);
}

void rec_kv_stats_s(rec_t *r, const stats_summary_t *st)
{
    rec_kv_double(r, "median_s", st->median);
    rec_kv_double(r, "ci_lo_s", st->ci_lo);
    rec_kv_double(r, "ci_hi_s", st->ci_hi);
    rec_kv_double(r, "min_s", st->min);
    rec_kv_double(r, "max_s", st->max);
}

void rec_kv_ints(rec_t *r, const char *key, const int64_t *x, size_t n)
{
    rec_key(r, key);
    rec_flow_seq_begin(r);
    for (size_t i = 0; i < n; i++) rec_int(r, x[i]);
    rec_seq_end(r);
}
