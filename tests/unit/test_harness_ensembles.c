/* The readers of issue 17's records (docs/ensembles.md): a stemdl record of
 * 2 trainers with an LTFB tournament, a datadist record, a manytask
 * record and a workflow record of issue 34 (tests/fixtures/harness/), and
 * the ensemble block's consistency checks on bad input, and the report
 * section's efficiency against the definition worked out here from the same
 * records. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/datadist/blk_datadist.h"
#include "harness/blocks/ensemble/blk_ensemble.h"
#include "harness/blocks/manytask/blk_manytask.h"
#include "harness/blocks/workflow/blk_workflow.h"
#include "harness/blocks/recread.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/report/report.h"
#include "harness/report/runctx.h"
#include "tests/unit/tap.h"

static const char *root(void)
{
    const char *r = getenv("EXADL_ROOT");
    return r ? r : ".";
}

static int load(arena_t *a, const char *file, record_t *r, char *err, size_t errlen)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/fixtures/harness/%s", root(), file);
    return record_load(a, p, r, err, errlen);
}

static void test_ensemble_block(void)
{
    arena_t *a = ar_new();
    record_t r;
    char err[1024];
    T_ASSERT(load(a, "stemdl-ens-n2.yaml", &r, err, sizeof err) == 0, "%s", err);
    const eninfo_t *e = rec_ensemble(&r);
    T_ASSERT(e != NULL, "no ensemble block read");
    T_ASSERT(e->trainers == 2 && e->ranks_per_trainer == 1, "trainers %lld x %lld", e->trainers,
             e->ranks_per_trainer);
    double sum = 0;
    for (int t = 0; t < 2; t++) {
        T_ASSERT(e->t[t].nstep == 3, "trainer %d: %zu steps", t, e->t[t].nstep);
        sum += e->t[t].samples_per_s;
    }
    T_ASSERT(fabs(sum - e->aggregate_samples_per_s) <= 1e-9 * sum, "aggregate %g, sum %g",
             e->aggregate_samples_per_s, sum);
    /* 1 warm-up + 3 timed steps, a round every 2: after steps 2 and 4 */
    T_ASSERT(e->nrounds == 2 && e->tournament_every == 2, "%zu rounds", e->nrounds);
    for (size_t i = 0; i < e->nrounds; i++)
        T_ASSERT(e->exchange_bytes[i] > 0 && e->adopted[i] <= 2, "round %zu", i);
    ar_free(a);
}

static void test_ensemble_bad(void)
{
    char p[1024], tmp[] = "/tmp/exadl-ens-XXXXXX";
    snprintf(p, sizeof p, "%s/tests/fixtures/harness/stemdl-ens-n2.yaml", root());
    FILE *f = fopen(p, "r");
    T_ASSERT(f != NULL, "cannot open %s", p);
    int fd = mkstemp(tmp);
    FILE *g = fdopen(fd, "w");
    char line[4096];
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strcmp(line, "  trainers: 2\n")) strcpy(line, "  trainers: 3\n"), seen = 1;
        fputs(line, g);
    }
    fclose(f);
    fclose(g);
    arena_t *a = ar_new();
    record_t r;
    char err[1024] = "";
    int rc = record_load(a, tmp, &r, err, sizeof err);
    unlink(tmp);
    T_ASSERT(seen, "fixture has no 'trainers: 2' line");
    T_ASSERT(rc != 0, "a block of 3 trainers listing 2 was read");
    T_ASSERT(strstr(err, "per_trainer lists 2 trainers, trainers says 3") && strstr(err, tmp),
             "message: %s", err);
    ar_free(a);
}

static void test_datadist(void)
{
    arena_t *a = ar_new();
    record_t r;
    char err[1024];
    T_ASSERT(load(a, "datadist-n2.yaml", &r, err, sizeof err) == 0, "%s", err);
    const ddinfo_t *dd = rec_datadist(&r);
    T_ASSERT(dd->ndd == 5 && dd->bytes == 1048576, "%zu strategies of %g bytes", dd->ndd, dd->bytes);
    static const char *const names[] = {"scatter", "bcast", "pipeline", "shard", "mpiio"};
    for (size_t i = 0; i < 5; i++) {
        const ddrow_t *d = &rec_datadist(&r)->dd[i];
        T_ASSERT(!strcmp(d->strategy, names[i]), "row %zu is %s", i, d->strategy);
        T_ASSERT(d->nranks == 2 && d->wrong == 0 && d->file_GBps > 0, "%s", d->strategy);
        /* bcast and pipeline deliver the whole file to each rank */
        double per = i == 1 || i == 2 ? 1048576 : 524288;
        T_ASSERT(d->held_bytes == per, "%s holds %g", d->strategy, d->held_bytes);
    }
    ar_free(a);
}

static void test_manytask(void)
{
    arena_t *a = ar_new();
    record_t r;
    char err[1024];
    T_ASSERT(load(a, "manytask-n1.yaml", &r, err, sizeof err) == 0, "%s", err);
    const mtinfo_t *m = rec_manytask(&r);
    T_ASSERT(m != NULL, "no tasks block");
    T_ASSERT(m->done == 9 && m->failed == 3 && m->failed_attempts == 6 && m->tasks == 12,
             "done %g failed %g failed attempts %g", m->done, m->failed, m->failed_attempts);
    T_ASSERT(m->p50_s <= m->p90_s && m->p90_s <= m->p99_s && m->p99_s <= m->max_s, "percentiles");
    T_ASSERT(!strcmp(m->launcher, "direct"), "launcher %s", m->launcher);
    ar_free(a);
}

/* a files-mode workflow whose producer 1 was killed (SIGKILL) after 5 of 30
 * samples (tests/it/workflow.sh's run) */
static void test_workflow(void)
{
    arena_t *a = ar_new();
    record_t r;
    char err[1024];
    T_ASSERT(load(a, "workflow-n4.yaml", &r, err, sizeof err) == 0, "%s", err);
    const wfinfo_t *m = rec_workflow(&r);
    T_ASSERT(m != NULL, "no workflow block");
    T_ASSERT(m->expected == 90 && m->consumed == 65 && m->lost_to_failure == 25 &&
                 m->failed_producers == 1 && m->duplicates == 0 && m->corrupt == 0,
             "consumed %g lost %g", m->consumed, m->lost_to_failure);
    T_ASSERT(!strcmp(m->mode, "files") && m->producers == 3, "mode %s", m->mode);
    T_ASSERT(m->depth_max <= m->queue_bound && m->lat_lo_s <= m->lat_median_s &&
                 m->lat_median_s <= m->lat_hi_s && m->consumed_per_s > 0,
             "queue %g of %g, latency %g [%g, %g]", m->depth_max, m->queue_bound, m->lat_median_s,
             m->lat_lo_s, m->lat_hi_s);
    ar_free(a);
}

static void outcome(arena_t *a, outcome_t *o, const char *bench, int scale, const char *file)
{
    char err[1024];
    memset(o, 0, sizeof *o);
    o->bench = bench, o->program = "stemdl", o->scale = scale, o->rep = 1, o->status = LS_OK;
    o->id = ar_printf(a, "%s-n%d-r1", bench, scale);
    o->rec = ar_alloc(a, sizeof *o->rec);
    T_ASSERT(load(a, file, o->rec, err, sizeof err) == 0, "%s", err);
}

static const metric_t *metric(const mtable_t *t, const char *bench, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->m[i].bench, bench) && !strcmp(t->m[i].metric, name)) return &t->m[i];
    return NULL;
}

/* efficiency = aggregate / (K x one trainer alone): the aggregate from the
 * trainers' medians, "alone" the 1-rank entry of the same work */
static void test_section_efficiency(void)
{
    arena_t *a = ar_new();
    runctx_t *c = ar_alloc(a, sizeof *c);
    c->a = a;
    outcome_t *o = ar_alloc(a, 2 * sizeof *o);
    outcome(a, &o[0], "ens", 2, "stemdl-ens-n2.yaml");
    outcome(a, &o[1], "one", 1, "stemdl-ens-alone-n1.yaml");
    runinfo_t *ri = &c->ri;
    ri->o = o, ri->no = 2, ri->name = "run", ri->suite = "t", ri->host = "h", ri->dir = ".";
    ri->started_utc = ri->finished_utc = "now", ri->command = "exadl run t.yaml";
    analysis_run(a, o, 2, NAN, NULL, &c->an);
    blocks_analyze(a, &c->s, o, 2, &c->an, &c->d, &c->t);
    const eninfo_t *e = rec_ensemble(o[0].rec);
    double agg = 0;
    for (int t = 0; t < 2; t++) {
        double *x = ar_alloc(a, e->t[t].nstep * sizeof *x);
        memcpy(x, e->t[t].step_s, e->t[t].nstep * sizeof *x);
        agg += e->samples_per_trainer_step / stats_median(x, e->t[t].nstep);
    }
    double alone = rec_training(o[1].rec)->samples_per_step / c->an.b[1].s[0].st.median;
    const metric_t *ag = metric(&c->t, "ens", "ensemble_aggregate_samples_per_s"),
                   *ef = metric(&c->t, "ens", "ensemble_efficiency");
    T_ASSERT(ag && ef, "the section added no ensemble metrics");
    T_ASSERT(fabs(ag->value - agg) <= 1e-9 * agg, "aggregate %g, expected %g", ag->value, agg);
    T_ASSERT(fabs(ef->value - agg / (2 * alone)) <= 1e-9 * ef->value, "efficiency %g, expected %g",
             ef->value, agg / (2 * alone));
    T_ASSERT(ef->lo <= ef->value && ef->value <= ef->hi, "bounds [%g, %g] around %g", ef->lo, ef->hi,
             ef->value);
    T_ASSERT(!metric(&c->t, "ens", "ensemble_vs_one_trainer"), "a 2-rank single trainer invented");
    ar_free(a);
}

int main(void)
{
    T_RUN(test_ensemble_block);
    T_RUN(test_ensemble_bad);
    T_RUN(test_datadist);
    T_RUN(test_manytask);
    T_RUN(test_workflow);
    T_RUN(test_section_efficiency);
    T_DONE();
}
