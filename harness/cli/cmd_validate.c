/* exadl validate [SUITE.yaml]: a suite checked and its plan printed, nothing run */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/checks/refcheck.h"
#include "harness/cli/cmds.h"
#include "harness/launchers/launcher.h"
#include "harness/run/launchplan.h"

static const char help_validate[] =
    "usage: exadl validate [SUITE.yaml]\n"
    "\n"
    "Check a suite without running anything: YAML syntax, every key (an unknown key\n"
    "gets the nearest valid one suggested), values, programs, reference files.\n"
    "Prints the plan.  Without SUITE the embedded default suite is checked.\n"
    "Exit status 0 when valid, 2 with one line FILE:LINE:COLUMN: problem otherwise.\n";

/* the launcher list comes from harness/launchers/registry.c */
static void print_launchers(void)
{
    arena_t *a = ar_new();
    printf("\n%s", launcher_help(a));
    ar_free(a);
}

static int cmd_validate(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_validate, stdout), print_launchers(), 0;
    if (argc > 1 || (argc == 1 && argv[0][0] == '-'))
        return usage_error("validate", "give one suite file (see exadl validate --help)");
    arena_t *a = ar_new();
    machine_t m;
    machine_detect(&m);
    suite_t s;
    char err[1024];
    int rc;
    if (argc == 1) rc = suite_load_file(a, argv[0], &m, &s, err, sizeof err);
    else {
        const char *t = suite_default_text(a, &m, geteuid() == 0);
        rc = suite_load_text(a, t, strlen(t), "<default suite>", exadl_root(), &m, &s, err, sizeof err);
    }
    for (size_t i = 0; !rc && i < s.nreferences; i++) {
        reference_t r;
        rc = reference_load(a, s.references[i], &r, err, sizeof err);
    }
    if (rc) {
        fprintf(stderr, "exadl validate: error: %s\n", err);
        ar_free(a);
        return 2;
    }
    launchplan_t p;
    launchplan_build(a, &s, NULL, &p);
    printf("%s: valid suite '%s', launcher %s, %zu benchmark(s), %zu launches\n", s.path, s.name,
           s.launcher->name, s.nbench, p.n);
    int dev = machine_devices(&m);
    for (size_t i = 0; i < s.nbench; i++) {
        const bench_spec_t *b = &s.bench[i];
        printf("  %s: %s%s, %s scaling, scales", b->name, b->program_path ? b->program_path : b->program,
               b->program_path ? "" : " (not found; optional, will be skipped)", scaling_name(b->scaling));
        for (size_t k = 0; k < b->nscales; k++) printf("%s%d", k ? "," : " ", b->scales[k]);
        printf(", %d repetition(s), timeout %.0f s\n", b->repetitions, b->timeout_s);
        if (b->nscales && b->scales[b->nscales - 1] > dev)
            printf("  note: %s asks for %d ranks; this machine has %d %s\n", b->name,
                   b->scales[b->nscales - 1], dev, m.gpus ? "GPUs" : "cores");
    }
    for (size_t i = 0; i < s.nreferences; i++) printf("  reference %s\n", s.references[i]);
    for (size_t i = 0; i < p.n; i++) printf("  %s: %s\n", p.l[i].id, argv_join(a, p.l[i].argv));
    ar_free(a);
    return 0;
}

const command_t command_validate = {
    .name = "validate",
    .run = cmd_validate,
    .help = help_validate,
    .synopsis = "validate [SUITE.yaml]",
    .summary = "check a suite without running it; print the plan",
};
