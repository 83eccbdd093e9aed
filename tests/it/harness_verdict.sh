#!/usr/bin/env bash
# Verdicts that can be defended (issue 19): runs record exadl's version and
# commit and the machine's name; compare lists every difference and refuses
# rows whose workload config differs; procurement recovers a planted 1.5x
# (a stand-in that really sleeps 0.3 s per step against 0.2 s) within its CI;
# identical runs are never a regression; a planted regression is caught
# against a pool of baselines.  The runs that plot, fail and sleep (~20 s)
# run in the normal build only; the sanitizer build runs the parsing and the
# verdict parts.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fake=$root/tests/fixtures/harness/fake_bench.sh
sleepb=$root/tests/fixtures/harness/sleep_bench.sh
fails=0
pass() { echo "PASS: harness_verdict: $1"; }
fail() { echo "FAIL: harness_verdict: $1"; fails=$((fails + 1)); }

suite() { # $1 file, $2 machine, $3 program, $4 config, $5 repetitions
    cat >"$1" <<EOF
name: v
machine: $2
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1]
repetitions: $5
timeout_s: 30
device_peak_flops: 1.0e10
benchmarks:
  - name: train
    program: $3
    config: $4
EOF
}
run() { # $1 suite, $2 out; prints the run folder
    "$exadl" run "$1" --out "$2" >"$2.log" 2>&1
    ls -d "$2"/*-v 2>/dev/null | head -1
}

# comparability: version, commit, machine recorded; a config difference refused
suite "$tmp/t.yaml" alpha "$fake" "{mode: ok, step: 0.5, batch: 2}" 2
suite "$tmp/s.yaml" beta "$fake" "{mode: ok, step: 0.5, batch: 4}" 2
rt=$(run "$tmp/t.yaml" "$tmp/t"); rs=$(run "$tmp/s.yaml" "$tmp/s")
grep -qE '^  exadl_version: ' "$rt/results.yaml" && grep -qE '^  exadl_commit: ([0-9a-f]+|unknown)' "$rt/results.yaml" \
    && grep -q '^  machine: alpha' "$rt/results.yaml" \
    && pass "results.yaml records exadl's version, commit and the machine" || fail "run block: $(grep -A12 '^run:' "$rt/results.yaml")"
python3 - "$rt" <<'PY' && pass "results.csv and results.json beside results.yaml, the same rows" || fail "results.csv/json"
import csv, json, sys, yaml
d = sys.argv[1]
y = yaml.safe_load(open(d + "/results.yaml"))
j = json.load(open(d + "/results.json"))
c = list(csv.DictReader(open(d + "/results.csv")))
assert len(y["metrics"]) == len(j["metrics"]) == len(c) > 0, (len(y["metrics"]), len(j["metrics"]), len(c))
assert j["run"]["machine"] == "alpha" and c[0]["machine"] == "alpha"
for a, b in zip(y["metrics"], c):
    assert a["metric"] == b["metric"] and (a["value"] is None or abs(a["value"] - float(b["value"])) <= 1e-9 * abs(a["value"]))
PY
out=$("$exadl" compare "$rt" "$rs" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'refused: config differs' <<<"$out" && ! grep -qE 'REGRESSION|improvement' <<<"$(sed -n '/^metric /,/^$/p' <<<"$out")" \
    && grep -qE 'config train\.batch +A: 2 +B: 4' <<<"$out" && grep -qE 'machine +A: alpha +B: beta' <<<"$out" \
    && pass "compare of different workloads refuses every row and lists the differences (exit 2)" \
    || { fail "config refusal ($rc)"; echo "$out"; }
out=$("$exadl" compare "$rt" "$rs" --allow-config-diff 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q '(config differs)' <<<"$out" && pass "--allow-config-diff compares them, marked" \
    || { fail "allow-config-diff ($rc)"; echo "$out"; }
out=$("$exadl" compare "$rt" "$rs" --metric latency 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "did you mean 'latency_us'" <<<"$out" && pass "--metric latency suggests latency_us" \
    || fail "metric suggestion: $out"

# acceptance: where keys and values checked against what the run records
cat >"$tmp/acc.yaml" <<'EOF'
exadl_reference: 1
name: acc
kind: acceptance
checks:
  - {metric: throughput_samples_per_s, where: {benchmark: train, scale: 1}, value: 3.96, lower: -0.02, upper: null}
  - {metric: step_time_s, where: {benchmark: trian}, value: 0.5, lower: null, upper: 0.1}
  - {metric: step_time_s, where: {benchmark: train, btch: 2}, value: 0.5, lower: null, upper: 0.1}
  - {metric: step_time_s, where: {benchmark: train, batch: 2}, value: 0.4, lower: null, upper: 0.1}
EOF
out=$("$exadl" check "$rt" --reference "$tmp/acc.yaml" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "benchmark=trian: no benchmark of this run has that name (did you mean 'train'?" <<<"$out" \
    && grep -q "where key 'btch' is not recorded for step_time_s (did you mean 'batch'?" <<<"$out" \
    && grep -q '^REFERENCE ERRORS (2): ' <<<"$out" \
    && pass "where: an unknown benchmark and key are reference errors with a suggestion (exit 2)" \
    || { fail "where diagnosis ($rc)"; echo "$out"; }
grep -qE '^  FAIL step_time_s train n=1: measured 0.505 s, bound \[-inf, 0.44 s\], \+14.8% over the upper bound' <<<"$out" \
    && grep -q '^FAILED check (1):' <<<"$out" \
    && pass "each FAIL on the terminal with measured value, bound and margin" || { fail "FAIL lines"; echo "$out"; }
head -1 "$rt/report-check.md" | grep -q ': REFERENCE ERROR$' && grep -q '^## Failed checks' "$rt/report-check.md" \
    && grep -q '^| PASS | acc | throughput_samples_per_s ' "$rt/report-check.md" \
    && pass "check writes report-check.md: the new verdict, failures first" || fail "report-check.md"

# CPU binding: a rank of 2 threads gets 2 cores (PE=2) where they fit, no
# binding where they do not; the bindings mpirun reports land in results.yaml
cat >"$tmp/thr.yaml" <<EOF
name: thr
launcher: mpirun
scales: [1, 2]
repetitions: 1
timeout_s: 120
env: {OMPI_MCA_rmaps_base_oversubscribe: "1", OMPI_ALLOW_RUN_AS_ROOT: "1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: "1"}
benchmarks:
  - name: stemdl
    program: stemdl
    config: {preset: tiny, batch: 2, kernels: fast, threads: 2, steps: 1, warmup: 0}
EOF
cores=$(getconf _NPROCESSORS_ONLN)  # nproc obeys OMP_NUM_THREADS
out=$("$exadl" run "$tmp/thr.yaml" --dry-run 2>&1)
if [ "$cores" -ge 4 ]; then want2='mpirun -np 2 --map-by slot:PE=2 --report-bindings'; else want2='mpirun -np 2 --bind-to none --report-bindings'; fi
grep -q 'stemdl-n1-r1: mpirun -np 1 --map-by slot:PE=2 --report-bindings ' <<<"$out" && grep -q "stemdl-n2-r1: $want2 " <<<"$out" \
    && pass "threads: 2 -> mpirun --map-by slot:PE=2 at 1 rank, '${want2#mpirun -np 2 }' at 2 ranks on $cores cores" \
    || { fail "binding options"; echo "$out"; }

# root: validate refuses a run whose every launch would fail (tests/it/harness_input.sh: run too)
if [ "$(id -u)" = 0 ]; then
    sed '/OMPI_ALLOW_RUN_AS_ROOT/d' "$tmp/thr.yaml" >"$tmp/root.yaml"
    sed -i 's/^env: .*$/env: {OMPI_MCA_rmaps_base_oversubscribe: "1"}/' "$tmp/root.yaml"
    out=$(env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM "$exadl" validate "$tmp/root.yaml" 2>&1); rc=$?
    [ $rc -eq 2 ] && grep -q "exadl runs as root and Open MPI's mpirun (.*) refuses root" <<<"$out" \
        && pass "validate refuses mpirun as root without the variables (exit 2)" || { fail "root refusal ($rc)"; echo "$out"; }
else
    echo "SKIP: harness_verdict: not root: the root warning cannot be shown"
fi

case ${EXADL_BUILD:-build} in *san*)
    echo "SKIP: harness_verdict: history, plots, the failing run, the sleeping runs (normal build only)"; exit $((fails > 0)) ;;
esac

# history: units, the chosen scale said, machines named, the plot beside the runs
# (batch 2 against 4: different workloads, kept and marked as compare's --allow-config-diff)
out=$("$exadl" history "$rt" "$rs" --allow-config-diff 2>&1); rc=$?
hd=$(ls -d "$(dirname "$rt")"/history-* 2>/dev/null | head -1)
[ $rc -eq 0 ] && grep -q 'scale 1 (the largest every run has' <<<"$out" && grep -qE ' alpha +.* 3\.96 \[[0-9.]+, [0-9.]+\] samples/s' <<<"$out" \
    && grep -qE ' beta ' <<<"$out" && [ -s "$hd/history.gp" ] && grep -q "index 1 using" "$hd/history.gp" \
    && pass "history: units, the chosen scale, one line per machine, the plot beside the runs" \
    || { fail "history ($rc, $hd)"; echo "$out"; }
out=$("$exadl" history "$rt" --scale 4 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'at scale 4 (the largest scale they have: 1)' <<<"$out" \
    && pass "history --scale 4 where no run has it says which scale they have (bad input, exit 2)" || { fail "history --scale 4"; echo "$out"; }

# hostile and unusual values: a machine name with quotes, a backtick command
# and an @ reaches compare, history and gnuplot as text, never as code
bad="it's \"x\" \`touch $tmp/pwned\` @m"
"$exadl" run "$tmp/t.yaml" --machine "$bad" --out "$tmp/bad" >/dev/null 2>&1
rb=$(ls -d "$tmp"/bad/*-v 2>/dev/null | head -1)
out=$("$exadl" history "$rt" "$rb" --out "$tmp/badh" 2>&1); rc=$?
hb=$(ls -d "$tmp"/badh/history-* 2>/dev/null | head -1)
[ $rc -eq 0 ] && [ ! -e "$tmp/pwned" ] && [ -s "$hb/history.png" ] && grep -qF "it's" <<<"$out" \
    && pass "a machine name with quotes and a backtick command: plotted as text, nothing run" \
    || { fail "hostile machine name ($rc)"; echo "$out"; ls "$hb"; }
out=$("$exadl" compare --mode procurement "$rt" "$rb" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -qF "B ($bad)" <<<"$out" && pass "compare names the machine as given" || { fail "compare hostile ($rc)"; echo "$out"; }

# a run shows the first failure's own words (mpirun's, refusing an option)
sed 's/^launcher: mpirun$/launcher: mpirun\nlauncher_args: [--no-such-mpirun-option]/' "$tmp/thr.yaml" >"$tmp/badarg.yaml"
out=$("$exadl" run "$tmp/badarg.yaml" --out "$tmp/badarg" 2>&1)
grep -q "the first failed launch's log" <<<"$out" && grep -q '  | mpirun: Error: unknown option "--no-such-mpirun-option"' <<<"$out" \
    && pass "a failed launch: its launcher's message on the terminal" || { fail "first failure"; echo "$out"; }


sed -i 's/scales: \[1, 2\]/scales: [1]/' "$tmp/thr.yaml"
"$exadl" run "$tmp/thr.yaml" --out "$tmp/thr" >"$tmp/thr.log" 2>&1
aff=$(grep -h 'affinity:' "$tmp"/thr/*-thr/results.yaml 2>/dev/null)
{ grep -qE "affinity: 'rank 0: not bound \(all cores\)'" <<<"$aff" && [ "$cores" -le 2 ]; } \
    || { grep -qE "affinity: 'rank 0: \[[B.]*B[B.]*/B" <<<"$aff"; } \
    && pass "a 2-thread rank got 2 cores: results.yaml records its affinity ($aff)" \
    || { fail "affinity: '$aff'"; tail -5 "$tmp/thr.log"; }

# procurement: a planted 1.5x recovered within its CI
suite "$tmp/a.yaml" fast "$sleepb" "{step: 0.2, steps: 5}" 2
suite "$tmp/b.yaml" slow "$sleepb" "{step: 0.3, steps: 5}" 2
ra=$(run "$tmp/a.yaml" "$tmp/a"); rb=$(run "$tmp/b.yaml" "$tmp/b"); ra2=$(run "$tmp/a.yaml" "$tmp/a2")
out=$("$exadl" compare --mode procurement "$ra" "$rb" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
line=$(grep -E '^step_time_s ' <<<"$out")
read -r r lo hi < <(sed -E 's/.* ([0-9.]+)x \[([0-9.]+), ([0-9.]+)\].*/\1 \2 \3/' <<<"$line")
# the CI must hold the planted 1.5 where no launch read busy; a busy launch (other jobs on
# the cores) stretches every sleep by its wake-up delay, which pulls the measured ratio below
# 1.5 with a CI that is right about what was measured (failed so at load ~9): then only the
# winner, the ratio's range and the busy tag are checked
busytag=0; grep -qE '\[[AB] busy [0-9]+/[0-9]+\]' <<<"$line" && busytag=1
awk -v r="$r" -v lo="$lo" -v hi="$hi" -v b="$busytag" \
    'BEGIN { exit !(lo > 1.1 && r > 1.3 && lo <= r && r <= hi && (b ? r < 1.6 : (lo <= 1.5 && 1.5 <= hi))) }' \
    && [ $rc -eq 0 ] && grep -qE '^overall: B \(slow\) is 0\.[67][0-9]*x A \(fast\)' <<<"$out" \
    && grep -qE 'A \(fast\)( \[[AB] busy [0-9]+/[0-9]+\])*$' <<<"$line" \
    && pass "procurement: the planted 1.5x is $r [$lo, $hi], winner A, overall ~0.67x" \
    || fail "procurement: '$line' ($rc)"
# regression: identical runs never, a planted one against the pool
out=$("$exadl" compare "$ra" "$ra2" 2>&1); rc=$?
[ $rc -eq 0 ] && ! grep -qE 'REGRESSION|improvement' <<<"$(sed -n '/^metric /,/^$/p' <<<"$out")" \
    && pass "identical runs: neither a regression nor an improvement (exit 0)" \
    || { fail "identical runs ($rc)"; echo "$out"; }
# the sleeps use no CPU, so interference cannot explain a slower run here;
# beside other jobs the launches read busy, which alone would make it
# inconclusive (harness_regress tests that rule)
out=$("$exadl" compare --baseline "$ra" "$ra2" "$rb" --ignore-interference 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qE '^throughput_samples_per_s .* -3[0-9.]+% +[0-9]+/[0-9]+ launches +REGRESSION' <<<"$out" \
    && pass "the planted regression is caught against a pool of 2 baselines (exit 1)" \
    || { fail "pool regression ($rc)"; echo "$out"; }
exit $((fails > 0))
