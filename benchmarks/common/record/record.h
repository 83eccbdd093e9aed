/* record: YAML documents written through libyaml's emitter, atomically.
 *
 * The document goes to "PATH.tmp.PID" and is renamed onto PATH only after it
 * is complete and fsync'ed, so a reader sees the whole record or none of it,
 * and a crash never destroys an earlier file of the same name.  Used for the
 * benchmarks' result records and for the harness's results.yaml. */
#ifndef EXADL_RECORD_H
#define EXADL_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/stats.h"

/* Format version written as `exadl_record:` at the top of every record. */
#define RECORD_FORMAT_VERSION 1

typedef struct rec rec_t;

/* Open PATH for writing ("-" writes to stdout, not atomically).  Returns NULL
 * and fills err when the temporary file cannot be created. */
rec_t *rec_open(const char *path, char *err, size_t errlen);
/* Finish the document and move it into place; 0 on success, -1 with err. */
int rec_close(rec_t *r, char *err, size_t errlen);
/* Drop the document: the temporary file is removed, PATH is untouched. */
void rec_abandon(rec_t *r);

void rec_map_begin(rec_t *r);
void rec_flow_map_begin(rec_t *r); /* { a: 1, b: 2 } on one line */
void rec_map_end(rec_t *r);
void rec_seq_begin(rec_t *r);
void rec_flow_seq_begin(rec_t *r); /* [1, 2, 3] on one line */
void rec_seq_end(rec_t *r);

void rec_key(rec_t *r, const char *key);
void rec_str(rec_t *r, const char *v); /* NULL writes null */
void rec_int(rec_t *r, int64_t v);
void rec_double(rec_t *r, double v);   /* shortest text that reads back exactly */
void rec_bool(rec_t *r, int v);
void rec_null(rec_t *r);

void rec_kv_str(rec_t *r, const char *key, const char *v);
void rec_kv_int(rec_t *r, const char *key, int64_t v);
void rec_kv_double(rec_t *r, const char *key, double v);
void rec_kv_bool(rec_t *r, const char *key, int v);
/* key: [x0, x1, ...] */
void rec_kv_doubles(rec_t *r, const char *key, const double *x, size_t n);
void rec_kv_ints(rec_t *r, const char *key, const int64_t *x, size_t n);
/* A timing summary in seconds, the keys every row of timed samples carries
 * (docs/record.md): median_s, ci_lo_s, ci_hi_s, min_s, max_s. */
void rec_kv_stats_s(rec_t *r, const stats_summary_t *st);

/* Format a double the way rec_double does (for tables printed elsewhere). */
void rec_format_double(double v, char *buf, size_t len);

#endif
