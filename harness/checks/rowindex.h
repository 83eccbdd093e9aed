/* rowindex: a run's metric rows indexed by metric name, by benchmark and by
 * each (parameter, value), so that `exadl check` finds the rows of a check
 * without reading the whole table once per check: 20,000 checks against
 * 100,000 rows took 75 s when every check scanned every row (and every
 * matching row scanned them all again for the largest scale and the launch
 * count).  Built once per reference, O(r log r) for r rows and parameters;
 * a lookup is O(log r) plus the rows it returns.
 *
 * Values are indexed the way where_value_same (where.h) compares them: as
 * text, as a number (1e6 = 1000000), as a truth value (yes = true) and a
 * wanted size (1M) as its number of bytes.  The index returns candidates:
 * every row that matches, perhaps more; the caller still tests each row
 * with its own predicate, so the index decides speed, never an outcome. */
#ifndef EXADL_HARNESS_ROWINDEX_H
#define EXADL_HARNESS_ROWINDEX_H

#include "harness/analysis/metrics.h"

typedef struct rowindex rowindex_t;

/* The index of t (which must outlive it), allocated in a. */
rowindex_t *rowindex_build(arena_t *a, const mtable_t *t);

/* Rows (indices into t, ascending, each once) that may match metric and
 * where[0..n): a superset of the rows whose metric is metric, whose
 * benchmark (suite name, record kind or program) is where's `benchmark` and
 * whose parameters equal where's other keys by where_value_same (`scale`
 * is not looked at).  The list is allocated in a; returns its length. */
size_t rowindex_candidates(arena_t *a, const rowindex_t *x, const char *metric, const kv_t *where,
                           size_t n, size_t **rows);

/* 1 when some row of metric for which the index may match the one where key
 * w (not benchmark or scale) satisfies match(row, w): without making a list,
 * so an existence question costs O(log r) plus the rows tried. */
int rowindex_any(const rowindex_t *x, const char *metric, const kv_t *w,
                 int (*match)(const metric_t *m, const kv_t *w));

/* Keep of rows[0..n) those whose scale is the largest (largest = 1) or the
 * smallest among the listed rows of the same benchmark, in their order;
 * returns how many are kept. */
size_t rowindex_keep_extreme(arena_t *a, const rowindex_t *x, size_t *rows, size_t n, int largest);

/* The value of the last `launches_ok` row of bench at scale, or 0 when there
 * is none. */
double rowindex_launches_ok(const rowindex_t *x, const char *bench, int scale);

/* 1 when where_value_same(recorded, wanted) may hold by the index's keys:
 * for the test that keeps the index and where.c in step. */
int rowindex_may_match(const char *recorded, const char *wanted);

#endif
