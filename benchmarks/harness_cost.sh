#!/usr/bin/env bash
# The harness's own cost beyond the benchmarks' run time (issue 3): launch,
# parsing, analysis, plots, report.  Targets: under 1 s per launch and under
# 3 s for the report.
#
#   benchmarks/harness_cost.sh [BUILD_DIR]      (default: build)
#
# A stand-in benchmark that only copies a real result record into place (a
# STEMDL record of the tiny preset, ~90 counted-kernel rows, and a collectives
# record of every operation, thousands of samples) runs 3 scales x 8
# repetitions + 3 collectives launches through a launcher template, so the
# launches are pure harness overhead.  exadl measures its phases itself
# (results.yaml: harness_cost); this script prints them next to the
# wall-clock time it sees from outside.
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
exadl=$PWD/$build/bin/exadl
[ -x "$exadl" ] || { echo "harness_cost: $exadl is not built (make first)"; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

# real records to copy (fall back to the hand-written fixtures)
stemdl_rec=$tmp/stemdl.yaml coll_rec=$tmp/coll.yaml
"$build/bin/stemdl" --preset tiny --steps 20 --warmup 1 --threads 1 --record "$stemdl_rec" \
    >/dev/null 2>&1 || cp tests/fixtures/harness/stemdl-n1-r1.yaml "$stemdl_rec"
"$build/bin/collectives" --op all -b 8 -e 1M -f 4 --record "$coll_rec" >/dev/null 2>&1 ||
    cp tests/fixtures/harness/coll-n2.yaml "$coll_rec"
cat >"$tmp/standin.sh" <<'EOF'
#!/bin/sh
# copies $SRC to the --record path, with the ranks the launcher asked for
while [ $# -gt 1 ]; do [ "$1" = --record ] && rec=$2; shift; done
sed "s/^ranks: .*/ranks: ${FAKE_RANKS:-1}/" "$SRC" >"$rec.tmp.$$" && mv "$rec.tmp.$$" "$rec"
EOF
chmod +x "$tmp/standin.sh"
cat >"$tmp/cost.yaml" <<EOF
name: harness-cost
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1, 2, 4]
device_peak_flops: 1.0e10
references: [$PWD/reference/summit-2019.yaml]
benchmarks:
  - name: stemdl
    program: $tmp/standin.sh
    repetitions: 8
    env: {SRC: $stemdl_rec}
  - name: coll
    program: $tmp/standin.sh
    repetitions: 1
    env: {SRC: $coll_rec}
EOF
t0=$(date +%s.%N)
"$exadl" run "$tmp/cost.yaml" --out "$tmp/res" >"$tmp/out.txt" 2>&1
rc=$?
t1=$(date +%s.%N)
run=$(ls -d "$tmp"/res/*-harness-cost 2>/dev/null | head -1)
if [ -z "$run" ] || [ ! -f "$run/results.yaml" ]; then
    cat "$tmp/out.txt"
    echo "harness_cost: the run failed (exit $rc)"
    exit 1
fi
get() { awk -v k="$1:" '$1 == k { print $2; exit }' "$run/results.yaml"; }
n=$(get launches)
awk -v n="$n" -v wall="$(get wall_s)" -v ls="$(get launches_s)" -v ov="$(get overhead_per_launch_s)" \
    -v an="$(get analysis_s)" -v pl="$(get plots_s)" -v rp="$(get report_s)" -v outer="$t0 $t1" \
    -v ssize="$(wc -c <"$stemdl_rec")" -v csize="$(wc -c <"$coll_rec")" 'BEGIN {
    split(outer, o, " ")
    printf "exadl harness cost (%d launches of a stand-in that copies a record: stemdl %d B, collectives %d B)\n", n, ssize, csize
    printf "  wall clock, seen from outside      %8.3f s\n", o[2] - o[1]
    printf "  wall clock, as exadl measured it   %8.3f s\n", wall
    printf "  stand-in processes (fork to reap)  %8.3f s  (%.1f ms per launch: process start + copy)\n", ls, 1000 * ls / n
    printf "  per launch beyond the process      %8.4f s  (log, record parse, progress line)\n", ov
    printf "  per launch in all                  %8.4f s  target < 1 s: %s\n", ov + ls / n, (ov + ls / n < 1) ? "met" : "MISSED"
    printf "  report: analysis + checks          %8.3f s\n", an
    printf "          plots (gnuplot)            %8.3f s\n", pl
    printf "          report.md                  %8.3f s\n", rp
    printf "          in all                     %8.3f s  target < 3 s: %s\n", an + pl + rp, (an + pl + rp < 3) ? "met" : "MISSED"
}'
