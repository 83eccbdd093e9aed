/* cl_plan_print: --describe's layer table and totals (cl_plan.h). */
#include <stdio.h>
#include <string.h>

#include "benchmarks/networks/deepcam/cl_plan.h"
#include "benchmarks/train/trec.h"

static const char *kind_name(cl_opkind k)
{
    switch (k) {
    case CL_CONV: return "conv";
    case CL_TCONV: return "tconv";
    case CL_BN: return "bn";
    case CL_AFFINE: return "affine";
    default: return "-";
    }
}

void cl_plan_print(const cl_plan *p, FILE *f, int64_t executed_per_step, int batch)
{
    const cl_cfg *c = &p->cfg;
    fprintf(f,
            "# climate DeepLabv3+ (DeepCAM)%s%s: input %dx%dx%d, %d classes, widths / %d, "
            "%d middle blocks, output stride 16\n",
            c->preset[0] ? " preset " : "", c->preset, c->channels, c->height, c->width, CL_CLASSES,
            c->width_div, c->middle_blocks);
    fprintf(f, "%-24s %-6s %2s %2s %3s %5s %16s %16s %10s %14s\n", "layer", "type", "k", "s",
            "dil", "grp", "input CxHxW", "output CxHxW", "params", "fwd_flops/sample");
    for (int i = 0; i < p->nop; i++) {
        const cl_op *o = &p->op[i];
        if (o->layer < 0) continue;
        const cl_tensor *x = &p->t[o->in], *y = &p->t[o->out];
        char in[32], out[32];
        snprintf(in, sizeof in, "%dx%dx%d", x->c, x->h, x->w);
        snprintf(out, sizeof out, "%dx%dx%d", y->c, y->h, y->w);
        int conv = o->kind == CL_CONV || o->kind == CL_TCONV;
        fprintf(f, "%-24s %-6s %2d %2d %3d %5d %16s %16s %10lld %14lld\n", o->name,
                kind_name(o->kind), conv ? o->g.k : 0, conv ? o->g.stride : 0, conv ? o->g.dil : 0,
                conv ? kern_dconv_groups(&o->g) : 0, in, out, (long long)o->count,
                (long long)o->fwd_flops);
    }
    char a[32], b[32], e[32];
    trec_si((double)p->fwd_conv_flops, a, sizeof a);
    trec_si(3.0 * (double)p->fwd_conv_flops, b, sizeof b);
    fprintf(f, "\n");
    fprintf(f, "layers                         %d\n", p->layers);
    fprintf(f, "convolutions                   %d\n", p->convs);
    fprintf(f, "conv_weights                   %lld\n", (long long)p->conv_weights);
    fprintf(f, "parameters                     %lld\n", (long long)p->params);
    fprintf(f, "forward_conv_flops_per_sample  %lld  (%sFLOP)\n", (long long)p->fwd_conv_flops, a);
    fprintf(f, "convention_flops_per_sample    %lld  (%sFLOP, 3 x forward)\n",
            (long long)(3 * p->fwd_conv_flops), b);
    fprintf(f, "batch_norm                     %s\n",
            strcmp(c->bn, "sync") ? "local  (each rank's statistics; --bn sync: its group's)"
                                  : "sync  (statistics allreduced over a group of ranks)");
    fprintf(f,
            "bn_sync_bytes_per_step         %lld  (per rank with --bn sync: %lld allreduces of "
            "2 c + 1 doubles, any batch)\n",
            (long long)cl_plan_bnsync_bytes(p), (long long)cl_plan_bnsync_reductions(p));
    if (executed_per_step > 0 && batch > 0) {
        trec_si((double)executed_per_step / batch, e, sizeof e);
        fprintf(f,
                "executed_flops_per_sample      %lld  (%sFLOP, every kernel of a step at batch "
                "%d)\n",
                (long long)(executed_per_step / batch), e, batch);
    }
}
