#include "benchmarks/train/tdataopt.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"

long long tdopt_whole(const char *name, const char *value, long long lo, long long hi)
{
    long long n;
    if (opt_parse_int(value, &n) || n < lo || n > hi)
        check_usage("%s: '%s' is not a whole number from %lld to %lld", name, value, lo, hi);
    return n;
}

int tdopt_truth(const char *name, const char *value)
{
    if (strcmp(value, "true") && strcmp(value, "false"))
        check_usage("%s: '%s' is not true or false", name, value);
    return !strcmp(value, "true");
}

int tdopt_take(const tdopt_fields *f, const char *name, const char *value)
{
    if (!strcmp(name, "--make-data")) {
        *f->make_data = value;
    } else if (!strcmp(name, "--format")) {
        if (strcmp(value, "raw") && strcmp(value, "hdf5"))
            check_usage("--format: '%s' is not raw or hdf5", value);
        *f->format = value;
    } else if (!strcmp(name, "--samples")) {
        *f->samples = tdopt_whole(name, value, 1, 1LL << 40);
    } else if (!strcmp(name, "--val-samples")) {
        *f->val_samples = tdopt_whole(name, value, 0, 1LL << 40);
    } else if (!strcmp(name, "--shard-samples")) {
        *f->shard_samples = tdopt_whole(name, value, 1, 1LL << 30);
    } else if (!strcmp(name, "--shuffle")) {
        if (strcmp(value, "global") && strcmp(value, "local") && strcmp(value, "none"))
            check_usage("--shuffle: '%s' is not global, local or none", value);
        snprintf(f->feed->shuffle, sizeof f->feed->shuffle, "%s", value);
    } else if (!strcmp(name, "--prefetch")) {
        f->feed->prefetch = (int)tdopt_whole(name, value, 0, 1024);
    } else if (!strcmp(name, "--readahead")) {
        f->feed->readahead = (int)tdopt_whole(name, value, 0, 1 << 20);
    } else if (!strcmp(name, "--verify")) {
        f->feed->no_verify = !tdopt_truth(name, value);
    } else if (!strcmp(name, "--stage")) {
        *f->stage = value;
    } else if (!strcmp(name, "--make-missing")) {
        *f->make_missing = tdopt_truth(name, value);
    } else if (!strcmp(name, "--eval-every")) {
        f->quality->eval_every = (int)tdopt_whole(name, value, 0, 1 << 24);
    } else if (!strcmp(name, "--target-loss")) {
        double x;
        if (opt_parse_double(value, &x) || !(x >= 0) || x > 1e30)
            check_usage("--target-loss: '%s' is not a number >= 0", value);
        f->quality->target_loss = x;
    } else if (!strcmp(name, "--mllog")) {
        f->quality->mllog = tdopt_truth(name, value);
    } else if (!strcmp(name, "--read-only")) {
        *f->read_only = tdopt_truth(name, value);
    } else if (!strcmp(name, "--checkpoint-every")) {
        f->ckpt->every = (int)tdopt_whole(name, value, 0, 1 << 24);
    } else if (!strcmp(name, "--checkpoint-dir")) {
        f->ckpt->dir = value;
    } else if (!strcmp(name, "--restore")) {
        f->ckpt->restore = value;
    } else {
        return 0;
    }
    return 1;
}

int tdopt_check(const tdopt_fields *f, const char *data, char *err, size_t errlen)
{
    const char *why = NULL;
    if (f->ckpt->every > 0 && !f->ckpt->dir)
        why = "--checkpoint-every needs --checkpoint-dir DIR (where the checkpoints go)";
    else if (f->quality->target_loss > 0 && f->quality->eval_every == 0)
        why = "--target-loss needs --eval-every N (the loss it stops on is the validation loss)";
    else if (*f->read_only && strncmp(data, "files:", 6))
        why = "--read-only needs --data files:DIR (it reads a data set's files)";
    /* the read-only mode trains nothing: weights to save or restore, losses to evaluate */
    else if (*f->read_only && (f->ckpt->every > 0 || f->ckpt->restore))
        why = "--read-only computes nothing: no --checkpoint-every or --restore with it";
    else if (*f->read_only && (f->quality->eval_every > 0 || f->quality->mllog))
        why = "--read-only computes nothing: no --eval-every, --target-loss or --mllog with it";
    if (!why) return 0;
    snprintf(err, errlen, "%s", why);
    return -1;
}

void tdopt_print_feed_help(FILE *f)
{
    fprintf(f,
            "  --prefetch N           steps the reader thread reads ahead (default 2; 0: none)\n"
            "  --readahead N          samples of the read order the reader asks the kernel for\n"
            "                         ahead of each read (posix_fadvise WILLNEED; default %d;\n"
            "                         0: none)\n",
            SHARD_FEED_READAHEAD);
}

void tdopt_print_help(FILE *f)
{
    fprintf(f,
            "  --read-only true       with --data files:DIR: read the batches of every step and\n"
            "                         nothing else (DLIO-style): samples/s and GB/s of the job\n"
            "  --checkpoint-every N   every N steps each rank writes its weights and optimizer\n"
            "                         state to DIR/step-NNNNNNNN/rank-R.bin (default 0: never)\n"
            "  --checkpoint-dir DIR   where checkpoints go\n"
            "  --restore DIR/step-NNNNNNNN  start from that checkpoint's weights, moments and step\n"
            "                         (--warmup 0, the rank count and preset that wrote it; the\n"
            "                         run continues to --steps)\n");
}
