#!/usr/bin/env bash
# The report keeps measured and simulated points apart (docs/simulate.md "In
# the report"): a hand-written run folder with a measured and a simulated
# launch of one training benchmark (skeleton, scales 2 and 4) and a simulated
# orchestration launch.  exadl analyze (runs nothing) writes a report whose
# Simulation section lists the simulated launches with their platform's base
# name, simulated time, wall and peak memory, the measured launch beside them
# marked "measured", and says the benchmark has both; the analysis keeps the
# two apart (the simulated launch is the benchmark "skeleton (simulated)");
# the launches table and the training table mark simulated points; a platform name with Markdown in
# it arrives as text; a run with no simulated record has no such section; a
# bad simulation block is one error naming the record's line.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
T=$tmp/harness_simulated
rm -rf "$T"
fails=0
pass() { echo "PASS: harness_simulated: $*"; }
fail() { echo "FAIL: harness_simulated: $*"; fails=$((fails + 1)); }

skel() { # file ranks step_s [simulation block]
    cat >"$1" <<Y
exadl_record: 1
benchmark: skeleton
status: ok
ranks: $2
gpus: 0
config: {preset: tiny, steps: 3}
timing:
  step_s: [$3, $3, $3]
  samples_per_step: 8
validation: []
Y
    [ $# -ge 4 ] && printf '%s\n' "$4" >>"$1"
}
simblock() { # ranks platform wall [peak]
    printf "simulation:\n  simulated: true\n  simulator: 'SimGrid version 3.32'\n  platform: '%s'\n" "$2"
    printf "  hostfile: '/x/summit.hosts'\n  ranks: %s\n  collectives: 'allreduce:rdb'\n" "$1"
    printf "  simulate_computation: 'no'\n  shared_malloc_bytes: 0\n  wall_s: %s\n" "$3"
    [ $# -ge 4 ] && printf '  peak_memory_bytes: %s\n' "$4"
}

R=$T/run
mkdir -p "$R/records"
cat >"$R/suite.yaml" <<'Y'
exadl_suite: 1
name: simrep
scales: [2, 4]
repetitions: 1
benchmarks:
  - {name: skeleton, program: skeleton, config: {preset: tiny, steps: 3}}
  - {name: orchestration, program: orchestration, scales: [4], config: {steps: 2}}
Y
skel "$R/records/skeleton-n2-r1.yaml" 2 0.25
skel "$R/records/skeleton-n4-r1.yaml" 4 0.125 "$(simblock 4 '/x/plat|`rm`*x*.xml' 106.267 115712000)"
cat >"$R/records/orchestration-n4-r1.yaml" <<Y
exadl_record: 1
benchmark: orchestration
status: ok
ranks: 4
results:
  - {mode: coordinator, grouping: layer, ranks: 4, tensors: 27, cycles: 27, requests: 108, median_s: 710.5e-6}
  - {mode: cache, grouping: layer, ranks: 4, tensors: 27, cycles: 27, requests: 0, median_s: 350.3e-6}
validation: []
$(simblock 4 /x/summit-flat.xml 3.5)
Y
"$exadl" analyze "$R" >"$T/analyze.out" 2>&1
rep=$R/report.md
if [ ! -f "$rep" ]; then
    fail "exadl analyze wrote no report: $(tail -n 5 "$T/analyze.out")"
    exit 1
fi
sec=$(sed -n '/^## Simulation/,/^## /p' "$rep")
grep -q '^## Simulation' <<<"$sec" && grep -q '2 launches of this run were \*\*simulated\*\*' <<<"$sec" &&
    grep -q "SimGrid's seconds\|simulator's seconds on the named platform" <<<"$sec" &&
    pass "the Simulation section says 2 launches were simulated, in simulated seconds" ||
    fail "Simulation section: $sec"
grep -qE '^\| skeleton \(simulated\) \| skeleton-n4-r1 \| simulated \| 4 \| .*xml \| median step 125 ms \(3 steps\) \| 106\.3 s \| 116 MB \|$' <<<"$sec" &&
    grep -qE '^\| orchestration \| orchestration-n4-r1 \| simulated \| 4 \| summit-flat\.xml \| per step: coordinator 710\.5 us, cache 350\.3 us \| 3\.5 s \| - \|$' <<<"$sec" &&
    pass "simulated rows: ranks, platform base name, simulated time per kind, wall, peak memory (absent: -)" ||
    fail "simulated rows: $(grep '| simulated |' <<<"$sec")"
grep -qE '^\| skeleton \| skeleton-n2-r1 \| measured \| 2 \| - \(measured\) \| median step 250 ms' <<<"$sec" &&
    grep -q 'both measured and simulated launches' <<<"$sec" &&
    ! grep -q '| orchestration .* measured |' <<<"$sec" &&
    pass "the measured launch of the same benchmark beside the simulated one, marked measured, and said" ||
    fail "measured beside simulated: $sec"
row=$(grep '| skeleton-n4-r1 | simulated |' <<<"$sec")
! grep -q '[`*]' <<<"$row" && ! grep -q 'plat|' <<<"$row" &&
    pass "an untrusted platform name arrives as plain text in one cell" || fail "platform cell: $row"
grep -qE '^\| skeleton-n4-r1 \(simulated\) \| ok \|' "$rep" && grep -qE '^\| skeleton-n2-r1 \| ok \|' "$rep" &&
    grep -qE '^\| orchestration-n4-r1 \(simulated\) \| ok \|' "$rep" &&
    pass "launches table marks simulated launches, not measured ones" ||
    fail "launches table: $(grep -E '^\| (skeleton|orchestration)-n' "$rep")"
meas=$(sed -n '/^## skeleton (skeleton/,/^## /p' "$rep")
simt=$(sed -n '/^## skeleton (simulated) (skeleton/,/^## /p' "$rep")
grep -qE '^\| 2 \| 2 \| 1/1 \|' <<<"$meas" && ! grep -qE '^\| 4' <<<"$meas" &&
    grep -qE '^\| 4 \(simulated\) \| 4 \| 1/1 \| 3 \| 0\.125 s' <<<"$simt" && ! grep -qE '^\| 2 ' <<<"$simt" &&
    grep -q 'benchmark: skeleton (simulated)' "$R/results.yaml" &&
    grep -q 'Headline: skeleton at 2 ranks: .*; skeleton (simulated) at 4 ranks: ' "$rep" &&
    pass "kept apart: the measured benchmark's tables hold scale 2 only, 'skeleton (simulated)' scale 4 (marked), in report and results.yaml" ||
    fail "kept apart: $(grep -nE '^## skeleton|^\| [24]( |\()|^Headline' "$rep")"

# a measured-only run: no Simulation section, no mark
M=$T/meas
mkdir -p "$M/records"
sed '/orchestration/d' "$R/suite.yaml" >"$M/suite.yaml"
skel "$M/records/skeleton-n2-r1.yaml" 2 0.25
skel "$M/records/skeleton-n4-r1.yaml" 4 0.125
"$exadl" analyze "$M" >"$T/meas.out" 2>&1
[ -f "$M/report.md" ] && ! grep -q '^## Simulation\|(simulated)' "$M/report.md" &&
    pass "a measured run has no Simulation section and no mark" ||
    fail "measured run: $(grep -n 'Simulation\|simulated' "$M/report.md" 2>/dev/null | head -3) $(tail -n 2 "$T/meas.out")"

# a bad block: one error naming the record's file and line
B=$T/bad
mkdir -p "$B/records"
cp "$M/suite.yaml" "$B/suite.yaml"
skel "$B/records/skeleton-n2-r1.yaml" 2 0.25 "$(simblock 2 /x/p.xml -4)"
"$exadl" analyze "$B" >"$T/bad.out" 2>&1
grep -q 'skeleton-n2-r1.yaml:20:11: simulation: wall_s must be a time >= 0 s, not -4' "$T/bad.out" "$B/report.md" 2>/dev/null &&
    pass "a negative simulation wall time is an error naming the record's line" ||
    fail "bad block: $(grep -rh 'wall_s' "$T/bad.out" "$B/report.md" 2>/dev/null | head -3)"
[ $fails -eq 0 ]
