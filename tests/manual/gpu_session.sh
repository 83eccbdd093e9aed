#!/usr/bin/env bash
# gpu_session.sh PHASE...: issue 10's measurement list (docs/stemdl-gpu.md,
# "Left to measure on a GPU") on a lent GPU machine, one phase per call of the
# device tool, each well inside its 10-minute limit on 16 cores.  Device time
# is short (30-45 minutes a session) and nothing can be installed there, so
# the order and every command are fixed here rather than typed at the time.
#
#   here, first:  benchmarks/stemdl/tools/gpu_debs.sh .debs
#                 copy nccl-tests' public source to .device/nccl-tests
#   there:        tests/manual/gpu_session.sh build      (carry .debs, .device)
#                 tests/manual/gpu_session.sh tests
#                 tests/manual/gpu_session.sh stemdl     (bf16, tf32, fp16)
#                 tests/manual/gpu_session.sh cosmoflow
#                 tests/manual/gpu_session.sh nccl
#                 tests/manual/gpu_session.sh suite      (GPU and CPU default suites)
#
# Each phase writes PHASE.log (everything) into $OUT (the device tool's
# folder that comes back; else results/gpu-session) and prints a short
# summary; machine.txt names the GPU, driver and library versions every
# number must be quoted with.  A phase that fails exits non-zero and says
# which command failed; later phases still run when named.
# Environment: DEBS (.debs), NCCL_TESTS (.device/nccl-tests), BUILD
# (build-gpu), JOBS (nproc), PRECISIONS (bf16 tf32 fp16).
set -u
cd "$(dirname "$0")/../.."
root=$PWD
out=${OUT:-$root/results/gpu-session}
build=${BUILD:-build-gpu}
jobs=${JOBS:-$(nproc)}

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
[ $# -gt 0 ] || { usage >&2; exit 2; }
case "$1" in -h|--help) usage; exit 0 ;; esac
for phase in "$@"; do
    case "$phase" in
        build|tests|stemdl|cosmoflow|nccl|suite) ;;
        *) echo "gpu_session.sh: unknown phase '$phase' (build, tests, stemdl, cosmoflow, nccl, suite)" >&2; exit 2 ;;
    esac
done

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "SKIPPED: no GPU on $(hostname) (nvidia-smi finds none): gpu_session.sh is for a GPU machine"
    exit 0
fi
mkdir -p "$out" || exit 1
export DEBS=${DEBS:-$root/.debs}
[ -d "$DEBS" ] || { echo "gpu_session.sh: $DEBS is missing (benchmarks/stemdl/tools/gpu_debs.sh .debs here, then carry it)" >&2; exit 2; }
DEBS=$(cd "$DEBS" && pwd)
# shellcheck source=benchmarks/stemdl/tools/gpu_env.sh
. benchmarks/stemdl/tools/gpu_env.sh || exit 1
makevars=(BUILD="$build" GPU=1 CUDA_HOME="$CUDA_HOME" CUDNN_HOME="$CUDNN_HOME" NCCL_HOME="$NCCL_HOME" "${EXADL_MAKEVARS[@]}")
nccl_tests=${NCCL_TESTS:-$root/.device/nccl-tests}
failed=0

step() { # NAME CMD...: run CMD, its output into the phase log, its status said
    local name=$1; shift
    echo "== $name: $*" | tee -a "$log"
    local t0=$SECONDS
    "$@" >>"$log" 2>&1
    local rc=$?
    echo "== $name: exit $rc after $((SECONDS - t0)) s" | tee -a "$log"
    [ $rc -eq 0 ] || failed=1
    return $rc
}

machine() {
    {
        echo "host: $(hostname)"
        nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm --format=csv
        "$CUDA_HOME/bin/nvcc" --version | tail -n 2
        echo "CUDNN_HOME=$CUDNN_HOME"; echo "NCCL_HOME=$NCCL_HOME"
        grep -h -E '#define (CUDNN_MAJOR|CUDNN_MINOR|CUDNN_PATCHLEVEL) ' "$CUDNN_HOME"/include/cudnn_version*.h 2>/dev/null | awk '!seen[$0]++'
        grep -h -E '#define (NCCL_MAJOR|NCCL_MINOR|NCCL_PATCH) ' "$NCCL_HOME/include/nccl.h" 2>/dev/null
        lscpu | grep -E '^(Model name|CPU\(s\)):'
    } >"$out/machine.txt" 2>&1
}

phase_build() {
    step make make -j"$jobs" "${makevars[@]}" all
    step info make "${makevars[@]}" info
    if [ -d "$nccl_tests" ]; then
        # one architecture, the GPU's own: the default list takes minutes
        local cc
        cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
        step nccl-tests make -C "$nccl_tests" -j"$jobs" CUDA_HOME="$CUDA_HOME" NCCL_HOME="$NCCL_HOME" \
            NVCC_GENCODE="-gencode=arch=compute_$cc,code=sm_$cc"
    else
        echo "== nccl-tests: $nccl_tests is missing (the nccl phase will say SKIPPED)" | tee -a "$log"
    fi
}

phase_tests() {
    step test_train_cuda "$build/tests/test_train_cuda"
    step test_cosmo_cuda "$build/tests/test_cosmo_cuda"
    step test_climate_cuda "$build/tests/test_climate_cuda"
    step all-tests tests/run.sh "$build"
    # on a GPU machine a GPU test that says SKIP is a defect (issue 10)
    grep -E '^SKIP' "$log" | grep -i -E 'gpu|cuda|nccl' | sort | uniq -c | tee -a "$log"
    grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1
}

phase_stemdl() {
    local p
    for p in ${PRECISIONS:-bf16 tf32 fp16}; do
        PRECISION=$p step "stemdl-$p" benchmarks/stemdl/tools/bench_gpu.sh "$build"
    done
    grep -E 'fraction_of_measured_peak|exadl_over_torch|executed_tflops' "$log"
}

phase_cosmoflow() {
    step cosmoflow benchmarks/cosmoflow/tools/bench_gpu.sh "$build"
    grep -E '^summary|fraction_of_measured_peak|exadl_over_torch' "$log"
}

phase_nccl() {
    step nccl env EXADL_BIN="$build/bin" benchmarks/collectives/tools/bench_nccl.sh "$nccl_tests/build/all_reduce_perf"
    grep -E 'within|SKIPPED' "$log"
}

phase_suite() {
    step gpu-suite "$build/bin/exadl" run --out "$out/runs"
    "$build/bin/exadl" suite --cpu >"$out/cpu-suite.yaml"
    step cpu-suite "$build/bin/exadl" run "$out/cpu-suite.yaml" --out "$out/runs"
    grep -E '^(benchmark|stemdl|cosmoflow|collectives|report:)' "$log"
}

machine
for phase in "$@"; do
    log=$out/$phase.log
    : >"$log"
    "phase_$phase"
done
exit $failed
