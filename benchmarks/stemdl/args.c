#include "benchmarks/stemdl/args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: stemdl [OPTIONS]\n"
            "\n"
            "Trains the STEMDL FC-DenseNet (the 2019 Gordon Bell network family) on synthetic\n"
            "CBED data for a number of steps, counting the FLOPs of every kernel, and writes a\n"
            "result record.  Runs as one process, or under mpirun with data parallelism.\n"
            "\n"
            "  --help                 this text\n"
            "  --describe             print the layer table and FLOP totals; allocate nothing\n"
            "  --sysinfo              print the `system` block a record would hold, and exit\n"
            "  --config FILE          YAML mapping of parameters (keys as below, with _)\n"
            "  --record FILE          write the result record (YAML) to FILE, atomically\n"
            "  --quiet                no progress lines\n"
            "  --dump-weights PATH    after the last step, each rank writes its fp32 weights\n"
            "                         to PATH.<rank> (for comparing ranks and runs)\n");
    cfg_print_help(f);
    fprintf(f,
            "\n"
            "Examples:\n"
            "  stemdl --preset gb2019 --describe\n"
            "  stemdl --preset small --steps 10 --record small.yaml\n"
            "  mpirun -np 4 stemdl --preset tiny --batch 2 --record tiny4.yaml\n");
}

static int is_flag(const char *s, const char *name) { return !strcmp(s, name); }

void args_parse(args_t *a, int argc, char **argv, int rank)
{
    memset(a, 0, sizeof *a);
    const char *preset = "small";
    char err[768];
    /* first pass: flags, --preset and --config; every option takes one value */
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (is_flag(o, "--help") || is_flag(o, "-h")) {
            if (rank == 0) usage(stdout);
            exit(0);
        } else if (is_flag(o, "--describe")) {
            a->describe = 1;
        } else if (is_flag(o, "--sysinfo")) {
            a->sysinfo = 1;
        } else if (is_flag(o, "--quiet")) {
            a->quiet = 1;
        } else if (strncmp(o, "--", 2) == 0) {
            if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
                check_usage("%s needs a value (see --help)", o);
            const char *v = argv[++i];
            if (is_flag(o, "--preset")) preset = v;
            else if (is_flag(o, "--config")) a->config = v;
            else if (is_flag(o, "--record")) a->record = v;
            else if (is_flag(o, "--dump-weights")) a->dump_weights = v;
        } else {
            check_usage("unexpected argument '%s' (options start with --; see --help)", o);
        }
    }
    if (cfg_preset(&a->cfg, preset))
        check_usage("unknown preset '%s' (choose gb2019, bench256, small or tiny)", preset);
    if (a->config && cfg_load_yaml(&a->cfg, a->config, err, sizeof err)) check_usage("%s", err);
    /* second pass: single parameters override the preset and the file */
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (is_flag(o, "--describe") || is_flag(o, "--sysinfo") || is_flag(o, "--quiet")) continue;
        const char *v = argv[++i];
        if (is_flag(o, "--preset") || is_flag(o, "--config") || is_flag(o, "--record") ||
            is_flag(o, "--dump-weights"))
            continue;
        int rc = cfg_set(&a->cfg, o + 2, v, err, sizeof err);
        if (rc == -2) check_usage("%s", err);
        if (rc) check_usage("--%s", err);
    }
    if (cfg_validate(&a->cfg, err, sizeof err)) {
        if (a->config) check_usage("%s (after applying %s and the command line)", err, a->config);
        check_usage("%s", err);
    }
}
