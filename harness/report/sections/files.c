/* Report section: what the run folder holds. */
#include "harness/report/runctx.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)c, (void)self;
    sb_puts(o, "\n## Files\n\n- `results.yaml`: every derived metric, launch and check "
               "(what `exadl check`, `compare` and `history` read)\n- `suite.yaml`: the suite "
               "as run\n- `records/`: each launch's result record\n- `logs/`: each launch's "
               "stdout and stderr\n- `plots/`: PNG and SVG, with the .dat and .gp files "
               "(re-plot: `cd plots && gnuplot NAME.gp`)\n- `references/`: the reference files "
               "the checks used\n");
}

const section_t section_files = {.name = "files", .md = md};
