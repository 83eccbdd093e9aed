#!/usr/bin/env bash
# bench_gpu.sh: STEMDL on one GPU, ExaDL's CUDA path against the same network
# in PyTorch on the same GPU in the same run; every number measured here,
# nothing hard-coded.
#
#   benchmarks/stemdl/tools/bench_gpu.sh [BUILD_DIR]        (default: build-gpu)
#   env: PRESET (gb2019)  PRECISION (bf16)  BATCH (1)  STEPS (10)  WARMUP (2)
#        PYTHON (python3, the one with PyTorch)   SKIP_TORCH=1
#        CUDA_HOME, CUDNN_HOME, NCCL_HOME, DEBS: see gpu_env.sh, which finds
#          CUDA, cuDNN and NCCL (the nvidia wheels of $PYTHON where they are not
#          under /usr/local/cuda) and unpacks MPI, libyaml, OpenBLAS and oneDNN
#          from Debian packages where missing; docs/stemdl-gpu.md says more
#
# Prints YAML-ish lines:
#   device:  the GPU, its measured dense GEMM peak for the precision (cuBLAS
#            8192^3, in stemdl's record)
#   exadl:   median step time with per-kernel timing off (the headline),
#            samples/s, executed TFLOP/s and their fraction of the measured
#            peak (target >= 0.60)
#   torch:   the same network in PyTorch (autocast, channels_last,
#            cudnn.benchmark, fused Adam): step time, samples/s, TFLOP/s with
#            ExaDL's executed FLOP count
#   ratio:   ExaDL samples/s over PyTorch's (target >= 1.10)
#   kernels: from a second ExaDL run with per-kernel timing on, the time and
#            TFLOP/s of each kernel group and the ten slowest rows
# Without a GPU (nvidia-smi lists none): prints "SKIPPED: ..." and exits 0.
# Where nvidia-smi lists a GPU, any failure (CUDA not starting included) is
# an error: exit status 1.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$(pwd)
build=${1:-build-gpu}
preset=${PRESET:-gb2019}
prec=${PRECISION:-bf16}
batch=${BATCH:-1}
steps=${STEPS:-10}
warmup=${WARMUP:-2}
py=${PYTHON:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-gpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "bench_gpu:"
# shellcheck source=benchmarks/stemdl/tools/bench_lib.sh
. benchmarks/stemdl/tools/bench_lib.sh
bench_gpu_find "$tmp"

# ---- CUDA, cuDNN, NCCL; MPI, libyaml, OpenBLAS, oneDNN (gpu_env.sh); build ------------------
bench_gpu_build "$build" stemdl "$tmp"
S=$build/bin/stemdl

# ---- ExaDL -------------------------------------------------------------------------------
args=(--backend cuda --preset "$preset" --precision "$prec" --batch "$batch" --steps "$steps"
      --warmup "$warmup" --quiet)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "") printf "%.3f", a / b; else print "n/a" }'; }
tflops() { awk -v f="$1" 'BEGIN { if (f != "" && f != "null") printf "%.2f", f / 1e12; else print "n/a" }'; }

# nvidia-smi listed a GPU: stemdl not finding one, or CUDA not starting (a
# driver older than the runtime), is a failure here, never "SKIPPED"
if ! "$S" "${args[@]}" --kernel-timing false --record "$tmp/exadl.yaml" >"$tmp/exadl.out" 2>&1; then
    cat "$tmp/exadl.out" >&2
    echo "bench_gpu.sh: stemdl failed on a machine where nvidia-smi lists a GPU" >&2
    exit 1
fi
"$S" "${args[@]}" --kernel-timing true --record "$tmp/exadl-kernels.yaml" >"$tmp/exadl-k.out" 2>&1 \
    || { cat "$tmp/exadl-k.out" >&2; exit 1; }

rec=$tmp/exadl.yaml
peak=$(bench_val device_peak_flops "$rec")
med=$(bench_val median_s "$rec")
sps=$(bench_val samples_per_s "$rec")
exec_ps=$(bench_val executed_per_sample "$rec")
sust=$(bench_val sustained_flops "$rec")
frac=$(ratio "$sust" "$peak")
echo "device:"
echo "  model: \"$(awk '/^  gpu:/ { g = 1 } g && $1 == "model:" { sub(/^ *model: */, ""); print; exit }' "$rec")\""
echo "  driver: $(awk '/^  gpu:/ { g = 1 } g && $1 == "driver:" { print $2; exit }' "$rec")"
echo "  cudnn: $(awk '$1 == "cudnn:" { print $2; exit }' "$rec")"
echo "  measured_gemm_peak_tflops: $(tflops "$peak")   # $prec, cuBLAS 8192^3, median of 10"
echo "  memory_used_peak_gb: $(awk -v b="$(bench_val memory_used_peak_bytes "$rec")" 'BEGIN { printf "%.2f", b / 1e9 }')"
echo "  network_gb: $(awk -v b="$(bench_val rank0_bytes "$rec")" 'BEGIN { printf "%.2f", b / 1e9 }')"
echo "  cudnn_tune_s: $(bench_val cudnn_tune_s "$rec")"
echo "exadl:"
echo "  preset: $preset"
echo "  precision: $prec"
echo "  batch: $batch"
echo "  step_s_median: $med      # --kernel-timing false, $steps timed steps after $warmup warm-up"
echo "  samples_per_s: $sps"
echo "  executed_flops_per_sample: $exec_ps"
echo "  executed_tflops: $(tflops "$sust")"
echo "  fraction_of_measured_peak: $frac   # target >= 0.60: $(bench_verdict "$frac" 0.60)"

# ---- PyTorch -------------------------------------------------------------------------------
tsps=""
if [ "${SKIP_TORCH:-0}" = 1 ]; then
    echo "torch: skipped (SKIP_TORCH=1)"
else
    set +e
    # the PyTorch peer with its own wheels' libraries, not ours (gpu_env.sh)
    gpu_env_torch "$py" benchmarks/stemdl/tools/stemdl_torch.py --bench --preset "$preset" --precision "$prec" --batch "$batch" \
        --steps "$steps" --warmup "$((warmup + 1))" --flops-per-sample "$exec_ps" >"$tmp/torch.out" 2>&1
    trc=$?
    set -e
    echo "torch:"
    if [ $trc -eq 0 ]; then
        sed 's/^/  /' "$tmp/torch.out" | grep -v 'torch_step_s:'
        tsps=$(bench_val torch_samples_per_s "$tmp/torch.out")
    else
        echo "  failed: \"exit $trc: $(tail -n 1 "$tmp/torch.out")\""
    fi
fi
if [ -n "$tsps" ]; then
    r=$(ratio "$sps" "$tsps")
    echo "ratio:"
    echo "  exadl_over_torch_samples_per_s: $r   # target >= 1.10: $(bench_verdict "$r" 1.10)"
fi

# ---- where the time goes (the run with per-kernel timing) -----------------------------------
krec=$tmp/exadl-kernels.yaml
echo "kernels:"
echo "  step_s_median_with_kernel_timing: $(bench_val median_s "$krec")"
bench_kernel_rows "$krec" | awk -v steps="$steps" '
    $1 != "allreduce" {
        k = $1; l = $2; fl = $3; t = $4
        G[k] += t; GF[k] += fl; T += t
        rows[++nr] = sprintf("%.6f %s %s %.1f", t / steps, k, l, (t > 0 ? fl / t / 1e12 : 0))
    }
    END {
        printf "  groups:   # per step: seconds, share of the kernel time, TFLOP/s\n"
        for (k in G) printf "    - {kernel: %s, s: %.6f, share: %.3f, tflops: %.1f}\n", k, G[k] / steps, G[k] / T, (G[k] > 0 ? GF[k] / G[k] / 1e12 : 0)
        printf "  slowest:  # per step: seconds, kernel, layer, TFLOP/s\n"
        for (i = 1; i <= nr; i++) print rows[i] | "sort -rn | head -n 10 | sed \"s/^/    - /\""
    }'
