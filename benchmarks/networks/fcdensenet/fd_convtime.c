#define _GNU_SOURCE
#include "benchmarks/networks/fcdensenet/fd_convtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/optim.h"
#include "benchmarks/train/train.h"
#include "benchmarks/networks/fcdensenet/fd_kerntime.h"

static fdc_bench *current;
void fdc_use(fdc_bench *b) { current = b; }
fdc_bench *fdc_current(void) { return current; }

static int same(const fdc_shape *a, const fdc_shape *b)
{
    return a->fam == b->fam && a->n == b->n && a->cin == b->cin && a->h == b->h && a->w == b->w &&
           a->cout == b->cout && a->k == b->k;
}

static fdc_entry *find(fdc_bench *b, const fdc_shape *s)
{
    for (int i = 0; i < b->n; i++)
        if (same(&b->e[i].s, s)) return &b->e[i];
    return NULL;
}

static fdc_entry *add(fdc_bench *b, const fdc_shape *s, const double t[3])
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->e = realloc(b->e, (size_t)b->cap * sizeof *b->e);
        CHECK(b->e != NULL, "out of memory for %d convolution shapes", b->cap);
    }
    fdc_entry *e = &b->e[b->n++];
    memset(e, 0, sizeof *e);
    e->s = *s;
    memcpy(e->t_s, t, sizeof e->t_s);
    return e;
}

/* The key's fields must not hold the separators: tabs and newlines become spaces. */
static void clean(char *s)
{
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r') *s = ' ';
}

static int cache_path(char *out, size_t len)
{
    const char *env = getenv("EXADL_CONV_CACHE"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    char host[128] = "host";
    if (gethostname(host, sizeof host)) snprintf(host, sizeof host, "host");
    host[sizeof host - 1] = 0;
    for (char *c = host; *c; c++)
        if (*c == '.' ) { *c = 0; break; }
    int n;
    if (env && *env) n = snprintf(out, len, "%s", env);
    else if (xdg && *xdg) n = snprintf(out, len, "%s/exadl/conv-%s.tsv", xdg, host);
    else if (home && *home) n = snprintf(out, len, "%s/.cache/exadl/conv-%s.tsv", home, host);
    else return -1;
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* One cache line: this machine's entries are kept, others skipped. */
static int parse_line(fdc_bench *b, char *line, const char *path, int lineno, char *err,
                      size_t errlen)
{
    char *f[6];
    int nf = 0;
    for (char *p = line; nf < 6;) {
        f[nf++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    if (nf != 6) {
        snprintf(err, errlen, "%s:%d: a convolution cache line has %d tab-separated fields, not 6 "
                 "(remove the file to measure again)", path, lineno, nf);
        return -1;
    }
    char key[400];
    snprintf(key, sizeof key, "%s\t%s\t%s\t%s", f[0], f[1], f[2], f[3]);
    fdc_shape s = {0};
    double t[3];
    char extra, fam[16] = "conv";
    /* a convolution's shape is 6 numbers; another family's is led by its name */
    const char *shape = f[4];
    if (*shape && (*shape < '0' || *shape > '9') &&
        (sscanf(shape, "%15s", fam) != 1 || (s.fam = fdk_family_of(fam)) <= FDK_CONV)) {
        /* the file's word shown, its bytes outside [a-z0-9_] as '?' (no control
         * characters reach the terminal) */
        for (char *c = fam; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) *c = '?';
        snprintf(err, errlen, "%s:%d: '%s' is not a kernel family of the cache (tconv, pool, "
                 "bias, relu, l1, add, copy, zero, copy3d, adam; remove the file to measure again)",
                 path, lineno, fam);
        return -1;
    }
    if (s.fam != FDK_CONV) shape += strlen(fam);
    if (sscanf(shape, "%d %d %d %d %d %d %c", &s.n, &s.cin, &s.h, &s.w, &s.cout, &s.k, &extra) != 6 ||
        sscanf(f[5], "%lf %lf %lf %c", &t[0], &t[1], &t[2], &extra) != 3 || s.n < 1 ||
        s.cin < 1 || s.h < 1 || s.w < 1 || s.cout < 1 || s.k < (s.fam == FDK_CONV) || !(t[0] >= 0) ||
        !(t[1] >= 0) || !(t[2] >= 0) || t[0] > 1e6 || t[1] > 1e6 || t[2] > 1e6) {
        snprintf(err, errlen, "%s:%d: not a shape '[family] n cin h w cout k' and three times in "
                 "seconds (remove the file to measure again)", path, lineno);
        return -1;
    }
    if (strcmp(key, b->key) == 0 && !find(b, &s)) add(b, &s, t)->from_cache = 1;
    return 0;
}

int fdc_open(fdc_bench *b, const kern_ops *ops, void *ctx, const char *cpu_model, int threads,
             const char *precision, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    b->ops = ops;
    b->ctx = ctx;
    char cpu[256], prec[16], kset[32];
    snprintf(cpu, sizeof cpu, "%s", cpu_model && *cpu_model ? cpu_model : "unknown");
    snprintf(prec, sizeof prec, "%s", precision);
    snprintf(kset, sizeof kset, "%s", ops ? ops->name : "none");
    clean(cpu);
    clean(prec);
    clean(kset);
    snprintf(b->key, sizeof b->key, "%s\t%d\t%s\t%s", cpu, threads, kset, prec);
    if (cache_path(b->path, sizeof b->path)) {
        snprintf(err, errlen, "no convolution cache file can be named (no EXADL_CONV_CACHE, "
                 "XDG_CACHE_HOME or HOME)");
        return -1;
    }
    FILE *f = fopen(b->path, "r");
    if (!f) return 0; /* none yet: everything is measured */
    char line[2048];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t l = strlen(line);
        if (l && line[l - 1] == '\n') line[--l] = 0;
        else if (!feof(f)) {
            snprintf(err, errlen, "%s:%d: a line longer than %zu characters", b->path, lineno,
                     sizeof line - 1);
            rc = -1;
            break;
        }
        if (l == 0 || line[0] == '#') continue;
        if ((rc = parse_line(b, line, b->path, lineno, err, errlen))) break;
    }
    fclose(f);
    if (rc) fdc_close(b);
    return rc;
}

void fdc_close(fdc_bench *b)
{
    free(b->e);
    b->e = NULL;
    b->n = b->cap = 0;
    if (current == b) current = NULL;
}

/* Append one line, the folder made where missing, never through a symlink. */
static int store(fdc_bench *b, const fdc_shape *s, const double t[3], char *err, size_t errlen)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", b->path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(dir, 0755) && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create %s: %s", b->path, dir, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    int fd = open(b->path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write the convolution cache: %s", b->path,
                 strerror(errno));
        return -1;
    }
    char line[1024];
    /* a convolution's shape unnamed (the lines before the other families) */
    int n = snprintf(line, sizeof line, "%s\t%s%s%d %d %d %d %d %d\t%.6e %.6e %.6e\n", b->key,
                     s->fam == FDK_CONV ? "" : fdk_family_name(s->fam),
                     s->fam == FDK_CONV ? "" : " ", s->n, s->cin, s->h, s->w, s->cout, s->k, t[0],
                     t[1], t[2]);
    int ok = n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) == n;
    if (close(fd)) ok = 0;
    if (!ok) snprintf(err, errlen, "%s: could not append to the convolution cache", b->path);
    return ok ? 0 : -1;
}

int fdc_time(fdc_bench *b, const fdc_shape *s, double t_s[3], char *err, size_t errlen)
{
    int conv = s->fam == FDK_CONV;
    fdc_entry *e = find(b, s);
    if (e) {
        if (e->from_cache && !e->used) (*(conv ? &b->reused : &b->reused_other))++;
        e->used = 1;
        memcpy(t_s, e->t_s, sizeof e->t_s);
        return 0;
    }
    if (!b->ops) {
        snprintf(err, errlen, "no time for the %s %d %d %d %d %d %d in %s",
                 fdk_family_name(s->fam), s->n, s->cin, s->h, s->w, s->cout, s->k, b->path);
        return -1;
    }
    double t0 = timer_now_s();
    fdk_measure(b->ops, b->ctx, s, FDC_REPS, t_s);
    b->bench_s += timer_now_s() - t0;
    (*(conv ? &b->measured : &b->measured_other))++;
    add(b, s, t_s)->used = 1;
    /* a cache that cannot be written costs a second measurement next time,
     * not this one: said once, and the measuring goes on */
    if (!b->unwritable && store(b, s, t_s, err, errlen)) {
        b->unwritable = 1;
        fprintf(stderr, "%s: warning: %s; measuring without it\n", check_program(), err);
    }
    return 0;
}

/* The dry step's observer: every timed call's time and FLOPs added up. */
typedef struct {
    fdc_bench *b;
    fdc_cost *c;
    int failed;
    char *err;
    size_t errlen;
} obs_t;

static void observe(void *arg, const char *kernel, const tview *x, const tview *y, int k)
{
    obs_t *o = arg;
    int fam, slot;
    if (o->failed || fdk_kernel(kernel, &fam, &slot)) return;
    fdc_shape s;
    fdk_shape_of(fam, x, y, k, &s);
    double t[3];
    if (fdc_time(o->b, &s, t, o->err, o->errlen)) {
        o->failed = 1;
        return;
    }
    if (fam == FDK_CONV) {
        o->c->conv_s += t[slot];
        o->c->conv_flops += fdk_flops(&s, slot);
    } else {
        o->c->other_s += t[slot];
        o->c->other_flops += fdk_flops(&s, slot);
    }
}

int fdc_step(fdc_bench *b, const network_t *net, const void *model, int batch, fdc_cost *cost,
             char *err, size_t errlen)
{
    memset(cost, 0, sizeof *cost);
    void *inst = net->create(model, kern_ref_ops(), NULL, batch, 1, err, errlen);
    if (!inst) return -1;
    /* sized as the runtime sizes a step's table: a fixed 256 rows overflowed
     * on the small preset's first call, once the non-convolution kernels were
     * observed too (every kernel of every layer gets a row) */
    ktab_t t;
    ktab_init(&t, train_table_rows(net, model));
    obs_t o = {.b = b, .c = cost, .err = err, .errlen = errlen};
    kc_t kc = {.ops = kern_ref_ops(), .tab = &t, .dry = 1, .observe = observe, .observe_arg = &o};
    net->forward(inst, &kc);
    net->backward(inst, &kc, NULL, NULL);
    /* Adam's step, as train_dry_flops counts it (the same for every plan) */
    optim_t *opt = optim_create(net, model, inst, kern_ref_ops(), NULL, 1, err, errlen);
    if (!opt) {
        net->release(inst);
        ktab_free(&t);
        return -1;
    }
    adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1,
                    .grad_scale = 1};
    optim_step(opt, &kc, &h);
    optim_free(opt);
    net->release(inst);
    ktab_free(&t);
    return o.failed ? -1 : 0;
}
