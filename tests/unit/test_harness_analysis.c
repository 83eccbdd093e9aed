/* Statistics, scaling efficiency and FLOP-rate arithmetic on hand-written
 * records (tests/fixtures/harness/), worked out by hand in the comments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/stats.h"
#include "harness/analysis/metrics.h"
#include "harness/blocks/derive.h"
#include "harness/analysis/peak.h"
#include "tests/unit/tap.h"

#define NEAR(x, y) (fabs((double)(x) - (double)(y)) <= 1e-9 * fabs((double)(y)) + 1e-15)

static char fx[1024];

static const char *fixture(const char *name)
{
    const char *root = getenv("EXADL_ROOT");
    snprintf(fx, sizeof fx, "%s/tests/fixtures/harness/%s", root ? root : ".", name);
    return fx;
}

static void load(arena_t *a, outcome_t *o, const char *bench, int scale, int rep,
                 scaling_kind sk, const char *file)
{
    memset(o, 0, sizeof *o);
    o->bench = bench;
    o->program = "stemdl";
    o->scaling = sk;
    o->scale = scale;
    o->rep = rep;
    o->rec = ar_alloc(a, sizeof *o->rec);
    char err[512];
    if (record_load(a, fixture(file), o->rec, err, sizeof err))
        T_SKIP("fixture %s unreadable (%s); run from the project root or set EXADL_ROOT", file, err);
    o->status = strcmp(o->rec->status, "ok") ? LS_FAILED : LS_OK;
}

static void test_ci_ranks(void)
{
    size_t lo, hi;
    /* n = 20: 1.96 sqrt 20 = 8.765; floor(11.235 / 2) = 5; ceil(1 + 28.765 / 2) = 16 */
    T_ASSERT(stats_ci_ranks(20, &lo, &hi) == 1 && lo == 5 && hi == 16, "n=20: %zu %zu", lo, hi);
    /* n = 100: 1.96 * 10 = 19.6; floor(40.2) = 40; ceil(60.8) = 61 */
    T_ASSERT(stats_ci_ranks(100, &lo, &hi) == 1 && lo == 40 && hi == 61, "n=100: %zu %zu", lo, hi);
    /* n = 6: floor(0.6) = 0 -> 1; ceil(6.4) = 7 -> 6 */
    T_ASSERT(stats_ci_ranks(6, &lo, &hi) == 1 && lo == 1 && hi == 6, "n=6: %zu %zu", lo, hi);
    T_ASSERT(stats_ci_ranks(5, &lo, &hi) == 0 && lo == 1 && hi == 5, "n=5 gives the range");
    double x[20];
    for (int i = 0; i < 20; i++) x[i] = 20 - i; /* 20 .. 1, unsorted order */
    stats_summary_t s;
    stats_summarize(x, 20, &s);
    T_ASSERT(s.median == 10.5 && s.ci_lo == 5 && s.ci_hi == 16 && s.min == 1 && s.max == 20,
             "1..20: median %g CI [%g, %g]", s.median, s.ci_lo, s.ci_hi);
}

/* n=1: r1 steps {1.0 1.1 0.9 1.0 1.2 1.0 0.8} (sum 7) and r2 {2.0 2.0}: pooled 9 samples,
 * sorted .8 .9 1 1 1 1.1 1.2 2 2 -> median 1.0; CI ranks for n=9: 1 and 9 -> [0.8, 2.0].
 * n=2: five steps of 1.25 s. Batch 2 per rank. */
static void weak_and_strong(scaling_kind sk, analysis_t *an, arena_t *a)
{
    outcome_t o[3];
    load(a, &o[0], "stemdl", 1, 1, sk, "stemdl-n1-r1.yaml");
    load(a, &o[1], "stemdl", 2, 1, sk, "stemdl-n2-r1.yaml");
    load(a, &o[2], "stemdl", 1, 2, sk, "stemdl-n1-r2.yaml");
    analysis_run(a, o, 3, 1e12, "test", an);
}

static void test_weak(void)
{
    arena_t *a = ar_new();
    analysis_t an;
    weak_and_strong(SCALING_WEAK, &an, a);
    T_ASSERT(an.nb == 1 && an.b[0].ns == 2, "one benchmark, two scales");
    const sres_t *s1 = &an.b[0].s[0], *s2 = &an.b[0].s[1];
    T_ASSERT(s1->scale == 1 && s1->n == 9 && s1->nok == 2, "pooled 9 samples from 2 launches");
    T_ASSERT(s1->st.median == 1.0 && s1->st.ci_lo == 0.8 && s1->st.ci_hi == 2.0, "n=1 median/CI");
    T_ASSERT(s1->nlm == 2 && s1->launch_median[0] == 1.0 && s1->launch_median[1] == 2.0,
             "per-launch medians kept");
    /* X(1) = 2 / 1.0 = 2; CI [2/2.0, 2/0.8] = [1, 2.5]; X(2) = 4 / 1.25 = 3.2 */
    T_ASSERT(NEAR(s1->thr, 2.0) && NEAR(s1->thr_lo, 1.0) && NEAR(s1->thr_hi, 2.5), "X(1)");
    T_ASSERT(NEAR(s2->thr, 3.2), "X(2) %g", s2->thr);
    /* E(2) = X(2) / (2 X(1)) = 0.8; CI [3.2 / (2 * 2.5), 3.2 / (2 * 1)] = [0.64, 1.6] */
    T_ASSERT(s1->eff == 1 && NEAR(s2->eff, 0.8), "E(2) = %g", s2->eff);
    T_ASSERT(NEAR(s2->eff_lo, 0.64) && NEAR(s2->eff_hi, 1.6), "E CI [%g, %g]", s2->eff_lo, s2->eff_hi);
    /* sustained(1) = 1e12 * 9 / (7 + 4); peak(1) = 1e12 / 0.8; n=2: 2e12 / 1.25 both */
    T_ASSERT(NEAR(s1->sustained, 9e12 / 11) && NEAR(s1->peak, 1.25e12), "FLOP/s at n=1");
    T_ASSERT(NEAR(s2->sustained, 1.6e12) && NEAR(s2->peak, 1.6e12), "FLOP/s at n=2");
    /* convention: 3e11 per sample x 2 samples = 6e11 per step at n=1 */
    T_ASSERT(NEAR(s1->conv_sustained, 6e11 * 9 / 11) && NEAR(s2->conv_peak, 1.2e12 / 1.25),
             "convention FLOP/s");
    /* fraction of a 1e12 FLOP/s device peak: 1.6e12 / 2 devices / 1e12 */
    T_ASSERT(NEAR(s2->frac_peak, 0.8), "fraction of peak %g", s2->frac_peak);
    /* kernels of r1 over 7 steps: conv_fwd 28 calls, 1.4e12 FLOPs, 5 s; adam 7, 1e9, 0.7 s */
    T_ASSERT(s1->nkinds == 2 && !strcmp(s1->kinds[0].kind, "conv_fwd"), "kinds by time");
    T_ASSERT(NEAR(s1->kinds[0].calls, 4) && NEAR(s1->kinds[0].flops, 2e11) &&
                 NEAR(s1->kinds[0].time_s, 5.0 / 7) && NEAR(s1->kinds[1].time_s, 0.1),
             "per step: %g calls %g FLOPs %g s", s1->kinds[0].calls, s1->kinds[0].flops,
             s1->kinds[0].time_s);
    mtable_t t = {0};
    blkctx_t d;
    blocks_analyze(a, NULL, NULL, 0, &an, &d, &t); /* the rows of the grouping only */
    int seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        const metric_t *m = &t.m[i];
        if (m->scale == 2 && !strcmp(m->metric, "sustained_flops_per_device"))
            seen += NEAR(m->value, 0.8e12);
        if (m->scale == 2 && !strcmp(m->metric, "efficiency"))
            seen += NEAR(m->value, 0.8) && NEAR(m->lo, 0.64) && m->better == 1;
        if (!m->scale && !strcmp(m->metric, "conv_weights")) seen += m->value == 13570368;
        if (!m->scale && !strcmp(m->metric, "forward_conv_flops_per_sample"))
            seen += m->value == 1e11 && !strcmp(metric_param(m, "preset"), "tiny");
    }
    T_ASSERT(seen == 4, "metric table rows (%d of 4 found)", seen);
    ar_free(a);
}

static void test_strong(void)
{
    arena_t *a = ar_new();
    analysis_t an;
    weak_and_strong(SCALING_STRONG, &an, a);
    const sres_t *s2 = &an.b[0].s[1];
    /* E(2) = T(1) / (2 T(2)) = 1.0 / 2.5; CI [0.8 / 2.5, 2.0 / 2.5] (n=2 has no spread) */
    T_ASSERT(NEAR(s2->eff, 0.4) && NEAR(s2->eff_lo, 0.32) && NEAR(s2->eff_hi, 0.8),
             "strong E(2) = %g [%g, %g]", s2->eff, s2->eff_lo, s2->eff_hi);
    ar_free(a);
}

static void test_smallest_scale_base(void)
{
    /* without the n=1 launches, n=2 is the base: E(2) = 1 */
    arena_t *a = ar_new();
    outcome_t o[2];
    load(a, &o[0], "stemdl", 2, 1, SCALING_WEAK, "stemdl-n2-r1.yaml");
    load(a, &o[1], "stemdl", 1, 1, SCALING_WEAK, "stemdl-failed.yaml");
    analysis_t an;
    analysis_run(a, o, 2, NAN, NULL, &an);
    const bres_t *b = &an.b[0];
    T_ASSERT(b->nfailed == 1 && b->ns == 2 && b->s[0].nok == 0 && b->s[1].eff == 1,
             "failed launch left out, smallest measured scale is the base");
    T_ASSERT(isnan(b->s[1].frac_peak), "unknown peak gives no fraction");
    ar_free(a);
}

static void test_collectives(void)
{
    arena_t *a = ar_new();
    outcome_t o[1];
    load(a, &o[0], "coll", 2, 1, SCALING_WEAK, "coll-n2.yaml");
    analysis_t an;
    analysis_run(a, o, 1, NAN, NULL, &an);
    const bres_t *b = &an.b[0];
    T_ASSERT(b->nc == 3, "three rows, got %zu", b->nc);
    /* sorted by op: allgather first; the record's factor (n-1)/n = 0.5; 1024 B / 4 us = 0.256 GB/s */
    const cres_t *g = &b->c[0], *r1 = &b->c[1], *r2 = &b->c[2];
    T_ASSERT(!strcmp(g->op, "allgather") && NEAR(g->algbw, 0.256) && NEAR(g->busbw, 0.128) &&
                 NEAR(g->latency_us, 4),
             "allgather algbw %g busbw %g", g->algbw, g->busbw);
    /* allreduce 1024 B: samples 1,1,2,1,1 (x 1e-5) -> median 1e-5 -> 0.1024 GB/s; factor 1 */
    T_ASSERT(r1->bytes == 1024 && r1->st.n == 5 && NEAR(r1->algbw, 0.1024) && NEAR(r1->busbw, 0.1024),
             "allreduce 1 KiB");
    T_ASSERT(g->factor == 0.5 && r1->factor == 1 && r2->factor == 1, "factors of the record");
    mtable_t t = {0};
    blkctx_t d;
    blocks_analyze(a, NULL, o, 1, &an, &d, &t);
    int ok = 0;
    for (size_t i = 0; i < t.n; i++)
        if (!strcmp(t.m[i].metric, "busbw_max_GBps") && !strcmp(metric_param(&t.m[i], "op"), "allreduce"))
            ok = NEAR(t.m[i].value, r2->busbw) && NEAR(r2->busbw, 1.048576);
    T_ASSERT(ok, "busbw_max of allreduce");
    ar_free(a);
}

/* the factors come from the records (busbw_factor), never from the names:
 * allreduce over 4 ranks 1.5, alltoall 0.75, broadcast over 8 ranks 1, and
 * an operation the harness does not know keeps the factor its record gives */
static void test_collective_factors_from_records(void)
{
    arena_t *a = ar_new();
    outcome_t o[2];
    load(a, &o[0], "coll", 4, 1, SCALING_WEAK, "coll-n4.yaml");
    load(a, &o[1], "coll", 8, 1, SCALING_WEAK, "coll-n8.yaml");
    analysis_t an;
    analysis_run(a, o, 2, NAN, NULL, &an);
    const bres_t *b = &an.b[0];
    T_ASSERT(an.nb == 1 && b->nc == 4, "four rows, got %zu", b->nc);
    const cres_t *rows[4] = {NULL};
    const char *ops[4] = {"allreduce", "alltoall", "broadcast", "custom_op"};
    for (size_t i = 0; i < b->nc; i++)
        for (int k = 0; k < 4; k++)
            if (!strcmp(b->c[i].op, ops[k])) rows[k] = &b->c[i];
    T_ASSERT(rows[0] && rows[1] && rows[2] && rows[3], "every operation has its row");
    /* allreduce: 4096 B / 2 us = 2.048 GB/s, x 1.5 */
    T_ASSERT(rows[0]->scale == 4 && NEAR(rows[0]->factor, 1.5) && NEAR(rows[0]->algbw, 2.048) &&
                 NEAR(rows[0]->busbw, 3.072),
             "allreduce n=4: factor %g busbw %g", rows[0]->factor, rows[0]->busbw);
    /* alltoall: 4096 B / 4 us = 1.024 GB/s, x 0.75 */
    T_ASSERT(NEAR(rows[1]->factor, 0.75) && NEAR(rows[1]->busbw, 0.768), "alltoall n=4: %g",
             rows[1]->factor);
    /* broadcast: 8000 B / 1 us = 8 GB/s, x 1 */
    T_ASSERT(rows[2]->scale == 8 && rows[2]->factor == 1 && NEAR(rows[2]->busbw, 8),
             "broadcast n=8: %g", rows[2]->factor);
    /* 1000 B / 1 us = 1 GB/s, x 0.3 as written */
    T_ASSERT(NEAR(rows[3]->factor, 0.3) && NEAR(rows[3]->busbw, 0.3) &&
                 NEAR(rows[3]->busbw_lo, 0.3) && NEAR(rows[3]->busbw_hi, 0.3),
             "custom_op: factor %g busbw %g", rows[3]->factor, rows[3]->busbw);
    ar_free(a);
}

static void test_formatting(void)
{
    char b[64];
    fmt_si(2.15e18, "FLOP/s", b, sizeof b);
    T_ASSERT(!strcmp(b, "2.15 EFLOP/s"), "%s", b);
    fmt_si(77.9e12, "FLOP/s", b, sizeof b);
    T_ASSERT(!strcmp(b, "77.9 TFLOP/s"), "%s", b);
    fmt_si(512, "B", b, sizeof b);
    T_ASSERT(!strcmp(b, "512 B"), "%s", b);
    fmt_si(0.93, "", b, sizeof b);
    T_ASSERT(!strcmp(b, "0.93"), "%s", b);
    fmt_si(NAN, "FLOP/s", b, sizeof b);
    T_ASSERT(!strcmp(b, "n/a"), "%s", b);
    fmt_duration(125, b, sizeof b);
    T_ASSERT(!strcmp(b, "2:05"), "%s", b);
}

static void test_bad_records(void)
{
    char dir[] = "/tmp/exadl-test-XXXXXX";
    T_ASSERT(mkdtemp(dir), "mkdtemp");
    char p[256];
    snprintf(p, sizeof p, "%s/r.yaml", dir);
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"exadl_record: 1\nstatus: ok\ntiming: {step_s: [1, x]}\n", "r.yaml:3:22: expected a finite number"},
        {"exadl_record: 2\nstatus: ok\n", "r.yaml:1:15: record format version 2"},
        {"just: text\n", "not an ExaDL record"},
        {"exadl_record: 1\n", "no status"},
        {"exadl_record: 1\nstatus: ok\nkernels: {a: 1}\n", "r.yaml:3:10: kernels must be a list"},
        {"\x01\x02garbage\xff\n", "r.yaml:1:"},
        /* collective rows carry the factor the benchmark used */
        {"exadl_record: 1\nstatus: ok\nresults:\n  - {op: allreduce, bytes: 8}\n",
         "r.yaml:4:5: results: the allreduce row has no busbw_factor"},
        {"exadl_record: 1\nstatus: ok\nresults:\n  - {op: reduce, bytes: 8, busbw_factor: null}\n",
         "r.yaml:4:5: results: the reduce row has no busbw_factor"},
        {"exadl_record: 1\nstatus: ok\nresults:\n  - {op: reduce, bytes: 8, busbw_factor: -1}\n",
         "r.yaml:4:42: results: busbw_factor must be a number >= 0"},
        {"exadl_record: 1\nstatus: ok\nresults:\n  - {op: reduce, bytes: 8, busbw_factor: .nan}\n",
         "r.yaml:4:42: expected a finite number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        FILE *f = fopen(p, "w");
        fputs(cases[i].text, f);
        fclose(f);
        arena_t *a = ar_new();
        record_t r;
        char err[512] = "";
        int rc = record_load(a, p, &r, err, sizeof err);
        ar_free(a);
        T_ASSERT(rc == -1 && strstr(err, cases[i].want), "case %zu: '%s' lacks '%s'", i, err,
                 cases[i].want);
    }
    unlink(p);
    rmdir(dir);
}

static void test_peak_parse(void)
{
    /* the larger of the all-cores rate per thread and the one-thread rate */
    const char *busy = "isa: avx2+fma\npeak_1thread_flops_per_s: 8.8e+10\nthreads: 2\n"
                       "peak_flops_per_s: 4.6e+10\npeak_per_thread_flops_per_s: 2.3e+10\n";
    T_ASSERT(peak_parse(busy) == 8.8e10, "busy cores: %g", peak_parse(busy));
    const char *quiet = "peak_1thread_flops_per_s: 9.0e+10\nthreads: 2\npeak_flops_per_s: 1.96e+11\n";
    T_ASSERT(NEAR(peak_parse(quiet), 9.8e10), "quiet: all-cores / threads = %g", peak_parse(quiet));
    T_ASSERT(isnan(peak_parse("nothing: 1\n")), "no peak line");
}

/* issue 29: each entry divides by the peak of the precision it ran (bf16 peak
 * 4e12 per core from peak_bf16_1thread, the larger; fp32 2e12); a probe
 * without a usable bf16 peak leaves the bf16 fraction absent, saying why */
static const char *bf16_probe(arena_t *a, const char *out, double *bf16, const char **isa)
{
    probe_t p;
    memset(&p, 0, sizeof p);
    p.has_peak = 1;
    p.peak.output = out;
    const char *src;
    *bf16 = peak_find_bf16(a, &p, 1, "fp32 source", isa, &src);
    return src;
}

static void test_bf16_peak(void)
{
    arena_t *a = ar_new();
    const char *fp32 = "threads: 2\npeak_1thread_flops_per_s: 2.0e+12\n";
    const char *both = "peak_1thread_flops_per_s: 2.0e+12\npeak_bf16_isa: avx512_core_amx\n"
                       "peak_bf16_1thread_flops_per_s: 4.0e+12\npeak_bf16_flops_per_s: 6e12\n"
                       "peak_bf16_per_thread_flops_per_s: 3.0e+12\n";
    T_ASSERT(peak_parse(both) == 2e12 && peak_parse_bf16(both) == 4e12, "fp32 and bf16 apart");
    bf16_peak_t pk;
    const char *src = bf16_probe(a, both, &pk.per_core, &pk.isa);
    pk.source = src;
    T_ASSERT(pk.per_core == 4e12 && pk.isa && !strcmp(pk.isa, "avx512_core_amx"), "bf16 + ISA");
    /* a newer peak_cpu prints both measurements first: the peak lines (their
     * larger) are read, not the instruction loop's or the matmul's */
    const char *two = "peak_bf16_isa: avx512_core_bf16\n"
                      "peak_bf16_instr_1thread_flops_per_s: 8.6e+10\npeak_bf16_instr_flops_per_s: 1.7e+11\n"
                      "peak_bf16_matmul_1thread_flops_per_s: 8.2e+10\npeak_bf16_matmul_flops_per_s: 1.6e+11\n"
                      "peak_bf16_method: instr (the larger)\npeak_bf16_1thread_flops_per_s: 8.6e+10\n"
                      "peak_bf16_flops_per_s: 1.7e+11\npeak_bf16_per_thread_flops_per_s: 8.5e+10\n";
    T_ASSERT(peak_parse_bf16(two) == 8.6e10, "the peak lines of both measurements: %g",
             peak_parse_bf16(two));
    outcome_t o[2];
    load(a, &o[0], "fp", 1, 1, SCALING_WEAK, "stemdl-n1-r1.yaml");
    load(a, &o[1], "bf", 1, 1, SCALING_WEAK, "stemdl-n1-r1.yaml");
    o[1].rec->precision = "bf16";
    analysis_t an;
    analysis_run_core_peak(a, o, 2, peak_parse(both), "test", &pk, &an);
    const sres_t *f = &an.b[0].s[0], *b = &an.b[1].s[0];
    T_ASSERT(an.nb == 2 && f->sustained > 0 && NEAR(f->frac_peak, f->sustained / 2e12),
             "fp32 entry / fp32 peak: %g", f->frac_peak);
    T_ASSERT(NEAR(b->frac_peak, b->sustained / 4e12), "bf16 entry / bf16 peak: %g", b->frac_peak);
    T_ASSERT(an.any_cpu_bf16 && an.b[1].cpu_bf16 && !an.b[0].cpu_bf16, "which entry ran bf16");
    /* peak_cpu found no bf16 unit; an older probe.yaml; bad lines: absent, with why */
    struct { const char *out, *why; } no[] = {
        {"peak_bf16_isa: none\npeak_bf16: none, oneDNN finds neither\n", "peak_bf16_isa: none"},
        {fp32, "no readable peak_bf16_isa line"},
        {"peak_bf16_isa: amx\npeak_bf16_1thread_flops_per_s: garbage\n", "no usable"},
        {"peak_bf16_isa: amx\npeak_bf16_1thread_flops_per_s: -4e12\n"
         "peak_bf16_per_thread_flops_per_s: -1\n", "no usable"},
        {"peak_bf16_isa: amx\npeak_bf16_1thread_flops_per_s: 1e999\n"
         "peak_bf16_per_thread_flops_per_s: nan\n", "no usable"},
        {"peak_bf16_isa:\npeak_bf16_1thread_flops_per_s: 1e12\n", "no readable"},
        {"peak_bf16_isa: <b>|x\npeak_bf16_1thread_flops_per_s: 1e12\n", "no readable"}};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        src = bf16_probe(a, no[i].out, &pk.per_core, &pk.isa);
        pk.source = src;
        T_ASSERT(isnan(pk.per_core) && !pk.isa && strstr(src, no[i].why) && !strchr(src, '\n'),
                 "case %zu: %g '%s'", i, pk.per_core, src);
        analysis_run_core_peak(a, o, 2, 2e12, "test", &pk, &an);
        T_ASSERT(isnan(an.b[1].s[0].frac_peak) && isfinite(an.b[0].s[0].frac_peak),
                 "case %zu: bf16 fraction absent, fp32 kept", i);
    }
    /* a peak the suite gives applies to every entry */
    T_ASSERT(isnan(peak_find_bf16(a, NULL, 0, "given", &pk.isa, &src)) && strstr(src, "given"),
             "no per-core peak: %s", src);
    analysis_run(a, o, 2, 2e12, "given", &an);
    T_ASSERT(NEAR(an.b[1].s[0].frac_peak, an.b[1].s[0].sustained / 2e12), "suite peak for bf16");
    ar_free(a);
}

int main(void)
{
    T_RUN(test_ci_ranks);
    T_RUN(test_weak);
    T_RUN(test_strong);
    T_RUN(test_smallest_scale_base);
    T_RUN(test_collectives);
    T_RUN(test_collective_factors_from_records);
    T_RUN(test_formatting);
    T_RUN(test_bad_records);
    T_RUN(test_peak_parse);
    T_RUN(test_bf16_peak);
    T_DONE();
}
