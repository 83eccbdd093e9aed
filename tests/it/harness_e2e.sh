#!/usr/bin/env bash
# End to end: `exadl run` of a tiny STEMDL suite over 1 and 2 MPI ranks through
# mpirun, with the real stemdl: report.md, results.yaml, PNG plots, the exact
# FLOP-count checks (via stemdl --describe) passing, `exadl check` exit 0.
set -u
exadl=${EXADL_BIN:?}/exadl
stemdl=$EXADL_BIN/stemdl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_e2e: $1"; }
fail() { echo "FAIL: harness_e2e: $1"; fails=$((fails + 1)); }
is_png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; }

if [ -z "$("$stemdl" --help 2>&1 | head -c 100)" ]; then
    echo "SKIP: harness_e2e: $stemdl --help prints nothing (not built yet: still the placeholder?)"
    exit 77
fi
command -v "${EXADL_MPIRUN:-mpirun}" >/dev/null || { echo "SKIP: harness_e2e: no mpirun"; exit 77; }

root_env=
if [ "$(id -u)" = 0 ]; then
    root_env='  OMPI_ALLOW_RUN_AS_ROOT: "1"          # the tests run as root in CI
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: "1"'
fi
# this test checks exadl (itself leak-checked in the sanitizer build); the
# benchmark's own leak check is the stemdl tests' job: off for the launches,
# the runner's other ASan settings kept (later options win)
asan_env=
[ -n "${ASAN_OPTIONS:-}" ] && asan_env="  ASAN_OPTIONS: \"$ASAN_OPTIONS:detect_leaks=0\""
cat >"$tmp/e2e.yaml" <<EOF
name: e2e
description: STEMDL tiny, weak scaling over 1 and 2 MPI ranks
launcher: mpirun
scales: [1, 2]
repetitions: 1
timeout_s: 300
env:
  OMPI_MCA_rmaps_base_oversubscribe: "1"
$asan_env
$root_env
references: [$root/reference/stemdl-exact.yaml, $root/reference/summit-2019.yaml]
benchmarks:
  - name: stemdl
    program: stemdl
    config: {preset: tiny, steps: 6, warmup: 2, threads: 1}
EOF
out=$("$exadl" run "$tmp/e2e.yaml" --out "$tmp/res" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
run=$(ls -d "$tmp"/res/*-e2e 2>/dev/null | head -1)
[ $rc -eq 0 ] && pass "exadl run exits 0" || { fail "exadl run exit $rc"; tail -n 40 "$run"/logs/*.log 2>/dev/null; }
[ -f "$run/results.yaml" ] && [ -f "$run/report.md" ] && pass "results.yaml and report.md" || fail "files"
[ -f "$run/records/stemdl-n1-r1.yaml" ] && [ -f "$run/records/stemdl-n2-r1.yaml" ] \
    && grep -q '^ranks: 2' "$run/records/stemdl-n2-r1.yaml" && pass "records at 1 and 2 ranks" || fail "records"
ok=1
for p in stemdl_throughput stemdl_efficiency stemdl_flops stemdl_kernels; do
    is_png "$run/plots/$p.png" && [ -s "$run/plots/$p.svg" ] && [ -s "$run/plots/$p.dat" ] || { ok=0; echo "  $p"; }
done
[ $ok = 1 ] && pass "PNG and SVG plots" || fail "plots"
eff=$(awk '/benchmark: stemdl, scale: 2, metric: efficiency,/ { sub(/.*value: /, ""); sub(/,.*/, ""); print }' "$run/results.yaml")
# a number, positive and below 3: no lower bound beyond 0, since two ranks
# sharing two cores with other jobs can be 30x slower than one (0.034 seen
# under load 4); the test is that efficiency is computed, not how good it is
awk -v e="$eff" 'BEGIN { exit !(e ~ /^[0-9.eE+-]+$/ && e > 0 && e < 3) }' && pass "efficiency at 2 ranks: $eff" || fail "efficiency '$eff'"
grep -qE '^stemdl +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ [kMGT]?FLOP/s' <<<"$out" && grep -q "report: $run/report.md" <<<"$out" \
    && pass "summary table with samples/s, efficiency, FLOP/s" || fail "summary table"
out=$("$exadl" check "$run" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^  PASS' <<<"$out")" -eq 6 ] && grep -q 'N/A' <<<"$out" \
    && pass "exact counts PASS via stemdl --describe; Summit numbers N/A side by side" \
    || { fail "check ($rc)"; echo "$out"; }
[ $fails -eq 0 ]
