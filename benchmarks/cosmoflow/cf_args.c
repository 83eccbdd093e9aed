#include "benchmarks/cosmoflow/cf_args.h"

#include <stdio.h>
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
            "  --check-config         check the options and configuration, run nothing; exit 0,\n"
            "                         or 2 with the error (exadl validate asks this)\n"
            "  --config FILE          YAML mapping of parameters (keys as below, with _)\n"
            "  --record FILE          write the result record (YAML) to FILE, atomically\n"
            "  --quiet                no progress lines\n"
            "  --dump-weights PATH    after the last step, each rank writes its fp32 weights\n"
            "                         to PATH.<rank>\n"
            "  --write-data FILE      write --samples N synthetic samples (default 4) in the\n"
            "                         raw format --data reads, and exit\n"
            "  --network unet3d       the 3D U-Net instead, with its own options\n"
            "                         (cosmoflow --network unet3d --help)\n");
    cf_print_help(f);
    fprintf(f,
            "\n"
            "Examples:\n"
            "  cosmoflow --preset cosmo128 --describe\n"
            "  cosmoflow --preset small --steps 10 --record small.yaml\n"
            "  mpirun -np 2 cosmoflow --preset small --spatial 2x1x1 --record s2.yaml\n"
            "  mpirun -np 4 cosmoflow --preset small --spatial 2 --batch 1   (2 groups of 2)\n");
}

static int validate(const void *cfg, char *err, size_t errlen)
{
    return cf_validate(cfg, err, errlen);
}

static const char *const own_options[] = {"--write-data", "--samples", NULL};

static void take_option(void *prog, const char *name, const char *value)
{
    cf_args *a = prog;
    if (!strcmp(name, "--write-data")) {
        a->write_data = value;
    } else {
        long long n;
        if (opt_parse_int(value, &n) || n < 1 || n > (1LL << 40))
            check_usage("--samples: '%s' is not a whole number from 1", value);
        a->samples = n;
    }
}

void cf_args_parse(cf_args *a, int argc, char **argv, int rank)
{
    const tprog_cli cli = {.usage = usage, .preset = "cosmo128", .keys = cf_keys(),
                           .validate = validate, .options = own_options,
                           .option = take_option};
    memset(a, 0, sizeof *a);
    a->samples = 4;
    tprog_args_parse(&cli, &a->t, &a->cfg, a, argc, argv, rank);
}
