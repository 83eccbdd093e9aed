#!/usr/bin/env bash
# modelpar through the harness, on one real run folder (exadl run, mpirun,
# 1, 2 and 4 ranks, oversubscribed; the small preset, whose steps of about
# 0.1 s a scheduler's time slice does not swamp as it does tiny's of 0.3 ms):
# - reference/modelpar-exact.yaml: every check equals `modelpar --describe`
#   given its where keys as options; `exadl run` asks those questions (the
#   probe) and `exadl check` passes all of them as --describe counts; a copy
#   with one number changed fails (exit 1);
# - the GPU build compiled the locally connected kernels: libexadl_cuda.so
#   defines kcu_fill_lc and calls cublasGemmStridedBatchedEx (SKIP where the
#   build has no GPU module; test_mpar_kernels runs them on a GPU);
# - exadl model RUN (taken by itself on a modelpar run) and with --machine
#   summit.yaml: a prediction at 98 nodes whose step is the sum of its terms,
#   its halo and tensor-parallel times the machine's alpha and beta times the
#   formula's messages and bytes; at each measured point the predicted halo,
#   tensor-parallel and allreduce bytes equal the record's, and the predicted
#   step is within a factor 25 of the measured one (the run's own links: the
#   exchanges' time for the halo, the replicas' exchange for the allreduce;
#   4 ranks on 2 busy cores: no tighter timing claim; seen 0.5 to 1.9).
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

# ---- the CUDA set's locally connected kernels are built ------------------------------
mod=${EXADL_BUILD:-$root/build}/lib/libexadl_cuda.so
if [ ! -f "$mod" ]; then
    echo "SKIP: modelpar_harness: this build ($(basename "${EXADL_BUILD:-build}")) has no CUDA module: the lc kernels are not built here"
elif ! command -v nm >/dev/null; then
    echo "SKIP: modelpar_harness: no nm to read $mod"
elif nm -C "$mod" | grep -q ' T kcu_fill_lc' && nm -D "$mod" | grep -q ' U cublasGemmStridedBatchedEx'; then
    pass "the CUDA module has the locally connected kernels (kcu_fill_lc, cublasGemmStridedBatchedEx)"
else
    fail "$mod lacks kcu_fill_lc or its cublasGemmStridedBatchedEx call"
fi

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
    config: {preset: small, batch: 2, model_ranks: 0, dense: 8, kernels: reference, threads: 1,
             steps: 3, warmup: 1}
  - name: mp-hybrid
    program: $P
    scales: [4]
    config: {preset: small, batch: 1, model_ranks: 2, dense: 8, kernels: reference, threads: 1,
             steps: 3, warmup: 1, cycle_ms: 5}
EOF
mkdir -p "$tmp/runs"
out=$("$exadl" run "$tmp/mp.yaml" --out "$tmp/runs" 2>&1)
rc=$?
run=$(ls -d "$tmp"/runs/*-mph 2>/dev/null | head -1)
if [ -z "$run" ] || [ $rc -ne 0 ]; then
    fail "exadl run of a modelpar suite (exit $rc): $(tail -n 5 <<<"$out")"
    exit 1
fi
# the entries run dense pairs: no row matches a where with dense: 0, so
# every count is --describe's (a row that matched would count as the run's)
line=$(grep '^checks of this run' <<<"$out")
ran=$(sed -n 's/^checks of this run: \([0-9]*\) passed, 0 failed; .*/\1/p; s/^checks of this run: none; .*/0/p' <<<"$line")
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

# ---- the model-parallel model ----------------------------------------------------------
out=$("$exadl" model "$run" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^exadl model (model parallelism)' <<<"$out" && [ -f "$run/model/modelpar_model.yaml" ]; then
    pass "exadl model RUN takes the model-parallel model on a modelpar run: $(grep -m1 'prediction at' <<<"$out")"
else
    fail "exadl model RUN (exit $rc): $(tail -n 3 <<<"$out")"
fi
python3 - "$run/model/modelpar_model.yaml" own <<'PY'
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
p = m["prediction"]
terms = p["compute_s"] + p["halo_s"] + p["tp_s"] + p["allreduce_s"] + p["optimizer_s"] + p["other_s"]
ok = m["nodes"] == 98 and p["ranks"] == 96 and p["model_ranks"] == 4 and p["replicas"] == 24 and \
    abs(terms - p["step_s"]) <= 1e-9 * p["step_s"]
print("%s: modelpar_harness: the prediction at 98 nodes (1 rank a node without a machine file): "
      "96 ranks as 24 groups of 4, step %.4g s = the sum of its terms" % ("PASS" if ok else "FAIL", p["step_s"]))
v = m["validation"]
bad = []
for x in v:
    if x["halo_bytes_group"] != x["record_halo_bytes_group"]: bad.append((x["bench"], x["ranks"], "halo"))
    if x["tp_bytes_rank"] != x["record_tp_bytes_rank0"]: bad.append((x["bench"], x["ranks"], "tp"))
    if abs(x["allreduce_bytes_rank"] - x["record_allreduce_bytes_rank"]) > 1: bad.append((x["bench"], x["ranks"], "allreduce"))
    if not 1 / 25 <= x["predicted_over_measured"] <= 25: bad.append((x["bench"], x["ranks"], "step x%.3g" % x["predicted_over_measured"]))
kinds = sorted((x["bench"], x["ranks"]) for x in v)
if kinds == [("mp", 1), ("mp", 2), ("mp", 4), ("mp-hybrid", 4)] and not bad:
    print("PASS: modelpar_harness: at the 4 measured points the predicted halo, tensor-parallel and allreduce "
          "bytes equal the record's and the step is within a factor 25 (%s)" %
          ", ".join("%s@%d %.3g" % (x["bench"], x["ranks"], x["predicted_over_measured"]) for x in v))
else:
    print("FAIL: modelpar_harness: validation points %s, mismatches %s" % (kinds, bad))
PY
out=$("$exadl" model "$run" --machine "$root/reference/machines/summit.yaml" --model-ranks 8 --out "$tmp/msum" 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "exadl model --machine summit.yaml (exit $rc): $(tail -n 3 <<<"$out")"
python3 - "$tmp/msum/modelpar_model.yaml" "$root/reference/machines/summit.yaml" <<'PY'
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
mf = yaml.safe_load(open(sys.argv[2]))
p = m["prediction"]
# 8 model ranks > 6 a node: the exchanges cross nodes
l = mf["inter_node"]
a, b = float(l["latency_s"]["value"]), 1 / float(l["bandwidth_Bps"]["value"])
halo = p["halo_messages_rank"] * a + p["halo_bytes_rank_max"] * b
# small (32 x 32 positions, hidden2 8), the pair's 8 units over 8 ranks, batch 2:
# two allgathers and two reduce-scatters as rings, gamma from reduce_Bps
g = 1 / float(l["reduce_Bps"]["value"])
P, h2, n, M = 32 * 32, 8, 2, 8
tp = 4 * (M - 1) * a + p["tp_bytes_rank"] * b + 2 * (M - 1) / M * P * n * h2 * 4 * g
ok = (m["machine"] == "summit" and m["ranks_of_nodes"] == 588 and p["ranks"] == 584 and
      p["replicas"] == 73 and p["links"] == "between nodes" and
      abs(p["halo_s"] - halo) <= 1e-9 * halo and abs(p["tp_s"] - tp) <= 1e-9 * tp and
      p["tp_bytes_rank"] == 4 * (M - 1) * (P // M) * n * h2 * 4)
print("%s: modelpar_harness: 98 Summit nodes (588 ranks, 73 groups of 8): halo %.4g s and tensor-parallel %.4g s "
      "= the machine's inter-node alpha and beta times the formula's messages and bytes%s" %
      ("PASS" if ok else "FAIL", p["halo_s"], p["tp_s"], "" if ok else " (got %s)" % p))
PY

out=$("$exadl" model "$run" --model-ranks 4 --grid 1x3 --out "$tmp/mbad" 2>&1)
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q 'grid 1x3: 3 tiles, not the 4 model ranks' <<<"$out"; then
    pass "exadl model refuses a grid that is not the model ranks in one line (exit 2)"
else
    fail "exadl model --grid 1x3 with 4 model ranks (exit $rc): $out"
fi

[ $fails -eq 0 ] || exit 1
exit 0
