#!/usr/bin/env bash
# bench_nccl.sh: ExaDL's `collectives --backend nccl --op allreduce` against
# nccl-tests' all_reduce_perf on the same GPU(s), float32 sum, busbw of the
# out-of-place rows side by side with the ratio per size (target: +-5%); on
# one GPU (busbw is 0 there) algbw.
#
#   benchmarks/collectives/tools/bench_nccl.sh [PATH/TO/all_reduce_perf]
#
# nccl-tests is not part of ExaDL: build all_reduce_perf from its public
# source outside this repository (MPI=1 for several ranks) and give its path
# (first argument or ALL_REDUCE_PERF).  Prints SKIPPED without a GPU (nvidia-smi
# lists none) or without all_reduce_perf; where there is a GPU, a build
# without the CUDA path or a collectives that cannot use the GPU is an error.
# Environment: EXADL_BIN (build/bin), EXADL_MPIRUN (mpirun), NP (GPUs on this
# node, else 1), MINBYTES (1M), MAXBYTES (1G), ITERS (20), WARMUP (5).
set -u
cd "$(dirname "$0")/../../.."
perf=${1:-${ALL_REDUCE_PERF:-}}
bin=${EXADL_BIN:-build/bin}/collectives
mpirun=${EXADL_MPIRUN:-mpirun}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "SKIPPED: no GPU on $(hostname) (nvidia-smi finds none)"
    exit 0
fi
if [ ! -x "$bin" ]; then echo "bench_nccl: $bin is missing (run make)" >&2; exit 1; fi
mod=$(dirname "$bin")/../lib/libexadl_coll_gpu.so
if [ ! -f "$mod" ]; then
    echo "bench_nccl: $mod is missing: this build has no CUDA path (make GPU=1 CUDA_HOME=... NCCL_HOME=...)" >&2
    exit 1
fi
gpus=$(nvidia-smi -L | grep -c '^GPU')
np=${NP:-$gpus}
# nvidia-smi lists GPUs: a collectives that cannot use them is a failure here
probe=$("$mpirun" -np 1 "$bin" --backend nccl --op allreduce -b 4 -e 4 -n 1 -w 0 2>&1 >/dev/null)
if [ $? -ne 0 ]; then echo "bench_nccl: collectives --backend nccl cannot run here: $probe" >&2; exit 1; fi
if [ -z "$perf" ] || [ ! -x "$perf" ]; then
    echo "SKIPPED: no all_reduce_perf given (pass its path as the first argument or set ALL_REDUCE_PERF)"
    exit 0
fi
lo=${MINBYTES:-1M} hi=${MAXBYTES:-1G} iters=${ITERS:-20} warm=${WARMUP:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-nccl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "# bench_nccl: $np rank(s), one GPU each, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
echo "# nccl-tests: $mpirun -np $np $perf -b $lo -e $hi -f 2 -d float -o sum -g 1 -n $iters -w $warm"
echo "# exadl:      $mpirun -np $np $bin --backend nccl --op allreduce -b $lo -e $hi -f 2 -n $iters -w $warm --inplace no"
"$mpirun" -np "$np" "$perf" -b "$lo" -e "$hi" -f 2 -d float -o sum -g 1 -n "$iters" -w "$warm" >"$tmp/perf" 2>&1 ||
    { echo "bench_nccl: all_reduce_perf failed" >&2; tail -n 5 "$tmp/perf" >&2; exit 1; }
"$mpirun" -np "$np" "$bin" --backend nccl --op allreduce -b "$lo" -e "$hi" -f 2 -n "$iters" -w "$warm" \
    --inplace no >"$tmp/exadl" 2>&1 ||
    { echo "bench_nccl: collectives failed" >&2; tail -n 5 "$tmp/exadl" >&2; exit 1; }
# both tables: size in column 1; out-of-place algbw in column 7, busbw in 8.
# On one rank allreduce's busbw factor 2(n-1)/n is 0 in both tools: compare
# algbw (the same quantity in both: size / time) instead.
col=8 what=busbw
[ "$np" -eq 1 ] && col=7 what=algbw
awk -v c="$col" -v what="$what" '
     NR == FNR { if ($1 ~ /^[0-9]+$/ && NF >= 8) ref[$1] = $c; next }
     $1 ~ /^[0-9]+$/ && ($1 in ref) {
         r = ref[$1] > 0 ? $c / ref[$1] : 0; ok = (r >= 0.95 && r <= 1.05)
         printf "%12d %14.2f %14.2f %8.3f  %s\n", $1, ref[$1], $c, r, ok ? "yes" : "NO"
         n++; good += ok }
     BEGIN { printf "%12s %14s %14s %8s  %s\n", "size(B)", "nccl_" what, "exadl_" what, "ratio", "within 5%" }
     END { printf "# %d of %d sizes within +-5%%\n", good, n }' "$tmp/perf" "$tmp/exadl"
