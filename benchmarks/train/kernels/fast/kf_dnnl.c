#include "benchmarks/train/kernels/fast/kf_dnnl.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

size_t kf_dnnl_round64(size_t bytes) { return (bytes + 63) / 64 * 64; }

dnnl_memory_t kf_dnnl_memory(kf_ctx *c, const dnnl_memory_desc_t *md)
{
    dnnl_memory_t m;
    DNNL_CHECK(dnnl_memory_create(&m, md, c->eng, DNNL_MEMORY_NONE));
    return m;
}

dnnl_primitive_attr_t kf_dnnl_attr(int accumulate)
{
    dnnl_primitive_attr_t attr;
    DNNL_CHECK(dnnl_primitive_attr_create(&attr));
    if (accumulate) {
        dnnl_post_ops_t po;
        DNNL_CHECK(dnnl_post_ops_create(&po));
        DNNL_CHECK(dnnl_post_ops_append_sum(po, 1.0f));
        DNNL_CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        DNNL_CHECK(dnnl_post_ops_destroy(po));
    }
    return attr;
}

dnnl_primitive_t kf_dnnl_reorder(kf_ctx *c, const dnnl_memory_desc_t *from,
                                 const dnnl_memory_desc_t *to, int accumulate)
{
    dnnl_primitive_attr_t attr = kf_dnnl_attr(accumulate);
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t p;
    DNNL_CHECK(dnnl_reorder_primitive_desc_create(&pd, from, c->eng, to, c->eng, attr));
    DNNL_CHECK(dnnl_primitive_create(&p, pd));
    DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
    DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
    return p;
}

dnnl_primitive_desc_t kf_dnnl_conv_pd(kf_ctx *c, int pass, const dnnl_memory_desc_t *src,
                                      const dnnl_memory_desc_t *wei,
                                      const dnnl_memory_desc_t *dst, const dnnl_dims_t stride,
                                      const dnnl_dims_t pad_l, const dnnl_dims_t pad_r,
                                      dnnl_primitive_desc_t *fwd)
{
    dnnl_primitive_attr_t attr;
    DNNL_CHECK(dnnl_primitive_attr_create(&attr));
    /* the scratchpad lives in the context's workspace, not in each primitive */
    DNNL_CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_convolution_desc_t fd, bd;
    dnnl_primitive_desc_t pd;
    /* a backward pass's hint is a forward convolution whose inputs have the
     * type of the gradient dst (bf16 mode: bf16; the pass's own output, diff
     * src or diff weights, stays fp32, which a forward one cannot take as an
     * input); in fp32 every type is already f32 */
    dnnl_memory_desc_t hsrc = *src, hwei = *wei;
    if (pass != KF_DNNL_FWD) hsrc.data_type = hwei.data_type = dst->data_type;
    DNNL_CHECK(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training,
                                                  dnnl_convolution_direct, &hsrc, &hwei, NULL,
                                                  dst, stride, pad_l, pad_r));
    DNNL_CHECK(dnnl_primitive_desc_create(fwd, &fd, attr, c->eng, NULL));
    pd = *fwd;
    if (pass == KF_DNNL_BWD_WEIGHTS) {
        DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(
            &bd, dnnl_convolution_direct, src, wei, NULL, dst, stride, pad_l, pad_r));
        DNNL_CHECK(dnnl_primitive_desc_create(&pd, &bd, attr, c->eng, *fwd));
    } else if (pass == KF_DNNL_BWD_DATA) {
        DNNL_CHECK(dnnl_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, src, wei,
                                                            dst, stride, pad_l, pad_r));
        DNNL_CHECK(dnnl_primitive_desc_create(&pd, &bd, attr, c->eng, *fwd));
    }
    DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
    return pd;
}

void kf_dnnl_conv_pd_destroy(dnnl_primitive_desc_t pd, dnnl_primitive_desc_t fwd)
{
    if (pd != fwd) DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
    DNNL_CHECK(dnnl_primitive_desc_destroy(fwd));
}

void kf_dnnl_exec2(kf_ctx *c, dnnl_primitive_t p, int a0, dnnl_memory_t m0, int a1,
                   dnnl_memory_t m1)
{
    dnnl_exec_arg_t args[2] = {{a0, m0}, {a1, m1}};
    DNNL_CHECK(dnnl_primitive_execute(p, c->str, 2, args));
}

void *kf_dnnl_cache_find(const kf_prim_cache *q, const int64_t *key, size_t key_bytes)
{
    for (int i = q->n; i-- > 0;)
        if (!memcmp(q->e[i], key, key_bytes)) return q->e[i];
    return NULL;
}

void kf_dnnl_cache_add(kf_prim_cache *q, void *e, int first_cap, const char *what)
{
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : first_cap;
        void **p = realloc(q->e, (size_t)cap * sizeof *p);
        CHECK(p, "out of memory growing the %s cache to %d entries", what, cap);
        q->e = p;
        q->cap = cap;
    }
    q->e[q->n++] = e;
}

void kf_dnnl_cache_release(kf_prim_cache *q)
{
    free(q->e);
    q->e = NULL;
    q->n = q->cap = 0;
}

void kf_dnnl_destroy(dnnl_primitive_t *prims, size_t nprims, dnnl_memory_t *mems, size_t nmems)
{
    for (size_t j = 0; j < nprims; j++)
        if (prims[j]) DNNL_CHECK(dnnl_primitive_destroy(prims[j]));
    for (size_t j = 0; j < nmems; j++)
        if (mems[j]) DNNL_CHECK(dnnl_memory_destroy(mems[j]));
}
