#include "benchmarks/climate/clargs.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/networks/deepcam/cl_plan.h"
#include "benchmarks/networks/deepcam/cl_split.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: climate [OPTIONS]\n"
            "\n"
            "Trains DeepLabv3+ as MLPerf HPC's DeepCAM defines it (the network family of the\n"
            "2018 Gordon Bell climate segmentation, Kurth et al., SC18) on synthetic climate\n"
            "fields with cyclone and river masks, counting the FLOPs of every kernel, and\n"
            "writes a result record.  Runs as one process, or under mpirun with data\n"
            "parallelism; batch norm uses each rank's own statistics (--bn local, DeepCAM's\n"
            "default) or those of a group of ranks (--bn sync [--bn-group G]: sums of x and\n"
            "x^2, then of dy and dy xhat, allreduced in double; cpu backend).  --spatial HxW\n"
            "splits each sample into an H x W grid of tiles over groups of H W ranks (N alone\n"
            "is N x 1, along H; halo exchanges, batch norm and the image pool summed over the\n"
            "group; docs/spatial.md).\n"
            "\n"
            "  --help                 this text\n"
            "  --describe             print the layer table and exact counts per sample;\n"
            "                         allocate nothing\n"
            "  --sysinfo              print the `system` block a record would hold, and exit\n"
            "  --check-config         check the options and configuration, run nothing\n"
            "  --config FILE          YAML mapping of parameters (keys as below, with _)\n"
            "  --record FILE          write the result record (YAML) to FILE, atomically\n"
            "  --quiet                no progress lines\n"
            "  --dump-weights PATH    after the last step, each rank writes its fp32 weights\n"
            "                         to PATH.<rank>\n");
    cl_cfg_print_help(f);
    fprintf(f,
            "\n"
            "Exit codes: 0 done (or --help, --describe, --check-config answered); 1 training\n"
            "failed or a deciding check failed (weights differ across ranks, a loss or weight\n"
            "not finite); 2 bad input (option, value, configuration file).\n"
            "\n"
            "Examples:\n"
            "  climate --preset deepcam --describe\n"
            "  climate --preset small --steps 20 --record small.yaml\n"
            "  mpirun -np 2 climate --preset small --batch 2\n"
            "  mpirun -np 2 climate --preset small --batch 2 --bn sync   # = 1 rank of batch 4\n"
            "  mpirun -np 2 climate --preset tiny --spatial 2   # each sample split in 2 along H\n"
            "  mpirun -np 4 climate --preset tiny --spatial 2 --batch 1 --bn sync  # 2 groups x 2\n"
            "  mpirun -np 4 climate --preset tiny --width 32 --spatial 2x2   # 2 x 2 tiles\n");
}

/* The configuration's own checks, then whether its layer list splits
 * on the --spatial grid (every map's height and width: cl_split.h). */
static int validate(const void *cfg, char *err, size_t errlen)
{
    const cl_cfg *c = cfg;
    if (cl_cfg_validate(c, err, errlen)) return -1;
    int s[2];
    if (cl_cfg_spatial(c->spatial, s) || s[0] * s[1] <= 1) return 0;
    cl_plan p;
    cl_plan_build(&p, c);
    int rc = cl_split_check(&p, s, c->spatial, err, errlen);
    cl_plan_free(&p);
    return rc;
}

void args_parse(args_t *a, int argc, char **argv, int rank)
{
    const tprog_cli cli = {.usage = usage, .preset = "small", .keys = cl_cfg_keys(),
                           .validate = validate};
    memset(a, 0, sizeof *a);
    tprog_args_parse(&cli, &a->t, &a->cfg, a, argc, argv, rank);
}
