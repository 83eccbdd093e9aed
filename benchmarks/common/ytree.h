/* ytree: YAML files read with libyaml into a small tree that remembers where
 * every node came from, so that each error can name file:line:column.
 *
 * Aliases are resolved by sharing the anchored node; an alias to a node that is
 * still open (a recursive structure) is an error, and the total size after
 * alias expansion is capped, so "billion laughs" files fail cleanly.  A key
 * given twice in one mapping is an error ("key 'K' given twice (first at line
 * N)"), in every file: YAML requires unique keys, and readers that keep the
 * first or the last value would disagree. */
#ifndef EXADL_YTREE_H
#define EXADL_YTREE_H

#include <stddef.h>

typedef enum { YT_SCALAR = 1, YT_SEQ = 2, YT_MAP = 3 } yt_kind;

typedef struct ytnode ytnode;
struct ytnode {
    yt_kind kind;
    int line, col;     /* 1-based position of the node's start */
    char *str;         /* scalar text (YT_SCALAR) */
    int plain;         /* scalar was unquoted: only plain scalars can be null/bool/number */
    size_t n;          /* items (YT_SEQ) or key/value pairs (YT_MAP) */
    ytnode **items;    /* YT_SEQ: n items; YT_MAP: keys and values interleaved, 2n */
    size_t cap;        /* slots allocated in items (grown by doubling) */
    size_t weight;     /* nodes in this subtree after alias expansion */
    int open;          /* still being built (recursive-alias detection) */
    ytnode *next_alloc;
};

typedef struct {
    char *name;        /* file name used in messages */
    ytnode *root;      /* NULL for an empty document */
    ytnode *all;       /* every node, for freeing */
} ytdoc;

/* Caps against hostile input. */
#define YT_MAX_NODES 4000000u
#define YT_MAX_DEPTH 200
#define YT_MAX_ANCHORS 100000u

/* Load the single YAML document of a file (or a buffer).  On failure returns
 * NULL and writes "NAME:LINE:COL: problem" to err. */
ytdoc *yt_load_file(const char *path, char *err, size_t errlen);
ytdoc *yt_load_string(const char *text, size_t len, const char *name, char *err, size_t errlen);
void yt_free(ytdoc *doc);

const char *yt_kind_name(yt_kind k);

/* Map access; NULL when absent or when map is not a mapping. */
ytnode *yt_get(const ytnode *map, const char *key);
static inline ytnode *yt_key(const ytnode *map, size_t i) { return map->items[2 * i]; }
static inline ytnode *yt_val(const ytnode *map, size_t i) { return map->items[2 * i + 1]; }

/* Write "NAME:LINE:COL: message" (the node's position) into err; returns -1 so
 * callers can `return yt_err(...)`. */
int yt_err(char *err, size_t errlen, const ytdoc *doc, const ytnode *node, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Typed reads.  Each returns 0, or -1 with a positioned message in err. */
int yt_int(const ytdoc *d, const ytnode *n, long long *out, char *err, size_t errlen);
int yt_double(const ytdoc *d, const ytnode *n, double *out, char *err, size_t errlen);
int yt_bool(const ytdoc *d, const ytnode *n, int *out, char *err, size_t errlen);
int yt_string(const ytdoc *d, const ytnode *n, const char **out, char *err, size_t errlen);
int yt_expect(const ytdoc *d, const ytnode *n, yt_kind kind, const char *what, char *err,
              size_t errlen);
/* A plain null scalar ("~", "null", "Null", "NULL" or empty). */
int yt_is_null(const ytnode *n);

/* Every key of map must be one of valid[] (NULL-terminated) and appear once.
 * An unknown key gets the nearest valid key suggested ("did you mean ..."). */
int yt_check_keys(const ytdoc *d, const ytnode *map, const char *const *valid, char *err,
                  size_t errlen);

/* The valid word nearest to word (edit distance), or NULL when none is close. */
const char *yt_suggest(const char *word, const char *const *valid);

#endif
