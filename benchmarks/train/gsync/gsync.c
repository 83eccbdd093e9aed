/* gsync: the engine's set-up (gsync.h): options, tensors and their groups,
 * the orchestration and the thread, and their release; the step's calls are
 * gsync_step.c's. */
#include "benchmarks/train/gsync/gsync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/gsync/gsync_impl.h"

void gsync_cfg_default(gsync_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->orchestration = GS_BITVECTOR;
    c->cache_capacity = 1024; /* Horovod's default */
    c->grouping = GS_GROUP_LAYER;
    c->fusion_bytes = 8 << 20; /* the 2019 production runs */
    c->cycle_ms = 1.0;
    c->timeout_s = 60.0;
    c->poll_us = 20;
}

int gsync_parse_grouping(gsync_cfg *c, const char *text)
{
    if (!strcmp(text, "none")) {
        c->grouping = GS_GROUP_NONE;
        return 0;
    }
    if (!strcmp(text, "layer")) {
        c->grouping = GS_GROUP_LAYER;
        return 0;
    }
    char *end;
    long n = strtol(text, &end, 10);
    if (end == text || *end || n < 1 || n > 1000000) return -1;
    c->grouping = GS_GROUP_COUNT;
    c->groups = (int)n;
    return 0;
}

/* Groups of contiguous tensors (in backward order) of about equal bytes, none
 * empty: a group closes once the bytes so far reach its share of the total,
 * or when every tensor left is needed to give each later group one. */
static void group_by_bytes(gsync_t *g, int want)
{
    int64_t total = 0, acc = 0;
    for (int t = 0; t < g->T; t++) total += g->tensors[t].count;
    int G = want < g->T ? want : g->T, cur = 0, in_cur = 0;
    for (int t = 0; t < g->T; t++) {
        int groups_left = G - 1 - cur, tensors_left = g->T - t;
        if (in_cur > 0 && cur < G - 1 &&
            ((double)acc >= (double)total * (cur + 1) / G || tensors_left == groups_left)) {
            cur++;
            in_cur = 0;
        }
        g->group_of[t] = cur;
        in_cur++;
        acc += g->tensors[t].count;
    }
    g->G = cur + 1;
}

static void make_groups(gsync_t *g)
{
    g->group_of = XCALLOC((size_t)g->T, sizeof *g->group_of, "gradient groups");
    if (g->cfg.grouping == GS_GROUP_COUNT) {
        group_by_bytes(g, g->cfg.groups);
    } else if (g->cfg.grouping == GS_GROUP_LAYER) {
        /* layers appear in backward order: number groups by first appearance */
        g->G = 0;
        for (int t = 0; t < g->T; t++) {
            if (t == 0 || g->tensors[t].layer != g->tensors[t - 1].layer) g->G++;
            g->group_of[t] = g->G - 1;
        }
    } else {
        g->G = g->T;
        for (int t = 0; t < g->T; t++) g->group_of[t] = t;
    }
    g->labels = XCALLOC((size_t)g->G, sizeof *g->labels, "group labels");
    g->group_bytes = XCALLOC((size_t)g->G, sizeof *g->group_bytes, "group sizes");
    for (int t = 0; t < g->T; t++) {
        int k = g->group_of[t];
        g->group_bytes[k] += g->tensors[t].count * (int64_t)sizeof(float);
        if (g->labels[k][0]) continue;
        if (g->cfg.grouping == GS_GROUP_COUNT)
            snprintf(g->labels[k], sizeof g->labels[k], "g%d", k);
        else if (g->cfg.grouping == GS_GROUP_LAYER)
            snprintf(g->labels[k], sizeof g->labels[k], "%.*s", (int)strlen(g->tensors[t].name) - 2,
                     g->tensors[t].name);
        else
            snprintf(g->labels[k], sizeof g->labels[k], "%s", g->tensors[t].name);
    }
}

gsync_t *gsync_create(const gsync_cfg *cfg, comm_t *comm, gsync_transport tr,
                      const gsync_tensor *tensors, int ntensors, int nlayers, float *grad,
                      char *err, size_t errlen)
{
    if (ntensors < 1 || cfg->fusion_bytes < (int64_t)sizeof(float) || cfg->cycle_ms < 0) {
        snprintf(err, errlen, "gradient reduction: %d tensors, fusion %lld bytes, cycle %g ms",
                 ntensors, (long long)cfg->fusion_bytes, cfg->cycle_ms);
        return NULL;
    }
    gsync_t *g = XCALLOC(1, sizeof *g, "gradient reduction");
    g->cfg = *cfg;
    g->comm = comm;
    g->tr = tr;
    g->builtin_mpi = tr.allreduce == NULL;
    g->grad = grad;
    g->T = ntensors;
    g->nlayers = nlayers;
    g->tensors = XMALLOC((size_t)ntensors * sizeof *g->tensors, "gradient tensors");
    memcpy(g->tensors, tensors, (size_t)ntensors * sizeof *g->tensors);
    g->layer_first = XMALLOC((size_t)nlayers * sizeof(int), "layer tensors");
    g->layer_n = XCALLOC((size_t)nlayers, sizeof(int), "layer tensors");
    for (int t = 0; t < g->T; t++) {
        int l = g->tensors[t].layer;
        CHECK(l >= 0 && l < nlayers, "tensor %s: layer %d out of range", g->tensors[t].name, l);
        if (g->layer_n[l]++ == 0) g->layer_first[l] = t;
        CHECK(g->layer_first[l] + g->layer_n[l] - 1 == t, "tensors of layer %d are not adjacent", l);
    }
    make_groups(g);
    g->tensor_ready = XCALLOC((size_t)g->T, sizeof *g->tensor_ready, "ready times");
    g->gt = XCALLOC((size_t)g->G, sizeof *g->gt, "group times");
    g->pending = XCALLOC((size_t)g->T, sizeof *g->pending, "ready tensors");
    g->group_call0 = XMALLOC((size_t)g->G * sizeof(int), "group reductions");
    g->group_call1 = XMALLOC((size_t)g->G * sizeof(int), "group reductions");
    g->released = XMALLOC((size_t)g->G * sizeof *g->released, "released groups");
    g->local = XMALLOC((size_t)g->T * sizeof *g->local, "ready tensors");
    g->b_bufs = XMALLOC((size_t)g->T * sizeof *g->b_bufs, "fusion list");
    g->b_counts = XMALLOC((size_t)g->T * sizeof *g->b_counts, "fusion list");
    g->b_slots = XMALLOC((size_t)g->T * sizeof *g->b_slots, "fusion list");
    g->step.groups = g->gt;
    g->drop_layer = -1;
    const char *drop = getenv("EXADL_GSYNC_DROP");
    int drop_rank, drop_l;
    if (drop && sscanf(drop, "%d:%d", &drop_rank, &drop_l) == 2 && drop_rank == comm->rank)
        g->drop_layer = drop_l;

    /* the transport's slots serve one rank too (device ready times); a call
     * of several tensors holds at most fusion_bytes (the engine flushes
     * before a tensor would pass it) and at most the whole gradient */
    if (g->tr.prepare) {
        int64_t all = 0;
        for (int t = 0; t < g->T; t++) all += g->tensors[t].count;
        int64_t fused = cfg->fusion_bytes / (int64_t)sizeof(float);
        if (fused > all) fused = all;
        g->tr.prepare(g->tr.ctx, g->T, comm->size > 1 && g->tr.allreduce ? fused : 0);
    }
    g->rcomm = MPI_COMM_NULL;
    if (comm->size > 1) {
        int level;
        CHECK_MPI(MPI_Query_thread(&level));
        if (level < MPI_THREAD_SERIALIZED && !cfg->inline_engine) {
            snprintf(err, errlen,
                     "gradient reduction: the MPI library gives thread level %d; the engine's "
                     "background thread needs MPI_THREAD_SERIALIZED",
                     level);
            gsync_free(g);
            return NULL;
        }
        CHECK_MPI(MPI_Comm_dup(comm->world, &g->rcomm));
        int *ids = XMALLOC((size_t)g->T * sizeof *ids, "group ids");
        memcpy(ids, g->group_of, (size_t)g->T * sizeof *ids);
        orch_config_t oc = {
            .mode = cfg->orchestration == GS_BITVECTOR && cfg->cache_capacity > 0 ? ORCH_CACHE
                                                                                  : ORCH_COORDINATOR,
            .grouping = ORCH_GROUP_LAYER, /* any assignment: our group ids */
            .ntensors = g->T,
            .layer = ids,
            .timeout_s = cfg->timeout_s,
            .comm = comm->world,
            .cache_capacity = cfg->cache_capacity,
            .poll_us = cfg->poll_us,
        };
        g->orch = orch_create(&oc, err, errlen);
        free(ids);
        if (!g->orch) {
            gsync_free(g);
            return NULL;
        }
        CHECK(orch_ngroups(g->orch) == g->G, "orchestration made %d groups, expected %d",
              orch_ngroups(g->orch), g->G);
        if (cfg->inline_engine) {
            g->inline_up = 1;
            return g;
        }
        pthread_mutex_init(&g->mu, NULL);
        pthread_cond_init(&g->cv, NULL);
        CHECK(pthread_create(&g->thread, NULL, gsync_engine_main, g) == 0,
              "cannot start the gradient-reduction thread");
        g->thread_up = 1;
    }
    return g;
}

void gsync_free(gsync_t *g)
{
    if (!g) return;
    if (g->thread_up) {
        pthread_mutex_lock(&g->mu);
        g->quit = 1;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        pthread_join(g->thread, NULL);
        pthread_mutex_destroy(&g->mu);
        pthread_cond_destroy(&g->cv);
    }
    orch_destroy(g->orch);
    if (g->rcomm != MPI_COMM_NULL) MPI_Comm_free(&g->rcomm);
    free(g->tensors);
    free(g->layer_first);
    free(g->layer_n);
    free(g->group_of);
    free(g->labels);
    free(g->group_bytes);
    free(g->tensor_ready);
    free(g->gt);
    free(g->pending);
    free(g->group_call0);
    free(g->group_call1);
    free(g->released);
    free(g->local);
    free(g->b_bufs);
    free(g->b_counts);
    free(g->b_slots);
    free(g->fusion);
    free(g);
}

int gsync_ngroups(const gsync_t *g) { return g->G; }
const char *gsync_group_label(const gsync_t *g, int group) { return g->labels[group]; }
int64_t gsync_group_bytes(const gsync_t *g, int group) { return g->group_bytes[group]; }
int gsync_group_of(const gsync_t *g, int tensor) { return g->group_of[tensor]; }
const gsync_tensor *gsync_tensor_at(const gsync_t *g, int tensor) { return &g->tensors[tensor]; }
int gsync_ntensors(const gsync_t *g) { return g->T; }

void gsync_set_exchange(gsync_t *g, gsync_exchange x) { g->xchg = x; }
