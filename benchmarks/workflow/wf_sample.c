/* wf_sample (wf_sample.h): the producers' simulation and the samples'
 * checksum. */
#define _GNU_SOURCE
#include "benchmarks/workflow/wf_sample.h"

#include <string.h>
#include <time.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"

double wf_realtime_s(void)
{
    struct timespec t;
    CHECK_SYS(clock_gettime(CLOCK_REALTIME, &t));
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

uint64_t wf_checksum(const void *sample, size_t bytes)
{
    const unsigned char *p = sample;
    uint64_t h = fnv(0xcbf29ce484222325ull, p, offsetof(wf_hdr, checksum));
    return fnv(h, p + sizeof(wf_hdr), bytes - sizeof(wf_hdr));
}

/* One explicit step of u_t = D lap(u) on the periodic grid, D dt / h^2 =
 * 0.2 (stable below 0.25). */
static void diffuse(const float *u, float *v, int g)
{
    for (int i = 0; i < g; i++) {
        int up = (i + g - 1) % g, dn = (i + 1) % g;
        for (int j = 0; j < g; j++) {
            int l = (j + g - 1) % g, r = (j + 1) % g;
            float c = u[i * g + j];
            v[i * g + j] = c + 0.2f * (u[up * g + j] + u[dn * g + j] + u[i * g + l] + u[i * g + r] - 4 * c);
        }
    }
}

void wf_sample_make(const wf_cfg *c, int producer, int64_t seq, void *buf, float *work)
{
    size_t n = wf_cells(c);
    wf_hdr *h = buf;
    float *in = (float *)(h + 1), *out = in + n, *a = work, *b = work + n;
    rng_t r = rng_stream(c->seed, (uint64_t)producer, (uint64_t)seq, 0x5eed);
    for (size_t i = 0; i < n; i++) a[i] = (float)(2 * rng_uniform(&r) - 1);
    memcpy(in, a, n * sizeof *a);
    for (int s = 0; s < c->sim_steps; s++) {
        diffuse(a, b, c->grid);
        float *t = a;
        a = b, b = t;
    }
    memcpy(out, a, n * sizeof *a);
    h->magic = WF_MAGIC, h->producer = producer, h->seq = seq;
    h->made_s = wf_realtime_s();
    h->checksum = wf_checksum(buf, wf_sample_bytes(c));
}

int wf_sample_check(const wf_cfg *c, const void *buf, size_t bytes, wf_hdr *h)
{
    if (bytes != wf_sample_bytes(c)) return -1;
    memcpy(h, buf, sizeof *h);
    if (h->magic != WF_MAGIC) return -1;
    return wf_checksum(buf, bytes) == h->checksum ? 0 : -1;
}
