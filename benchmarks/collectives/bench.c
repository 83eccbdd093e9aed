#include "benchmarks/collectives/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/timing.h"
#include "benchmarks/common/check.h"

int coll_default_iters(size_t bytes) { return bytes > 8192 ? 100 : 1000; }
int coll_default_warmup(size_t bytes) { return bytes > 8192 ? 10 : 100; }

static void poison(coll_dtype_t t, void *buf, size_t n)
{
    size_t es = coll_dtype_size(t);
    switch (t) {
    case DT_I32:
        for (size_t i = 0; i < n; i++) ((int32_t *)buf)[i] = INT32_MIN + 7; /* outside the pattern */
        break;
    default: /* NaN never equals an expected value */
        for (size_t i = 0; i < n; i++) coll_set(t, buf, i, NAN);
        break;
    }
    (void)es;
}

static void *region_base(const coll_region_t *r, void *send, void *recv, int inplace)
{
    if (inplace) return recv;
    return r->buf == BUF_SEND ? send : recv;
}

static size_t buf_elems(const coll_ctx_t *c, int inplace, int which)
{
    if (inplace) return c->shape.send_count > c->shape.recv_count ? c->shape.send_count
                                                                  : c->shape.recv_count;
    return which == BUF_SEND ? c->shape.send_count : c->shape.recv_count;
}

void coll_fill(const coll_ctx_t *c, const coll_op_t *op, int inplace, void *send_h, void *recv_h)
{
    poison(c->dtype, recv_h, buf_elems(c, inplace, BUF_RECV));
    if (!inplace) poison(c->dtype, send_h, buf_elems(c, inplace, BUF_SEND));
    coll_region_t in = op->in_region(c, inplace);
    char *base = region_base(&in, send_h, recv_h, inplace);
    for (size_t i = 0; i < in.n; i++) coll_set(c->dtype, base, in.off + i, op->in_value(c, i));
}

size_t coll_check(const coll_ctx_t *c, const coll_op_t *op, int inplace, const void *send_h,
                  const void *recv_h, int max_reports)
{
    coll_region_t out = op->out_region(c, inplace);
    const char *base = region_base(&out, (void *)send_h, (void *)recv_h, inplace);
    size_t wrong = 0;
    for (size_t j = 0; j < out.n; j++) {
        double want = op->out_value(c, j);
        double got = coll_get(c->dtype, base, out.off + j);
        if (got != want) {
            if ((int)wrong < max_reports)
                fprintf(stderr,
                        "collectives: rank %d: %s %s%s%s %zu B %s: output element %zu: got %.17g, "
                        "expected %.17g\n",
                        c->rank, op->name, coll_dtype_names[c->dtype],
                        op->flags & OP_REDUCES ? " " : "",
                        op->flags & OP_REDUCES ? coll_redop_names[c->redop] : "", c->shape.bytes,
                        inplace ? "in-place" : "out-of-place", j, got, want);
            wrong++;
        }
    }
    return wrong;
}

void coll_plant(const coll_ctx_t *c, const coll_op_t *op, int inplace, void *send_h, void *recv_h,
                size_t j)
{
    coll_region_t out = op->out_region(c, inplace);
    if (out.n == 0) return;
    j %= out.n;
    char *base = region_base(&out, send_h, recv_h, inplace);
    double want = op->out_value(c, j);
    /* -want - scale differs from want for every multiple of scale, and stays
     * within one unit of the type's exact range */
    coll_set(c->dtype, base, out.off + j, -want - c->pat->scale);
}

static void fatal_call(const coll_op_t *op, const char *err)
{
    check_fail(op->name, __FILE__, __LINE__, "%s", err);
}

void coll_measure(const coll_bufs_t *b, coll_ctx_t *c, coll_row_t *row,
                  const coll_check_opts_t *chk)
{
    const coll_op_t *op = row->op;
    int inplace = row->inplace;
    c->shape = row->shape;
    size_t es = coll_dtype_size(c->dtype);
    size_t send_bytes = buf_elems(c, inplace, BUF_SEND) * es;
    size_t recv_bytes = buf_elems(c, inplace, BUF_RECV) * es;
    CHECK(recv_bytes <= b->recv_cap && (inplace || send_bytes <= b->send_cap),
          "buffers too small: %zu/%zu B for %zu/%zu B", b->send_cap, b->recv_cap, send_bytes,
          recv_bytes);
    void *s = inplace ? b->recv_d : b->send_d, *r = b->recv_d;
    char err[512];

    /* data: the same input as the validation call */
    coll_fill(c, op, inplace, b->send_h, b->recv_h);
    if (!inplace) coll_dev_upload(b->dev, b->send_d, b->send_h, send_bytes);
    coll_dev_upload(b->dev, b->recv_d, b->recv_h, recv_bytes);

    coll_time_row(b, c, row, s, r);
    int n = row->nsamples;
    stats_summarize(row->time_s, (size_t)n, &row->st);
    double bytes = (double)row->shape.bytes;
    row->algbw_GBps = bytes / row->st.median / 1e9;
    row->busbw_factor = op->busbw_factor(c->nranks);
    row->wire_bytes = op->wire_bytes ? op->wire_bytes(&row->shape, c->nranks) : -1;
    row->busbw_GBps = row->algbw_GBps * row->busbw_factor;
    row->latency_us = row->st.median * 1e6;

    /* validation: fresh data, one untimed call, every output element checked */
    coll_fill(c, op, inplace, b->send_h, b->recv_h);
    if (!inplace) coll_dev_upload(b->dev, b->send_d, b->send_h, send_bytes);
    coll_dev_upload(b->dev, b->recv_d, b->recv_h, recv_bytes);
    coll_dev_sync(b->dev);
    CHECK_MPI(MPI_Barrier(b->comm->world));
    if (op->run(c, inplace, s, r, err, sizeof err)) fatal_call(op, err);
    coll_dev_sync(b->dev);
    if (!inplace) coll_dev_download(b->dev, b->send_h, b->send_d, send_bytes);
    coll_dev_download(b->dev, b->recv_h, b->recv_d, recv_bytes);
    if (chk->plant && chk->plant_rank == c->rank)
        coll_plant(c, op, inplace, b->send_h, b->recv_h, chk->plant_index);
    long long wrong = (long long)coll_check(c, op, inplace, b->send_h, b->recv_h, chk->max_reports);
    CHECK_MPI(MPI_Allreduce(&wrong, &row->wrong, 1, MPI_LONG_LONG, MPI_SUM, b->comm->world));
}
