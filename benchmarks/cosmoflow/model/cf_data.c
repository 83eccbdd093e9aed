#define _GNU_SOURCE
#include "benchmarks/cosmoflow/model/cf_data.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/fileio.h"
#include "benchmarks/common/rng.h"

static void targets_of(uint64_t seed, int64_t step, int64_t g, int T, float *t)
{
    rng_t r = rng_stream(seed, 0xC05F10, (uint64_t)step, (uint64_t)g);
    for (int j = 0; j < T; j++) t[j] = (float)(2 * rng_uniform(&r) - 1);
}

/* One sample's voxels of the box [z0, z0+dz) x [y0, y0+dy) x [x0, x0+dx)
 * (global coordinates), channels last, into out. */
static void sample_box(const cf_plan *p, uint64_t seed, int64_t step, int64_t g, const int o[3],
                       const int e[3], float *out)
{
    int D = p->cfg.size, C = p->cfg.channels, T = p->cfg.targets;
    float t[4096];
    targets_of(seed, step, g, T, t);
    uint64_t key = rng_mix(rng_mix(rng_mix(seed ^ 0xDA7A) ^ (uint64_t)step) ^ (uint64_t)g);
    size_t k = 0;
    for (int z = o[0]; z < o[0] + e[0]; z++)
        for (int y = o[1]; y < o[1] + e[1]; y++)
            for (int x = o[2]; x < o[2] + e[2]; x++) {
                float saw = (float)((z + y + x) & 7) * 0.25f - 1.0f;
                uint64_t v = (((uint64_t)z * D + y) * D + x) * (uint64_t)C;
                for (int c = 0; c < C; c++) {
                    float noise = (float)(rng_mix(key ^ (v + c)) >> 40) * 0x1.0p-24f - 0.5f;
                    out[k++] = t[c % T] * saw + noise;
                }
            }
}

void cf_data_generate(const cf_plan *p, const cf_part *pt, uint64_t seed, int64_t step,
                      int64_t first, int batch, float *input, float *target)
{
    int o[3], e[3];
    for (int a = 0; a < 3; a++) o[a] = cf_part_offset(p, pt, a, 0), e[a] = cf_part_extent(p, pt, a, 0);
    size_t per = (size_t)e[0] * e[1] * e[2] * p->cfg.channels;
    for (int i = 0; i < batch; i++) {
        sample_box(p, seed, step, first + i, o, e, input + i * per);
        targets_of(seed, step, first + i, p->cfg.targets, target + (size_t)i * p->cfg.targets);
    }
}

int cf_data_open(cf_data_file *f, const cf_plan *p, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    snprintf(f->path, sizeof f->path, "%s", path);
    int64_t D = p->cfg.size;
    f->sample_bytes = (D * D * D * p->cfg.channels + p->cfg.targets) * (int64_t)sizeof(float);
    /* a FIFO or device given as the data set is refused, never waited on */
    struct stat st;
    f->fd = fileio_open_regular(path, &st, err, errlen);
    if (f->fd < 0) return -1;
    if (st.st_size <= 0 || st.st_size % f->sample_bytes) {
        snprintf(err, errlen,
                 "%s: %lld bytes is not a whole number of samples of %lld bytes (size %d, %d "
                 "channels, %d targets, float32: docs/cosmoflow.md \"Data\")",
                 path, (long long)st.st_size, (long long)f->sample_bytes, p->cfg.size,
                 p->cfg.channels, p->cfg.targets);
        cf_data_close(f);
        return -1;
    }
    f->samples = st.st_size / f->sample_bytes;
    return 0;
}

void cf_data_close(cf_data_file *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}

static void read_at(const cf_data_file *f, void *buf, size_t bytes, int64_t off)
{
    size_t got = 0;
    while (got < bytes) {
        ssize_t r = pread(f->fd, (char *)buf + got, bytes - got, (off_t)(off + (int64_t)got));
        CHECK(r > 0, "%s: reading %zu bytes at %lld: %s", f->path, bytes,
              (long long)(off + (int64_t)got), r < 0 ? strerror(errno) : "the file got shorter");
        got += (size_t)r;
    }
}

void cf_data_read(const cf_data_file *f, const cf_plan *p, const cf_part *pt, int64_t step,
                  int64_t first, int batch, float *input, float *target)
{
    int64_t D = p->cfg.size, C = p->cfg.channels;
    int o[3], e[3];
    for (int a = 0; a < 3; a++) o[a] = cf_part_offset(p, pt, a, 0), e[a] = cf_part_extent(p, pt, a, 0);
    size_t per = (size_t)e[0] * e[1] * e[2] * C, rowb = (size_t)e[2] * C * sizeof(float);
    int64_t global = (int64_t)pt->groups * batch;
    for (int i = 0; i < batch; i++) {
        int64_t s = (step % f->samples * (global % f->samples) + first + i) % f->samples;
        int64_t base = s * f->sample_bytes;
        float *in = input + i * per;
        for (int z = 0; z < e[0]; z++)
            for (int y = 0; y < e[1]; y++) {
                int64_t off = (((o[0] + z) * D + (o[1] + y)) * D + o[2]) * C * (int64_t)sizeof(float);
                read_at(f, in + ((size_t)z * e[1] + y) * e[2] * C, rowb, base + off);
            }
        read_at(f, target + (size_t)i * p->cfg.targets, (size_t)p->cfg.targets * sizeof(float),
                base + D * D * D * C * (int64_t)sizeof(float));
    }
}

int cf_data_write(const cf_plan *p, uint64_t seed, int64_t samples, const char *path, char *err,
                  size_t errlen)
{
    int D = p->cfg.size, T = p->cfg.targets;
    cf_part whole;
    int one[3] = {1, 1, 1};
    cf_part_for(p, one, 0, &whole);
    size_t n = (size_t)D * D * D * p->cfg.channels;
    float *in = malloc(n * sizeof *in), *t = malloc((size_t)T * sizeof *t);
    FILE *f = fopen(path, "wb");
    int ok = in && t && f;
    for (int64_t g = 0; ok && g < samples; g++) {
        cf_data_generate(p, &whole, seed, 0, g, 1, in, t);
        ok = fwrite(in, sizeof *in, n, f) == n && fwrite(t, sizeof *t, (size_t)T, f) == (size_t)T;
    }
    if (f && fclose(f)) ok = 0;
    if (!ok) snprintf(err, errlen, "%s: cannot write %lld samples: %s", path, (long long)samples,
                      errno ? strerror(errno) : "out of memory");
    free(in);
    free(t);
    return ok ? 0 : -1;
}
