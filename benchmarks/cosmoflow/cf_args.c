#include "benchmarks/cosmoflow/cf_args.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/train/tdataopt.h"

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
            "\n"
            "Data sets and time to train (docs/data.md):\n"
            "  --make-data DIR        write a data set of --samples N train and --val-samples M\n"
            "                         validation samples as shards and a manifest, and exit;\n"
            "                         --data grf: the learnable GRF set, else the synthetic one\n"
            "  --format raw|hdf5      shard encoding (default hdf5 where built with HDF5, else raw)\n"
            "  --shard-samples N      samples per shard (default 16)\n"
            "  --val-samples N        validation samples (default 0; --data grf in memory too)\n"
            "  --data files:DIR       (the data key) train on the set in DIR; --data grf: the same\n"
            "                         GRF samples made in memory (--samples, --val-samples)\n"
            "  --make-missing true    with --data files:DIR: rank 0 first writes the GRF set\n"
            "                         (--samples, --val-samples, --format) when DIR has none\n"
            "  --stage DIR            with --data files:SRC: the first rank of each node copies\n"
            "                         the set to DIR (node-local storage) before training\n"
            "  --verify false         skip each sample's CRC check (default true; a rank reading\n"
            "                         a sub-volume cannot check it)\n"
            "  --shuffle global|local|none  per-epoch order (default global; local: each group\n"
            "                         its own shards)\n");
    tdopt_print_feed_help(f);
    fprintf(f,
            "  --eval-every N         validation loss every N steps (default 0: none)\n"
            "  --target-loss X        stop when the validation loss is at most X (default 0: never)\n"
            "  --mllog true|false     :::MLLOG lines (MLPerf's logging format) on stdout\n");
    tdopt_print_help(f);
    fprintf(f,
            "  --network unet3d       the 3D U-Net instead, with its own options\n"
            "                         (cosmoflow --network unet3d --help)\n"
            "\n"
            "Exit status: 0 ok; 1 the run failed or a deciding check failed (a checkpoint that\n"
            "cannot be written, a corrupt checkpoint file); 2 bad input (an option, a\n"
            "configuration, a data set refused: file and sample named; --read-only without\n"
            "--data files:DIR; --checkpoint-every without --checkpoint-dir; --restore of a\n"
            "checkpoint of another rank count or preset).\n");
    cf_print_help(f);
    fprintf(f,
            "\n"
            "Examples:\n"
            "  cosmoflow --preset cosmo128 --describe\n"
            "  cosmoflow --preset small --steps 10 --record small.yaml\n"
            "  mpirun -np 2 cosmoflow --preset small --spatial 2x1x1 --record s2.yaml\n"
            "  mpirun -np 4 cosmoflow --preset small --spatial 2 --batch 1   (2 groups of 2)\n");
}

/* The configuration's check, then the program's options that go together
 * (tprog parses those first, so --check-config sees them too): cfg is the
 * cfg member of a cf_args (cf_args_parse passes &a->cfg). */
/* the fields of the shared options (tdataopt.h) in a */
static tdopt_fields fields_of(cf_args *a)
{
    return (tdopt_fields){.make_data = &a->make_data, .format = &a->format, .stage = &a->stage,
                          .samples = &a->samples, .val_samples = &a->val_samples,
                          .shard_samples = &a->shard_samples, .make_missing = &a->make_missing,
                          .feed = &a->feed, .quality = &a->quality, .read_only = &a->read_only,
                          .ckpt = &a->ckpt};
}

/* The configuration's check, then the program's options that go together
 * (tprog parses those first, so --check-config sees them too): cfg is the
 * cfg member of a cf_args (cf_args_parse passes &a->cfg). */
static int validate(const void *cfg, char *err, size_t errlen)
{
    cf_args *a = (cf_args *)((const char *)cfg - offsetof(cf_args, cfg));
    if (cf_validate(cfg, err, errlen)) return -1;
    const tdopt_fields f = fields_of(a);
    return tdopt_check(&f, a->cfg.data, err, errlen);
}

static const char *const own_options[] = {
    "--write-data", "--samples", "--make-data", "--format", "--val-samples", "--shard-samples",
    "--shuffle", "--prefetch", "--readahead", "--eval-every", "--target-loss", "--mllog", "--make-missing",
    "--read-only", "--verify", "--checkpoint-every", "--checkpoint-dir", "--restore", "--stage", NULL};

static void take_option(void *prog, const char *name, const char *value)
{
    cf_args *a = prog;
    const tdopt_fields f = fields_of(a);
    if (!tdopt_take(&f, name, value) && !strcmp(name, "--write-data")) a->write_data = value;
}

void cf_args_parse(cf_args *a, int argc, char **argv, int rank)
{
    const tprog_cli cli = {.usage = usage, .preset = "cosmo128", .keys = cf_keys(),
                           .validate = validate, .options = own_options,
                           .option = take_option};
    memset(a, 0, sizeof *a);
    a->samples = 4;
    a->shard_samples = 16;
    snprintf(a->feed.shuffle, sizeof a->feed.shuffle, "global");
    a->feed.prefetch = 2;
    a->feed.readahead = SHARD_FEED_READAHEAD;
    a->quality.benchmark = "cosmoflow";
    tprog_args_parse(&cli, &a->t, &a->cfg, a, argc, argv, rank);
    a->feed.mem_train = a->samples;
    a->feed.mem_val = a->val_samples;

}
