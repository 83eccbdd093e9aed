#!/usr/bin/env bash
# bench_lib.sh: sourced (". benchmarks/stemdl/tools/bench_lib.sh") by the
# benchmark scripts of the training workloads, stemdl's and cosmoflow's
# bench_cpu.sh and bench_gpu.sh, for what they do alike, so that a fix to one
# (how a GPU is found, how a record's kernel table is read) reaches all four:
#   bench_val KEY FILE          the value of the first "KEY: value" line
#   bench_verdict VALUE TARGET  "met" when VALUE >= TARGET, else "MISSED"
#   bench_median_s RECORD       the median step time of the record's summary
#   bench_kernel_rows RECORD    one line per row of the record's kernel table:
#                               KERNEL LAYER FLOPS TIME_S
#   bench_cpu_build BUILD PROGRAM...   builds the programs missing from BUILD/bin
#   bench_cpu_host              the host's lines: name, CPU model, online CPUs
#   bench_cpu_loadavg WARNING   the load average, and WARNING where the
#                               machine is not idle
#   bench_cpu_peak BIN THREADS TMP [vector_bits]  the measured peak FP32
#                               FLOP/s (peak_cpu) on 1 and THREADS threads,
#                               printed and set in p1 and pn
#   bench_samples_per_s RECORD  the samples/s of the record's summary
#   bench_cpu_bf16_peak TMP     after bench_cpu_peak: peak_cpu's bf16 lines,
#                               printed and set in bisa, b1 and bn (bisa
#                               "none" where the CPU has no bf16): the peak
#                               (the larger of the two measurements, b1 and
#                               bn), which one gave it, and both measured
#                               peaks, the vdpbf16ps loop's and oneDNN's
#                               matmul's ("n/a" from a peak_cpu without them)
#   bench_cpu_ratios THREADS EXADL_FP32 EXADL_BF16 TORCH_FP32 TORCH_BF16
#                    TORCH_BF16_BEST CONV_FP32 PEAK_FP32 CONV_BF16 PEAK_BF16
#                               the issue-29 ratios of one thread count (rates
#                               in samples/s and FLOP/s, "n/a" where absent),
#                               each with its target, MET or MISSED and by how
#                               much; the bf16 lines say "skipped" where bisa
#                               is none
#   bench_gpu_find TMP          the GPUs nvidia-smi lists; without one, prints
#                               "SKIPPED: ..." and exits 0
#   bench_gpu_build BUILD PROGRAM TMP  CUDA, cuDNN and NCCL (gpu_env.sh), then
#                               builds BUILD/bin/PROGRAM and the CUDA module;
#                               exits 1 where the build fails
# The callers run under "set -euo pipefail" from the repository root.

bench_val() { awk -v k="$1:" '$1 == k { print $2; exit }' "$2"; }
bench_verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v != "n/a" && v + 0 >= t) ? "met" : "MISSED" }'; }
bench_median_s() { awk '/^summary:/ { s = 1 } s && $1 == "median_s:" { print $2; exit }' "$1"; }

# the rows "- {kernel: K, layer: L, calls: N, flops: F, time_s: T}" of trec.c
bench_kernel_rows() {
    awk '/^- \{kernel: / || /^  - \{kernel: / {
            line = $0; gsub(/[{}]/, "", line); n = split(line, f, ", ")
            k = ""; l = ""; fl = 0; t = 0
            for (i = 1; i <= n; i++) {
                split(f[i], kv, ": "); key = kv[1]; sub(/^ *-? */, "", key)
                if (key == "kernel") k = kv[2]; else if (key == "layer") l = kv[2]
                else if (key == "flops") fl = kv[2]; else if (key == "time_s") t = kv[2]
            }
            print k, l, fl, t
        }' "$1"
}

bench_cpu_build() { # BUILD PROGRAM...
    local build=$1 p
    shift
    for p in "$@"; do
        if [ ! -x "$build/bin/$p" ]; then
            echo "bench_cpu.sh: $build/bin/$p is missing; building it" >&2
            make --no-print-directory BUILD="$build" "$build/bin/$p" >&2
        fi
    done
    if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
}

bench_cpu_host() {
    echo "  host: $(hostname)"
    echo "  cpu: \"$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)\""
    echo "  online_cpus: $(getconf _NPROCESSORS_ONLN)"
}

bench_cpu_loadavg() { # WARNING
    echo "  loadavg_before: $(cut -d' ' -f1 /proc/loadavg)"
    if awk '{ exit !($1 > 0.5) }' /proc/loadavg; then
        echo "  warning: \"$1\""
    fi
}

bench_cpu_peak() { # BIN THREADS TMP [vector_bits]
    "$1/peak_cpu" --threads "$2" >"$3/peak.txt"
    p1=$(bench_val peak_1thread_flops_per_s "$3/peak.txt")
    pn=$(bench_val peak_flops_per_s "$3/peak.txt")
    echo "peak:"
    echo "  isa: $(bench_val isa "$3/peak.txt")"
    if [ "${4:-}" = vector_bits ]; then echo "  vector_bits: $(bench_val vector_bits "$3/peak.txt")"; fi
    echo "  peak_1thread_flops_per_s: $p1"
    echo "  threads: $2"
    echo "  peak_flops_per_s: $pn"
}

bench_samples_per_s() { awk '/^summary:/ { s = 1 } s && $1 == "samples_per_s:" { print $2; exit }' "$1"; }

bench_cpu_bf16_peak() { # TMP
    local f=$1/peak.txt k v r
    bisa=$(bench_val peak_bf16_isa "$f")
    bisa=${bisa:-none}
    b1=$(bench_val peak_bf16_1thread_flops_per_s "$f")
    bn=$(bench_val peak_bf16_flops_per_s "$f")
    echo "  peak_bf16_isa: $bisa"
    if [ "$bisa" != none ]; then
        # the method's whole line (the words before its parenthesis), then both
        # measurements per thread count and the peak, their larger
        echo "  peak_bf16_method: \"$(awk '$1 == "peak_bf16_method:" { sub(/^[^:]*: */, ""); sub(/ *\(.*/, ""); print; exit }' "$f")\""
        for k in 1thread_ ""; do
            for v in instr matmul; do
                r=$(bench_val "peak_bf16_${v}_${k}flops_per_s" "$f")
                echo "  peak_bf16_${v}_${k}flops_per_s: ${r:-n/a}"
            done
            echo "  peak_bf16_${k}flops_per_s: $(bench_val "peak_bf16_${k}flops_per_s" "$f")"
        done
    fi
}

# {ratio: A/B, target: T, verdict: MET|MISSED, by: ratio - target}
bench_target() { # A B TARGET
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
        if (a == "n/a" || b == "n/a" || a == "" || b == "" || b + 0 <= 0) {
            printf "{ratio: n/a, target: %s, verdict: n/a}\n", t; exit }
        r = a / b
        printf "{ratio: %.3f, target: %s, verdict: %s, by: %+.3f}\n", r, t, (r >= t) ? "MET" : "MISSED", r - t }'
}

bench_cpu_ratios() { # THREADS EXADL_FP32 EXADL_BF16 TORCH_FP32 TORCH_BF16 TORCH_BF16_BEST CONV_FP32 PEAK_FP32 CONV_BF16 PEAK_BF16
    local skip="skipped (peak_bf16_isa: none, this CPU has no bf16)"
    echo "  - threads: $1"
    echo "    samples_per_s: {exadl_fp32: $2, exadl_bf16: $3, torch_fp32: $4, torch_bf16: $5}"
    if [ "$bisa" = none ]; then
        echo "    exadl_bf16_over_torch_bf16: $skip"
        echo "    exadl_bf16_over_exadl_fp32: $skip"
        echo "    bf16_conv_over_bf16_peak: $skip"
    else
        echo "    torch_bf16_best: \"$6\""
        echo "    exadl_bf16_over_torch_bf16: $(bench_target "$3" "$5" 1.2)"
        echo "    exadl_bf16_over_exadl_fp32: $(bench_target "$3" "$2" 3)"
        # the most bf16 can gain where the convolutions are the step: >= 3 needs a
        # matrix unit (AMX), not AVX512-BF16's ~2x
        echo "    peak_bf16_over_peak_fp32: $(awk -v a="${10}" -v b="$8" 'BEGIN { if (a != "" && b + 0 > 0) printf "%.3f", a / b; else print "n/a" }')"
        echo "    bf16_conv_flops_per_s: $9"
        echo "    bf16_conv_over_bf16_peak: $(bench_target "$9" "${10}" 0.50)"
    fi
    echo "    fp32_conv_flops_per_s: $7"
    echo "    fp32_conv_over_fp32_peak: $(bench_target "$7" "$8" 0.80)"
}

bench_gpu_find() { # TMP
    echo "  host: $(hostname)"
    if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >"$1/gpus" 2>&1 || ! grep -q '^GPU ' "$1/gpus"; then
        echo "SKIPPED: no NVIDIA GPU on $(hostname) (nvidia-smi: $(head -n 1 "$1/gpus" 2>/dev/null || echo 'not found')): nothing was measured"
        exit 0
    fi
    echo "  gpus: \"$(grep -c '^GPU ' "$1/gpus") x $(head -n 1 "$1/gpus" | sed 's/^GPU 0: //; s/ (UUID.*//')\""
}

bench_gpu_build() { # BUILD PROGRAM TMP
    local build=$1 prog=$2 tmp=$3
    # shellcheck source=benchmarks/stemdl/tools/gpu_env.sh
    . benchmarks/stemdl/tools/gpu_env.sh || exit 1
    echo "  cuda_home: $CUDA_HOME"
    echo "  cudnn_home: $CUDNN_HOME"
    echo "  nccl_home: $NCCL_HOME"
    if [ -n "${EXADL_DEBS_ROOT:-}" ]; then echo "  unpacked_debs: $EXADL_DEBS_ROOT"; fi
    echo "  build: $build"
    # the program and the CUDA module (build/lib/libexadl_cuda.so, opened at run time)
    make --no-print-directory -j"$(getconf _NPROCESSORS_ONLN)" BUILD="$build" GPU=1 CUDA_HOME="$CUDA_HOME" \
        CUDNN_HOME="$CUDNN_HOME" NCCL_HOME="$NCCL_HOME" "${EXADL_MAKEVARS[@]}" "$build/bin/$prog" \
        "$build/lib/libexadl_cuda.so" >"$tmp/make.log" 2>&1 \
        || { tail -n 30 "$tmp/make.log" >&2; echo "bench_gpu.sh: the build failed" >&2; exit 1; }
}
