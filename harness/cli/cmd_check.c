/* exadl check RUN [--reference FILE]... */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/ytree.h"

#include "harness/checks/failures.h"
#include "harness/cli/cmds.h"
#include "harness/report/check_report.h"
#include "harness/report/results.h"
#include "harness/report/summary.h"
#include "harness/util/esc.h"

/* s with control characters as '?' */
static const char *printable(arena_t *a, const char *s)
{
    char *p = ar_strdup(a, s);
    for (char *q = p; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) *q = '?';
    return p;
}

static const char help_check[] =
    "usage: exadl check RUN [--reference FILE]...\n"
    "\n"
    "Evaluate reference files against a finished run (a run folder or its\n"
    "results.yaml) and print PASS, FAIL or N/A per check with the measured value,\n"
    "the expected value and the bound.  Without --reference the reference files the\n"
    "run's suite named (copied into RUN/references/) are used; with it, only the\n"
    "files given.  Bounds are fractions of the expected value (ReFrame style):\n"
    "PASS when value*(1+lower) <= measured <= value*(1+upper); null is open.\n"
    "Acceptance and exact checks with nothing measured FAIL; published checks\n"
    "with nothing comparable are N/A and shown side by side.  FLOP and weight\n"
    "counts of configurations no launch ran come from the `stemdl --describe`\n"
    "answers the run recorded (RUN/probe.yaml); checking starts no program.\n"
    "\n"
    "The failed checks are listed again at the end with measured value, bound and\n"
    "margin, then warnings (a threshold resting on one launch, a CI across the bound).\n"
    "RUN/report-check.md gets the new verdict (failures first, checks grouped); the\n"
    "run's report.md keeps the verdict of the run.\n"
    "\n"
    "Checks of what the run measured are counted apart from the --describe counts\n"
    "of configurations no launch ran (exact references only).  A where that\n"
    "selects nothing this run ran (a preset, scale, benchmark or key it did not\n"
    "run) is a REFERENCE ERROR: the file is wrong, not the machine.  Two reference\n"
    "files with the same name are told apart by their path.\n"
    "\n"
    "A run whose launches failed says so first, with the first one's cause.\n"
    "\n"
    "Exit status: 0 when no check failed, 1 when one did, 2 on bad input: a bad\n"
    "command line, run folder or reference file, or a reference error.\n";

/* "; the first: ID: HOW" of the first failed launch results.yaml lists, or "" */
static const char *first_failed(arena_t *a, const results_t *r)
{
    const ytnode *ls = r->root ? yt_get(r->root, "launches") : NULL;
    for (size_t i = 0; ls && ls->kind == YT_SEQ && i < ls->n; i++) {
        const ytnode *st = yt_get(ls->items[i], "status"), *id = yt_get(ls->items[i], "id");
        const ytnode *how = yt_get(ls->items[i], "how"), *log = yt_get(ls->items[i], "log");
        if (!st || st->kind != YT_SCALAR || strcmp(st->str, "failed")) continue;
        /* text from the run folder reaches the terminal: names only, no control characters */
        return ar_printf(a, "; the first: %s: %s%s%s",
                         id && id->kind == YT_SCALAR ? sanitize_name(a, id->str) : "?",
                         how && how->kind == YT_SCALAR ? printable(a, how->str) : "failed",
                         log && log->kind == YT_SCALAR ? ", its log " : "",
                         log && log->kind == YT_SCALAR ? printable(a, log->str) : "");
    }
    return "";
}

static int cmd_check(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_check, stdout), 0;
    const char *run = NULL, *refs[64];
    size_t nrefs = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--reference")) {
            if (i + 1 >= argc) return usage_error("check", "--reference needs a file");
            if (nrefs == 64) return usage_error("check", "more than 64 reference files");
            for (size_t k = 0; k < nrefs; k++)
                if (!strcmp(refs[k], argv[i + 1]))
                    return usage_error("check", "--reference %s is given twice", argv[i + 1]);
            refs[nrefs++] = argv[++i];
        } else if (argv[i][0] == '-') {
            return usage_error("check", "unknown option '%s' (see exadl check --help)", argv[i]);
        } else if (!run) {
            run = argv[i];
        } else {
            return usage_error("check", "more than one run given ('%s')", argv[i]);
        }
    }
    if (!run) return usage_error("check", "give a run folder (see exadl check --help)");
    arena_t *a = ar_new();
    results_t r;
    char err[1024];
    if (results_load(a, run, &r, err, sizeof err)) {
        fprintf(stderr, "exadl check: error: %s\n", err);
        ar_free(a);
        return 2;
    }
    const char **files = nrefs ? refs : r.references;
    size_t nfiles = nrefs ? nrefs : r.nreferences;
    if (!nfiles) {
        fprintf(stderr, "exadl check: error: the run names no reference files; give "
                        "--reference FILE\n");
        ar_free(a);
        return 2;
    }
    /* describe answers (stemdl --describe) come from the run's probe.yaml:
     * checking starts no process */
    probe_t probe;
    if (probe_read_or_fail(a, r.dir, &probe, "check")) {
        ar_free(a);
        return 2;
    }
    reference_t *loaded = ar_alloc(a, (nfiles + 1) * sizeof *loaded);
    for (size_t i = 0; i < nfiles; i++) {
        if (reference_load(a, files[i], &loaded[i], err, sizeof err)) {
            fprintf(stderr, "exadl check: error: %s\n", err);
            ar_free(a);
            return 2;
        }
    }
    references_label(a, loaded, nfiles); /* two files of one name: told apart by path */
    checks_t ck = {0};
    for (size_t i = 0; i < nfiles; i++) reference_evaluate(a, &loaded[i], &r.t, &probe, &ck);
    const ytnode *sk = yt_get(r.root, "skipped"); /* optional benchmarks not built */
    for (size_t i = 0; sk && sk->kind == YT_SEQ && i < sk->n; i++) {
        const ytnode *n = yt_get(sk->items[i], "benchmark"), *why = yt_get(sk->items[i], "reason");
        if (n && n->kind == YT_SCALAR)
            checks_skipped(a, &ck, n->str, why && why->kind == YT_SCALAR ? printable(a, why->str) : NULL);
    }
    printf("run %s (suite %s, machine %s)\n", esc_term(a, r.name), r.suite ? esc_term(a, r.suite) : "?",
           esc_term(a, r.machine));
    /* the real error first: launches that failed leave their checks nothing to measure */
    if (r.launches_failed)
        printf("failed launches: %d of %d launches of this run failed; the checks of their "
               "numbers fail (why: the run's report.md, \"Failed launches\"%s)\n",
               r.launches_failed, r.launches, first_failed(a, &r));
    checks_print(stdout, &ck);
    ck_tally_t t = checks_tally(&ck);
    printf("%s\n", checks_line(&ck));
    checks_print_failures(stdout, &ck);
    /* the new verdict, to hand over beside the run's own report.md */
    const char *verdict = t.ref_errors ? "REFERENCE ERROR"
                          : (t.fail || t.described_fail) ? "FAILED" : "PASSED";
    const char *out = path_join(a, r.dir, "report-check.md");
    fflush(stdout); /* notes and warnings after what they are about */
    if (check_report_write(out, &r, &ck, files, nfiles, err, sizeof err))
        fprintf(stderr, "exadl check: warning: %s\n", err);
    else printf("report: %s (verdict %s)\n", out, verdict);
    fflush(stdout);
    const char *note = checks_unanswered_note(a, &ck, &probe);
    if (note) fprintf(stderr, "exadl check: note: %s\n", note);
    ar_free(a);
    return t.ref_errors ? 2 : (t.fail || t.described_fail) ? 1 : 0;
}

const command_t command_check = {
    .name = "check",
    .run = cmd_check,
    .help = help_check,
    .synopsis = "check RUN",
    .summary = "evaluate reference files: PASS/FAIL per check",
};
