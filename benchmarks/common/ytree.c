#define _GNU_SOURCE
#include "benchmarks/common/ytree.h"

#include <errno.h>
#include <math.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/fileio.h"

typedef struct {
    char *name;
    ytnode *node;
} anchor_t;

typedef struct {
    ytdoc *doc;
    ytnode *stack[YT_MAX_DEPTH + 1];
    int depth;
    void *anchors;   /* anchor_t by name, a balanced tree (tsearch): O(log n) a lookup */
    size_t nanchors;
    size_t total;
    char *err;
    size_t errlen;
    const char *text; /* the input, to place reader errors (libyaml gives an offset only) */
    size_t len;
} builder_t;

static int bmsg(builder_t *b, yaml_mark_t m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

const char *yt_kind_name(yt_kind k)
{
    switch (k) {
    case YT_SCALAR: return "scalar";
    case YT_SEQ: return "sequence";
    case YT_MAP: return "mapping";
    }
    return "node";
}

static ytnode *node_new(builder_t *b, yt_kind kind, yaml_mark_t mark)
{
    ytnode *n = XCALLOC(1, sizeof *n, "YAML node");
    n->kind = kind;
    n->line = (int)mark.line + 1;
    n->col = (int)mark.column + 1;
    n->weight = 1;
    n->next_alloc = b->doc->all;
    b->doc->all = n;
    return n;
}

static void node_append(ytnode *parent, ytnode *child)
{
    size_t have = parent->kind == YT_MAP ? 2 * parent->n + (parent->open > 1) : parent->n;
    if (have == parent->cap) { /* doubling: a long list costs O(n), not O(n^2) copies */
        parent->cap = parent->cap ? 2 * parent->cap : 4;
        parent->items = realloc(parent->items, parent->cap * sizeof *parent->items);
        CHECK(parent->items != NULL, "cannot grow a YAML node");
    }
    parent->items[have] = child;
    if (parent->kind == YT_MAP) {
        /* open==1: expecting a key; open==2: key stored, expecting its value */
        if (parent->open == 1) {
            parent->open = 2;
        } else {
            parent->open = 1;
            parent->n++;
        }
    } else {
        parent->n++;
    }
    parent->weight += child->weight;
}

static int bmsg(builder_t *b, yaml_mark_t m, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(b->err, b->errlen, "%s:%zu:%zu: %s", b->doc->name, m.line + 1, m.column + 1, msg);
    return -1;
}

static int anchor_cmp(const void *x, const void *y)
{
    return strcmp(((const anchor_t *)x)->name, ((const anchor_t *)y)->name);
}

static void anchor_free(void *p)
{
    free(((anchor_t *)p)->name);
    free(p);
}

static int anchor_add(builder_t *b, const char *name, ytnode *n, yaml_mark_t m)
{
    if (!name) return 0;
    if (b->nanchors == YT_MAX_ANCHORS)
        return bmsg(b, m, "more than %u anchors (&name) in one document", YT_MAX_ANCHORS);
    anchor_t *a = XMALLOC(sizeof *a, "YAML anchor");
    a->name = strdup(name);
    a->node = n;
    CHECK(a->name != NULL, "cannot copy a YAML anchor name");
    anchor_t **slot = tsearch(a, &b->anchors, anchor_cmp);
    CHECK(slot != NULL, "cannot grow the YAML anchor table");
    if (*slot != a) { /* the name again: later aliases mean the new node */
        (*slot)->node = n;
        anchor_free(a);
    }
    b->nanchors++;
    return 0;
}

static ytnode *anchor_find(builder_t *b, const char *name)
{
    anchor_t key = {.name = (char *)name};
    anchor_t **hit = tfind(&key, &b->anchors, anchor_cmp);
    return hit ? (*hit)->node : NULL;
}

/* Attach a finished or opened node to the current parent (or make it the root). */
static int attach(builder_t *b, ytnode *n, yaml_mark_t m)
{
    if (b->depth == 0) {
        if (b->doc->root) return bmsg(b, m, "more than one node at the top level");
        b->doc->root = n;
    } else {
        ytnode *parent = b->stack[b->depth - 1];
        node_append(parent, n);
    }
    b->total += n->weight;
    if (b->total > YT_MAX_NODES)
        return bmsg(b, m, "document expands to more than %u nodes (aliases nested too deep?)",
                    YT_MAX_NODES);
    return 0;
}

static int push(builder_t *b, ytnode *n, yaml_mark_t m)
{
    if (b->depth >= YT_MAX_DEPTH)
        return bmsg(b, m, "nesting deeper than %d levels", YT_MAX_DEPTH);
    b->stack[b->depth++] = n;
    return 0;
}

/* A key text for a message: at most 60 characters, control characters as '?'
 * (the message stays one line). */
static const char *shown(const char *s, char *buf, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 4 < len && i < 60; i++) buf[i] = (unsigned char)s[i] < 32 ? '?' : s[i];
    snprintf(buf + i, len - i, "%s", s[i] ? "..." : "");
    return buf;
}

static int key_cmp(const void *x, const void *y, void *map)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int c = strcmp(yt_key(map, i)->str, yt_key(map, j)->str);
    return c ? c : (i > j) - (i < j);
}

/* YAML keys are unique: a record with `status: failed` then `status: ok`
 * means one thing to exadl (the first) and another to PyYAML (the last), so
 * every mapping of every file is refused with its first repeated key. */
static int map_unique(builder_t *b, const ytnode *map)
{
    size_t dup = 0, first = 0; /* dup: the repeated key's index + 1 */
    if (map->n <= 16) {
        for (size_t i = 1; i < map->n && !dup; i++)
            for (size_t j = 0; j < i && !dup; j++)
                if (yt_key(map, i)->kind == YT_SCALAR && yt_key(map, j)->kind == YT_SCALAR &&
                    !strcmp(yt_key(map, i)->str, yt_key(map, j)->str))
                    dup = i + 1, first = j;
    } else { /* sorted by text, then by position: repeats are neighbours */
        size_t *ix = XMALLOC(map->n * sizeof *ix, "YAML key index"), m = 0;
        for (size_t i = 0; i < map->n; i++)
            if (yt_key(map, i)->kind == YT_SCALAR) ix[m++] = i;
        qsort_r(ix, m, sizeof *ix, key_cmp, (void *)map);
        for (size_t i = 1; i < m; i++)
            if (!strcmp(yt_key(map, ix[i])->str, yt_key(map, ix[i - 1])->str) &&
                (!dup || ix[i] + 1 < dup) &&
                (i < 2 || strcmp(yt_key(map, ix[i])->str, yt_key(map, ix[i - 2])->str)))
                dup = ix[i] + 1, first = ix[i - 1];
        free(ix);
    }
    if (!dup) return 0;
    const ytnode *k = yt_key(map, dup - 1);
    char buf[80];
    snprintf(b->err, b->errlen, "%s:%d:%d: key '%s' given twice (first at line %d)", b->doc->name,
             k->line, k->col, shown(k->str, buf, sizeof buf), yt_key(map, first)->line);
    return -1;
}

static int pop(builder_t *b)
{
    ytnode *n = b->stack[--b->depth];
    n->open = 0;
    /* the parent counted this node as 1 when it was attached, open; its own
     * parent learns of the rest when the parent itself closes */
    if (b->depth > 0) b->stack[b->depth - 1]->weight += n->weight - 1;
    return n->kind == YT_MAP ? map_unique(b, n) : 0;
}

static int build(builder_t *b, yaml_parser_t *p)
{
    int docs = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(p, &ev)) {
            yaml_mark_t m = p->problem_mark;
            if (p->error == YAML_READER_ERROR) {
                /* bad bytes (invalid UTF-8, control characters): libyaml sets
                 * only problem_offset, so count the lines up to it ourselves */
                size_t off = p->problem_offset < b->len ? p->problem_offset : b->len;
                m.line = m.column = 0;
                for (size_t i = 0; i < off; i++) {
                    if (b->text[i] == '\n') {
                        m.line++;
                        m.column = 0;
                    } else {
                        m.column++;
                    }
                }
            }
            if (p->context)
                return bmsg(b, m, "%s %s", p->problem ? p->problem : "syntax error", p->context);
            return bmsg(b, m, "%s", p->problem ? p->problem : "syntax error");
        }
        int rc = 0, done = 0;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = 1; break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1) rc = bmsg(b, ev.start_mark, "more than one YAML document in the file");
            break;
        case YAML_SCALAR_EVENT: {
            ytnode *n = node_new(b, YT_SCALAR, ev.start_mark);
            n->str = XMALLOC(ev.data.scalar.length + 1, "YAML scalar");
            memcpy(n->str, ev.data.scalar.value, ev.data.scalar.length);
            n->str[ev.data.scalar.length] = 0;
            if (strlen(n->str) != ev.data.scalar.length)
                rc = bmsg(b, ev.start_mark, "scalar contains a NUL character");
            n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            if (!rc) rc = attach(b, n, ev.start_mark);
            if (!rc) rc = anchor_add(b, (const char *)ev.data.scalar.anchor, n, ev.start_mark);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            int map = ev.type == YAML_MAPPING_START_EVENT;
            ytnode *n = node_new(b, map ? YT_MAP : YT_SEQ, ev.start_mark);
            n->open = 1;
            rc = attach(b, n, ev.start_mark);
            if (!rc) rc = push(b, n, ev.start_mark);
            if (!rc)
                rc = anchor_add(b, (const char *)(map ? ev.data.mapping_start.anchor
                                                      : ev.data.sequence_start.anchor),
                                n, ev.start_mark);
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: rc = pop(b); break;
        case YAML_ALIAS_EVENT: {
            ytnode *t = anchor_find(b, (const char *)ev.data.alias.anchor);
            if (!t)
                rc = bmsg(b, ev.start_mark, "alias *%s names no anchor defined before it",
                          ev.data.alias.anchor);
            else if (t->open)
                rc = bmsg(b, ev.start_mark, "alias *%s refers to a node that contains it",
                          ev.data.alias.anchor);
            else
                rc = attach(b, t, ev.start_mark);
            break;
        }
        default: break;
        }
        yaml_event_delete(&ev);
        if (rc) return rc;
        if (done) return 0;
    }
}

ytdoc *yt_load_string(const char *text, size_t len, const char *name, char *err, size_t errlen)
{
    ytdoc *doc = XCALLOC(1, sizeof *doc, "YAML document");
    doc->name = strdup(name ? name : "<string>");
    builder_t b = {.doc = doc, .err = err, .errlen = errlen, .text = text, .len = len};
    yaml_parser_t p;
    CHECK(yaml_parser_initialize(&p), "libyaml parser initialisation failed");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int rc = build(&b, &p);
    yaml_parser_delete(&p);
    tdestroy(b.anchors, anchor_free);
    if (rc) {
        yt_free(doc);
        return NULL;
    }
    return doc;
}

ytdoc *yt_load_file(const char *path, char *err, size_t errlen)
{
    size_t len;
    char *buf = fileio_read(path, &len, (size_t)256 << 20, err, errlen);
    if (!buf) return NULL;
    ytdoc *d = yt_load_string(buf, len, path, err, errlen);
    free(buf);
    return d;
}

void yt_free(ytdoc *doc)
{
    if (!doc) return;
    for (ytnode *n = doc->all, *next; n; n = next) {
        next = n->next_alloc;
        free(n->str);
        free(n->items);
        free(n);
    }
    free(doc->name);
    free(doc);
}
