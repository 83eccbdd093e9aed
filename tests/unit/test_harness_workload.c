/* The harness's tables: every registered workload (lookups by kind and name,
 * its report sections exist, its describe metrics are per-configuration
 * metrics, its exact-reference file loads and asks it) and the report built
 * by looping over the section table, from hand-written records: today's
 * headings in today's order, a record kind the workload table lacks still
 * getting the sections that find data, a workload's sections only. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "harness/report/report.h"
#include "harness/workloads/workload.h"
#include "tests/unit/tap.h"

static char err[1024];

static const char *root(void)
{
    const char *r = getenv("EXADL_ROOT");
    return r ? r : ".";
}

static const bsection_t *bench_section(const char *name)
{
    for (const bsection_t *const *s = bench_sections; *s; s++)
        if (!strcmp((*s)->name, name)) return *s;
    return NULL;
}

static void test_every_workload(void)
{
    arena_t *a = ar_new();
    const char *progs = workload_programs(a);
    size_t n = 0;
    for (const workload_t *w = workloads; w->name; w++, n++) {
        T_ASSERT(*w->program && *w->kind, "%s: program and kind", w->name);
        T_ASSERT(workload_of_kind(w->kind) == w, "%s: kind %s is another's", w->name, w->kind);
        T_ASSERT(workload_named(w->name) == w, "%s: its name finds another", w->name);
        T_ASSERT(w->sections, "%s: no section list (an empty one is {NULL})", w->name);
        for (const char *const *s = w->sections; *s; s++)
            T_ASSERT(bench_section(*s), "%s: report section '%s' is not in BENCH_SECTIONS",
                     w->name, *s);
        T_ASSERT(!w->describe == !w->describe_metrics, "%s: describe without metrics", w->name);
        for (const char *const *m = w->describe_metrics; m && *m; m++) {
            const metric_info_t *mi = metric_info(*m);
            T_ASSERT(mi && !mi->per_scale, "%s: describe metric '%s' is not a per-configuration "
                     "metric", w->name, *m);
            T_ASSERT(workload_describes(w, *m), "%s: %s", w->name, *m);
        }
        T_ASSERT(!workload_describes(w, "step_time_s"), "%s describes step_time_s", w->name);
        T_ASSERT(strstr(progs, w->program), "%s: programs '%s'", w->name, progs);
    }
    ar_free(a);
    T_ASSERT(n >= 3, "%zu workloads", n);
    const workload_t *d = workload_describer(NULL), *t = workload_trainer();
    T_ASSERT(d && d->describe && workload_describer(d->name) == d, "a default describer");
    T_ASSERT(t && t->trains, "a training workload");
    T_ASSERT(!workload_of_kind("no-such-kind") && !workload_named("no-such-program") &&
                 !workload_describer("no-such-program"),
             "unknown names find nothing");
}

/* each exact-reference file loads, and each of its checks is answered by the
 * workload's describe (what `exadl check` does where nothing measured it) */
static void test_exact_references(void)
{
    arena_t *a = ar_new();
    size_t files = 0;
    for (const workload_t *w = workloads; w->name; w++) {
        if (!w->exact_reference) continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", root(), w->exact_reference);
        reference_t r;
        T_ASSERT(reference_load(a, p, &r, err, sizeof err) == 0, "%s: %s", w->name, err);
        T_ASSERT(!strcmp(r.kind, "exact") && r.n > 0, "%s: %s is not an exact reference", w->name, p);
        for (size_t i = 0; i < r.n; i++) {
            const char *bn = NULL;
            for (size_t k = 0; k < r.c[i].nwhere; k++)
                if (!strcmp(r.c[i].where[k].key, "benchmark")) bn = r.c[i].where[k].value;
            T_ASSERT(workload_describer(bn) == w && workload_describes(w, r.c[i].metric),
                     "%s line %d: %s is not answered by %s %s", p, r.c[i].line, r.c[i].metric,
                     w->program, w->describe ? w->describe : "(no describe)");
        }
        files++;
    }
    ar_free(a);
    T_ASSERT(files >= 1, "no workload names an exact-reference file");
}

static void load(arena_t *a, outcome_t *o, const char *bench, int scale, const char *file,
                 const char *kind)
{
    memset(o, 0, sizeof *o);
    o->bench = bench, o->program = "prog", o->scale = scale, o->rep = 1;
    o->id = ar_printf(a, "%s-n%d-r1", bench, scale);
    o->rec = ar_alloc(a, sizeof *o->rec);
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/fixtures/harness/%s", root(), file);
    if (record_load(a, p, o->rec, err, sizeof err)) T_SKIP("fixture %s: %s", file, err);
    if (kind) o->rec->benchmark = kind; /* as another program's records would say */
    o->status = LS_OK;
}

/* an empty folder for the files a report writes beside itself (the
 * collectives' CSV): never the current folder, which is the source tree */
static char *scratch_dir(arena_t *a)
{
    const char *t = getenv("TMPDIR");
    char *d = ar_printf(a, "%s/exadl-report-XXXXXX", t && *t ? t : "/tmp");
    T_ASSERT(mkdtemp(d) != NULL, "mkdtemp %s", d);
    return d;
}

/* remove the folder and the plain files in it */
static void scratch_remove(arena_t *a, const char *d)
{
    DIR *dir = opendir(d);
    if (!dir) return;
    for (struct dirent *e; (e = readdir(dir));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            T_ASSERT(unlink(ar_printf(a, "%s/%s", d, e->d_name)) == 0, "unlink %s", e->d_name);
    closedir(dir);
    T_ASSERT(rmdir(d) == 0, "rmdir %s", d);
}

/* the report of three entries: stemdl records, the same records under a kind
 * no workload has, and a collectives record */
static char *report_of(arena_t *a, const char *stem_kind)
{
    runctx_t *c = ar_alloc(a, sizeof *c);
    c->a = a;
    outcome_t *o = ar_alloc(a, 5 * sizeof *o);
    load(a, &o[0], "net", 1, "stemdl-n1-r1.yaml", stem_kind);
    load(a, &o[1], "net", 2, "stemdl-n2-r1.yaml", stem_kind);
    load(a, &o[2], "mine", 1, "stemdl-n1-r1.yaml", "mybench");
    load(a, &o[3], "mine", 2, "stemdl-n2-r1.yaml", "mybench");
    load(a, &o[4], "coll", 2, "coll-n2.yaml", NULL);
    runinfo_t *ri = &c->ri;
    ri->o = o, ri->no = 5, ri->name = "run", ri->suite = "t", ri->host = "h";
    ri->started_utc = ri->finished_utc = "now", ri->command = "exadl run t.yaml";
    ri->dir = scratch_dir(a);
    analysis_run(a, o, 5, NAN, NULL, &c->an);
    blocks_analyze(a, &c->s, o, 5, &c->an, &c->d, &c->t);
    char path[] = "/tmp/exadl-report-XXXXXX";
    int fd = mkstemp(path);
    T_ASSERT(fd >= 0, "mkstemp");
    close(fd);
    int rc = report_write(c, path, err, sizeof err);
    size_t len;
    char *text = fileio_read(path, &len, 1 << 24, err, sizeof err);
    unlink(path);
    T_ASSERT(rc == 0 && text, "report_write: %s", err);
    T_ASSERT(access(ar_printf(a, "%s/coll_collectives.csv", ri->dir), R_OK) == 0,
             "the collectives' CSV is not beside the report in the run folder");
    scratch_remove(a, ri->dir);
    char *r = ar_strdup(a, text);
    free(text);
    return r;
}

static const char *after(const char *text, const char *what)
{
    const char *p = text ? strstr(text, what) : NULL;
    return p ? p + strlen(what) : NULL;
}

static void test_report_sections(void)
{
    arena_t *a = ar_new();
    char *md = report_of(a, NULL);
    const char *order[] = {"# ExaDL report: suite t on h", "## Summary", "## System", "## Method",
                           "## net (stemdl, weak scaling)", "### Step time, throughput, scaling",
                           "### FLOP rates", "## mine (mybench, weak scaling)",
                           "### Step time, throughput, scaling", "## coll (collectives, weak "
                           "scaling)", "### Collectives", "## Reference checks", "## Launches",
                           "## Files"};
    const char *p = md;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        p = after(p, order[i]);
        T_ASSERT(p, "'%s' missing or out of order", order[i]);
    }
    const char *coll = strstr(md, "## coll (");
    T_ASSERT(!strstr(coll, "### Step time") && !strstr(md, "## Gradient reduction"),
             "collectives entry with a training table, or an ablation without its records");
    /* a training record filed under the collectives workload gets only its sections */
    char *as_coll = report_of(a, "collectives");
    char *net = strstr(as_coll, "## net (collectives"), *mine = strstr(as_coll, "## mine (");
    T_ASSERT(net && mine > net, "the entries' parts");
    *mine = 0;
    T_ASSERT(!strstr(net, "### Step time"), "a collectives-kind entry showed the training section");
    ar_free(a);
}

int main(void)
{
    T_RUN(test_every_workload);
    T_RUN(test_exact_references);
    T_RUN(test_report_sections);
    T_DONE();
}
