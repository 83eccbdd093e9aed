#!/usr/bin/env bash
# modelpar through the harness, on one real run folder (exadl run, mpirun,
# 1, 2 and 4 ranks, oversubscribed):
# - reference/modelpar-exact.yaml: every check equals `modelpar --describe`
#   given its where keys as options; `exadl run` asks those questions (the
#   probe) and `exadl check` passes all of them as --describe counts; a copy
#   with one number changed fails (exit 1).
set -u
fails=0
pass() { echo "PASS: modelpar_harness: $1"; }
fail() { echo "FAIL: modelpar_harness: $1"; fails=$((fails + 1)); }
root=${EXADL_ROOT:-$(pwd)} tmp=${EXADL_TMP:-$(mktemp -d)}
exadl=${EXADL_BIN:?}/exadl P=$EXADL_BIN/modelpar
ref=$root/reference/modelpar-exact.yaml
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: modelpar_harness: python3 without PyYAML"; exit 77; }
[ -f "$ref" ] || { fail "$ref is missing"; exit 1; }

# ---- the exact reference against --describe, check by check ------------------------
python3 - "$ref" "$P" <<'PY'
import subprocess, sys, yaml
ref, prog = sys.argv[1], sys.argv[2]
checks = yaml.safe_load(open(ref))["checks"]
n = 0
for c in checks:
    args = [prog, "--describe"]
    for k, v in c["where"].items():
        if k != "benchmark":
            args += ["--" + k.replace("_", "-"), str(v)]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    got = [l.split(":")[1].split()[0] for l in out.splitlines() if l.startswith(c["metric"] + ":")]
    w = " ".join(args[2:])
    if got == [str(c["value"])] and c["lower"] == 0 and c["upper"] == 0:
        n += 1
    else:
        print("FAIL: modelpar_harness: %s (%s): --describe says %s, the reference %s" % (c["metric"], w, got, c["value"]))
yf = [c for c in checks if c["where"].get("preset") == "yfcc15b" and c["metric"] == "parameters"]
if n == len(checks) and n >= 20 and yf and yf[0]["value"] == 14994423808:
    print("PASS: modelpar_harness: the %d exact counts of %s equal modelpar --describe (yfcc15b: %d parameters)" %
          (n, ref.split("/")[-1], yf[0]["value"]))
else:
    print("FAIL: modelpar_harness: %d of %d exact counts equal --describe" % (n, len(checks)))
PY
nexact=$(grep -c '^  - metric:' "$ref")

# ---- one real run folder --------------------------------------------------------------
export EXADL_PEAK_CACHE=$tmp/peak.yaml # pinned: no peak_cpu runs here
python3 "$root/tests/support/peak_cache.py" "$EXADL_PEAK_CACHE" 2e10
cat >"$tmp/mp.yaml" <<EOF
exadl_suite: 1
name: mph
launcher: mpirun
scaling: spatial
repetitions: 1
timeout_s: 300
env:
  OMPI_MCA_rmaps_base_oversubscribe: "1"
references: [$ref]
benchmarks:
  - name: mp
    program: $P
    scales: [1, 2, 4]
    config: {preset: tiny, batch: 2, model_ranks: 0, dense: 8, kernels: reference, threads: 1,
             steps: 4, warmup: 1}
  - name: mp-hybrid
    program: $P
    scales: [4]
    config: {preset: tiny, batch: 1, model_ranks: 2, kernels: reference, threads: 1, steps: 4,
             warmup: 1, cycle_ms: 5}
EOF
mkdir -p "$tmp/runs"
out=$("$exadl" run "$tmp/mp.yaml" --out "$tmp/runs" 2>&1)
rc=$?
run=$(ls -d "$tmp"/runs/*-mph 2>/dev/null | head -1)
if [ -z "$run" ] || [ $rc -ne 0 ]; then
    fail "exadl run of a modelpar suite (exit $rc): $(tail -n 5 <<<"$out")"
    exit 1
fi
# tiny's counts are the run's (its rows match); the others are --describe's
line=$(grep '^checks of this run' <<<"$out")
ran=$(sed -n 's/^checks of this run: \([0-9]*\) passed, 0 failed; .*/\1/p' <<<"$line")
desc=$(sed -n 's/.*(--describe): \([0-9]*\) passed, 0 failed$/\1/p' <<<"$line")
if [ -n "$ran" ] && [ -n "$desc" ] && [ $((ran + desc)) -eq "$nexact" ] && [ "$desc" -ge 19 ] &&
    grep -q "^  describe_checks_passed: $desc$" "$run/results.yaml"; then
    pass "exadl run asks modelpar --describe and passes the $nexact exact counts ($line)"
else
    fail "exadl run's exact checks: $line"
fi
out=$("$exadl" check "$run" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^reference modelpar-exact (exact)$' <<<"$out" &&
    [ "$(grep -c '^  PASS ' <<<"$out")" -eq "$nexact" ]; then
    pass "exadl check of the run folder passes modelpar-exact (exit 0)"
else
    fail "exadl check (exit $rc): $(grep -m3 -E 'FAIL|ERROR' <<<"$out")"
fi
# a planted miss: the yfcc15b parameter count one off
sed 's/value: 14994423808$/value: 14994423809/' "$ref" >"$tmp/bad-exact.yaml"
out=$("$exadl" check "$run" --reference "$tmp/bad-exact.yaml" 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q 'FAIL.*parameters' <<<"$out"; then
    pass "a reference with the yfcc15b count one off fails (exit 1)"
else
    fail "the planted miss was not caught (exit $rc): $(tail -n 3 <<<"$out")"
fi

[ $fails -eq 0 ] || exit 1
exit 0
