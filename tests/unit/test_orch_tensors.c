/* The orchestration benchmark's tensor lists (benchmarks/orchestration/tensors.h). */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/orchestration/tensors.h"
#include "tests/unit/tap.h"

/* the orchestration's default tensor list is the gb2019 network of
 * docs/stemdl.md "The network": its published conv weights, 220,398,848
 * (reference/stemdl-exact.yaml) */
static void test_gb2019_tensors(void)
{
    coll_tensor_t *t;
    int layers, n = coll_gb2019_tensors(&t, &layers);
    long long w = 0, b = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(t[i].name);
        if (t[i].name[len - 1] == 'w') w += t[i].elements; else b += t[i].elements;
        T_ASSERT(i == 0 || t[i].layer >= t[i - 1].layer, "layers in forward order");
    }
    T_ASSERT(w == 220398848LL, "conv weights %lld", w);
    T_ASSERT(b == 257, "biases %lld (CONV_INIT 256 + CONV_FIN 1)", b);
    T_ASSERT(n == 27 && layers == 25, "%d tensors in %d layers", n, layers);
    free(t);
    n = coll_synthetic_tensors(&t, 5, 100, &layers);
    T_ASSERT(n == 5 && layers == 3 && t[4].layer == 2 && t[4].elements == 100, "synthetic");
    free(t);
}

int main(void)
{
    T_RUN(test_gb2019_tensors);
    T_DONE();
}
