/* Fuzz data set manifests (benchmarks/common/shard/shard.c, docs/data.md):
 * shard_set_load on the input, its shards looked for in a folder that holds
 * none (every listed shard is then refused at its size check, after its
 * entry was parsed). */
#define _GNU_SOURCE
#include "benchmarks/common/shard/shard.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    char err[1024];
    shard_set *s = shard_set_load(path, "/nonexistent-exadl-fuzz", err, sizeof err);
    if (s) { /* only a manifest whose every shard exists opens: none here */
        shard_set_close(s);
        abort();
    }
    return 0;
}
