#!/usr/bin/env bash
# Orchestration: the orch unit tests over 2 and 3 ranks (both modes release
# the same groups in the same cycles for random ready orders, ranks agree,
# timeouts name the missing tensor), and the `orchestration` program over 1,
# 2 and 3 ranks with its table and record.
set -u
bin=$EXADL_BIN/orchestration
tmp=${EXADL_TMP:-$(mktemp -d)}
for np in 2 3; do
    $EXADL_MPIRUN -np $np "$EXADL_BUILD/tests/test_coll_orch" >"$tmp/orch.out" 2>"$tmp/orch.err"
    rc=$?
    sed -n "s/^\(PASS\|FAIL\|SKIP\): /\1: np=$np /p" "$tmp/orch.out"
    if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$tmp/orch.out"; then
        echo "FAIL: test_coll_orch np=$np: exit $rc: $(tail -n 3 "$tmp/orch.err" | tr '\n' ' ')"
    fi
done
have_yaml=0
python3 -c 'import yaml' 2>/dev/null && have_yaml=1
for np in 1 2 3; do
    name="coll_orch benchmark np=$np"
    $EXADL_MPIRUN -np $np "$bin" --steps 6 --warmup-steps 1 \
        --record "$tmp/orch.yaml" >"$tmp/orch.out" 2>"$tmp/orch.err"
    rc=$?
    rows=$(awk '!/^#/ && NF == 12' "$tmp/orch.out" | wc -l)
    if [ $rc -ne 0 ] || [ "$rows" -ne 6 ]; then
        echo "FAIL: $name: exit $rc, $rows rows: $(tail -n 2 "$tmp/orch.err" | tr '\n' ' ')"
        continue
    fi
    if ! awk '!/^#/ && NF == 12 && ($4 != '"$np"' || $5 != 27)' "$tmp/orch.out" | grep -q . &&
        grep -q 'gb2019 FC-DenseNet, 27 tensors in 25 layers' "$tmp/orch.out"; then
        echo "PASS: $name"
    else
        echo "FAIL: $name: ranks or tensors columns wrong"
    fi
    if [ $have_yaml = 1 ]; then
        msg=$(python3 - "$tmp/orch.yaml" "$np" <<'PY'
import re, sys, yaml
class L(yaml.SafeLoader): pass   # YAML 1.1 wants a dot in floats; the record writes 1e-09
L.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$"), list("-+0123456789"))
r = yaml.load(open(sys.argv[1]), Loader=L); np = int(sys.argv[2])
assert r["benchmark"] == "orchestration" and r["status"] == "ok", "status %s" % r["status"]
assert all(v["outcome"] == "pass" for v in r["validation"]), r["validation"]
rows = r["results"]
assert len(rows) == 6, len(rows)
for w in rows:
    for k in ("mode grouping groups ranks tensors cycles time_s median_s ci_lo_s ci_hi_s "
              "min_s max_s").split():
        assert k in w, k
    assert w["ranks"] == np and w["tensors"] == 27 and len(w["time_s"]) == 6
    assert w["groups"] == {"none": 27, "layer": 25, "even": 4}[w["grouping"]], w
    assert w["cycles"] == 27, w["cycles"]  # one tensor per cycle: the last is ready at cycle 27
PY
)
        if [ $? -eq 0 ]; then echo "PASS: $name record"; else echo "FAIL: $name record: $msg"; fi
    fi
done
$EXADL_MPIRUN -np 2 "$bin" --tensors 10,40 --grouping even --groups 3 \
    --steps 4 --warmup-steps 1 >"$tmp/orch.out" 2>&1
rc=$?
rows=$(awk '!/^#/ && NF == 12' "$tmp/orch.out" | wc -l)
if [ $rc -eq 0 ] && [ "$rows" -eq 4 ] && ! awk '!/^#/ && NF == 12 && $3 != 3' "$tmp/orch.out" | grep -q .; then
    echo "PASS: coll_orch synthetic tensor counts"
else
    echo "FAIL: coll_orch synthetic tensor counts ($rows rows)"
fi
