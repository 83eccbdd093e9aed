#!/usr/bin/env bash
# Checks say what they checked, and the exports have one typed schema (issue
# 27, items 6 and 7), on runs of a stand-in benchmark (about 1 s each):
#  - checks of what ran are counted apart from the --describe counts of
#    configurations no launch ran (terminal line, results.yaml, results.json);
#  - a where that selects nothing this run ran (preset small on a run of tiny,
#    a scale not run) is a REFERENCE ERROR: exit 2 and its own status in
#    `check`, `run`, report.md, report-check.md and results.yaml;
#  - two reference files with the same name are told apart by their path;
#  - a check over many rows with one outcome is one terminal line;
#  - collective rows carry redop and `where: {redop: min}` selects them;
#  - `check` of a run whose launches failed says so first;
#  - results.csv/json/yaml: bytes an integer, inplace a boolean, scale null on
#    rows of a configuration, the same rows in the three, status and checks in
#    the json; docs/record.md's Python loader runs on them (python3 with PyYAML;
#    SKIP without).
set -u
fails=0
pass() { echo "PASS: harness_checks: $1"; }
fail() { echo "FAIL: harness_checks: $1"; fails=$((fails + 1)); }
root=${EXADL_ROOT:-$(pwd)} tmp=${EXADL_TMP:-$(mktemp -d)}
exadl=${EXADL_BIN:?}/exadl fake=$root/tests/fixtures/harness/fake_bench.sh

suite() { # $1 file, $2 references (YAML list), $3 the train entry's mode
    cat >"$1" <<EOF
name: ck
launcher: "env FAKE_RANKS={ranks} FAKE_REDOPS='sum min max' {cmd}"
scales: [1, 2]
repetitions: 2
timeout_s: 30
device_peak_flops: 1.0e10
references: $2
benchmarks:
  - name: train
    program: $fake
    config: {mode: $3, step: 0.05, batch: 2}
  - name: coll
    program: $fake
    config: {mode: coll}
EOF
}
mkdir -p "$tmp/a" "$tmp/b"
cat >"$tmp/a/acc.yaml" <<'EOF'
exadl_reference: 1
name: acc
kind: acceptance
checks:
  - {metric: launches_ok, where: {benchmark: train, scale: 1}, value: 2, lower: 0, upper: 0}
  - {metric: wrong, where: {benchmark: coll}, value: 0, lower: null, upper: 0}
  - {metric: busbw_GBps, where: {benchmark: coll, op: allreduce, redop: min, bytes: 256, scale: 2}, value: 1.0e-6, lower: 0, upper: null}
EOF
# the same name, another file: a planted miss
cat >"$tmp/b/acc.yaml" <<'EOF'
exadl_reference: 1
name: acc
kind: acceptance
checks:
  - {metric: launches_ok, where: {benchmark: train, scale: 1}, value: 5, lower: 0, upper: 0}
EOF
cat >"$tmp/referr.yaml" <<'EOF'
exadl_reference: 1
name: referr
kind: acceptance
checks:
  - {metric: forward_conv_flops_per_sample, where: {benchmark: stemdl, preset: small}, value: 15091630080, lower: 0, upper: 0}
  - {metric: launches_ok, where: {benchmark: train, scale: 4}, value: 2, lower: 0, upper: 0}
EOF

suite "$tmp/ok.yaml" "[$root/reference/stemdl-exact.yaml, $tmp/a/acc.yaml]" ok
out=$("$exadl" run "$tmp/ok.yaml" --out "$tmp/ok" 2>&1); rc=$?
run=$(ls -d "$tmp"/ok/*-ck 2>/dev/null | head -1)
[ -n "$run" ] || { fail "no run folder ($rc)"; echo "$out" | tail -n 20; exit 1; }
[ $rc -eq 0 ] && pass "the passing run: exit 0" || { fail "the passing run ($rc)"; echo "$out" | tail -n 8; }

# describe counts apart from checks of what ran: the run's line and results.yaml
line=$(grep '^checks of this run' <<<"$out")
grep -qE '^checks of this run: [0-9]+ passed, 0 failed; counts of configurations not run \(--describe\): 6 passed, 0 failed' <<<"$line" \
    && grep -q '^  describe_checks_passed: 6$' "$run/results.yaml" \
    && ! grep -q '^  checks_passed: 6$' "$run/results.yaml" && grep -q '^  checks_reference_errors: 0$' "$run/results.yaml" \
    && pass "run: the checks of what ran apart from the 6 --describe counts ($line)" \
    || { fail "describe counts apart: '$line'"; grep -A40 '^run:' "$run/results.yaml" | grep checks; }

# one terminal line for the wrong check over every collective row
cout=$("$exadl" check "$run" --reference "$tmp/a/acc.yaml" 2>&1); crc=$?
n=$(grep -c '^  PASS  wrong ' <<<"$cout")
[ $crc -eq 0 ] && [ "$n" -eq 1 ] && grep -qE '^  PASS  wrong +coll n=2 \(9 rows\)' <<<"$cout" \
    && pass "check: the wrong check over 9 rows is one line" || { fail "grouped lines ($crc, $n lines)"; echo "$cout"; }

# redop: selectable, and on every collective row of the exports
grep -qE '^  PASS  busbw_GBps +coll n=2 op=allreduce redop=min dtype=float32 bytes=256 inplace=false ' <<<"$cout" \
    && pass "where: {redop: min} selects the min row" || { fail "redop where"; echo "$cout"; }

# history of a collective row: sum, min and max of a size are three rows, so
# --bytes alone is ambiguous (exit 2 naming them), --redop picks one
hout=$("$exadl" history "$run" "$run" --benchmark coll --metric busbw_GBps --op allreduce --bytes 256 --out "$tmp/h1" 2>&1); hrc=$?
hout2=$("$exadl" history "$run" "$run" --benchmark coll --metric busbw_GBps --op allreduce --bytes 256 --redop min --out "$tmp/h2" 2>&1); hrc2=$?
[ $hrc -eq 2 ] && grep -q 'has 3 rows of busbw_GBps for coll at scale 2 (op allreduce redop sum bytes 256; op allreduce redop min bytes 256; op allreduce redop max bytes 256)' <<<"$hout" \
    && [ $hrc2 -eq 0 ] && grep -q '^busbw_GBps of coll allreduce (min) 256 B' <<<"$hout2" \
    && pass "history: --bytes alone matching sum, min and max is refused naming them; --redop min picks one" \
    || { fail "history redop ($hrc, $hrc2)"; echo "$hout"; echo "$hout2"; }

# a where that selects nothing this run ran: a reference error, exit 2
cout=$("$exadl" check "$run" --reference "$tmp/referr.yaml" 2>&1); crc=$?
[ $crc -eq 2 ] && grep -qE '^  ERROR forward_conv_flops_per_sample .*reference error: where preset=small' <<<"$cout" \
    && grep -qE "^  ERROR launches_ok .*reference error: where scale=4 matches nothing this run ran \(its scales there: 1, 2\)" <<<"$cout" \
    && grep -q '^REFERENCE ERRORS (2): ' <<<"$cout" && ! grep -q '^  PASS  forward_conv' <<<"$cout" \
    && head -1 "$run/report-check.md" | grep -q ': REFERENCE ERROR$' && grep -q '^## Reference errors' "$run/report-check.md" \
    && pass "check: preset=small on a run of tiny and scale=4 are reference errors (exit 2, verdict REFERENCE ERROR)" \
    || { fail "reference error ($crc)"; echo "$cout"; }

# two files named acc: told apart by path
cout=$("$exadl" check "$run" --reference "$tmp/a/acc.yaml" --reference "$tmp/b/acc.yaml" 2>&1); crc=$?
[ $crc -eq 1 ] && grep -qF "reference acc ($tmp/a/acc.yaml) (acceptance)" <<<"$cout" \
    && grep -qF "reference acc ($tmp/b/acc.yaml) (acceptance)" <<<"$cout" \
    && grep -qF "(acc ($tmp/b/acc.yaml))" <<<"$cout" \
    && pass "check: two references named acc told apart by path" || { fail "same name ($crc)"; echo "$cout"; }

# run: a reference error is exit 2 with its own status, the results kept
suite "$tmp/re.yaml" "[$tmp/referr.yaml, $tmp/a/acc.yaml, $tmp/b/acc.yaml]" ok
out=$("$exadl" run "$tmp/re.yaml" --out "$tmp/re" 2>&1); rc=$?
re=$(ls -d "$tmp"/re/*-ck 2>/dev/null | head -1)
[ $rc -eq 2 ] && grep -q '^  status: reference_error$' "$re/results.yaml" && grep -q '^  exit_status: 2$' "$re/results.yaml" \
    && grep -q 'Status: \*\*REFERENCE ERROR\*\*' "$re/report.md" && grep -q 'metric: throughput_samples_per_s' "$re/results.yaml" \
    && [ "$(grep -E '^- reference: acc \(references/.*acc\.yaml\)$' "$re/results.yaml" | sort -u | wc -l)" -eq 2 ] \
    && [ "$(grep -E '^  reference_file: references/.*acc\.yaml$' "$re/results.yaml" | sort -u | wc -l)" -eq 2 ] \
    && pass "run: reference errors exit 2, status reference_error, results kept, reference_file tells the two acc apart" \
    || { fail "run with a reference error ($rc)"; echo "$out" | tail -n 12; }

# an optional benchmark the run skipped (not built): its checks FAIL, no reference error
cat >"$tmp/skip.yaml" <<EOF
name: sk
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1]
repetitions: 1
timeout_s: 30
benchmarks:
  - name: train
    program: $fake
    config: {mode: ok, step: 0.05, batch: 2}
  - name: extra
    program: $tmp/not-built-yet
    optional: true
EOF
cat >"$tmp/skipref.yaml" <<'EOF'
exadl_reference: 1
name: skipref
kind: acceptance
checks:
  - {metric: launches_ok, where: {benchmark: extra, scale: 1}, value: 1, lower: 0, upper: 0}
EOF
"$exadl" run "$tmp/skip.yaml" --reference "$tmp/skipref.yaml" --out "$tmp/sk" >"$tmp/sk.log" 2>&1; rc=$?
sk=$(ls -d "$tmp"/sk/*-sk 2>/dev/null | head -1)
cout=$("$exadl" check "$sk" 2>&1); crc=$?
[ $rc -eq 1 ] && [ $crc -eq 1 ] && grep -qE '^  FAIL  launches_ok .*\(the run skipped extra ' <<<"$cout" \
    && pass "a skipped optional benchmark: its check FAILs (exit 1), not a reference error" \
    || { fail "skipped benchmark (run $rc, check $crc)"; echo "$cout"; tail -n 5 "$tmp/sk.log"; }

# check of a run whose launches failed: that first
suite "$tmp/fl.yaml" "[$tmp/a/acc.yaml]" fail
"$exadl" run "$tmp/fl.yaml" --out "$tmp/fl" >/dev/null 2>&1
fl=$(ls -d "$tmp"/fl/*-ck 2>/dev/null | head -1)
cout=$("$exadl" check "$fl" 2>&1); crc=$?
[ $crc -eq 1 ] && sed -n 2p <<<"$cout" | grep -q '^failed launches: 4 of 8 launches of this run failed; .* the first: train-n1-r1: ' \
    && grep -qE '^  FAIL  launches_ok +train n=1 ' <<<"$cout" \
    && pass "check of a run with failed launches says so first" || { fail "failed launches first ($crc)"; echo "$cout"; }

# the exports: one typed schema; the docs' loader
if ! python3 -c 'import yaml' 2>/dev/null; then
    echo "SKIP: harness_checks: the exports' types (python3 with PyYAML needed: Debian python3-yaml)"
    exit $((fails > 0))
fi
awk '/^<!-- results-loader -->$/ {on = 1; next} on && /^```python$/ {code = 1; next}
     code && /^```$/ {exit} code {print}' "$root/docs/record.md" >"$tmp/loader.py"
[ -s "$tmp/loader.py" ] || fail "docs/record.md has no Python loader after <!-- results-loader -->"
python3 - "$run" "$tmp/loader.py" <<'PY' && pass "exports: typed, the same rows in csv/json/yaml, status and checks in json; the docs' loader runs" || fail "exports"
import json, sys, yaml
run, loader = sys.argv[1], sys.argv[2]
ns = {}
exec(open(loader).read(), ns)
y, j, c = ns["load_yaml"](run), ns["load_json"](run), ns["load_csv"](run)
assert y["metrics"] == j["metrics"], "yaml and json metric rows differ"
assert len(c) == len(y["metrics"]) > 0
for row, m in zip(c, y["metrics"]):
    flat = {k: v for k, v in m.items() if k != "row"}
    flat.update(m.get("row", {}))
    got = {k: v for k, v in row.items() if v is not None and k not in ("run", "machine", "exadl_commit")}
    want = {k: v for k, v in flat.items() if v is not None}
    assert got == want, (got, want)
coll = [m for m in j["metrics"] if m["benchmark"] == "coll" and m["metric"] == "busbw_GBps"]
assert coll and all(type(m["row"]["bytes"]) is int and type(m["row"]["inplace"]) is bool for m in coll), coll[:1]
assert sorted({m["row"]["redop"] for m in coll}) == ["max", "min", "sum"], coll[:3]
keys = {(m["scale"], m["row"]["redop"], m["row"]["bytes"]) for m in coll}
assert len(keys) == len(coll), "collective rows not told apart"
cfg = [m for m in y["metrics"] if m["metric"] == "conv_weights"]
assert cfg and all(m["scale"] is None for m in cfg), cfg
assert j["run"]["status"] == "ok" and j["run"]["describe_checks_passed"] == 6, j["run"]
assert len(j["checks"]) == len(y["checks"]) > 0 and j["checks"][0]["reference_file"]
assert [k["outcome"] for k in j["checks"]] == [k["outcome"] for k in y["checks"]]
PY
exit $((fails > 0))
