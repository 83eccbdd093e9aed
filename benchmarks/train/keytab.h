/* keytab: configuration keys from tables, so that one table drives the
 * command line (--name value), YAML files (--config), the record's `config`
 * block and --help, and a key cannot be settable in one place and not
 * another.
 *
 * A workload's configuration is one struct made of parts: its network's
 * parameters and the runtime's run parameters (runcfg.h, a member of it).
 * Each part brings its table of keys (offsets inside the part); a kt_spec
 * lists the parts in record and --help order with each part's offset in the
 * whole, plus the keys the workload handles itself (stemdl: preset, image).
 *
 * defines: kt_key, kt_table, kt_spec, kt_set, kt_load_yaml, kt_write, kt_print_help */
#ifndef EXADL_TRAIN_KEYTAB_H
#define EXADL_TRAIN_KEYTAB_H

#include <stddef.h>
#include <stdio.h>

#include "benchmarks/common/record/record.h"

typedef enum {
    KT_INT,    /* int in [min, max] */
    KT_LIST,   /* int[cap] with an int length at aux; entries in [min, max]; "1,2,4" */
    KT_U64,    /* uint64_t, non-negative */
    KT_DOUBLE, /* double in [min, max] */
    KT_CHOICE, /* char[aux], one of choices */
    KT_BOOL,   /* int 0/1: true|false|1|0|on|off */
    KT_WORD,   /* char[aux], accepted by valid(); else "'V' is not <what>" */
} kt_type;

typedef struct {
    const char *key;            /* with '_'; the command line also takes '-' */
    kt_type type;
    size_t off;                 /* the field, from the start of its part */
    size_t aux;                 /* KT_LIST: offset of the length; KT_CHOICE, KT_WORD: field size */
    int cap;                    /* KT_LIST: entries the field holds */
    double min, max;            /* KT_INT, KT_LIST entries, KT_DOUBLE */
    const char *const *choices; /* KT_CHOICE, NULL-terminated */
    int (*valid)(const char *text); /* KT_WORD: 1 when text is a value */
    const char *what;           /* KT_WORD: what a value is, for the message */
    const char *help;           /* one line of --help */
    /* 1: only --describe reads it (stemdl's plan-model keys): the record's
     * config lists it only where it was set (kt_spec.was_set), so that a
     * record does not carry settings that did not shape the run */
    int describe_only;
} kt_key;

typedef struct {
    const kt_key *keys;         /* ended by an entry whose key is NULL */
    size_t base;                /* offset of the part in the whole configuration */
} kt_table;

typedef struct {
    const char *what;           /* the YAML root, for messages: "a STEMDL configuration" */
    const kt_table *parts;      /* in record and --help order */
    size_t nparts;
    /* Keys outside the tables, NULL-terminated (they count for suggestions
     * and YAML key checks); set_extra handles them: 1 = not one of them,
     * 0 = set, -1 = error in err. */
    const char *const *extra;
    int (*set_extra)(void *cfg, const char *key, const char *value, char *err, size_t errlen);
    /* YAML: this key is applied before all others (stemdl: "preset"); may be NULL */
    const char *first;
    /* Called after a table key was set (derived fields); may be NULL. */
    void (*after_set)(void *cfg, const kt_key *k);
    /* 1 when the describe-only key k was set (command line, YAML); NULL:
     * never (kt_write then leaves every describe-only key out). */
    int (*was_set)(const void *cfg, const kt_key *k);
} kt_spec;

/* Set one key from text ('-' and '_' are the same).  0; -1 with a message;
 * -2 when the key is unknown (err then suggests the nearest key). */
int kt_set(const kt_spec *s, void *cfg, const char *key, const char *value, char *err,
           size_t errlen);

/* Apply a YAML mapping file over cfg (s->first applied first).  0, or -1
 * with "FILE:LINE:COL: problem" in err. */
int kt_load_yaml(const kt_spec *s, void *cfg, const char *path, char *err, size_t errlen);

/* Every table key with its value, in order, into the open mapping of r; a
 * describe-only key only where it was set (kt_spec.was_set). */
void kt_write(const kt_spec *s, const void *cfg, rec_t *r);

/* One line per table key for --help. */
void kt_print_help(const kt_spec *s, FILE *f);

#endif
