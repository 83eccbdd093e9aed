/* record/read: the typed readers and their one rule: absent and null are "not
 * given", .nan/.inf/-.inf are NaN/+inf/-inf where the domain takes them, the
 * wrong type or a refused value is an error at FILE:LINE:COL; and what
 * rec_double writes reads back bit for bit. */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/record/read.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/ytree.h"
#include "tests/unit/tap.h"

static char err[1024];
static ytdoc *doc;
static rd_t c;

#define T_HAS(s, sub) T_ASSERT(strstr((s), (sub)) != NULL, "message '%s' lacks '%s'", (s), (sub))

/* the document text under the name t.yaml; c reads it */
static const ytnode *load(const char *text)
{
    yt_free(doc);
    doc = yt_load_string(text, strlen(text), "t.yaml", err, sizeof err);
    T_ASSERT(doc != NULL, "parse: %s", err);
    c = (rd_t){doc, err, sizeof err, NULL, NULL};
    err[0] = 0;
    return doc->root;
}

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void test_numbers(void)
{
    const ytnode *m = load("a: 1.5\nb: .nan\nc: .NaN\nd: .NAN\ne: .inf\nf: .Inf\ng: +.INF\n"
                           "h: -.inf\ni: -.Inf\nj: ~\nk: null\nl: 1e-7\nm: -0.0\nn: 5e-324\n"
                           "o: 12\n");
    static const struct {
        const char *key;
        double want;
    } ok[] = {{"a", 1.5},       {"b", NAN},       {"c", NAN},  {"d", NAN},     {"e", INFINITY},
              {"f", INFINITY},  {"g", INFINITY},  {"h", -INFINITY}, {"i", -INFINITY},
              {"j", NAN},       {"k", NAN},       {"l", 1e-7}, {"m", -0.0},    {"n", 5e-324},
              {"o", 12},        {"absent", NAN}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        double v = 99;
        T_ASSERT(rd_num(&c, m, ok[i].key, RD_ANY, &v) == 0, "%s: %s", ok[i].key, err);
        T_ASSERT(same(v, ok[i].want), "%s: read %g, want %g", ok[i].key, v, ok[i].want);
    }
    /* the domains: RD_FINITE refuses NaN and infinities, RD_COUNT also < 0 */
    double v;
    T_ASSERT(rd_num(&c, m, "a", RD_FINITE, &v) == 0 && v == 1.5, "finite 1.5");
    T_ASSERT(rd_num(&c, m, "b", RD_FINITE, &v) == -1, ".nan is not finite");
    T_HAS(err, "t.yaml:2:4: expected a finite number for b, found '.nan'");
    T_ASSERT(rd_num(&c, m, "h", RD_COUNT, &v) == -1, "-.inf is not a count");
    T_HAS(err, "t.yaml:8:4: expected a count (a finite number >= 0) for h, found '-.inf'");
    T_ASSERT(rd_num(&c, m, "m", RD_COUNT, &v) == 0 && v == 0, "-0.0 is a count");
    T_ASSERT(rd_num(&c, m, "j", RD_COUNT, &v) == 0 && isnan(v), "null: not given, even a count");
    /* no map at all: every key is absent */
    T_ASSERT(rd_num(&c, NULL, "a", RD_COUNT, &v) == 0 && isnan(v), "NULL map");
}

/* a string, a list or a misspelt number where a number is due: FILE:LINE:COL */
static void test_bad_numbers(void)
{
    const ytnode *m = load("s: hello\nq: \"1.5\"\nl: [1, 2]\nn: nan\ni: inf\no: 1e999\n"
                           "x: {a: 1}\nh: 0x\n");
    static const struct {
        const char *key, *want;
    } bad[] = {
        {"s", "t.yaml:1:4: expected a number for s, found 'hello'"},
        {"q", "t.yaml:2:4: expected a number for q, found the quoted string \"1.5\""},
        {"l", "t.yaml:3:4: expected a number for l, found a sequence"},
        {"n", "t.yaml:4:4: expected a number for n, found 'nan' (NaN and infinities are written "
              ".nan, .inf, -.inf)"},
        {"i", "t.yaml:5:4: expected a number for i, found 'inf'"},
        {"o", "t.yaml:6:4: expected a number for o, found '1e999'"},
        {"x", "t.yaml:7:4: expected a number for x, found a mapping"},
        {"h", "t.yaml:8:4: expected a number for h, found '0x'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double v = 7;
        err[0] = 0;
        T_ASSERT(rd_num(&c, m, bad[i].key, RD_ANY, &v) == -1, "%s read as %g", bad[i].key, v);
        T_HAS(err, bad[i].want);
    }
    /* the node readers say the same without a key */
    double v;
    T_ASSERT(rd_num_node(&c, yt_get(m, "s"), RD_ANY, &v) == -1, "node");
    T_HAS(err, "t.yaml:1:4: expected a number, found 'hello'");
    T_ASSERT(rd_num_node(&c, NULL, RD_ANY, &v) == -1, "no node");
    T_HAS(err, "t.yaml: expected a number, found nothing");
}

static void test_integers(void)
{
    const ytnode *m = load("a: 42\nb: -7\nc: .nan\nd: 1.5\ne: \"3\"\nf: null\ng: 99999999999999999999\n"
                           "h: [1]\n");
    long long v;
    T_ASSERT(rd_int(&c, m, "a", -1, &v) == 0 && v == 42, "42");
    T_ASSERT(rd_int(&c, m, "b", -1, &v) == 0 && v == -7, "-7");
    T_ASSERT(rd_int(&c, m, "f", -1, &v) == 0 && v == -1, "null: the default");
    T_ASSERT(rd_int(&c, m, "absent", 5, &v) == 0 && v == 5, "absent: the default");
    /* an integer is never NaN: a count that is NaN is an error */
    T_ASSERT(rd_int(&c, m, "c", -1, &v) == -1, ".nan");
    T_HAS(err, "t.yaml:3:4: expected an integer for c, found '.nan'");
    T_ASSERT(rd_int(&c, m, "d", -1, &v) == -1, "1.5");
    T_HAS(err, "t.yaml:4:4: expected an integer for d, found '1.5'");
    T_ASSERT(rd_int(&c, m, "e", -1, &v) == -1, "quoted");
    T_HAS(err, "t.yaml:5:4: expected an integer for e, found the quoted string \"3\"");
    T_ASSERT(rd_int(&c, m, "g", -1, &v) == -1, "overflow");
    T_HAS(err, "t.yaml:7:4:");
    T_ASSERT(rd_int(&c, m, "h", -1, &v) == -1, "list");
    T_HAS(err, "t.yaml:8:4: expected an integer for h, found a sequence");
}

static void test_strings_and_bools(void)
{
    const ytnode *m = load("a: plain\nb: \"null\"\nc: null\nd: [x]\ne: 12\n"
                           "t: true\nf: off\ny: Yes\nm: maybe\nq: \"true\"\n");
    const char *s;
    T_ASSERT(rd_str(&c, m, "a", NULL, &s) == 0 && !strcmp(s, "plain"), "plain");
    T_ASSERT(rd_str(&c, m, "b", NULL, &s) == 0 && !strcmp(s, "null"), "quoted null is text");
    T_ASSERT(rd_str(&c, m, "c", "dflt", &s) == 0 && !strcmp(s, "dflt"), "null: the default");
    T_ASSERT(rd_str(&c, m, "absent", NULL, &s) == 0 && s == NULL, "absent: NULL");
    T_ASSERT(rd_str(&c, m, "e", NULL, &s) == 0 && !strcmp(s, "12"), "a number as text");
    T_ASSERT(rd_str(&c, m, "d", NULL, &s) == -1, "list");
    T_HAS(err, "t.yaml:4:4: expected text for d, found a sequence");
    int b;
    T_ASSERT(rd_bool(&c, m, "t", 0, &b) == 0 && b == 1, "true");
    T_ASSERT(rd_bool(&c, m, "f", 1, &b) == 0 && b == 0, "off");
    T_ASSERT(rd_bool(&c, m, "y", 0, &b) == 0 && b == 1, "Yes");
    T_ASSERT(rd_bool(&c, m, "absent", 1, &b) == 0 && b == 1, "absent: the default");
    T_ASSERT(rd_bool(&c, m, "m", 0, &b) == -1, "maybe");
    T_HAS(err, "t.yaml:9:4: expected true or false for m, found 'maybe'");
    T_ASSERT(rd_bool(&c, m, "q", 0, &b) == -1, "quoted true");
    T_HAS(err, "t.yaml:10:4: expected true or false for q, found the quoted string");
}

static int allocs;
static void *count_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    allocs++;
    return calloc(1, bytes);
}

static void test_lists_and_blocks(void)
{
    const ytnode *m = load("a: [1, .nan, -.inf, 2.5]\nb: []\nc: 3\nd: [1, x]\ne: [1, .inf]\n"
                           "f: null\nmap: {k: 1}\nseq: [1]\n");
    double *v;
    size_t n;
    T_ASSERT(rd_nums(&c, m, "a", RD_ANY, &v, &n) == 0 && n == 4, "a: %s", err);
    T_ASSERT(v[0] == 1 && isnan(v[1]) && v[2] == -INFINITY && v[3] == 2.5, "a's values");
    free(v);
    T_ASSERT(rd_nums(&c, m, "b", RD_ANY, &v, &n) == 0 && n == 0 && v, "[]");
    free(v);
    T_ASSERT(rd_nums(&c, m, "f", RD_ANY, &v, &n) == 0 && n == 0 && !v, "null: no list");
    T_ASSERT(rd_nums(&c, m, "absent", RD_ANY, &v, &n) == 0 && n == 0 && !v, "absent: no list");
    T_ASSERT(rd_nums(&c, m, "c", RD_ANY, &v, &n) == -1, "a scalar is not a list");
    T_HAS(err, "t.yaml:3:4: c must be a list of numbers");
    T_ASSERT(rd_nums(&c, m, "d", RD_ANY, &v, &n) == -1 && !v && n == 0, "x in a list");
    T_HAS(err, "t.yaml:4:8: expected a number for d, found 'x'");
    /* raw samples: finite, the error at the element */
    T_ASSERT(rd_nums(&c, m, "e", RD_FINITE, &v, &n) == -1, ".inf sample");
    T_HAS(err, "t.yaml:5:8: expected a finite number for e, found '.inf'");
    /* the caller's allocator, when given, owns the list */
    rd_t ca = c;
    ca.alloc = count_alloc;
    allocs = 0;
    T_ASSERT(rd_nums(&ca, m, "a", RD_ANY, &v, &n) == 0 && allocs == 1, "allocator used");
    free(v);
    const ytnode *b;
    T_ASSERT(rd_map(&c, m, "map", &b) == 0 && b && b->kind == YT_MAP, "map");
    T_ASSERT(rd_map(&c, m, "absent", &b) == 0 && !b, "absent map");
    T_ASSERT(rd_map(&c, m, "seq", &b) == -1, "a list is not a map");
    T_HAS(err, "t.yaml:8:6: seq must be a mapping, not a list");
    T_ASSERT(rd_list(&c, m, "seq", &b) == 0 && b && b->n == 1, "list");
    T_ASSERT(rd_list(&c, m, "map", &b) == -1, "a map is not a list");
    T_HAS(err, "t.yaml:7:6: map must be a list, not a mapping");
}

static void test_required(void)
{
    const ytnode *m = load("row:\n  bytes: .nan\n  n: null\n  op: allreduce\n  k: 3\n");
    const ytnode *row = yt_get(m, "row");
    double v;
    long long k;
    const char *s;
    /* NaN in a required count is an error; so is a count that is missing */
    T_ASSERT(rd_num_req(&c, row, "bytes", RD_COUNT, &v) == -1, ".nan bytes");
    T_HAS(err, "t.yaml:2:10: expected a count (a finite number >= 0) for bytes, found '.nan'");
    T_ASSERT(rd_num_req(&c, row, "n", RD_ANY, &v) == -1, "null is not given");
    T_HAS(err, "t.yaml:2:3: n is required");
    T_ASSERT(rd_num_req(&c, row, "size", RD_COUNT, &v) == -1, "absent");
    T_HAS(err, "t.yaml:2:3: size is required");
    T_ASSERT(rd_num_req(&c, row, "k", RD_COUNT, &v) == 0 && v == 3, "3");
    T_ASSERT(rd_int_req(&c, row, "k", &k) == 0 && k == 3, "int 3");
    T_ASSERT(rd_int_req(&c, row, "bytes", &k) == -1, "int .nan");
    T_HAS(err, "t.yaml:2:10: expected an integer for bytes, found '.nan'");
    T_ASSERT(rd_int_req(&c, row, "count", &k) == -1, "absent int");
    T_HAS(err, "count is required");
    T_ASSERT(rd_str_req(&c, row, "op", &s) == 0 && !strcmp(s, "allreduce"), "op");
    T_ASSERT(rd_str_req(&c, row, "dtype", &s) == -1 && !s, "absent text");
    T_HAS(err, "t.yaml:2:3: dtype is required");
}

/* what rec_double writes, the readers read back bit for bit (the rule and
 * the writer agree); written through the real writer into a file */
static void test_writer_agrees(void)
{
    static const double x[] = {0.0, -0.0, 1.0 / 3, 1e-300, DBL_MAX, -DBL_MAX, 5e-324, 1e21,
                               NAN, INFINITY, -INFINITY};
    size_t nx = sizeof x / sizeof *x;
    char dir[] = "/tmp/exadl-rdtest-XXXXXX";
    T_ASSERT(mkdtemp(dir), "mkdtemp");
    char path[64];
    snprintf(path, sizeof path, "%s/r.yaml", dir);
    rec_t *w = rec_open(path, err, sizeof err);
    T_ASSERT(w, "rec_open: %s", err);
    rec_map_begin(w);
    rec_kv_doubles(w, "list", x, nx);
    for (size_t i = 0; i < nx; i++) {
        char key[16];
        snprintf(key, sizeof key, "x%zu", i);
        rec_kv_double(w, key, x[i]);
    }
    rec_map_end(w);
    T_ASSERT(rec_close(w, err, sizeof err) == 0, "rec_close: %s", err);
    yt_free(doc);
    doc = yt_load_file(path, err, sizeof err);
    remove(path);
    remove(dir);
    T_ASSERT(doc, "load: %s", err);
    c = (rd_t){doc, err, sizeof err, NULL, NULL};
    double *v;
    size_t n;
    T_ASSERT(rd_nums(&c, doc->root, "list", RD_ANY, &v, &n) == 0 && n == nx, "list: %s", err);
    for (size_t i = 0; i < nx; i++) {
        char key[16];
        double s;
        snprintf(key, sizeof key, "x%zu", i);
        T_ASSERT(rd_num(&c, doc->root, key, RD_ANY, &s) == 0, "%s: %s", key, err);
        int ok = isnan(x[i]) ? isnan(v[i]) && isnan(s)
                             : !memcmp(&v[i], &x[i], sizeof s) && !memcmp(&s, &x[i], sizeof s);
        T_ASSERT(ok, "value %zu: wrote %.17g, read %.17g and %.17g", i, x[i], v[i], s);
    }
    free(v);
}

int main(void)
{
    T_RUN(test_numbers);
    T_RUN(test_bad_numbers);
    T_RUN(test_integers);
    T_RUN(test_strings_and_bools);
    T_RUN(test_lists_and_blocks);
    T_RUN(test_required);
    T_RUN(test_writer_agrees);
    yt_free(doc);
    T_DONE();
}
