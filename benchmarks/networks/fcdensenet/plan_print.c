/* plan_print: the layer table and totals of --describe (apart from plan.c,
 * so that what links the plan alone, the orchestration benchmark, does not
 * link the runtime's record code). */
#include "benchmarks/networks/fcdensenet/plan.h"

#include <stdio.h>

#include "benchmarks/train/trec.h"

void plan_print(const plan_t *p, FILE *f, int64_t executed_per_step, int batch)
{
    const cfg_t *c = &p->cfg;
    fprintf(f, "# STEMDL FC-DenseNet%s%s: %d levels, input %dx%dx%d, growth %d, k %d\n",
            c->preset[0] ? " preset " : "", c->preset, c->levels, c->c_in, c->height, c->width,
            c->growth, c->k);
    fprintf(f, "%-16s %-5s %4s %20s %20s %14s %18s\n", "layer", "type", "k", "input CxHxW",
            "output CxHxW", "weights", "fwd_flops/sample");
    for (int i = 0; i < p->n; i++) {
        const plan_layer *l = &p->layers[i];
        char in[32], out[32];
        snprintf(in, sizeof in, "%dx%dx%d", l->c_in, l->h_in, l->w_in);
        snprintf(out, sizeof out, "%dx%dx%d", l->c_out, l->h_out, l->w_out);
        fprintf(f, "%-16s %-5s %4d %20s %20s %14lld %18lld\n", l->name,
                l->kind == PLAN_TCONV ? "tconv" : "conv", l->k, in, out, (long long)l->weights,
                (long long)l->fwd_flops);
    }
    char a[32], b[32], e[32];
    trec_si((double)p->fwd_conv_flops, a, sizeof a);
    trec_si(3.0 * (double)p->fwd_conv_flops, b, sizeof b);
    fprintf(f, "\n");
    fprintf(f, "layers                         %d\n", p->n);
    fprintf(f, "conv_weights                   %lld\n", (long long)p->weights);
    fprintf(f, "biases                         %lld\n", (long long)p->biases);
    fprintf(f, "parameters                     %lld\n", (long long)p->params);
    fprintf(f, "forward_conv_flops_per_sample  %lld  (%sFLOP)\n", (long long)p->fwd_conv_flops, a);
    fprintf(f, "convention_flops_per_sample    %lld  (%sFLOP, 3 x forward)\n",
            (long long)(3 * p->fwd_conv_flops), b);
    if (executed_per_step > 0 && batch > 0) {
        trec_si((double)executed_per_step / batch, e, sizeof e);
        fprintf(f, "executed_flops_per_sample      %lld  (%sFLOP, every kernel of a step at batch %d)\n",
                (long long)(executed_per_step / batch), e, batch);
    }
}
