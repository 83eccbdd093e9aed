/* Records: the core reader (recread.h): the file, the common header, then the
 * record's blocks (harness/blocks/blocks.c). */
#define _GNU_SOURCE
#include "harness/blocks/recread.h"

#include <string.h>

#include "benchmarks/common/record/read.h"
#include "benchmarks/common/record/record.h"
#include "harness/blocks/block.h"

static void *arena_alloc(void *arena, size_t bytes) { return ar_alloc(arena, bytes); }

/* Ranks and GPUs of a record become ints (scales, the model's p): a record
 * claiming more than this is refused, not wrapped. */
#define RECORD_MAX_RANKS 100000000

/* docs/record.md "Keys common to every benchmark" */
static int read_header(const rd_t *c, const ytnode *root, record_t *r)
{
    if (rd_int(c, root, "exadl_record", -1, &r->version)) return -1;
    if (r->version != RECORD_FORMAT_VERSION) {
        const ytnode *v = yt_get(root, "exadl_record");
        if (r->version < 0) return rd_err(c, v ? v : root, "not an ExaDL record (no exadl_record: 1)");
        return rd_err(c, v, "record format version %lld; this exadl reads %d", r->version,
                      RECORD_FORMAT_VERSION);
    }
    if (rd_str(c, root, "benchmark", "unknown", &r->benchmark) ||
        rd_str(c, root, "status", NULL, &r->status) || rd_str(c, root, "error", NULL, &r->error) ||
        rd_str(c, root, "started_utc", NULL, &r->started_utc) ||
        rd_str(c, root, "backend", NULL, &r->backend) ||
        rd_str(c, root, "precision", NULL, &r->precision) ||
        rd_int_in(c, root, "ranks", 1, 1, RECORD_MAX_RANKS, &r->ranks) ||
        rd_int_in(c, root, "gpus", 0, 0, RECORD_MAX_RANKS, &r->gpus))
        return -1;
    if (!r->status) return rd_err(c, root, "the record has no status");
    r->system = yt_get(root, "system");
    r->config = yt_get(root, "config");
    r->validation = yt_get(root, "validation");
    return 0;
}

int record_load(arena_t *a, const char *path, record_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->path = ar_strdup(a, path);
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    r->doc = d;
    const rd_t c = {d, err, errlen, arena_alloc, a};
    const ytnode *root = d->root;
    if (!root) return rd_err(&c, NULL, "the record is empty");
    if (root->kind != YT_MAP) return rd_err(&c, root, "a record must be a mapping");
    if (read_header(&c, root, r)) return -1;
    return blocks_read(&c, root, r);
}

const char *record_config(const record_t *r, const char *key)
{
    const ytnode *n = yt_get(r->config, key);
    return n && n->kind == YT_SCALAR ? n->str : NULL;
}
