/* read: typed reads of a record (or any YAML file ExaDL writes) over ytree,
 * with ONE rule for what is absent, null, not a number or infinite, shared by
 * every reader of records, results files and machine files.
 *
 * defines: rd_t (where messages go, how lists are allocated), rd_domain,
 *   rd_num, rd_int, rd_int_in, rd_str, rd_bool, rd_nums, rd_map, rd_list (optional values
 *   of a mapping), rd_num_req, rd_int_req, rd_str_req (required ones),
 *   rd_*_node (the value of one node), rd_err, rd_alloc.
 *
 * The rule (docs/record.md, "Reading a record"):
 * - absent or null (~, null, empty): an optional value reads as "not given"
 *   (NaN, the default given, an empty list); a required one is an error;
 * - a number: .nan .NaN .NAN read as NaN; .inf .Inf .INF (+.inf ...) as
 *   +infinity; -.inf -.Inf -.INF as -infinity (YAML 1.2's core spelling, what
 *   rec_double writes).  Any other text that is not a finite number ("nan",
 *   "inf", 1e999) is an error;
 * - the domain says where NaN and infinities may stand: RD_ANY takes them
 *   (a measurement that may be undefined), RD_FINITE refuses them (raw
 *   samples), RD_COUNT refuses them and negative values (sizes, counts); an
 *   integer is never NaN;
 * - the wrong type (a quoted string where a number is due, a list where text
 *   is due) is an error.
 * Every function returns 0, or -1 with "FILE:LINE:COL: problem" in c->err. */
#ifndef EXADL_RECORD_READ_H
#define EXADL_RECORD_READ_H

#include <stddef.h>

#include "benchmarks/common/ytree.h"

typedef struct {
    const ytdoc *doc;
    char *err;
    size_t errlen;
    /* Zeroed memory for lists (rd_nums, rd_alloc) that lives as long as the
     * caller needs the values (the harness passes its arena); NULL: calloc,
     * and the caller frees. */
    void *(*alloc)(void *ctx, size_t bytes);
    void *alloc_ctx;
} rd_t;

typedef enum {
    RD_ANY,    /* any number; .nan, .inf, -.inf read as NaN, +inf, -inf */
    RD_FINITE, /* a finite number */
    RD_COUNT,  /* a finite number >= 0 */
} rd_domain;

/* ---- the value of one node (present and not null) -------------------------- */
int rd_num_node(const rd_t *c, const ytnode *n, rd_domain dom, double *out);
int rd_int_node(const rd_t *c, const ytnode *n, long long *out);
int rd_str_node(const rd_t *c, const ytnode *n, const char **out); /* any scalar */
int rd_bool_node(const rd_t *c, const ytnode *n, int *out);

/* ---- optional values of a mapping (map may be NULL or not a mapping: then
 * every key is absent) ----------------------------------------------------- */
int rd_num(const rd_t *c, const ytnode *map, const char *key, rd_domain dom, double *out); /* NaN */
int rd_int(const rd_t *c, const ytnode *map, const char *key, long long dflt, long long *out);
/* rd_int within [lo, hi] ("KEY: V is out of range (LO to HI)"): counts that
 * become ints or sizes (ranks, scales) never wrap. */
int rd_int_in(const rd_t *c, const ytnode *map, const char *key, long long dflt, long long lo,
              long long hi, long long *out);
int rd_str(const rd_t *c, const ytnode *map, const char *key, const char *dflt, const char **out);
int rd_bool(const rd_t *c, const ytnode *map, const char *key, int dflt, int *out);
/* A list of numbers; NULL and 0 when not given.  The list has n + 1 slots. */
int rd_nums(const rd_t *c, const ytnode *map, const char *key, rd_domain dom, double **out,
            size_t *n);
/* A block: NULL when not given; an error when it is not a mapping (a list). */
int rd_map(const rd_t *c, const ytnode *map, const char *key, const ytnode **out);
int rd_list(const rd_t *c, const ytnode *map, const char *key, const ytnode **out);

/* ---- required values: absent or null is "KEY is required" at the map ------ */
int rd_num_req(const rd_t *c, const ytnode *map, const char *key, rd_domain dom, double *out);
int rd_int_req(const rd_t *c, const ytnode *map, const char *key, long long *out);
int rd_str_req(const rd_t *c, const ytnode *map, const char *key, const char **out);

/* "FILE:LINE:COL: message" at node (FILE: alone when node is NULL); -1. */
int rd_err(const rd_t *c, const ytnode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Zeroed memory from c->alloc (calloc when it is NULL); never NULL. */
void *rd_alloc(const rd_t *c, size_t bytes);

#endif
