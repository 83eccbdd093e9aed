/* tensors: the gradient tensors the orchestration benchmark negotiates. */
#ifndef EXADL_COLL_TENSORS_H
#define EXADL_COLL_TENSORS_H

#include <stdint.h>

typedef struct {
    char name[40];     /* "down2.l3.w", "conv_init.b" */
    int layer;         /* layer index in forward order */
    int64_t elements;  /* parameters (one gradient element each) */
} coll_tensor_t;

/* The gb2019 STEMDL FC-DenseNet's gradient tensors (the wiring of
 * docs/stemdl.md "The network"), as its plan exports them
 * (plan_preset_tensors, benchmarks/networks/fcdensenet/plan.h):
 * every layer's conv weights, plus the biases of CONV_INIT and CONV_FIN, in
 * forward order.  Returns the count; *nlayers gets the layers. */
int coll_gb2019_tensors(coll_tensor_t **out, int *nlayers);

/* n synthetic tensors of `elements` each, two per layer (weights and bias). */
int coll_synthetic_tensors(coll_tensor_t **out, int n, int64_t elements, int *nlayers);

#endif
