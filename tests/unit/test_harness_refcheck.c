/* Reference files: read (good and bad), evaluated against a metric table
 * from hand-written records: PASS, a planted miss that FAILs, N/A for
 * published numbers nothing comparable was measured for, and FLOP counts
 * answered by `stemdl --describe` (answers recorded as the probe stage
 * records them; a missing answer: the check says so). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/blocks/derive.h"
#include "harness/checks/refcheck.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/exadl-ref-XXXXXX";
static char err[1024];

static const char *root(void)
{
    const char *r = getenv("EXADL_ROOT");
    return r ? r : ".";
}

static char *put(const char *name, const char *text)
{
    static char p[4][512];
    static int k;
    char *path = p[k++ % 4];
    snprintf(path, 512, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static void table(arena_t *a, mtable_t *t)
{
    outcome_t o[2];
    const char *files[] = {"stemdl-n1-r1.yaml", "stemdl-n2-r1.yaml"};
    for (int i = 0; i < 2; i++) {
        memset(&o[i], 0, sizeof o[i]);
        o[i].bench = "stemdl";
        o[i].program = "stemdl";
        o[i].scale = i + 1;
        o[i].status = LS_OK;
        o[i].rec = ar_alloc(a, sizeof *o[i].rec);
        char p[1024];
        snprintf(p, sizeof p, "%s/tests/fixtures/harness/%s", root(), files[i]);
        if (record_load(a, p, o[i].rec, err, sizeof err)) T_SKIP("fixture: %s", err);
    }
    analysis_t an;
    analysis_run(a, o, 2, NAN, NULL, &an);
    memset(t, 0, sizeof *t);
    blkctx_t d;
    blocks_analyze(a, NULL, o, 2, &an, &d, t);
}

static void test_shipped_references(void)
{
    const char *names[] = {"stemdl-exact.yaml", "summit-2019.yaml", "example-acceptance.yaml"};
    for (int i = 0; i < 3; i++) {
        arena_t *a = ar_new();
        reference_t r;
        char p[1024];
        snprintf(p, sizeof p, "%s/reference/%s", root(), names[i]);
        int rc = reference_load(a, p, &r, err, sizeof err);
        size_t n = r.n;
        ar_free(a);
        T_ASSERT(rc == 0, "%s: %s", names[i], err);
        T_ASSERT(n >= 5, "%s has %zu checks", names[i], n);
    }
}

static void bad(const char *text, const char *want)
{
    arena_t *a = ar_new();
    reference_t r;
    err[0] = 0;
    int rc = reference_load(a, put("bad.yaml", text), &r, err, sizeof err);
    ar_free(a);
    T_ASSERT(rc == -1 && strstr(err, want), "'%s' lacks '%s'", err, want);
    T_ASSERT(strstr(err, "bad.yaml:"), "no file name in '%s'", err);
}

static void test_bad_references(void)
{
    const char *head = "exadl_reference: 1\nkind: acceptance\nchecks:\n";
    char t[512];
    snprintf(t, sizeof t, "%s  - {metric: eficiency, value: 1, lower: 0, upper: 0}\n", head);
    bad(t, "bad.yaml:4:14: unknown metric 'eficiency' (did you mean 'efficiency'?)");
    snprintf(t, sizeof t, "%s  - {metric: efficiency, value: 1, upper: 0}\n", head);
    bad(t, "bad.yaml:4:5: a check needs lower:");
    snprintf(t, sizeof t, "%s  - {metric: efficiency, value: 1, lower: 0.1, upper: -0.1}\n", head);
    bad(t, "lower (0.1) is above upper (-0.1)");
    snprintf(t, sizeof t, "%s  - {metric: efficiency, value: high, lower: 0, upper: 0}\n", head);
    bad(t, "bad.yaml:4:33: expected a finite number");
    snprintf(t, sizeof t, "%s  - {metric: efficiency, valeu: 1, lower: 0, upper: 0}\n", head);
    bad(t, "did you mean 'value'");
    bad("exadl_reference: 1\nkind: acceptence\nchecks: []\n", "bad.yaml:2:7: unknown kind 'acceptence' (did you mean 'acceptance'?)");
    bad("kind: exact\nchecks: []\n", "no exadl_reference");
    bad("exadl_reference: 1\nkind: exact\n", "no checks");
    bad("a: &a [*a]\n", "contains it");
}

static const char accept[] =
    "exadl_reference: 1\nname: acc\nkind: acceptance\nchecks:\n"
    "  - {metric: efficiency, where: {benchmark: stemdl, scale: 2}, value: 0.8, lower: -0.05, upper: null}\n"
    "  - {metric: efficiency, where: {benchmark: stemdl, scale: 2}, value: 0.9, lower: -0.05, upper: null}\n"
    "  - {metric: sustained_flops_per_device, where: {benchmark: stemdl}, value: 1.0e12, lower: -0.5, upper: 0.5}\n"
    "  - {metric: step_time_s, where: {scale: smallest}, value: 1.0, lower: -0.1, upper: 0.1}\n"
    "  - {metric: throughput_samples_per_s, where: {preset: small}, value: 1, lower: -0.5, upper: null}\n"
    "  - {metric: forward_conv_flops_per_sample, where: {preset: tiny}, value: 1.0e11, lower: 0, upper: 0}\n";

static void test_acceptance(void)
{
    arena_t *a = ar_new();
    mtable_t t;
    table(a, &t);
    reference_t r;
    int rc = reference_load(a, put("acc.yaml", accept), &r, err, sizeof err);
    if (rc) ar_free(a);
    T_ASSERT(rc == 0, "%s", err);
    checks_t ck = {0};
    reference_evaluate(a, &r, &t, NULL, &ck);
    /* preset small on a run of tiny: the reference's mistake, not the machine's */
    ck_outcome want[] = {CK_PASS, CK_FAIL, CK_PASS, CK_PASS, CK_ERROR, CK_PASS};
    int ok = ck.n == 6;
    for (size_t i = 0; ok && i < 6; i++) ok = ck.c[i].outcome == want[i];
    char got[64] = "";
    for (size_t i = 0; i < ck.n && i < 16; i++) strcat(got, ck_name(ck.c[i].outcome)), strcat(got, " ");
    check_t c1 = ck.n > 1 ? ck.c[1] : (check_t){0}, c2 = ck.n > 2 ? ck.c[2] : (check_t){0};
    check_t c3 = ck.n > 3 ? ck.c[3] : (check_t){0};
    ar_free(a);
    T_ASSERT(ok, "outcomes: %s", got);
    /* the planted miss: 0.8 measured, 0.9 expected, bound [0.855, inf) */
    T_ASSERT(fabs(c1.measured - 0.8) < 1e-12 && fabs(c1.lo - 0.855) < 1e-12 && isnan(c1.hi) &&
                 c1.scale == 2,
             "planted miss: measured %g, bound [%g, %g]", c1.measured, c1.lo, c1.hi);
    T_ASSERT(c2.scale == 2 && fabs(c2.measured - 0.8e12) < 1, "no scale: the largest (%d)", c2.scale);
    T_ASSERT(c3.scale == 1, "scale: smallest -> 1 (%d)", c3.scale);
}

static void test_published_and_describe(void)
{
    arena_t *a = ar_new();
    mtable_t t;
    table(a, &t);
    char sum[1024];
    snprintf(sum, sizeof sum, "%s/reference/summit-2019.yaml", root());
    reference_t r;
    T_ASSERT(reference_load(a, sum, &r, err, sizeof err) == 0, "%s", err);
    checks_t ck = {0};
    reference_evaluate(a, &r, &t, NULL, &ck);
    int na = 0, detail = 0;
    for (size_t i = 0; i < ck.n; i++) {
        na += ck.c[i].outcome == CK_NA;
        detail += ck.c[i].detail && strstr(ck.c[i].detail, "this run has") != NULL;
    }
    T_ASSERT(na == (int)ck.n && detail >= 3, "published, nothing comparable: %d N/A, %d side by side",
             na, detail);
    /* exact counts of gb2019 from a recorded --describe answer; bench256's
     * describe failed when the run asked it */
    char ex[1024];
    snprintf(ex, sizeof ex, "%s/reference/stemdl-exact.yaml", root());
    T_ASSERT(reference_load(a, ex, &r, err, sizeof err) == 0, "%s", err);
    probe_t probe = {.path = "RUN/probe.yaml"};
    size_t asked = 0;
    for (size_t i = 0; i < r.n; i++) {
        describe_q_t q;
        const char *why;
        if (reference_describe_question(a, &r.c[i], &q, &why) != 1) continue;
        asked++;
        int gb = q.nargs == 3 && !strcmp(q.args[0], "--describe") &&
                 !strcmp(q.args[1], "--preset") && !strcmp(q.args[2], "gb2019");
        probe_put(a, &probe, q.program, q.args, q.nargs,
                  gb ? "layer table ...\n"
                       "forward_conv_flops_per_sample  17169802854400  (17.17 TFLOP)\n"
                       "conv_weights  220398848\n"
                     : NULL,
                  "stemdl --describe failed: exit status 3");
    }
    checks_t ck2 = {0};
    reference_evaluate(a, &r, &t, &probe, &ck2);
    int pass = 0, fail = 0;
    for (size_t i = 0; i < ck2.n; i++) {
        if (strstr(ck2.c[i].where, "gb2019")) pass += ck2.c[i].outcome == CK_PASS;
        else fail += ck2.c[i].outcome == CK_FAIL; /* bench256: its describe failed */
    }
    char src[64]; /* the source lives in the arena */
    snprintf(src, sizeof src, "%s", ck2.n ? ck2.c[0].source : "");
    /* nothing recorded (a folder without probe.yaml): not evaluated, and why */
    probe_t none = {.path = "RUN/probe.yaml", .missing = 1};
    checks_t ck3 = {0};
    reference_evaluate(a, &r, &t, &none, &ck3);
    int said = 0;
    for (size_t i = 0; i < ck3.n; i++)
        said += ck3.c[i].outcome == CK_NA && ck3.c[i].detail &&
                !strncmp(ck3.c[i].detail, "not evaluated: RUN/probe.yaml is missing", 40);
    const char *note = checks_unanswered_note(a, &ck3, &none);
    char notes[256];
    snprintf(notes, sizeof notes, "%s", note ? note : "(none)");
    int quiet = checks_unanswered_note(a, &ck2, &probe) == NULL;
    ar_free(a);
    T_ASSERT(asked == 6, "6 describe questions (%zu)", asked);
    T_ASSERT(pass == 3 && fail == 3, "gb2019 via --describe: %d pass; bench256: %d fail", pass, fail);
    T_ASSERT(!strcmp(src, "stemdl --describe"), "source %s", src);
    T_ASSERT(said == 6, "missing answers: %d of 6 checks say not evaluated", said);
    T_ASSERT(!strcmp(notes, "6 checks not evaluated: RUN/probe.yaml is missing (no recorded "
                            "describe answers)"), "note: %s", notes);
    T_ASSERT(quiet, "every answer recorded: no note");
}

/* an acceptance check of a configuration this run did not run is a reference
 * error even where a --describe answer for it was recorded (issue 27: a
 * preset=small check passed on a run of tiny); the exact reference's counts
 * are counted apart from the checks of what ran; two files of one name are
 * told apart by path */
static void test_what_was_checked(void)
{
    arena_t *a = ar_new();
    mtable_t t;
    table(a, &t);
    const char *acc = put("acc1.yaml",
        "exadl_reference: 1\nname: acc\nkind: acceptance\nchecks:\n"
        "  - {metric: forward_conv_flops_per_sample, where: {benchmark: stemdl, preset: small}, value: 1.0e9, lower: 0, upper: 0}\n"
        "  - {metric: step_time_s, where: {benchmark: stemdl, scale: 4}, value: 1, lower: null, upper: 0}\n"
        "  - {metric: step_time_s, where: {benchmark: stemdl, scale: 1}, value: 100, lower: null, upper: 0}\n");
    const char *ex = put("acc2.yaml",
        "exadl_reference: 1\nname: acc\nkind: exact\nchecks:\n"
        "  - {metric: forward_conv_flops_per_sample, where: {benchmark: stemdl, preset: small}, value: 1.0e9, lower: 0, upper: 0}\n");
    reference_t r[2];
    int rc = reference_load(a, acc, &r[0], err, sizeof err) || reference_load(a, ex, &r[1], err, sizeof err);
    if (rc) ar_free(a);
    T_ASSERT(!rc, "%s", err);
    describe_q_t q;
    const char *why;
    int asks_acc = reference_describe_question(a, &r[0].c[0], &q, &why);
    T_ASSERT(reference_describe_question(a, &r[1].c[0], &q, &why) == 1, "the exact check asks --describe");
    probe_t probe = {.path = "RUN/probe.yaml"};
    probe_put(a, &probe, q.program, q.args, q.nargs, "forward_conv_flops_per_sample 1000000000\n", NULL);
    references_label(a, r, 2);
    checks_t ck = {0};
    reference_evaluate(a, &r[0], &t, &probe, &ck);
    reference_evaluate(a, &r[1], &t, &probe, &ck);
    ck_tally_t tl = checks_tally(&ck);
    char line[256], d0[256] = "", d1[256] = "", l0[256] = "", l1[256] = "";
    checks_tally_text(&tl, line, sizeof line);
    if (ck.n == 4) {
        snprintf(d0, sizeof d0, "%s", ck.c[0].detail ? ck.c[0].detail : "");
        snprintf(d1, sizeof d1, "%s", ck.c[1].detail ? ck.c[1].detail : "");
        snprintf(l0, sizeof l0, "%s", ck.c[0].reference);
        snprintf(l1, sizeof l1, "%s", ck.c[3].reference);
    }
    ck_outcome o[4] = {CK_NA, CK_NA, CK_NA, CK_NA};
    for (size_t i = 0; i < ck.n && i < 4; i++) o[i] = ck.c[i].outcome;
    ar_free(a);
    T_ASSERT(asks_acc == 0, "an acceptance check asks no --describe question");
    T_ASSERT(o[0] == CK_ERROR && strstr(d0, "reference error: where preset=small"), "preset small: %s (%s)",
             ck_name(o[0]), d0);
    T_ASSERT(o[1] == CK_ERROR && strstr(d1, "where scale=4 matches nothing this run ran"),
             "scale 4: %s (%s)", ck_name(o[1]), d1);
    T_ASSERT(o[2] == CK_PASS && o[3] == CK_PASS, "the run's check and the exact count pass");
    T_ASSERT(tl.pass == 1 && tl.described_pass == 1 && tl.ref_errors == 2 && tl.fail == 0,
             "tally %d %d %d %d", tl.pass, tl.described_pass, tl.ref_errors, tl.fail);
    T_ASSERT(!strcmp(line, "checks of this run: 1 passed, 0 failed; counts of configurations not "
                           "run (--describe): 1 passed, 0 failed; 2 reference errors"), "%s", line);
    T_ASSERT(strstr(l0, "acc (") && strstr(l0, "acc1.yaml)") && strstr(l1, "acc2.yaml)"),
             "labels '%s' '%s'", l0, l1);
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    T_RUN(test_shipped_references);
    T_RUN(test_bad_references);
    T_RUN(test_acceptance);
    T_RUN(test_published_and_describe);
    T_RUN(test_what_was_checked);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) return 1;
    T_DONE();
}
