/* exadl validate | summary | sysinfo | suite | bind | metrics */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/sysinfo.h"
#include "harness/cli/cmds.h"
#include "harness/report/results.h"
#include "harness/report/summary.h"
#include "harness/run/launch.h"
#include "harness/run/launchplan.h"

const char help_validate[] =
    "usage: exadl validate [SUITE.yaml]\n"
    "\n"
    "Check a suite without running anything: YAML syntax, every key (an unknown key\n"
    "gets the nearest valid one suggested), values, programs, reference files.\n"
    "Prints the plan.  Without SUITE the embedded default suite is checked.\n"
    "Exit status 0 when valid, 2 with one line FILE:LINE:COLUMN: problem otherwise.\n";
const char help_summary[] =
    "usage: exadl summary RUN\n\nPrint the summary table of a finished run (a run folder or its "
    "results.yaml).\n";
const char help_sysinfo[] =
    "usage: exadl sysinfo\n"
    "\n"
    "Print the `system:` block a result record of this machine would hold (hosts, CPU,\n"
    "GPU, library versions), as `stemdl --sysinfo` reports it.  Where stemdl is not\n"
    "built, exadl's own view (no library versions but MPI's) is printed instead.\n";
const char help_suite[] =
    "usage: exadl suite [--cpu | --gpu]\n"
    "\n"
    "Print the embedded default suite as fitted to this machine (or as it would be\n"
    "on a machine without or with GPUs), to copy and edit.\n";
const char help_bind[] =
    "usage: exadl bind -- COMMAND [ARG...]\n"
    "\n"
    "Run COMMAND bound to one GPU chosen by the local rank (OMPI_COMM_WORLD_LOCAL_RANK,\n"
    "SLURM_LOCALID, MPI_LOCALRANKID or PMI_LOCAL_RANK): CUDA_VISIBLE_DEVICES becomes\n"
    "the (local rank mod GPUs)-th visible GPU.  `exadl run` puts this in front of\n"
    "each benchmark when GPUs are present (suite key gpu_bind: local_rank).\n";
const char help_metrics[] =
    "usage: exadl metrics\n\nList the metric names results.yaml holds and reference files may "
    "check.\n";

int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--")) return 0;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    }
    return 0;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "exadl %s: error: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* the launcher list comes from harness/launchers/registry.c */
static void print_launchers(void)
{
    arena_t *a = ar_new();
    printf("\n%s", launcher_help(a));
    ar_free(a);
}

int cmd_validate(int argc, char **argv)
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

int cmd_summary(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_summary, stdout), 0;
    if (argc != 1) return usage_error("summary", "give one run folder");
    arena_t *a = ar_new();
    results_t r;
    char err[1024];
    if (results_load(a, argv[0], &r, err, sizeof err)) {
        fprintf(stderr, "exadl summary: error: %s\n", err);
        ar_free(a);
        return 2;
    }
    printf("run %s (suite %s, %s, status %s)\n\n", r.name, r.suite ? r.suite : "?",
           r.started_utc ? r.started_utc : "?", r.status ? r.status : "?");
    summary_print(stdout, &r.t, &r.checks, 0);
    printf("report: %s/report.md\n", r.dir);
    ar_free(a);
    return 0;
}

int cmd_sysinfo(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_sysinfo, stdout), 0;
    if (argc) return usage_error("sysinfo", "takes no arguments");
    arena_t *a = ar_new();
    char *stemdl = path_join(a, exadl_bindir(), "stemdl");
    char *sv[] = {stemdl, "--sysinfo", NULL};
    char why[256] = "not built";
    char *out = path_is_exec(stemdl) ? spawn_capture(sv, 60, why, sizeof why) : NULL;
    if (out && strstr(out, "system:")) {
        fputs(out, stdout);
        free(out);
        ar_free(a);
        return 0;
    }
    free(out);
    fprintf(stderr, "exadl sysinfo: stemdl --sysinfo unavailable (%s); exadl's own view "
                    "follows (library versions other than MPI's unknown)\n", why);
    sysinfo_t si;
    sysinfo_collect(&si);
    char *host = (char *)check_host();
    sysinfo_set_hosts(&si, &host, 1);
    char *mv[] = {"mpirun", "--version", NULL};
    char *mo = spawn_capture(mv, 20, NULL, 0);
    if (mo) {
        mo[strcspn(mo, "\n")] = 0;
        sysinfo_set_version(&si, "mpi", mo);
        free(mo);
    }
    machine_t m;
    machine_detect(&m);
    si.gpu_count = m.gpus;
    char err[256];
    rec_t *w = rec_open("-", err, sizeof err);
    if (!w) return fprintf(stderr, "exadl sysinfo: error: %s\n", err), ar_free(a), 1;
    rec_map_begin(w);
    sysinfo_write(&si, w);
    rec_map_end(w);
    int rc = rec_close(w, err, sizeof err);
    ar_free(a);
    return rc ? 1 : 0;
}

int cmd_suite(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_suite, stdout), 0;
    machine_t m;
    machine_detect(&m);
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--gpu")) m.gpus = m.gpus ? m.gpus : 4;
        else if (!strcmp(argv[i], "--cpu")) m.gpus = 0;
        else return usage_error("suite", "unknown option '%s'", argv[i]);
    }
    arena_t *a = ar_new();
    fputs(suite_default_text(a, &m, geteuid() == 0), stdout);
    ar_free(a);
    return 0;
}

int cmd_bind(int argc, char **argv)
{
    if (argc && !strcmp(argv[0], "--")) argc--, argv++;
    else if (wants_help(argc, argv)) return fputs(help_bind, stdout), 0;
    if (!argc) return usage_error("bind", "no command given (exadl bind -- COMMAND ...)");
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                                       "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "PALS_LOCAL_RANKID",
                                       NULL};
    int lr = -1;
    for (int i = 0; vars[i] && lr < 0; i++)
        if (getenv(vars[i])) lr = atoi(getenv(vars[i]));
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    char list[64][32];
    int n = 0;
    if (cvd && *cvd) {
        for (const char *p = cvd; *p && n < 64;) {
            size_t l = strcspn(p, ",");
            snprintf(list[n++], sizeof list[0], "%.*s", (int)(l < 31 ? l : 31), p);
            p += l + (p[l] == ',');
        }
    } else {
        machine_t m;
        machine_detect(&m);
        for (n = 0; n < m.gpus && n < 64; n++) snprintf(list[n], sizeof list[0], "%d", n);
    }
    if (lr >= 0 && n > 0) {
        setenv("CUDA_VISIBLE_DEVICES", list[lr % n], 1);
        char b[16];
        snprintf(b, sizeof b, "%d", lr);
        setenv("EXADL_LOCAL_RANK", b, 1);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "exadl bind: error: cannot start %s: %s\n", argv[0], check_errno_str());
    return 127;
}

int cmd_metrics(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_metrics, stdout), 0;
    (void)argc;
    printf("%-38s %-10s %-7s %s\n", "metric", "unit", "better", "meaning");
    for (const metric_info_t *m = metric_catalog; m->name; m++)
        printf("%-38s %-10s %-7s %s%s\n", m->name, *m->unit ? m->unit : "-",
               m->better > 0 ? "higher" : m->better < 0 ? "lower" : "-", m->what,
               m->per_scale ? "" : " (per configuration, not per scale)");
    return 0;
}
