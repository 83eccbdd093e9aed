/* refcheck: reference files (docs/references.md) read and evaluated against
 * a run's metric table.  Bounds are fractions of the expected value, ReFrame
 * style: PASS when value*(1+lower) <= measured <= value*(1+upper), a null
 * bound being open.  Network metrics no run measured (gb2019 FLOP counts on a
 * machine that ran `tiny`) are taken from the workload's describe answer
 * (`stemdl --describe`, harness/workloads/registry.c) that exadl run's probe
 * stage recorded in the run folder's probe.yaml (harness/run/probe.h):
 * evaluating starts no process.  Only exact references are answered so (an
 * acceptance check is about what the machine ran); a where that selects
 * nothing this run ran is a reference error (CK_ERROR), not a pass or a
 * failure of the machine.  Counting: tally.c; the terminal lines: listing.c. */
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
    int describable; /* kind exact: counts of a configuration no launch ran may come
                        from the workload's --describe */
} refspec_t;

typedef struct {
    const char *path, *name, *kind, *source, *system, *notes;
    const char *label; /* name, or "name (path)" where another file checked with it has
                          the same name (references_label) */
    refspec_t *c;
    size_t n;
} reference_t;

/* CK_ERROR: a mistake of the reference file (a where that matches nothing this run
 * ran), not of the machine: exit status 2 */
typedef enum { CK_PASS = 0, CK_FAIL, CK_NA, CK_ERROR } ck_outcome;
const char *ck_name(ck_outcome o);

typedef struct {
    const char *reference, *kind, *metric, *where, *unit;
    const char *reference_file; /* the reference file's path */
    const char *row;        /* the keys that tell the row apart ("allreduce sum float32 256 B
                               out-of-place"), NULL: none */
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

/* Give every reference a label: its name, or "name (path)" where two of refs[0..n)
 * share a name, so that their checks can be told apart. */
void references_label(arena_t *a, reference_t *refs, size_t n);

/* A reference error whose where names benchmark `name`, which the run skipped
 * (an optional program not built), is the run's failure, not the file's: FAIL
 * with the reason. */
void checks_skipped(arena_t *a, checks_t *c, const char *name, const char *reason);

/* 1 when c's value is a count of a configuration no launch ran (from --describe) */
int check_described(const check_t *c);

/* Counts by outcome: pass and fail of every check (fail includes reference
 * errors, so that a caller that knows no more never reads them as a pass). */
void checks_count(const checks_t *c, int *pass, int *fail, int *na);

/* The counts the verdicts and the summary lines use: checks of what ran apart
 * from counts of configurations not run (--describe), and reference errors. */
typedef struct {
    int pass, fail;                     /* checks of what this run measured */
    int described_pass, described_fail; /* counts of configurations not run */
    int na, ref_errors;
} ck_tally_t;
ck_tally_t checks_tally(const checks_t *c);
/* "checks of this run: 3 passed, 1 failed; counts of configurations not run
 * (--describe): 24 passed; 5 not applicable; 1 reference error" */
void checks_tally_text(const ck_tally_t *t, char *buf, size_t len);

/* A check's number as text: exact counts in full, FLOP and FLOP/s with SI
 * prefixes, others with 4 significant digits; NaN as "-". */
void check_value_text(double v, const char *unit, int exact, char *buf, size_t len);

/* Print "PASS  metric  where  measured  expected  bound" lines (listing.c): a
 * check that matched many rows with one outcome is one line with the count
 * and range; a failing row is a line of its own with its row keys. */
void checks_print(FILE *f, const checks_t *c);

#endif
