/* ytree: YAML into a positioned tree.  Aliases, hostile input (recursive
 * aliases, billion laughs, deep nesting, several documents, binary garbage,
 * NUL inside a scalar), typed reads with positioned errors, key checks with
 * suggestions. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"
#include "benchmarks/common/ytree.h"
#include "tests/unit/doubling.h"
#include "tests/unit/tap.h"

static char err[1024];
static ytdoc *doc; /* freed by the runner after each test */

#define T_HAS(s, sub) T_ASSERT(strstr((s), (sub)) != NULL, "message '%s' lacks '%s'", (s), (sub))

static ytdoc *load(const char *text)
{
    err[0] = 0;
    yt_free(doc);
    doc = yt_load_string(text, strlen(text), "t.yaml", err, sizeof err);
    T_ASSERT(doc != NULL, "'%s' did not load: %s", text, err);
    return doc;
}

/* Expect text (len bytes) to fail with "t.yaml:LINE:COL: ...SUB..." */
static void bad_n(const char *text, size_t len, int line, int col, const char *sub)
{
    err[0] = 0;
    ytdoc *d = yt_load_string(text, len, "t.yaml", err, sizeof err);
    if (d) {
        yt_free(d);
        char shown[61];
        size_t k = 0;
        for (; k < len && k < sizeof shown - 1; k++)
            shown[k] = text[k] >= ' ' && text[k] < 127 ? text[k] : '.';
        shown[k] = 0;
        T_ASSERT(0, "'%s' loaded, should have failed with '%s'", shown, sub);
    }
    char want[64];
    if (col > 0)
        snprintf(want, sizeof want, "t.yaml:%d:%d: ", line, col);
    else
        snprintf(want, sizeof want, "t.yaml:%d:", line);
    T_ASSERT(strncmp(err, want, strlen(want)) == 0, "message '%s' does not start with '%s'", err,
             want);
    T_HAS(err, sub);
    T_ASSERT(strchr(err, '\n') == NULL, "message '%s' has more than one line", err);
}
#define BAD(text, line, col, sub) bad_n(text, sizeof(text) - 1, line, col, sub)
static void bad(const char *text, int line, int col, const char *sub)
{
    bad_n(text, strlen(text), line, col, sub);
}

static void test_basic(void)
{
    ytdoc *d = load("name: run1\nsizes: [1, 2, 3]\nnested:\n  a: 'quoted'\n  b: ~\n");
    T_ASSERT(d->root && d->root->kind == YT_MAP && d->root->n == 3, "root");
    ytnode *name = yt_get(d->root, "name"), *sizes = yt_get(d->root, "sizes");
    T_ASSERT(name && name->kind == YT_SCALAR && !strcmp(name->str, "run1") && name->plain, "name");
    T_ASSERT(name->line == 1 && name->col == 7, "name at %d:%d, want 1:7", name->line, name->col);
    T_ASSERT(sizes && sizes->kind == YT_SEQ && sizes->n == 3 && !strcmp(sizes->items[2]->str, "3"),
             "sizes");
    T_ASSERT(sizes->line == 2 && sizes->col == 8, "sizes at %d:%d", sizes->line, sizes->col);
    ytnode *nested = yt_get(d->root, "nested");
    T_ASSERT(nested && nested->kind == YT_MAP && nested->line == 4 && nested->col == 3,
             "nested at %d:%d", nested ? nested->line : 0, nested ? nested->col : 0);
    ytnode *a = yt_get(nested, "a"), *b = yt_get(nested, "b");
    T_ASSERT(a && !a->plain && !strcmp(a->str, "quoted"), "a");
    T_ASSERT(yt_is_null(b) && !yt_is_null(a) && yt_is_null(NULL), "null");
    T_ASSERT(yt_get(d->root, "absent") == NULL && yt_get(sizes, "x") == NULL, "absent keys");
    T_ASSERT(yt_key(d->root, 1) && !strcmp(yt_key(d->root, 1)->str, "sizes") &&
                 yt_val(d->root, 1) == sizes,
             "yt_key/yt_val");

    /* empty documents have no root */
    T_ASSERT(load("")->root == NULL, "empty string");
    T_ASSERT(load("# only a comment\n")->root == NULL, "comment only");
    /* a quoted "null" is a string */
    d = load("a: 'null'\nb: null\nc: \"\"\nd:\n");
    T_ASSERT(!yt_is_null(yt_get(d->root, "a")) && yt_is_null(yt_get(d->root, "b")) &&
                 !yt_is_null(yt_get(d->root, "c")) && yt_is_null(yt_get(d->root, "d")),
             "null forms");
}

static void test_aliases(void)
{
    ytdoc *d = load("base: &b {lr: 0.1, layers: [1, 2]}\n"
                    "run1: *b\n"
                    "run2: {cfg: *b, k: &k 5, again: *k}\n");
    ytnode *base = yt_get(d->root, "base"), *run1 = yt_get(d->root, "run1");
    T_ASSERT(base && run1 == base, "alias *b does not resolve to the anchored node");
    ytnode *run2 = yt_get(d->root, "run2");
    T_ASSERT(yt_get(run2, "cfg") == base, "nested alias");
    ytnode *k = yt_get(run2, "k"), *again = yt_get(run2, "again");
    T_ASSERT(k && again == k && !strcmp(again->str, "5"), "scalar alias");
    ytnode *layers = yt_get(run1, "layers");
    T_ASSERT(layers && layers->n == 2 && !strcmp(layers->items[1]->str, "2"), "through alias");
    /* an anchor redefined: an alias takes the latest one before it */
    d = load("a: &x 1\nb: &x 2\nc: *x\n");
    T_ASSERT(!strcmp(yt_get(d->root, "c")->str, "2"), "redefined anchor");
    /* many aliases of a moderate node are fine (100 x 1001 nodes) */
    char *text = malloc(1 << 16);
    size_t used = (size_t)sprintf(text, "big: &big [");
    for (int i = 0; i < 1000; i++) used += (size_t)sprintf(text + used, "%s%d", i ? "," : "", i);
    used += (size_t)sprintf(text + used, "]\nuses: [");
    for (int i = 0; i < 100; i++) used += (size_t)sprintf(text + used, "%s*big", i ? "," : "");
    sprintf(text + used, "]\n");
    err[0] = 0;
    yt_free(doc);
    doc = yt_load_string(text, strlen(text), "t.yaml", err, sizeof err);
    free(text);
    T_ASSERT(doc != NULL, "100 aliases of a 1000-item list rejected: %s", err);
    T_ASSERT(yt_get(doc->root, "uses")->n == 100, "uses");
}

static void test_alias_errors(void)
{
    BAD("a: &x [1, *x]\n", 1, 11, "alias *x refers to a node that contains it");
    BAD("a: &m {k: v, self: *m}\n", 1, 20, "refers to a node that contains it");
    BAD("a: 1\nb: *nope\n", 2, 4, "alias *nope names no anchor defined before it");
    BAD("b: *later\na: &later 1\n", 1, 4, "no anchor defined before it");
}

/* Nine levels of ten aliases expand to 10^9 nodes; the file is 400 bytes. */
static void test_billion_laughs(void)
{
    static const char lol[] = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
                              "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                              "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                              "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                              "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                              "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                              "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
                              "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
                              "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    /* a..f make about 1.23 million nodes (11 + 111 + ... + 1,111,111 plus
     * keys); each *f adds 1,111,111: the 3rd *f on line 7 (column 16) passes
     * the cap of 4 million */
    BAD(lol, 7, 16, "document expands to more than 4000000 nodes");
    /* the same through mapping values and nested flow mappings */
    static const char lol2[] = "a: &a {x: 1, y: 2, z: 3, w: 4}\n"
                               "b: &b {p: *a, q: *a, r: *a, s: *a, t: *a, u: *a, v: *a, w: *a}\n"
                               "c: &c {p: *b, q: *b, r: *b, s: *b, t: *b, u: *b, v: *b, w: *b}\n"
                               "d: &d {p: *c, q: *c, r: *c, s: *c, t: *c, u: *c, v: *c, w: *c}\n"
                               "e: &e {p: *d, q: *d, r: *d, s: *d, t: *d, u: *d, v: *d, w: *d}\n"
                               "f: &f {p: *e, q: *e, r: *e, s: *e, t: *e, u: *e, v: *e, w: *e}\n"
                               "g: &g {p: *f, q: *f, r: *f, s: *f, t: *f, u: *f, v: *f, w: *f}\n"
                               "h: &h {p: *g, q: *g, r: *g, s: *g, t: *g, u: *g, v: *g, w: *g}\n";
    err[0] = 0;
    ytdoc *d = yt_load_string(lol2, sizeof lol2 - 1, "t.yaml", err, sizeof err);
    yt_free(d);
    T_ASSERT(d == NULL, "8^7 expansion through mappings accepted");
    T_HAS(err, "document expands to more than");
    T_ASSERT(!strncmp(err, "t.yaml:", 7), "message '%s' not positioned", err);
}

static char *nested(int depth, int flow)
{
    char *s = malloc((size_t)depth * 4 + 16);
    size_t n = 0;
    if (flow) {
        for (int i = 0; i < depth; i++) s[n++] = '[';
        s[n++] = '1';
        for (int i = 0; i < depth; i++) s[n++] = ']';
        s[n++] = '\n';
    } else {
        /* block mappings: "a:\n a:\n  a: 1" one column deeper per level */
        free(s);
        s = malloc((size_t)depth * (size_t)(depth + 4) + 16);
        for (int i = 0; i < depth; i++) {
            for (int j = 0; j < i; j++) s[n++] = ' ';
            memcpy(s + n, i == depth - 1 ? "a: 1\n" : "a:\n", i == depth - 1 ? 5 : 3);
            n += i == depth - 1 ? 5 : 3;
        }
    }
    s[n] = 0;
    return s;
}

static void test_depth(void)
{
    /* YT_MAX_DEPTH (200) collections nest fine; one more is refused */
    char *ok = nested(YT_MAX_DEPTH, 1);
    err[0] = 0;
    ytdoc *d = yt_load_string(ok, strlen(ok), "t.yaml", err, sizeof err);
    free(ok);
    T_ASSERT(d != NULL, "%d nested sequences rejected: %s", YT_MAX_DEPTH, err);
    yt_free(d);
    char *deep = nested(YT_MAX_DEPTH + 1, 1);
    d = yt_load_string(deep, strlen(deep), "t.yaml", err, sizeof err);
    free(deep);
    yt_free(d);
    T_ASSERT(d == NULL, "%d nested sequences accepted", YT_MAX_DEPTH + 1);
    T_HAS(err, "t.yaml:1:201: nesting deeper than 200 levels");
    /* and far deeper, 100000 levels: still a clean message, no stack overflow */
    deep = nested(100000, 1);
    d = yt_load_string(deep, strlen(deep), "t.yaml", err, sizeof err);
    free(deep);
    yt_free(d);
    T_ASSERT(d == NULL, "100000 nested sequences accepted");
    T_HAS(err, "t.yaml:1:");
    /* block mappings: level 201 starts on line 201 */
    deep = nested(YT_MAX_DEPTH + 5, 0);
    d = yt_load_string(deep, strlen(deep), "t.yaml", err, sizeof err);
    free(deep);
    yt_free(d);
    T_ASSERT(d == NULL, "%d nested mappings accepted", YT_MAX_DEPTH + 5);
    T_HAS(err, "nesting deeper than 200 levels");
    T_ASSERT(!strncmp(err, "t.yaml:200:", 11) || !strncmp(err, "t.yaml:201:", 11),
             "depth message '%s' not at line 200/201", err);
}

static void test_documents(void)
{
    BAD("a: 1\n---\nb: 2\n", 2, 1, "more than one YAML document");
    BAD("---\na: 1\n...\n---\nb: 2\n", 4, 1, "more than one YAML document");
    /* one explicit document is fine */
    T_ASSERT(load("---\na: 1\n...\n")->root->n == 1, "explicit single document");
}

static void test_garbage(void)
{
    BAD("a: 1\nb: 2\n\x01\x02\x03", 3, 1, "control characters are not allowed");
    BAD("a: 1\nb: x\xff\n", 2, 5, "invalid leading UTF-8 octet");
    BAD("a: 1\nbb: \xc3(\n", 2, 6, "invalid trailing UTF-8 octet"); /* at the "(" */
    {
        const char nul[] = "a: 1\nb: 2\x00zzz\n";
        bad_n(nul, sizeof nul - 1, 2, 5, "control characters");
    }
    /* random bytes, several seeds: rejected, positioned, never a crash */
    for (unsigned seed = 1; seed <= 20; seed++) {
        unsigned char junk[300];
        unsigned s = seed;
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (unsigned char)((s = s * 1103515245u + 12345u) >> 16);
        err[0] = 0;
        ytdoc *d = yt_load_string((const char *)junk, sizeof junk, "t.yaml", err, sizeof err);
        yt_free(d);
        T_ASSERT(d == NULL, "seed %u: random bytes accepted", seed);
        T_ASSERT(!strncmp(err, "t.yaml:", 7) && err[7] >= '1' && err[7] <= '9',
                 "seed %u: message '%s' not positioned", seed, err);
    }
    /* a scalar holding NUL through an escape */
    BAD("a: 1\nb: \"x\\0y\"\n", 2, 4, "scalar contains a NUL character");
    /* syntax errors carry libyaml's position */
    BAD("a: [1, 2\nb: 3\n", 2, 2, "did not find expected ',' or ']'");
    BAD("a: 1\n  b: 2\n", 2, 4, "mapping values are not allowed");
}

static void test_files(void)
{
    char dir[] = "/tmp/exadl-yt-XXXXXX";
    T_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
    char path[64];
    snprintf(path, sizeof path, "%s/x.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs("a: 1\nb: [2, 3]\n", f);
    fclose(f);
    yt_free(doc);
    doc = yt_load_file(path, err, sizeof err);
    T_ASSERT(doc && doc->root->n == 2 && !strcmp(doc->name, path), "file load: %s", err);
    f = fopen(path, "w");
    fputs("a: 1\nb: [2, 3\n", f);
    fclose(f);
    ytdoc *d = yt_load_file(path, err, sizeof err);
    T_ASSERT(d == NULL, "bad file accepted");
    T_ASSERT(!strncmp(err, path, strlen(path)) && err[strlen(path)] == ':', "'%s' lacks the path", err);
    unlink(path);
    d = yt_load_file(path, err, sizeof err);
    T_ASSERT(d == NULL, "absent file loaded");
    T_HAS(err, path);
    T_HAS(err, "cannot open");
    d = yt_load_file(dir, err, sizeof err); /* a directory */
    yt_free(d);
    rmdir(dir);
    T_ASSERT(d == NULL, "a directory loaded as YAML");
    T_HAS(err, dir);
}

static void test_typed(void)
{
    ytdoc *d = load("i: 42\nneg: -7\nbig: 9223372036854775807\nover: 9223372036854775808\n"
                    "f: 2.5e-3\nq: \"12\"\nword: abc\nlist: [1]\nb1: true\nb2: off\nb3: maybe\n"
                    "inf: .inf\nnan: .nan\nhex: 0x10\nfrac: 1.5\nsp: x\nsub: 5e-324\n");
    long long i;
    double x;
    int b;
    T_ASSERT(yt_int(d, yt_get(d->root, "i"), &i, err, sizeof err) == 0 && i == 42, "i: %s", err);
    T_ASSERT(yt_int(d, yt_get(d->root, "neg"), &i, err, sizeof err) == 0 && i == -7, "neg");
    T_ASSERT(yt_int(d, yt_get(d->root, "big"), &i, err, sizeof err) == 0 && i == 9223372036854775807LL,
             "big");
    T_ASSERT(yt_int(d, yt_get(d->root, "over"), &i, err, sizeof err) == -1, "overflow accepted");
    T_HAS(err, "t.yaml:4:7: expected an integer");
    T_ASSERT(yt_int(d, yt_get(d->root, "q"), &i, err, sizeof err) == -1, "quoted int accepted");
    T_HAS(err, "t.yaml:6:4: expected an integer, found a quoted string");
    T_ASSERT(yt_int(d, yt_get(d->root, "word"), &i, err, sizeof err) == -1, "word as int");
    T_HAS(err, "t.yaml:7:7: expected an integer, found 'abc'");
    T_ASSERT(yt_int(d, yt_get(d->root, "list"), &i, err, sizeof err) == -1, "list as int");
    T_HAS(err, "t.yaml:8:7: expected an integer, found sequence");
    T_ASSERT(yt_int(d, yt_get(d->root, "frac"), &i, err, sizeof err) == -1, "1.5 as int");
    T_HAS(err, "t.yaml:15:7:");
    T_ASSERT(yt_int(d, yt_get(d->root, "hex"), &i, err, sizeof err) == -1, "0x10 as a decimal int");

    T_ASSERT(yt_double(d, yt_get(d->root, "f"), &x, err, sizeof err) == 0 && x == 2.5e-3, "f");
    T_ASSERT(yt_double(d, yt_get(d->root, "i"), &x, err, sizeof err) == 0 && x == 42, "int as double");
    T_ASSERT(yt_double(d, yt_get(d->root, "sub"), &x, err, sizeof err) == 0 && x == 5e-324,
             "subnormal: %s", err);
    T_ASSERT(yt_double(d, yt_get(d->root, "word"), &x, err, sizeof err) == -1, "word as double");
    T_HAS(err, "t.yaml:7:7: expected a finite number, found 'abc'");
    T_ASSERT(yt_double(d, yt_get(d->root, "q"), &x, err, sizeof err) == -1, "quoted double");
    T_HAS(err, "t.yaml:6:4:");
    T_ASSERT(yt_double(d, yt_get(d->root, "inf"), &x, err, sizeof err) == -1, ".inf accepted");
    T_HAS(err, "t.yaml:12:6:");
    T_ASSERT(yt_double(d, yt_get(d->root, "nan"), &x, err, sizeof err) == -1, ".nan accepted");
    T_ASSERT(yt_double(d, yt_get(d->root, "list"), &x, err, sizeof err) == -1, "list as double");
    T_HAS(err, "t.yaml:8:7:");

    T_ASSERT(yt_bool(d, yt_get(d->root, "b1"), &b, err, sizeof err) == 0 && b == 1, "true");
    T_ASSERT(yt_bool(d, yt_get(d->root, "b2"), &b, err, sizeof err) == 0 && b == 0, "off");
    T_ASSERT(yt_bool(d, yt_get(d->root, "b3"), &b, err, sizeof err) == -1, "maybe accepted");
    T_HAS(err, "t.yaml:11:5: expected true or false, found 'maybe'");
    T_ASSERT(yt_bool(d, yt_get(d->root, "list"), &b, err, sizeof err) == -1, "list as bool");
    T_HAS(err, "t.yaml:8:7:");

    const char *s;
    T_ASSERT(yt_string(d, yt_get(d->root, "q"), &s, err, sizeof err) == 0 && !strcmp(s, "12"), "q");
    T_ASSERT(yt_string(d, yt_get(d->root, "list"), &s, err, sizeof err) == -1, "list as string");
    T_HAS(err, "t.yaml:8:7: expected a string, found sequence");
    T_ASSERT(yt_expect(d, d->root, YT_MAP, "root", err, sizeof err) == 0, "expect map");
    T_ASSERT(yt_expect(d, yt_get(d->root, "list"), YT_MAP, "list", err, sizeof err) == -1, "expect");
    T_HAS(err, "t.yaml:8:7: list must be a mapping, not a sequence");
    /* a missing node: still the file name */
    T_ASSERT(yt_int(d, NULL, &i, err, sizeof err) == -1, "NULL node");
    T_HAS(err, "t.yaml");
    T_ASSERT(yt_err(err, sizeof err, d, yt_get(d->root, "b3"), "custom %d", 7) == -1 &&
                 !strcmp(err, "t.yaml:11:5: custom 7"),
             "yt_err: '%s'", err);
}

static void test_check_keys(void)
{
    static const char *const valid[] = {"benchmark", "scales", "scaling", "repetitions", "timeout",
                                        NULL};
    ytdoc *d = load("benchmark: stemdl\nscales: [1, 2]\n");
    T_ASSERT(yt_check_keys(d, d->root, valid, err, sizeof err) == 0, "valid keys: %s", err);
    d = load("benchmark: stemdl\nrepetitons: 3\n");
    T_ASSERT(yt_check_keys(d, d->root, valid, err, sizeof err) == -1, "typo accepted");
    T_HAS(err, "t.yaml:2:1: unknown key 'repetitons' (did you mean 'repetitions'?)");
    d = load("benchmark: stemdl\n  # comment\nscalng: weak\n");
    T_ASSERT(yt_check_keys(d, d->root, valid, err, sizeof err) == -1, "typo accepted");
    T_HAS(err, "t.yaml:3:1: unknown key 'scalng' (did you mean 'scaling'?)");
    /* nothing close: the list of valid keys */
    d = load("walltime: 10\n");
    T_ASSERT(yt_check_keys(d, d->root, valid, err, sizeof err) == -1, "walltime accepted");
    T_HAS(err, "t.yaml:1:1: unknown key 'walltime' (valid keys: benchmark, scales");
    /* duplicates: refused by the loader itself (test_duplicate_keys) */
    bad("scales: [1]\ntimeout: 5\nscales: [2]\n", 3, 1, "key 'scales' given twice (first at line 1)");
    /* a key that is not a scalar */
    d = load("? [a, b]\n: 1\n");
    T_ASSERT(yt_check_keys(d, d->root, valid, err, sizeof err) == -1, "sequence key accepted");
    T_HAS(err, "keys must be plain words");

    T_ASSERT(!strcmp(yt_suggest("timout", valid), "timeout"), "suggest timout");
    T_ASSERT(!strcmp(yt_suggest("sclaes", valid), "scales"), "suggest sclaes (transposition)");
    T_ASSERT(yt_suggest("zzzzzzzz", valid) == NULL, "nothing near zzzzzzzz");
    T_ASSERT(yt_suggest("ab", valid) == NULL, "nothing near ab");
    /* very long words do not overflow the distance table */
    char longw[300];
    memset(longw, 'x', sizeof longw - 1);
    longw[sizeof longw - 1] = 0;
    T_ASSERT(yt_suggest(longw, valid) == NULL, "long word");
}

/* D11: a key given twice is an error in every mapping of every file, with the
 * repeated key's position and the first one's line, in small mappings and in
 * large ones (sorted), at any depth */
static void test_duplicate_keys(void)
{
    bad("status: failed\nranks: 2\nstatus: ok\n", 3, 1, "key 'status' given twice (first at line 1)");
    bad("a:\n  b: {x: 1, y: 2, x: 3}\n", 2, 19, "key 'x' given twice (first at line 2)");
    bad("- {k: 1}\n- {k: 1, k: 2}\n", 2, 10, "key 'k' given twice");
    /* 40 keys, two of them repeated: the earlier repeat is named */
    char big[4096];
    size_t n = 0;
    for (int i = 0; i < 40; i++) n += (size_t)snprintf(big + n, sizeof big - n, "k%02d: %d\n", i, i);
    n += (size_t)snprintf(big + n, sizeof big - n, "k07: again\nk03: again\n");
    bad(big, 41, 1, "key 'k07' given twice (first at line 8)");
    /* a key with a newline is shown on one line */
    bad("\"a\\nb\": 1\n\"a\\nb\": 2\n", 2, 1, "key 'a?b' given twice");
    /* the same text under different parents, and aliases of a mapping, are fine */
    load("a: {x: 1}\nb: {x: 1}\nc: &m {y: 1}\nd: *m\ne: *m\n");
    /* keys that differ only after position 16 of a long mapping */
    n = 0;
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "same_prefix_key_%03d: 1\n", i);
    load(big);
    T_ASSERT(doc->root->n == 100, "%zu keys", doc->root->n);
}

/* D10: items are added by doubling, not one realloc each (under ASan a
 * 100,000-item flow list took 40 s and 1.5 GB) */
static void test_long_list(void)
{
    size_t items = 100000, k = 0;
    char *t = malloc(2 * items + 8);
    T_ASSERT(t != NULL, "malloc");
    t[k++] = '[';
    for (size_t i = 0; i < items; i++) {
        if (i) t[k++] = ',';
        t[k++] = '7';
    }
    t[k++] = ']';
    t[k] = 0;
    double t0 = doubling_cpu_s_();
    yt_free(doc);
    doc = yt_load_string(t, k, "t.yaml", err, sizeof err);
    double dt = doubling_cpu_s_() - t0;
    free(t);
    T_ASSERT(doc != NULL, "did not load: %s", err);
    T_ASSERT(doc->root->n == items, "%zu items", doc->root->n);
    T_ASSERT(doc->root->cap < 2 * items + 8, "%zu slots for %zu items", doc->root->cap, items);
    printf("# %zu-item list loaded in %.2f s\n", items, dt);
    T_ASSERT(dt < 10, "a %zu-item list took %.1f s of CPU to load", items, dt);
}

/* issue 30 item 4: aliases are found through a tree of the anchors, not a
 * scan of every anchor before them (n anchors and 4n aliases to the oldest
 * first were O(n^2)): at 2n anchors the load takes at most 3x as long */
static void many_aliases(void *ctx, size_t n)
{
    (void)ctx;
    size_t cap = 64 * n + 64, k = 0;
    char *t = malloc(cap);
    T_ASSERT(t != NULL, "malloc");
    for (size_t i = 0; i < n; i++) k += (size_t)snprintf(t + k, cap - k, "- &a%zu %zu\n", i, i);
    for (size_t i = 0; i < 4 * n; i++) k += (size_t)snprintf(t + k, cap - k, "- *a%zu\n", i % n);
    ytdoc *d = yt_load_string(t, k, "t.yaml", err, sizeof err);
    free(t);
    size_t items = d ? d->root->n : 0;
    const char *last = d ? d->root->items[items - 1]->str : "";
    char want[32]; /* the last alias names anchor (4n - 1) mod n */
    snprintf(want, sizeof want, "%zu", (4 * n - 1) % n);
    int ok = d && !strcmp(last, want);
    yt_free(d);
    T_ASSERT(ok && items == 5 * n, "%zu anchors: %zu items, last %s: %s", n, items, ok ? "ok" : "wrong", err);
}

static void test_many_aliases(void)
{
    DOUBLING_CHECK(many_aliases, NULL, DOUBLING_N(25000, 16), "anchors (and 4x as many aliases)");
}

int main(void)
{
#define RUN(fn) (T_RUN(fn), yt_free(doc), doc = NULL)
    RUN(test_basic);
    RUN(test_aliases);
    RUN(test_alias_errors);
    RUN(test_billion_laughs);
    RUN(test_depth);
    RUN(test_documents);
    RUN(test_garbage);
    RUN(test_files);
    RUN(test_typed);
    RUN(test_check_keys);
    RUN(test_duplicate_keys);
    RUN(test_long_list);
    RUN(test_many_aliases);
    T_DONE();
}
