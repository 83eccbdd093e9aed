/* Suite files, good and bad: every bad one gives FILE:LINE:COL and a clear
 * message, never a crash (alias bombs and binary garbage included). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/launchplan.h"
#include "harness/suite/suite.h"
#include "tests/unit/doubling.h"
#include "tests/unit/tap.h"

static machine_t mach = {.cores = 4, .gpus = 0};
static char err[1024];

static int load(arena_t *a, const char *text, suite_t *s)
{
    err[0] = 0;
    return suite_load_text(a, text, strlen(text), "t.yaml", ".", &mach, s, err, sizeof err);
}

/* load must fail with err starting "t.yaml:LINE:COL:" (col 0: any) and containing want */
static void bad(const char *text, int line, int col, const char *want)
{
    arena_t *a = ar_new();
    suite_t s;
    int rc = load(a, text, &s);
    ar_free(a);
    T_ASSERT(rc == -1, "accepted a bad suite (wanted '%s')", want);
    char pos[64];
    if (col) snprintf(pos, sizeof pos, "t.yaml:%d:%d: ", line, col);
    else if (line) snprintf(pos, sizeof pos, "t.yaml:%d:", line);
    else snprintf(pos, sizeof pos, "t.yaml:");
    T_ASSERT(!strncmp(err, pos, strlen(pos)), "error '%s' does not start with '%s'", err, pos);
    T_ASSERT(strstr(err, want), "error '%s' does not say '%s'", err, want);
}

static const char good[] =
    "exadl_suite: 1\n"
    "name: tiny\n"
    "launcher: mpirun\n"
    "launcher_args: [--bind-to, none]\n"
    "scales: [4, 1, 2]\n"
    "repetitions: 2\n"
    "timeout_s: 30\n"
    "env: {OMP_NUM_THREADS: \"1\", DROP_ME: null}\n"
    "benchmarks:\n"
    "  - program: /bin/true\n"
    "    config: {preset: tiny, steps: 3, c_in: 8, down: [1, 2]}\n"
    "    env: {OMP_NUM_THREADS: \"2\"}\n"
    "  - name: strong\n"
    "    program: /bin/true\n"
    "    scaling: strong\n"
    "    global_batch: 8\n"
    "    scales: {max: 8}\n"
    "    repetitions: 1\n";

static void test_good_suite(void)
{
    arena_t *a = ar_new();
    suite_t s;
    int rc = load(a, good, &s);
    if (rc) ar_free(a);
    T_ASSERT(rc == 0, "good suite rejected: %s", err);
    T_ASSERT(!strcmp(s.name, "tiny") && s.launcher == launcher_by_name("mpirun") && s.nbench == 2,
             "top level");
    const bench_spec_t *b = &s.bench[0];
    T_ASSERT(!strcmp(b->name, "true"), "default name from the program: %s", b->name);
    T_ASSERT(b->nscales == 3 && b->scales[0] == 1 && b->scales[2] == 4, "scales sorted");
    T_ASSERT(b->repetitions == 2 && b->timeout_s == 30, "inherited defaults");
    T_ASSERT(b->nconfig == 4 && !strcmp(b->config[3].value, "1,2"), "list joined");
    int env_ok = 0, unset_ok = 0;
    for (size_t i = 0; i < b->nenv; i++) {
        if (!strcmp(b->env[i].key, "OMP_NUM_THREADS")) env_ok = !strcmp(b->env[i].value, "2");
        if (!strcmp(b->env[i].key, "DROP_ME")) unset_ok = b->env[i].value == NULL;
    }
    T_ASSERT(env_ok && unset_ok, "benchmark env overrides the suite's; null unsets");
    const bench_spec_t *st = &s.bench[1];
    T_ASSERT(st->scaling == SCALING_STRONG && st->nscales == 4 && st->scales[3] == 8,
             "strong, {max: 8} -> 1,2,4,8");
    char **v = launchplan_bench_argv(a, &s, b, 2, "r.yaml", &(suite_vars_t){".", "l"});
    char *line = argv_join(a, v);
    /* /bin/true may resolve to /usr/bin/true */
    const char *want = "bin/true --preset tiny --steps 3 --c-in 8 --down 1,2 --record r.yaml";
    T_ASSERT(line[0] == '/' && strlen(line) > strlen(want) &&
                 !strcmp(line + strlen(line) - strlen(want), want),
             "benchmark argv: %s", line);
    v = launchplan_bench_argv(a, &s, st, 4, NULL, &(suite_vars_t){".", "l"});
    line = argv_join(a, v);
    T_ASSERT(strstr(line, "bin/true --batch 2") && !strstr(line, "record"),
             "strong scaling divides the batch: %s", line);
    launchplan_t p;
    launchplan_build(a, &s, "/run", &p);
    T_ASSERT(p.n == 3 * 2 + 4, "plan size %zu", p.n);
    T_ASSERT(!strcmp(p.l[0].id, "true-n1-r1") && !strcmp(p.l[3].id, "true-n1-r2"),
             "order: repetition, then scale (%s, %s)", p.l[0].id, p.l[3].id);
    line = argv_join(a, p.l[2].argv);
    T_ASSERT(strstr(line, "-np 4 --bind-to none /") && strstr(line, "bin/true --preset") &&
                 strstr(line, "--record /run/records/true-n4-r1.yaml"),
             "mpirun command: %s", line);
    ar_free(a);
}

static void test_launchers(void)
{
    arena_t *a = ar_new();
    suite_t s;
    int rc = load(a, "launcher: \"srun -A x {cmd}\"\nscales: [1]\nbenchmarks: [{program: /bin/true}]\n", &s);
    T_ASSERT(rc == 0, "template suite rejected: %s", err);
    char **v = launchplan_wrap(a, &s, NULL, (char *[]){"prog", "a b", NULL}, 4, 2, 2);
    char *line = argv_join(a, v);
    T_ASSERT(!strcmp(line, "/bin/sh -c 'srun -A x prog '\\''a b'\\'''"), "template: %s", line);
    rc = load(a, "launcher: srun\nscales: [1]\nbenchmarks: [{program: /bin/true}]\n", &s);
    T_ASSERT(rc == 0, "srun suite: %s", err);
    line = argv_join(a, launchplan_wrap(a, &s, NULL, (char *[]){"prog", NULL}, 8, 2, 4));
    T_ASSERT(!strcmp(line, "srun --ntasks=8 --nodes=2 --ntasks-per-node=4 --kill-on-bad-exit=1 --verbose prog"),
             "srun: %s", line);
    rc = load(a, "launcher: \"env R={ranks} N={nodes} P={ranks_per_node} {cmd}\"\nranks_per_node: 2\n"
                 "scales: [3]\nbenchmarks: [{program: /bin/true}]\n", &s);
    T_ASSERT(rc == 0, "template: %s", err);
    launchplan_t p;
    launchplan_build(a, &s, NULL, &p);
    line = argv_join(a, p.l[0].argv);
    T_ASSERT(strstr(line, "env R=3 N=2 P=2 /") && strstr(line, "bin/true --record"),
             "placeholders: %s", line);
    ar_free(a);
}

static void test_auto_scales(void)
{
    arena_t *a = ar_new();
    suite_t s;
    mach.cores = 6;
    int rc = load(a, "scales: auto\nbenchmarks: [{program: /bin/true}]\n", &s);
    mach.cores = 4;
    T_ASSERT(rc == 0, "auto: %s", err);
    T_ASSERT(s.bench[0].nscales == 4 && s.bench[0].scales[3] == 6, "6 cores -> 1,2,4,6");
    rc = load(a, "benchmarks: [{program: /bin/true, scales: {min: 2, max: 16, factor: 4}}]\n", &s);
    T_ASSERT(rc == 0 && s.bench[0].nscales == 3 && s.bench[0].scales[2] == 16, "2,8,16");
    ar_free(a);
}

static void test_default_suite(void)
{
    arena_t *a = ar_new();
    machine_t m = {.cores = 2};
    const char *t = suite_default_text(a, &m, 1);
    T_ASSERT(strstr(t, "OMPI_ALLOW_RUN_AS_ROOT") && strstr(t, "preset: small"), "cpu, root");
    T_ASSERT(!strstr(suite_default_text(a, &m, 0), "OMPI_ALLOW_RUN_AS_ROOT"), "not root");
    /* no bf16 flags: fp32, said in the comment and the description */
    T_ASSERT(!strstr(t, "precision: bf16") && strstr(t, "# fp32: this CPU has neither") &&
             strstr(t, "GPU seen, in fp32)"), "cpu without bf16: fp32");
    snprintf(m.cpu_bf16, sizeof m.cpu_bf16, "avx512_bf16");
    t = suite_default_text(a, &m, 0);
    const char *st = strstr(t, "program: stemdl"), *cf = strstr(t, "program: cosmoflow");
    const char *co = strstr(t, "program: collectives");
    T_ASSERT(st && cf && co && strstr(st, "precision: bf16") < cf && strstr(cf, "precision: bf16") < co &&
             !strstr(co, "precision"), "cpu with bf16: stemdl and cosmoflow bf16, collectives not");
    T_ASSERT(strstr(t, "# bf16: this CPU has avx512_bf16 (oneDNN's bf16 kernels)") &&
             strstr(t, "GPU seen, in bf16)"), "cpu with bf16: said why");
    m.gpus = 4;
    t = suite_default_text(a, &m, 0);
    T_ASSERT(strstr(t, "backend: cuda") && !strstr(t, "# bf16: this CPU"), "gpu variant");
    ar_free(a);
}

/* the collectives of the default suite, as loaded on a machine of `cores`
 * cores (or `gpus` GPUs): their scales and repetitions */
static const bench_spec_t *default_collectives(arena_t *a, int cores, int gpus, suite_t *s)
{
    machine_t m = {.cores = cores, .gpus = gpus};
    /* its programs need not be built for this: stemdl (not optional) is /bin/true */
    const char *d = suite_default_text(a, &m, 1), *p = strstr(d, "program: stemdl\n");
    T_ASSERT(p != NULL, "no stemdl entry");
    const char *t = ar_printf(a, "%.*sprogram: /bin/true\n%s", (int)(p - d), d,
                              p + strlen("program: stemdl\n"));
    T_ASSERT(suite_load_text(a, t, strlen(t), "<default>", ".", &m, s, err, sizeof err) == 0,
             "default suite on %d cores, %d GPUs: %s", cores, gpus, err);
    for (size_t i = 0; i < s->nbench; i++)
        if (!strcmp(s->bench[i].name, "collectives")) return &s->bench[i];
    T_ASSERT(0, "no collectives entry");
    return NULL;
}

/* one rank moves nothing (bus bandwidth 0) and one launch is no sample: the
 * default suite's collectives run from 2 ranks up, 3 times */
static void test_default_collectives(void)
{
    arena_t *a = ar_new();
    suite_t s;
    const bench_spec_t *c = default_collectives(a, 2, 0, &s);
    T_ASSERT(c->nscales == 1 && c->scales[0] == 2 && c->repetitions == 3,
             "2 cores: %zu scales from %d, %d repetitions", c->nscales, c->scales[0], c->repetitions);
    c = default_collectives(a, 6, 0, &s);
    T_ASSERT(c->nscales == 3 && c->scales[0] == 2 && c->scales[1] == 4 && c->scales[2] == 6,
             "6 cores: 2, 4, 6 (%zu scales)", c->nscales);
    c = default_collectives(a, 1, 0, &s);
    T_ASSERT(c->nscales == 1 && c->scales[0] == 2 && c->repetitions == 3,
             "1 core: 2 ranks oversubscribed (%zu scales from %d)", c->nscales, c->scales[0]);
    c = default_collectives(a, 8, 4, &s);
    T_ASSERT(c->nscales == 2 && c->scales[0] == 2 && c->scales[1] == 4, "4 GPUs: 2, 4");
    for (size_t i = 0; i < s.nbench; i++)
        T_ASSERT(strcmp(s.bench[i].name, "stemdl") || s.bench[i].scales[0] == 1,
                 "stemdl still starts at 1 rank (its efficiency's base)");
    ar_free(a);
}

/* bf16 flags from recorded /proc/cpuinfo texts */
static void test_cpu_bf16(void)
{
    char out[32];
    const char *spr = "processor\t: 0\nflags\t\t: fpu avx512f amx_bf16 avx512_bf16 amx_tile\n"
                      "processor\t: 1\nflags\t\t: fpu\n";
    machine_cpu_bf16(spr, strlen(spr), out, sizeof out);
    T_ASSERT(!strcmp(out, "avx512_bf16 and amx_bf16"), "both: '%s'", out);
    const char *zen4 = "model name\t: AMD EPYC\nflags\t\t: fpu avx512f avx512_bf16\nbugs\t\t: x\n";
    machine_cpu_bf16(zen4, strlen(zen4), out, sizeof out);
    T_ASSERT(!strcmp(out, "avx512_bf16"), "avx512_bf16 only (last word): '%s'", out);
    const char *amx = "flags\t\t: amx_bf16 amx_tile\n";
    machine_cpu_bf16(amx, strlen(amx), out, sizeof out);
    T_ASSERT(!strcmp(out, "amx_bf16"), "amx only: '%s'", out);
    /* absent: near names, flags on a later cpu's line or outside a flags line */
    const char *none = "flags\t\t: avx512f avx512_bf16x xamx_bf16 avx512_bf1\n"
                       "flags\t\t: avx512_bf16\nvmx flags\t: amx_bf16\n";
    machine_cpu_bf16(none, strlen(none), out, sizeof out);
    T_ASSERT(!strcmp(out, ""), "absent: '%s'", out);
    machine_cpu_bf16(NULL, 0, out, sizeof out);
    T_ASSERT(!strcmp(out, ""), "no file");
    /* the length bounds the scan: the flag past len is not read */
    machine_cpu_bf16(zen4, strlen(zen4) - 20, out, sizeof out);
    T_ASSERT(!strcmp(out, ""), "cut at len: '%s'", out);
    /* 8 MiB of garbage (NULs, no newline) then a real line: linear, no crash */
    size_t n = 8u << 20;
    char *g = malloc(n + 64);
    T_ASSERT(g != NULL, "malloc");
    if (!g) return;
    for (size_t i = 0; i < n; i++) g[i] = (char)(i * 131 % 251);
    memcpy(g + n, "\nflags\t: avx512_bf16\n", 22);
    machine_cpu_bf16(g, n + 22, out, sizeof out);
    T_ASSERT(!strcmp(out, "avx512_bf16"), "garbage, then the flags: '%s'", out);
    memset(g, 'x', n);
    machine_cpu_bf16(g, n, out, sizeof out);
    T_ASSERT(!strcmp(out, ""), "one huge line: '%s'", out);
    free(g);
}

static void test_unknown_keys(void)
{
    bad("name: x\nbenchmark: []\n", 2, 1, "did you mean 'benchmarks'");
    bad("benchmarks:\n  - program: /bin/true\n    sacles: [1]\n", 3, 5, "did you mean 'scales'");
    bad("benchmarks:\n  - program: /bin/true\n    zzzzzzzz: 1\n", 3, 5, "valid keys:");
    bad("benchmarks: [{program: /bin/true}]\nname: a\nname: b\n", 3, 1, "given twice");
}

static void test_bad_values(void)
{
    /* issue 30 D7: names shown on terminals and heading report.md */
    bad("name: \"x\\nVerdict: all checks PASS\"\nbenchmarks: [{program: /bin/true}]\n", 1, 7,
        "control characters");
    bad("machine: \"m\\e]2;pwned\\a\"\nbenchmarks: [{program: /bin/true}]\n", 1, 10,
        "control characters");
    bad("benchmarks: []\n", 1, 13, "empty");
    bad("launcher: mpirn\nbenchmarks: [{program: /bin/true}]\n", 1, 11, "did you mean 'mpirun'");
    bad("launcher: \"go {rank} {cmd}\"\nbenchmarks: [{program: /bin/true}]\n", 1, 11, "placeholder");
    bad("scales: [1, two]\nbenchmarks: [{program: /bin/true}]\n", 1, 13, "integer");
    bad("scales: [0]\nbenchmarks: [{program: /bin/true}]\n", 1, 10, "between 1");
    bad("scales: [2, 2]\nbenchmarks: [{program: /bin/true}]\n", 1, 13, "twice");
    bad("repetitions: 0\nbenchmarks: [{program: /bin/true}]\n", 1, 14, "between 1 and 1000");
    bad("timeout_s: -1\nbenchmarks: [{program: /bin/true}]\n", 1, 12, "out of range");
    bad("scaling: sideways\nbenchmarks: [{program: /bin/true}]\n", 1, 10, "weak, strong or spatial");
    bad("machine: \"\"\nbenchmarks: [{program: /bin/true}]\n", 1, 10, "1 to 100 characters");
    bad("env: {1BAD: x}\nbenchmarks: [{program: /bin/true}]\n", 1, 7, "variable name");
    bad("benchmarks: [{program: /proc/self/exadl-absent/prog}]\n", 1, 24, "not found");
    bad("benchmarks: [{name: a, program: /bin/true}, {name: a, program: /bin/true}]\n", 1, 45,
        "used twice");
    bad("benchmarks: [{program: /bin/true, scaling: strong}]\n", 1, 14, "global_batch");
    bad("benchmarks: [{program: /bin/true, scaling: strong, global_batch: 6, scales: [4]}]\n", 1,
        77, "cannot be split");
    bad("launcher: local\nscales: [1, 2]\nbenchmarks: [{program: /bin/true}]\n", 3, 14,
        "starts one process");
    bad("launcher: local\nbenchmarks: [{program: /bin/true, scales: [1, 4]}]\n", 2, 43,
        "starts one process");
    bad("benchmarks: [{program: /bin/true, config: {steps: {a: 1}}}]\n", 1, 51, "not a mapping");
    bad("references: [no/such/file.yaml]\nbenchmarks: [{program: /bin/true}]\n", 1, 14,
        "not found");
    bad("exadl_suite: 2\nbenchmarks: [{program: /bin/true}]\n", 1, 14, "version 1");
    bad("- just\n- a list\n", 1, 1, "must be a mapping");
}

static void test_bad_yaml(void)
{
    bad("name: [unclosed\nbenchmarks: []\n", 2, 11, "flow sequence");
    bad("a: &x [1, *x]\n", 1, 0, "contains it");
    bad("benchmarks: *nowhere\n", 1, 13, "no anchor");
    /* billion laughs: each level ten times the one before */
    char bomb[4096] = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'j'; c++) {
        char l[128];
        snprintf(l, sizeof l, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c,
                 c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
        strcat(bomb, l);
    }
    arena_t *a = ar_new();
    suite_t s;
    int rc = load(a, bomb, &s);
    ar_free(a);
    T_ASSERT(rc == -1 && strstr(err, "t.yaml:") && strstr(err, "expands to more than"),
             "alias bomb: %s", err);
    bad("", 0, 0, "");
}

static void test_binary_garbage(void)
{
    unsigned char g[600];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof g; i++) {
        x = x * 1103515245u + 12345u;
        g[i] = (unsigned char)(x >> 16);
    }
    g[100] = 0;
    arena_t *a = ar_new();
    suite_t s;
    err[0] = 0;
    int rc = suite_load_text(a, (const char *)g, sizeof g, "t.yaml", ".", &mach, &s, err, sizeof err);
    ar_free(a);
    T_ASSERT(rc == -1, "binary garbage accepted");
    T_ASSERT(!strncmp(err, "t.yaml:", 7), "no position: %s", err);
    int l, c;
    T_ASSERT(sscanf(err, "t.yaml:%d:%d:", &l, &c) == 2 && l >= 1 && c >= 1, "line:col in '%s'", err);
    /* a file with a NUL in the middle of a valid-looking document */
    static const char nul[] = "name: a\0b\nbenchmarks: [{program: /bin/true}]\n";
    a = ar_new();
    rc = suite_load_text(a, nul, sizeof nul - 1, "t.yaml", ".", &mach, &s, err, sizeof err);
    ar_free(a);
    T_ASSERT(rc == -1 && !strncmp(err, "t.yaml:1:", 9), "NUL: %s", err);
}

static void test_file_errors(void)
{
    arena_t *a = ar_new();
    suite_t s;
    int rc = suite_load_file(a, "/proc/self/exadl-absent/suite.yaml", &mach, &s, err, sizeof err);
    ar_free(a);
    T_ASSERT(rc == -1 && strstr(err, "/proc/self/exadl-absent/suite.yaml: cannot open"), "missing file: %s", err);
}

/* issue 30 D5: env and config mappings (and the list of benchmarks) are read
 * in O(n log n): 80,000 entries took 35-55 s when every key was compared with
 * every earlier one.  n entries of each, then 2n: the time at most 3x
 * (about 2 when linear, 4 when quadratic). */
static char *big_text(size_t n, size_t *len)
{
    sb_t b = {0};
    sb_printf(&b, "exadl_suite: 1\nname: big\nscales: [1]\nenv:\n");
    for (size_t i = 0; i < n; i++) sb_printf(&b, "  V%zu: \"%zu\"\n", i, i);
    sb_printf(&b, "benchmarks:\n  - program: /bin/true\n    config:\n");
    for (size_t i = 0; i < n; i++) sb_printf(&b, "      opt%zu: %zu\n", i, i);
    sb_printf(&b, "    env:\n"); /* half replace the suite's values, half are new */
    for (size_t i = n / 2; i < n + n / 2; i++) sb_printf(&b, "      V%zu: b\n", i);
    for (size_t i = 0; i < n / 16; i++) sb_printf(&b, "  - {program: /bin/true, name: b%zu}\n", i);
    *len = b.len;
    return b.s; /* the builder's buffer, now the caller's */
}

static struct {
    size_t n[2], len[2];
    char *text[2];
} big; /* the two suites, written before the clock starts */

static void big_suite(void *ctx, size_t n)
{
    (void)ctx;
    int k = n != big.n[0];
    arena_t *a = ar_new();
    suite_t s;
    int rc = suite_load_text(a, big.text[k], big.len[k], "t.yaml", ".", &mach, &s, err, sizeof err);
    size_t nenv = rc ? 0 : s.bench[0].nenv, nconf = rc ? 0 : s.bench[0].nconfig;
    size_t nb = rc ? 0 : s.nbench;
    const char *v = rc ? NULL : s.bench[0].env[n / 2].value;
    int replaced = v && !strcmp(v, "b"); /* the suite's V(n/2), replaced by the benchmark's */
    ar_free(a);
    T_ASSERT(rc == 0, "the big suite did not load: %s", err);
    T_ASSERT(nenv == n + n / 2 && nconf == n && nb == 1 + n / 16 && replaced,
             "%zu entries: env %zu, config %zu, benchmarks %zu, V%zu replaced %d", n, nenv, nconf,
             nb, n / 2, replaced);
}

static void test_big_maps_linear(void)
{
    size_t n = DOUBLING_N(40000, 32);
    for (int k = 0; k < 2; k++) big.n[k] = n << k, big.text[k] = big_text(n << k, &big.len[k]);
    DOUBLING_CHECK(big_suite, NULL, n, "suite env and config entries");
    free(big.text[0]);
    free(big.text[1]);
}

/* the placeholders of args and config values (suite_vars.h) */
static void test_vars(void)
{
    arena_t *a = ar_new();
    suite_vars_t v = {.run_dir = "/r", .launch_dir = "/r/launches/p-n1-r1"};
    size_t at = 0;
    char why[256];
    T_ASSERT(suite_vars_check("{launch_dir}/c {{x}} }}{run_dir}", &at, why, sizeof why) == 0, "%s", why);
    T_ASSERT(!strcmp(suite_vars_expand(a, "{launch_dir}/c {{x}} }}{run_dir}", &v),
                     "/r/launches/p-n1-r1/c {x} }/r"), "expanded");
    const char *plain = "no braces";
    T_ASSERT(suite_vars_expand(a, plain, &v) == plain, "a value without braces is itself");
    /* a value that holds a placeholder's text is not filled in again */
    suite_vars_t w = {.run_dir = "{launch_dir}", .launch_dir = "x"};
    T_ASSERT(!strcmp(suite_vars_expand(a, "{run_dir}", &w), "{launch_dir}"), "one pass");
    T_ASSERT(suite_vars_check("ab{lanch_dir}", &at, why, sizeof why) && at == 2 &&
                 strstr(why, "unknown placeholder {lanch_dir}"), "unknown at %zu: %s", at, why);
    T_ASSERT(suite_vars_check("a{launch_dir", &at, why, sizeof why) && at == 1 &&
                 strstr(why, "unbalanced '{'"), "open at %zu: %s", at, why);
    T_ASSERT(suite_vars_check("a{b{run_dir}", &at, why, sizeof why) && at == 1, "nested at %zu", at);
    T_ASSERT(suite_vars_check("{{}", &at, why, sizeof why) && at == 2 &&
                 strstr(why, "unbalanced '}'"), "close at %zu: %s", at, why);
    T_ASSERT(suite_vars_check("{\x1b]2;t\a}", &at, why, sizeof why) && !strchr(why, 0x1b),
             "a control character is not shown: %s", why);
    T_ASSERT(suite_vars_uses_launch_dir("a{launch_dir}") && !suite_vars_uses_launch_dir("{{launch_dir}}") &&
                 !suite_vars_uses_launch_dir("{run_dir}"), "uses {launch_dir}");
    ar_free(a);
}

int main(void)
{
    T_RUN(test_vars);
    T_RUN(test_good_suite);
    T_RUN(test_launchers);
    T_RUN(test_auto_scales);
    T_RUN(test_default_suite);
    T_RUN(test_default_collectives);
    T_RUN(test_cpu_bf16);
    T_RUN(test_unknown_keys);
    T_RUN(test_bad_values);
    T_RUN(test_bad_yaml);
    T_RUN(test_binary_garbage);
    T_RUN(test_file_errors);
    T_RUN(test_big_maps_linear);
    T_DONE();
}
