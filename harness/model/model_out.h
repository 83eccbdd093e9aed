/* model_out: the scaling model run over modes x scales, and what it writes:
 * the table (scale, mode, step time, efficiency, exposed communication,
 * negotiation per step), model.yaml (inputs with their sources, every
 * prediction) and the efficiency plot (gnuplot, PNG + SVG with .dat and .gp). */
#ifndef EXADL_HARNESS_MODEL_OUT_H
#define EXADL_HARNESS_MODEL_OUT_H

#include <stdio.h>

#include "harness/checks/refcheck.h"
#include "harness/model/model_input.h"
#include "harness/plots/plots.h"

typedef struct {
    mmode_t mode;
    const char *name;  /* "bitvector+layer" */
    mresult_t *r;      /* one per scale */
} mseries_t;

typedef struct {
    const minputs_t *in;
    int *scales;
    size_t ns;
    mseries_t *s;
    size_t nseries;
} mpred_t;

/* Predict every mode at every scale.  0, or -1 with err. */
int model_compute(arena_t *a, const minputs_t *in, const mmode_t *modes, size_t nm,
                  const int *scales, size_t ns, mpred_t *out, char *err, size_t errlen);

/* The modes of `--mode all`: coordinator and bit vector, each with no grouping,
 * layer grouping and `groups` groups, at the given fusion and cycle. */
size_t model_modes_all(mmode_t *out, int groups, double fusion_bytes, double cycle_s);

/* Where the inputs came from, then the table. */
void model_print(FILE *f, const mpred_t *p);
/* model.yaml; command is recorded as given; ck (may be NULL) the reference checks. */
int model_write_yaml(const char *path, const mpred_t *p, const char *command,
                     const checks_t *ck, char *err, size_t errlen);
/* The predictions as metric rows (benchmark "model"): model_efficiency (param
 * mode) per mode and scale, model_speedup (param grouping) where both
 * orchestrations ran with the same grouping; for reference files. */
void model_metrics(arena_t *a, const mpred_t *p, mtable_t *t);

/* Efficiency against scale, one line per mode: dir/NAME.{dat,gp} registered in pl. */
void model_plot(arena_t *a, const char *dir, const mpred_t *p, const char *name,
                const char *title, plots_t *pl);

#endif
