#include "benchmarks/train/kernels/fast/kf_ctx.h"

#include <omp.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"

void kf_threads(const kf_ctx *c)
{
    if (c->threads > 0 && omp_get_max_threads() != c->threads) omp_set_num_threads(c->threads);
}

void *kf_workspace(kf_ctx *c, size_t bytes)
{
    if (bytes > c->ws_bytes) {
        free(c->ws);
        size_t rounded = (bytes + 63) / 64 * 64;
        c->ws = aligned_alloc(64, rounded);
        CHECK(c->ws, "out of memory for a %zu-byte kernel workspace", rounded);
        c->ws_bytes = rounded;
    }
    return c->ws;
}

float *kf_flip_weights(kf_ctx *c, const float *w, int co_n, int ci_n, int taps)
{
    size_t need = (size_t)ci_n * co_n * taps;
    if (c->wtmp_n < need) {
        free(c->wtmp);
        c->wtmp = XMALLOC(need * sizeof(float), "flipped weights");
        c->wtmp_n = need;
    }
    float *f = c->wtmp;
    for (int co = 0; co < co_n; co++)
        for (int ci = 0; ci < ci_n; ci++) {
            const float *s = w + ((size_t)co * ci_n + ci) * taps;
            float *d = f + ((size_t)ci * co_n + co) * taps;
            for (int t = 0; t < taps; t++) d[taps - 1 - t] = s[t];
        }
    return f;
}

void kern_fast_set_workspace_limit(void *ctx, size_t bytes)
{
    ((kf_ctx *)ctx)->ws_limit = bytes;
}

kf_ctx *kf_ctx_create(int threads)
{
    kf_ctx *c = XCALLOC(1, sizeof *c, "fast kernel context");
    c->threads = threads > 0 ? threads : 0;
    c->ws_limit = KF_WS_LIMIT;
    DNNL_CHECK(dnnl_engine_create(&c->eng, dnnl_cpu, 0));
    DNNL_CHECK(dnnl_stream_create(&c->str, c->eng, dnnl_stream_default_flags));
    kf_threads(c);
    return c;
}

void kf_ctx_release(kf_ctx *c)
{
    DNNL_CHECK(dnnl_stream_destroy(c->str));
    DNNL_CHECK(dnnl_engine_destroy(c->eng));
    free(c->ws);
    free(c->wtmp);
    free(c);
}
