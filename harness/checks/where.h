/* where: a reference check's `where` keys and values against what the run's
 * benchmarks record.  Values match as the suite writes them (yes/no/true/
 * false/on/off, sizes such as 1M or 64K, numbers in any notation); a key or
 * value that matches nothing is a mistake of the reference file, named as
 * one with a suggestion for a near miss, never a silent failure of the
 * machine. */
#ifndef EXADL_HARNESS_WHERE_H
#define EXADL_HARNESS_WHERE_H

#include "harness/analysis/metrics.h"

/* 1 when the recorded value equals the value a reference asks for */
int where_value_same(const char *recorded, const char *wanted);

/* Why no row of `t` matches metric + where (kv[0..n), scale and benchmark
 * included): "reference error: where key 'byte' is not recorded for
 * busbw_GBps (did you mean 'bytes'?)"; NULL when every key and value exists
 * in the run (the rows are simply absent: a workload or scale not run). */
/* values: 0 checks only the keys (a published number of another
 * configuration is "not comparable", not a mistake). */
const char *where_diagnose(arena_t *a, const char *metric, const kv_t *kv, size_t n,
                           const mtable_t *t, int values);

/* The same against facts read once (where_facts_build: O(rows log rows)), so
 * that a reference's unmatched checks cost O(log rows) each, not O(rows):
 * what `exadl check` uses.  The facts keep t and ix, which must outlive them. */
typedef struct where_facts where_facts_t;
struct rowindex;
where_facts_t *where_facts_build(arena_t *a, const mtable_t *t, const struct rowindex *ix);
const char *where_diagnose_f(arena_t *a, const char *metric, const kv_t *kv, size_t n,
                             const where_facts_t *f, int values);

/* Why the where kv[0..n) selects no configuration this run ran, as a
 * "reference error: ..." line, or NULL when it does select one (some row of
 * any metric has its benchmark, its scale where that is a number, and each
 * other key's value; a key that rows of the selection lack, such as a
 * collective's op on a scale whose launches all failed, does not count
 * against it unless no row of the run records it at all). */
const char *where_ran(arena_t *a, const kv_t *kv, size_t n, const mtable_t *t);

/* Why a configuration that ran measured nothing for a check: "no launch of
 * stemdl at n=2 ended ok (0 of 3)" where launches_ok says so, else "no
 * measurement of this run matches". */
const char *where_nothing_measured(arena_t *a, const kv_t *kv, size_t n, const mtable_t *t);

#endif
