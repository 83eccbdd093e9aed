#include "benchmarks/stemdl/args.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/networks/fcdensenet/validate.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: stemdl [OPTIONS]\n"
            "\n"
            "Trains the STEMDL FC-DenseNet (the 2019 Gordon Bell network family) on synthetic\n"
            "CBED data for a number of steps, counting the FLOPs of every kernel, and writes a\n"
            "result record.  Runs as one process, or under mpirun with data parallelism, and\n"
            "with --spatial N (or HxW) each sample split along H (and W) over groups of\n"
            "N (H x W) ranks, --spatial-plan choosing the levels split (docs/spatial.md).\n"
            "\n"
            "  --help                 this text\n"
            "  --describe             print the layer table and FLOP totals; allocate nothing\n"
            "  --sysinfo              print the `system` block a record would hold, and exit\n"
            "  --check-config         check the options and configuration, run nothing; exit 0,\n"
            "                         or 2 with the error (exadl validate asks this)\n"
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
            "  mpirun -np 4 stemdl --preset tiny --batch 2 --record tiny4.yaml\n"
            "  mpirun -np 4 stemdl --preset tiny --spatial 2 --batch 1   (2 groups of 2 tiles)\n");
}

static int validate(const void *cfg, char *err, size_t errlen)
{
    return cfg_validate(cfg, err, errlen);
}

void args_parse(args_t *a, int argc, char **argv, int rank)
{
    const tprog_cli cli = {.usage = usage, .preset = "small", .keys = cfg_keys(),
                           .validate = validate};
    memset(a, 0, sizeof *a);
    tprog_args_parse(&cli, &a->t, &a->cfg, a, argc, argv, rank);
}
