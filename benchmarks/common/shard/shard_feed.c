#include "benchmarks/common/shard/shard_feed.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/timer.h"

typedef struct {
    int64_t step;
    int ready, failed;
    char err[768];
    float *input, *target;
} slot_t;

struct shard_feed {
    char data[512];
    shard_set *set;                 /* files; NULL: made in memory (gen) */
    shard_feed_opts o;
    shard_shape shape;
    const char *shape_opts;
    shard_feed_gen_fn gen;
    void *gen_user;
    int T;
    int box_o[3], box_e[3], whole;  /* this rank's sub-volume */
    size_t in_floats, tg_floats;    /* per batch */
    uint64_t seed;
    int groups, group, batch;
    int64_t steps, ntrain, nval;
    /* the reads (the thread's and the main thread's) one at a time */
    pthread_mutex_t io_lock;
    shard_io io;
    int64_t perm_epoch;             /* global shuffle: the permutation cached */
    int64_t *perm;
    int64_t hint_epoch, *hint_perm; /* the same for the hints, which run ahead of it */
    int64_t hinted;                 /* reader positions step * batch + i hinted so far */
    int64_t *local;                 /* local shuffle: this group's samples */
    int64_t nlocal;
    /* the reader thread and its ring of prefetched steps */
    pthread_t thread;
    int running, stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    slot_t *slots;
    int64_t next;                   /* the step the training takes next */
    double *wait_s;                 /* per step: the time the step waited for its batch */
    double read_s;                  /* time in fill (thread or main) */
};

int64_t shard_feed_samples(const shard_feed *f, int split) { return split ? f->nval : f->ntrain; }

/* a permutation of 0 .. n-1 from (seed, salt, epoch): Fisher-Yates */
static void permute(int64_t *a, int64_t n, uint64_t seed, uint64_t salt, int64_t epoch)
{
    rng_t r = rng_stream(seed, 0x5AFF1E, salt, (uint64_t)epoch);
    for (int64_t i = 0; i < n; i++) a[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(rng_uniform(&r) * (double)(i + 1));
        if (j > i) j = i;
        int64_t t = a[i];
        a[i] = a[j], a[j] = t;
    }
}

/* the train sample at position i of the batch of (step, first), through
 * the permutation cache (perm, *epoch); io_lock held */
static int64_t order_of(shard_feed *f, int64_t *perm, int64_t *epoch, int64_t step,
                        int64_t first, int i)
{
    if (!strcmp(f->o.shuffle, "local")) {
        int64_t q = step * f->batch + i, e = q / f->nlocal;
        if (e != *epoch) {
            permute(perm, f->nlocal, f->seed, 1000 + (uint64_t)f->group, e);
            *epoch = e;
        }
        return f->local[perm[q % f->nlocal]];
    }
    int64_t p = step * f->groups * f->batch + first + i;
    if (!strcmp(f->o.shuffle, "none")) return p % f->ntrain;
    int64_t e = p / f->ntrain;
    if (e != *epoch) {
        permute(perm, f->ntrain, f->seed, 0, e);
        *epoch = e;
    }
    return perm[p % f->ntrain];
}

static int64_t sample_of(shard_feed *f, int64_t step, int64_t first, int i)
{
    return order_of(f, f->perm, &f->perm_epoch, step, first, i);
}

/* --readahead R: before the read of position k = step * batch + i of this
 * group's own order, the kernel is asked for the samples of positions up to
 * k + R (posix_fadvise WILLNEED, shard_hint), each once: the next reads are
 * on their way while this one is copied out.  Nothing else changes: the
 * same bytes are read in the same order.  io_lock held. */
static void hint_ahead(shard_feed *f, int64_t step, int i)
{
    int64_t k = step * f->batch + i, end = f->steps * (int64_t)f->batch;
    int64_t h = f->hinted > k + 1 ? f->hinted : k + 1;
    int64_t first = (int64_t)f->group * f->batch;
    for (; h <= k + f->o.readahead && h < end; h++)
        shard_hint(f->set, "train", order_of(f, f->hint_perm, &f->hint_epoch, h / f->batch, first,
                                             (int)(h % f->batch)),
                   f->whole ? NULL : f->box_o, f->whole ? NULL : f->box_e);
    if (h > f->hinted) f->hinted = h;
}

/* one sample of split (0, 1) into in, tg; 0 or -1 with err */
static int one(shard_feed *f, int split, int64_t idx, float *in, float *tg, char *err, size_t errlen)
{
    if (!f->set) {
        f->gen(f->gen_user, split, idx, f->box_o, f->box_e, in, tg);
        return 0;
    }
    return shard_read(f->set, split ? "val" : "train", idx, f->whole ? NULL : f->box_o,
                      f->whole ? NULL : f->box_e, in, tg, &f->io, err, errlen);
}

static int fill(shard_feed *f, int64_t step, int64_t first, int batch, float *in, float *tg,
                char *err, size_t errlen)
{
    double t0 = timer_now_s();
    size_t per = f->in_floats / (size_t)f->batch;
    int rc = 0;
    /* the group's own order (the reader's and the steps' calls): hints ahead */
    int own = f->set && f->o.readahead > 0 && first == (int64_t)f->group * f->batch &&
              batch == f->batch && step >= 0;
    CHECK(pthread_mutex_lock(&f->io_lock) == 0, "a lock");
    for (int i = 0; i < batch && !rc; i++) {
        if (own) hint_ahead(f, step, i);
        rc = one(f, 0, sample_of(f, step, first, i), in + (size_t)i * per,
                 tg + (size_t)i * f->T, err, errlen);
    }
    f->read_s += timer_now_s() - t0;
    CHECK(pthread_mutex_unlock(&f->io_lock) == 0, "a lock");
    return rc;
}

static void *reader(void *arg)
{
    shard_feed *f = arg;
    int64_t first = (int64_t)f->group * f->batch;
    for (int64_t s = 0; s < f->steps; s++) {
        slot_t *sl = &f->slots[s % f->o.prefetch];
        pthread_mutex_lock(&f->lock);
        while (sl->ready && !f->stop) pthread_cond_wait(&f->cond, &f->lock);
        int stop = f->stop;
        pthread_mutex_unlock(&f->lock);
        if (stop) break;
        int rc = fill(f, s, first, f->batch, sl->input, sl->target, sl->err, sizeof sl->err);
        pthread_mutex_lock(&f->lock);
        sl->step = s, sl->ready = 1, sl->failed = rc != 0;
        pthread_cond_broadcast(&f->cond);
        pthread_mutex_unlock(&f->lock);
        if (rc) break;
    }
    return NULL;
}

static int open_files(shard_feed *f, const char *dir, char *err, size_t errlen)
{
    f->set = shard_set_open(dir, err, errlen);
    if (!f->set) return -1;
    const shard_shape *sh = shard_set_shape(f->set), *w = &f->shape;
    if (memcmp(sh->dims, w->dims, sizeof sh->dims) || sh->targets != w->targets) {
        snprintf(err, errlen, "%s: samples of %dx%dx%d x %d channels, %d targets; the network "
                 "takes %dx%dx%d x %d, %d targets (%s)", dir, sh->dims[0], sh->dims[1],
                 sh->dims[2], sh->dims[3], sh->targets, w->dims[0], w->dims[1], w->dims[2],
                 w->dims[3], w->targets, f->shape_opts ? f->shape_opts : "the network's shape");
        return -1;
    }
    shard_set_verify(f->set, !f->o.no_verify);
    f->ntrain = shard_set_samples(f->set, "train");
    f->nval = shard_set_samples(f->set, "val");
    if (strcmp(f->o.shuffle, "local")) return 0;
    /* local: the shards g, g + G, ... of the train split are this group's */
    int ns = shard_set_shards(f->set, "train");
    if (ns < f->groups) {
        snprintf(err, errlen, "--shuffle local: %s has %d train shard(s) for %d group(s); each "
                 "group needs one (write smaller shards, or shuffle global)", dir, ns, f->groups);
        return -1;
    }
    f->local = XMALLOC((size_t)f->ntrain * sizeof *f->local, "local samples");
    for (int64_t i = 0; i < f->ntrain;) {
        int64_t a, n;
        int k = shard_set_shard_of(f->set, "train", i, &a, &n);
        CHECK(k >= 0, "shard of sample %lld", (long long)i);
        if (k % f->groups == f->group)
            for (int64_t j = 0; j < n; j++) f->local[f->nlocal++] = a + j;
        i = a + n;
    }
    return 0;
}

int shard_feed_open(shard_feed **out, const shard_feed_cfg *c, const shard_feed_opts *o,
                    char *err, size_t errlen)
{
    shard_feed *f = XCALLOC(1, sizeof *f, "the data feed");
    const char *data = c->data;
    int batch = c->batch;
    int64_t steps = c->steps;
    *out = NULL;
    snprintf(f->data, sizeof f->data, "%s", data);
    f->o = *o;
    f->shape = c->shape, f->shape_opts = c->shape_opts;
    f->gen = c->gen, f->gen_user = c->gen_user;
    f->T = c->shape.targets;
    f->whole = 1;
    for (int a = 0; a < 3; a++) {
        f->box_o[a] = c->box_o[a], f->box_e[a] = c->box_e[a];
        f->whole &= f->box_o[a] == 0 && f->box_e[a] == c->shape.dims[a];
    }
    int C = c->shape.dims[3];
    f->in_floats = (size_t)batch * f->box_e[0] * f->box_e[1] * f->box_e[2] * C;
    f->tg_floats = (size_t)batch * f->T;
    f->seed = c->seed, f->groups = c->groups, f->group = c->group, f->batch = batch;
    f->steps = steps;
    f->perm_epoch = -1, f->hint_epoch = -1;
    CHECK(pthread_mutex_init(&f->io_lock, NULL) == 0 && pthread_mutex_init(&f->lock, NULL) == 0 &&
              pthread_cond_init(&f->cond, NULL) == 0,
          "the feed's locks");
    f->wait_s = XCALLOC((size_t)steps + 1, sizeof *f->wait_s, "exposed read times");
    int rc = 0;
    if (strncmp(data, "files:", 6)) {
        f->ntrain = o->mem_train, f->nval = o->mem_val;
        if (!f->gen) {
            snprintf(err, errlen, "--data %s: no samples made in memory here", data);
            rc = -1;
        }
        if (!rc && !strcmp(o->shuffle, "local")) {
            snprintf(err, errlen, "--shuffle local needs --data files:DIR (shards to own)");
            rc = -1;
        }
    } else {
        rc = open_files(f, data + 6, err, errlen);
    }
    if (!rc && f->ntrain < 1) {
        snprintf(err, errlen, "--data %s: no train samples", data);
        rc = -1;
    }
    if (rc) {
        shard_feed_close(f);
        return -1;
    }
    int64_t n = f->local ? f->nlocal : f->ntrain;
    f->perm = XMALLOC((size_t)n * sizeof *f->perm, "the shuffle");
    f->hint_perm = XMALLOC((size_t)n * sizeof *f->hint_perm, "the shuffle of the hints");
    if (o->prefetch > 0) {
        f->slots = XCALLOC((size_t)o->prefetch, sizeof *f->slots, "prefetch slots");
        for (int i = 0; i < o->prefetch; i++) {
            f->slots[i].input = XMALLOC(f->in_floats * sizeof(float), "a prefetched batch");
            f->slots[i].target = XMALLOC(f->tg_floats * sizeof(float), "a prefetched batch");
        }
        CHECK(pthread_create(&f->thread, NULL, reader, f) == 0, "the reader thread");
        f->running = 1;
    }
    *out = f;
    return 0;
}

void shard_feed_batch(shard_feed *f, int64_t step, int64_t first, int batch, float *input,
                   float *target)
{
    char err[768];
    double t0 = timer_now_s();
    if (f->running && step == f->next && first == (int64_t)f->group * f->batch &&
        batch == f->batch && step < f->steps) {
        slot_t *sl = &f->slots[step % f->o.prefetch];
        pthread_mutex_lock(&f->lock);
        while (!(sl->ready && sl->step == step)) pthread_cond_wait(&f->cond, &f->lock);
        pthread_mutex_unlock(&f->lock);
        if (sl->failed) check_usage("--data %s: %s", f->data, sl->err);
        memcpy(input, sl->input, f->in_floats * sizeof(float));
        memcpy(target, sl->target, f->tg_floats * sizeof(float));
        pthread_mutex_lock(&f->lock);
        sl->ready = 0;
        pthread_cond_broadcast(&f->cond);
        pthread_mutex_unlock(&f->lock);
        f->next++;
    } else if (fill(f, step, first, batch, input, target, err, sizeof err)) {
        check_usage("--data %s: %s", f->data, err);
    }
    if (step >= 0 && step < f->steps) f->wait_s[step] = timer_now_s() - t0;
}

void shard_feed_eval(shard_feed *f, int64_t first, int batch, float *input, float *target)
{
    char err[768];
    size_t per = f->in_floats / (size_t)f->batch;
    CHECK(pthread_mutex_lock(&f->io_lock) == 0, "a lock");
    int rc = 0;
    for (int i = 0; i < batch && !rc; i++)
        rc = one(f, 1, (first + i) % f->nval, input + (size_t)i * per, target + (size_t)i * f->T,
                 err, sizeof err);
    CHECK(pthread_mutex_unlock(&f->io_lock) == 0, "a lock");
    if (rc) check_usage("--data %s: %s", f->data, err);
}

void shard_feed_io(const shard_feed *f, int64_t *bytes, int64_t *samples, double *read_s)
{
    /* the reader thread has finished its steps when the training took them all */
    pthread_mutex_lock((pthread_mutex_t *)&f->io_lock);
    *bytes = f->io.bytes, *samples = f->io.samples, *read_s = f->io.seconds;
    pthread_mutex_unlock((pthread_mutex_t *)&f->io_lock);
}

void shard_feed_write_record(const shard_feed *f, rec_t *w)
{
    rec_key(w, "io");
    rec_map_begin(w);
    rec_kv_str(w, "source", f->set ? "files" : "memory");
    rec_kv_str(w, "data", f->data);
    rec_kv_str(w, "encoding", f->set ? shard_set_encoding(f->set) : "none");
    rec_kv_str(w, "shuffle", f->o.shuffle);
    rec_kv_int(w, "prefetch", f->o.prefetch);
    rec_kv_int(w, "readahead", f->set ? f->o.readahead : 0);
    rec_kv_double(w, "made_s", f->o.made_s);
    rec_kv_str(w, "staged_from", f->o.staged_from ? f->o.staged_from : "");
    rec_kv_double(w, "staging_s", f->o.staged_s);
    rec_kv_int(w, "staged_bytes", f->o.staged_bytes);
    rec_kv_int(w, "train_samples", f->ntrain);
    rec_kv_int(w, "val_samples", f->nval);
    rec_kv_bool(w, "sub_volume", !f->whole);
    rec_kv_bool(w, "verified", f->set && f->whole && !f->o.no_verify);
    rec_kv_str(w, "rank_note", "rank 0's reads: its sub-volume of each sample of its group");
    rec_kv_int(w, "bytes_read", f->io.bytes);
    rec_kv_int(w, "samples_read", f->io.samples);
    rec_kv_double(w, "read_s", f->io.seconds);
    rec_kv_double(w, "fill_s", f->read_s);
    double sum = 0;
    int64_t n = f->next > 0 && f->running ? f->next : f->steps;
    for (int64_t s = 0; s < n; s++) sum += f->wait_s[s];
    rec_kv_int(w, "steps", n);
    rec_kv_double(w, "exposed_read_s", sum);
    rec_kv_doubles(w, "exposed_read_s_per_step", f->wait_s, (size_t)n);
    rec_map_end(w);
}

void shard_feed_close(shard_feed *f)
{
    if (!f) return;
    if (f->running) {
        pthread_mutex_lock(&f->lock);
        f->stop = 1;
        pthread_cond_broadcast(&f->cond);
        pthread_mutex_unlock(&f->lock);
        pthread_join(f->thread, NULL);
    }
    if (f->slots)
        for (int i = 0; i < f->o.prefetch; i++) free(f->slots[i].input), free(f->slots[i].target);
    free(f->slots);
    free(f->wait_s);
    free(f->perm);
    free(f->hint_perm);
    free(f->local);
    shard_set_close(f->set);
    pthread_mutex_destroy(&f->io_lock);
    pthread_mutex_destroy(&f->lock);
    pthread_cond_destroy(&f->cond);
    free(f);
}
