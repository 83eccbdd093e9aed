/* peak_bf16: the bf16 half of peak_cpu.  Two measurements, where oneDNN
 * finds AVX512-BF16 or AMX: the instructions themselves (a loop of
 * independent vdpbf16ps, peak_bf16_isa.c, timed by peak_cpu.c's threads, where
 * the CPU has AVX512-BF16) and oneDNN's bf16 matmul (bf16 x bf16 -> fp32
 * accumulation, square matrices, on whichever unit oneDNN dispatches it to:
 * AMX tiles, AVX512-BF16's dot products).  The bf16 peak is the larger of the
 * two (with AMX, the matmul on the tiles; without, the instruction loop
 * unless the library does better), named in peak_bf16_method.  On a CPU
 * where oneDNN finds neither it says so and measures nothing (oneDNN's
 * emulation of bf16 on plain AVX-512 is no bf16 unit; ONEDNN_MAX_CPU_ISA
 * masks it the same way).
 *
 * defines: peak_rate_t, peak_bf16_instr_fn, peak_bf16_print */
#ifndef EXADL_PEAK_BF16_H
#define EXADL_PEAK_BF16_H

/* one measurement: the median, min and max over its repetitions, FLOP/s */
typedef struct {
    double median, min, max;
} peak_rate_t;

/* peak_cpu's timing of the instruction loop on n threads (1 thread: the
 * single-core rate) */
typedef peak_rate_t (*peak_bf16_instr_fn)(int n, int reps, double seconds);

/* Prints peak_cpu's bf16 lines (YAML key: value) after its fp32 lines:
 * the ISA, both methods, each one's 1-thread and all-threads rates, and the
 * peak (the larger) with the method that gave it (medians of reps
 * repetitions of about `seconds` each).  instr: NULL where the CPU lacks
 * AVX512-BF16 (the matmul alone is then the peak); instr_what: its
 * description. */
void peak_bf16_print(int threads, int reps, double seconds, peak_bf16_instr_fn instr,
                     const char *instr_what);

#endif
