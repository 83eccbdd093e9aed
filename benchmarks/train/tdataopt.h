/* tdataopt: the data-set, time-to-train, checkpoint and read-only options of the training
 * programs that read sets from files (stemdl, cosmoflow; climate takes --val-samples,
 * --eval-every, --target-loss and --mllog of them): --make-data, --format, --samples,
 * --val-samples, --shard-samples, --shuffle, --prefetch, --readahead, --verify, --stage, --make-missing,
 * --eval-every, --target-loss, --mllog, --read-only, --checkpoint-every, --checkpoint-dir,
 * --restore.  One parser and one check of the combinations, so that the programs'
 * spellings, ranges and messages cannot drift apart (each program had its own copy, line
 * for line).  Each program keeps its fields where they are and hands this module pointers
 * to them.
 *
 * defines: tdopt_fields, tdopt_take, tdopt_check, tdopt_print_feed_help, tdopt_print_help, tdopt_whole, tdopt_truth */
#ifndef TRAIN_TDATAOPT_H
#define TRAIN_TDATAOPT_H

#include <stdint.h>

#include <stddef.h>
#include <stdio.h>

#include "benchmarks/common/shard/shard_feed.h"
#include "benchmarks/train/ckpt.h"
#include "benchmarks/train/ttt.h"

typedef struct {
    const char **make_data, **format, **stage;
    int64_t *samples, *val_samples, *shard_samples;
    int *make_missing;
    shard_feed_opts *feed; /* --shuffle, --prefetch, --readahead, --verify */
    ttt_cfg *quality;      /* --eval-every, --target-loss, --mllog */
    int *read_only;        /* --read-only true: the batches of every step, no compute */
    ckpt_cfg *ckpt;        /* --checkpoint-every, --checkpoint-dir, --restore */
} tdopt_fields;

/* Set the field of option NAME from VALUE: 1 when NAME is one of the options above, 0 when
 * it is not (the program's own); bad values end in check_usage (one line, exit 2). */
int tdopt_take(const tdopt_fields *f, const char *name, const char *value);

/* The options that go together, the run's --data being DATA: -1 with one line in err
 * (--checkpoint-every without --checkpoint-dir, --target-loss without --eval-every,
 * --read-only without files:DIR or with checkpoints or evaluations), else 0. */
int tdopt_check(const tdopt_fields *f, const char *data, char *err, size_t errlen);

/* The --help lines of the reader: --prefetch and --readahead. */
void tdopt_print_feed_help(FILE *f);

/* The --help lines of --read-only, --checkpoint-every, --checkpoint-dir and --restore. */
void tdopt_print_help(FILE *f);

/* VALUE as a whole number in [lo, hi], or check_usage naming NAME. */
long long tdopt_whole(const char *name, const char *value, long long lo, long long hi);

/* VALUE as true (1) or false (0), or check_usage naming NAME. */
int tdopt_truth(const char *name, const char *value);

#endif
