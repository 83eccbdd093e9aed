/* The model-parallel step model (mpar.h): pure arithmetic. */
#include "harness/model/mpar.h"

#include <string.h>

int mpar_auto_grid(int M, int size, int *gy, int *gx)
{
    *gy = *gx = 0;
    for (int y = 1; (long long)y * y <= M; y++)
        if (M % y == 0 && size % y == 0 && size % (M / y) == 0) *gy = y, *gx = M / y;
    return *gy > 0 ? 0 : -1;
}

void mpar_bytes(const mpw_t *w, const mpc_t *c, mpb_t *out)
{
    memset(out, 0, sizeof *out);
    double p = (w->kernel - 1) / 2, n = c->batch;
    double th = (double)w->size / c->gy, tw = (double)w->size / c->gx;
    double nx = c->gx - 1 < 2 ? c->gx - 1 : 2, ny = c->gy - 1 < 2 ? c->gy - 1 : 2;
    const int cin[2] = {w->hidden1, w->hidden2}; /* the inputs of layers 2 and 3 */
    for (int l = 0; l < 2; l++) {
        double col = p * th * cin[l] * n, row = p * (tw + 2 * p) * cin[l] * n;
        /* forward and backward (x 2), fp32 (x 4) */
        out->halo_group +=
            2.0 * (2.0 * (c->gx - 1) * c->gy * col + 2.0 * (c->gy - 1) * c->gx * row) * 4;
        out->halo_rank_max += 2.0 * (nx * col + ny * row) * 4;
        out->halo_msgs_rank += 2.0 * (nx + ny);
    }
    double T = th * tw;
    out->tp_rank = w->dense > 0 ? 4.0 * (c->M - 1) * T * n * w->hidden2 * 4 : 0;
    out->shard_bytes = 4.0 * w->params / c->M;
    out->allreduce_rank =
        c->replicas > 1 ? 2.0 * (c->replicas - 1) / c->replicas * out->shard_bytes : 0;
}

int mpar_predict(const mpw_t *w, const mpc_t *c, const mnet_t *net, const mnet_t *ar_net,
                 mpp_t *out)
{
    memset(out, 0, sizeof *out);
    int p = (w->kernel - 1) / 2;
    if (c->M < 1 || c->replicas < 1 || c->batch < 1 || c->gy * c->gx != c->M || w->size % c->gy ||
        w->size % c->gx || (c->M > 1 && (w->size / c->gy < p || w->size / c->gx < p)) ||
        (w->dense > 0 && w->dense % c->M))
        return -1;
    out->c = *c;
    out->ranks = c->M * c->replicas;
    mpar_bytes(w, c, &out->b);
    int rpn = net->ranks_per_node > 0 ? net->ranks_per_node : out->ranks;
    out->inter = c->M > rpn;
    const mlink_t *l = out->inter ? &net->inter : &net->intra;
    out->compute_s = w->compute_s * w->base_M / c->M * c->batch / w->base_batch;
    out->halo_s =
        c->M > 1 ? out->b.halo_msgs_rank * l->alpha_s + out->b.halo_rank_max * l->beta_s : 0;
    if (w->dense > 0 && c->M > 1) {
        double whole = (double)w->size * w->size * c->batch * w->hidden2 * 4;
        out->tp_s = 4.0 * (c->M - 1) * l->alpha_s + out->b.tp_rank * l->beta_s +
                    2.0 * (c->M - 1) / c->M * whole * l->gamma_s;
    }
    /* the replicas of a shard (ranks r, r + M, ...): on one node only where
     * a node holds several model groups */
    mnet_t ar = ar_net ? *ar_net : *net;
    ar.ranks_per_node = rpn / c->M > 1 ? rpn / c->M : 1;
    if (ar_net || net->ranks_per_node <= 0) ar.ranks_per_node = 0;
    out->allreduce_s =
        c->replicas > 1 ? model_allreduce(out->b.shard_bytes, c->replicas, &ar, NULL) + c->cycle_s
                        : 0;
    out->opt_s = w->opt_s * w->base_M / c->M;
    out->other_s = w->other_s;
    out->step_s =
        out->compute_s + out->halo_s + out->tp_s + out->allreduce_s + out->opt_s + out->other_s;
    out->samples_per_s = out->step_s > 0 ? c->batch * (double)c->replicas / out->step_s : 0;
    return 0;
}
