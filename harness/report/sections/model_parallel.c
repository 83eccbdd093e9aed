/* Report section: model parallelism (docs/modelpar.md): per entry and scale
 * of a benchmark whose records carry a model_parallel block (modelpar), the
 * model groups and their grid, parameters per rank, the median step time
 * beside the halo exchange's time, the bytes exchanged per step by kind
 * (halo as run beside its formula, the tensor-parallel collectives of the
 * dense pair, the data-parallel allreduce) and the
 * memory per rank (the largest rank's high-water mark beside the formula).
 * Metrics mp_* (param model_ranks).  The numbers are the model_parallel
 * block's (harness/blocks/model_parallel/). */
#define _GNU_SOURCE
#include <math.h>

#include "harness/blocks/model_parallel/der_model_parallel.h"
#include "harness/report/runctx.h"

static void g(sb_t *o, double v)
{
    if (isfinite(v)) sb_printf(o, " %.4g |", v);
    else sb_puts(o, " n/a |");
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)c;
    const mprun_t *M = self;
    if (!M || !M->n) return;
    sb_puts(o, "\n## Model parallelism (docs/modelpar.md)\n\n"
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
}

const section_t section_model_parallel = {.name = "model_parallel", .md = md};
