#include "benchmarks/common/mpi/orch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/mpi/smpi_block.h"
#include "benchmarks/common/timer.h"

const char *const orch_mode_names[] = {"coordinator", "cache", NULL};
const char *const orch_grouping_names[] = {"none", "layer", "even", NULL};

struct orch {
    orch_config_t cfg;
    MPI_Comm comm;
    int rank, size;
    int T, G;
    int *group_of;          /* T */
    int *gstart, *members;  /* group g: members[gstart[g] .. gstart[g + 1]) */
    /* this step */
    unsigned char *ready;   /* marked on this rank */
    unsigned char *sent;    /* reported to the coordinator */
    unsigned char *gready;  /* ready on every rank */
    unsigned char *released;/* per group */
    int *gmissing;          /* per group: members not yet ready everywhere */
    int nreleased;
    int *pending;           /* marked, not yet reported, in marking order */
    int npending;
    double last_progress;
    /* response cache */
    unsigned char *cached;  /* kept across steps, identical on all ranks */
    int ncached;
    uint64_t *bits, *bits_and; /* bits: ready here, cached, not yet ready everywhere */
    int nwords;
    int uncached_waiting;   /* ready here, not cached, not yet sent */
    /* coordinator state (rank 0) */
    int *count;             /* ranks that reported each tensor */
    int *hdrs, *displs, *recvcounts, *gathered;
    /* scratch */
    int *newly;             /* tensors found ready everywhere this cycle */
    orch_stats_t stats;
};

static void set_bit(uint64_t *v, int i) { v[i / 64] |= (uint64_t)1 << (i % 64); }
static void clear_bit(uint64_t *v, int i) { v[i / 64] &= ~((uint64_t)1 << (i % 64)); }
static int get_bit(const uint64_t *v, int i) { return (int)((v[i / 64] >> (i % 64)) & 1u); }

orch_t *orch_create(const orch_config_t *cfg, char *err, size_t errlen)
{
    if (cfg->ntensors < 1) {
        snprintf(err, errlen, "orchestration needs at least one tensor (got %d)", cfg->ntensors);
        return NULL;
    }
    if (cfg->mode != ORCH_COORDINATOR && cfg->mode != ORCH_CACHE) {
        snprintf(err, errlen, "unknown orchestration mode %d", (int)cfg->mode);
        return NULL;
    }
    if (cfg->grouping == ORCH_GROUP_EVEN && cfg->ngroups < 1) {
        snprintf(err, errlen, "even grouping needs at least one group (got %d)", cfg->ngroups);
        return NULL;
    }
    if (cfg->grouping < ORCH_GROUP_NONE || cfg->grouping > ORCH_GROUP_EVEN) {
        snprintf(err, errlen, "unknown grouping %d", (int)cfg->grouping);
        return NULL;
    }
    orch_t *o = XCALLOC(1, sizeof *o, "orchestration");
    o->cfg = *cfg;
    o->cfg.layer = NULL;
    CHECK_MPI(MPI_Comm_dup(cfg->comm, &o->comm));
    CHECK_MPI(MPI_Comm_rank(o->comm, &o->rank));
    CHECK_MPI(MPI_Comm_size(o->comm, &o->size));
    int T = o->T = cfg->ntensors;
    o->group_of = XCALLOC((size_t)T, sizeof *o->group_of, "groups");
    switch (cfg->grouping) {
    case ORCH_GROUP_NONE:
        o->G = T;
        for (int t = 0; t < T; t++) o->group_of[t] = t;
        break;
    case ORCH_GROUP_LAYER: {
        /* groups numbered by first appearance of each layer id */
        int *ids = XCALLOC((size_t)T, sizeof *ids, "layers");
        o->G = 0;
        for (int t = 0; t < T; t++) {
            int id = cfg->layer ? cfg->layer[t] : t, g;
            for (g = 0; g < o->G && ids[g] != id; g++) {}
            if (g == o->G) ids[o->G++] = id;
            o->group_of[t] = g;
        }
        free(ids);
        break;
    }
    case ORCH_GROUP_EVEN:
        o->G = cfg->ngroups < T ? cfg->ngroups : T;
        for (int t = 0; t < T; t++) o->group_of[t] = (int)((long long)t * o->G / T);
        break;
    }
    o->cfg.ngroups = o->G;
    int G = o->G;
    o->gstart = XCALLOC((size_t)G + 1, sizeof *o->gstart, "groups");
    o->members = XCALLOC((size_t)T, sizeof *o->members, "groups");
    for (int t = 0; t < T; t++) o->gstart[o->group_of[t] + 1]++;
    for (int g = 0; g < G; g++) o->gstart[g + 1] += o->gstart[g];
    int *fill = XCALLOC((size_t)G, sizeof *fill, "groups");
    for (int t = 0; t < T; t++) {
        int g = o->group_of[t];
        o->members[o->gstart[g] + fill[g]++] = t;
    }
    free(fill);
    o->ready = XCALLOC((size_t)T, 1, "orchestration state");
    o->sent = XCALLOC((size_t)T, 1, "orchestration state");
    o->gready = XCALLOC((size_t)T, 1, "orchestration state");
    o->cached = XCALLOC((size_t)T, 1, "orchestration state");
    o->released = XCALLOC((size_t)G, 1, "orchestration state");
    o->gmissing = XCALLOC((size_t)G, sizeof *o->gmissing, "orchestration state");
    o->pending = XCALLOC((size_t)T, sizeof *o->pending, "orchestration state");
    o->newly = XCALLOC((size_t)T, sizeof *o->newly, "orchestration state");
    o->nwords = (T + 2 + 63) / 64;
    o->bits = XCALLOC((size_t)o->nwords, sizeof *o->bits, "bit vector");
    o->bits_and = XCALLOC((size_t)o->nwords, sizeof *o->bits_and, "bit vector");
    if (o->rank == 0) {
        o->count = XCALLOC((size_t)T, sizeof *o->count, "coordinator");
        o->hdrs = XCALLOC(2 * (size_t)o->size, sizeof *o->hdrs, "coordinator");
        o->displs = XCALLOC((size_t)o->size, sizeof *o->displs, "coordinator");
        o->recvcounts = XCALLOC((size_t)o->size, sizeof *o->recvcounts, "coordinator");
        o->gathered = XCALLOC((size_t)T * (size_t)o->size, sizeof *o->gathered, "coordinator");
    }
    orch_step_begin(o);
    return o;
}

void orch_destroy(orch_t *o)
{
    if (!o) return;
    MPI_Comm_free(&o->comm);
    free(o->group_of);
    free(o->gstart);
    free(o->members);
    free(o->ready);
    free(o->sent);
    free(o->gready);
    free(o->cached);
    free(o->released);
    free(o->gmissing);
    free(o->pending);
    free(o->newly);
    free(o->bits);
    free(o->bits_and);
    free(o->count);
    free(o->hdrs);
    free(o->displs);
    free(o->recvcounts);
    free(o->gathered);
    free(o);
}

int orch_ngroups(const orch_t *o) { return o->G; }
int orch_group_of(const orch_t *o, int tensor) { return o->group_of[tensor]; }

const int *orch_group_members(const orch_t *o, int g, int *n)
{
    *n = o->gstart[g + 1] - o->gstart[g];
    return o->members + o->gstart[g];
}

orch_stats_t orch_stats(const orch_t *o) { return o->stats; }

void orch_step_begin(orch_t *o)
{
    memset(o->ready, 0, (size_t)o->T);
    memset(o->sent, 0, (size_t)o->T);
    memset(o->gready, 0, (size_t)o->T);
    memset(o->released, 0, (size_t)o->G);
    for (int g = 0; g < o->G; g++) o->gmissing[g] = o->gstart[g + 1] - o->gstart[g];
    if (o->count) memset(o->count, 0, (size_t)o->T * sizeof *o->count);
    memset(o->bits, 0, (size_t)o->nwords * sizeof *o->bits);
    o->uncached_waiting = 0;
    o->nreleased = 0;
    o->npending = 0;
    o->last_progress = timer_now_s();
}

void orch_mark_ready(orch_t *o, int tensor)
{
    CHECK(tensor >= 0 && tensor < o->T, "tensor %d out of range (0..%d)", tensor, o->T - 1);
    if (o->ready[tensor]) return;
    o->ready[tensor] = 1;
    o->pending[o->npending++] = tensor; /* at most once per step: fits in T */
    if (o->cfg.mode == ORCH_CACHE) {
        if (o->cached[tensor]) set_bit(o->bits, tensor);
        else o->uncached_waiting++;
    }
}

int orch_step_done(const orch_t *o) { return o->nreleased == o->G; }

/* One coordinator round for the ready tensors not yet reported (in cache mode
 * only the uncached ones).  Appends the tensors now ready everywhere to
 * o->newly (rank 0's discovery order, broadcast) and returns the new length;
 * *timed_out gets whether any rank asked to stop. */
static int coordinator_round(orch_t *o, int only_uncached, int nnew, int local_timeout,
                             int *timed_out)
{
    o->stats.coordinator_rounds++;
    /* the requests: newly ready tensors in marking order */
    int k = 0;
    for (int i = 0; i < o->npending; i++) {
        int t = o->pending[i];
        if (o->sent[t] || (only_uncached && o->cached[t])) continue;
        o->pending[k++] = t;
    }
    o->npending = k;
    int hdr[2] = {k, local_timeout};
    MPI_Request rq;
    CHECK_MPI(MPI_Igather(hdr, 2, MPI_INT, o->hdrs, 2, MPI_INT, 0, o->comm, &rq));
    comm_wait(&rq, o->cfg.poll_us);
    if (o->rank == 0) {
        int off = 0;
        for (int r = 0; r < o->size; r++) {
            o->recvcounts[r] = o->hdrs[2 * r];
            o->displs[r] = off;
            off += o->recvcounts[r];
        }
    }
    CHECK_MPI(MPI_Igatherv(o->pending, k, MPI_INT, o->gathered, o->recvcounts, o->displs, MPI_INT,
                           0, o->comm, &rq));
    comm_wait(&rq, o->cfg.poll_us);
    o->stats.requests += k;
    for (int i = 0; i < k; i++) o->sent[o->pending[i]] = 1;
    if (only_uncached) o->uncached_waiting -= k;
    o->npending = 0;
    int resp_hdr[2] = {0, 0};
    int *list = o->newly + nnew;
    if (o->rank == 0) {
        int n = 0, stop = 0;
        for (int r = 0; r < o->size; r++) {
            stop |= o->hdrs[2 * r + 1];
            for (int i = 0; i < o->recvcounts[r]; i++) {
                int t = o->gathered[o->displs[r] + i];
                if (++o->count[t] == o->size) list[n++] = t;
            }
        }
        resp_hdr[0] = n;
        resp_hdr[1] = stop;
    }
    CHECK_MPI(MPI_Ibcast(resp_hdr, 2, MPI_INT, 0, o->comm, &rq));
    comm_wait(&rq, o->cfg.poll_us);
    if (resp_hdr[0] > 0) {
        CHECK_MPI(MPI_Ibcast(list, resp_hdr[0], MPI_INT, 0, o->comm, &rq));
        comm_wait(&rq, o->cfg.poll_us);
    }
    *timed_out = resp_hdr[1];
    return nnew + resp_hdr[0];
}


/* The step has stalled: every rank learns who is missing what. */
static int timeout_error(orch_t *o, char *err, size_t errlen)
{
    unsigned char *all = XMALLOC((size_t)o->T * (size_t)o->size, "diagnostics");
    CHECK_MPI(MPI_Allgather(o->ready, o->T, MPI_UNSIGNED_CHAR, all, o->T, MPI_UNSIGNED_CHAR,
                            o->comm));
    int used = snprintf(err, errlen,
                        "orchestration: step stalled for more than %g s with %d of %d groups "
                        "unreleased:",
                        o->cfg.timeout_s, o->G - o->nreleased, o->G);
    int shown = 0;
    for (int t = 0; t < o->T && used < (int)errlen - 64 && shown < 4; t++) {
        if (o->released[o->group_of[t]]) continue;
        int first = 1, any = 0;
        for (int r = 0; r < o->size && used < (int)errlen - 32; r++) {
            if (all[(size_t)r * o->T + t]) continue;
            if (first)
                used += snprintf(err + used, errlen - (size_t)used, "%s tensor %d (group %d) not ready on rank %d",
                                 shown ? ";" : "", t, o->group_of[t], r);
            else
                used += snprintf(err + used, errlen - (size_t)used, ",%d", r);
            first = 0;
            any = 1;
        }
        shown += any;
    }
    free(all);
    return -1;
}

int orch_cycle(orch_t *o, int *released, char *err, size_t errlen)
{
    o->stats.cycles++;
    int local_timeout = o->cfg.timeout_s > 0 && !orch_step_done(o) &&
                        timer_now_s() - o->last_progress > o->cfg.timeout_s;
    int nnew = 0, timed_out = 0;
    if (o->cfg.mode == ORCH_COORDINATOR) {
        nnew = coordinator_round(o, 0, 0, local_timeout, &timed_out);
    } else {
        /* the vector is kept up to date by orch_mark_ready and the releases:
         * a cycle costs O(T / 64) here plus the allreduce */
        if (o->uncached_waiting == 0) set_bit(o->bits, o->T); /* nothing for the coordinator */
        else clear_bit(o->bits, o->T);
        if (!local_timeout) set_bit(o->bits, o->T + 1);       /* keep going */
        else clear_bit(o->bits, o->T + 1);
        MPI_Request rq;
        CHECK_MPI(MPI_Iallreduce(o->bits, o->bits_and, o->nwords, MPI_UINT64_T, MPI_BAND, o->comm,
                                 &rq));
        comm_wait(&rq, o->cfg.poll_us);
        o->stats.bitvector_rounds++;
        timed_out = !get_bit(o->bits_and, o->T + 1);
        if (!get_bit(o->bits_and, o->T)) {
            int stop = 0;
            nnew = coordinator_round(o, 1, 0, local_timeout, &stop);
            /* identical everywhere: the same list in the same order on every rank */
            for (int i = 0; i < nnew; i++) {
                if (o->cfg.cache_capacity > 0 && o->ncached >= o->cfg.cache_capacity) break;
                o->cached[o->newly[i]] = 1;
                o->ncached++;
            }
        }
        clear_bit(o->bits_and, o->T);
        clear_bit(o->bits_and, o->T + 1);
        for (int w = 0; w < o->nwords; w++)
            for (uint64_t x = o->bits_and[w]; x; x &= x - 1)
                o->newly[nnew++] = w * 64 + __builtin_ctzll(x);
    }
    /* release the groups completed by the tensors found ready everywhere */
    int nrel = 0;
    for (int i = 0; i < nnew; i++) {
        int t = o->newly[i];
        if (o->gready[t]) continue;
        o->gready[t] = 1;
        clear_bit(o->bits, t);
        int g = o->group_of[t];
        if (--o->gmissing[g] == 0 && !o->released[g]) {
            o->released[g] = 1;
            released[nrel++] = g;
        }
    }
    o->nreleased += nrel;
    if (nrel) o->last_progress = timer_now_s();
    if (timed_out) return timeout_error(o, err, errlen);
    return nrel;
}
