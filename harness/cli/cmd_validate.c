/* exadl validate [SUITE.yaml] [--preflight|--no-preflight]: a suite checked
 * and its plan printed; inside a Slurm allocation (or asked) the preflight's
 * 1-rank job under the launcher too */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/checks/refcheck.h"
#include "harness/cli/cmds.h"
#include "harness/cli/run_stages.h"
#include "harness/launchers/launcher.h"
#include "harness/run/confcheck.h"
#include "harness/run/launchplan.h"
#include "harness/run/preflight.h"
#include "harness/run/slurm.h"
#include "harness/workloads/workload.h"

static const char help_validate[] =
    "usage: exadl validate [SUITE.yaml] [--preflight | --no-preflight]\n"
    "\n"
    "Check a suite without running any benchmark: YAML syntax, every key (an unknown\n"
    "key gets the nearest valid one suggested), values, programs, reference files,\n"
    "scales against the Slurm allocation.  Prints the plan.  Without SUITE the\n"
    "embedded default suite is checked.\n"
    "It starts processes (it is not read-only like analyze): each benchmark program\n"
    "of the workload table checks its own configuration, the options of its first\n"
    "launch plus --check-config, and exits at once (`preset: tinyy` or `kernel: fast`\n"
    "fail here with the program's own words); as root with Open MPI's mpirun,\n"
    "`mpirun --version`, to refuse a suite without OMPI_ALLOW_RUN_AS_ROOT and\n"
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM (as `exadl run` does).\n"
    "With launcher srun inside an allocation (or with --preflight for any launcher)\n"
    "it also starts one 1-rank job under the launcher (build/bin/mpiprobe) and says\n"
    "exactly what to set when MPI does not start (e.g. `launcher_mpi: pmix`).\n"
    "Outside an allocation a srun suite gets a warning: it must run inside one.\n"
    "Placeholders in args and config values: {run_dir} and {launch_dir} (the\n"
    "launch's own folder RUN/launches/<id>/); {{ and }} are literal braces; an\n"
    "unknown name or an unbalanced brace is refused with FILE:LINE:COL.  The plan\n"
    "shows them relative to the run folder (docs/harness.md \"Placeholders\").\n"
    "Exit status 0 when valid, 2 with one line FILE:LINE:COLUMN: problem (or the\n"
    "preflight's message) otherwise.\n";

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
    const char *file = NULL;
    int preflight = -1;
    static const cli_opt_t opts[] = {{"--preflight", 0}, {"--no-preflight", 0}, {NULL, 0}};
    for (int i = 0; i < argc; i++) {
        const char *v;
        int k = cli_option("validate", argc, argv, &i, opts, &v);
        if (k == CLI_BAD) return 2;
        if (k >= 0) preflight = k == 0;
        else if (file) return usage_error("validate", "give one suite file (see exadl validate --help)");
        else file = argv[i];
    }
    arena_t *a = ar_new();
    machine_t m;
    machine_detect(&m);
    suite_t s;
    char err[1024];
    int rc;
    if (file) rc = suite_load_file(a, file, &m, &s, err, sizeof err);
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
    sb_t said = {0};
    if (confcheck_suite(a, &s, NULL, 0, &said, err, sizeof err)) {
        fprintf(stderr, "exadl validate: error: %s\n", err);
        sb_free(&said);
        ar_free(a);
        return 2;
    }
    const char *root = run_root_refusal(a, &s);
    if (root) {
        fprintf(stderr, "exadl validate: error: %s: %s\n", s.path, root);
        sb_free(&said);
        ar_free(a);
        return 2;
    }
    slurm_choose_mpi(a, &s);
    launchplan_t p;
    launchplan_build(a, &s, NULL, &p);
    printf("%s: valid suite '%s', launcher %s, %zu benchmark(s), %zu launches\n", s.path, s.name,
           s.launcher->name, s.nbench, p.n);
    if (said.len) fputs(sb_str(&said), stdout);
    sb_free(&said);
    if (s.launcher->job_steps && !m.slurm)
        printf("  warning: launcher %s starts job steps of a Slurm allocation and there is none "
               "here (no SLURM_JOB_ID): `exadl run` must run inside salloc or an sbatch script; "
               "the plan below assumes this machine\n", s.launcher->name);
    if (m.slurm) printf("  Slurm job %s: %s\n", m.slurm_job, m.slurm_error[0] ? m.slurm_error : m.slurm_how);
    if (s.launcher_mpi_source)
        printf("  srun --mpi: %s (%s)\n", s.launcher_mpi ? s.launcher_mpi : "not given",
               s.launcher_mpi_source);
    if (preflight == 1 || (preflight == -1 && s.launcher->job_steps && m.slurm)) {
        preflight_t pf;
        if (preflight_run(a, &s, 120, &pf)) {
            fprintf(stderr, "exadl validate: error: %s\n", pf.message);
            ar_free(a);
            return 2;
        }
        printf("  preflight: 1 rank started on %s in %.1f s: %s\n", pf.hosts ? pf.hosts : "?",
               pf.elapsed_s, pf.command);
    }
    int dev = machine_devices(&m);
    for (size_t i = 0; i < s.nbench; i++) {
        const bench_spec_t *b = &s.bench[i];
        printf("  %s: %s%s, %s scaling, scales", b->name, b->program_path ? b->program_path : b->program,
               b->program_path ? "" : " (not found; optional, will be skipped)", scaling_name(b->scaling));
        for (size_t k = 0; k < b->nscales; k++) printf("%s%d", k ? "," : " ", b->scales[k]);
        printf(", %d repetition(s), timeout %.0f s\n", b->repetitions, b->timeout_s);
        if (b->nscales && b->scales[b->nscales - 1] > dev)
            printf("  note: %s asks for %d ranks; this machine has %d %s\n", b->name,
                   b->scales[b->nscales - 1], dev,
                   m.slurm ? "ranks in its allocation" : m.gpus ? "GPUs" : "cores");
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
