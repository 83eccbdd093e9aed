/* Report section: data distribution (docs/ensembles.md, MENNDL): one row per
 * datadist entry, scale and strategy (first record at the scale): the file's
 * GB/s (file bytes / median time, max over ranks) with its 95% CI, the
 * delivered GB/s (bytes all ranks hold / median time), the time to the first
 * batch (median over repetitions, then the median and the max over ranks),
 * and the wrong words the checksums found.  Metrics datadist_file_GBps,
 * datadist_first_batch_s (param strategy). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/datadist/blk_datadist.h"
#include "harness/report/runctx.h"

static int has_rows(const runctx_t *c)
{
    for (size_t i = 0; i < c->an.nb; i++)
        for (size_t k = 0; k < c->an.b[i].ns; k++)
            if (c->an.b[i].s[k].rec && rec_datadist(c->an.b[i].s[k].rec)->ndd) return 1;
    return 0;
}

static void first_batch(const ddrow_t *d, double *med, double *max)
{
    *med = *max = NAN;
    if (!d->nranks) return;
    double *x = malloc(d->nranks * sizeof *x);
    memcpy(x, d->first_batch_s, d->nranks * sizeof *x);
    *med = stats_median(x, d->nranks);
    *max = x[0];
    for (size_t i = 1; i < d->nranks; i++)
        if (d->first_batch_s[i] > *max) *max = d->first_batch_s[i];
    free(x);
}

static void metrics(const runctx_t *c, const void *self, mtable_t *t)
{
    (void)self;
    for (size_t i = 0; i < c->an.nb; i++)
        for (size_t k = 0; k < c->an.b[i].ns; k++) {
            const sres_t *s = &c->an.b[i].s[k];
            for (size_t j = 0; s->rec && j < rec_datadist(s->rec)->ndd; j++) {
                const ddrow_t *d = &rec_datadist(s->rec)->dd[j];
                double fb, fbmax;
                first_batch(d, &fb, &fbmax);
                kv_t *p = ar_alloc(c->a, sizeof *p);
                p[0] = (kv_t){"strategy", d->strategy};
                double b = rec_datadist(s->rec)->bytes;
                metric_t m = {.bench = c->an.b[i].name, .program = c->an.b[i].program,
                              .kind = c->an.b[i].kind, .scale = s->scale,
                              .metric = "datadist_file_GBps", .value = d->file_GBps,
                              .lo = b / d->ci_hi_s / 1e9, .hi = b / d->ci_lo_s / 1e9, .n = NAN,
                              .unit = "GB/s", .better = 1, .params = p, .nparams = 1};
                if (isfinite(m.value)) mtable_add(c->a, t, &m);
                m.metric = "datadist_first_batch_s", m.value = fbmax, m.lo = m.hi = NAN;
                m.unit = "s", m.better = -1;
                if (isfinite(m.value)) mtable_add(c->a, t, &m);
            }
        }
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    if (!has_rows(c)) return;
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
    for (size_t i = 0; i < c->an.nb; i++)
        for (size_t k = 0; k < c->an.b[i].ns; k++) {
            const sres_t *s = &c->an.b[i].s[k];
            for (size_t j = 0; s->rec && j < rec_datadist(s->rec)->ndd; j++) {
                const ddrow_t *d = &rec_datadist(s->rec)->dd[j];
                double fb, fbmax, b = rec_datadist(s->rec)->bytes;
                first_batch(d, &fb, &fbmax);
                sb_printf(o, "| %s | %d | %s | %.3g [%.3g, %.3g] | %.3g | %.3g, %.3g | %.0f |\n",
                          c->an.b[i].name, s->scale, d->strategy, d->file_GBps,
                          b / d->ci_hi_s / 1e9, b / d->ci_lo_s / 1e9, d->delivered_GBps, fb, fbmax,
                          d->wrong);
            }
        }
}

const section_t section_datadist = {.name = "datadist", .metrics = metrics, .md = md};
