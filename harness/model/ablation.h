/* ablation: the gradient-reduction modes of a run side by side (docs/ablation.md).
 * Per stemdl entry and scale: its engine settings (orchestration, grouping,
 * cycle, fusion), the measured efficiency, exposed communication, negotiation
 * and reduction time per step, and, when the suite asks for `model:`, the
 * scaling model's prediction for the same mode and scale (inputs fitted to the
 * same run, or a machine file), plus predictions at further scales. */
#ifndef EXADL_HARNESS_ABLATION_H
#define EXADL_HARNESS_ABLATION_H

#include "harness/analysis/metrics.h"
#include "harness/model/model_out.h"

typedef struct {
    const char *bench, *kind;  /* suite entry; its records' benchmark */
    const char *mode_name;   /* "bitvector+layer" (from the records) */
    mmode_t mode;
    int scale, nok;
    double step_s, eff, eff_lo, eff_hi;            /* analysis */
    double exposed_s, negotiation_s, reduce_s, cycles; /* medians over the pooled timed steps */
    int have_pred;
    mresult_t pred;
    /* the same with reductions at the rate this entry measured inside training
     * (bytes per step / reduce time): separates the engine's logic from the
     * network constants of a quiet sweep */
    int have_train;
    double train_Bps;
    mresult_t train;
} abrow_t;

typedef struct {
    int active;              /* the report has the section */
    abrow_t *r;
    size_t n;
    int model;               /* the suite asked for the model */
    const char *model_note;  /* why there is no prediction (NULL: there is) */
    minputs_t in;
    mpred_t ext;             /* each entry's mode at the run's and the suite's model scales */
} ablation_t;

/* The gradient_reduction block's derived numbers (its derive,
 * harness/blocks/gradient_reduction/der_gradient_reduction.c, which also adds
 * their rows exposed_comm_s, negotiation_s and model_efficiency); its report
 * section (plots, Markdown, model.yaml) is
 * harness/report/sections/gradient_reduction.c. */
void ablation_build(arena_t *a, const suite_t *s, const outcome_t *o, size_t n,
                    const analysis_t *an, ablation_t *out);

#endif
