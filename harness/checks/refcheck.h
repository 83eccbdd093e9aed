/* refcheck: reference files (docs/references.md) read and evaluated against
 * a run's metric table.  Bounds are fractions of the expected value, ReFrame
 * style: PASS when value*(1+lower) <= measured <= value*(1+upper), a null
 * bound being open.  Network metrics no run measured (gb2019 FLOP counts on a
 * machine that ran `tiny`) are taken from the workload's describe answer
 * (`stemdl --describe`, harness/workloads/registry.c) that exadl run's probe
 * stage recorded in the run folder's probe.yaml (harness/run/probe.h):
 * evaluating starts no process. */
#ifndef EXADL_HARNESS_REFCHECK_H
#define EXADL_HARNESS_REFCHECK_H

#include "harness/analysis/metrics.h"
#include "harness/run/probe.h"

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
    check_t *c;
    size_t n, cap;
} checks_t;

/* The describe question of a check: the workload's program (by name) and its
 * arguments (`--describe --preset gb2019`), NULL-terminated. */
#define DESCRIBE_MAX_ARGS 64
typedef struct {
    const char *program;
    char *args[DESCRIBE_MAX_ARGS];
    size_t nargs;
} describe_q_t;

/* 0, or -1 with "FILE:LINE:COL: problem". */
int reference_load(arena_t *a, const char *path, reference_t *r, char *err, size_t errlen);

/* The describe question check s asks when no row of the run matches it: 1
 * with q filled; 0 when it asks none (no workload describes its metric, or
 * its scale is a number); -1 when it cannot be asked (why: a where key that
 * is no configuration word).  exadl run's probe stage asks these. */
int reference_describe_question(arena_t *a, const refspec_t *s, describe_q_t *q, const char **why);

/* Evaluate every check of r against t; network metrics nothing measured come
 * from the describe answers in probe (NULL: none recorded; such a check says
 * so).  Starts no process.  Appends to out. */
void reference_evaluate(arena_t *a, const reference_t *r, const mtable_t *t, const probe_t *probe,
                        checks_t *out);

/* One line on the checks not evaluated because a recorded describe answer
 * was missing (which, and the file), or NULL when there are none. */
const char *checks_unanswered_note(arena_t *a, const checks_t *c, const probe_t *probe);

/* Counts by outcome. */
void checks_count(const checks_t *c, int *pass, int *fail, int *na);

/* A check's number as text: exact counts in full, FLOP and FLOP/s with SI
 * prefixes, others with 4 significant digits; NaN as "-". */
void check_value_text(double v, const char *unit, int exact, char *buf, size_t len);

/* Print "PASS  metric  where  measured  expected  bound" lines. */
void checks_print(FILE *f, const checks_t *c);

#endif
