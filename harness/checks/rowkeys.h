/* rowkeys: the keys that tell the metric rows of one benchmark and scale
 * apart, and their types: a collective row's op, redop, dtype, bytes and
 * inplace, a gradient-reduction row's mode, a data-distribution row's
 * strategy, ...  The schema of the metric rows of results.yaml, results.json
 * and results.csv (docs/record.md), and the text that names a row in a
 * check's line. */
#ifndef EXADL_HARNESS_ROWKEYS_H
#define EXADL_HARNESS_ROWKEYS_H

#include "harness/analysis/metrics.h"

typedef enum { RK_TEXT, RK_INT, RK_BOOL } rk_type;

typedef struct {
    const char *key;
    rk_type type;
    int own; /* 1: the row sets it itself (a collective's op ...): always a row key; 0:
                a row key only where it differs from the benchmark's config */
} rowkey_t;

/* Every row key in the order the exports write them; ends with key NULL. */
extern const rowkey_t rowkeys[];
#define ROWKEYS_MAX 16

/* The row keys of m (key, value as recorded) into out[ROWKEYS_MAX], in the
 * order of rowkeys[]; cfg[0..ncfg): its benchmark's config (NULL: every key
 * of rowkeys[] that m has).  Returns how many. */
size_t rowkeys_of(const metric_t *m, const kv_t *cfg, size_t ncfg, kv_t *out);

/* "true"/"yes"/"on" 1, "false"/"no"/"off" 0, else -1. */
int rowkey_truth(const char *v);

/* A row key's value as its type: 1 and *i set (RK_INT), 2 and *b set
 * (RK_BOOL), 0: text (also a value that is not of its type). */
int rowkey_typed(const rowkey_t *k, const char *v, long long *i, int *b);

/* The schema entry of key (NULL: not a row key). */
const rowkey_t *rowkey_find(const char *key);

/* "op=allreduce redop=sum dtype=float32 bytes=256 inplace=false": the keys a
 * collective row sets itself, and the others where a row of t of the same
 * benchmark, metric and scale differs in them (a gradient-reduction mode);
 * NULL when there are none. */
const char *rowkeys_text(arena_t *a, const metric_t *m, const mtable_t *t);

#endif
