/* Block search (blk_search.h): the search record's `search` block
 * (docs/record.md "search", docs/search.md). */
#define _GNU_SOURCE
#include "harness/blocks/search/blk_search.h"

static int read_search(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *s, *sim;
    if (rd_map(c, root, "search", &s) || rd_map(c, root, "simulation", &sim)) return -1;
    if (!s) return 0;
    srinfo_t *m = rd_alloc(c, sizeof *m);
    size_t nf = 0;
    if (rd_str(c, s, "mode", NULL, &m->mode) || rd_str(c, s, "strategy", NULL, &m->strategy) ||
        rd_str(c, s, "fitness", NULL, &m->fitness) ||
        rd_num_req(c, s, "workers", RD_COUNT, &m->workers) ||
        rd_num(c, s, "group_ranks", RD_COUNT, &m->group_ranks) ||
        rd_num_req(c, s, "evaluated", RD_COUNT, &m->evaluated) ||
        rd_num_req(c, s, "wall_s", RD_COUNT, &m->wall_s) ||
        rd_num(c, s, "candidates_per_hour", RD_ANY, &m->per_hour) ||
        rd_num(c, s, "candidates_per_hour_steady", RD_ANY, &m->per_hour_steady) ||
        rd_num(c, s, "worker_idle_fraction", RD_ANY, &m->idle_fraction) ||
        rd_num(c, s, "worker_idle_fraction_steady", RD_ANY, &m->idle_steady) ||
        rd_num(c, s, "decisions", RD_COUNT, &m->decisions) ||
        rd_num(c, s, "decision_cpu_median_s", RD_ANY, &m->decision_median_s) ||
        rd_num(c, s, "decision_cpu_p99_s", RD_ANY, &m->decision_p99_s) ||
        rd_num(c, s, "master_busy_fraction", RD_ANY, &m->master_busy_fraction) ||
        rd_num(c, s, "messages_sent", RD_COUNT, &m->msgs_sent) ||
        rd_num(c, s, "messages_received", RD_COUNT, &m->msgs_recv) ||
        rd_num(c, s, "evals_to_optimum", RD_ANY, &m->evals_to_optimum) ||
        rd_num(c, s, "best_fitness", RD_ANY, &m->best_fitness) ||
        rd_nums(c, s, "best_curve_evals", RD_COUNT, &m->curve_n, &m->ncurve) ||
        rd_nums(c, s, "best_curve_fitness", RD_ANY, &m->curve_f, &nf))
        return -1;
    if (nf != m->ncurve)
        return rd_err(c, s, "best_curve_evals has %zu values, best_curve_fitness %zu", m->ncurve, nf);
    m->simulated = sim != NULL;
    r->blk[BLOCK_search] = m;
    return 0;
}

/* params mode, fitness; docs/search.md */
static const metric_info_t catalog[] = {
    {"search_candidates_per_hour", "candidates/h", 1, 1, "candidates evaluated / wall time of the search x 3600"},
    {"search_worker_idle_fraction", "", -1, 1, "1 - time the worker groups spent evaluating / their wall time"},
    {"search_decision_cpu_s", "s", -1, 1, "the master's host CPU time per decision, median"},
    {"search_evals_to_optimum", "candidates", -1, 0, "planted fitness: candidates evaluated when the optimum came back"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_search = {.name = "search", .key = "search", .read = read_search,
                              .catalog = catalog, .section = "search", .derive = search_derive,
                              .rows = search_rows, .rows_at = BLOCK_ROWS_RUN};
