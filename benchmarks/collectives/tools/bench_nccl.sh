#!/usr/bin/env bash
# bench_nccl.sh: ExaDL's `collectives --backend nccl --op allreduce` against
# nccl-tests' all_reduce_perf on the same GPU(s), float32 sum, busbw of the
# out-of-place rows side by side with the ratio per size (target: +-5%); on
# one GPU (busbw is 0 there) algbw.
#
#   benchmarks/collectives/tools/bench_nccl.sh [--print-commands] [PEER]
#
# PEER (or ALL_REDUCE_PERF): nccl-tests' all_reduce_perf, or nccl-tests'
# source folder, which is then built first with nccl_tests_build.sh (that
# links a Python wheel's libnccl.so.2, which nccl-tests' own `-lnccl` cannot).
# nccl-tests is not part of ExaDL: its public source lives outside this
# repository.
# Without a GPU (nvidia-smi -L lists none): prints SKIPPED, exit 0.  Where a
# GPU is listed: a PEER given but missing (or failing to build), a build
# without the CUDA path, or a collectives that cannot use the GPU is an error
# (exit 2 for the missing peer, else 1), one line saying what to fix; no PEER
# given at all prints SKIPPED and exits 0 (nothing was compared: say so).
# Both tools time alike: ITERS back-to-back calls between two stream syncs
# after WARMUP calls (nccl-tests' -n, -w; ExaDL's --batch ITERS), ExaDL in
# BATCHES such batches (its median is shown).  --print-commands prints the
# two command lines and exits (no GPU needed).
# Environment: EXADL_BIN (build/bin), EXADL_MPIRUN (mpirun), NP (GPUs on this
# node, else 1), MINBYTES (1M), MAXBYTES (1G), ITERS (20), WARMUP (5),
# BATCHES (5), NCCL_HOME (its lib goes on LD_LIBRARY_PATH), EXADL_NVIDIA_SMI
# (the nvidia-smi to ask; tests give a fake one).
set -u
print_only=0
if [ "${1:-}" = --print-commands ]; then print_only=1; shift; fi
case "${1:-}" in -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
perf=${1:-${ALL_REDUCE_PERF:-}}
# the peer as given, from where the script was started (it then works from the root)
case $perf in "" | /*) ;; *) perf=$PWD/$perf ;; esac
cd "$(dirname "$0")/../../.."
bin=${EXADL_BIN:-build/bin}/collectives
mpirun=${EXADL_MPIRUN:-mpirun}
smi=${EXADL_NVIDIA_SMI:-nvidia-smi}
lo=${MINBYTES:-1M} hi=${MAXBYTES:-1G} iters=${ITERS:-20} warm=${WARMUP:-5} batches=${BATCHES:-5}
for v in "ITERS=$iters" "WARMUP=$warm" "BATCHES=$batches"; do
    [[ "${v#*=}" =~ ^[0-9]+$ ]] || { echo "bench_nccl: $v is not a count" >&2; exit 2; }
done
[ "$iters" -ge 1 ] && [ "$batches" -ge 1 ] || { echo "bench_nccl: ITERS and BATCHES must be at least 1" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
gpus=$("$smi" -L 2>/dev/null | grep -c '^GPU ')
np=${NP:-$gpus}
[ "$np" -ge 1 ] 2>/dev/null || np=1
perf_cmd=("$mpirun" -np "$np" "${perf:-all_reduce_perf}" -b "$lo" -e "$hi" -f 2 -d float -o sum -g 1 -n "$iters" -w "$warm")
# nccl-tests' method: -n calls back to back between two syncs after -w calls;
# ExaDL: the same batch (--batch), BATCHES of them
exadl_cmd=("$mpirun" -np "$np" "$bin" --backend nccl --op allreduce -b "$lo" -e "$hi" -f 2
           -n $((iters * batches)) --batch "$iters" -w "$warm" --inplace no)
if [ $print_only = 1 ]; then
    echo "nccl-tests: ${perf_cmd[*]}"
    echo "exadl:      ${exadl_cmd[*]}"
    exit 0
fi
if [ "$gpus" -lt 1 ]; then
    echo "SKIPPED: no GPU on $(hostname) ($smi -L lists none)"
    exit 0
fi
# a GPU is listed from here on: whatever cannot run is an error
if [ -n "$perf" ] && [ -d "$perf" ]; then
    # its stdout is the program's path alone (what it did goes to stderr)
    built=$(benchmarks/collectives/tools/nccl_tests_build.sh "$perf") && [ -n "$built" ] ||
        { echo "bench_nccl: nccl-tests in $perf did not build (above); fix that, or give all_reduce_perf's path" >&2; exit 2; }
    perf=$built
    perf_cmd[3]=$perf
fi
if [ -n "$perf" ] && [ ! -x "$perf" ]; then
    echo "bench_nccl: all_reduce_perf '$perf' is missing or not executable, on a machine with $gpus GPU(s): build it (benchmarks/collectives/tools/nccl_tests_build.sh NCCL_TESTS_SRC) or give nccl-tests' source folder" >&2
    exit 2
fi
if [ ! -x "$bin" ]; then echo "bench_nccl: $bin is missing (run make)" >&2; exit 1; fi
mod=$(dirname "$bin")/../lib/libexadl_coll_gpu.so
if [ ! -f "$mod" ]; then
    echo "bench_nccl: $mod is missing: this build has no CUDA path (make GPU=1 CUDA_HOME=... NCCL_HOME=...)" >&2
    exit 1
fi
[ -n "${NCCL_HOME:-}" ] && export LD_LIBRARY_PATH="$NCCL_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# nvidia-smi lists GPUs: a collectives that cannot use them is a failure here
probe=$("$mpirun" -np 1 "$bin" --backend nccl --op allreduce -b 4 -e 4 -n 1 -w 0 2>&1 >/dev/null)
if [ $? -ne 0 ]; then echo "bench_nccl: collectives --backend nccl cannot run here: $probe" >&2; exit 1; fi
if [ -z "$perf" ]; then
    echo "SKIPPED: no all_reduce_perf given: nothing compared (pass its path or nccl-tests' source folder as the first argument, or set ALL_REDUCE_PERF)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-nccl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "# bench_nccl: $np rank(s), one GPU each, $("$smi" --query-gpu=name --format=csv,noheader | head -n 1)"
echo "# nccl-tests: ${perf_cmd[*]}"
echo "# exadl:      ${exadl_cmd[*]}"
"${perf_cmd[@]}" >"$tmp/perf" 2>&1 ||
    { echo "bench_nccl: all_reduce_perf failed" >&2; tail -n 5 "$tmp/perf" >&2; exit 1; }
"${exadl_cmd[@]}" >"$tmp/exadl" 2>&1 ||
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
