/* Report section: the simulation-to-training workflow (docs/workflow.md,
 * Merlin): one row per workflow launch (each repetition is one run) with
 * its transport, producers, samples produced and consumed per second, the
 * trainer's stall, the latency from simulation to gradient (median and its
 * 95% CI), the queue depth against its bound, and the accounting of every
 * sample: duplicates, damaged, lost to a failed producer.  The numbers are
 * the workflow block's (harness/blocks/workflow/). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/blocks/workflow/der_workflow.h"
#include "harness/report/runctx.h"
#include "harness/util/esc.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    const wfrun_t *W = self;
    if (!W->nl) return;
    sb_puts(o, "\n## Simulation-to-training workflow (docs/workflow.md)\n\n"
               "Producers run a 2D diffusion and emit samples; one trainer trains a dense regression "
               "on them as they appear, through MPI messages (mpi) or sample files renamed into a "
               "shared folder (files), each producer holding queue / producers credits "
               "(back-pressure). Rates: samples / wall time. Stall: the trainer's time waiting for "
               "data. Latency: the end of a sample's simulation to the end of the backward pass "
               "that used it, median [95% CI]. Every sample is checked once consumed; lost: what "
               "failed producers did not deliver. One row per launch.\n\n"
               "| entry | mode | producers | produced/s | consumed/s | stall | latency s [95% CI] "
               "| queue max / bound | consumed / expected | dup | corrupt | failed | lost |\n"
               "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < W->nl; i++) {
        const wfinfo_t *m = W->l[i].m;
        sb_printf(o, "| %s | %s | %.0f | %.4g | %.4g | %.1f%% | %.3g [%.3g, %.3g] | %.0f / %.0f | "
                     "%.0f / %.0f | %.0f | %.0f | %.0f | %.0f |\n",
                  esc_md(c->a, W->l[i].bench), esc_md(c->a, m->mode ? m->mode : "?"), m->producers, m->produced_per_s, m->consumed_per_s,
                  100 * m->stall_fraction, m->lat_median_s, m->lat_lo_s, m->lat_hi_s, m->depth_max,
                  m->queue_bound, m->consumed, m->expected, m->duplicates, m->corrupt,
                  m->failed_producers, m->lost_to_failure);
    }
}

const section_t section_workflow = {.name = "workflow", .md = md};
