/* cf_describe: the layer table and exact totals of `cosmoflow --describe`;
 * the "name value" lines at the end are what `exadl check` reads for the
 * exact reference (reference/cosmoflow-exact.yaml). */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/cosmoflow/model/cf_network.h"
#include "benchmarks/train/trec.h"

void cf_describe(const cf_model *m, FILE *f, int64_t executed_per_step, int batch)
{
    const cf_plan *p = &m->plan;
    const cf_cfg *c = &p->cfg;
    char cap[32] = "", ks[64] = "";
    for (int i = 0, used = 0; i < c->blocks && used < (int)sizeof ks - 4; i++)
        used += snprintf(ks + used, sizeof ks - (size_t)used, "%s%d", i ? "," : "", p->layers[i].k);
    if (c->filter_cap > 0) snprintf(cap, sizeof cap, ", at most %d", c->filter_cap);
    fprintf(f, "# CosmoFlow%s%s: input %d^3 x %d, %d blocks of conv k^3 (k %s; filters %d x 2^i%s), "
               "leaky ReLU %g, 2^3 %s-pool; dense %d, %d, %d; MSE\n",
            c->preset[0] ? " preset " : "", c->preset, c->size, c->channels, c->blocks, ks,
            c->filters, cap, c->slope, c->pool, c->dense1, c->dense2, c->targets);
    fprintf(f, "# recipe %s: dropout %g after fc1 and fc2, output %s, inputs %s; optimizer %s, lr %g\n",
            c->recipe[0] ? c->recipe : "exadl", c->dropout,
            c->out_scale > 0 ? "scaled tanh" : "linear", c->log_input ? "log(1 + x)" : "raw",
            c->run.optimizer, c->run.lr);
    fprintf(f, "%-8s %-5s %22s %22s %14s %20s\n", "layer", "type", "input", "output", "weights",
            "fwd_flops/sample");
    for (int i = 0; i < p->nlayers; i++) {
        const cf_layer *l = &p->layers[i];
        char in[40], out[40];
        if (l->kind == CF_CONV) {
            snprintf(in, sizeof in, "%dx%d^3", l->ci, l->ext);
            snprintf(out, sizeof out, "%dx%d^3 -> %dx%d^3", l->co, l->ext, l->co, l->ext / 2);
        } else {
            snprintf(in, sizeof in, "%d", l->ci);
            snprintf(out, sizeof out, "%d", l->co);
        }
        fprintf(f, "%-8s %-5s %22s %22s %14lld %20lld\n", l->name,
                l->kind == CF_CONV ? "conv" : "dense", in, out, (long long)l->nw,
                (long long)l->fwd_flops);
    }
    char a[32], b[32], d[32], e[32];
    trec_si((double)p->fwd_conv_flops, a, sizeof a);
    trec_si(3.0 * (double)p->fwd_conv_flops, b, sizeof b);
    trec_si((double)p->fwd_dense_flops, d, sizeof d);
    fprintf(f, "\n");
    fprintf(f, "layers                          %d\n", p->nlayers);
    fprintf(f, "conv_weights                    %lld\n", (long long)p->conv_weights);
    fprintf(f, "dense_weights                   %lld\n", (long long)p->dense_weights);
    fprintf(f, "biases                          %lld\n", (long long)p->biases);
    fprintf(f, "parameters                      %lld\n", (long long)p->params);
    fprintf(f, "forward_conv_flops_per_sample   %lld  (%sFLOP)\n", (long long)p->fwd_conv_flops, a);
    fprintf(f, "forward_dense_flops_per_sample  %lld  (%sFLOP)\n", (long long)p->fwd_dense_flops,
            d);
    fprintf(f, "convention_flops_per_sample     %lld  (%sFLOP, 3 x forward conv)\n",
            (long long)(3 * p->fwd_conv_flops), b);
    /* the tensors the record's gradient_reduction block lists (fp32) */
    gsync_tensor *t = NULL;
    int nt = cosmoflow_network.tensors(m, &t);
    int64_t gb = 0;
    for (int i = 0; i < nt; i++) gb += t[i].count * (int64_t)sizeof(float);
    free(t);
    fprintf(f, "gradient_bytes                  %lld  (%d tensors reduced per step, fp32)\n",
            (long long)gb, nt);
    if (executed_per_step > 0 && batch > 0) {
        trec_si((double)executed_per_step / batch, e, sizeof e);
        fprintf(f,
                "executed_flops_per_sample       %lld  (%sFLOP, every kernel of a step at batch "
                "%d on one rank)\n",
                (long long)(executed_per_step / batch), e, batch);
    }
}
