#include "benchmarks/networks/deepcam/cl_split.h"

#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"

int cl_split_of(const cl_plan *p) { return p->cfg.spatial > 1 ? p->cfg.spatial : 1; }

void cl_split_whole(const cl_plan *p, char *whole)
{
    for (int t = 0; t < p->nt; t++) whole[t] = 0;
    /* the op list is in forward order: a whole tensor's readers come after it */
    for (int i = 0; i < p->nop; i++) {
        const cl_op *o = &p->op[i];
        if (o->kind == CL_GPOOL) whole[o->out] = 1;
        else if (o->kind != CL_BCAST && whole[o->in]) whole[o->out] = 1;
    }
}

int cl_split_halo(const cl_plan *p, int i, int N)
{
    const cl_op *o = &p->op[i];
    if (N <= 1) return 0;
    if (o->kind == CL_TCONV) return 1;
    if (o->kind != CL_CONV) return 0;
    int H = p->t[o->in].h, reach = 0;
    for (int t = 0; t < o->g.k; t++) {
        int off = abs(-o->g.pad + t * o->g.dil);
        if (off < H && off > reach) reach = off;
    }
    int s = o->g.stride > 0 ? o->g.stride : 1;
    return (reach + s - 1) / s * s;
}

int cl_split_check(const cl_plan *p, int N, char *err, size_t errlen)
{
    if (N <= 1) return 0;
    char *whole = XCALLOC((size_t)p->nt, 1, "split tensors");
    cl_split_whole(p, whole);
    int rc = 0;
    /* the input first, then every op's output (every tiled map is one or the other) */
    for (int i = -1; i < p->nop && !rc; i++) {
        int t = i < 0 ? p->input : p->op[i].out;
        const char *name = i < 0 ? "the input" : p->op[i].name;
        int root = p->t[t].parent >= 0 ? p->t[t].parent : t, H = p->t[t].h;
        if (whole[root]) continue;
        if (H % N) {
            snprintf(err, errlen,
                     "--spatial %d: layer %s's height %d does not split into %d equal tiles "
                     "(every map's height must be a multiple of the ranks per sample)",
                     N, name, H, N);
            rc = -1;
            break;
        }
    }
    free(whole);
    return rc;
}

int cl_split_gathers(const cl_plan *p, int i, int N)
{
    const cl_op *o = &p->op[i];
    return N > 1 && o->kind == CL_CONV && cl_split_halo(p, i, N) > p->t[o->in].h / N;
}

int64_t cl_split_halo_bytes(const cl_plan *p, int N, int batch, int elem_bytes,
                            int64_t *messages)
{
    int64_t bytes = 0, msgs = 0;
    for (int i = 0; i < p->nop && N > 1; i++) {
        int a = cl_split_halo(p, i, N);
        if (a == 0) continue;
        const cl_tensor *x = &p->t[p->op[i].in];
        int xchgs = p->op[i].in == p->input ? 2 : 3; /* fill, refill, fold */
        if (cl_split_gathers(p, i, N)) {
            /* the tile to each of the N - 1 others, per collective */
            int64_t tile = COUNT_PROD("halo bytes", batch, x->c, x->h / N, x->w, elem_bytes);
            bytes += COUNT_PROD("halo bytes", tile, (int64_t)(N - 1) * xchgs);
            msgs += (int64_t)(N - 1) * xchgs;
            continue;
        }
        /* one message to each neighbour (two in the middle of a group of 3 or
         * more, one in a group of 2): a rows of every channel */
        int nb = N > 2 ? 2 : 1;
        int64_t one = COUNT_PROD("halo bytes", batch, x->c, a, x->w, elem_bytes);
        bytes += COUNT_PROD("halo bytes", one, nb * xchgs);
        msgs += nb * xchgs;
    }
    if (messages) *messages = msgs;
    return bytes;
}

int cl_split_halo_ops(const cl_plan *p, int N)
{
    int k = 0;
    for (int i = 0; i < p->nop; i++) k += cl_split_halo(p, i, N) > 0;
    return k;
}
