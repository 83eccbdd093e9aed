/* Fuzz probe.yaml (harness/run/probe.c), the answers `exadl run`'s probe
 * stage recorded in a run folder, which `exadl analyze` and `exadl check`
 * read from folders that may come from anywhere: probe_read_text on the
 * input, then every answer looked up again and the peaks (fp32, bf16) parsed. */
#define _GNU_SOURCE
#include <math.h>

#include "harness/analysis/peak.h"
#include "harness/run/probe.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init();
    arena_t *a = ar_new();
    probe_t p;
    char err[1024];
    if (probe_read_text(a, (const char *)data, size, "probe.yaml", &p, err, sizeof err) == 0) {
        for (size_t i = 0; i < p.nd; i++)
            CHECK(probe_find(&p, p.d[i].program, (char *const *)p.d[i].args, p.d[i].nargs) ==
                      &p.d[i],
                  "answer %zu is found again", i);
        if (p.has_peak && p.peak.output) (void)peak_parse(p.peak.output);
        const char *isa, *why;
        double bf16 = peak_find_bf16(a, &p, 1, "fuzz", &isa, &why);
        CHECK(why && (isnan(bf16) || (bf16 > 0 && isfinite(bf16) && isa)),
              "the bf16 peak is absent with why, or finite with its ISA");
    }
    ar_free(a);
    return 0;
}
