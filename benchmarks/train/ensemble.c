#include "benchmarks/train/ensemble.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/common/timer.h"

/* MPI counts are int: weights travel in chunks of at most 2^28 floats */
#define ENS_CHUNK (1 << 28)

int ens_open(const comm_t *world, int k, ens_t *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    if (k < 1 || world->size % k) {
        snprintf(err, errlen,
                 "--trainers %d does not divide the %d rank(s) of the job: every trainer needs the "
                 "same number of ranks (use a divisor of %d)",
                 k, world->size, world->size);
        return -1;
    }
    e->trainers = k;
    e->per_trainer = world->size / k;
    e->trainer = world->rank / e->per_trainer;
    e->world = world;
    e->comm = *world; /* hosts and the node stay the world's (device binding) */
    if (k == 1) return 0;
    CHECK_MPI(MPI_Comm_split(world->world, e->trainer, world->rank, &e->comm.world));
    CHECK_MPI(MPI_Comm_rank(e->comm.world, &e->comm.rank));
    CHECK_MPI(MPI_Comm_size(e->comm.world, &e->comm.size));
    return 0;
}

void ens_close(ens_t *e)
{
    if (e->trainers > 1) CHECK_MPI(MPI_Comm_free(&e->comm.world));
    e->trainers = 0;
}

int64_t ens_first_sample(const ens_t *e, int group, int groups, int batch)
{
    return ((int64_t)e->trainer * groups + group) * batch;
}

uint64_t ens_seed(const ens_t *e, uint64_t seed)
{
    return e->trainers > 1 ? rng_mix(seed ^ (0x7472616eULL + (uint64_t)e->trainer)) : seed;
}

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* The partner of trainer t in round `round`: a permutation of the trainers
 * drawn from (seed, round), consecutive entries paired; -1 for the last
 * entry when K is odd. */
static int partner_of(int k, int t, uint64_t seed, int round)
{
    int *perm = XMALLOC((size_t)k * sizeof *perm, "tournament permutation");
    for (int i = 0; i < k; i++) perm[i] = i;
    rng_t r = rng_stream(seed, 0x6c746662ULL, (uint64_t)round, 0);
    for (int i = k - 1; i > 0; i--) {
        int j = (int)(rng_next(&r) % (uint64_t)(i + 1));
        int x = perm[i];
        perm[i] = perm[j], perm[j] = x;
    }
    int p = -1;
    for (int i = 0; i + 1 < k; i += 2) {
        if (perm[i] == t) p = perm[i + 1];
        if (perm[i + 1] == t) p = perm[i];
    }
    free(perm);
    return p;
}

/* Mean loss over the trainer's ranks of the current weights on this
 * trainer's held-out batch (already loaded). */
static double evaluate(const ens_t *e, const ens_model_t *m)
{
    ktab_t tab;
    ktab_init(&tab, m->table_rows);
    kc_t kc = {.ops = m->ops, .ctx = m->ctx, .tab = &tab, .timing = 0};
    double loss = m->net->forward(m->inst, &kc), sum;
    m->ops->sync(m->ctx);
    ktab_free(&tab);
    CHECK_MPI(MPI_Allreduce(&loss, &sum, 1, MPI_DOUBLE, MPI_SUM, e->comm.world));
    return sum / e->comm.size;
}

static void dump(const ens_t *e, const char *path, const float *w, int64_t n)
{
    char name[4096];
    snprintf(name, sizeof name, "%s.pre.%d", path, e->world->rank);
    FILE *f = fopen(name, "wb");
    CHECK(f != NULL, "--dump-weights: cannot open %s", name);
    CHECK(fwrite(w, sizeof *w, (size_t)n, f) == (size_t)n, "--dump-weights: cannot write %s", name);
    CHECK(fclose(f) == 0, "--dump-weights: cannot close %s", name);
}

static void bcast_floats(float *w, int64_t n, int root, MPI_Comm comm)
{
    for (int64_t off = 0; off < n; off += ENS_CHUNK) {
        int cnt = (int)(n - off < ENS_CHUNK ? n - off : ENS_CHUNK);
        CHECK_MPI(MPI_Bcast(w + off, cnt, MPI_FLOAT, root, comm));
    }
}

void ens_round(ens_t *e, const ens_model_t *m, int step, int round, ens_result *res)
{
    size_t nbytes = (size_t)m->params * sizeof(float);
    float *mine = XMALLOC(nbytes, "tournament: own weights");
    float *theirs = XMALLOC(nbytes, "tournament: partner's weights");
    m->net->get_params(m->inst, mine);
    if (m->dump) dump(e, m->dump, mine, m->params);
    ens_round_t rd = {.step = step, .partner = partner_of(e->trainers, e->trainer, m->seed, round),
                      .own_loss = NAN, .partner_loss = NAN, .hash_before = fnv(mine, nbytes)};

    /* the leaders swap, then each broadcasts inside its trainer */
    CHECK_MPI(MPI_Barrier(e->comm.world));
    double t0 = timer_now_s();
    if (rd.partner >= 0) {
        if (e->comm.rank == 0) {
            int peer = rd.partner * e->per_trainer;
            for (int64_t off = 0; off < m->params; off += ENS_CHUNK) {
                int cnt = (int)(m->params - off < ENS_CHUNK ? m->params - off : ENS_CHUNK);
                CHECK_MPI(MPI_Sendrecv(mine + off, cnt, MPI_FLOAT, peer, 0x1f, theirs + off, cnt,
                                       MPI_FLOAT, peer, 0x1f, e->world->world, MPI_STATUS_IGNORE));
            }
            rd.bytes = (int64_t)nbytes;
        }
        bcast_floats(theirs, m->params, 0, e->comm.world);
    }
    double xs = timer_now_s() - t0;

    /* both models on this trainer's held-out batch: the round's samples of a
     * seed of their own, which training never draws */
    t0 = timer_now_s();
    if (rd.partner >= 0) {
        size_t in_n, tg_n;
        m->net->batch_floats(m->model, m->batch, &in_n, &tg_n);
        float *input = XMALLOC(in_n * sizeof *input, "held-out input");
        float *target = XMALLOC(tg_n * sizeof *target, "held-out target");
        int group = e->comm.rank / (m->replica_ranks > 0 ? m->replica_ranks : 1);
        m->net->generate(m->model, m->seed ^ 0x686f6c646f7574ULL, round,
                         ens_first_sample(e, group, m->groups, m->batch), m->batch, input, target);
        m->net->load(m->inst, input, target);
        rd.own_loss = evaluate(e, m);
        m->net->set_params(m->inst, theirs);
        rd.partner_loss = evaluate(e, m);
        /* every rank of the trainer has the same two means: the same choice */
        rd.adopted = rd.partner_loss < rd.own_loss;
        if (!rd.adopted) m->net->set_params(m->inst, mine);
        free(input);
        free(target);
    }
    double es = timer_now_s() - t0;
    double in[2] = {xs, es}, mx[2];
    CHECK_MPI(MPI_Allreduce(in, mx, 2, MPI_DOUBLE, MPI_MAX, e->comm.world));
    rd.exchange_s = mx[0], rd.eval_s = mx[1];
    m->net->get_params(m->inst, mine);
    rd.hash_after = fnv(mine, nbytes);
    free(mine);
    free(theirs);
    if (res->own_n == res->own_cap) {
        res->own_cap = res->own_cap ? 2 * res->own_cap : 8;
        res->own = realloc(res->own, (size_t)res->own_cap * sizeof *res->own);
        CHECK(res->own != NULL, "out of memory: tournament rounds");
    }
    res->own[res->own_n++] = rd;
}

void ens_gather(const ens_t *e, const double *step_s, int steps, double final_loss, int invalid,
                int tournament_every, ens_result *res)
{
    const comm_t *w = e->world;
    int k = e->trainers, root = w->rank == 0;
    res->trainers = k, res->per_trainer = e->per_trainer, res->steps = steps;
    res->tournament_every = tournament_every;
    if (root) {
        res->step_s = XMALLOC((size_t)k * (size_t)steps * sizeof(double), "trainer step times");
        res->final_loss = XMALLOC((size_t)k * sizeof(double), "trainer losses");
    }
    /* leaders only: rank t * P of the world is trainer t's rank 0 */
    int *counts = XCALLOC((size_t)w->size, sizeof(int), "gather counts");
    int *displs = XCALLOC((size_t)w->size, sizeof(int), "gather offsets");
    for (int t = 0; t < k; t++) counts[t * e->per_trainer] = steps, displs[t * e->per_trainer] = t * steps;
    int lead = e->comm.rank == 0;
    CHECK_MPI(MPI_Gatherv(step_s, lead ? steps : 0, MPI_DOUBLE, res->step_s, counts, displs,
                          MPI_DOUBLE, 0, w->world));
    for (int t = 0; t < k; t++) counts[t * e->per_trainer] = 1, displs[t * e->per_trainer] = t;
    CHECK_MPI(MPI_Gatherv(&final_loss, lead ? 1 : 0, MPI_DOUBLE, res->final_loss, counts, displs,
                          MPI_DOUBLE, 0, w->world));
    int bad = lead && invalid;
    CHECK_MPI(MPI_Reduce(&bad, &res->invalid_trainers, 1, MPI_INT, MPI_SUM, 0, w->world));
    /* rounds: every trainer ran the same number */
    res->nrounds = res->own_n;
    if (res->nrounds > 0) {
        int nb = (int)sizeof(ens_round_t) * res->nrounds;
        if (root) res->rounds = XMALLOC((size_t)k * (size_t)nb, "tournament rounds");
        ens_round_t *all = root ? XMALLOC((size_t)k * (size_t)nb, "rounds by trainer") : NULL;
        for (int t = 0; t < k; t++) counts[t * e->per_trainer] = nb, displs[t * e->per_trainer] = t * nb;
        CHECK_MPI(MPI_Gatherv(res->own, lead ? nb : 0, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                              w->world));
        if (root) /* [trainer][round] -> [round][trainer] */
            for (int t = 0; t < k; t++)
                for (int i = 0; i < res->nrounds; i++)
                    res->rounds[i * k + t] = all[t * res->nrounds + i];
        free(all);
    }
    free(counts);
    free(displs);
}

static double median_of(const double *x, int n)
{
    stats_summary_t s;
    stats_summarize(x, (size_t)n, &s);
    return s.median;
}

void ens_write_record(const ens_result *res, int batch, int replica_ranks, rec_t *w)
{
    int k = res->trainers, n = res->steps;
    int R = replica_ranks > 1 ? replica_ranks : 1;
    double per_step = (double)res->per_trainer / R * batch; /* samples of one trainer's step */
    rec_key(w, "ensemble");
    rec_map_begin(w);
    rec_kv_int(w, "trainers", k);
    rec_kv_int(w, "ranks_per_trainer", res->per_trainer);
    rec_kv_double(w, "samples_per_trainer_step", per_step);
    rec_kv_str(w, "combine",
               "step time: max over a trainer's ranks; trainer rate: its samples per step / its "
               "median step time; aggregate: the sum of the trainers' rates");
    double agg = 0;
    rec_key(w, "per_trainer");
    rec_seq_begin(w);
    for (int t = 0; t < k; t++) {
        double med = median_of(res->step_s + (size_t)t * n, n);
        agg += per_step / med;
        rec_map_begin(w);
        rec_kv_int(w, "trainer", t);
        rec_kv_double(w, "median_step_s", med);
        rec_kv_double(w, "samples_per_s", per_step / med);
        rec_kv_double(w, "final_loss", res->final_loss[t]);
        rec_kv_doubles(w, "step_s", res->step_s + (size_t)t * n, (size_t)n);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_kv_double(w, "aggregate_samples_per_s", agg);
    rec_kv_int(w, "invalid_trainers", res->invalid_trainers);
    if (res->tournament_every > 0) {
        rec_key(w, "tournament");
        rec_map_begin(w);
        rec_kv_int(w, "every_steps", res->tournament_every);
        rec_kv_str(w, "pairing", "seeded permutation (seed, round), consecutive entries paired");
        rec_kv_str(w, "keeps", "the model of lower mean loss on the trainer's own held-out batch");
        rec_key(w, "rounds");
        rec_seq_begin(w);
        for (int i = 0; i < res->nrounds; i++) {
            const ens_round_t *row = res->rounds + (size_t)i * k;
            double xs = 0;
            int64_t bytes = 0;
            for (int t = 0; t < k; t++) {
                if (row[t].exchange_s > xs) xs = row[t].exchange_s;
                bytes += row[t].bytes;
            }
            rec_map_begin(w);
            rec_kv_int(w, "after_step", row[0].step);
            rec_kv_double(w, "exchange_s", xs);
            rec_kv_int(w, "exchange_bytes", bytes);
            rec_key(w, "trainers");
            rec_seq_begin(w);
            for (int t = 0; t < k; t++) {
                char hb[24], ha[24];
                snprintf(hb, sizeof hb, "%016llx", (unsigned long long)row[t].hash_before);
                snprintf(ha, sizeof ha, "%016llx", (unsigned long long)row[t].hash_after);
                rec_flow_map_begin(w);
                rec_kv_int(w, "trainer", t);
                rec_kv_int(w, "partner", row[t].partner);
                rec_kv_double(w, "own_loss", row[t].own_loss);
                rec_kv_double(w, "partner_loss", row[t].partner_loss);
                rec_kv_bool(w, "adopted", row[t].adopted);
                rec_kv_double(w, "eval_s", row[t].eval_s);
                rec_kv_str(w, "hash_before", hb);
                rec_kv_str(w, "hash_after", ha);
                rec_map_end(w);
            }
            rec_seq_end(w);
            rec_map_end(w);
        }
        rec_seq_end(w);
        rec_map_end(w);
    }
    rec_map_end(w);
}

void ens_result_free(ens_result *res)
{
    free(res->step_s);
    free(res->final_loss);
    free(res->rounds);
    free(res->own);
    memset(res, 0, sizeof *res);
}
