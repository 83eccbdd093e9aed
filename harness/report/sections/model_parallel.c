/* Report section: model parallelism (docs/modelparallel.md): per entry and scale
 * of a benchmark whose records carry a model_parallel block (modelpar), the
 * model groups and their grid, parameters per rank, the median step time
 * beside the halo exchange's time, the bytes exchanged per step by kind
 * (halo as run beside its formula, the tensor-parallel collectives of the
 * dense pair, the data-parallel allreduce) and the
 * memory per rank (the largest rank's high-water mark beside the formula).
 * Metrics mp_* (param model_ranks).  Plots model_parallel_step (each
 * entry's median step split into halo, tensor-parallel and the rest) and
 * model_parallel_memory (memory per rank against the model ranks, measured
 * and by the formula).  The numbers are the model_parallel block's
 * (harness/blocks/model_parallel/). */
#define _GNU_SOURCE
#include <math.h>

#include "harness/blocks/model_parallel/der_model_parallel.h"
#include "harness/report/runctx.h"

static void g(sb_t *o, double v)
{
    if (isfinite(v)) sb_printf(o, " %.4g |", v);
    else sb_puts(o, " n/a |");
}

static double zero_nan(double v) { return isfinite(v) ? v : 0; }

static void plots(const runctx_t *c, const void *self, const char *dir, plots_t *pl)
{
    const mprun_t *M = self;
    arena_t *a = c->a;
    if (!M || !M->n) return;
    sb_t d = {0}, m = {0};
    sb_puts(&d, "# entry@ranks halo_s tp_s rest_s\n");
    sb_puts(&m, "# model_ranks hwm_MB formula_MB\n");
    for (size_t i = 0; i < M->n; i++) {
        const mprow_t *r = &M->r[i];
        double halo = zero_nan(r->m->halo_s), tp = r->m->dense > 0 ? zero_nan(r->m->tp_s) : 0;
        double rest = isfinite(r->step_s) && r->step_s > halo + tp ? r->step_s - halo - tp : 0;
        sb_printf(&d, "%s@%d", sanitize_name(a, r->b->name), r->scale);
        plots_datum(&d, halo), plots_datum(&d, tp), plots_datum(&d, rest);
        sb_puts(&d, "\n");
        sb_printf(&m, "%lld", r->m->model_ranks);
        plots_datum(&m, r->m->memory_hwm_bytes / 1e6), plots_datum(&m, r->m->memory_formula_bytes / 1e6);
        sb_puts(&m, "\n");
    }
    const char *name = "model_parallel_step";
    const char *title = "Model parallelism: the median step, split";
    char *gp = ar_printf(a, "%sset style data histograms\nset style histogram rowstacked\n"
                            "set style fill solid 0.7 border -1\nset xtics rotate by -30\n"
                            "set yrange [0:*]\nset key below\n"
                            "plot '%s.dat' using 2:xtic(1) title 'halo exchange', '' using 3 title "
                            "'tensor-parallel', '' using 4 title 'the rest'\n%s",
                         plots_gp_header(a, name, title, "entry@ranks", "s per step"), name,
                         plots_gp_footer);
    plots_add(a, dir, pl, name, title, &d, gp);
    name = "model_parallel_memory";
    title = "Model parallelism: memory per rank";
    gp = ar_printf(a, "%sset logscale xy 2\nset offsets graph 0.08, graph 0.08, graph 0.08, graph 0.08\nset key below\n"
                      "plot '%s.dat' using 1:2 with points pt 7 title 'high-water mark (largest rank)', "
                      "'' using 1:3 with points pt 4 title 'formula'\n%s",
                   plots_gp_header(a, name, title, "model ranks", "MB per rank"), name,
                   plots_gp_footer);
    plots_add(a, dir, pl, name, title, &m, gp);
    sb_free(&d);
    sb_free(&m);
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    const mprun_t *M = self;
    if (!M || !M->n) return;
    sb_puts(o, "\n## Model parallelism (docs/modelparallel.md)\n\n"
               "Every layer's output positions and their weights are split over the GYxGX tiles "
               "of a model group; each rank exchanges the halo its receptive fields need "
               "(forward) and the matching gradients (backward); model groups are data-parallel "
               "replicas whose shards' gradients are reduced among the replicas only. Halo "
               "bytes: sent by the ranks of one model group per step, as run and by the formula. "
               "Allreduce: 2 (R-1)/R of a shard per rank. Memory: the largest rank's high-water "
               "mark (VmHWM less VmRSS before its buffers) and the formula (buffers, optimizer, "
               "one shard copy).\n\n"
               "Tensor-parallel (tp): the dense pair's allgathers and reduce-scatters, rank 0's "
               "bytes per step ((M-1)/M of the whole each) and the time, max over ranks.\n\n"
               "| entry | ranks | model ranks x replicas | grid | parameters/rank | step s | halo "
               "s/step | halo bytes/step | formula | tp s/step | tp bytes/step | allreduce "
               "bytes/rank | memory/rank | formula "
               "|\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < M->n; i++) {
        const mprow_t *r = &M->r[i];
        const mpinfo_t *m = r->m;
        sb_printf(o, "| %s | %d | %lld x %lld | %lldx%lld |", r->b->name, r->scale, m->model_ranks,
                  m->replicas, m->grid[0], m->grid[1]);
        g(o, m->parameters_per_rank);
        g(o, r->step_s);
        g(o, m->halo_s);
        g(o, m->halo_bytes);
        g(o, m->halo_bytes_formula);
        g(o, m->dense > 0 ? m->tp_s : NAN);
        g(o, m->dense > 0 ? m->tp_bytes_rank : NAN);
        g(o, m->allreduce_bytes_rank);
        g(o, m->memory_hwm_bytes);
        g(o, m->memory_formula_bytes);
        sb_puts(o, "\n");
    }
    sb_puts(o, "\n");
    report_plot_link(o, &c->pl, "model_parallel_step");
    report_plot_link(o, &c->pl, "model_parallel_memory");
}

const section_t section_model_parallel = {.name = "model_parallel", .plots = plots, .md = md};
