/* Data sets as files (benchmarks/common/shard, docs/data.md), in both
 * encodings: every sample written reads back equal, whole and as a box (a
 * spatial rank's sub-volume); a set without its manifest (a killed writer),
 * a truncated shard and a corrupt sample are refused with the file and the
 * sample named; the local-shuffle lookup finds each sample's shard. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/shard/shard.h"
#include "tests/unit/tap.h"

static const shard_shape SHAPE = {{4, 3, 5, 2}, 3};
#define NIN (4 * 3 * 5 * 2)

/* sample i of split: values that differ in every sample, voxel and channel */
static void gen(void *user, const char *split, int64_t i, float *in, float *tg)
{
    (void)user;
    float base = (strcmp(split, "val") ? 0.0f : 5000.0f) + 100.0f * (float)i;
    for (int k = 0; k < NIN; k++) in[k] = base + 0.5f * (float)k + 0.25f;
    for (int k = 0; k < 3; k++) tg[k] = -base - (float)k;
}

static char dir[512];

static void make(const char *encoding)
{
    if (!strcmp(encoding, "hdf5") && !shard_hdf5_available()) T_SKIP("this build has no HDF5");
    const char *tmp = getenv("EXADL_TMP");
    snprintf(dir, sizeof dir, "%s/shard-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    T_ASSERT(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
    shard_make_cfg c = {.dir = dir, .encoding = encoding, .dataset = "test", .shape = SHAPE,
                        .seed = 3, .train = 10, .val = 3, .per_shard = 4};
    shard_make_stats st;
    char err[512];
    T_ASSERT(shard_make(&c, gen, NULL, &st, err, sizeof err) == 0, "%s", err);
    T_ASSERT(st.shards == 4, "10 + 3 samples by 4: 3 + 1 shards, got %d", st.shards);
}

static void cleanup(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static void roundtrip(const char *encoding)
{
    make(encoding);
    char err[512];
    shard_set *s = shard_set_open(dir, err, sizeof err);
    T_ASSERT(s, "%s", err);
    T_ASSERT(shard_set_samples(s, "train") == 10 && shard_set_samples(s, "val") == 3, "splits");
    T_ASSERT(!strcmp(shard_set_encoding(s), encoding), "encoding %s", shard_set_encoding(s));
    float in[NIN], tg[3], want[NIN], wt[3];
    shard_io io = {0};
    for (int split = 0; split < 2; split++)
        for (int64_t i = 0; i < (split ? 3 : 10); i++) {
            const char *sp = split ? "val" : "train";
            T_ASSERT(shard_read(s, sp, i, NULL, NULL, in, tg, &io, err, sizeof err) == 0, "%s", err);
            gen(NULL, sp, i, want, wt);
            T_ASSERT(!memcmp(in, want, sizeof in) && !memcmp(tg, wt, sizeof tg),
                     "%s sample %lld differs from what was written", sp, (long long)i);
            /* the box [1, 3) x [0, 3) x [2, 4) of the sample */
            int o[3] = {1, 0, 2}, e[3] = {2, 3, 2};
            float box[2 * 3 * 2 * 2];
            T_ASSERT(shard_read(s, sp, i, o, e, box, tg, &io, err, sizeof err) == 0, "%s", err);
            size_t k = 0;
            for (int z = 0; z < 2; z++)
                for (int y = 0; y < 3; y++)
                    for (int x = 0; x < 2; x++)
                        for (int ch = 0; ch < 2; ch++, k++) {
                            int g = (((o[0] + z) * 3 + (o[1] + y)) * 5 + (o[2] + x)) * 2 + ch;
                            T_ASSERT(box[k] == want[g], "box voxel %zu of %s sample %lld", k, sp,
                                     (long long)i);
                        }
        }
    T_ASSERT(io.samples == 26 && io.bytes > 13 * NIN * 4, "io counted %lld samples %lld bytes",
             (long long)io.samples, (long long)io.bytes);
    int64_t first, count;
    T_ASSERT(shard_set_shard_of(s, "train", 9, &first, &count) == 2 && first == 8 && count == 2,
             "train sample 9 is in shard 2 (8, 2)");
    shard_set_close(s);
    cleanup();
}

static void test_roundtrip_raw(void) { roundtrip("raw"); }
static void test_roundtrip_hdf5(void) { roundtrip("hdf5"); }

static const char *ext(const char *encoding) { return strcmp(encoding, "raw") ? "h5" : "raw"; }

/* flip one byte of train sample 5 (shard 1, its sample 1): where its first
 * input float lies in the file */
static void corrupt(const char *encoding)
{
    char path[600];
    snprintf(path, sizeof path, "%s/train-00001.%s", dir, ext(encoding));
    FILE *f = fopen(path, "r+b");
    T_ASSERT(f, "open %s", path);
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    float want[NIN], tg[3];
    gen(NULL, "train", 5, want, tg);
    long at = -1;
    for (size_t i = 0; i + 4 <= n && at < 0; i++)
        if (!memcmp(buf + i, &want[7], 4)) at = (long)i;
    T_ASSERT(at >= 0, "sample 5's voxel not found in %s", path);
    T_ASSERT(fseek(f, at + 1, SEEK_SET) == 0 && fputc(buf[at + 1] ^ 0x40, f) != EOF, "write");
    fclose(f);
}

static void refused(const char *encoding)
{
    char err[512], name[64];
    /* corrupt: the file and the sample named, the others still read */
    make(encoding);
    corrupt(encoding);
    shard_set *s = shard_set_open(dir, err, sizeof err);
    T_ASSERT(s, "a corrupt sample is found when read, not at open: %s", err);
    float in[NIN], tg[3];
    T_ASSERT(shard_read(s, "train", 4, NULL, NULL, in, tg, NULL, err, sizeof err) == 0, "%s", err);
    T_ASSERT(shard_read(s, "train", 5, NULL, NULL, in, tg, NULL, err, sizeof err) != 0,
             "a corrupt sample was accepted");
    snprintf(name, sizeof name, "train-00001.%s: sample 1", ext(encoding));
    T_ASSERT(strstr(err, name) && strstr(err, "corrupt") && strstr(err, "train sample 5"),
             "the message names neither file nor sample: %s", err);
    shard_set_close(s);
    /* truncated: refused at open, the file named */
    char path[600];
    snprintf(path, sizeof path, "%s/train-00002.%s", dir, ext(encoding));
    struct stat st;
    T_ASSERT(stat(path, &st) == 0 && truncate(path, st.st_size - 10) == 0, "truncate %s", path);
    s = shard_set_open(dir, err, sizeof err);
    T_ASSERT(!s && strstr(err, "train-00002") && strstr(err, "truncated"),
             "a truncated shard was accepted or not named: %s", s ? "(opened)" : err);
    /* no manifest (the writer was killed before it): no set */
    snprintf(path, sizeof path, "%s/manifest.yaml", dir);
    T_ASSERT(unlink(path) == 0, "unlink");
    s = shard_set_open(dir, err, sizeof err);
    T_ASSERT(!s && strstr(err, "no manifest"), "a set without a manifest: %s", s ? "opened" : err);
    cleanup();
}

static void test_refused_raw(void) { refused("raw"); }
static void test_refused_hdf5(void) { refused("hdf5"); }

/* the IEEE CRC-32 of "123456789" (the standard check value), and a long
 * buffer whose tail is not a multiple of 8, as zlib's crc32 gives it */
static void test_crc32(void)
{
    T_ASSERT(shard_crc32(0, "123456789", 9) == 0xCBF43926u, "check value %08x",
             shard_crc32(0, "123456789", 9));
    unsigned char b[771];
    for (int i = 0; i < 768; i++) b[i] = (unsigned char)i;
    b[768] = 'a', b[769] = 'b', b[770] = 'c';
    T_ASSERT(shard_crc32(0, b, 771) == 0x9D3A9924u, "771 bytes: %08x", shard_crc32(0, b, 771));
    T_ASSERT(shard_crc32(shard_crc32(0, b, 100), b + 100, 671) == 0x9D3A9924u, "in two parts");
}

int main(void)
{
    T_RUN(test_crc32);
    T_RUN(test_roundtrip_raw);
    T_RUN(test_roundtrip_hdf5);
    T_RUN(test_refused_raw);
    T_RUN(test_refused_hdf5);
    T_DONE();
}
