/* Report section: how the numbers were made (launch order, how times combine
 * across ranks and repetitions, the confidence intervals, the device peak). */
#include <math.h>

#include "harness/report/runctx.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    sb_puts(o, "\n## Method\n\n"
               "- Each benchmark ran at every scale (MPI ranks; one rank per GPU where GPUs "
               "are used) the suite names, repeated as it says; launches ran one at a time in "
               "the order benchmark, repetition, scale.\n"
               "- Step and call times are the maximum over ranks, as the benchmarks record "
               "them; warm-up steps are excluded.\n"
               "- The timed steps of all repetitions at a scale are **pooled**; the median "
               "and its non-parametric 95% confidence interval (Hoefler & Belli, SC15: ranks "
               "floor((n-1.96 sqrt n)/2) and ceil(1+(n+1.96 sqrt n)/2); the whole range when "
               "n <= 5) come from the pooled samples; each launch's own median is listed "
               "too.\n"
               "- Throughput and efficiency confidence intervals follow from the step-time "
               "intervals; rates are never averaged arithmetically.\n");
    sb_puts(o, "- Device peak: ");
    const analysis_t *an = &c->an;
    if (isfinite(an->device_peak))
        report_si(o, an->device_peak, "FLOP/s"),
            sb_printf(o, " per %s (%s).\n", an->peak_per_core ? "core" : "device", an->peak_source);
    else sb_printf(o, "unknown (%s); fractions of peak are not given.\n", an->peak_source);
    if (!an->any_cpu_bf16) return; /* fp32-only runs: the line above says it all */
    sb_puts(o, "- bf16 peak (entries that ran precision bf16 on CPUs:");
    for (size_t i = 0; i < an->nb; i++)
        if (an->b[i].cpu_bf16) sb_printf(o, " %s", an->b[i].name);
    sb_puts(o, "): ");
    if (isfinite(an->bf16.per_core))
        report_si(o, an->bf16.per_core, "FLOP/s"),
            sb_printf(o, " per core, ISA %s (%s); their fraction of peak divides by it, the "
                         "other entries' by the peak above.\n",
                      an->bf16.isa ? an->bf16.isa : "unknown", an->bf16.source);
    else
        sb_printf(o, "unknown (%s); their fraction of peak is not given.\n", an->bf16.source);
}

const section_t section_method = {.name = "method", .md = md};
