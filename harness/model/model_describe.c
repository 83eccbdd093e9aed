/* The model's workload from `stemdl --describe` and a per-GPU FLOP rate
 * (model_input.h): for networks we cannot run at their size (gb2019 on a
 * laptop), readiness times come from each layer's share of the FLOPs. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/model/model_input.h"

typedef struct {
    char name[64];
    double out_c, weights, fwd;
} dlayer_t;

/* the value after `key` at the start of a line ("biases   257") */
static double keyed(const char *text, const char *key)
{
    size_t k = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, key, k) && (l[k] == ' ' || l[k] == '\t')) return strtod(l + k, NULL);
    return NAN;
}

int model_work_from_describe(arena_t *a, const char *text, const char *what, double flops_per_s,
                             int convention, int batch, double grad_bytes, minputs_t *in,
                             char *err, size_t errlen)
{
    if (!(flops_per_s > 0) || batch < 1 || !(grad_bytes > 0)) {
        snprintf(err, errlen,
                 "describe mode needs a FLOP rate > 0, batch >= 1 and gradient bytes > 0");
        return -1;
    }
    const char *h = strstr(text, "\nlayer ");
    if (!h || !strstr(h, "fwd_flops")) {
        snprintf(err, errlen, "%s: no layer table (expected `stemdl --describe` output)", what);
        return -1;
    }
    size_t cap = 64, nl = 0;
    dlayer_t *L = ar_alloc(a, cap * sizeof *L);
    const char *l = strchr(h + 1, '\n');
    while (l && l[1] && l[1] != '\n') {
        l++;
        char name[64], type[32], kk[32], inp[64], outp[64];
        double w, f;
        if (sscanf(l, "%63s %31s %31s %63s %63s %lf %lf", name, type, kk, inp, outp, &w, &f) != 7) {
            snprintf(err, errlen, "%s: cannot read layer row '%.60s'", what, l);
            return -1;
        }
        AR_GROW(a, L, nl, cap);
        dlayer_t *x = &L[nl++];
        snprintf(x->name, sizeof x->name, "%s", name);
        x->out_c = strtod(outp, NULL);
        x->weights = w, x->fwd = f;
        l = strchr(l, '\n');
    }
    double biases = keyed(text, "biases"), fconv = keyed(text, "forward_conv_flops_per_sample");
    double conv = keyed(text, "convention_flops_per_sample"),
           exec = keyed(text, "executed_flops_per_sample");
    if (nl < 2 || !isfinite(conv) || !isfinite(exec) || !isfinite(fconv)) {
        snprintf(err, errlen, "%s: the describe output lacks layers or FLOP totals", what);
        return -1;
    }
    /* biases on the first and the last layer (docs/stemdl.md); else left out */
    int with_bias = fabs(L[0].out_c + L[nl - 1].out_c - biases) < 0.5;
    double rate_flops = (convention ? conv : exec) * batch;
    double t1 = rate_flops / flops_per_s;
    /* executed conv FLOPs: forward F each; backward 2F, the first layer F */
    double work = 0;
    for (size_t i = 0; i < nl; i++) work += L[i].fwd + (i ? 2 : 1) * L[i].fwd;
    double u = t1 / work, clock = 0;
    for (size_t i = 0; i < nl; i++) clock += L[i].fwd * u;
    in->w.nt = 0;
    in->w.t = ar_alloc(a, (2 * nl + 1) * sizeof *in->w.t);
    for (size_t j = nl; j-- > 0;) { /* backward: last layer first */
        clock += (j ? 2 : 1) * L[j].fwd * u;
        const char *ln = ar_strdup(a, L[j].name);
        if (with_bias && (j == 0 || j == nl - 1))
            in->w.t[in->w.nt++] = (mtensor_t){ar_printf(a, "%s.b", ln), ln,
                                              L[j].out_c * grad_bytes, clock};
        in->w.t[in->w.nt++] =
            (mtensor_t){ar_printf(a, "%s.w", ln), ln, L[j].weights * grad_bytes, clock};
    }
    in->w.step_s = t1;
    in->w.backward_end_s = clock;
    in->base_bench = what;
    in->base_scale = 1;
    in->have_mode = 0;
    in->work_source = ar_printf(
        a, "%s: %zu layers, step %.4g s = batch %d x %.4g %s FLOPs per sample / %.4g FLOP/s; "
        "layer times in proportion to executed conv FLOPs (forward F, backward 2F, the first "
        "layer F); gradients %g bytes per weight%s", what, nl, t1, batch, convention ? conv : exec,
        convention ? "convention (3 x forward conv)" : "executed", flops_per_s, grad_bytes,
        with_bias ? ", biases of the first and last layer included" : ", biases left out");
    return 0;
}
