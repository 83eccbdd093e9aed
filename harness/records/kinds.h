/* kinds: the per-kind readers of records, listed once in kinds.def.  The core
 * (recread.c) reads the header, then hands the record to the reader of its
 * `benchmark` kind.
 *
 * defines: record_reader_fn, record_kind_t, record_kinds, record_kind_find,
 *          one record_read_<kind> per line of kinds.def, record_read_gr, record_read_ux,
 *          record_read_ens, record_read_sim. */
#ifndef EXADL_HARNESS_RECORD_KINDS_H
#define EXADL_HARNESS_RECORD_KINDS_H

#include "benchmarks/common/record/read.h"
#include "harness/records/recread.h"

/* Read the kind's own blocks of the record at root into r.  The header is
 * read already and every number of r starts as NaN (counts of rows at 0);
 * lists come from rd_alloc.  0, or -1 with a positioned message in c->err. */
typedef int record_reader_fn(const rd_t *c, const ytnode *root, record_t *r);

#define RECORD_KIND(name, fn) record_reader_fn fn;
#include "harness/records/kinds.def"
#undef RECORD_KIND

typedef struct {
    const char *benchmark;
    record_reader_fn *read;
} record_kind_t;

/* every line of kinds.def, then {NULL, NULL} */
extern const record_kind_t record_kinds[];
/* The kind named benchmark, or NULL. */
const record_kind_t *record_kind_find(const char *benchmark);

/* stemdl's gradient_reduction block (read_stemdl_gr.c), called by its reader. */
int record_read_gr(const rd_t *c, const ytnode *root, record_t *r);
/* stemdl's update_exchange block and its loss list (read_stemdl_ux.c). */
int record_read_ux(const rd_t *c, const ytnode *root, record_t *r);
/* a training record's ensemble block (read_stemdl_ens.c). */
int record_read_ens(const rd_t *c, const ytnode *root, record_t *r);
/* the simulation block of a record of any kind (read_sim.c), called by the core. */
int record_read_sim(const rd_t *c, const ytnode *root, record_t *r);

#endif
