#!/usr/bin/env bash
# modelpar: the locally connected autoencoder with its weights sharded over
# the tiles of model groups (docs/modelparallel.md), over real MPI jobs
# (oversubscribed):
# - the counts of --describe (parameters, FLOPs, halo bytes, memory per
#   rank) equal those of tests/support/modelpar_count.py, which counts by
#   another route, for tiny, small and the 15e9 preset;
# - tiny on 1 rank, model groups of 2 and 4 (2x2 and 1x4 grids) and 2 model
#   ranks x 2 replicas, without and with the tensor-parallel dense pair and
#   the sparsity term:
#   losses within 1e-5 of 1 rank over 20 steps, the shards reassembled equal
#   to 1 rank's weights, halo and tensor-parallel bytes as run equal to the
#   formula;
# - small (issue 32's "a small preset") on 1 rank, model groups of 2 (1x2) and
#   4 (2x2) and 2 model ranks x 2 replicas: losses within 1e-5 of 1 rank over
#   20 steps, the shards gathered equal to 1 rank's weights (within 1e-4 of
#   the largest: Adam and the halo's gradient sums in another order);
# - the data-parallel allreduce of the hybrid runs: the bytes the update
#   exchange counts per step equal the formula 2 (R-1)/R x 4 x the shard's
#   parameters, and the gradient engine's groups hold exactly the shard;
# - small at 1, 2, 4 model ranks: the memory high-water mark per rank
#   within 10% of the formula, falling with the model ranks;
# - bad partitions refused in one line, exit 2.
set -u
P=$EXADL_BIN/modelpar
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
export COUNT_PY=$EXADL_ROOT/tests/support/modelpar_count.py
COUNT="python3 $COUNT_PY"

# ---- counts by another route -------------------------------------------------
same_counts() { # name "describe args" "count args"
    local name=$1 got want
    # shellcheck disable=SC2086
    got=$("$P" --describe $2 | sed -n 's/^\([a-z_0-9]*\): \([0-9]*\).*/\1: \2/p' |
        grep -v '^ranks' | sort)
    # shellcheck disable=SC2086
    want=$($COUNT describe $3 | sort)
    if [ -n "$got" ] && [ "$got" = "$want" ]; then
        echo "PASS: modelpar --describe $name: $(echo "$want" | tr '\n' ' ')"
    else
        echo "FAIL: modelpar --describe $name: got [$got] want [$want]"
    fi
}
same_counts "tiny" "--preset tiny" "8 1 4 4 3 1 1 1 1 2 0"
same_counts "small on 2x2" "--preset small --model-ranks 4" "32 1 8 8 5 4 2 2 4 2 0"
same_counts "small on 1x4, 2 replicas" "--preset small --model-ranks 4 --grid 1x4 --ranks 8" \
    "32 1 8 8 5 4 1 4 8 2 0"
same_counts "small with a dense pair of 64 on 2x2" "--preset small --model-ranks 4 --dense 64" \
    "32 1 8 8 5 4 2 2 4 2 64"
same_counts "small with the sparsity term and a dense pair on 1x2" \
    "--preset small --model-ranks 2 --dense 16 --sparsity 0.1" "32 1 8 8 5 2 1 2 2 2 16 1"
same_counts "yfcc15b at 128 ranks" "--preset yfcc15b --ranks 128" \
    "128 3 116 92 9 64 8 8 128 1 0"
if "$P" --preset yfcc15b --describe | grep -q '^parameters: 14994423808$'; then
    echo "PASS: modelpar yfcc15b has 14,994,423,808 parameters (15e9)"
else
    echo "FAIL: modelpar yfcc15b parameter count changed"
fi

# ---- training on 1, 2 and 4 ranks -----------------------------------------------
common=(--preset tiny --kernels reference --threads 1 --quiet)
run() { # name np [args...]
    local name=$1 np=$2
    shift 2
    $M -np "$np" "$P" "${common[@]}" --record "$T/$name.yaml" --dump-weights "$T/$name.w" "$@" \
        >"$T/$name.out" 2>&1 || echo "FAIL: modelpar $name: $(tail -n 3 "$T/$name.out")"
}
run one 1
run m2 2 --model-ranks 2
run m4 4 --model-ranks 4
run m14 4 --model-ranks 4 --grid 1x4
run h22 4 --model-ranks 2 --batch 1
# with the tensor-parallel dense pair (8 hidden units split over the model ranks)
run one_d 1 --dense 8
run m2_d 2 --model-ranks 2 --dense 8
run m4_d 4 --model-ranks 4 --dense 8
run h22_d 4 --model-ranks 2 --batch 1 --dense 8
# with the sparsity term
run one_s 1 --sparsity 0.05
run m4_s 4 --model-ranks 4 --sparsity 0.05
run h22_s 4 --model-ranks 2 --batch 1 --sparsity 0.05

python3 - "$T" <<'PY'
import os, struct, subprocess, sys, yaml
T = sys.argv[1]
def rec(n):
    with open("%s/%s.yaml" % (T, n)) as f:
        return yaml.safe_load(f)
def weights(path):
    with open(path, "rb") as f:
        b = f.read()
    return struct.unpack("<%df" % (len(b) // 4), b)
for name, gy, gx, ranks, dense in (("m2", 1, 2, 2, 0), ("m4", 2, 2, 4, 0), ("m14", 1, 4, 4, 0),
                                   ("h22", 1, 2, 4, 0), ("m2_d", 1, 2, 2, 8), ("m4_d", 2, 2, 4, 8),
                                   ("h22_d", 1, 2, 4, 8), ("m4_s", 2, 2, 4, 0), ("h22_s", 1, 2, 4, 0)):
    base = "one_d" if dense else "one_s" if name.endswith("_s") else "one"
    try:
        one = rec(base)
        w1 = weights("%s/%s.w.0" % (T, base))
    except OSError as e:
        print("FAIL: modelpar %s: no 1-rank run (%s)" % (base, e))
        continue
    try:
        r = rec(name)
    except OSError as e:
        print("FAIL: modelpar %s: no record (%s)" % (name, e))
        continue
    a, b = one["loss"]["steps"], r["loss"]["steps"]
    bad = [(x, y) for x, y in zip(a, b) if abs(x - y) > 1e-5 * abs(x)]
    if len(a) == 20 and len(b) == 20 and not bad:
        print("PASS: modelpar %s: 20 losses within 1e-5 of 1 rank" % name)
    else:
        print("FAIL: modelpar %s: losses differ from 1 rank: %s" % (name, bad[:3] or (len(a), len(b))))
    mp = r["model_parallel"]
    groupM = gy * gx
    subprocess.run([sys.executable, os.environ["COUNT_PY"],
                    "weights", "8", "1", "4", "4", "3", str(gy), str(gx), "%s/%s.w" % (T, name),
                    str(groupM), str(dense)], check=True)
    w = weights("%s/%s.w.whole" % (T, name))
    big = max(abs(x) for x in w1)
    d = max(abs(x - y) for x, y in zip(w1, w)) if len(w) == len(w1) else float("inf")
    if d <= 1e-5 * big:
        print("PASS: modelpar %s: shards gathered equal 1 rank's %d weights (max diff %.3g)" % (name, len(w), d))
    else:
        print("FAIL: modelpar %s: gathered weights differ from 1 rank's by %.3g (of %.3g)" % (name, d, big))
    if mp["halo_bytes_per_step"] == mp["halo_bytes_per_step_formula"] > 0:
        print("PASS: modelpar %s: halo bytes as run %d = the formula" % (name, mp["halo_bytes_per_step"]))
    else:
        print("FAIL: modelpar %s: halo bytes as run %s, formula %s" % (name, mp.get("halo_bytes_per_step"), mp["halo_bytes_per_step_formula"]))
    if dense:
        tp, want = mp.get("tp_bytes_per_step_rank0"), 4 * (groupM - 1) * (64 // groupM) * r["config"]["batch"] * 4 * 4
        if tp == mp["tp_bytes_per_step_rank_formula"] == want > 0:
            print("PASS: modelpar %s: tensor-parallel bytes as run %d = the formula" % (name, tp))
        else:
            print("FAIL: modelpar %s: tensor-parallel bytes as run %s, formula %s, counted here %d" %
                  (name, tp, mp["tp_bytes_per_step_rank_formula"], want))
PY

# ---- the small preset on 1, 2, 4 ranks and 2 x 2 hybrid ----------------------------------
smallrun() { # name np [args...]
    local name=$1 np=$2
    shift 2
    $M -np "$np" "$P" --preset small --kernels reference --threads 1 --quiet --steps 20 --warmup 0 \
        --record "$T/$name.yaml" --dump-weights "$T/$name.w" "$@" >"$T/$name.out" 2>&1 ||
        echo "FAIL: modelpar $name: $(tail -n 3 "$T/$name.out")"
}
smallrun sone 1
smallrun sm2 2 --model-ranks 2
smallrun sm4 4 --model-ranks 4
smallrun sh22 4 --model-ranks 2 --batch 1
python3 - "$T" <<'PY'
import os, struct, subprocess, sys, yaml
T = sys.argv[1]
def weights(path):
    with open(path, "rb") as f:
        b = f.read()
    return struct.unpack("<%df" % (len(b) // 4), b)
try:
    one = yaml.safe_load(open(T + "/sone.yaml"))
    w1 = weights(T + "/sone.w.0")
except OSError as e:
    print("FAIL: modelpar small: no 1-rank run (%s)" % e)
    sys.exit(0)
for name, gy, gx in (("sm2", 1, 2), ("sm4", 2, 2), ("sh22", 1, 2)):
    try:
        r = yaml.safe_load(open("%s/%s.yaml" % (T, name)))
    except OSError as e:
        print("FAIL: modelpar small %s: no record (%s)" % (name, e))
        continue
    a, b = one["loss"]["steps"], r["loss"]["steps"]
    bad = [(x, y) for x, y in zip(a, b) if abs(x - y) > 1e-5 * abs(x)]
    ok = len(a) == 20 and len(b) == 20 and not bad
    subprocess.run([sys.executable, os.environ["COUNT_PY"], "weights", "32", "1", "8", "8", "5",
                    str(gy), str(gx), "%s/%s.w" % (T, name), str(gy * gx), "0"], check=True)
    w = weights("%s/%s.w.whole" % (T, name))
    big = max(abs(x) for x in w1)
    d = max(abs(x - y) for x, y in zip(w1, w)) if len(w) == len(w1) else float("inf")
    mp = r["model_parallel"]
    what = "%d model ranks (%dx%d) x %d replica(s)" % (mp["model_ranks"], gy, gx, mp["replicas"])
    # the halo's gradients are summed in another order on another rank, and
    # Adam's m / sqrt(v) turns those rounding differences on near-zero
    # gradients into weight differences of up to a few 1e-5 of the largest
    # weight over 20 steps: equal within 1e-4 of it
    if ok and d <= 1e-4 * big:
        print("PASS: modelpar small on %s: 20 losses within 1e-5 of 1 rank, the shards gathered equal "
              "its %d weights within 1e-4 of the largest (max diff %.3g of %.3g)" % (what, len(w), d, big))
    else:
        print("FAIL: modelpar small on %s: losses %s, weights differ by %.3g (of %.3g)" %
              (what, bad[:3] or (len(a), len(b)), d, big))
PY

# ---- the data-parallel allreduce's bytes ------------------------------------------------
python3 - "$T" <<'PY'
import sys, yaml
T = sys.argv[1]
for name in ("h22", "h22_d", "h22_s", "sh22"):
    try:
        r = yaml.safe_load(open("%s/%s.yaml" % (T, name)))
    except OSError as e:
        print("FAIL: modelpar %s: no record (%s)" % (name, e))
        continue
    mp = r["model_parallel"]
    R, shard = mp["replicas"], 4 * mp["parameters_per_rank"]
    want = 2 * (R - 1) * shard // R
    wire = r["update_exchange"]["steps"]["wire_bytes"]
    groups = sum(g["bytes"] for g in r["gradient_reduction"]["group_list"])
    if R == 2 and mp["allreduce_bytes_per_step_rank"] == want and wire and all(x == want for x in wire) \
            and groups == shard:
        print("PASS: modelpar %s: the replicas' allreduce, %d bytes a rank per step as the update exchange "
              "counts them = 2 (R-1)/R x the shard's %d bytes, the engine's groups the whole shard" %
              (name, want, shard))
    else:
        print("FAIL: modelpar %s: allreduce bytes %s (formula %d, record %s), groups %d of shard %d" %
              (name, wire[:3], want, mp["allreduce_bytes_per_step_rank"], groups, shard))
PY

# ---- memory per rank ----------------------------------------------------------------
for m in 1 2 4; do
    $M -np $m "$P" --preset small --kernels reference --threads 1 --quiet --model-ranks $m \
        --record "$T/mem$m.yaml" >"$T/mem$m.out" 2>&1 || echo "FAIL: modelpar small $m: $(tail -n 3 "$T/mem$m.out")"
done
# ASan's redzones and quarantine count in the high-water mark: there only
# the fall with the model ranks is checked
asan=0
ldd "$P" 2>/dev/null | grep -q libasan && asan=1
python3 - "$T" "$asan" <<'PY'
import sys, yaml
T, asan = sys.argv[1], sys.argv[2] == "1"
prev = prevgot = None
for m in (1, 2, 4):
    try:
        with open("%s/mem%d.yaml" % (T, m)) as f:
            mp = yaml.safe_load(f)["model_parallel"]
    except (OSError, KeyError) as e:
        print("FAIL: modelpar memory at %d model ranks: no record (%s)" % (m, e))
        continue
    want = mp["memory_bytes_per_rank_formula"]
    got = mp["rank_hwm_bytes"]
    off = max(abs(g - want) / want for g in got)
    falls = prev is None or (want < prev and max(got) < prevgot)
    if falls and (off <= 0.10 or asan):
        print("PASS: modelpar memory per rank at %d model ranks %d, the formula %d (%.1f%% off)%s" %
              (m, max(got), want, 100 * off, ", ASan: only its fall checked" if asan else ""))
    else:
        print("FAIL: modelpar memory per rank at %d model ranks %s, formula %d" % (m, got, want))
    prev, prevgot = want, max(got)
PY

# ---- the harness: record kind, block, metrics and report section ----------------------
export EXADL_PEAK_CACHE=$T/peak.yaml # pinned: no peak_cpu runs here
python3 "$EXADL_ROOT/tests/support/peak_cache.py" "$EXADL_PEAK_CACHE" 2e10
cat >"$T/suite.yaml" <<EOF2
exadl_suite: 1
name: mp
launcher: mpirun
scaling: spatial
repetitions: 1
timeout_s: 300
benchmarks:
  - name: mp2
    program: $P
    scales: [2]
    config: {preset: tiny, model_ranks: 2, dense: 4, kernels: reference, threads: 1, steps: 3}
EOF2
mkdir -p "$T/runs"
if "$EXADL_BIN/exadl" run "$T/suite.yaml" --out "$T/runs" >"$T/exadl.out" 2>&1; then
    python3 - "$T"/runs/*-mp <<'PY'
import os, sys, yaml
d = sys.argv[1]
res = yaml.safe_load(open(d + "/results.yaml"))
rows = {m["metric"]: m for m in res.get("metrics", []) if m["metric"].startswith("mp_")}
rep = open(d + "/report.md").read()
ok = (rows.get("mp_halo_bytes_per_step", {}).get("value") == 2048 and
      rows.get("mp_tp_bytes_per_step", {}).get("value") == 4096 and
      rows.get("mp_parameters_per_rank", {}).get("value") == 7216 and
      "## Model parallelism" in rep and "| mp2 | 2 | 2 x 1 | 1x2 |" in rep and
      all(os.path.exists("%s/plots/model_parallel_%s.dat" % (d, p)) for p in ("step", "memory")))
print("%s: modelpar through exadl run: mp_* metrics %s, the report's model parallelism section and its plots" %
      ("PASS" if ok else "FAIL", sorted(rows)))
PY
else
    echo "FAIL: modelpar: exadl run of a modelpar suite: $(tail -n 3 "$T/exadl.out")"
fi

# ---- bad partitions -------------------------------------------------------------------
refused() { # name np args...: exit 2 and one line naming the problem
    local name=$1 np=$2 out rc
    shift 2
    out=$($M -np "$np" "$P" --preset tiny --steps 1 --quiet "$@" 2>&1)
    rc=$?
    if [ "$rc" = 2 ] && echo "$out" | grep -q "modelpar: error: .*$name"; then
        echo "PASS: modelpar refuses $*: $(echo "$out" | grep -m1 'error')"
    else
        echo "FAIL: modelpar $* not refused (exit $rc): $out"
    fi
}
refused "does not divide" 1 --model-ranks 3 --grid 1x3
refused "more model ranks than" 1 --model-ranks 65
refused "not model-ranks" 1 --model-ranks 4 --grid 1x2
refused "do not form model groups" 3 --model-ranks 2
refused "no grid of" 1 --model-ranks 7
refused "not divisible by model-ranks" 1 --model-ranks 4 --dense 6

# --model-ranks 0: one model group of every rank of the job (the default
# suite's entry over scales 1 and 2): the same run as --model-ranks 2
run all2 2 --model-ranks 0
run two2 2 --model-ranks 2
if grep -q '^  model_ranks: 2$' "$T/all2.yaml" 2>/dev/null && cmp -s "$T/all2.w.0" "$T/two2.w.0" &&
    cmp -s "$T/all2.w.1" "$T/two2.w.1"; then
    echo "PASS: modelpar --model-ranks 0 on 2 ranks is one model group of 2 (weights equal to --model-ranks 2)"
else
    echo "FAIL: modelpar --model-ranks 0: $(grep -m1 'model_ranks' "$T/all2.yaml" 2>/dev/null)"
fi
exit 0
