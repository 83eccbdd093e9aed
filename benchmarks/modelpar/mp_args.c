#include "benchmarks/modelpar/mp_args.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: modelpar [OPTIONS]\n"
            "\n"
            "Trains a stack of three locally connected layers (untied weights: every output\n"
            "position has its own filter) as an autoencoder, with the weights sharded over\n"
            "the tiles of a model group: under mpirun the ranks form model groups of\n"
            "--model-ranks M ranks (a GYxGX grid of tiles of the image), each rank holding\n"
            "and computing its tile of every layer and exchanging halos with its\n"
            "neighbours; the groups are data-parallel replicas (docs/modelparallel.md).\n"
            "\n"
            "  --help                 this text\n"
            "  --describe             print the layers and exact counts; allocate nothing\n"
            "  --ranks N              with --describe: the job's ranks (default model-ranks)\n"
            "  --sysinfo              print the `system` block a record would hold, and exit\n"
            "  --config FILE          YAML mapping of parameters (keys as below, with _)\n"
            "  --record FILE          write the result record (YAML) to FILE, atomically\n"
            "  --quiet                no progress lines\n"
            "  --dump-weights PATH    after the last step, each rank writes its fp32 shard\n"
            "                         to PATH.<rank>\n");
    mp_print_help(f);
    fprintf(f,
            "\n"
            "Exit status: 0 trained and valid; 1 training failed or a deciding check failed;\n"
            "2 bad usage or bad input (one line on stderr).\n"
            "\n"
            "Examples:\n"
            "  modelpar --preset yfcc15b --describe --ranks 128\n"
            "  mpirun -np 4 modelpar --preset tiny --model-ranks 4 --record m4.yaml\n"
            "  mpirun -np 4 modelpar --preset tiny --model-ranks 2 --batch 1   (2 replicas)\n");
}

static int validate(const void *cfg, char *err, size_t errlen)
{
    return mp_validate(cfg, err, errlen);
}

static const char *const own_options[] = {"--ranks", NULL};

static void take_option(void *prog, const char *name, const char *value)
{
    mp_args *a = prog;
    (void)name;
    long long n;
    if (opt_parse_int(value, &n) || n < 1 || n > (1 << 24))
        check_usage("--ranks: '%s' is not a whole number from 1 to %d", value, 1 << 24);
    a->ranks = (int)n;
}

void mp_args_parse(mp_args *a, int argc, char **argv, int rank)
{
    const tprog_cli cli = {.usage = usage, .preset = "tiny", .keys = mp_keys(),
                           .validate = validate, .options = own_options,
                           .option = take_option};
    memset(a, 0, sizeof *a);
    tprog_args_parse(&cli, &a->t, &a->cfg, a, argc, argv, rank);
}

static void write_config(rec_t *w, const void *cfg) { mp_write(cfg, w); }

void mp_rec_fill(tprog_run *run, const mp_args *a)
{
    const mp_cfg *c = &a->cfg;
    run->meta.benchmark = "modelpar";
    run->meta.config = write_config;
    run->meta.config_arg = c;
    if (c->model_ranks > 0)
        snprintf(run->title, sizeof run->title, "%s%s, model ranks %d", c->preset[0] ? "preset " : "custom network", c->preset, c->model_ranks);
    else
        snprintf(run->title, sizeof run->title, "%s%s, model ranks: every rank", c->preset[0] ? "preset " : "custom network", c->preset);
}
