#!/usr/bin/env bash
# Simulation (docs/simulate.md): the simulated build (build-smpi, make smpi)
# under SimGrid's smpirun on the tiny platform beside this script (16 nodes,
# 1 GB/s links of 10 us, a non-blocking backbone of 10 us; 4 ranks per node).
#  - allreduce by recursive doubling (rdb) and by the logical ring (lr) over 16
#    ranks, one per node: the simulated time equals the alpha-beta formula of
#    the platform within 5% (2 MiB), and at 8 bytes (rdb) lies between the formula
#    and the formula plus one latency (the barrier before each iteration lets
#    ranks start up to one message apart; the time is the maximum over ranks);
#  - the orchestration benchmark at 64 simulated ranks: both modes run, the
#    coordinator costs more per step than the bit vector, and the record
#    carries the simulation block (simulated, wall time, peak memory);
#  - platgen.py's fat tree and dragonfly run an allreduce; a bad node count
#    is refused;
#  - `exadl run` with the smpi launcher: the simulated record goes through the
#    same reading, analysis and report as a measured one, and the report's
#    Simulation section and launches table say it was simulated;
#  - the compute skeleton at 4 and 16 ranks with the suite's model: key: the
#    simulated and the modelled step side by side, within 50% of each other.
# Runs in the normal build only (the simulated build has no sanitizer variant;
# the sanitizer build would run the same simulation again): about 10 s.
set -u
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$root/tests/it
smpi=$root/harness/launchers/smpi.sh
if [ "$(basename "${EXADL_BUILD:-build}")" != build ]; then
    echo "SKIP: smpi: runs in the normal build only"
    exit 77
fi
if ! command -v smpirun >/dev/null; then
    echo "SKIP: smpi: no smpirun (apt-get install libsimgrid-dev; ./run.sh simulate)"
    exit 77
fi
fails=0
pass() { echo "PASS: smpi: $*"; }
fail() { echo "FAIL: smpi: $*"; fails=$((fails + 1)); }
for p in collectives orchestration skeleton; do
    [ -x "$root/build-smpi/bin/$p" ] || { fail "build-smpi/bin/$p missing: smpicc is here, so make test builds it (make smpi)"; exit 1; }
done
have_yaml=0
python3 -c 'import yaml' 2>/dev/null && have_yaml=1
[ $have_yaml = 1 ] || { echo "SKIP: smpi: the checks read records with python3-yaml"; exit 77; }
export EXADL_SMPI_PLATFORM=$here/smpi_tiny.xml

# ---- alpha-beta -------------------------------------------------------------
# lr falls back to another algorithm below p elements: 2 MiB only.  The
# barrier before each iteration by recursive doubling releases all ranks
# within a latency of each other (a linear barrier would add one more)
for alg in rdb lr; do
    small=8
    [ $alg = lr ] && small=2M
    EXADL_SMPI_COLL="allreduce:$alg barrier:ompi_recursivedoubling" "$smpi" -np 16 --hostfile "$here/smpi_tiny_1.hosts" -- \
        "$root/build/bin/collectives" --op allreduce -b $small -e 2M -f 262144 -n 1 -w 1 \
        --inplace no --record "$tmp/ab_$alg.yaml" >"$tmp/ab_$alg.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { fail "allreduce $alg: exit $rc: $(tail -n 3 "$tmp/ab_$alg.out" | tr '\n' ' ')"; continue; }
    msg=$(python3 - "$tmp/ab_$alg.yaml" "$here/smpi_tiny.xml" "$alg" <<'PY'
import math, re, sys, yaml
import xml.etree.ElementTree as ET
class L(yaml.SafeLoader): pass
L.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$"), list("-+0123456789"))
rec, plat, alg = yaml.load(open(sys.argv[1]), Loader=L), sys.argv[2], sys.argv[3]
c = ET.parse(plat).getroot().find(".//cluster").attrib
unit = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "GBps": 1e9, "MBps": 1e6}
num = lambda v: float(re.match(r"[0-9.]+", v).group()) * unit[re.sub(r"^[0-9.]+", "", v)]
# a route: the sender's link, the backbone, the receiver's link
alpha = 2 * num(c["lat"]) + num(c["bb_lat"])
beta = num(c["bw"])           # bytes/s; links are full duplex (SPLITDUPLEX)
p = rec["ranks"]
assert rec["status"] == "ok" and rec["simulation"]["simulated"] is True, rec.get("simulation")
out = []
for row in rec["results"]:
    n, t = row["bytes"], row["median_s"]
    if alg == "rdb":      # log2 p rounds, each a full exchange of n bytes
        f = math.log2(p) * (alpha + n / beta)
    else:                 # ring reduce-scatter then allgather: 2(p-1) steps of n/p bytes
        f = 2 * (p - 1) * (alpha + n / p / beta)
    if n >= 1 << 20:
        ok = abs(t - f) / f < 0.05
    else:
        ok = f * 0.999 <= t <= (f + alpha) * 1.001
    out.append("%s n=%d sim %.1f us formula %.1f us %s" % (alg, n, t * 1e6, f * 1e6, "ok" if ok else "OFF"))
    assert ok, "; ".join(out)
print("; ".join(out))
PY
)
    if [ $? -eq 0 ]; then pass "alpha-beta $msg"; else fail "alpha-beta: $msg"; fi
done

# ---- orchestration at 64 simulated ranks ----------------------------------------
"$smpi" -np 64 -- "$root/build/bin/orchestration" --steps 2 --warmup-steps 1 --grouping layer \
    --record "$tmp/orch.yaml" >"$tmp/orch.out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    fail "orchestration 64 ranks: exit $rc: $(tail -n 3 "$tmp/orch.out" | tr '\n' ' ')"
else
    msg=$(python3 - "$tmp/orch.yaml" <<'PY'
import re, sys, yaml
class L(yaml.SafeLoader): pass
L.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$"), list("-+0123456789"))
r = yaml.load(open(sys.argv[1]), Loader=L)
assert r["status"] == "ok" and r["ranks"] == 64, (r["status"], r["ranks"])
assert all(v["outcome"] == "pass" for v in r["validation"]), r["validation"]
m = {w["mode"]: w["median_s"] for w in r["results"]}
assert m["coordinator"] > m["cache"] > 0, m
s = r["simulation"]
assert s["simulated"] is True and s["ranks"] == 64 and s["wall_s"] > 0 and s.get("peak_memory_bytes", 1) > 0, s
print("coordinator %.1f us > bit vector %.1f us per step; wall %.1f s" % (m["coordinator"] * 1e6, m["cache"] * 1e6, s["wall_s"]))
PY
)
    if [ $? -eq 0 ]; then pass "orchestration at 64 ranks: $msg"; else fail "orchestration at 64 ranks: $msg"; fi
fi

# ---- extra settings: a receive overhead (LogP's o) makes rank 0's gathers dearer --
for o in none or; do
    cfg=
    [ $o = or ] && cfg=smpi/or:0:5e-6:0
    EXADL_SMPI_CFG=$cfg "$smpi" -np 16 --hostfile "$here/smpi_tiny_1.hosts" -- "$root/build/bin/orchestration" \
        --steps 1 --warmup-steps 1 --grouping layer --mode coordinator --record "$tmp/or_$o.yaml" >"$tmp/or_$o.out" 2>&1 ||
        fail "orchestration with EXADL_SMPI_CFG='$cfg': $(tail -n 2 "$tmp/or_$o.out" | tr '\n' ' ')"
done
msg=$(python3 - "$tmp/or_none.yaml" "$tmp/or_or.yaml" <<'PY'
import sys, yaml
a, b = (yaml.safe_load(open(p)) for p in sys.argv[1:])
ta, tb = a["results"][0]["median_s"], b["results"][0]["median_s"]
assert b["simulation"]["extra_settings"] == "smpi/or:0:5e-6:0", b["simulation"]
# 27 cycles, rank 0 receives log2(16) = 4 messages of the binomial gather in each: >= 27 x 4 x 5 us more
assert tb - ta >= 27 * 4 * 5e-6 * 0.99, (ta, tb)
print("coordinator step %.1f us without, %.1f us with 5 us per received message" % (ta * 1e6, tb * 1e6))
PY
)
if [ $? -eq 0 ]; then pass "EXADL_SMPI_CFG: $msg"; else fail "EXADL_SMPI_CFG: $msg"; fi
EXADL_SMPI_CFG='smpi/or:0;rm' "$smpi" -np 2 -- "$root/build/bin/orchestration" >"$tmp/badcfg.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "^smpi.sh: EXADL_SMPI_CFG: 'smpi/or:0;rm' has characters" "$tmp/badcfg.out" &&
    pass "EXADL_SMPI_CFG with a shell character refused, exit 2" ||
    fail "EXADL_SMPI_CFG 'smpi/or:0;rm': exit $rc: $(cat "$tmp/badcfg.out")"

# ---- the generator: a fat tree and a dragonfly SimGrid accepts and runs on --------
for topo in fattree dragonfly; do
    python3 "$root/reference/platforms/platgen.py" --topology $topo --nodes 64 --gpus-per-node 2 \
        --link-gbps 25 --link-lat-us 1 --out "$tmp/$topo" >"$tmp/gen.out" 2>&1 &&
        EXADL_SMPI_PLATFORM=$tmp/$topo.xml "$smpi" -np 16 -- "$root/build/bin/collectives" \
            --op allreduce -b 8 -e 8 -n 1 -w 1 --inplace no >"$tmp/$topo.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -qE '^ +8 +2 +float32' "$tmp/$topo.out"; then
        pass "platgen $topo: 64 nodes, allreduce over 16 simulated ranks"
    else
        fail "platgen $topo: exit $rc: $(tail -n 3 "$tmp/gen.out" "$tmp/$topo.out" | tr '\n' ' ')"
    fi
done
python3 "$root/reference/platforms/platgen.py" --topology fattree --nodes 4093 --gpus-per-node 1 \
    --link-gbps 1 --link-lat-us 1 --out "$tmp/bad" >"$tmp/gen.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q '^platgen: error: --nodes 4093' "$tmp/gen.out" && [ ! -e "$tmp/bad.xml" ] &&
    pass "platgen refuses a node count no fat tree has, in one line" ||
    fail "platgen on 4093 nodes: exit $rc: $(cat "$tmp/gen.out")"

# ---- the compute skeleton: the gradient engine inline, device time, Rabenseifner --------
# 16 ranks, one per node: one group (--grouping 1) in one fused reduction of
# every fp16 gradient (n = parameters x 2 bytes): its span in the timeline is
# Rabenseifner's allreduce over 16 ranks, log2 16 halving and as many
# doubling rounds of alpha + bytes / beta, 2 x 15/16 n bytes in all.  The
# step is the device's time (forward + backward + optimizer) plus what was
# exposed.  Then 16 ranks on 4 nodes: the hierarchical reduction runs.
"$smpi" -np 16 --hostfile "$here/smpi_tiny_1.hosts" -- "$root/build/bin/skeleton" --preset tiny \
    --device-flops 1e9 --steps 2 --warmup 1 --grouping 1 --fusion-bytes 256M --cycle-ms 1 \
    --record "$tmp/skel.yaml" >"$tmp/skel.out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    fail "skeleton 16 ranks: exit $rc: $(tail -n 3 "$tmp/skel.out" | tr '\n' ' ')"
else
    msg=$(python3 - "$tmp/skel.yaml" "$here/smpi_tiny.xml" <<'PY'
import math, re, sys, yaml
import xml.etree.ElementTree as ET
class L(yaml.SafeLoader): pass
L.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$"), list("-+0123456789"))
r = yaml.load(open(sys.argv[1]), Loader=L)
c = ET.parse(sys.argv[2]).getroot().find(".//cluster").attrib
unit = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "GBps": 1e9, "MBps": 1e6}
num = lambda v: float(re.match(r"[0-9.]+", v).group()) * unit[re.sub(r"^[0-9.]+", "", v)]
alpha, beta = 2 * num(c["lat"]) + num(c["bb_lat"]), num(c["bw"])
assert r["status"] == "ok" and r["simulation"]["simulated"] is True and r["ranks"] == 16, r["status"]
sk, gr = r["skeleton"], r["gradient_reduction"]
assert sk["reduction"] == "flat" and sk["engine"] == "inline" and gr["groups"] == 1, (sk, gr["groups"])
assert [g["reductions"] for g in gr["group_list"]] == [1], gr["group_list"]
p, n = 16, r["network"]["parameters"]
block = math.ceil(n / p)
f = 2 * sum(alpha + block * m * 2 / beta for m in (8, 4, 2, 1))
out = []
for st, step, exp in zip(gr["timeline"], r["timing"]["step_s"], gr["steps"]["exposed_s"]):
    ready, start, end = st[0]
    span = end - start
    ok = abs(span - f) <= 0.05 * f + alpha
    out.append("reduction %.1f us, formula %.1f us %s" % (span * 1e6, f * 1e6, "ok" if ok else "OFF"))
    assert ok, "; ".join(out)
    dev = sk["forward_s"] + sk["backward_s"] + sk["optimizer_s"]
    assert dev <= step and abs(step - dev - exp) <= 0.05 * exp + 3 * alpha + 1e-3, (step, dev, exp)
print("; ".join(out) + "; step %.3f ms = device %.3f ms + exposed %.3f ms" % (step * 1e3, dev * 1e3, exp * 1e3))
PY
)
    if [ $? -eq 0 ]; then pass "skeleton, 16 ranks: $msg"; else fail "skeleton, 16 ranks: $msg"; fi
fi
"$smpi" -np 16 -- "$root/build/bin/skeleton" --preset tiny --device-flops 1e9 --steps 1 --warmup 1 \
    --record "$tmp/skelh.yaml" >"$tmp/skelh.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^  reduction: hierarchical' "$tmp/skelh.yaml" && grep -q "^transport: 'mpi-hierarchical'\|^  transport: mpi-hierarchical" "$tmp/skelh.yaml"; then
    pass "skeleton, 16 ranks on 4 nodes: hierarchical reduction (in the node, between nodes, in the node)"
else
    fail "skeleton hierarchical: exit $rc: $(tail -n 3 "$tmp/skelh.out" | tr '\n' ' ')"
fi

# ---- the harness over a simulated run ---------------------------------------------
exadl=${EXADL_BIN:-$root/build/bin}/exadl
cat >"$tmp/sim.yaml" <<EOF
name: sim
description: the orchestration benchmark at 64 simulated ranks on the tiny platform
launcher: smpi
scales: [64]
repetitions: 1
timeout_s: 120
env:
  EXADL_SMPI_PLATFORM: "$here/smpi_tiny.xml"
benchmarks:
  - name: orchestration
    program: orchestration
    config: {steps: 2, warmup_steps: 1, grouping: layer}
EOF
out=$("$exadl" run "$tmp/sim.yaml" --out "$tmp/res" 2>&1); rc=$?
run=$(ls -d "$tmp"/res/*-sim 2>/dev/null | head -1)
rec=$(ls "$run"/records/orchestration-n64-r1.yaml 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$rec" ] && grep -q '^  simulated: true' "$rec" && [ -f "$run/report.md" ] &&
    grep -q 'benchmark: orchestration, scale: 64' "$run/results.yaml"; then
    pass "exadl run, launcher smpi: record read and analysed at 64 ranks, report written"
else
    fail "exadl run with launcher smpi: exit $rc"
    echo "$out" | tail -n 20 | sed 's/^/    /'
fi
# the report says the numbers were simulated (docs/simulate.md "In the report");
# a simulated launch gets no interference verdict (SimGrid's seconds do not
# depend on the host's load), so it is never marked "(busy)"
if [ -f "$run/report.md" ] && grep -q '^## Simulation' "$run/report.md" &&
    grep -qE '^\| orchestration \| orchestration-n64-r1 \| simulated \| 64 \| smpi_tiny\.xml \| per step: coordinator' "$run/report.md" &&
    grep -qE '^\| orchestration-n64-r1 \(simulated\) \| ok \|' "$run/report.md" &&
    grep -q "interference: {verdict: unknown, why: 'simulated: SimGrid" "$run/results.yaml"; then
    pass "report: Simulation section (platform, simulated time per mode) and the launch marked simulated"
else
    fail "report of the simulated run lacks the Simulation section or the mark: $(grep -n 'imulat' "$run/report.md" 2>/dev/null | head -5)"
fi
# ---- the skeleton: simulated, modelled, side by side -----------------------------
# the compute skeleton at 4 and 16 simulated ranks with the suite's model:
# key (a machine file of the tiny platform's numbers): the Simulation section
# has a simulated and a modelled row at each scale, and they agree within 50%
if [ -x "$root/build-smpi/bin/skeleton" ]; then
    cat >"$tmp/tiny-machine.yaml" <<EOF
exadl_machine: 1
name: smpi-tiny
nodes: 16
ranks_per_node: 4
intra_node: {latency_s: 2.0e-6, bandwidth_Bps: 3.2e10}
inter_node: {latency_s: 3.0e-5, bandwidth_Bps: 1.0e9}
EOF
    cat >"$tmp/skel.yaml" <<EOF
name: skel
launcher: smpi
scales: [4, 16]
repetitions: 1
timeout_s: 120
env:
  EXADL_SMPI_PLATFORM: "$here/smpi_tiny.xml"
model: {base: skeleton, machine: "$tmp/tiny-machine.yaml"}
benchmarks:
  - name: skeleton
    program: skeleton
    config: {preset: tiny, steps: 2, warmup: 1, device_flops: 1e9}
EOF
    out=$("$exadl" run "$tmp/skel.yaml" --out "$tmp/skres" 2>&1); rc=$?
    rep=$(ls "$tmp"/skres/*-skel/report.md 2>/dev/null | head -1)
    msg=$(awk -F' [|] ' '$3 == "simulated" || $3 == "modelled" {
            v = $6; sub(/^(median step|step) /, "", v); sub(/[,(].*/, "", v); split(v, w, " ");
            t = w[1] * (w[2] == "ms" ? 1e-3 : w[2] == "us" ? 1e-6 : 1); x[$3 " " $4] = t }
          END { ok = 1; for (n = 4; n <= 16; n *= 4) {
                  s = x["simulated " n]; m = x["modelled " n];
                  printf "n=%d simulated %.3g s modelled %.3g s; ", n, s, m;
                  if (!(s > 0 && m > 0 && m < 1.5 * s && s < 1.5 * m)) ok = 0 }
                exit !ok }' "${rep:-/dev/null}")
    arc=$?
    if [ $rc -eq 0 ] && [ $arc -eq 0 ] && grep -q '| modelled | 16 |' "$rep"; then
        pass "skeleton: simulated and modelled step side by side: $msg"
    else
        fail "skeleton simulated beside modelled: exit $rc: $msg $(echo "$out" | tail -n 3 | tr '\n' ' ')"
    fi
fi
[ $fails -eq 0 ]
