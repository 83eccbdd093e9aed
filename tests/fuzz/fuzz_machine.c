/* Fuzz machine files (harness/model): mfile_load on the input, then the
 * network and negotiation constants it gives the model, and one allreduce
 * time at the machine's size. */
#define _GNU_SOURCE
#include "harness/model/model.h"
#include "harness/model/model_machine.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    arena_t *a = ar_new();
    mfile_t m;
    char err[1024];
    if (mfile_load(a, path, &m, err, sizeof err) == 0) {
        mnet_t net;
        mneg_t neg;
        mfile_net(&m, &net, &neg);
        ar_algo_t used;
        int p = (int)(m.nodes.value * m.ranks_per_node.value);
        (void)model_allreduce(1 << 20, p, &net, &used);
    }
    ar_free(a);
    return 0;
}
