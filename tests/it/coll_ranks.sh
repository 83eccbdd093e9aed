#!/usr/bin/env bash
# collectives over 1, 2 and 3 ranks: every operation, five types, every
# reduction; exit 0, no wrong element, the rows and the record as documented.
set -u
bin=$EXADL_BIN/collectives
tmp=${EXADL_TMP:-$(mktemp -d)}
have_yaml=0
python3 -c 'import yaml' 2>/dev/null && have_yaml=1
for np in 1 2 3; do
    name="coll_ranks np=$np"
    out=$tmp/ranks$np.txt rec=$tmp/ranks$np.yaml err=$tmp/ranks$np.err
    $EXADL_MPIRUN -np $np "$bin" --op all --dtype float32,float64,float16,bfloat16,int32 --redop all \
        -e 1K -n 3 -w 1 --record "$rec" >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL: $name: exit $rc: $(tail -n 3 "$err" | tr '\n' ' ')"; continue; fi
    # table: columns 9 and 13 are #wrong (out-of-place, in-place)
    bad=$(awk '!/^#/ && NF >= 13 && ($9 != 0 || ($13 != 0 && $13 != "nan"))' "$out" | head -n 3)
    rows=$(awk '!/^#/ && NF >= 13' "$out" | wc -l)
    if [ -n "$bad" ]; then echo "FAIL: $name: rows with wrong elements: $bad"; continue; fi
    grep -q '^# wrong elements: 0$' "$out" || { echo "FAIL: $name: no '# wrong elements: 0' line"; continue; }
    # 3 reducing ops x 5 types x 3 reductions + non-reducing x 5 types, 9 sizes (4 B .. 1 KiB),
    # the splitting ones from one element per rank on
    [ "$rows" -gt 300 ] || { echo "FAIL: $name: only $rows table rows"; continue; }
    echo "PASS: $name: $rows rows, 0 wrong"
    if [ $have_yaml = 1 ]; then
        msg=$(python3 - "$rec" "$np" <<'PY'
import re, sys, yaml
class L(yaml.SafeLoader): pass   # YAML 1.1 wants a dot in floats; the record writes 1e-09
L.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$"), list("-+0123456789"))
rec = yaml.load(open(sys.argv[1]), Loader=L); np = int(sys.argv[2])
def need(c, m):
    if not c: print(m); sys.exit(1)
for k in ("exadl_record", "benchmark", "status", "error", "started_utc", "command", "system",
          "config", "ranks", "gpus", "backend", "precision", "validation", "results"):
    need(k in rec, "record lacks %s" % k)
need(rec["benchmark"] == "collectives" and rec["status"] == "ok", "benchmark/status")
need(rec["ranks"] == np and rec["gpus"] == 0 and rec["backend"] == "mpi", "ranks/gpus/backend")
need(rec["validation"][0]["outcome"] == "pass", "validation not pass")
ops = {r["op"] for r in rec["results"]}
want = {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce", "alltoall",
        "vote_1bit", "sum_pbit"}
if np > 1: want.add("pingpong")
need(ops == want, "ops %s" % sorted(ops))
keys = ("op dtype redop root inplace bytes count iterations warmup time_s median_s ci_lo_s "
        "ci_hi_s min_s max_s algbw_GBps busbw_GBps busbw_factor latency_us wrong").split()
# nccl-tests' factors (pingpong: one way, factor 1), written here independently
factor = {"allreduce": 2 * (np - 1) / np, "allgather": (np - 1) / np, "reduce_scatter": (np - 1) / np,
          "alltoall": (np - 1) / np, "broadcast": 1, "reduce": 1, "pingpong": 1,
          # the sign exchanges: the fp32 allreduce's, busbw = fp32-equivalent (docs/lioncub.md)
          "vote_1bit": 2 * (np - 1) / np, "sum_pbit": 2 * (np - 1) / np}
def wire(op, count):  # bytes one rank sends: 2 (n-1) chunks of the packed words
    p = 1 if op == "vote_1bit" else max(1, (np).bit_length())
    words = -(-count // (64 // p))
    return 2 * (np - 1) * (-(-words // np)) * 8
for r in rec["results"]:
    for k in keys: need(k in r, "row lacks %s" % k)
    need(r["wrong"] == 0, "wrong in %s" % r)
    need(len(r["time_s"]) == r["iterations"] == 3 and r["warmup"] == 1, "samples %s" % r["op"])
    need(r["min_s"] <= r["median_s"] <= r["max_s"], "order of stats")
    need(abs(r["latency_us"] - r["median_s"] * 1e6) < 1e-6 * max(1, r["latency_us"]), "latency")
    need(abs(r["algbw_GBps"] - r["bytes"] / r["median_s"] / 1e9) < 1e-9 * max(1, r["algbw_GBps"]), "algbw")
    need(abs(r["busbw_factor"] - factor[r["op"]]) < 1e-12, "busbw_factor of %s: %s" % (r["op"], r["busbw_factor"]))
    need(abs(r["busbw_GBps"] - r["algbw_GBps"] * r["busbw_factor"]) <= 1e-12 * max(1, r["busbw_GBps"]), "busbw")
    if r["op"] in ("vote_1bit", "sum_pbit"):
        need(r.get("wire_bytes") == wire(r["op"], r["count"]), "wire_bytes of %s" % r)
    if r["op"] in ("allreduce", "reduce_scatter", "reduce"):
        need(r["redop"] in ("sum", "min", "max"), "redop")
    else:
        need(r["redop"] is None, "redop of %s" % r["op"])
types = {(r["op"], r["dtype"]) for r in rec["results"]}
need(len(types) == 5 * len(want), "types per op: %d" % len(types))
PY
)
        if [ $? -eq 0 ]; then echo "PASS: $name record"; else echo "FAIL: $name record: $msg"; fi
    else
        echo "SKIP: $name record: python3 with PyYAML is not installed"
    fi
done
