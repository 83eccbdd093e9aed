#include "benchmarks/climate/clargs.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/networks/deepcam/cl_plan.h"
#include "benchmarks/networks/deepcam/cl_split.h"
#include "benchmarks/train/tdataopt.h"

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
            "                         to PATH.<rank>\n"
            "  --val-samples N        synthetic validation split: samples of a seed of their\n"
            "                         own (default 16)\n"
            "  --eval-every N         validation loss every N steps (default 0: none)\n"
            "  --target-loss X        stop when the validation loss is at most X (default 0:\n"
            "                         never; needs --eval-every)\n"
            "  --mllog true|false     :::MLLOG lines (MLPerf HPC's logging format, DeepCAM's\n"
            "                         keys, batchnorm_group_size included) on stdout\n");
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
            "  mpirun -np 4 climate --preset tiny --width 32 --spatial 2x2   # 2 x 2 tiles\n"
            "  climate --preset tiny --steps 20 --eval-every 5 --mllog true\n");
}

/* the fields of the shared options (tdataopt.h) climate takes */
static tdopt_fields fields_of(args_t *a)
{
    return (tdopt_fields){.val_samples = &a->val_samples, .quality = &a->quality};
}

/* The configuration's own checks, the quality options that go together,
 * then whether its layer list splits on the --spatial grid (every map's
 * height and width: cl_split.h).  cfg is the cfg member of an args_t. */
static int validate(const void *cfg, char *err, size_t errlen)
{
    const cl_cfg *c = cfg;
    const args_t *a = (const args_t *)((const char *)cfg - offsetof(args_t, cfg));
    if (cl_cfg_validate(c, err, errlen)) return -1;
    if (a->quality.target_loss > 0 && a->quality.eval_every <= 0) {
        snprintf(err, errlen, "--target-loss needs --eval-every N (the loss it stops on is the "
                 "validation loss)");
        return -1;
    }
    if (a->quality.eval_every > 0 && a->val_samples <= 0) {
        snprintf(err, errlen, "--eval-every needs a validation split: --val-samples N > 0");
        return -1;
    }
    int s[2];
    if (cl_cfg_spatial(c->spatial, s) || s[0] * s[1] <= 1) return 0;
    cl_plan p;
    cl_plan_build(&p, c);
    int rc = cl_split_check(&p, s, c->spatial, err, errlen);
    cl_plan_free(&p);
    return rc;
}

static const char *const own_options[] = {"--val-samples", "--eval-every", "--target-loss",
                                          "--mllog", NULL};

static void take_option(void *prog, const char *name, const char *value)
{
    args_t *a = prog;
    const tdopt_fields f = fields_of(a);
    tdopt_take(&f, name, value);
}

void args_parse(args_t *a, int argc, char **argv, int rank)
{
    const tprog_cli cli = {.usage = usage, .preset = "small", .keys = cl_cfg_keys(),
                           .validate = validate, .options = own_options, .option = take_option};
    memset(a, 0, sizeof *a);
    a->val_samples = 16;
    /* MLPerf HPC's name of the benchmark whose network this is */
    a->quality.benchmark = "deepcam";
    tprog_args_parse(&cli, &a->t, &a->cfg, a, argc, argv, rank);
}
