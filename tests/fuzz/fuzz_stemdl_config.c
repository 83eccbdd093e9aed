/* Fuzz stemdl configuration files (benchmarks/networks/fcdensenet): the input over
 * preset tiny (cfg_load_yaml), the whole-configuration check, and for a
 * configuration it accepts what --describe does: the plan, the dry step that
 * counts every kernel's FLOPs, the layer table. */
#define _GNU_SOURCE
#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "benchmarks/train/train.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w"))) abort();
    cfg_t c;
    char err[1024];
    if (cfg_preset(&c, "tiny")) abort();
    if (cfg_load_yaml(&c, path, err, sizeof err) || cfg_validate(&c, err, sizeof err)) return 0;
    plan_t p;
    plan_build(&p, &c);
    int64_t exec = train_dry_flops(&stemdl_network, &p, c.run.batch, NULL);
    stemdl_network.describe(&p, devnull, exec, c.run.batch);
    plan_free(&p);
    return 0;
}
