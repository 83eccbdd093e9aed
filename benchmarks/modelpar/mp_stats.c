#include "benchmarks/modelpar/mp_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

int64_t mp_stats_rss_bytes(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long long kb = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && sscanf(line + kl, "%lld", &kb) == 1) break;
    if (fclose(f) != 0) return -1;
    return kb < 0 ? -1 : (int64_t)kb * 1024;
}

static void gather(const mp_model *m)
{
    mp_stats *s = m->st;
    const mp_geom *g = &m->g;
    int64_t hwm = mp_stats_rss_bytes("VmHWM:");
    int64_t mine[3] = {hwm >= 0 && s->base_rss_bytes >= 0 ? hwm - s->base_rss_bytes : -1,
                       s->alloc_bytes, s->halo_bytes_step};
    int64_t *all = NULL;
    if (m->rank == 0) all = XCALLOC((size_t)g->ranks * 3, sizeof *all, "per-rank statistics");
    CHECK_MPI(MPI_Gather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, 0, m->halo));
    int64_t timed = s->steps_seen - s->warmup;
    double per[2] = {timed > 0 ? s->halo_s / (double)timed : 0, timed > 0 ? s->tp_s / (double)timed : 0},
           mx[2];
    CHECK_MPI(MPI_Reduce(per, mx, 2, MPI_DOUBLE, MPI_MAX, 0, m->halo));
    s->halo_s_max = mx[0], s->tp_s_max = mx[1];
    if (m->rank != 0) return;
    s->rank_hwm_bytes = XCALLOC((size_t)g->ranks, sizeof(int64_t), "per-rank memory");
    s->rank_alloc_bytes = XCALLOC((size_t)g->ranks, sizeof(int64_t), "per-rank memory");
    s->rank_halo_bytes = XCALLOC((size_t)g->ranks, sizeof(int64_t), "per-rank halo");
    for (int r = 0; r < g->ranks; r++) {
        s->rank_hwm_bytes[r] = all[3 * r];
        s->rank_alloc_bytes[r] = all[3 * r + 1];
        s->rank_halo_bytes[r] = all[3 * r + 2];
        if (r < g->M) s->group_halo_bytes += all[3 * r + 2];
    }
    free(all);
    s->gathered = 1;
}

void mp_stats_step(const mp_model *m, double halo_s, int64_t bytes, int64_t msgs, double tp_s,
                   int64_t tp_bytes)
{
    mp_stats *s = m->st;
    s->steps_seen++;
    if (s->steps_seen > s->warmup) s->halo_s += halo_s, s->tp_s += tp_s;
    s->tp_bytes_step = tp_bytes;
    s->halo_bytes_step = bytes;
    s->halo_msgs_step = msgs;
    if (m->mpi && s->steps_seen == s->total_steps) gather(m);
}

void mp_stats_write(const mp_model *m, rec_t *w)
{
    const mp_geom *g = &m->g;
    const mp_stats *s = m->st;
    int64_t n = g->cfg.run.batch, rank0_halo, group_halo = mp_geom_halo_bytes(g, n, &rank0_halo);
    (void)rank0_halo;
    int R = g->groups;
    int64_t shard_bytes = g->params_rank * (int64_t)sizeof(float);
    rec_key(w, "model_parallel");
    rec_map_begin(w);
    rec_kv_int(w, "model_ranks", g->M);
    rec_key(w, "grid");
    rec_flow_seq_begin(w);
    rec_int(w, g->gy);
    rec_int(w, g->gx);
    rec_seq_end(w);
    rec_key(w, "tile");
    rec_flow_seq_begin(w);
    rec_int(w, g->th);
    rec_int(w, g->tw);
    rec_seq_end(w);
    rec_kv_int(w, "replicas", R);
    rec_kv_int(w, "parameters", g->params_total);
    rec_kv_int(w, "parameters_per_rank", g->params_rank);
    rec_kv_int(w, "halo_bytes_per_step_formula", group_halo);
    rec_kv_int(w, "dense", g->cfg.dense);
    rec_kv_int(w, "tp_bytes_per_step_rank_formula", mp_geom_tp_bytes(g, n));
    rec_kv_int(w, "allreduce_bytes_per_step_rank",
               R > 1 ? (int64_t)(2.0 * (R - 1) / R * (double)shard_bytes) : 0);
    rec_kv_int(w, "memory_bytes_per_rank_formula",
               mp_geom_rank_bytes(g, n));
    if (s && s->gathered) {
        rec_kv_int(w, "halo_bytes_per_step", s->group_halo_bytes);
        rec_kv_int(w, "halo_messages_per_step_rank0", s->halo_msgs_step);
        rec_kv_double(w, "halo_s_per_step", s->halo_s_max);
        rec_kv_int(w, "tp_bytes_per_step_rank0", s->tp_bytes_step);
        rec_kv_double(w, "tp_s_per_step", s->tp_s_max);
        rec_kv_ints(w, "rank_halo_bytes_per_step", s->rank_halo_bytes, (size_t)g->ranks);
        rec_kv_ints(w, "rank_alloc_bytes", s->rank_alloc_bytes, (size_t)g->ranks);
        rec_kv_ints(w, "rank_hwm_bytes", s->rank_hwm_bytes, (size_t)g->ranks);
    }
    rec_kv_str(w, "note", "halo bytes: fp32 sent by the ranks of model group 0 in one step "
                          "(forward and backward); tp: the dense pair's allgathers and reduce-scatters, "
                          "(M-1)/M of the whole each, per rank; allreduce: 2 (R-1)/R of a shard per rank; "
                          "hwm: VmHWM less VmRSS before the buffers (optimizer state included)");
    rec_map_end(w);
}
