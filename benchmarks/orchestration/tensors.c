#include "benchmarks/orchestration/tensors.h"

#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"

static void add(coll_tensor_t *t, int *n, const char *name, const char *suffix, int layer,
                int64_t elements)
{
    snprintf(t[*n].name, sizeof t[*n].name, "%.30s.%s", name, suffix);
    t[*n].layer = layer;
    t[*n].elements = elements;
    (*n)++;
}

int coll_gb2019_tensors(coll_tensor_t **out, int *nlayers)
{
    /* gb2019: C_in 1024, F0 256, k0 5, growth 256, k 5, down [1,2,4],
     * bottleneck 3, up [4,2,1], td [512,1024,2048], tu [768,1024,512], C_out 1 */
    const int c_in = 1024, f0 = 256, k0 = 5, g = 256, k = 5, L = 3, bott = 3, c_out = 1;
    const int down[3] = {1, 2, 4}, up[3] = {4, 2, 1};
    const int td[3] = {512, 1024, 2048}, tu[3] = {768, 1024, 512};
    coll_tensor_t *t = XCALLOC(64, sizeof *t, "tensor list");
    int n = 0, layer = 0, skip[3];
    char name[40];
    add(t, &n, "conv_init", "w", layer, (int64_t)k0 * k0 * c_in * f0);
    add(t, &n, "conv_init", "b", layer++, f0);
    int ch = f0;
    for (int i = 0; i < L; i++) {
        for (int l = 0; l < down[i]; l++, ch += g) {
            snprintf(name, sizeof name, "down%d.l%d", i, l);
            add(t, &n, name, "w", layer++, (int64_t)k * k * ch * g);
        }
        skip[i] = ch;
        snprintf(name, sizeof name, "td%d", i);
        add(t, &n, name, "w", layer++, (int64_t)ch * td[i]);
        ch = td[i];
    }
    for (int l = 0; l < bott; l++, ch += g) {
        snprintf(name, sizeof name, "bottleneck.l%d", l);
        add(t, &n, name, "w", layer++, (int64_t)k * k * ch * g);
    }
    int new_maps = bott * g;
    for (int j = 0; j < L; j++) {
        snprintf(name, sizeof name, "tu%d", j);
        add(t, &n, name, "w", layer++, (int64_t)new_maps * tu[j]); /* 1x1 transposed conv */
        ch = tu[j] + skip[L - 1 - j];
        for (int l = 0; l < up[j]; l++, ch += g) {
            snprintf(name, sizeof name, "up%d.l%d", j, l);
            add(t, &n, name, "w", layer++, (int64_t)k * k * ch * g);
        }
        new_maps = up[j] * g;
    }
    add(t, &n, "conv_fin", "w", layer, (int64_t)ch * c_out);
    add(t, &n, "conv_fin", "b", layer++, c_out);
    *out = t;
    *nlayers = layer;
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
