/* The spatial model's inputs from a run (spatial_input.h): the workload
 * from a one-rank cosmoflow record's kernel table, the link constants from
 * the run's allreduce sweep or a machine file (model_net_from_run). */
#define _GNU_SOURCE
#include "harness/model/spatial_input.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/network/blk_network.h"
#include "harness/blocks/spatial/blk_spatial.h"
#include "harness/blocks/training/blk_training.h"

/* unet: the U-Net's `gather` rows are its transposed convolutions' strided
 * copies (compute), not CosmoFlow's feature gather */
static int is_comm(const char *kernel, int unet)
{
    return !strcmp(kernel, "halo") || (!unet && !strcmp(kernel, "gather")) ||
           !strcmp(kernel, "scatter") || !strcmp(kernel, "allreduce");
}

/* The network a spatial block describes: "unet3d", or "cosmoflow". */
static const char *net_of(const spinfo_t *sp) { return sp && sp->network ? sp->network : "cosmoflow"; }

/* A cosmoflow record of one rank holding whole samples. */
static int is_base(const outcome_t *x)
{
    const record_t *r = x->rec;
    const spinfo_t *sp = r ? rec_spatial(r) : NULL;
    return x->status == LS_OK && sp && r->ranks == 1 && sp->ranks_per_sample == 1 &&
           rec_training(r)->nstep > 0 && rec_training(r)->nk > 0;
}

/* The network of entry bench's records (NULL bench or none: any). */
static const char *bench_net(const outcome_t *o, size_t n, const char *bench)
{
    for (size_t i = 0; bench && i < n; i++)
        if (o[i].rec && rec_spatial(o[i].rec) && !strcmp(o[i].bench, bench))
            return net_of(rec_spatial(o[i].rec));
    return NULL;
}

int msp_work_from_record(const record_t *r, double step_s, msw_t *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    const spinfo_t *sp = rec_spatial(r);
    if (!sp || sp->nl < 1 || sp->nl > MSP_MAX_LAYERS) {
        snprintf(err, errlen, "%s: no spatial block with its layers", r->path);
        return -1;
    }
    const char *bs = record_config(r, "batch");
    double batch = bs ? atof(bs) : 1;
    const trinfo_t *tr = rec_training(r);
    double steps = tr->kernels_steps > 0 ? tr->kernels_steps : (double)tr->nstep;
    if (!(batch >= 1) || !(steps > 0)) {
        snprintf(err, errlen, "%s: no batch or kernel steps", r->path);
        return -1;
    }
    w->nl = (int)sp->nl;
    w->units = (int)sp->units;
    w->halo = (int)sp->halo;
    w->params = rec_network(r)->parameters;
    w->elem_bytes = r->precision && (!strcmp(r->precision, "bf16") || !strcmp(r->precision, "fp16")) ? 2 : 4;
    for (int l = 0; l < w->nl; l++) {
        w->ext[l] = (int)sp->l[l].extent;
        w->cin[l] = (int)sp->l[l].c_in;
        w->cout[l] = (int)sp->l[l].c_out;
    }
    w->feat_c = w->cout[w->nl - 1];
    if (!strcmp(net_of(sp), "unet3d")) {
        w->dplanes = 1;
        for (int l = 0; l < w->nl; l++) w->xin[l] = (int)sp->l[l].halo_in, w->xout[l] = (int)sp->l[l].halo_out;
        /* its batch-norm and loss sums when split */
        w->sync_n = isfinite(sp->sync_allreduces_per_step) ? sp->sync_allreduces_per_step : 0;
        w->sync_bytes = isfinite(sp->sync_bytes_per_step) ? sp->sync_bytes_per_step : 0;
    }
    double rows = 0;
    for (size_t k = 0; k < rec_training(r)->nk; k++) {
        const krow_t *x = &rec_training(r)->k[k];
        if (!isfinite(x->time_s) || is_comm(x->kernel, w->dplanes)) continue;
        double t = x->time_s / steps;
        rows += t;
        int l = -1;
        for (int j = 0; j < w->nl; j++)
            if (x->layer && !strcmp(x->layer, sp->l[j].name)) l = j;
        if (l >= 0) w->conv_s[l] += t / batch;
        else if (!strcmp(x->kernel, "adam") || !strcmp(x->kernel, "sgd")) w->opt_s += t;
        else w->head_s += t / batch;
    }
    /* what the table does not hold (barrier, engine start and end, loop) */
    w->other_s = step_s > rows ? step_s - rows : 0;
    return 0;
}

int msp_inputs_from_run(arena_t *a, const outcome_t *o, size_t n, const char *bench,
                        const mfile_t *mf, mspin_t *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    /* the base: one rank of `bench` (else of any cosmoflow entry of the same
     * size); its step is the median over the timed steps of its launches */
    const outcome_t *base = NULL;
    const char *net = bench_net(o, n, bench); /* a U-Net's base is a U-Net's */
    for (int pass = 0; pass < 2 && !base; pass++)
        for (size_t i = 0; i < n && !base; i++)
            if (is_base(&o[i]) && (pass == 1 || !bench || !strcmp(o[i].bench, bench)) &&
                (!net || !strcmp(net, net_of(rec_spatial(o[i].rec)))))
                base = &o[i];
    if (!base) {
        snprintf(err, errlen, "no cosmoflow record of one rank holding whole samples (spatial "
                 "1x1x1 at 1 rank) with a kernel table: the model needs one");
        return -1;
    }
    size_t tot = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        if (is_base(&o[i]) && !strcmp(o[i].bench, base->bench)) tot += rec_training(o[i].rec)->nstep;
    double *s = ar_alloc(a, (tot + 1) * sizeof *s);
    for (size_t i = 0; i < n; i++)
        if (is_base(&o[i]) && !strcmp(o[i].bench, base->bench)) {
            const trinfo_t *tr = rec_training(o[i].rec);
            for (size_t j = 0; j < tr->nstep; j++) s[k++] = tr->step_s[j];
        }
    double step = stats_median(s, k);
    if (msp_work_from_record(base->rec, step, &in->w, err, errlen)) return -1;
    in->base = base->rec;
    in->base_bench = base->bench;
    in->base_step_s = step;
    double conv = 0;
    for (int l = 0; l < in->w.nl; l++) conv += in->w.conv_s[l];
    in->work_source = ar_printf(a,
                                in->w.dplanes
                                    ? "%s at 1 rank (%zu timed steps, median %.4g s): the 3D U-Net's "
                                      "3^3 layers %.4g s, the rest (transposed convolutions, pooling, "
                                      "classifier, loss: split with the planes too) %.4g s per "
                                      "sample, optimizer %.4g s, other %.4g s per step"
                                    : "%s at 1 rank (%zu timed steps, median %.4g s): conv blocks %.4g s, "
                                      "dense head %.4g s per sample, optimizer %.4g s, other %.4g s per step",
                                base->bench, k, step, conv, in->w.head_s, in->w.opt_s, in->w.other_s);
    minputs_t mi;
    memset(&mi, 0, sizeof mi);
    char why[512];
    if (model_net_from_run(a, o, n, mf, &mi, why, sizeof why) == 0) {
        in->net = mi.net;
        in->net_source = mi.net_source;
        in->have_net = 1;
    } else {
        in->net_source = ar_printf(a, "none (%s): halo, gather and allreduce predicted as 0", why);
    }
    return 0;
}
