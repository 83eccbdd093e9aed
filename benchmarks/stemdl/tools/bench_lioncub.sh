#!/usr/bin/env bash
# bench_lioncub.sh: Lion's compressed update exchange on emulated slow
# Ethernet (docs/lioncub.md), every number measured in this run, side by side.
#
#   benchmarks/stemdl/tools/bench_lioncub.sh [BUILD_DIR]        (default: build)
#   env: RATE (emulated link, default 1gbit), RANKS (2), STEPS (timed, 8),
#        NET ("--preset small --image 32": the stemdl network), MAXBYTES (256M),
#        SKIP_COLL=1 (no collectives sweep)
#
# Prints YAML-ish lines:
#   (a) link:     the emulated rate and what a TCP stream reached on it
#   (b) step:     stemdl with Lion, exchange grad / 1bit / pbit at RANKS ranks
#                 over the link: median step time, its split (exchange time,
#                 exposed exchange, sign kernels), the speedup of 1bit and pbit
#                 over grad (target: >= 3 where communication dominates; the
#                 paper reports up to 5x), wire bytes per step and their ratio
#                 to grad's (1bit: about 1/32), and the bytes the loopback
#                 really carried per step (all ranks, both directions, TCP/IP
#                 headers included: the difference of two runs of STEPS and 2
#                 steps, so start-up and the initial broadcast cancel out)
#   (c) coll:     vote_1bit and sum_pbit against the fp32 allreduce of the same
#                 parameter count, 1 MiB .. MAXBYTES of fp32: time ratios and
#                 effective (fp32-equivalent) bandwidth
# Every job runs inside harness/launchers/netns.sh (network namespace, tc htb
# on its loopback; it refuses clearly where it cannot).  Run it on an
# otherwise idle machine (the load average is printed).
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build}
bin=$build/bin
rate=${RATE:-1gbit}
ranks=${RANKS:-2}
steps=${STEPS:-8}
net=${NET:---preset small --image 32}
maxbytes=${MAXBYTES:-256M}
netns=harness/launchers/netns.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-lioncub.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for p in stemdl collectives; do
    [ -x "$bin/$p" ] || { echo "bench_lioncub.sh: $bin/$p is missing; building it" >&2; make --no-print-directory BUILD="$build" "$bin/$p" >&2; }
done
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
M=${EXADL_MPIRUN:-mpirun}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v != "n/a" && v + 0 >= t) ? "met" : "MISSED" }'; }

echo "bench_lioncub:"
echo "  host: $(hostname)"
echo "  cpu: \"$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)\""
echo "  online_cpus: $(getconf _NPROCESSORS_ONLN)"
echo "  loadavg_before: $(cut -d' ' -f1 /proc/loadavg)"

# ---- (a) the link -----------------------------------------------------------------
measured=$("$netns" --rate "$rate" --check 2>"$tmp/link.err") || { cat "$tmp/link.err" >&2; exit 1; }
echo "link:"
echo "  rate: $rate"
echo "  tcp_stream_bit_per_s: $measured"
echo "  shared: \"one loopback for all ranks: the rate is their total traffic\""

# ---- (b) training steps -------------------------------------------------------------
# stemdl inside the namespace, the loopback's byte counter read around it
run_job() { # EXCHANGE STEPS OUT
    # shellcheck disable=SC2086
    # (/proc/net/dev is the namespace's own; /sys/class/net would be the host's)
    EXADL_NET_RATE=$rate "$netns" -- bash -c '
        tx() { awk -F"[: ]+" "/^ *lo:/ { print \$11 }" /proc/net/dev; }
        b=$(tx)
        "$@" || exit 1
        echo $(( $(tx) - b )) >"'"$3"'.lo"' _ \
        $M -np "$ranks" "$bin/stemdl" $net --kernels fast --threads 1 --optimizer lion --lr 1e-4 \
        --beta2 0.99 --weight-decay 0.01 --exchange "$1" --cycle-ms 5 --steps "$2" --warmup 1 \
        --quiet --record "$3" >"$3.log" 2>&1 ||
        { echo "bench_lioncub.sh: stemdl --exchange $1 failed:" >&2; tail -n 20 "$3.log" >&2; exit 1; }
}
# medians of the record's per-step lists, and its step-time summary
digest() { # RECORD
    python3 - "$1" <<'PY'
import statistics, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
st = d["update_exchange"]["steps"]
med = lambda k: statistics.median(st[k])
s = d["summary"]
print(s["median_s"], s["ci_lo_s"], s["ci_hi_s"], med("exchange_s"), med("exposed_s"),
      med("sign_kernel_s"), med("collective_s"), med("wire_bytes"), d["loss"]["steps"][-1])
PY
}
echo "step:"
echo "  network: \"stemdl $net, Lion lr 1e-4 beta2 0.99, batch 1 per rank\""
echo "  ranks: $ranks"
echo "  timed_steps: $steps"
declare -A S W
for x in grad 1bit pbit; do
    run_job "$x" "$steps" "$tmp/$x.yaml"
    run_job "$x" 2 "$tmp/$x-2.yaml"
    read -r med lo hi exch expo kern coll wire loss <<<"$(digest "$tmp/$x.yaml")"
    lo_step=$(awk -v a="$(cat "$tmp/$x.yaml.lo")" -v b="$(cat "$tmp/$x-2.yaml.lo")" -v n="$steps" \
        'BEGIN { printf "%.0f", (a - b) / (n - 2) }')
    S[$x]=$med
    W[$x]=$wire
    echo "  $x: {step_s: $med, ci95: [$lo, $hi], exchange_s: $exch, exposed_exchange_s: $expo," \
        "sign_kernel_s: $kern, collective_s: $coll, rest_s: $(awk -v a="$med" -v b="$expo" 'BEGIN { printf "%.4g", a - b }')," \
        "wire_bytes_per_rank_step: $wire, loopback_bytes_per_step: $lo_step, loss_after: $loss}"
done
for x in 1bit pbit; do
    sp=$(ratio "${S[grad]}" "${S[$x]}")
    echo "  speedup_${x}_over_grad: {ratio: $sp, target_3: $(verdict "$sp" 3)}"
    echo "  wire_${x}_over_grad: $(ratio "${W[$x]}" "${W[grad]}")"
done

# ---- (c) the compressed collectives against the fp32 allreduce ----------------------
[ "${SKIP_COLL:-0}" = 1 ] && exit 0
EXADL_NET_RATE=$rate "$netns" -- $M -np "$ranks" "$bin/collectives" --op allreduce,vote_1bit,sum_pbit \
    --dtype float32 --inplace no -b 1M -e "$maxbytes" -f 4 -n 5 -w 1 --record "$tmp/coll.yaml" \
    >"$tmp/coll.log" 2>&1 || { echo "bench_lioncub.sh: collectives failed:" >&2; tail -n 20 "$tmp/coll.log" >&2; exit 1; }
echo "coll:"
echo "  sizes: \"fp32-equivalent bytes of parameters; time = median of 5 (max over ranks)\""
python3 - "$tmp/coll.yaml" <<'PY'
import sys, yaml
rows = yaml.safe_load(open(sys.argv[1]))["results"]
t = {(r["op"], r["bytes"]): r for r in rows}
for b in sorted({r["bytes"] for r in rows}):
    a = t.get(("allreduce", b))
    if not a:
        continue
    out = ["bytes: %d" % b, "allreduce_s: %.4g" % a["median_s"]]
    for op in ("vote_1bit", "sum_pbit"):
        r = t.get((op, b))
        if r:
            out.append("%s_s: %.4g" % (op, r["median_s"]))
            out.append("allreduce_over_%s: %.3f" % (op, a["median_s"] / r["median_s"]))
            out.append("%s_effective_GBps: %.4g" % (op, r["algbw_GBps"]))
            out.append("%s_wire_bytes: %d" % (op, r.get("wire_bytes", -1)))
    out.append("allreduce_GBps: %.4g" % a["algbw_GBps"])
    print("  - {" + ", ".join(out) + "}")
PY
echo "  loadavg_after: $(cut -d' ' -f1 /proc/loadavg)"
