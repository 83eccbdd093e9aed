#!/usr/bin/env bash
# The shipped ablation suite (harness/suite/suites/ablation-cpu.yaml) end to end over 1
# and 2 ranks, with the tiny preset in place of small at 32x32 and one
# repetition: every mode's launches ok, the report's gradient-reduction table
# (one row per mode and scale, with the model's prediction), the efficiency
# plots, model.yaml, and the new metrics in results.yaml.
set -u
# CI time: the normal build only (six training modes end to end; the sanitizer build runs the same engine in stemdl_gsync.sh and the analysis in test_harness_ablation)
case $(basename "${EXADL_BUILD:-build}") in
build-san*) echo "SKIP: harness_ablation: normal build only (CI time)"; exit 0 ;;
esac
exadl=${EXADL_BIN:?}/exadl
stemdl=$EXADL_BIN/stemdl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_ablation: $1"; }
fail() { echo "FAIL: harness_ablation: $1"; fails=$((fails + 1)); }
is_png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; }

[ -n "$("$stemdl" --help 2>&1 | head -c 100)" ] || { echo "SKIP: harness_ablation: stemdl not built"; exit 77; }
command -v "${EXADL_MPIRUN:-mpirun}" >/dev/null || { echo "SKIP: harness_ablation: no mpirun"; exit 77; }
suite=$root/harness/suite/suites/ablation-cpu.yaml
# the sanitizer build: the launches' own leak check is the stemdl tests' job
asan=
[ -n "${ASAN_OPTIONS:-}" ] && asan="  ASAN_OPTIONS: \"$ASAN_OPTIONS:detect_leaks=0\""
sed -e 's/preset: small, image: 32/preset: tiny/' -e 's/steps: 8, warmup: 2/steps: 4, warmup: 1/' \
    -e 's/^repetitions: 2/repetitions: 1/' -e 's/e: 16M/e: 64K/' -e 's/steps: 50}/steps: 10}/' \
    -e "s|^env:|env:\n$asan|" "$suite" >"$tmp/ablation.yaml"
grep -q 'preset: tiny' "$tmp/ablation.yaml" && ! grep -q 'preset: small' "$tmp/ablation.yaml" \
    || { fail "the shipped suite no longer has the expected shape (preset: small, image: 32)"; exit 1; }
out=$("$exadl" run "$tmp/ablation.yaml" --out "$tmp/res" 2>&1); rc=$?
echo "$out" | sed 's/^/    /' | tail -n 25
run=$(ls -d "$tmp"/res/*-ablation-cpu 2>/dev/null | head -1)
[ $rc -eq 0 ] && pass "exadl run exits 0 (every launch ok)" || { fail "exit $rc"; tail -n 20 "$run"/logs/*.log 2>/dev/null; }
rep=$run/report.md
grep -q '^## Gradient reduction: modes side by side' "$rep" && pass "report has the gradient-reduction section" \
    || fail "no gradient-reduction section"
rows=$(grep -cE '^\| (coord|bv)-(none|layer|4) \| (coordinator|bitvector)\+(none|layer|4)(, engine thread)? \| 5 \| [12] \|' "$rep")
[ "$rows" -eq 12 ] && pass "table: 6 modes x 2 scales" || fail "table has $rows rows of 12"
# the suite pins engine: thread; each 2-rank row names the engine that ran
eng=$(grep -cE '^\| (coord|bv)-(none|layer|4) \| (coordinator|bitvector)\+(none|layer|4), engine thread \| 5 \| 2 \|' "$rep")
[ "$eng" -eq 6 ] && pass "every 2-rank row: engine thread" || fail "$eng of 6 2-rank rows name the thread engine"
# at 2 ranks a prediction beside each measurement
pred=$(grep -cE '^\| (coord|bv)-[a-z0-9]+ \| [a-z+0-9]+(, engine [a-z]+)? \| 5 \| 2 \| [0-9.e-]+ \| [0-9.e-]+ \[.*\| 0\.[0-9]{4} \|' "$rep")
[ "$pred" -eq 6 ] && pass "the model's efficiency beside every 2-rank measurement" || fail "$pred predictions"
grep -q '^### The model.s inputs' "$rep" && grep -q 'ring fit of' "$rep" && grep -q 'fitted to the run.s orchestration' "$rep" \
    && pass "model inputs fitted to the run's sweep and orchestration benchmark" || fail "model inputs"
[ -s "$run/model.yaml" ] && grep -q 'mode: bitvector+4' "$run/model.yaml" && grep -q 'scale: 16' "$run/model.yaml" \
    && pass "model.yaml with the suite's model scales" || fail "model.yaml"
grep -q 'metric: exposed_comm_s' "$run/results.yaml" && grep -q 'metric: model_efficiency' "$run/results.yaml" \
    && pass "results.yaml has exposed_comm_s and model_efficiency" || fail "results.yaml metrics"
if command -v gnuplot >/dev/null; then
    ok=1
    for p in ablation_efficiency ablation_modes model_efficiency; do
        is_png "$run/plots/$p.png" && [ -s "$run/plots/$p.svg" ] && [ -s "$run/plots/$p.dat" ] || { ok=0; echo "  $p"; }
    done
    [ $ok = 1 ] && pass "plots: efficiency per mode, modes at 2 ranks, model" || fail "plots"
else
    [ -s "$run/plots/ablation_efficiency.dat" ] && pass "plot data (no gnuplot)" || fail "plot data"
fi
[ $fails -eq 0 ]
