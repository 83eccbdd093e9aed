#!/usr/bin/env bash
# bench_osu.sh: ExaDL's `collectives --backend mpi --op allreduce` against OSU
# Micro-Benchmarks' osu_allreduce on the same MPI, 2 ranks, float32 sum,
# 4 B to 16 MiB, side by side, with the ratio per size (target: within +-10%).
#
#   benchmarks/collectives/tools/bench_osu.sh [PATH/TO/osu_allreduce]
#
# OSU is not part of ExaDL: build osu_allreduce from its public source, outside
# this repository, against the MPI that built ExaDL, and give its path (first
# argument or OSU_ALLREDUCE).  Without it the script prints SKIPPED.
# Environment: EXADL_BIN (build/bin), EXADL_MPIRUN (mpirun), NP (2),
# ROUNDS (3: runs alternate OSU, ExaDL, OSU, ...; per size the median over
# rounds is shown), MAXBYTES (16M).
#
# OSU 7.x takes -T mpi_float; OSU 5.x has no -T (its allreduce is float
# already): the script asks the binary's help which it is (OSU_ARGS overrides).
#
# Columns: OSU's "Avg Latency" (each rank's mean over 1000/100 iterations,
# averaged over ranks); ExaDL's headline latency (batched timing, the default:
# median over batches of the slowest rank's mean time per call); ExaDL's own
# samples summarised OSU's way (osu_avg_s in the record: same run, same
# convention as OSU).  docs/collectives.md "Timing" explains the two.
set -u
cd "$(dirname "$0")/../../.."
osu=${1:-${OSU_ALLREDUCE:-}}
if [ -z "$osu" ] || [ ! -x "$osu" ]; then
    echo "SKIPPED: no osu_allreduce given (pass its path as the first argument or set OSU_ALLREDUCE;"
    echo "         build it from the OSU Micro-Benchmarks' public source outside this repository)"
    exit 0
fi
bin=${EXADL_BIN:-build/bin}/collectives
if [ ! -x "$bin" ]; then echo "bench_osu: $bin is missing (run make)" >&2; exit 1; fi
command -v python3 >/dev/null || { echo "bench_osu: python3 is needed to read the record" >&2; exit 1; }
mpirun=${EXADL_MPIRUN:-mpirun}
np=${NP:-2}
rounds=${ROUNDS:-3}
max=${MAXBYTES:-16M}
maxb=$(python3 -c "import sys; s=sys.argv[1]; m={'K':1<<10,'M':1<<20,'G':1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))" "$max")
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# one node: shared memory and loopback (the sandboxes have no other network)
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader,tcp}
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-lo}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
if [ -z "${OSU_ARGS+x}" ]; then
    if "$osu" -h 2>&1 | grep -q -- '-T'; then OSU_ARGS="-T mpi_float -f"; else OSU_ARGS="-f"; fi
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-osu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "# bench_osu: $np ranks on $(hostname), $(nproc) CPUs; $("$mpirun" --version 2>/dev/null | head -n 1)"
echo "# osu:   $mpirun -np $np $osu -m 4:$maxb $OSU_ARGS ($("$osu" -v 2>/dev/null | grep -i 'osu' | head -n 1))"
echo "# exadl: $mpirun -np $np $bin --backend mpi --op allreduce --dtype float32 --redop sum -b 4 -e $max --inplace no"
echo "# $rounds rounds, alternating; per size the median over rounds (range: min-max over rounds)"
echo "# load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null)"
for r in $(seq 1 "$rounds"); do
    # shellcheck disable=SC2086
    "$mpirun" -np "$np" "$osu" -m "4:$maxb" $OSU_ARGS >"$tmp/osu.$r" 2>&1 ||
        { echo "bench_osu: osu_allreduce failed:" >&2; tail -n 5 "$tmp/osu.$r" >&2; exit 1; }
    "$mpirun" -np "$np" "$bin" --backend mpi --op allreduce --dtype float32 --redop sum \
        -b 4 -e "$max" --inplace no --record "$tmp/exadl.$r.yaml" >"$tmp/exadl.$r" 2>&1 ||
        { echo "bench_osu: collectives failed:" >&2; tail -n 5 "$tmp/exadl.$r" >&2; exit 1; }
done
python3 - "$tmp" "$rounds" <<'PY'
import os, re, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
osu, ours, ours_osu = {}, {}, {}
for r in range(1, rounds + 1):
    for line in open(os.path.join(tmp, "osu.%d" % r)):
        f = line.split()
        if len(f) >= 2 and f[0].isdigit():
            osu.setdefault(int(f[0]), []).append(float(f[1]))
    try:
        import yaml
        class L(yaml.SafeLoader): pass  # YAML 1.1 wants a dot in floats; the record writes 1e-09
        L.add_implicit_resolver("tag:yaml.org,2002:float",
                                re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$"),
                                list("-+0123456789"))
        rec = yaml.load(open(os.path.join(tmp, "exadl.%d.yaml" % r)), Loader=L)
        for row in rec["results"]:
            ours.setdefault(row["bytes"], []).append(row["median_s"] * 1e6)
            ours_osu.setdefault(row["bytes"], []).append(row["osu_avg_s"] * 1e6)
    except ImportError:  # no PyYAML: the table has the median
        for line in open(os.path.join(tmp, "exadl.%d" % r)):
            f = line.split()
            if len(f) > 6 and f[0].isdigit():
                ours.setdefault(int(f[0]), []).append(float(f[5]))
print("%10s %12s %12s %8s %14s %8s  %-6s %19s %19s" % (
    "size(B)", "osu_avg_us", "exadl_med_us", "ratio", "exadl_osuavg", "ratio", "10%",
    "osu range", "exadl range"))
ok = n = 0
for size in sorted(osu):
    if size not in ours:
        continue
    o = statistics.median(osu[size]); m = statistics.median(ours[size])
    a = statistics.median(ours_osu[size]) if size in ours_osu else float("nan")
    within = abs(m / o - 1) <= 0.10
    ok += within; n += 1
    print("%10d %12.2f %12.2f %8.3f %14.2f %8.3f  %-6s %9.2f-%-9.2f %9.2f-%-9.2f" % (
        size, o, m, m / o, a, a / o, "yes" if within else "NO",
        min(osu[size]), max(osu[size]), min(ours[size]), max(ours[size])))
print("# %d of %d sizes: ExaDL median within +-10%% of OSU's average" % (ok, n))
PY
echo "# load average at end: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null)"
