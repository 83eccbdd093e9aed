#include "benchmarks/stemdl/args.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "benchmarks/train/tdataopt.h"

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
            "                         to PATH.<rank> (for comparing ranks and runs)\n"
            "\n"
            "Data sets and time to train (docs/data.md):\n"
            "  --data synthetic|cbed|files:DIR  synthetic (default): a new sample every step;\n"
            "                         cbed: the learnable CBED set of --samples train and\n"
            "                         --val-samples validation samples, made in memory;\n"
            "                         files:DIR: that set read from the shards in DIR\n"
            "  --make-data DIR        write the cbed set as shards and a manifest, and exit\n"
            "  --format raw|hdf5      shard encoding (default hdf5 where built with HDF5, else raw)\n"
            "  --samples N            train samples of the set (default 64)\n"
            "  --val-samples N        validation samples (default 16)\n"
            "  --shard-samples N      samples per shard (default 16)\n"
            "  --make-missing true    with --data files:DIR: rank 0 first writes the set\n"
            "                         (--samples, --val-samples, --format) when DIR has none\n"
            "  --stage DIR            with --data files:SRC: the first rank of each node copies\n"
            "                         the set to DIR (node-local storage) before training\n"
            "  --shuffle global|local|none  per-epoch order (default global; local: each group\n"
            "                         its own shards)\n");
    tdopt_print_feed_help(f);
    fprintf(f,
            "  --verify false         skip each sample's CRC check (default true)\n"
            "  --eval-every N         validation loss every N steps (default 0: none)\n"
            "  --target-loss X        stop when the validation loss is at most X (default 0: never)\n"
            "  --mllog true|false     :::MLLOG lines (MLPerf's logging format) on stdout\n");
    tdopt_print_help(f);
    fprintf(f,
            "\n"
            "Exit status: 0 ok; 1 the run failed (a checkpoint that cannot be written, a corrupt\n"
            "checkpoint file); 2 bad input (an option, a configuration, a data set refused: file\n"
            "and sample named; --read-only without --data files:DIR; --checkpoint-every without\n"
            "--checkpoint-dir; --restore of a checkpoint of another rank count or preset).\n");
    cfg_print_help(f);
    fprintf(f,
            "\n"
            "Examples:\n"
            "  stemdl --preset gb2019 --describe\n"
            "  stemdl --preset small --steps 10 --record small.yaml\n"
            "  mpirun -np 4 stemdl --preset tiny --batch 2 --record tiny4.yaml\n"
            "  mpirun -np 4 stemdl --preset tiny --spatial 2 --batch 1   (2 groups of 2 tiles)\n"
            "  stemdl --preset tiny --make-data cbed --samples 64 --val-samples 16\n"
            "  stemdl --preset tiny --data files:cbed --eval-every 10 --target-loss 0.5\n"
            "  stemdl --preset tiny --data files:cbed --read-only true --steps 16 --batch 4\n"
            "  stemdl --preset tiny --steps 20 --checkpoint-every 10 --checkpoint-dir ck\n"
            "  stemdl --preset tiny --steps 20 --warmup 0 --restore ck/step-00000010\n");
}

/* the fields of the shared options (tdataopt.h) in a */
static tdopt_fields fields_of(args_t *a)
{
    st_data_opts *d = &a->data;
    return (tdopt_fields){.make_data = &d->make_data, .format = &d->format, .stage = &d->stage,
                          .samples = &d->samples, .val_samples = &d->val_samples,
                          .shard_samples = &d->shard_samples, .make_missing = &d->make_missing,
                          .feed = &d->feed, .quality = &a->quality, .read_only = &a->read_only,
                          .ckpt = &a->ckpt};
}

/* the configuration's check, then the options that go together (cfg is the
 * cfg member of an args_t) */
static int validate(const void *cfg, char *err, size_t errlen)
{
    args_t *a = (args_t *)((const char *)cfg - offsetof(args_t, cfg));
    if (cfg_validate(cfg, err, errlen)) return -1;
    if (strcmp(a->data.data, "synthetic") && !st_data_is(a->data.data)) {
        snprintf(err, errlen, "--data: '%s' is not synthetic, cbed or files:DIR", a->data.data);
        return -1;
    }
    const tdopt_fields f = fields_of(a);
    if (tdopt_check(&f, a->data.data, err, errlen)) return -1;
    if (a->quality.eval_every > 0 && !st_data_is(a->data.data)) {
        snprintf(err, errlen, "--eval-every needs a data set with a validation split (--data cbed "
                 "or files:DIR)");
        return -1;
    }
    return 0;
}

static const char *const own_options[] = {
    "--data", "--make-data", "--format", "--samples", "--val-samples", "--shard-samples",
    "--shuffle", "--prefetch", "--readahead", "--verify", "--eval-every", "--target-loss", "--mllog",
    "--make-missing", "--stage", "--read-only", "--checkpoint-every", "--checkpoint-dir",
    "--restore", NULL};

static void take_option(void *prog, const char *name, const char *value)
{
    args_t *a = prog;
    const tdopt_fields f = fields_of(a);
    if (!strcmp(name, "--data")) a->data.data = value;
    else tdopt_take(&f, name, value);
}

void args_parse(args_t *a, int argc, char **argv, int rank)
{
    const tprog_cli cli = {.usage = usage, .preset = "small", .keys = cfg_keys(),
                           .validate = validate, .options = own_options, .option = take_option};
    memset(a, 0, sizeof *a);
    a->data.data = "synthetic";
    a->data.samples = 64;
    a->data.val_samples = 16;
    a->data.shard_samples = 16;
    snprintf(a->data.feed.shuffle, sizeof a->data.feed.shuffle, "global");
    a->data.feed.prefetch = 2;
    a->data.feed.readahead = SHARD_FEED_READAHEAD;
    a->quality.benchmark = "stemdl";
    tprog_args_parse(&cli, &a->t, &a->cfg, a, argc, argv, rank);
    a->data.feed.mem_train = a->data.samples;
    a->data.feed.mem_val = a->data.val_samples;
}
