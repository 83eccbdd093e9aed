#!/usr/bin/env bash
# A multi-node Slurm on the emulated cluster, checked end to end (docs/vcluster.md).
# Not in `make test` (about 2 minutes on a 2-core machine, beyond the CI budget):
# run it by hand, as root, after `make`:
#
#   tests/manual/vcluster_slurm.sh [RATE]        (RATE of the links, default 1gbit)
#
# Three nodes n1..n3 (tests/support/vcluster.sh --nodes 3 --slurm: slurmctld on
# the head, one slurmd per node), then:
#   salloc -N 2 -n 2 + exadl run, launcher srun, scales auto: scales 1 and 2 from
#     the allocation, the 2-rank launch on n1 and n2 as one step each, a real MPI
#     program (collectives) under srun --mpi=pmix, the System table with both
#     hosts and the EMULATED network row;
#   sbatch -N 3 -n 3, the same suite: scales 1, 2, 3 and never more nodes than
#     allocated (3 launches, the last on n1,n2,n3);
#   a node's slurmd killed as a run's first launch starts (SIGKILL, by PID): each
#     launch that needs the node fails with "task launch failed on node n2: ...",
#     the run goes on to its end like any run with failed launches (exit 1, its
#     results and report written).
# Prints PASS:/FAIL:/SKIP: lines; exit 0 when nothing failed.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
rate=${1:-1gbit}
if [ -z "${EXADL_VCLUSTER_DIR:-}" ]; then
    exec tests/support/vcluster.sh --nodes 3 --slots 2 --rate "$rate" --slurm -- bash "$0" "$rate"
fi
exadl=$root/build/bin/exadl
fake=$root/tests/fixtures/harness/fake_bench.sh
[ -x "$exadl" ] || { echo "FAIL: vcluster_slurm: $exadl missing (run make first)"; exit 1; }
w=$EXADL_VCLUSTER_DIR/work
mkdir -p "$w"
fails=0
pass() { echo "PASS: vcluster_slurm: $1"; }
fail() { echo "FAIL: vcluster_slurm: $1"; fails=$((fails + 1)); }
t0=$(date +%s)
facts() { # $1 results.yaml: the launches' (scale, nodes, hosts, status) and the allocation
    python3 - "$1" <<'PY'
import sys, yaml
d = yaml.load(open(sys.argv[1]), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
print([(l["scale"], l["nodes"], l["hosts"], l["status"]) for l in d["launches"]], d["slurm"]["nodelist"])
PY
}
suite() { # $1 file, $2 name, $3 benchmark lines
    cat >"$1" <<EOF
name: $2
launcher: srun
scales: auto
repetitions: 1
timeout_s: 120
kill_grace_s: 1
device_peak_flops: 1.0e10
env:
  OMPI_ALLOW_RUN_AS_ROOT: "1"
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: "1"
benchmarks:
$3
EOF
}
suite "$w/ar.yaml" multi "  - name: allreduce
    program: collectives
    config: {backend: mpi, op: allreduce, b: 8, e: 1M, f: 32, n: 5, w: 1, inplace: \"no\"}"

# ---- salloc -N 2 ---------------------------------------------------------------------------
salloc -N 2 -n 2 -t 5 "$exadl" run "$w/ar.yaml" --out "$w/salloc" >"$w/salloc.out" 2>&1
rc=$?
r=$(ls -d "$w"/salloc/*-multi 2>/dev/null | head -1)
f=$(facts "$r/results.yaml" 2>&1)
echo "# salloc -N 2: $f"
[ $rc = 0 ] && [ "$f" = "[(1, 1, 'n1', 'ok'), (2, 2, 'n1,n2', 'ok')] n[1-2]" ] &&
    grep -q '^| hosts | n1, n2 |$' "$r/report.md" && grep -q '^| network | EMULATED' "$r/report.md" &&
    grep -q -- '--nodes=2 --ntasks-per-node=1 --kill-on-bad-exit=1 --mpi=pmix' "$r/results.yaml" &&
    pass "salloc -N 2 -n 2, scales auto: 1 and 2 ranks, the 2-rank step on n1,n2 under --mpi=pmix, the EMULATED row" ||
    { fail "salloc -N 2 (exit $rc)"; tail -n 20 "$w/salloc.out"; }

# ---- sbatch -N 3 ---------------------------------------------------------------------------
j=$(sbatch --parsable -N 3 -n 3 -t 5 -o "$w/sb-%j.out" --wrap "exec $exadl run $w/ar.yaml --out $w/sbatch")
for _ in $(seq 900); do squeue -h -j "$j" 2>/dev/null | grep -q . || break; sleep 0.2; done
r=$(ls -d "$w"/sbatch/*-multi 2>/dev/null | head -1)
f=$(facts "$r/results.yaml" 2>&1)
echo "# sbatch -N 3: $f"
[ "$f" = "[(1, 1, 'n1', 'ok'), (2, 2, 'n1,n2', 'ok'), (3, 3, 'n1,n2,n3', 'ok')] n[1-3]" ] &&
    grep -q '^| hosts | n1, n2, n3 |$' "$r/report.md" &&
    pass "sbatch -N 3 -n 3, scales auto: 1, 2, 3 ranks on 1, 2, 3 nodes, never more than allocated" ||
    { fail "sbatch -N 3 (job $j)"; tail -n 20 "$w/sb-$j.out"; }

# ---- a slurmd killed during a run ------------------------------------------------------------
suite "$w/kill.yaml" killnode "  - {name: fake, program: $fake, config: {mode: ok, step: 0.1, sleep: 3}}"
sed -i 's/^scales: auto/scales: [2]\nrepetitions: 3/; /^repetitions: 1/d' "$w/kill.yaml"
salloc -N 2 -n 2 -w n1,n2 -t 5 "$exadl" run "$w/kill.yaml" --out "$w/kill" >"$w/kill.out" 2>&1 &
sp=$!
# once the first launch has begun (its log is being written)
for _ in $(seq 300); do ls "$w"/kill/*-killnode/logs/*.part >/dev/null 2>&1 && break; sleep 0.1; done
p=$(cat "$EXADL_VCLUSTER_DIR/slurm/slurmd-n2.pid" 2>/dev/null)
[ -n "$p" ] && kill -9 "$p"
wait $sp
rc=$?
r=$(ls -d "$w"/kill/*-killnode 2>/dev/null | head -1)
f=$(facts "$r/results.yaml" 2>&1)
echo "# slurmd of n2 killed (PID $p) during launch 1: exadl exit $rc, $f"
grep -h -m2 'error:' "$r/results.yaml" | sed 's/^/#   /'
[ $rc = 1 ] && [ -f "$r/report.md" ] && grep -q 'launches_failed: 3' "$r/results.yaml" &&
    [ "$(grep -c "^  error: '\?task launch failed on node n2: " "$r/results.yaml")" = 3 ] &&
    pass "slurmd of n2 killed: every launch needing n2 fails with 'task launch failed on node n2', the run goes on to its end (exit 1, report written)" ||
    { fail "killed slurmd (exit $rc)"; tail -n 20 "$w/kill.out"; }
echo "# the multi-node Slurm cases took $(($(date +%s) - t0)) s"
[ $fails = 0 ]
