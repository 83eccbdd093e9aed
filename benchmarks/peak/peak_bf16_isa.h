/* peak_bf16_isa: the bf16 rate of the instructions themselves, for peak_cpu:
 * a loop of independent AVX512-BF16 dot products (vdpbf16ps on zmm: 16 fp32
 * lanes, each adding two bf16 x bf16 products, 4 FLOPs per lane).  peak_cpu
 * times it with the fp32 loops' threads (peak_cpu.c); peak_bf16.c compares
 * it with oneDNN's bf16 matmul and reports the larger as the bf16 peak.
 *
 * defines: peak_bf16_isa_usable, peak_bf16_isa_run, PEAK_BF16_ISA_* */
#ifndef EXADL_PEAK_BF16_ISA_H
#define EXADL_PEAK_BF16_ISA_H

#include <stdint.h>

#define PEAK_BF16_ISA_LANES 16         /* fp32 accumulators per zmm */
#define PEAK_BF16_ISA_ACCUMULATORS 24  /* independent chains (32 zmm registers) */
#define PEAK_BF16_ISA_FLOPS_PER_LANE 4 /* two products and two additions */

/* 1 where the CPU (and the OS: zmm state) has AVX512-BF16 */
int peak_bf16_isa_usable(void);

/* runs `iters` iterations of PEAK_BF16_ISA_ACCUMULATORS dot products; returns
 * a value that depends on every chain.  Call it only where usable. */
double peak_bf16_isa_run(int64_t iters);

#endif
