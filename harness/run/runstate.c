/* run.yaml and journal.yaml of a run folder (runstate.h). */
#define _GNU_SOURCE
#include "harness/run/runstate.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/record/read.h"
#include "benchmarks/common/record/record.h"
#include "harness/util/safefile.h"

static void kv_strs(rec_t *w, const char *key, const char *const *v, size_t n)
{
    rec_key(w, key);
    rec_seq_begin(w);
    for (size_t i = 0; i < n; i++) rec_str(w, v[i]);
    rec_seq_end(w);
}

int runstate_write(const char *dir, const runstate_t *st, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run.yaml", dir);
    rec_t *w = rec_open(path, err, errlen);
    if (!w) return -1;
    const machine_t *m = &st->machine;
    rec_map_begin(w);
    rec_kv_int(w, "exadl_run", RUNSTATE_FORMAT_VERSION);
    rec_kv_str(w, "suite_dir", st->suite_dir);
    rec_kv_str(w, "suite_source", st->suite_source);
    rec_kv_str(w, "started_utc", st->started_utc);
    rec_kv_str(w, "command", st->command);
    rec_kv_str(w, "host", st->host);
    rec_kv_str(w, "exadl_host", st->exadl_host);
    if (st->machine_name) rec_kv_str(w, "machine_name", st->machine_name);
    rec_kv_str(w, "launcher_mpi", st->launcher_mpi);
    rec_kv_str(w, "launcher_mpi_source", st->launcher_mpi_source);
    rec_key(w, "machine");
    rec_map_begin(w);
    rec_kv_int(w, "cores", m->cores);
    rec_kv_int(w, "gpus", m->gpus);
    rec_kv_bool(w, "slurm", m->slurm);
    rec_kv_str(w, "slurm_job", m->slurm_job);
    rec_kv_int(w, "slurm_tasks", m->slurm_tasks);
    rec_kv_int(w, "slurm_nodes", m->slurm_nodes);
    rec_kv_int(w, "slurm_tasks_per_node", m->slurm_tasks_per_node);
    rec_kv_int(w, "slurm_gpus_per_node", m->slurm_gpus_per_node);
    rec_kv_str(w, "slurm_how", m->slurm_how);
    rec_kv_str(w, "slurm_error", m->slurm_error);
    rec_map_end(w);
    kv_strs(w, "references", st->references, st->nreferences);
    kv_strs(w, "history", st->history, st->nhistory);
    kv_strs(w, "slurm_jobs", st->slurm_jobs, st->nslurm_jobs);
    rec_map_end(w);
    return rec_close(w, err, errlen);
}

static void *arena_alloc(void *ctx, size_t n) { return ar_alloc(ctx, n); }

static int read_strs(arena_t *a, const rd_t *c, const ytnode *root, const char *key,
                     const char ***out, size_t *n)
{
    const ytnode *l;
    *out = NULL, *n = 0;
    if (rd_list(c, root, key, &l)) return -1;
    if (!l) return 0;
    *out = ar_alloc(a, (l->n + 1) * sizeof **out);
    for (size_t i = 0; i < l->n; i++)
        if (rd_str_node(c, l->items[i], &(*out)[(*n)++])) return -1;
    return 0;
}

static int read_int(const rd_t *c, const ytnode *m, const char *key, int *out)
{
    long long v;
    if (rd_int(c, m, key, 0, &v)) return -1;
    if (v < 0 || v > 100000000) return rd_err(c, yt_get(m, key), "%s: %lld is out of range", key, v);
    *out = (int)v;
    return 0;
}

static int read_text(const rd_t *c, const ytnode *m, const char *key, char *buf, size_t len)
{
    const char *v;
    if (rd_str(c, m, key, "", &v)) return -1;
    snprintf(buf, len, "%s", v);
    return 0;
}

int runstate_read(arena_t *a, const char *dir, runstate_t *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    char *path = path_join(a, dir, "run.yaml");
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    rd_t c = {d, err, errlen, arena_alloc, a};
    const ytnode *r = d->root;
    long long ver;
    if (!r || r->kind != YT_MAP || !yt_get(r, "exadl_run"))
        return yt_err(err, errlen, d, r, "not an ExaDL run state (no exadl_run: 1)");
    if (rd_int_req(&c, r, "exadl_run", &ver)) return -1;
    if (ver != RUNSTATE_FORMAT_VERSION)
        return yt_err(err, errlen, d, yt_get(r, "exadl_run"), "run state format %lld; this exadl "
                      "reads %d", ver, RUNSTATE_FORMAT_VERSION);
    if (rd_str_req(&c, r, "suite_dir", &st->suite_dir) ||
        rd_str(&c, r, "suite_source", NULL, &st->suite_source) ||
        rd_str(&c, r, "started_utc", NULL, &st->started_utc) ||
        rd_str(&c, r, "command", NULL, &st->command) || rd_str(&c, r, "host", NULL, &st->host) ||
        rd_str(&c, r, "exadl_host", NULL, &st->exadl_host) ||
        rd_str(&c, r, "machine_name", NULL, &st->machine_name) ||
        rd_str(&c, r, "launcher_mpi", NULL, &st->launcher_mpi) ||
        rd_str(&c, r, "launcher_mpi_source", NULL, &st->launcher_mpi_source))
        return -1;
    const ytnode *m;
    if (rd_map(&c, r, "machine", &m)) return -1;
    if (!m) return yt_err(err, errlen, d, r, "run.yaml has no machine: block");
    machine_t *x = &st->machine;
    int slurm = 0;
    if (read_int(&c, m, "cores", &x->cores) || read_int(&c, m, "gpus", &x->gpus) ||
        rd_bool(&c, m, "slurm", 0, &slurm) || read_int(&c, m, "slurm_tasks", &x->slurm_tasks) ||
        read_int(&c, m, "slurm_nodes", &x->slurm_nodes) ||
        read_int(&c, m, "slurm_tasks_per_node", &x->slurm_tasks_per_node) ||
        read_int(&c, m, "slurm_gpus_per_node", &x->slurm_gpus_per_node) ||
        read_text(&c, m, "slurm_job", x->slurm_job, sizeof x->slurm_job) ||
        read_text(&c, m, "slurm_how", x->slurm_how, sizeof x->slurm_how) ||
        read_text(&c, m, "slurm_error", x->slurm_error, sizeof x->slurm_error))
        return -1;
    x->slurm = slurm;
    if (read_strs(a, &c, r, "references", &st->references, &st->nreferences) ||
        read_strs(a, &c, r, "history", &st->history, &st->nhistory) ||
        read_strs(a, &c, r, "slurm_jobs", &st->slurm_jobs, &st->nslurm_jobs))
        return -1;
    for (size_t i = 0; i < st->nreferences; i++) /* copies inside the folder only */
        if (st->references[i][0] == '/' || strstr(st->references[i], ".."))
            return yt_err(err, errlen, d, yt_get(r, "references"), "reference '%s' is not a copy "
                          "inside the run folder", st->references[i]);
    return 0;
}

/* ---- journal.yaml: "- {id: ..., ...}" per line ------------------------------ */
/* a YAML double-quoted scalar: every byte outside printable ASCII escaped */
static void quoted(sb_t *b, const char *s)
{
    if (!s) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(b, "\\%c", *p);
        else if (*p < 32 || *p >= 127) sb_printf(b, "\\x%02x", *p);
        else sb_putn(b, (const char *)p, 1);
    }
    sb_puts(b, "\"");
}

/* one journal line of o into b */
static void journal_format(sb_t *b, const outcome_t *o)
{
    char num[40];
    rec_format_double(o->elapsed_s, num, sizeof num);
    sb_puts(b, "- {id: ");
    quoted(b, o->id);
    sb_printf(b, ", status: %s, how: ", lstatus_name(o->status));
    quoted(b, o->why);
    sb_puts(b, ", error: ");
    quoted(b, o->error);
    sb_printf(b, ", exit_code: %d, signal: %d, elapsed_s: %s, step: ", o->exit_code, o->sig, num);
    quoted(b, o->step);
    sb_puts(b, ", hosts: ");
    quoted(b, o->hosts);
    if (o->intf.measured) { /* how busy the machine was (interference.h) */
        sb_puts(b, ", interference: ");
        intf_journal(b, &o->intf);
    }
    sb_puts(b, "}\n");
}

int journal_append(const char *dir, const outcome_t *o, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/journal.yaml", dir);
    sb_t b = {0};
    journal_format(&b, o);
    /* never through a link planted at journal.yaml (safefile.h) */
    int rc = sf_append(path, b.s, b.len, err, errlen);
    sb_free(&b);
    return rc;
}

int journal_rebuild(const char *dir, const outcome_t *o, size_t n, char *aside, size_t asidelen,
                    char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/journal.yaml", dir);
    aside[0] = 0;
    struct stat st;
    if (lstat(path, &st) == 0 && sf_move_aside(path, "damaged", aside, asidelen, err, errlen))
        return -1;
    sb_t b = {0};
    for (size_t i = 0; i < n; i++)
        if (lstatus_final(o[i].status)) journal_format(&b, &o[i]);
    int rc = fileio_write_atomic(path, sb_str(&b), b.len, err, errlen);
    sb_free(&b);
    return rc;
}

static int status_of(const char *s, lstatus_t *out)
{
    static const lstatus_t all[] = {LS_OK, LS_FAILED, LS_INVALID, LS_TIMEOUT, LS_INTERRUPTED,
                                    LS_NOTRUN};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (!strcmp(s, lstatus_name(all[i]))) return *out = all[i], 0;
    return -1;
}

/* one line "- {...}": 0 with o filled, -1 when it does not read */
static int journal_line(arena_t *a, const char *line, size_t len, outcome_t *o)
{
    char err[256];
    ytdoc *d = yt_load_string(line, len, "journal.yaml", err, sizeof err);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    rd_t c = {d, err, sizeof err, arena_alloc, a};
    const ytnode *r = d->root;
    if (!r || r->kind != YT_SEQ || r->n != 1 || r->items[0]->kind != YT_MAP) return -1;
    const ytnode *m = r->items[0];
    const char *st;
    long long code, sig;
    memset(o, 0, sizeof *o);
    if (rd_str_req(&c, m, "id", &o->id) || rd_str_req(&c, m, "status", &st) ||
        rd_str(&c, m, "how", NULL, &o->why) || rd_str(&c, m, "error", NULL, &o->error) ||
        rd_int(&c, m, "exit_code", -1, &code) || rd_int(&c, m, "signal", -1, &sig) ||
        rd_num(&c, m, "elapsed_s", RD_ANY, &o->elapsed_s) || rd_str(&c, m, "step", NULL, &o->step) ||
        rd_str(&c, m, "hosts", NULL, &o->hosts) || status_of(st, &o->status) ||
        intf_read(&c, m, "interference", &o->intf))
        return -1;
    if (!isfinite(o->elapsed_s) || o->elapsed_s < 0) o->elapsed_s = 0;
    o->exit_code = code >= -1 && code < 256 ? (int)code : -1;
    o->sig = sig >= -1 && sig < 128 ? (int)sig : -1;
    return 0;
}

typedef struct {
    const char *id;
    size_t i; /* its slot in the outcomes */
} journal_id_t;

static int journal_id_cmp(const void *x, const void *y)
{
    return strcmp(((const journal_id_t *)x)->id, ((const journal_id_t *)y)->id);
}

static void journal_id_keep(void *p) { (void)p; } /* the arena frees them */

int journal_read(arena_t *a, const char *dir, outcome_t **o, size_t *n, int *skipped, char *err,
                 size_t errlen)
{
    *o = NULL, *n = 0, *skipped = 0;
    char *path = path_join(a, dir, "journal.yaml");
    if (!path_is_file(path)) return 0;
    size_t len;
    char *text = fileio_read(path, &len, (size_t)256 << 20, err, errlen);
    if (!text) return -1;
    size_t cap = 0;
    void *ids = NULL;
    for (char *p = text; p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        outcome_t x;
        if (l && !journal_line(a, p, l, &x)) {
            /* the ids so far in a balanced tree: a scan per line was O(n^2) */
            journal_id_t *k = ar_alloc(a, sizeof *k), **hit;
            *k = (journal_id_t){x.id, *n};
            CHECK((hit = tsearch(k, &ids, journal_id_cmp)) != NULL, "out of memory (journal ids)");
            size_t i = (*hit)->i;
            if (i == *n) {
                AR_GROW(a, *o, *n, cap);
                (*n)++;
            }
            (*o)[i] = x; /* the last entry of an id wins (a resumed launch) */
        } else if (l) {
            (*skipped)++;
        }
        p += l + 1;
    }
    free(text);
    tdestroy(ids, journal_id_keep);
    return 0;
}
