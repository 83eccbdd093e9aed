/* The hdf5 encoding of a shard (shard.h), through Debian's libhdf5; without
 * it (EXADL_HDF5 undefined) every call says so. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/shard/shard_fmt.h"
#include "benchmarks/common/timer.h"

#if EXADL_HDF5
#include <hdf5.h>

#include "benchmarks/common/check.h"

int shard_hdf5_available(void) { return 1; }

/* HDF5 prints a stack of errors by default: the messages here name the file */
static void quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static hid_t make_set(hid_t file, const char *name, hid_t type, int rank, const hsize_t *dims)
{
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t d = sp < 0 ? -1 : H5Dcreate2(file, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (sp >= 0) H5Sclose(sp);
    return d;
}

/* row i of dataset d (rank dims, the first the sample) from buf */
static int put_row(hid_t d, int rank, const hsize_t *dims, int64_t i, hid_t mtype, const void *buf)
{
    hsize_t start[5] = {(hsize_t)i, 0, 0, 0, 0}, count[5];
    count[0] = 1;
    for (int a = 1; a < rank; a++) count[a] = dims[a];
    hid_t fs = H5Dget_space(d);
    hid_t ms = H5Screate_simple(rank, count, NULL);
    int ok = fs >= 0 && ms >= 0 &&
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) >= 0;
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    return ok ? 0 : -1;
}

int shard_h5_write(const char *path, const shard_shape *sh, const char *split, int64_t first,
                   int64_t n, shard_gen_fn gen, void *user, char *err, size_t errlen)
{
    quiet();
    hid_t f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) {
        snprintf(err, errlen, "%s: HDF5 cannot create the file", path);
        return -1;
    }
    hsize_t di[5] = {(hsize_t)n, (hsize_t)sh->dims[0], (hsize_t)sh->dims[1], (hsize_t)sh->dims[2],
                     (hsize_t)sh->dims[3]};
    hsize_t dt[2] = {(hsize_t)n, (hsize_t)sh->targets}, dc[1] = {(hsize_t)n};
    hid_t din = make_set(f, "input", H5T_IEEE_F32LE, 5, di);
    hid_t dtg = make_set(f, "target", H5T_IEEE_F32LE, 2, dt);
    hid_t dcr = make_set(f, "crc32", H5T_STD_U32LE, 1, dc);
    size_t nin = (size_t)shard_input_floats(sh);
    float *in = XMALLOC(nin * sizeof *in, "a sample's input");
    float *tg = XMALLOC((size_t)sh->targets * sizeof *tg + 1, "a sample's targets");
    uint32_t *crc = XMALLOC((size_t)n * sizeof *crc + 1, "the CRC index");
    int ok = din >= 0 && dtg >= 0 && dcr >= 0;
    for (int64_t i = 0; ok && i < n; i++) {
        gen(user, split, first + i, in, tg);
        crc[i] = shard_crc32(shard_crc32(0, in, nin * sizeof *in), tg,
                             (size_t)sh->targets * sizeof *tg);
        ok = put_row(din, 5, di, i, H5T_NATIVE_FLOAT, in) == 0 &&
             put_row(dtg, 2, dt, i, H5T_NATIVE_FLOAT, tg) == 0;
    }
    if (ok) ok = H5Dwrite(dcr, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, crc) >= 0;
    if (din >= 0) H5Dclose(din);
    if (dtg >= 0) H5Dclose(dtg);
    if (dcr >= 0) H5Dclose(dcr);
    if (H5Fclose(f) < 0) ok = 0;
    if (!ok) snprintf(err, errlen, "%s: HDF5 write failed", path);
    free(in);
    free(tg);
    free(crc);
    return ok ? 0 : -1;
}

/* the box start + [0, count) of dataset name into buf */
static int get_box(shard_file *f, int64_t sample, const char *name, hid_t mtype, int rank,
                   const hsize_t *start, const hsize_t *count, void *buf, char *err, size_t errlen)
{
    hid_t d = H5Dopen2((hid_t)f->h5, name, H5P_DEFAULT);
    hid_t fs = d < 0 ? -1 : H5Dget_space(d);
    hid_t ms = H5Screate_simple(rank, count, NULL);
    int ok = d >= 0 && fs >= 0 && ms >= 0 && H5Sget_simple_extent_ndims(fs) == rank &&
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Sselect_valid(fs) > 0 && H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) >= 0;
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    if (d >= 0) H5Dclose(d);
    if (!ok)
        snprintf(err, errlen, "%s: sample %lld: HDF5 cannot read dataset \"%s\" (truncated or "
                 "corrupt)", f->path, (long long)sample, name);
    return ok ? 0 : -1;
}

static int h5_open(shard_file *f, char *err, size_t errlen)
{
    if (f->h5 >= 0) return 0;
    hid_t h = H5Fopen(f->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (h < 0) {
        snprintf(err, errlen, "%s: HDF5 cannot open the file (not HDF5, truncated or corrupt)",
                 f->path);
        return -1;
    }
    f->h5 = h;
    return 0;
}

void shard_h5_hint(shard_file *f, const shard_shape *sh, int64_t i, const int o[3],
                   const int e[3])
{
    (void)e;
    char err[8];
    quiet();
    if (f->h5_input_off == -2 || h5_open(f, err, sizeof err)) return; /* the read says why */
    if (f->h5_input_off == -1) {
        /* contiguous storage (the writer's): sample i's input at a fixed stride */
        hid_t d = H5Dopen2((hid_t)f->h5, "input", H5P_DEFAULT);
        haddr_t a = d < 0 ? HADDR_UNDEF : H5Dget_offset(d);
        if (d >= 0) H5Dclose(d);
        f->h5_input_off = a == HADDR_UNDEF ? -2 : (int64_t)a;
        if (a != HADDR_UNDEF) f->hint_fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (f->hint_fd < 0) f->h5_input_off = -2;
        if (f->h5_input_off == -2) return;
    }
    int64_t inb = shard_input_floats(sh) * (int64_t)sizeof(float), off = i * inb, len = inb;
    if (o) {
        int64_t row = (int64_t)sh->dims[2] * sh->dims[3] * (int64_t)sizeof(float);
        int64_t skip = o[0] * row * sh->dims[1] + o[1] * row;
        off += skip, len -= skip;
    }
    /* advice only: its failure changes nothing the read does */
    (void)posix_fadvise(f->hint_fd, (off_t)(f->h5_input_off + off), (off_t)len,
                        POSIX_FADV_WILLNEED);
}

int shard_h5_read(shard_file *f, const shard_shape *sh, int64_t i, const int o[3], const int e[3],
                  float *input, float *target, shard_io *io, char *err, size_t errlen)
{
    quiet();
    if (h5_open(f, err, errlen)) return -1;
    double t0 = timer_now_s();
    int whole[3] = {0, 0, 0};
    const int *bo = o ? o : whole, *be = o ? e : sh->dims;
    hsize_t start[5] = {(hsize_t)i, (hsize_t)bo[0], (hsize_t)bo[1], (hsize_t)bo[2], 0};
    hsize_t count[5] = {1, (hsize_t)be[0], (hsize_t)be[1], (hsize_t)be[2], (hsize_t)sh->dims[3]};
    hsize_t ts[2] = {(hsize_t)i, 0}, tc[2] = {1, (hsize_t)sh->targets};
    if (get_box(f, i, "input", H5T_NATIVE_FLOAT, 5, start, count, input, err, errlen) ||
        get_box(f, i, "target", H5T_NATIVE_FLOAT, 2, ts, tc, target, err, errlen))
        return -1;
    int64_t bytes = ((int64_t)be[0] * be[1] * be[2] * sh->dims[3] + sh->targets) * 4;
    if (!o && f->verify) {
        uint32_t want;
        hsize_t cs[1] = {(hsize_t)i}, cc[1] = {1};
        if (get_box(f, i, "crc32", H5T_NATIVE_UINT32, 1, cs, cc, &want, err, errlen)) return -1;
        size_t inb = (size_t)shard_input_floats(sh) * sizeof(float);
        uint32_t got =
            shard_crc32(shard_crc32(0, input, inb), target, (size_t)sh->targets * sizeof(float));
        if (got != want) {
            snprintf(err, errlen, "%s: sample %lld: CRC-32 %08x, the index says %08x (corrupt)",
                     f->path, (long long)i, got, want);
            return -1;
        }
        bytes += 4;
    }
    if (io) io->bytes += bytes, io->samples++, io->seconds += timer_now_s() - t0;
    return 0;
}

void shard_h5_close(shard_file *f)
{
    if (f->h5 >= 0) H5Fclose((hid_t)f->h5);
    if (f->hint_fd >= 0) close(f->hint_fd);
    f->h5 = -1, f->hint_fd = -1;
}

#else /* no HDF5 in this build */

int shard_hdf5_available(void) { return 0; }

static int none(const char *path, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: this build has no HDF5 (apt-get install libhdf5-dev, then make "
             "again; or use the raw encoding)", path);
    return -1;
}

int shard_h5_write(const char *path, const shard_shape *sh, const char *split, int64_t first,
                   int64_t n, shard_gen_fn gen, void *user, char *err, size_t errlen)
{
    (void)sh, (void)split, (void)first, (void)n, (void)gen, (void)user;
    return none(path, err, errlen);
}

int shard_h5_read(shard_file *f, const shard_shape *sh, int64_t i, const int o[3], const int e[3],
                  float *input, float *target, shard_io *io, char *err, size_t errlen)
{
    (void)sh, (void)i, (void)o, (void)e, (void)input, (void)target, (void)io;
    return none(f->path, err, errlen);
}

void shard_h5_hint(shard_file *f, const shard_shape *sh, int64_t i, const int o[3],
                   const int e[3])
{
    (void)f, (void)sh, (void)i, (void)o, (void)e;
}

void shard_h5_close(shard_file *f) { f->h5 = -1; }
#endif
