#include "benchmarks/networks/deepcam/cl_split.h"

#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"

void cl_split_grid(const cl_plan *p, int s[2])
{
    if (cl_cfg_spatial(p->cfg.spatial, s)) s[0] = s[1] = 1; /* validated before */
}

int cl_split_of(const cl_plan *p)
{
    int s[2];
    cl_split_grid(p, s);
    return s[0] * s[1];
}

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

int cl_split_halo(const cl_plan *p, int i, const int s[2], int axis)
{
    const cl_op *o = &p->op[i];
    if (s[axis] <= 1) return 0;
    if (o->kind == CL_TCONV) return 1;
    if (o->kind != CL_CONV) return 0;
    int E = axis ? p->t[o->in].w : p->t[o->in].h, reach = 0;
    for (int t = 0; t < o->g.k; t++) {
        int off = abs(-o->g.pad + t * o->g.dil);
        if (off < E && off > reach) reach = off;
    }
    int st = o->g.stride > 0 ? o->g.stride : 1;
    return (reach + st - 1) / st * st;
}

int cl_split_check(const cl_plan *p, const int s[2], const char *text, char *err,
                   size_t errlen)
{
    if (s[0] * s[1] <= 1) return 0;
    char *whole = XCALLOC((size_t)p->nt, 1, "split tensors");
    cl_split_whole(p, whole);
    int rc = 0;
    /* the input first, then every op's output (every tiled map is one or the other) */
    for (int i = -1; i < p->nop && !rc; i++) {
        int t = i < 0 ? p->input : p->op[i].out;
        const char *name = i < 0 ? "the input" : p->op[i].name;
        int root = p->t[t].parent >= 0 ? p->t[t].parent : t;
        if (whole[root]) continue;
        int ext[2] = {p->t[t].h, p->t[t].w};
        static const char *const what[2] = {"height", "width"}, *const along[2] = {"H", "W"};
        for (int ax = 0; ax < 2 && !rc; ax++)
            if (ext[ax] % s[ax]) {
                snprintf(err, errlen,
                         "--spatial %s: layer %s's %s %d does not split into %d equal tiles "
                         "(every map's %s must be a multiple of the tiles along %s)",
                         text, name, what[ax], ext[ax], s[ax], what[ax], along[ax]);
                rc = -1;
            }
    }
    free(whole);
    return rc;
}

int cl_split_gathers(const cl_plan *p, int i, const int s[2])
{
    const cl_op *o = &p->op[i];
    if (s[0] * s[1] <= 1 || o->kind != CL_CONV) return 0;
    const cl_tensor *x = &p->t[o->in];
    return cl_split_halo(p, i, s, 0) > x->h / s[0] || cl_split_halo(p, i, s, 1) > x->w / s[1];
}

/* The busiest rank's neighbours along an axis split k ways. */
static int nbrs(int k) { return k > 2 ? 2 : k - 1; }

int64_t cl_split_halo_bytes(const cl_plan *p, const int s[2], int batch, int elem_bytes,
                            int64_t *messages)
{
    int64_t bytes = 0, msgs = 0;
    int N = s[0] * s[1];
    for (int i = 0; i < p->nop && N > 1; i++) {
        int ah = cl_split_halo(p, i, s, 0), aw = cl_split_halo(p, i, s, 1);
        if (ah == 0 && aw == 0) continue;
        const cl_tensor *x = &p->t[p->op[i].in];
        int th = x->h / s[0], tw = x->w / s[1];
        int xchgs = p->op[i].in == p->input ? 2 : 3; /* fill, refill, fold */
        if (cl_split_gathers(p, i, s)) {
            /* the tile to each of the N - 1 others, per collective */
            int64_t tile = COUNT_PROD("halo bytes", batch, x->c, th, tw, elem_bytes);
            bytes += COUNT_PROD("halo bytes", tile, (int64_t)(N - 1) * xchgs);
            msgs += (int64_t)(N - 1) * xchgs;
            continue;
        }
        /* along W: aw columns of the own rows; along H: ah rows of the
         * padded width (the corners travel with them) */
        if (aw) {
            int64_t one = COUNT_PROD("halo bytes", batch, x->c, th, aw, elem_bytes);
            bytes += COUNT_PROD("halo bytes", one, nbrs(s[1]) * xchgs);
            msgs += nbrs(s[1]) * xchgs;
        }
        if (ah) {
            int64_t one = COUNT_PROD("halo bytes", batch, x->c, ah, tw + 2 * aw, elem_bytes);
            bytes += COUNT_PROD("halo bytes", one, nbrs(s[0]) * xchgs);
            msgs += nbrs(s[0]) * xchgs;
        }
    }
    if (messages) *messages = msgs;
    return bytes;
}

int cl_split_halo_ops(const cl_plan *p, const int s[2])
{
    int k = 0;
    for (int i = 0; i < p->nop; i++)
        k += cl_split_halo(p, i, s, 0) > 0 || cl_split_halo(p, i, s, 1) > 0;
    return k;
}
