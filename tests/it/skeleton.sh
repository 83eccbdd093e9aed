#!/usr/bin/env bash
# The compute skeleton (benchmarks/skeleton, docs/simulate.md) over real MPI:
# - the inline engine (cycles on the rank's own thread, as under SMPI) and
#   the threaded one run the same step: every group reduced in every timed
#   step, each in at least one and at most ceil(bytes / fusion_bytes) + 1
#   fused reductions (where a fusion buffer's edge falls depends on which
#   groups a cycle found ready, so on timing: the engines need not agree),
#   and a step no shorter than the device's time (the device sleeps); no
#   upper bound on time, which a loaded machine would stretch (docs/gsync.md);
# - the record is a training record of kind skeleton whose validation says
#   that nothing was computed (skipped, never pass);
# - bad options end with one line and exit 2 on every rank.
set -u
B=${EXADL_BIN:?}
T=${EXADL_TMP:?}
M=${EXADL_MPIRUN:-mpirun}
fails=0
pass() { echo "PASS: skeleton: $*"; }
fail() { echo "FAIL: skeleton: $*"; fails=$((fails + 1)); }
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: skeleton: the checks read records with python3-yaml"; exit 77; }

for e in inline thread; do
    $M -np 2 "$B/skeleton" --preset small --device-flops 1e11 --steps 3 --warmup 1 --engine $e \
        --reduction flat --fusion-bytes 1M --record "$T/sk_$e.yaml" >"$T/sk_$e.out" 2>&1 ||
        fail "$e engine: exit $?: $(tail -n 3 "$T/sk_$e.out" | tr '\n' ' ')"
done
msg=$(python3 - "$T/sk_inline.yaml" "$T/sk_thread.yaml" <<'PY'
import re, sys, yaml
class L(yaml.SafeLoader): pass
L.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$"), list("-+0123456789"))
out = []
red = {}
for path in sys.argv[1:]:
    r = yaml.load(open(path), Loader=L)
    sk = r["skeleton"]
    eng = sk["engine"]
    assert r["benchmark"] == "skeleton" and r["status"] == "ok" and r["ranks"] == 2, (r["benchmark"], r["status"])
    v = {c["check"]: c["outcome"] for c in r["validation"]}
    assert v == {"computed": "skipped"}, v
    dev = sk["forward_s"] + sk["backward_s"] + sk["optimizer_s"]
    steps = r["timing"]["step_s"]
    gr = r["gradient_reduction"]
    assert len(steps) == 3 and all(dev <= s for s in steps), (eng, dev, steps)
    assert all(x >= 0 for x in gr["steps"]["exposed_s"]), gr["steps"]["exposed_s"]
    assert all(c > 0 for c in gr["steps"]["cycles"]), gr["steps"]["cycles"]
    # every group reduced in every timed step
    for st in gr["timeline"]:
        assert all(g[2] >= g[1] >= 0 and g[2] >= g[0] for g in st), (eng, st)
    red[eng] = [g["reductions"] for g in gr["group_list"]]
    fb = gr["fusion_bytes"]
    assert all(1 <= g["reductions"] <= -(-g["bytes"] // fb) + 1 for g in gr["group_list"]), (eng, fb, gr["group_list"])
    out.append("%s: device %.3f s, steps %s s" % (eng, dev, ", ".join("%.3f" % s for s in steps)))
assert len(red["inline"]) == len(red["thread"]), red
print("; ".join(out) + "; fused reductions per group: inline %s, thread %s" % (red["inline"], red["thread"]))
PY
)
if [ $? -eq 0 ]; then pass "inline and threaded engines: $msg"; else fail "engines: $msg"; fi

# bad options: one line, exit 2
for bad in "--grad-bytes 3" "--fusion-bytes 1G" "--preset nope" "--engine fast" "--device-flops 0" "--reduction ring"; do
    # shellcheck disable=SC2086
    $M -np 2 "$B/skeleton" $bad >"$T/bad.out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && [ "$(grep -c '^skeleton: error: ' "$T/bad.out")" = 1 ]; then
        pass "'$bad' refused: $(grep '^skeleton: error: ' "$T/bad.out")"
    else
        fail "'$bad': exit $rc: $(head -n 3 "$T/bad.out" | tr '\n' ' ')"
    fi
done
[ $fails = 0 ]
