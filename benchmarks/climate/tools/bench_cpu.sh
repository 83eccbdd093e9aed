#!/usr/bin/env bash
# bench_cpu.sh: the climate network on the CPU against its PyTorch peer, every
# number measured in this run, side by side (nothing hard-coded; a ratio, not
# a test).
#
#   benchmarks/climate/tools/bench_cpu.sh [BUILD_DIR]        (default: build)
#   env: PRESET (default small), HEIGHT and WIDTH (default: the preset's),
#        BATCH (default: the preset's), STEPS (timed steps, default 5),
#        WARMUP (2), THREADS (the all-cores runs, default: online CPUs),
#        PYTHON (default /usr/bin/python3, Debian's python3-torch)
#
# Prints YAML-ish lines: the host and its load average before and after;
# the parameter counts of both (equal, or the script says DIFFERENT); per
# thread count (1 and THREADS): climate's samples/s (`--kernels fast`, its
# record's median step), PyTorch's (climate_torch.py: Adam, the same
# weighted cross-entropy, batch norm in train mode, the faster of the
# default and channels_last layouts), the ratio and issue 33's target
# (>= 1.0x at 1 thread, >= 1.3x at all threads), met or MISSED.
# Run it on an otherwise idle machine; on a shared one the numbers are not
# the code's.
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build}
bin=$build/bin
preset=${PRESET:-small}
steps=${STEPS:-5}
warmup=${WARMUP:-2}
nthreads=${THREADS:-$(getconf _NPROCESSORS_ONLN)}
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-climate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=benchmarks/stemdl/tools/bench_lib.sh
. benchmarks/stemdl/tools/bench_lib.sh
bench_cpu_build "$build" climate

sizes=()
[ -n "${HEIGHT:-}" ] && sizes+=(--height "$HEIGHT")
[ -n "${WIDTH:-}" ] && sizes+=(--width "$WIDTH")
[ -n "${BATCH:-}" ] && sizes+=(--batch "$BATCH")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "n/a") printf "%.3f", a / b; else print "n/a" }'; }

echo "bench_cpu:"
bench_cpu_host
echo "  preset: $preset"
echo "  sizes: \"${sizes[*]:-as the preset}\""
bench_cpu_loadavg "the machine is not idle; the numbers are unreliable"
if ! "$py" -c 'import torch' 2>/dev/null; then
    echo "  skipped: \"$py cannot import torch (apt-get install python3-torch)\""
    exit 0
fi
"$py" benchmarks/climate/tools/climate_torch.py --preset "$preset" "${sizes[@]}" --count \
    --climate "$bin/climate" >"$tmp/count.txt" || true
echo "  torch_parameters: $(bench_val torch_parameters "$tmp/count.txt")"
echo "  climate_parameters: $(bench_val climate_parameters "$tmp/count.txt")"
echo "  counts: $(bench_val counts "$tmp/count.txt")"
ths=(1)
[ "$nthreads" != 1 ] && ths+=("$nthreads")
echo "runs:"
for t in "${ths[@]}"; do
    "$bin/climate" --preset "$preset" "${sizes[@]}" --kernels fast --threads "$t" --steps "$steps" \
        --warmup "$warmup" --quiet --record "$tmp/c$t.yaml" >"$tmp/c$t.log" 2>&1 ||
        { echo "bench_cpu.sh: climate failed:" >&2; tail -n 5 "$tmp/c$t.log" >&2; exit 1; }
    "$py" benchmarks/climate/tools/climate_torch.py --preset "$preset" "${sizes[@]}" --bench \
        --threads "$t" --steps "$steps" --warmup "$warmup" >"$tmp/t$t.txt"
    cx=$(bench_samples_per_s "$tmp/c$t.yaml")
    tx=$(bench_val samples_per_s "$tmp/t$t.txt")
    r=$(ratio "$cx" "$tx")
    target=1.0
    [ "$t" != 1 ] && target=1.3
    echo "  - threads: $t"
    echo "    climate_samples_per_s: $cx"
    echo "    climate_median_step_s: $(bench_median_s "$tmp/c$t.yaml")"
    echo "    torch: $(bench_val torch "$tmp/t$t.txt")"
    echo "    torch_contiguous_median_s: $(bench_val contiguous_median_s "$tmp/t$t.txt")"
    echo "    torch_channels_last_median_s: $(bench_val channels_last_median_s "$tmp/t$t.txt")"
    echo "    torch_samples_per_s: $tx   # the faster layout"
    echo "    climate_over_torch: $r"
    echo "    target_${target}x: $(bench_verdict "$r" "$target")"
done
echo "  loadavg_after: $(cut -d' ' -f1 /proc/loadavg)"
