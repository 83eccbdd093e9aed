/* util: what every harness module shares: an arena (one free per command),
 * a string builder, whole-or-nothing file writes, number formatting with SI
 * prefixes, shell quoting, and where exadl lives (its bin/ and the project). */
#ifndef EXADL_HARNESS_UTIL_H
#define EXADL_HARNESS_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#include "benchmarks/common/fileio.h"
#include "benchmarks/common/opt.h"
#include <stdio.h>

/* ---- arena: every allocation of a command, freed at once ----------------- */
typedef struct arena arena_t;
arena_t *ar_new(void);
/* Frees every block and runs the registered destructors (last first). */
void ar_free(arena_t *a);
void *ar_alloc(arena_t *a, size_t bytes); /* zeroed */
char *ar_strdup(arena_t *a, const char *s); /* NULL stays NULL */
char *ar_strndup(arena_t *a, const char *s, size_t n);
char *ar_printf(arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Run fn(p) when the arena is freed (for ytdoc and other owned objects). */
void ar_defer(arena_t *a, void (*fn)(void *), void *p);

/* Grow an arena-backed array: after AR_GROW(a, v, n, cap) there is room for
 * v[n]. */
#define AR_GROW(a, v, n, cap)                                                     \
    do {                                                                          \
        if ((n) >= (cap)) {                                                       \
            size_t nc_ = (cap) ? 2 * (cap) : 8;                                   \
            void *nv_ = ar_alloc((a), nc_ * sizeof *(v));                         \
            if ((n)) memcpy(nv_, (v), (n) * sizeof *(v));                         \
            (v) = nv_;                                                            \
            (cap) = nc_;                                                          \
        }                                                                         \
    } while (0)

/* ---- string builder (malloc'ed; sb_free releases) ------------------------ */
typedef struct {
    char *s;
    size_t len, cap;
} sb_t;
void sb_puts(sb_t *b, const char *s);
void sb_putn(sb_t *b, const char *s, size_t n);
void sb_printf(sb_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(sb_t *b, const char *fmt, va_list ap);
void sb_free(sb_t *b);
/* The text so far ("" when empty). */
const char *sb_str(const sb_t *b);

/* ---- a key and its value (a suite's env and config, a reference's where) ---- */
typedef struct {
    const char *key, *value; /* value NULL: env -> unset; config -> flag alone */
} kv_t;

/* ---- files ----------------------------------------------------------------- */
/* whole files: fileio.h (fileio_read, fileio_write_atomic) */
int path_is_file(const char *path);
int path_is_dir(const char *path);
int path_is_exec(const char *path);
/* a + "/" + b; b absolute is returned as is. */
char *path_join(arena_t *a, const char *dir, const char *file);
char *path_dirname(arena_t *a, const char *path);
const char *path_basename(const char *path);
/* Absolute form of an existing path (realpath) or of dir/path. */
char *path_abs(arena_t *a, const char *path);
/* First executable named name on PATH, or NULL. */
char *path_search(arena_t *a, const char *name);

/* ---- where exadl runs from -------------------------------------------------- */
/* The directory of the running exadl binary (build/bin). */
const char *exadl_bindir(void);
/* The project root: $EXADL_ROOT, else two levels above bin/ when that holds
 * harness/ or Makefile, else the current directory. */
const char *exadl_root(void);
/* Absolute path of the running exadl binary. */
const char *exadl_self(void);

/* ---- formatting ------------------------------------------------------------- */
/* 2.15e18, "FLOP/s" -> "2.15 EFLOP/s"; prefixes k M G T P E; NaN -> "n/a". */
void fmt_si(double v, const char *unit, char *buf, size_t len);
/* Seconds as "0.412 s", "12.3 s", "4:05", "1:02:03". */
void fmt_duration(double s, char *buf, size_t len);
/* A number with 4 significant digits (NaN -> "n/a"). */
void fmt_num(double v, char *buf, size_t len);
/* Quote for /bin/sh when needed. */
char *shell_quote(arena_t *a, const char *s);
/* Host name up to the first dot. */
const char *short_host(void);
/* Replace every character outside [A-Za-z0-9._-] with '_'. */
char *sanitize_name(arena_t *a, const char *s);

/* Numbers from text: 0 on success. */

#endif
