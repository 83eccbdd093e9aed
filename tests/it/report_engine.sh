#!/usr/bin/env bash
# The report's gradient-reduction table sets entries that differ only in their
# engine side by side, as modes of one workload, and names the engine that ran
# each (docs/gsync.md "Which engine runs"; docs/ablation.md): a suite of two
# stemdl tiny entries, `engine: thread` and `engine: inline`, at 1 and 2 ranks.
# Before, `engine` counted as part of the workload, so the two were "not set
# side by side" and the table named no engine.
set -u
case $(basename "${EXADL_BUILD:-build}") in
build-san*) echo "SKIP: report_engine: normal build only (CI time; gsync_engine.sh runs both engines in the sanitizer build)"; exit 0 ;;
esac
exadl=${EXADL_BIN:?}/exadl
stemdl=$EXADL_BIN/stemdl
tmp=${EXADL_TMP:-$(mktemp -d)}
fails=0
pass() { echo "PASS: report_engine: $1"; }
fail() { echo "FAIL: report_engine: $1"; fails=$((fails + 1)); }
[ -x "$stemdl" ] || { echo "SKIP: report_engine: stemdl not built"; exit 77; }
command -v "${EXADL_MPIRUN:-mpirun}" >/dev/null || { echo "SKIP: report_engine: no mpirun"; exit 77; }

cat >"$tmp/engines.yaml" <<'YAML'
exadl_suite: 1
name: engines
description: the two gradient engines side by side (tests/it/report_engine.sh)
launcher: mpirun
scaling: weak
scales: [1, 2]
repetitions: 1
timeout_s: 300
env:
  OMPI_MCA_rmaps_base_oversubscribe: "1"
  OMP_NUM_THREADS: "1"
  OPENBLAS_NUM_THREADS: "1"
benchmarks:
  - name: eng-thread
    program: stemdl
    config: {preset: tiny, kernels: fast, threads: 1, steps: 4, warmup: 1, engine: thread}
  - name: eng-inline
    program: stemdl
    config: {preset: tiny, kernels: fast, threads: 1, steps: 4, warmup: 1, engine: inline}
YAML
out=$("$exadl" run "$tmp/engines.yaml" --out "$tmp/res" 2>&1); rc=$?
echo "$out" | sed 's/^/    /' | tail -n 12
run=$(ls -d "$tmp"/res/*-engines 2>/dev/null | head -1)
rep=$run/report.md
[ $rc -eq 0 ] && [ -s "$rep" ] && pass "exadl run exits 0 with a report" || { fail "exit $rc"; exit 1; }
sec=$(awk '/^## Gradient reduction: modes side by side/ { on = 1 } on && /^## / && !/modes side by side/ { on = 0 } on' "$rep")
[ -n "$sec" ] && pass "the report sets the two entries side by side (one workload)" \
    || fail "no side-by-side section: $(grep -m1 'Not set side by side' "$rep")"
echo "$sec" | grep -q 'Not set side by side' && fail "an entry was left alone: $(echo "$sec" | grep 'Not set side by side')"
echo "$sec" | grep -Eq '^\| eng-thread \| [^|]*, engine thread \| [^|]* \| 2 \|' \
    && echo "$sec" | grep -Eq '^\| eng-inline \| [^|]*, engine inline \| [^|]* \| 2 \|' \
    && pass "each 2-rank row names the engine that ran (thread, inline)" \
    || { fail "engine cells"; echo "$sec" | grep '^| eng-' | sed 's/^/    /'; }
# the records say the same (the table reads them, not the config)
t=$(grep -h '^  engine:' "$run"/records/eng-thread*-n2-*.yaml 2>/dev/null | sort -u | tr -d ' ')
i=$(grep -h '^  engine:' "$run"/records/eng-inline*-n2-*.yaml 2>/dev/null | sort -u | tr -d ' ')
[ "$t" = "engine:thread" ] && [ "$i" = "engine:inline" ] && pass "records: engine thread and inline" \
    || fail "records: '$t' '$i'"
[ $fails -eq 0 ]
