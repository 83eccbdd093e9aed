/* Report section: one part per suite entry (its kind, scaling, program and
 * config), holding the per-benchmark sections (BENCH_SECTIONS) its workload
 * names in the workload table; an entry whose records are of a kind the
 * table lacks gets each of them, and each shows only what it finds. */
#include <string.h>

#include "harness/report/runctx.h"
#include "harness/workloads/workload.h"

static int applies(const bsection_t *s, const bres_t *b)
{
    const workload_t *w = workload_of_kind(b->kind);
    if (!w) return 1;
    for (const char *const *n = w->sections; n && *n; n++)
        if (!strcmp(*n, s->name)) return 1;
    return 0;
}

static void plots(const runctx_t *c, const void *self, const char *dir, plots_t *pl)
{
    (void)self;
    for (size_t i = 0; i < c->an.nb; i++)
        for (const bsection_t *const *s = bench_sections; *s; s++)
            if ((*s)->plots && applies(*s, &c->an.b[i])) (*s)->plots(c, &c->an.b[i], dir, pl);
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    for (size_t i = 0; i < c->an.nb; i++) {
        const bres_t *b = &c->an.b[i];
        sb_printf(o, "\n## %s (%s, %s scaling)\n\n", b->name,
                  strcmp(b->kind, "unknown") ? b->kind : "no successful launch",
                  scaling_name(b->scaling));
        sb_printf(o, "Program `%s`; %d launches, %d failed. Config (from the records):", b->program,
                  b->nlaunch, b->nfailed);
        for (size_t k = 0; k < b->nparams; k++)
            sb_printf(o, " `%s=%s`", b->params[k].key, b->params[k].value ? b->params[k].value : "");
        sb_puts(o, b->nparams ? "\n" : " none (no launch succeeded)\n");
        for (const bsection_t *const *s = bench_sections; *s; s++)
            if ((*s)->md && applies(*s, b)) (*s)->md(o, c, b);
    }
}

const section_t section_benchmarks = {.name = "benchmarks", .plots = plots, .md = md};
