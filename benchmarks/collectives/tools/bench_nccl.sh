#!/usr/bin/env bash
# bench_nccl.sh: ExaDL's `collectives --backend nccl --op allreduce` against
# nccl-tests' all_reduce_perf on the same GPU(s), float32 sum, busbw of the
# out-of-place rows side by side with the ratio per size (target: +-5%).
#
#   benchmarks/collectives/tools/bench_nccl.sh [PATH/TO/all_reduce_perf]
#
# nccl-tests is not part of ExaDL: build all_reduce_perf from its public
# source outside this repository (MPI=1 for several ranks) and give its path
# (first argument or ALL_REDUCE_PERF).  Prints SKIPPED without a GPU, without
# the CUDA build, or without all_reduce_perf.
# Environment: EXADL_BIN (build/bin), EXADL_MPIRUN (mpirun), NP (GPUs on this
# node, else 1), MINBYTES (1M), MAXBYTES (1G), ITERS (20), WARMUP (5).
set -u
cd "$(dirname "$0")/../../.."
perf=${1:-${ALL_REDUCE_PERF:-}}
bin=${EXADL_BIN:-build/bin}/collectives
mpirun=${EXADL_MPIRUN:-mpirun}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIPPED: no GPU on $(hostname) (nvidia-smi finds none)"
    exit 0
fi
if [ ! -x "$bin" ]; then echo "bench_nccl: $bin is missing (run make)" >&2; exit 1; fi
gpus=$(nvidia-smi -L | grep -c '^GPU')
np=${NP:-$gpus}
probe=$("$mpirun" -np 1 "$bin" --backend nccl --op allreduce -b 4 -e 4 -n 1 -w 0 2>&1 >/dev/null)
if [ $? -eq 3 ]; then echo "SKIPPED: $probe"; exit 0; fi
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
# both tables: size in column 1; out-of-place busbw in column 8
awk 'NR == FNR { if ($1 ~ /^[0-9]+$/ && NF >= 8) ref[$1] = $8; next }
     $1 ~ /^[0-9]+$/ && ($1 in ref) {
         r = ref[$1] > 0 ? $8 / ref[$1] : 0; ok = (r >= 0.95 && r <= 1.05)
         printf "%12d %14.2f %14.2f %8.3f  %s\n", $1, ref[$1], $8, r, ok ? "yes" : "NO"
         n++; good += ok }
     BEGIN { printf "%12s %14s %14s %8s  %s\n", "size(B)", "nccl_busbw", "exadl_busbw", "ratio", "within 5%" }
     END { printf "# %d of %d sizes within +-5%%\n", good, n }' "$tmp/perf" "$tmp/exadl"
