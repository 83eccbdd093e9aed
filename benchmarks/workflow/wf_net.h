/* wf_net: the trainer's model, a small dense regression on the training
 * runtime's kernels (counted.h: every call's FLOPs counted, kernel set ref
 * or fast): cells -> hidden (ReLU) -> cells, mean squared error against the
 * sample's target (the field sim_steps diffusion steps later: the network
 * learns the simulation's operator), Adam.
 * defines: wf_net, wf_net_create, wf_net_step, wf_net_free, wf_net_params */
#ifndef EXADL_WORKFLOW_WF_NET_H
#define EXADL_WORKFLOW_WF_NET_H

#include <stdint.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/workflow/wf.h"

typedef struct wf_net wf_net;

wf_net *wf_net_create(const wf_cfg *c);
void wf_net_free(wf_net *n);
/* Input and target rows of sample i of the next step (cells floats each). */
float *wf_net_input(wf_net *n, int i);
float *wf_net_target(wf_net *n, int i);
/* Forward and backward over the first `count` loaded samples; returns the
 * loss; *grad_s gets CLOCK_REALTIME once the gradients are complete (the end
 * of a sample's latency).  Then Adam. */
double wf_net_step(wf_net *n, int count, double *grad_s);
int64_t wf_net_params(const wf_net *n);
int64_t wf_net_flops(const wf_net *n);  /* counted over every step so far */
double wf_net_kernel_s(const wf_net *n); /* time in kernels so far */
const char *wf_net_library(const wf_net *n);

#endif
