/* peak_bf16: the bf16 half of peak_cpu: the rate of oneDNN's bf16 matmul
 * (bf16 x bf16 -> fp32 accumulation) on square matrices, on whichever unit
 * oneDNN dispatches it to (AMX tiles, AVX512-BF16's dot products); on a CPU
 * where oneDNN finds neither, it says so and measures nothing (oneDNN's
 * emulation of bf16 on plain AVX-512 is no bf16 unit).
 *
 * defines: peak_bf16_print */
#ifndef EXADL_PEAK_BF16_H
#define EXADL_PEAK_BF16_H

/* Prints peak_cpu's bf16 lines (YAML key: value) after its fp32 lines:
 * the ISA, the method, the 1-thread and all-threads rates (median of reps
 * repetitions of about `seconds` each). */
void peak_bf16_print(int threads, int reps, double seconds);

#endif
