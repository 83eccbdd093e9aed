/* Fuzz cosmoflow configuration files (benchmarks/cosmoflow/model): the input
 * over preset tiny (cf_load_yaml), the whole-configuration check, and for a
 * configuration it accepts what --describe does: the plan, the dry step that
 * counts every kernel's FLOPs, the layer table. */
#define _GNU_SOURCE
#include "benchmarks/cosmoflow/model/cf_config.h"
#include "benchmarks/cosmoflow/model/cf_network.h"
#include "benchmarks/train/train.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w"))) abort();
    cf_cfg c;
    char err[1024];
    if (cf_preset(&c, "tiny")) abort();
    if (cf_load_yaml(&c, path, err, sizeof err) || cf_validate(&c, err, sizeof err)) return 0;
    cf_model m;
    cf_model_whole(&m, &c);
    int64_t exec = train_dry_flops(&cosmoflow_network, &m, c.run.batch, NULL);
    cf_describe(&m, devnull, exec, c.run.batch);
    cf_model_free(&m);
    return 0;
}
