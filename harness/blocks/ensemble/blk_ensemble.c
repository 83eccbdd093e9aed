/* Block ensemble (blk_ensemble.h): a training record's ensemble block
 * (docs/record.md, docs/ensembles.md): the trainers, each trainer's step
 * times, rate and final loss, and the tournament rounds (exchange time and
 * bytes, trainers that adopted their partner's model). */
#define _GNU_SOURCE
#include "harness/blocks/ensemble/blk_ensemble.h"

static int trainers(const rd_t *c, const ytnode *b, eninfo_t *e)
{
    const ytnode *l;
    if (rd_list(c, b, "per_trainer", &l)) return -1;
    if (!l) return rd_err(c, b, "ensemble: per_trainer is required");
    if ((long long)l->n != e->trainers)
        return rd_err(c, l, "ensemble: per_trainer lists %zu trainers, trainers says %lld", l->n,
                      e->trainers);
    e->t = rd_alloc(c, (l->n + 1) * sizeof *e->t);
    for (size_t i = 0; i < l->n; i++) {
        const ytnode *x = l->items[i];
        if (x->kind != YT_MAP) return rd_err(c, x, "ensemble.per_trainer: each must be a mapping");
        entrainer_t *t = &e->t[i];
        if (rd_nums(c, x, "step_s", RD_COUNT, &t->step_s, &t->nstep) ||
            rd_num(c, x, "samples_per_s", RD_COUNT, &t->samples_per_s) ||
            rd_num(c, x, "final_loss", RD_ANY, &t->final_loss))
            return -1;
        if (!t->nstep) return rd_err(c, x, "ensemble.per_trainer: step_s is required");
    }
    return 0;
}

static int rounds(const rd_t *c, const ytnode *tm, eninfo_t *e)
{
    const ytnode *l;
    if (rd_int_in(c, tm, "every_steps", 0, 1, 1LL << 24, &e->tournament_every) ||
        rd_list(c, tm, "rounds", &l))
        return -1;
    if (!l) return 0;
    size_t n = l->n + 1;
    e->exchange_s = rd_alloc(c, n * sizeof(double));
    e->exchange_bytes = rd_alloc(c, n * sizeof(double));
    e->adopted = rd_alloc(c, n * sizeof(double));
    for (size_t i = 0; i < l->n; i++) {
        const ytnode *x = l->items[i], *ts;
        if (x->kind != YT_MAP) return rd_err(c, x, "ensemble.tournament.rounds: each must be a mapping");
        if (rd_num_req(c, x, "exchange_s", RD_FINITE, &e->exchange_s[i]) ||
            rd_num_req(c, x, "exchange_bytes", RD_COUNT, &e->exchange_bytes[i]) ||
            rd_list(c, x, "trainers", &ts))
            return -1;
        e->adopted[i] = 0;
        for (size_t k = 0; ts && k < ts->n; k++) {
            int adopted;
            if (ts->items[k]->kind != YT_MAP)
                return rd_err(c, ts->items[k], "ensemble.tournament.rounds.trainers: each must be a mapping");
            if (rd_bool(c, ts->items[k], "adopted", 0, &adopted)) return -1;
            e->adopted[i] += adopted;
        }
    }
    e->nrounds = l->n;
    return 0;
}

static int read_ens(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *b, *tm;
    if (rd_map(c, root, "ensemble", &b)) return -1;
    if (!b) return 0;
    eninfo_t *e = rd_alloc(c, sizeof *e);
    if (rd_int_in(c, b, "trainers", 0, 2, 1LL << 20, &e->trainers) ||
        rd_int_in(c, b, "ranks_per_trainer", 0, 1, 1LL << 30, &e->ranks_per_trainer) ||
        rd_int_in(c, b, "invalid_trainers", 0, 0, 1LL << 20, &e->invalid_trainers) ||
        rd_num_req(c, b, "samples_per_trainer_step", RD_COUNT, &e->samples_per_trainer_step) ||
        rd_num(c, b, "aggregate_samples_per_s", RD_COUNT, &e->aggregate_samples_per_s))
        return -1;
    if (e->trainers == 0 || e->ranks_per_trainer == 0)
        return rd_err(c, b, "ensemble: trainers and ranks_per_trainer are required");
    if (trainers(c, b, e) || rd_map(c, b, "tournament", &tm) || (tm && rounds(c, tm, e))) return -1;
    r->blk[BLOCK_ensemble] = e;
    return 0;
}

/* per scale (param trainers; docs/ensembles.md) */
static const metric_info_t catalog[] = {
    {"ensemble_aggregate_samples_per_s", "samples/s", 1, 1,
     "the sum of the trainers' rates (samples per step / median step time)"},
    {"ensemble_efficiency", "", 1, 1, "aggregate rate / (K x one trainer's rate alone at P ranks)"},
    {"ensemble_vs_one_trainer", "", 1, 1, "aggregate rate / one trainer's rate at K x P ranks"},
    {"tournament_exchange_s", "s", -1, 1, "LTFB round: leaders' swap + broadcast, median"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_ensemble = {.name = "ensemble", .key = "ensemble",
                                .read = read_ens, .catalog = catalog, .section = "ensembles",
                                .derive = ensemble_derive, .rows = ensemble_rows,
                                .rows_at = BLOCK_ROWS_RUN};
