#include "benchmarks/orchestration/tensors.h"

#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/networks/fcdensenet/plan.h"

int coll_gb2019_tensors(coll_tensor_t **out, int *nlayers)
{
    /* the network's own list (stemdl's plan of the gb2019 preset), so that
     * what is negotiated here is what stemdl reduces */
    gsync_tensor *g;
    int n = plan_preset_tensors("gb2019", &g, nlayers);
    CHECK(n > 0, "the gb2019 preset is unknown to stemdl");
    coll_tensor_t *t = XCALLOC((size_t)n, sizeof *t, "tensor list");
    for (int i = 0; i < n; i++) {
        snprintf(t[i].name, sizeof t[i].name, "%.39s", g[i].name);
        t[i].layer = g[i].layer;
        t[i].elements = g[i].count;
    }
    free(g);
    *out = t;
    return n;
}

int coll_synthetic_tensors(coll_tensor_t **out, int n, int64_t elements, int *nlayers)
{
    coll_tensor_t *t = XCALLOC((size_t)n, sizeof *t, "tensor list");
    for (int i = 0; i < n; i++) {
        snprintf(t[i].name, sizeof t[i].name, "t%d.%s", i / 2, i % 2 ? "b" : "w");
        t[i].layer = i / 2;
        t[i].elements = elements;
    }
    *out = t;
    *nlayers = (n + 1) / 2;
    return n;
}
