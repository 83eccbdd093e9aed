/* record: documents written with rec_* read back with ytree, value for value;
 * doubles exactly; the atomic write: PATH is replaced whole or not at all,
 * and no temporary file is ever left behind; and the common header
 * (record/header.h) written in the documented order, byte for byte. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchmarks/common/record/header.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/ytree.h"
#include "tests/unit/tap.h"

static char dir[200];
static char err[1024];
static ytdoc *doc;

#define T_HAS(s, sub) T_ASSERT(strstr((s), (sub)) != NULL, "message '%s' lacks '%s'", (s), (sub))

static const char *in_dir(const char *name)
{
    static char p[2][512];
    static int k;
    k ^= 1;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

/* Files in dir whose name contains ".tmp." */
static int tmp_files(void)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    T_ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

static char *read_text(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    if (!f) return "(cannot read the file)";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* ---- round trip ------------------------------------------------------------ */

static const char *const strings[] = {
    "plain words", "123", "-7", "1.5", "1e5", "0x1F", ".5", "true", "false", "True", "yes", "no",
    "on", "off", "null", "~", "NULL", "", ".nan", ".inf", "-.inf", "nan", "inf", "a: b", "- item",
    "# not a comment", "[1, 2]", "{a: 1}", "  leading and trailing  ", "line one\nline two",
    "tab\there", "quote \" and 'single'", "back\\slash", "µs and ünïcödé", "*star", "&amp",
    "!tag", "%percent", "@at", "`tick", "key: value # x", "colon:", "-", "?", "|", ">",
    "0", "007", "+1", "1_000", "2019-05-01", "12:30", "Y", "n",
};
#define NSTR (sizeof strings / sizeof *strings)

static const double doubles[] = {
    0.0, -0.0, 1.0, -1.5, 0.1, 1.0 / 3, 2.0 / 3, 3.141592653589793, 1e-300, 1e300, DBL_MAX,
    -DBL_MAX, DBL_MIN, 5e-324 /* smallest subnormal */, 2.2250738585072009e-308 /* largest subnormal */,
    123456789012345680.0, 1e21, 1e-7, 0.30000000000000004, 9007199254740993.0, 4.35, 100.0,
};
#define NDBL (sizeof doubles / sizeof *doubles)

static const int64_t ints[] = {0, 1, -1, 42, INT64_MAX, INT64_MIN, INT64_MAX - 1, (int64_t)1 << 53,
                               ((int64_t)1 << 53) + 1, 17169802854400LL, -1000000000000LL};
#define NINT (sizeof ints / sizeof *ints)

static void write_doc(rec_t *r)
{
    rec_map_begin(r);
    rec_kv_int(r, "exadl_record", RECORD_FORMAT_VERSION);
    rec_kv_str(r, "benchmark", "stemdl");
    rec_kv_str(r, "error", NULL);
    rec_kv_bool(r, "yes_flag", 1);
    rec_kv_bool(r, "no_flag", 0);
    rec_key(r, "strings");
    rec_seq_begin(r);
    for (size_t i = 0; i < NSTR; i++) rec_str(r, strings[i]);
    rec_seq_end(r);
    rec_kv_doubles(r, "doubles", doubles, NDBL);
    rec_key(r, "block_doubles");
    rec_seq_begin(r);
    for (size_t i = 0; i < NDBL; i++) rec_double(r, doubles[i]);
    rec_seq_end(r);
    rec_kv_ints(r, "ints", ints, NINT);
    rec_key(r, "special");
    rec_flow_map_begin(r);
    rec_kv_double(r, "nan", NAN);
    rec_kv_double(r, "pinf", INFINITY);
    rec_kv_double(r, "ninf", -INFINITY);
    rec_map_end(r);
    rec_key(r, "nested");
    rec_map_begin(r);
    rec_key(r, "kernels");
    rec_seq_begin(r);
    for (int i = 0; i < 3; i++) {
        rec_flow_map_begin(r);
        rec_kv_str(r, "kernel", "conv_fwd");
        rec_kv_int(r, "calls", i);
        rec_kv_double(r, "time_s", 0.1 * i);
        rec_map_end(r);
    }
    rec_seq_end(r);
    rec_key(r, "empty_seq");
    rec_flow_seq_begin(r);
    rec_seq_end(r);
    rec_key(r, "empty_map");
    rec_map_begin(r);
    rec_map_end(r);
    rec_key(r, "deeper");
    rec_map_begin(r);
    rec_key(r, "null_value");
    rec_null(r);
    rec_kv_str(r, "key with spaces", "v");
    rec_map_end(r);
    rec_map_end(r);
    rec_map_end(r);
}

static ytnode *get(const ytnode *map, const char *key)
{
    ytnode *n = yt_get(map, key);
    T_ASSERT(n != NULL, "key '%s' missing from the record", key);
    return n;
}

static void test_round_trip(void)
{
    const char *path = in_dir("rt.yaml");
    rec_t *r = rec_open(path, err, sizeof err);
    T_ASSERT(r != NULL, "rec_open: %s", err);
    write_doc(r);
    T_ASSERT(rec_close(r, err, sizeof err) == 0, "rec_close: %s", err);
    T_ASSERT(tmp_files() == 0, "temporary file left behind");

    yt_free(doc);
    doc = yt_load_file(path, err, sizeof err);
    T_ASSERT(doc && doc->root && doc->root->kind == YT_MAP, "read back: %s\n%s", err, read_text(path));
    const ytnode *root = doc->root;
    long long v;
    T_ASSERT(yt_int(doc, get(root, "exadl_record"), &v, err, sizeof err) == 0 &&
                 v == RECORD_FORMAT_VERSION,
             "exadl_record");
    T_ASSERT(!strcmp(get(root, "benchmark")->str, "stemdl"), "benchmark");
    T_ASSERT(yt_is_null(get(root, "error")), "error: null");
    int b;
    T_ASSERT(yt_bool(doc, get(root, "yes_flag"), &b, err, sizeof err) == 0 && b == 1, "true");
    T_ASSERT(yt_bool(doc, get(root, "no_flag"), &b, err, sizeof err) == 0 && b == 0, "false");

    /* strings come back as the same text, and every string a reader would
     * take for a number, bool or null comes back quoted (not plain) */
    const ytnode *s = get(root, "strings");
    T_ASSERT(s->kind == YT_SEQ && s->n == NSTR, "strings: %zu of %zu", s->n, NSTR);
    for (size_t i = 0; i < NSTR; i++) {
        const ytnode *n = s->items[i];
        T_ASSERT(n->kind == YT_SCALAR && !strcmp(n->str, strings[i]), "string %zu: '%s' came back '%s'",
                 i, strings[i], n->str);
        long long iv;
        double dv;
        int bv;
        char e2[256];
        T_ASSERT(!yt_is_null(n), "string '%s' reads back as null", strings[i]);
        T_ASSERT(yt_int(doc, n, &iv, e2, sizeof e2) != 0, "string '%s' reads back as an int",
                 strings[i]);
        T_ASSERT(yt_double(doc, n, &dv, e2, sizeof e2) != 0, "string '%s' reads back as a number",
                 strings[i]);
        T_ASSERT(yt_bool(doc, n, &bv, e2, sizeof e2) != 0, "string '%s' reads back as a bool",
                 strings[i]);
    }
    /* doubles: bit for bit, flow and block style */
    const char *lists[] = {"doubles", "block_doubles"};
    for (int l = 0; l < 2; l++) {
        const ytnode *d = get(root, lists[l]);
        T_ASSERT(d->kind == YT_SEQ && d->n == NDBL, "%s: %zu values", lists[l], d->n);
        for (size_t i = 0; i < NDBL; i++) {
            double x = -12345;
            T_ASSERT(yt_double(doc, d->items[i], &x, err, sizeof err) == 0, "%s[%zu]: %s", lists[l],
                     i, err);
            T_ASSERT(memcmp(&x, &doubles[i], sizeof x) == 0, "%s[%zu]: wrote %.17g, read %.17g ('%s')",
                     lists[l], i, doubles[i], x, d->items[i]->str);
        }
    }
    /* shortest text: 0.1 is written "0.1", not 0.10000000000000001 */
    T_ASSERT(!strcmp(get(root, "doubles")->items[4]->str, "0.1"), "0.1 written as '%s'",
             get(root, "doubles")->items[4]->str);
    const ytnode *in = get(root, "ints");
    T_ASSERT(in->n == NINT, "ints");
    for (size_t i = 0; i < NINT; i++) {
        long long x;
        T_ASSERT(yt_int(doc, in->items[i], &x, err, sizeof err) == 0 && x == ints[i],
                 "int %zu: wrote %lld, read '%s'", i, (long long)ints[i], in->items[i]->str);
    }
    /* NaN and infinities: YAML's .nan, .inf, -.inf, plain */
    const ytnode *sp = get(root, "special");
    T_ASSERT(!strcmp(get(sp, "nan")->str, ".nan") && get(sp, "nan")->plain, "nan as '%s'",
             get(sp, "nan")->str);
    T_ASSERT(!strcmp(get(sp, "pinf")->str, ".inf") && !strcmp(get(sp, "ninf")->str, "-.inf"),
             "infinities");
    const ytnode *nested = get(root, "nested"), *k = get(nested, "kernels");
    T_ASSERT(k->kind == YT_SEQ && k->n == 3, "kernels");
    double t;
    T_ASSERT(yt_double(doc, get(k->items[2], "time_s"), &t, err, sizeof err) == 0 && t == 0.2,
             "time_s");
    T_ASSERT(get(nested, "empty_seq")->kind == YT_SEQ && get(nested, "empty_seq")->n == 0, "[]");
    T_ASSERT(get(nested, "empty_map")->kind == YT_MAP && get(nested, "empty_map")->n == 0, "{}");
    const ytnode *deeper = get(nested, "deeper");
    T_ASSERT(yt_is_null(get(deeper, "null_value")) && !strcmp(get(deeper, "key with spaces")->str, "v"),
             "deeper");
}

/* rec_format_double: the shortest text that reads back exactly */
static void test_format_double(void)
{
    char buf[64];
    const struct {
        double v;
        const char *s;
    } want[] = {{0.1, "0.1"}, {1.0, "1"}, {-2.5, "-2.5"}, {1e20, "1.0e+20"}, {1e-9, "1.0e-09"}, {2.5e-7, "2.5e-07"}, {NAN, ".nan"},
                {INFINITY, ".inf"}, {-INFINITY, "-.inf"}, {1.0 / 3, "0.3333333333333333"}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        rec_format_double(want[i].v, buf, sizeof buf);
        T_ASSERT(!strcmp(buf, want[i].s), "%.17g formatted '%s', want '%s'", want[i].v, buf,
                 want[i].s);
    }
    /* a sweep of awkward values: exact round trip through strtod */
    uint64_t z = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        double v;
        memcpy(&v, &z, sizeof v);
        if (!isfinite(v)) continue;
        rec_format_double(v, buf, sizeof buf);
        double back = strtod(buf, NULL);
        T_ASSERT(memcmp(&back, &v, sizeof v) == 0, "%a formatted '%s' reads back %a", v, buf, back);
    }
}

/* Strings that are not valid UTF-8 (argv, host names) must not cost the record. */
static void test_bad_utf8(void)
{
    const char *path = in_dir("utf8.yaml");
    rec_t *r = rec_open(path, err, sizeof err);
    T_ASSERT(r != NULL, "rec_open: %s", err);
    rec_map_begin(r);
    rec_kv_str(r, "latin1", "caf\xe9 au lait");
    rec_kv_str(r, "truncated", "ok \xe2\x82");
    rec_kv_str(r, "overlong", "\xc0\xaf");
    rec_kv_str(r, "surrogate", "\xed\xa0\x80");
    rec_kv_str(r, "good", "\xc2\xb5s");
    rec_kv_int(r, "after", 7);
    rec_map_end(r);
    T_ASSERT(rec_close(r, err, sizeof err) == 0, "rec_close: %s", err);
    yt_free(doc);
    doc = yt_load_file(path, err, sizeof err);
    T_ASSERT(doc != NULL, "read back: %s", err);
    T_ASSERT(!strcmp(get(doc->root, "latin1")->str, "caf? au lait"), "latin1 came back '%s'",
             get(doc->root, "latin1")->str);
    T_ASSERT(!strcmp(get(doc->root, "truncated")->str, "ok ??"), "truncated: '%s'",
             get(doc->root, "truncated")->str);
    T_ASSERT(!strcmp(get(doc->root, "overlong")->str, "??"), "overlong: '%s'",
             get(doc->root, "overlong")->str);
    T_ASSERT(!strcmp(get(doc->root, "surrogate")->str, "???"), "surrogate: '%s'",
             get(doc->root, "surrogate")->str);
    T_ASSERT(!strcmp(get(doc->root, "good")->str, "\xc2\xb5s"), "valid UTF-8 changed");
    T_ASSERT(!strcmp(get(doc->root, "after")->str, "7"), "after");
}

/* ---- atomicity ------------------------------------------------------------------ */

static void test_abandon(void)
{
    const char *path = in_dir("keep.yaml");
    write_text(path, "old: record\n");
    rec_t *r = rec_open(path, err, sizeof err);
    T_ASSERT(r != NULL, "rec_open: %s", err);
    T_ASSERT(tmp_files() == 1, "no temporary file while writing");
    rec_map_begin(r);
    for (int i = 0; i < 5000; i++) rec_kv_int(r, "k", i); /* more than one buffer's worth */
    rec_abandon(r);
    T_ASSERT(!strcmp(read_text(path), "old: record\n"), "rec_abandon changed PATH: '%.80s'",
             read_text(path));
    T_ASSERT(tmp_files() == 0, "rec_abandon left a temporary file");
    /* abandoning a record for a PATH that does not exist creates nothing */
    const char *none = in_dir("never.yaml");
    r = rec_open(none, err, sizeof err);
    T_ASSERT(r != NULL, "rec_open: %s", err);
    rec_abandon(r);
    T_ASSERT(access(none, F_OK) != 0 && tmp_files() == 0, "abandoned record left files");
    rec_abandon(NULL);
}

static void test_replace(void)
{
    const char *path = in_dir("replace.yaml");
    write_text(path, "old: record\n");
    rec_t *r = rec_open(path, err, sizeof err);
    T_ASSERT(r != NULL, "rec_open: %s", err);
    rec_map_begin(r);
    rec_kv_str(r, "new", "record");
    /* until rec_close, PATH still holds the old record */
    T_ASSERT(!strcmp(read_text(path), "old: record\n"), "PATH changed before rec_close");
    rec_map_end(r);
    T_ASSERT(rec_close(r, err, sizeof err) == 0, "rec_close: %s", err);
    T_ASSERT(strstr(read_text(path), "new: record") && !strstr(read_text(path), "old"),
             "PATH not replaced: '%s'", read_text(path));
    T_ASSERT(tmp_files() == 0, "temporary file left behind");
}

static void test_open_fails(void)
{
    /* a directory that does not exist */
    char path[512];
    snprintf(path, sizeof path, "%s/no/such/dir/r.yaml", dir);
    err[0] = 0;
    T_ASSERT(rec_open(path, err, sizeof err) == NULL, "rec_open into a missing directory");
    T_HAS(err, "no/such/dir/r.yaml");
    T_HAS(err, "No such file or directory");
    /* a regular file in place of the directory */
    write_text(in_dir("afile"), "x\n");
    snprintf(path, sizeof path, "%s/afile/r.yaml", dir);
    T_ASSERT(rec_open(path, err, sizeof err) == NULL, "rec_open under a regular file");
    T_HAS(err, "afile/r.yaml");
    T_ASSERT(tmp_files() == 0, "temporary file left behind");
}

/* An unwritable directory.  Root writes anywhere, so there the check runs in
 * a child that has dropped to an unprivileged user. */
static void test_unwritable_dir(void)
{
    char ro[512];
    snprintf(ro, sizeof ro, "%s/ro", dir);
    T_ASSERT(mkdir(ro, 0755) == 0, "mkdir %s", ro);
    char path[600];
    snprintf(path, sizeof path, "%s/r.yaml", ro);
    T_ASSERT(chmod(dir, 0755) == 0, "chmod");
    fflush(stdout);
    pid_t pid = fork();
    T_ASSERT(pid >= 0, "fork");
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        chmod(ro, 0555); /* in case we are not root: our own directory, read-only */
        char e[512] = "";
        rec_t *r = rec_open(path, e, sizeof e);
        if (r) _exit(4);
        if (!strstr(e, "r.yaml") || !strstr(e, "Permission denied")) {
            fprintf(stderr, "message: %s\n", e);
            _exit(5);
        }
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    rmdir(ro);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 3) T_SKIP("cannot drop privileges to test permissions");
    T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
             "rec_open into a read-only directory: child status %d (4: it succeeded, 5: message)",
             WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    T_ASSERT(tmp_files() == 0, "temporary file left behind");
}

/* rec_close that cannot put the record in place: PATH is a directory. */
static void test_close_fails_rename(void)
{
    const char *path = in_dir("isdir.yaml");
    T_ASSERT(mkdir(path, 0755) == 0, "mkdir");
    rec_t *r = rec_open(path, err, sizeof err);
    T_ASSERT(r != NULL, "rec_open: %s", err);
    rec_map_begin(r);
    rec_kv_int(r, "a", 1);
    rec_map_end(r);
    err[0] = 0;
    T_ASSERT(rec_close(r, err, sizeof err) == -1, "rec_close onto a directory succeeded");
    T_HAS(err, "isdir.yaml");
    T_HAS(err, "cannot write");
    T_ASSERT(tmp_files() == 0, "failed rec_close left a temporary file");
    struct stat sb;
    T_ASSERT(stat(path, &sb) == 0 && S_ISDIR(sb.st_mode), "the directory was replaced");
    rmdir(path);
}

/* rec_close when the data cannot be written (the file-size limit stands in for
 * a full disk): -1 with a message, the old PATH intact, no temporary file. */
static void test_close_fails_write(void)
{
    const char *path = in_dir("full.yaml");
    write_text(path, "old: record\n");
    fflush(stdout);
    pid_t pid = fork();
    T_ASSERT(pid >= 0, "fork");
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {1000, 1000};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(3);
        char e[512] = "";
        rec_t *r = rec_open(path, e, sizeof e);
        if (!r) _exit(4);
        rec_map_begin(r);
        for (int i = 0; i < 2000; i++) rec_kv_str(r, "key", "a value long enough to pass 1000 bytes");
        rec_map_end(r);
        int rc = rec_close(r, e, sizeof e);
        if (rc != -1) _exit(5);
        if (!strstr(e, "full.yaml") || !strstr(e, "cannot write")) {
            fprintf(stderr, "message: %s\n", e);
            _exit(6);
        }
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
             "child status %d (4: rec_open failed, 5: rec_close succeeded, 6: message)",
             WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    T_ASSERT(!strcmp(read_text(path), "old: record\n"), "failed write changed PATH");
    T_ASSERT(tmp_files() == 0, "failed write left a temporary file");
}

/* ---- the common header ------------------------------------------------------ */

static void write_test_config(rec_t *r, const void *arg)
{
    rec_key(r, "config");
    rec_map_begin(r);
    rec_kv_int(r, "batch", *(const int *)arg);
    rec_map_end(r);
}

/* docs/record.md's order, every key, byte for byte: what stemdl, collectives
 * and orchestration records start with */
static void test_header(void)
{
    sysinfo_t si;
    memset(&si, 0, sizeof si);
    snprintf(si.cpu_model, sizeof si.cpu_model, "Test CPU");
    si.cpu_cores = 2;
    snprintf(si.os, sizeof si.os, "Linux 6.1.0 x86_64");
    char *hosts[] = {"node01", "node02"};
    sysinfo_set_hosts(&si, hosts, 2);
    sysinfo_set_version(&si, "mpi", "Open MPI v4.1.4");
    sysinfo_set_version(&si, "nccl", NULL);
    char *argv[] = {"bench", "--steps", "3", "--record", "r.yaml"};
    int batch = 2;
    rec_header_t h = {.benchmark = "stemdl", .status = "invalid", .error = "loss_finite: NaN",
                      .started_utc = "2025-01-02T03:04:05Z", .argc = 5, .argv = argv,
                      .system = &si, .config = write_test_config, .config_arg = &batch,
                      .ranks = 4, .gpus = 0, .backend = "cpu", .precision = "fp32"};
    const char *path = in_dir("header.yaml");
    rec_t *r = rec_header_open(path, &h, err, sizeof err);
    T_ASSERT(r != NULL, "rec_header_open: %s", err);
    rec_kv_int(r, "own_key", 7);
    rec_key(r, "validation");
    rec_seq_begin(r);
    rec_validation(r, "loss_finite", "fail", 1, "step 2: NaN");
    rec_validation(r, "loss_trend", "skipped", 0, NULL);
    rec_seq_end(r);
    T_ASSERT(rec_header_close(r, err, sizeof err) == 0, "rec_header_close: %s", err);
    const char *want =
        "---\n"
        "exadl_record: 1\n"
        "benchmark: stemdl\n"
        "status: invalid\n"
        "error: 'loss_finite: NaN'\n"
        "started_utc: 2025-01-02T03:04:05Z\n"
        "command: [bench, --steps, \"3\", --record, r.yaml]\n"
        "system:\n"
        "  hosts: [node01, node02]\n"
        "  cpu:\n"
        "    model: Test CPU\n"
        "    cores: 2\n"
        "  os: Linux 6.1.0 x86_64\n"
        "  gpu:\n"
        "    model: null\n"
        "    count: 0\n"
        "    driver: null\n"
        "    compute_capability: null\n"
        "    memory_bytes: null\n"
        "  versions:\n"
        "    mpi: Open MPI v4.1.4\n"
        "    nccl: null\n"
        "config:\n"
        "  batch: 2\n"
        "ranks: 4\n"
        "gpus: 0\n"
        "backend: cpu\n"
        "precision: fp32\n"
        "own_key: 7\n"
        "validation:\n"
        "- {check: loss_finite, outcome: fail, decides_status: true, detail: 'step 2: NaN'}\n"
        "- {check: loss_trend, outcome: skipped, decides_status: false, detail: null}\n";
    const char *got = read_text(path);
    T_ASSERT(!strcmp(got, want), "header written as\n%s\nwant\n%s", got, want);

    /* status ok: error is null; no config callback: an empty mapping */
    h = (rec_header_t){.benchmark = "collectives", .status = "ok", .system = &si, .ranks = 1,
                       .backend = "mpi", .precision = "float32"};
    r = rec_header_open(path, &h, err, sizeof err);
    T_ASSERT(r != NULL && rec_header_close(r, err, sizeof err) == 0, "second header: %s", err);
    got = read_text(path);
    T_ASSERT(strstr(got, "\nerror: null\nstarted_utc: null\ncommand: []\n") &&
                 strstr(got, "\nconfig: {}\nranks: 1\n"),
             "ok header:\n%s", got);
    /* a record that cannot be created: NULL and the reason */
    r = rec_header_open(in_dir("no/such/dir/r.yaml"), &h, err, sizeof err);
    T_ASSERT(r == NULL && strstr(err, "cannot create"), "unwritable: %s", err);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/exadl-rec-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        printf("FAIL: mkdtemp %s: %s\n", dir, strerror(errno));
        return 1;
    }
    T_RUN(test_round_trip);
    T_RUN(test_format_double);
    T_RUN(test_bad_utf8);
    T_RUN(test_abandon);
    T_RUN(test_replace);
    T_RUN(test_open_fails);
    T_RUN(test_unwritable_dir);
    T_RUN(test_close_fails_rename);
    T_RUN(test_close_fails_write);
    T_RUN(test_header);
    yt_free(doc);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    T_DONE();
}
