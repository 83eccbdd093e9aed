/* sr_master: the master's population, decisions and message loop (sr_master.h). */
#define _GNU_SOURCE
#include "benchmarks/search/sr_master.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/search/sr_wait.h"

typedef struct {
    const sr_cfg *c;
    int ngroups;
    sr_cand *cand;
    int64_t cap;
    int *pop, npop;          /* candidate ids of the population */
    unsigned char *seen;     /* [space size / 8] configurations already generated */
    rng_t rng;
    sr_genome opt;
    sr_stats *st;
    double t0;
    int64_t *inflight;       /* [group] candidate id, -1: free */
    int stop;
} master_t;

static int was_seen(const master_t *m, int64_t code) { return m->seen[code >> 3] >> (code & 7) & 1; }

/* A configuration never generated: random tries, then the next unseen code
 * after a random one; -1 when the space is exhausted. */
static int64_t random_unseen(master_t *m, sr_genome *x)
{
    for (int t = 0; t < 64; t++) {
        sr_random(&m->rng, x);
        if (!was_seen(m, sr_code(x))) return sr_code(x);
    }
    int64_t n = sr_space_size(), s = (int64_t)(rng_next(&m->rng) % (uint64_t)n);
    for (int64_t i = 0; i < n; i++)
        if (!was_seen(m, (s + i) % n)) {
            sr_decode((s + i) % n, x);
            return (s + i) % n;
        }
    return -1;
}

/* The better of two members drawn at random. */
static int tournament(master_t *m)
{
    int a = m->pop[rng_next(&m->rng) % (uint64_t)m->npop], b = m->pop[rng_next(&m->rng) % (uint64_t)m->npop];
    return m->cand[b].fitness < m->cand[a].fitness ? b : a;
}

/* One new candidate; its id, or -1 when nothing is left to generate. */
static int64_t generate(master_t *m)
{
    const sr_cfg *c = m->c;
    if (m->st->generated >= c->evals || m->stop) return -1;
    sr_cand k = {.parent_a = -1, .parent_b = -1, .group = -1, .done_rank = -1};
    int64_t code = -1;
    if (c->strategy == SR_EVOLVE && m->npop >= 2 && m->npop >= c->population / 2) {
        for (int t = 0; t < 32 && code < 0; t++) {
            k.parent_a = tournament(m);
            k.x = m->cand[k.parent_a].x;
            if (rng_next(&m->rng) & 1) {
                k.parent_b = tournament(m);
                sr_cross(&m->rng, &m->cand[k.parent_a].x, &m->cand[k.parent_b].x, &k.x);
            } else {
                k.parent_b = -1;
            }
            sr_mutate(&m->rng, &k.x);
            if (!was_seen(m, sr_code(&k.x))) code = sr_code(&k.x);
        }
    }
    if (code < 0) {
        k.parent_a = k.parent_b = -1;
        code = random_unseen(m, &k.x);
        if (code < 0) return -1;
    }
    m->seen[code >> 3] |= (unsigned char)(1u << (code & 7));
    int64_t id = m->st->generated++;
    CHECK(id < m->cap, "search: candidate table full");
    m->cand[id] = k;
    return id;
}

/* A result into the population: while it is not full, it joins; then it
 * replaces the worst member when it is better (steady state). */
static void update(master_t *m, int64_t id)
{
    const sr_cand *k = &m->cand[id];
    if (!k->valid || !isfinite(k->fitness)) return;
    if (m->npop < m->c->population) {
        m->pop[m->npop++] = (int)id;
        return;
    }
    int w = 0;
    for (int i = 1; i < m->npop; i++)
        if (m->cand[m->pop[i]].fitness > m->cand[m->pop[w]].fitness) w = i;
    if (k->fitness < m->cand[m->pop[w]].fitness) m->pop[w] = (int)id;
}

static void send_work(master_t *m, int g, int64_t id)
{
    int64_t msg[SR_WORK_LEN];
    msg[0] = id;
    for (int i = 0; i < SR_GENES; i++) msg[1 + i] = m->cand[id].x.g[i];
    m->cand[id].group = g;
    m->cand[id].sent_s = timer_now_s() - m->t0;
    m->inflight[g] = id;
    m->st->last_send_s = m->cand[id].sent_s;
    m->st->done_at_last_send = m->st->evaluated;
    CHECK_MPI(MPI_Send(msg, SR_WORK_LEN, MPI_INT64_T, 1 + g * m->c->group_ranks, SR_TAG_WORK,
                       MPI_COMM_WORLD));
    m->st->msgs_sent++;
    m->st->bytes_sent += (int64_t)sizeof msg;
}

/* The next result: from any group, or from the group holding replay's next
 * id.  Its group, or -1 with err when the replay names a candidate that is
 * not being evaluated. */
static int receive(master_t *m, const int64_t *replay, int64_t nreplay, char *err, size_t errlen)
{
    double res[SR_RESULT_LEN];
    int src = MPI_ANY_SOURCE;
    if (replay) {
        int64_t k = m->st->evaluated, want = k < nreplay ? replay[k] : -1;
        int g = -1;
        for (int i = 0; i < m->ngroups && g < 0; i++)
            if (want >= 0 && m->inflight[i] == want) g = i;
        if (want < 0) {
            snprintf(err, errlen, "--replay: the record lists %lld completions and this run has "
                     "more: the runs differ (seed or options)", (long long)nreplay);
            return -1;
        }
        if (g < 0) {
            snprintf(err, errlen, "--replay: the record's completion %lld is candidate %lld, which "
                     "this run is not evaluating: the runs differ (seed or options)", (long long)k,
                     (long long)want);
            return -1;
        }
        src = 1 + g * m->c->group_ranks;
    }
    MPI_Request rq;
    MPI_Status status;
    CHECK_MPI(MPI_Irecv(res, SR_RESULT_LEN, MPI_DOUBLE, src, SR_TAG_RESULT, MPI_COMM_WORLD, &rq));
    sr_wait(&rq, &status);
    m->st->msgs_recv++;
    m->st->bytes_recv += (int64_t)sizeof res;
    int g = (status.MPI_SOURCE - 1) / m->c->group_ranks;
    int64_t id = (int64_t)res[0];
    CHECK(g >= 0 && g < m->ngroups && m->inflight[g] == id, "search: a result for candidate %lld "
          "from rank %d, which was not evaluating it", (long long)id, status.MPI_SOURCE);
    m->inflight[g] = -1;
    sr_cand *k = &m->cand[id];
    k->fitness = res[1], k->flops = res[2], k->eval_s = res[3], k->valid = res[4] != 0;
    k->done_s = timer_now_s() - m->t0;
    k->done_rank = m->st->evaluated;
    sr_stats *st = m->st;
    st->order[st->evaluated++] = id;
    if (k->valid && (st->best < 0 || k->fitness < m->cand[st->best].fitness)) {
        st->best = id;
        st->curve_n[st->ncurve] = st->evaluated;
        st->curve_f[st->ncurve++] = k->fitness;
    }
    if (m->c->fitness == SR_PLANTED && k->fitness == 0 && st->evals_to_optimum < 0) {
        /* sync: the candidates up to it in candidate order (the generations before its own
         * and its own up to it), which no completion order changes; async: completions */
        st->evals_to_optimum = m->c->mode == SR_SYNC ? id + 1 : st->evaluated;
        if (m->c->stop_at_optimum) m->stop = 1;
    }
    return g;
}

/* A decision's host CPU time (and its simulated cost under SMPI). */
static double decision_begin(void) { return sr_host_cpu_s(); }
static void decision_end(master_t *m, double cpu0, double wall0)
{
    double d = sr_host_cpu_s() - cpu0;
    sr_charge(d);
    m->st->decision_cpu_s[m->st->decisions++] = d;
    m->st->decision_wall_s += timer_now_s() - wall0;
}

static int run_async(master_t *m, const int64_t *replay, int64_t nreplay, char *err, size_t errlen)
{
    int outstanding = 0;
    for (int g = 0; g < m->ngroups; g++) {
        double w0 = timer_now_s(), c0 = decision_begin();
        int64_t id = generate(m);
        decision_end(m, c0, w0);
        if (id < 0) break;
        send_work(m, g, id);
        outstanding++;
    }
    while (outstanding > 0) {
        int g = receive(m, replay, nreplay, err, errlen);
        if (g < 0) return -1;
        outstanding--;
        double w0 = timer_now_s(), c0 = decision_begin();
        update(m, m->st->order[m->st->evaluated - 1]);
        int64_t id = generate(m);
        decision_end(m, c0, w0);
        if (id >= 0) send_work(m, g, id), outstanding++;
    }
    return 0;
}

static int by_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int run_sync(master_t *m, const int64_t *replay, int64_t nreplay, char *err, size_t errlen)
{
    int B = m->c->generation > 0 ? m->c->generation : m->ngroups;
    int64_t *gen = XMALLOC((size_t)B * sizeof *gen, "a generation");
    int64_t *done = XMALLOC((size_t)B * sizeof *done, "a generation's results");
    int ndone = 0, rc = 0;
    for (;;) {
        /* the decision: the last generation's results in candidate order, then the next one */
        double w0 = timer_now_s(), c0 = decision_begin();
        qsort(done, (size_t)ndone, sizeof *done, by_id);
        for (int i = 0; i < ndone; i++) update(m, done[i]);
        int n = 0;
        for (; n < B; n++)
            if ((gen[n] = generate(m)) < 0) break;
        decision_end(m, c0, w0);
        if (n == 0) break;
        m->st->generations++;
        int next = 0, outstanding = 0;
        for (int g = 0; g < m->ngroups && next < n; g++) send_work(m, g, gen[next++]), outstanding++;
        ndone = 0;
        while (outstanding > 0) {
            int g = receive(m, replay, nreplay, err, errlen);
            if (g < 0) {
                rc = -1; /* the groups still busy finish before the stop (sr_master_run) */
                break;
            }
            outstanding--;
            done[ndone++] = m->st->order[m->st->evaluated - 1];
            if (next < n) send_work(m, g, gen[next++]), outstanding++;
        }
        if (rc) break;
    }
    free(gen);
    free(done);
    return rc;
}

int sr_master_run(const sr_cfg *c, int ngroups, const int64_t *replay, int64_t nreplay,
                  sr_cand **cands, sr_stats *st, char *err, size_t errlen)
{
    master_t m = {.c = c, .ngroups = ngroups, .st = st, .stop = 0};
    memset(st, 0, sizeof *st);
    st->best = st->evals_to_optimum = -1;
    m.cap = c->evals;
    m.cand = XCALLOC((size_t)m.cap, sizeof *m.cand, "candidates");
    m.pop = XMALLOC((size_t)c->population * sizeof *m.pop, "population");
    m.seen = XCALLOC((size_t)(sr_space_size() / 8 + 1), 1, "configurations seen");
    m.inflight = XMALLOC((size_t)ngroups * sizeof *m.inflight, "groups");
    for (int g = 0; g < ngroups; g++) m.inflight[g] = -1;
    /* decisions: one per candidate, one per group at the start, one per generation */
    st->decision_cpu_s = XMALLOC((size_t)(2 * c->evals + ngroups + 2) * sizeof(double), "decisions");
    st->order = XMALLOC((size_t)c->evals * sizeof *st->order, "completion order");
    st->curve_n = XMALLOC((size_t)c->evals * sizeof *st->curve_n, "best curve");
    st->curve_f = XMALLOC((size_t)c->evals * sizeof *st->curve_f, "best curve");
    m.rng = rng_stream(c->seed, 0x7365617263680aULL, (uint64_t)c->strategy, 0);
    sr_planted_optimum(c->seed, &m.opt);
    m.t0 = timer_now_s();
    int rc = c->mode == SR_ASYNC ? run_async(&m, replay, nreplay, err, errlen)
                                 : run_sync(&m, replay, nreplay, err, errlen);
    st->wall_s = timer_now_s() - m.t0;
    st->replayed = replay != NULL;
    /* a diverged replay leaves groups busy: wait for them, then stop every group */
    for (int g = 0; g < ngroups; g++)
        if (m.inflight[g] >= 0) {
            double res[SR_RESULT_LEN];
            CHECK_MPI(MPI_Recv(res, SR_RESULT_LEN, MPI_DOUBLE, 1 + g * c->group_ranks, SR_TAG_RESULT,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    for (int g = 0; g < ngroups; g++)
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT64_T, 1 + g * c->group_ranks, SR_TAG_STOP, MPI_COMM_WORLD));
    free(m.pop);
    free(m.seen);
    free(m.inflight);
    *cands = m.cand;
    return rc;
}

void sr_stats_free(sr_stats *st)
{
    free(st->decision_cpu_s);
    free(st->order);
    free(st->curve_n);
    free(st->curve_f);
}
