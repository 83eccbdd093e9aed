#!/usr/bin/env bash
# The 3D U-Net's result record and its spatial model (docs/record.md
# "unet3d", docs/spatial.md "The 3D U-Net's model"):
# - `cosmoflow --network unet3d --record` at 1 and 2 spatial ranks (unet-tiny,
#   1 warm-up + 3 timed steps) writes an ok record of kind cosmoflow: the
#   warm-up apart from the timed steps, executed FLOPs per rank step x
#   kernels_steps = the kernel table's sum (every row with its dtype), the
#   forward conv FLOPs and parameters = `--describe`'s, one gradient
#   tensor per layer summing to 4 x parameters, rank 0's halo bytes per
#   step 289,952 and 41 messages at 2 ranks (one padded plane per 3^3
#   layer's input, forward and weight gradient, and per data gradient);
# - `exadl run` of a suite with a unet3d entry at 1 and 2 ranks (`--spatial
#   auto`) ends ok, and `exadl analyze` rebuilds its results and report
#   (the spatial section) without error;
# - `exadl model --spatial --machine` on that run: the U-Net's terms, rank
#   0's predicted halo bytes and messages equal the record's, halo_s =
#   messages x alpha + bytes x beta and the batch-norm sums' sync_s > 0 at
#   2 ranks; compute halves from 1 to 2 ranks.
# Counts only: no timing is asserted.
set -u
C=$EXADL_BIN/cosmoflow
X=$EXADL_BIN/exadl
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
common=(--network unet3d --preset unet-tiny --lr 0.02 --steps 3 --warmup 1 --quiet)

"$C" --network unet3d --preset unet-tiny --describe >"$T/describe.out" 2>&1 ||
    echo "FAIL: unet3d --describe: $(tail -n 2 "$T/describe.out")"
"$C" "${common[@]}" --record "$T/one.yaml" >"$T/one.out" 2>&1 ||
    echo "FAIL: unet3d --record at 1 rank: $(tail -n 3 "$T/one.out")"
$M -np 2 "$C" "${common[@]}" --spatial 2 --record "$T/two.yaml" >"$T/two.out" 2>&1 ||
    echo "FAIL: unet3d --record at 2 ranks: $(tail -n 3 "$T/two.out")"

# every check of one record, one PASS/FAIL line each (python3's yaml reads it
# as the harness does, whole rows however the writer wrapped them)
check_record() { # label record ranks want_halo want_msgs
    python3 - "$@" "$T/describe.out" <<'EOF'
import sys, yaml
label, path, ranks, want_halo, want_msgs, desc = sys.argv[1:7]
try:
    r = yaml.safe_load(open(path))
except Exception as e:
    print(f"FAIL: {label}: the record does not read: {e}")
    sys.exit(0)
d = {}
for line in open(desc):
    f = line.split()
    if len(f) >= 2 and f[1].isdigit():
        d[f[0]] = int(f[1])
def check(ok, what):
    print(("PASS: " if ok else "FAIL: ") + f"{label}: {what}")
check(r.get("benchmark") == "cosmoflow" and r.get("status") == "ok" and r.get("ranks") == int(ranks)
      and r["config"].get("network") == "unet3d",
      f"kind cosmoflow, status {r.get('status')}, {r.get('ranks')} ranks, network unet3d")
t = r.get("timing", {})
check(len(t.get("warmup_s", [])) == 1 and len(t.get("step_s", [])) == 3 and
      len(r.get("loss", {}).get("steps", [])) == 3 and len(t.get("rank_step_s", [])) == 3 and
      all(len(x) == int(ranks) for x in t.get("rank_step_s", [])),
      "1 warm-up step apart from 3 timed steps (times, losses, per-rank times)")
ks = r.get("kernels", [])
tab = sum(k["flops"] for k in ks)
fl = r.get("flops", {})
check(r.get("kernels_steps") == 3 and ks and tab == fl.get("executed_per_rank_step", -1) * 3
      and all(k.get("dtype") in ("fp32", "bf16") for k in ks),
      f"kernel table ({len(ks)} rows, each with its dtype) sums to {tab} = 3 x executed_per_rank_step "
      f"{fl.get('executed_per_rank_step')}")
check(fl.get("forward_conv_per_sample") == d.get("forward_conv_flops_per_sample") and
      fl.get("convention_per_sample") == 3 * d.get("forward_conv_flops_per_sample", 0) and
      r["network"].get("parameters") == d.get("parameters") and
      r["network"].get("conv_weights") == d.get("conv_weights"),
      f"forward conv FLOPs {fl.get('forward_conv_per_sample')} and parameters "
      f"{r['network'].get('parameters')} = --describe's")
g = r.get("gradient_reduction", {})
gb = sum(x["bytes"] for x in g.get("tensors", []))
check(len(g.get("tensors", [])) == d.get("layers") and gb == 4 * d.get("parameters", 0) and
      len(g.get("steps", {}).get("reduce_s", [])) == 3,
      f"gradient_reduction: {len(g.get('tensors', []))} tensors, {gb} bytes = 4 x parameters")
sp = r.get("spatial", {})
check(sp.get("network") == "unet3d" and sp.get("split") == [int(ranks), 1, 1] and
      sp.get("halo_bytes_per_sample") == int(want_halo) and
      sp.get("halo_messages_per_step") == int(want_msgs) and len(sp.get("layers", [])) == 14,
      f"spatial: split {sp.get('split')}, rank 0's halo {sp.get('halo_bytes_per_sample')} bytes "
      f"(want {want_halo}) in {sp.get('halo_messages_per_step')} messages (want {want_msgs}), "
      f"{len(sp.get('layers', []))} 3^3 layers")
v = {x["check"]: x["outcome"] for x in r.get("validation", [])}
check(v.get("halo_bytes_counted") == "pass" and v.get("loss_finite") == "pass",
      f"validation: {v}")
EOF
}
[ -s "$T/one.yaml" ] && check_record "1 rank" "$T/one.yaml" 1 0 0
[ -s "$T/two.yaml" ] && check_record "2 ranks" "$T/two.yaml" 2 289952 41

# ---- exadl run of a suite with a unet3d entry at 1 and 2 ranks, analyze
cat >"$T/suite.yaml" <<EOF
exadl_suite: 1
name: unet-tiny
description: the 3D U-Net at 16^3 on 1 and 2 spatial ranks
launcher: mpirun
scaling: spatial
scales: [1, 2]
repetitions: 1
timeout_s: 300
env:
  OMP_NUM_THREADS: "1"
  OMPI_MCA_rmaps_base_oversubscribe: "1"
benchmarks:
  - name: unet3d
    program: cosmoflow
    config: {network: unet3d, preset: unet-tiny, spatial: auto, lr: 0.02, steps: 3, warmup: 1}
EOF
if "$X" run "$T/suite.yaml" --out "$T/run" >"$T/run.out" 2>&1; then
    R=$(ls -d "$T"/run/*/ | head -n 1)
    if "$X" analyze "$R" >"$T/analyze.out" 2>&1 && [ -s "$R/results.yaml" ] &&
        grep -q '^### Spatial decomposition, halo exchange and the model' "$R/report.md"; then
        echo "PASS: exadl run of a unet3d suite at 1 and 2 ranks; exadl analyze reads its records (report with the spatial section)"
    else
        echo "FAIL: exadl analyze of the unet3d run: $(tail -n 3 "$T/analyze.out")"
    fi
    if "$X" model "$R" --spatial --scales 1,2 --machine "$SRC/reference/machines/dev-2core.yaml" \
        --out "$T/model" --quiet >"$T/model.out" 2>&1; then
        python3 - "$T/model/spatial_model.yaml" <<'EOF'
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
a, b = m["alpha_s"], m["beta_s_per_byte"]
v = {x["ranks"]: x for x in m.get("validation", [])}
ok = m.get("network") == "unet3d" and 1 in v and 2 in v
p = v.get(2, {})
def near(x, y):
    return abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-30)
halo = p.get("halo_bytes_rank0"), p.get("halo_messages_rank0")
print(("PASS: " if ok and halo == (289952, 41) else "FAIL: ") +
      f"exadl model --spatial (U-Net): rank 0's predicted halo at 2 ranks {halo}, the record's (289952, 41)")
want = p.get("halo_messages_rank0", 0) * a + p.get("halo_bytes_rank0", 0) * b
print(("PASS: " if ok and a > 0 and b > 0 and near(p.get("halo_s", -1), want) and p.get("sync_s", 0) > 0
       and p.get("gather_s", 1) == 0 else "FAIL: ") +
      f"exadl model --spatial: halo_s {p.get('halo_s')} = messages x alpha + bytes x beta {want}; "
      f"batch-norm sums {p.get('sync_s')} s; no gather")
c1, c2 = v.get(1, {}).get("compute_s", 0), p.get("compute_s", 0)
print(("PASS: " if ok and c1 > 0 and near(c2, c1 / 2) else "FAIL: ") +
      f"exadl model --spatial: compute {c2} s at 2 ranks = half of {c1} s (the planes split)")
EOF
    else
        echo "FAIL: exadl model --spatial on the unet3d run: $(tail -n 3 "$T/model.out")"
    fi
else
    echo "FAIL: exadl run of a unet3d suite: $(tail -n 5 "$T/run.out")"
fi
exit 0
