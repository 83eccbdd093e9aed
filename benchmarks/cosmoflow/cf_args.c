#include "benchmarks/cosmoflow/cf_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cosmoflow [OPTIONS]\n"
            "\n"
            "Trains the CosmoFlow 3D CNN (the MLPerf HPC network) on synthetic or file samples\n"
            "for a number of steps, counting the FLOPs of every kernel, and writes a result\n"
            "record.  Under mpirun the ranks form groups of --spatial ranks that split each\n"
            "sample (halo exchange between neighbours); the groups are data-parallel.\n"
            "\n"
            "  --help                 this text\n"
            "  --describe             print the layer table and exact totals; allocate nothing\n"
            "  --sysinfo              print the `system` block a record would hold, and exit\n"
            "  --config FILE          YAML mapping of parameters (keys as below, with _)\n"
            "  --record FILE          write the result record (YAML) to FILE, atomically\n"
            "  --quiet                no progress lines\n"
            "  --dump-weights PATH    after the last step, each rank writes its fp32 weights\n"
            "                         to PATH.<rank>\n"
            "  --write-data FILE      write --samples N synthetic samples (default 4) in the\n"
            "                         raw format --data reads, and exit\n");
    cf_print_help(f);
    fprintf(f,
            "\n"
            "Examples:\n"
            "  cosmoflow --preset cosmo128 --describe\n"
            "  cosmoflow --preset small --steps 10 --record small.yaml\n"
            "  mpirun -np 2 cosmoflow --preset small --spatial 2x1x1 --record s2.yaml\n"
            "  mpirun -np 4 cosmoflow --preset small --spatial 2 --batch 1   (2 groups of 2)\n");
}

static int is_flag(const char *s, const char *name) { return !strcmp(s, name); }
static int is_switch(const char *o)
{
    return is_flag(o, "--describe") || is_flag(o, "--sysinfo") || is_flag(o, "--quiet");
}
static int is_program_option(const char *o)
{
    return is_flag(o, "--preset") || is_flag(o, "--config") || is_flag(o, "--record") ||
           is_flag(o, "--dump-weights") || is_flag(o, "--write-data") || is_flag(o, "--samples");
}

void cf_args_parse(cf_args *a, int argc, char **argv, int rank)
{
    memset(a, 0, sizeof *a);
    a->samples = 4;
    const char *preset = "cosmo128";
    char err[768];
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
            else if (is_flag(o, "--write-data")) a->write_data = v;
            else if (is_flag(o, "--samples")) {
                long long n;
                if (opt_parse_int(v, &n) || n < 1 || n > (1LL << 40))
                    check_usage("--samples: '%s' is not a whole number from 1", v);
                a->samples = n;
            }
        } else {
            check_usage("unexpected argument '%s' (options start with --; see --help)", o);
        }
    }
    if (cf_preset(&a->cfg, preset))
        check_usage("unknown preset '%s' (choose %s)", preset, cf_preset_list());
    if (a->config && cf_load_yaml(&a->cfg, a->config, err, sizeof err)) check_usage("%s", err);
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (is_switch(o)) continue;
        const char *v = argv[++i];
        if (is_program_option(o)) continue;
        int rc = cf_set(&a->cfg, o + 2, v, err, sizeof err);
        if (rc == -2) check_usage("%s", err);
        if (rc) check_usage("--%s", err);
    }
    if (cf_validate(&a->cfg, err, sizeof err)) {
        if (a->config) check_usage("%s (after applying %s and the command line)", err, a->config);
        check_usage("%s", err);
    }
}
