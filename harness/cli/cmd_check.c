/* exadl check RUN [--reference FILE]... */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "harness/checks/failures.h"
#include "harness/cli/cmds.h"
#include "harness/report/check_report.h"
#include "harness/report/results.h"
#include "harness/report/summary.h"
#include "harness/util/esc.h"

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
    "Exit status: 0 when no check failed, 1 when one did, 2 on bad input.\n";

static int cmd_check(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_check, stdout), 0;
    const char *run = NULL, *refs[64];
    size_t nrefs = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--reference")) {
            if (i + 1 >= argc) return usage_error("check", "--reference needs a file");
            if (nrefs == 64) return usage_error("check", "more than 64 reference files");
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
    checks_t ck = {0};
    for (size_t i = 0; i < nfiles; i++) {
        reference_t ref;
        if (reference_load(a, files[i], &ref, err, sizeof err)) {
            fprintf(stderr, "exadl check: error: %s\n", err);
            ar_free(a);
            return 2;
        }
        reference_evaluate(a, &ref, &r.t, &probe, &ck);
    }
    const char *note = checks_unanswered_note(a, &ck, &probe);
    if (note) fprintf(stderr, "exadl check: note: %s\n", note);
    printf("run %s (suite %s, machine %s)\n", esc_term(a, r.name), r.suite ? esc_term(a, r.suite) : "?",
           esc_term(a, r.machine));
    checks_print(stdout, &ck);
    int p, f, na;
    checks_count(&ck, &p, &f, &na);
    printf("checks: %s\n", checks_line(&ck));
    checks_print_failures(stdout, &ck);
    /* the new verdict, to hand over beside the run's own report.md */
    const char *out = path_join(a, r.dir, "report-check.md");
    if (check_report_write(out, &r, &ck, files, nfiles, err, sizeof err))
        fprintf(stderr, "exadl check: warning: %s\n", err);
    else printf("report: %s (verdict %s)\n", out, f ? "FAILED" : "PASSED");
    if (r.launches_failed)
        printf("note: %d of %d launches of this run failed; their numbers are missing\n",
               r.launches_failed, r.launches);
    ar_free(a);
    return f ? 1 : 0;
}

const command_t command_check = {
    .name = "check",
    .run = cmd_check,
    .help = help_check,
    .synopsis = "check RUN",
    .summary = "evaluate reference files: PASS/FAIL per check",
};
