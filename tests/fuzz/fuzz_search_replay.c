/* Fuzz the search's --replay reader (benchmarks/search/sr_rec.c,
 * sr_read_replay): an earlier search record, which may come from anywhere,
 * read for its completion order and trace hash.  Read, the order is a list
 * of non-negative ids as long as the record says. */
#define _GNU_SOURCE
#include "benchmarks/search/sr_rec.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init();
    int64_t *order = NULL, n = -1;
    uint64_t hash = 0;
    char err[1024];
    if (sr_read_replay(fuzz_file(data, size), &order, &n, &hash, err, sizeof err) == 0) {
        CHECK(order != NULL && n >= 0, "an order was read");
        for (int64_t i = 0; i < n; i++) CHECK(order[i] >= 0, "id %lld is negative", (long long)i);
        free(order);
    } else {
        CHECK(err[0] != 0, "a refusal says why");
    }
    return 0;
}
