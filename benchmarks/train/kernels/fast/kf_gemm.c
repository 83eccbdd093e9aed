#include "benchmarks/train/kernels/fast/kf_gemm.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/fast/kf_dnnl.h"

enum { GKEY = 9 };

/* a cached bf16 GEMM: the key first (kf_prim_cache) */
typedef struct {
    int64_t key[GKEY]; /* ta, tb, M, N, K, lda, ldb, ldc, beta != 0 */
    dnnl_primitive_t r_a, r_b, mm;
    dnnl_memory_t a_f32, a_bf, b_f32, b_bf, c_f32;
    size_t off_b, total; /* GEMM buffer: bf16 A, then bf16 B */
} gprim;

/* A row-major rows x cols matrix with leading dimension ld, of type t. */
static void md2(dnnl_memory_desc_t *md, int64_t rows, int64_t cols, int64_t ld,
                dnnl_data_type_t t)
{
    dnnl_dims_t d = {rows, cols}, s = {ld, 1};
    DNNL_CHECK(dnnl_memory_desc_init_by_strides(md, 2, d, t, s));
}

static gprim *gprim_create(kf_ctx *c, const int64_t *key)
{
    char ta = (char)key[0], tb = (char)key[1];
    int64_t M = key[2], N = key[3], K = key[4];
    gprim *e = XCALLOC(1, sizeof *e, "bf16 GEMM primitive");
    memcpy(e->key, key, sizeof e->key);
    /* A and B as stored (fp32, their leading dimensions) and as dense bf16 */
    int64_t ar = ta == 'N' ? M : K, ac = ta == 'N' ? K : M;
    int64_t br = tb == 'N' ? K : N, bc = tb == 'N' ? N : K;
    dnnl_memory_desc_t a32, abf, b32, bbf, c32, mm_a, mm_b;
    md2(&a32, ar, ac, key[5], dnnl_f32);
    md2(&abf, ar, ac, ac, dnnl_bf16);
    md2(&b32, br, bc, key[6], dnnl_f32);
    md2(&bbf, br, bc, bc, dnnl_bf16);
    md2(&c32, M, N, key[7], dnnl_f32);
    /* the matmul's view of the dense copies: op() by strides */
    dnnl_dims_t ad = {M, K}, as = {ta == 'N' ? K : 1, ta == 'N' ? 1 : M};
    dnnl_dims_t bd = {K, N}, bs = {tb == 'N' ? N : 1, tb == 'N' ? 1 : K};
    DNNL_CHECK(dnnl_memory_desc_init_by_strides(&mm_a, 2, ad, dnnl_bf16, as));
    DNNL_CHECK(dnnl_memory_desc_init_by_strides(&mm_b, 2, bd, dnnl_bf16, bs));

    dnnl_primitive_attr_t attr = kf_dnnl_attr(key[8] != 0); /* beta 1: C += A B */
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd;
    DNNL_CHECK(dnnl_matmul_desc_init(&md, &mm_a, &mm_b, NULL, &c32));
    DNNL_CHECK(dnnl_primitive_desc_create(&pd, &md, attr, c->eng, NULL));
    DNNL_CHECK(dnnl_primitive_create(&e->mm, pd));
    DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
    DNNL_CHECK(dnnl_primitive_attr_destroy(attr));

    e->r_a = kf_dnnl_reorder(c, &a32, &abf, 0);
    e->r_b = kf_dnnl_reorder(c, &b32, &bbf, 0);
    e->a_f32 = kf_dnnl_memory(c, &a32);
    e->a_bf = kf_dnnl_memory(c, &abf);
    e->b_f32 = kf_dnnl_memory(c, &b32);
    e->b_bf = kf_dnnl_memory(c, &bbf);
    e->c_f32 = kf_dnnl_memory(c, &c32);
    e->off_b = kf_dnnl_round64(dnnl_memory_desc_get_size(&abf));
    e->total = e->off_b + kf_dnnl_round64(dnnl_memory_desc_get_size(&bbf));
    return e;
}

void kf_gemm_cache_free(kf_ctx *c)
{
    for (int i = 0; i < c->gcache.n; i++) {
        gprim *e = c->gcache.e[i];
        dnnl_primitive_t prims[] = {e->r_a, e->r_b, e->mm};
        dnnl_memory_t mems[] = {e->a_f32, e->a_bf, e->b_f32, e->b_bf, e->c_f32};
        kf_dnnl_destroy(prims, sizeof prims / sizeof *prims, mems, sizeof mems / sizeof *mems);
        free(e);
    }
    kf_dnnl_cache_release(&c->gcache);
    free(c->gbuf);
    c->gbuf = NULL;
    c->gbuf_bytes = 0;
}

/* The bf16 copies live in a buffer of their own: the transposed
 * convolution's operand B is in the context's workspace. */
static char *gbuf(kf_ctx *c, size_t bytes)
{
    if (bytes > c->gbuf_bytes) {
        free(c->gbuf);
        c->gbuf = aligned_alloc(64, kf_dnnl_round64(bytes));
        CHECK(c->gbuf, "out of memory for %zu bytes of bf16 GEMM operands", bytes);
        c->gbuf_bytes = kf_dnnl_round64(bytes);
    }
    return c->gbuf;
}

static void gemm_bf16(kf_ctx *c, char ta, char tb, int64_t M, int64_t N, int64_t K,
                      const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                      float *C, int64_t ldc)
{
    int64_t key[GKEY] = {ta, tb, M, N, K, lda, ldb, ldc, beta != 0.0f};
    gprim *e = kf_dnnl_cache_find(&c->gcache, key, sizeof e->key);
    if (!e) {
        e = gprim_create(c, key);
        kf_dnnl_cache_add(&c->gcache, e, 16, "bf16 GEMM");
    }
    char *buf = gbuf(c, e->total);
    DNNL_CHECK(dnnl_memory_set_data_handle(e->a_f32, (void *)A));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->b_f32, (void *)B));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->a_bf, buf));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->b_bf, buf + e->off_b));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->c_f32, C));
    kf_dnnl_exec2(c, e->r_a, DNNL_ARG_FROM, e->a_f32, DNNL_ARG_TO, e->a_bf);
    kf_dnnl_exec2(c, e->r_b, DNNL_ARG_FROM, e->b_f32, DNNL_ARG_TO, e->b_bf);
    dnnl_exec_arg_t a[3] = {{DNNL_ARG_SRC, e->a_bf}, {DNNL_ARG_WEIGHTS, e->b_bf},
                            {DNNL_ARG_DST, e->c_f32}};
    DNNL_CHECK(dnnl_primitive_execute(e->mm, c->str, 3, a));
    DNNL_CHECK(dnnl_stream_wait(c->str));
}

void kf_gemm(kf_ctx *c, char ta, char tb, int64_t M, int64_t N, int64_t K, const float *A,
             int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc)
{
    if (M == 0 || N == 0) return;
    /* K = 0 (an empty batch of a weight gradient): C = beta C, sgemm's case */
    if (c->bf16 && K > 0)
        gemm_bf16(c, ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc);
    else
        DNNL_CHECK(dnnl_sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc));
}
