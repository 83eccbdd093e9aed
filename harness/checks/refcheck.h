/* refcheck: reference files (docs/references.md) read and evaluated against
 * a run's metric table.  Bounds are fractions of the expected value, ReFrame
 * style: PASS when value*(1+lower) <= measured <= value*(1+upper), a null
 * bound being open.  Network metrics no run measured (gb2019 FLOP counts on a
 * machine that ran `tiny`) are taken from the workload's describe answer
 * (`stemdl --describe`, harness/workloads/registry.c). */
#ifndef EXADL_HARNESS_REFCHECK_H
#define EXADL_HARNESS_REFCHECK_H

#include "harness/analysis/metrics.h"

#define REFERENCE_FORMAT_VERSION 1

typedef struct {
    const char *metric;
    kv_t *where;
    size_t nwhere;
    double value, lower, upper; /* lower/upper NaN: open */
    const char *unit, *note;
    int line;
} refspec_t;

typedef struct {
    const char *path, *name, *kind, *source, *system, *notes;
    refspec_t *c;
    size_t n;
} reference_t;

typedef enum { CK_PASS = 0, CK_FAIL, CK_NA } ck_outcome;
const char *ck_name(ck_outcome o);

typedef struct {
    const char *reference, *kind, *metric, *where, *unit;
    const char *bench;      /* the run's benchmark it was measured on (NULL: none) */
    int scale;
    double expected, lo, hi; /* absolute bounds; NaN open */
    double measured;         /* NaN: nothing measured */
    ck_outcome outcome;
    const char *detail;      /* why FAIL or N/A; context for published values */
    const char *source;      /* "run", "none", or the describe command ("stemdl --describe") */
    double ci_lo, ci_hi;     /* the measured value's 95% CI (NaN: none) */
    int launches;            /* ok launches behind it (0: unknown) */
} check_t;

typedef struct {
    char *key, *out;
} describe_answer_t;

typedef struct {
    check_t *c;
    size_t n, cap;
    describe_answer_t *d; /* describe answers, asked once per configuration */
    size_t nd, dcap;
} checks_t;

/* 0, or -1 with "FILE:LINE:COL: problem". */
int reference_load(arena_t *a, const char *path, reference_t *r, char *err, size_t errlen);

/* Evaluate every check of r against t; the workloads' programs in bindir
 * (exadl's bin/; NULL: ask none) answer network metrics nothing measured.
 * Appends to out. */
void reference_evaluate(arena_t *a, const reference_t *r, const mtable_t *t, const char *bindir,
                        checks_t *out);

/* Counts by outcome. */
void checks_count(const checks_t *c, int *pass, int *fail, int *na);

/* A check's number as text: exact counts in full, FLOP and FLOP/s with SI
 * prefixes, others with 4 significant digits; NaN as "-". */
void check_value_text(double v, const char *unit, int exact, char *buf, size_t len);

/* Print "PASS  metric  where  measured  expected  bound" lines. */
void checks_print(FILE *f, const checks_t *c);

#endif
