/* Report section: data distribution (docs/ensembles.md, MENNDL): one row per
 * datadist entry, scale and strategy (first record at the scale): the file's
 * GB/s (file bytes / median time, max over ranks) with its 95% CI, the
 * delivered GB/s (bytes all ranks hold / median time), the time to the first
 * batch (median over repetitions, then the median and the max over ranks),
 * and the wrong words the checksums found.  Metrics datadist_file_GBps,
 * datadist_first_batch_s (param strategy).  The numbers are the datadist
 * block's (harness/blocks/datadist/). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/blocks/datadist/der_datadist.h"
#include "harness/report/runctx.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)c;
    const ddrun_t *D = self;
    if (!D->n) return;
    sb_puts(o, "\n## Data distribution (docs/ensembles.md)\n\n"
               "A generated dataset file delivered to every rank. scatter: rank 0 reads the file "
               "and scatters a shard to each rank; bcast: rank 0 reads it and broadcasts all of it "
               "(every rank, every trainer, gets the same data: MENNDL's case); pipeline: chunks "
               "read by the reader ranks in turn and broadcast while the next is read; shard: "
               "every rank reads its own shard; mpiio: the shards by MPI-IO collective reads. "
               "File GB/s: file bytes / median time (max over ranks per repetition; 1e9 bytes "
               "per GB), bounded by the 95% CI of the time; delivered: the bytes all ranks hold "
               "/ the same time. First batch: the time until a rank holds its first chunk (median "
               "over repetitions; median and max over ranks). Wrong: 8-byte words that differ "
               "from the file's formula (must be 0).\n\n"
               "| entry | scale | strategy | file GB/s [95% CI] | delivered GB/s | first batch s "
               "(median, max over ranks) | wrong |\n|---|---:|---|---|---:|---|---:|\n");
    for (size_t i = 0; i < D->n; i++) {
        const ddres_t *r = &D->r[i];
        sb_printf(o, "| %s | %d | %s | %.3g [%.3g, %.3g] | %.3g | %.3g, %.3g | %.0f |\n",
                  r->b->name, r->scale, r->d->strategy, r->d->file_GBps, r->file_lo_GBps,
                  r->file_hi_GBps, r->d->delivered_GBps, r->first_med_s, r->first_max_s,
                  r->d->wrong);
    }
}

const section_t section_datadist = {.name = "datadist", .md = md};
