#include "benchmarks/modelpar/mp_halo.h"

#include <string.h>

/* A box of rows [r0, r0 + nr) and columns [c0, c0 + nc) of every sample. */
typedef struct {
    int r0, nr, c0, nc;
} box_t;

static int64_t box_floats(const mp_halo_buf *b, box_t x)
{
    return (int64_t)b->n * x.nr * x.nc * b->c;
}

/* mode 0: pack box into s; 1: unpack s into box; 2: add s into box */
static void move(const mp_halo_buf *b, box_t x, float *s, int mode)
{
    int Wp = b->tw + 2 * b->pad, Hp = b->th + 2 * b->pad;
    size_t row = (size_t)x.nc * b->c;
    for (int i = 0; i < b->n; i++)
        for (int r = 0; r < x.nr; r++) {
            float *q = b->p + (((size_t)i * Hp + x.r0 + r) * Wp + x.c0) * b->c;
            if (mode == 0) memcpy(s, q, row * sizeof *q);
            else if (mode == 1) memcpy(q, s, row * sizeof *q);
            else
                for (size_t e = 0; e < row; e++) q[e] += s[e];
            s += row;
        }
}

/* Send box `out` to dst, receive into box `in` (mode 1 or 2) from src. */
static void swap(const mp_model *m, const mp_halo_buf *b, box_t out, int dst, box_t in, int src,
                 int mode, float *send, float *recv, int64_t *bytes, int64_t *msgs)
{
    int64_t no = dst != MPI_PROC_NULL ? box_floats(b, out) : 0;
    int64_t ni = src != MPI_PROC_NULL ? box_floats(b, in) : 0;
    if (no) move(b, out, send, 0);
    CHECK_MPI(MPI_Sendrecv(send, (int)no, MPI_FLOAT, dst, 7, recv, (int)ni, MPI_FLOAT, src, 7,
                           m->halo, MPI_STATUS_IGNORE));
    if (ni) move(b, in, recv, mode);
    if (no) *bytes += no * (int64_t)sizeof(float), *msgs += 1;
}

void mp_halo_forward(const mp_model *m, const mp_halo_buf *b, float *send, float *recv,
                     int64_t *bytes, int64_t *msgs)
{
    int p = b->pad, th = b->th, tw = b->tw, Wp = tw + 2 * p;
    if (p == 0) return;
    /* columns: my first interior columns go left, the right one's come in */
    swap(m, b, (box_t){p, th, p, p}, m->left, (box_t){p, th, p + tw, p}, m->right, 1, send, recv,
         bytes, msgs);
    swap(m, b, (box_t){p, th, tw, p}, m->right, (box_t){p, th, 0, p}, m->left, 1, send, recv,
         bytes, msgs);
    /* rows, the whole width (the corners came with the columns) */
    swap(m, b, (box_t){p, p, 0, Wp}, m->up, (box_t){p + th, p, 0, Wp}, m->down, 1, send, recv,
         bytes, msgs);
    swap(m, b, (box_t){th, p, 0, Wp}, m->down, (box_t){0, p, 0, Wp}, m->up, 1, send, recv, bytes,
         msgs);
}

void mp_halo_backward(const mp_model *m, const mp_halo_buf *b, float *send, float *recv,
                      int64_t *bytes, int64_t *msgs)
{
    int p = b->pad, th = b->th, tw = b->tw, Wp = tw + 2 * p;
    if (p == 0) return;
    /* rows: my top halo belongs to the one above (its last interior rows) */
    swap(m, b, (box_t){0, p, 0, Wp}, m->up, (box_t){th, p, 0, Wp}, m->down, 2, send, recv, bytes,
         msgs);
    swap(m, b, (box_t){p + th, p, 0, Wp}, m->down, (box_t){p, p, 0, Wp}, m->up, 2, send, recv,
         bytes, msgs);
    /* then columns, interior rows */
    swap(m, b, (box_t){p, th, 0, p}, m->left, (box_t){p, th, tw, p}, m->right, 2, send, recv,
         bytes, msgs);
    swap(m, b, (box_t){p, th, p + tw, p}, m->right, (box_t){p, th, p, p}, m->left, 2, send, recv,
         bytes, msgs);
}
