/* Block simulation (blk_simulation.h): the simulation block (docs/record.md
 * "simulation", docs/simulate.md) that harness/launchers/smpi.sh appends to a
 * record of any kind run under SimGrid SMPI: its times are simulated seconds,
 * not measured ones. */
#define _GNU_SOURCE
#include "harness/blocks/simulation/blk_simulation.h"

#include <math.h>

static int read_sim(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *m;
    if (rd_map(c, root, "simulation", &m)) return -1;
    if (!m) return 0;
    siminfo_t *s = rd_alloc(c, sizeof *s);
    if (rd_bool(c, m, "simulated", 1, &s->simulated) ||
        rd_str(c, m, "simulator", NULL, &s->simulator) ||
        rd_str(c, m, "platform", NULL, &s->platform) ||
        rd_str(c, m, "hostfile", NULL, &s->hostfile) ||
        rd_str(c, m, "collectives", NULL, &s->collectives) ||
        rd_int_in(c, m, "ranks", -1, 1, 100000000, &s->ranks) ||
        rd_num(c, m, "wall_s", RD_ANY, &s->wall_s) ||
        rd_num(c, m, "peak_memory_bytes", RD_ANY, &s->peak_memory_bytes))
        return -1;
    /* NaN stays "not said"; a negative or infinite time or size is a broken block */
    if (!isnan(s->wall_s) && !(s->wall_s >= 0 && isfinite(s->wall_s)))
        return rd_err(c, yt_get(m, "wall_s"), "simulation: wall_s must be a time >= 0 s, not %g",
                      s->wall_s);
    if (!isnan(s->peak_memory_bytes) && !(s->peak_memory_bytes >= 0 && isfinite(s->peak_memory_bytes)))
        return rd_err(c, yt_get(m, "peak_memory_bytes"),
                      "simulation: peak_memory_bytes must be a size >= 0, not %g",
                      s->peak_memory_bytes);
    r->blk[BLOCK_simulation] = s;
    return 0;
}

int record_simulated(const record_t *r) { return r && rec_sim(r) && rec_sim(r)->simulated; }

const block_t block_simulation = {.name = "simulation", .key = "simulation", .read = read_sim,
                                  .section = "simulation",
                                  .no_derive = "its section reads the launches' simulation "
                                               "blocks as they are, and the model's rows of the "
                                               "gradient_reduction block",
                                  .no_catalog = "it says how the record's times were made: simulated "
                                             "launches become the benchmark \"NAME (simulated)\" "
                                             "(analysis_split_simulated), no number of its own"};
