#!/usr/bin/env bash
# exadl under a real single-node Slurm (tests/support/slurm_local.sh: Debian's
# slurmctld, slurmd and munged started by hand, MpiDefault=none, stopped by
# PID at the end whatever happens).  SKIP, with the reason, only where the
# daemons cannot start.  The cases:
#   salloc -n 2 + exadl run, launcher srun, scales auto: the ranks from the
#     allocation, each launch one job step (step IDs and hosts recorded), a
#     real MPI program under srun --mpi=pmix that exadl chose (srun lists
#     pmix, MpiDefault is none), the peak probe as a 1-rank step, the Slurm
#     provenance in results.yaml and report.md; a rank killed by SIGKILL is a
#     failed launch that says "task 1 ... Killed";
#   the preflight with launcher_mpi: none: validate and run stop at once with
#     one message that says to set `launcher_mpi: pmix`;
#   the job's end time passing between two launches (scontrol update
#     EndTime=now+N brings the limit forward: the shortest -t is a minute):
#     the next step cannot be created, the run is interrupted (exit 130, not
#     1), nothing failed, the finished records kept;
#   scancel during a launch: that launch interrupted, the rest not run;
#   the sbatch example docs/examples/exadl.sbatch (docs/harness.md prints it:
#     the copy must equal the file), submitted as the docs say on this CPU-only
#     node (no GPU request in it, no option of the test's), end to end; the
#     same with the time-limit warning (--signal=B:USR1, sent with scancel
#     --signal=USR1 --batch): the running launch finishes, the rest are not
#     run; a second job resumes the run, whose launch list then equals the
#     uninterrupted run's;
#   launcher srun outside an allocation: validate warns, run refuses.
set -u
# CI time: the normal build only (real Slurm daemons; the sanitizer build checks exadl's Slurm code in test_harness_slurm and the launch paths in harness_signals.sh)
case $(basename "${EXADL_BUILD:-build}") in
build-san*) echo "SKIP: slurm: normal build only (CI time)"; exit 0 ;;
esac
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fake=$root/tests/fixtures/harness/fake_bench.sh
logged=$root/tests/fixtures/harness/srun_logged.sh
fails=0
pass() { echo "PASS: slurm: $1"; }
fail() { echo "FAIL: slurm: $1"; fails=$((fails + 1)); }
# the cases run in three lanes at once (the node offers 8 CPUs; they mostly wait
# on Slurm): each lane's lines go to its own file, printed in order at the end
t0=$(date +%s)
# a value of a YAML file, by a Python expression over d (PyYAML, as the other tests)
yq() { python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$1" "$2" 2>&1; }

# the tests' MPI settings (tests/run.sh) reach the ranks through srun's environment
suite() { # $1 file, $2 name, $3 extra top-level lines, $4 benchmarks
    cat >"$1" <<EOF
name: $2
launcher: srun
kill_grace_s: 1
timeout_s: 60
device_peak_flops: 1.0e10
$3
benchmarks:
$4
EOF
}

# ---- outside any allocation (no daemon needed) --------------------------------------
suite "$tmp/out.yaml" outside "scales: [1]" "  - {program: $fake}"
(unset SLURM_JOB_ID SLURM_JOBID; "$exadl" validate "$tmp/out.yaml" >"$tmp/v.out" 2>&1)
rv=$?
(unset SLURM_JOB_ID SLURM_JOBID; "$exadl" run "$tmp/out.yaml" --out "$tmp/outside" >"$tmp/r.out" 2>&1)
rr=$?
[ $rv -eq 0 ] && grep -q 'warning: launcher srun starts job steps of a Slurm allocation' "$tmp/v.out" &&
    [ $rr -eq 2 ] && grep -q 'run exadl inside salloc or an sbatch script' "$tmp/r.out" && [ ! -d "$tmp/outside" ] &&
    pass "launcher srun outside an allocation: validate warns, run refuses (exit 2, nothing made)" ||
    { fail "srun outside an allocation (validate $rv, run $rr)"; cat "$tmp/v.out" "$tmp/r.out"; }

# ---- the cluster ------------------------------------------------------------------------
. "$root/tests/support/slurm_local.sh"
trap 'slurm_down' EXIT
if ! slurm_up "$tmp/slurm"; then
    echo "SKIP: slurm: no local Slurm: $slurm_why"
    exit 0
fi
echo "# Slurm up in $(($(date +%s) - t0)) s ($SLURM_CONF)"
node=$(sinfo -h -o %N | head -n 1)

lane_a() {
# ---- salloc + exadl run: srun steps, auto scales, real MPI, provenance ----------------
suite "$tmp/auto.yaml" auto "launcher_command: $logged
env: {SRUN_LOG: \"$tmp/auto.srun\"}" \
    "  - {name: fake, program: $fake, config: {mode: ok, step: 0.1}}
  - name: allreduce
    program: collectives
    optional: true
    repetitions: 1
    config: {backend: mpi, op: allreduce, b: 8, e: 1024, n: 20, w: 2}"
sed -i '/device_peak_flops/d' "$tmp/auto.yaml" # the peak probe runs, as a 1-rank step
salloc -n 2 -t 5 "$exadl" run "$tmp/auto.yaml" --out "$tmp/auto" >"$tmp/auto.out" 2>&1
rc=$?
r=$(ls -d "$tmp"/auto/*-auto 2>/dev/null | head -1)
res=$r/results.yaml
[ $rc -eq 0 ] && grep -q 'launches_ok: 4' "$res" && grep -q '^exadl: preflight: 1 rank started on' "$tmp/auto.out" &&
    [ "$(yq "$res" '[l["scale"] for l in d["launches"]]')" = "[1, 2, 1, 2]" ] &&
    [ "$(yq "$res" 'any("--ntasks=2 --nodes=1 --ntasks-per-node=2 --kill-on-bad-exit=1 --mpi=pmix --verbose" in l["command"] and "collectives" in l["command"] for l in d["launches"])')" = True ] &&
    pass "salloc -n 2: scales auto = 1, 2 from SLURM_NTASKS; a real MPI job under srun --mpi=pmix; exit 0" ||
    { fail "salloc + exadl run (exit $rc)"; cat "$tmp/auto.out"; }
jobid=$(awk '/^  job_id:/ { gsub(/"/, "", $2); print $2; exit }' "$res")
[ -n "$jobid" ] && [ "$(yq "$res" 'd["slurm"]["partition"], d["slurm"]["nodelist"], d["slurm"]["time_limit"], d["slurm"]["srun_mpi"]')" = "('debug', '$node', '00:05:00', 'pmix')" ] &&
    [ "$(yq "$res" '"pmix, which srun lists" in d["slurm"]["srun_mpi_chosen_by"]')" = True ] &&
    [ "$(yq "$res" 'sorted(set(l["step"].split(".")[0] for l in d["launches"])), len(set(l["step"] for l in d["launches"])), set(l["hosts"] for l in d["launches"])')" = "(['$jobid'], 4, {'$node'})" ] &&
    grep -q '^## Slurm' "$r/report.md" && grep -q "| job | $jobid" "$r/report.md" &&
    grep -q "| hosts | $node |" "$r/report.md" && grep -q "host: $node" "$res" &&
    pass "provenance: job $jobid, partition, node list, time limit, --mpi and who chose it, a step and hosts per launch" ||
    fail "provenance in $res"
grep -q 'mpiprobe$' "$tmp/auto.srun" && grep -q 'peak_cpu' "$tmp/auto.srun" &&
    grep -q 'collectives --help$' "$tmp/auto.srun" &&
    [ "$(yq "$res" '"peak_cpu" in d["device_peak"]["source"] and "on a compute node" in d["device_peak"]["source"]')" = True ] &&
    pass "the preflight, the --help probe and the peak probe ran as 1-rank steps through the launcher" ||
    { fail "probes through srun"; cat "$tmp/auto.srun"; }

# ---- a rank killed during a launch ----------------------------------------------------------
suite "$tmp/kill.yaml" killrank "scales: [2]" "  - {program: $fake, config: {mode: killrank}}"
salloc -n 2 "$exadl" run "$tmp/kill.yaml" --out "$tmp/kill" --no-preflight >"$tmp/kill.out" 2>&1
rc=$?
r=$(ls -d "$tmp"/kill/*-killrank 2>/dev/null | head -1)
[ $rc -eq 1 ] && grep -q 'status: failed' "$r/results.yaml" &&
    yq "$r/results.yaml" 'd["launches"][0]["error"]' | grep -q "^task 1 on $node: Killed" &&
    grep -q 'task 1 kills itself' "$r/report.md" && grep -q "failed: task 1 on $node: Killed" "$r/report.md" &&
    pass "a rank killed by SIGKILL: a failed launch (exit 1) saying task 1 on $node: Killed, with the log tail" ||
    { fail "killed rank (exit $rc)"; cat "$tmp/kill.out"; grep -A3 'how:' "$r/results.yaml"; }
}

lane_b() {
# ---- the preflight with the wrong --mpi ----------------------------------------------------
suite "$tmp/none.yaml" wrongmpi "launcher_mpi: none
scales: [1]" "  - {program: $fake}"
salloc -n 1 "$exadl" validate "$tmp/none.yaml" >"$tmp/vn.out" 2>&1
rv=$?
salloc -n 1 "$exadl" run "$tmp/none.yaml" --out "$tmp/none" >"$tmp/rn.out" 2>&1
rr=$?
msg=$(grep -c 'error: preflight: a 1-rank job under launcher srun failed' "$tmp/vn.out" "$tmp/rn.out" | grep -c ':1$')
[ $rv -eq 2 ] && [ $rr -eq 2 ] && [ "$msg" = 2 ] && grep -q 'set `launcher_mpi: pmix` in the suite' "$tmp/rn.out" &&
    grep -q "OMPI was not built with SLURM's PMI support" "$tmp/rn.out" && [ ! -d "$tmp/none" ] &&
    pass "preflight with launcher_mpi: none: validate and run stop (exit 2) with one message: set launcher_mpi: pmix" ||
    { fail "preflight (validate $rv, run $rr)"; cat "$tmp/vn.out" "$tmp/rn.out"; }

# ---- the job's end passes between two launches ---------------------------------------
gate=$tmp/gate
mkdir -p "$gate"
suite "$tmp/end.yaml" ending "scales: [1]
repetitions: 4
launcher_command: $logged
env: {SRUN_GATE_DIR: \"$gate\", SRUN_GATE_AT: \"4\"}" "  - {program: $fake, config: {mode: ok, step: 0.1}}"
# srun call 1 is the preflight, 2 and 3 the first two launches, 4 waits at the gate
salloc -n 1 -t 5 bash -c "echo \$SLURM_JOB_ID >$tmp/end.job; exec $exadl run $tmp/end.yaml --out $tmp/end" \
    >"$tmp/end.out" 2>&1 &
spid=$!
for _ in $(seq 300); do [ -e "$gate/waiting" ] && break; sleep 0.1; done
job=$(cat "$tmp/end.job" 2>/dev/null)
scontrol update JobId="$job" EndTime=now+1 >/dev/null 2>&1
sleep 2.5
: >"$gate/open"
wait $spid
rc=$?
r=$(ls -d "$tmp"/end/*-ending 2>/dev/null | head -1)
[ $rc -eq 130 ] && [ "$(ls "$r"/records | wc -l)" -eq 2 ] && grep -q 'launches_ok: 2' "$r/results.yaml" &&
    grep -q 'launches_failed: 0' "$r/results.yaml" && grep -q 'launches_not_run: 2' "$r/results.yaml" &&
    grep -q 'status: interrupted' "$r/results.yaml" && grep -q 'Unable to create step' "$r/results.yaml" &&
    grep -q 'launches: 2 ok, 2 not run of 4' "$tmp/end.out" &&
    pass "the job's end between launches: the step refused, run interrupted (exit 130), 0 failed, 2 records kept" ||
    { fail "end between launches (exit $rc)"; cat "$tmp/end.out"; }

# ---- scancel during a launch ---------------------------------------------------------------
suite "$tmp/cancel.yaml" cancel "scales: [1]
repetitions: 3" "  - {program: $fake, config: {mode: ok, step: 0.1, sleep: 30}}"
salloc -n 1 bash -c "echo \$SLURM_JOB_ID >$tmp/cancel.job; exec $exadl run $tmp/cancel.yaml --out $tmp/cancel --no-preflight" \
    >"$tmp/cancel.out" 2>&1 &
spid=$!
for _ in $(seq 100); do grep -q '\[1/3\]' "$tmp/cancel.out" && break; sleep 0.1; done
sleep 1
scancel "$(cat "$tmp/cancel.job")"
wait $spid
rc=$?
r=$(ls -d "$tmp"/cancel/*-cancel 2>/dev/null | head -1)
[ $rc -eq 130 ] && grep -q 'launches_interrupted: 1' "$r/results.yaml" && grep -q 'launches_not_run: 2' "$r/results.yaml" &&
    grep -q 'launches_failed: 0' "$r/results.yaml" && grep -q 'state CANCELLED' "$r/results.yaml" &&
    pass "scancel during a launch: it is interrupted, the rest not run, exit 130" ||
    { fail "scancel (exit $rc)"; cat "$tmp/cancel.out"; }

}

lane_c() {
# ---- the sbatch example: docs/examples/exadl.sbatch, as docs/harness.md prints it ----------
# submitted as the docs say, with no option of the test's (no --gpus-per-node: the
# node has no GPU and no gres; its own 4 tasks), from a folder whose build/bin is
# this exadl's, a suite of the test's as its argument
ex=$root/docs/examples/exadl.sbatch
awk '/<!-- sbatch example: docs\/examples\/exadl.sbatch/ { on = 1; next } on && /^```bash/ { next }
     on && /^```/ { exit } on' "$root/docs/harness.md" >"$tmp/doc.sbatch"
if [ -f "$ex" ] && cmp -s "$ex" "$tmp/doc.sbatch" && grep -q '^#SBATCH --signal=B:USR1@' "$ex" &&
    grep -q '^exec build/bin/exadl run ' "$ex" && ! grep -q '^#SBATCH.*\(gpu\|gres\)' "$ex"; then
    pass "docs/harness.md prints docs/examples/exadl.sbatch as it is: no GPU request, --signal=B:USR1, exec exadl run"
else
    fail "docs/examples/exadl.sbatch missing, asks for GPUs, or not the copy docs/harness.md prints"
    diff "$ex" "$tmp/doc.sbatch"
fi
# the same suite twice, its launches quick, then long enough (2 s) to catch the signal in one
for w in 0 2; do
    suite "$tmp/sb$w.yaml" batch "scales: auto
repetitions: 2" "  - {program: $fake, config: {mode: ok, step: 0.1, sleep: $w}}"
done
sbatch_doc() { # $1 submit folder, $2 suite; the job ID
    mkdir -p "$1/build" && ln -sfn "$EXADL_BIN" "$1/build/bin"
    (cd "$1" && sbatch --parsable "$ex" "$2")
}
exitcode() { scontrol show job "$1" | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p'; }
# until job $1 has left the queue (sbatch -W polls at growing intervals, up to seconds)
wait_job() { for _ in $(seq 600); do squeue -h -j "$1" 2>/dev/null | grep -q . || return 0; sleep 0.2; done; }
j1=$(sbatch_doc "$tmp/sb1" "$tmp/sb0.yaml")
wait_job "$j1"
r1=$(ls -d "$tmp"/sb1/results/*-batch 2>/dev/null | head -1)
[ "$(exitcode "$j1")" = 0 ] && grep -q 'launches_ok: 6' "$r1/results.yaml" && grep -q "job_id: \"$j1\"" "$r1/results.yaml" &&
    [ "$(yq "$r1/results.yaml" '[l["scale"] for l in d["launches"]]')" = "[1, 2, 4, 1, 2, 4]" ] &&
    pass "sbatch docs/examples/exadl.sbatch SUITE on a CPU node: job $j1 ran 6 launches (scales 1, 2, 4 of its 4 tasks) as steps, exit 0" ||
    { fail "sbatch example (job $j1, exit $(exitcode "$j1"))"; cat "$tmp/sb1/exadl-$j1.out"; }
j2=$(sbatch_doc "$tmp/sb2" "$tmp/sb2.yaml")
for _ in $(seq 200); do grep -q '\[2/6\]' "$tmp/sb2/exadl-$j2.out" 2>/dev/null && break; sleep 0.1; done
scancel --signal=USR1 --batch "$j2"
wait_job "$j2"
r2=$(ls -d "$tmp"/sb2/results/*-batch 2>/dev/null | head -1)
[ "$(exitcode "$j2")" = 130 ] && grep -q 'launches_ok: 2' "$r2/results.yaml" && grep -q 'launches_not_run: 4' "$r2/results.yaml" &&
    grep -q 'stopped_by: exadl got SIGUSR1' "$r2/results.yaml" &&
    pass "the time-limit warning (SIGUSR1 to the batch shell): the running launch finished, 4 not run, exit 130" ||
    { fail "SIGUSR1 warning (job $j2, exit $(exitcode "$j2"))"; cat "$tmp/sb2/exadl-$j2.out"; }
j3=$(sbatch --parsable -n 4 -t 5 -o "$tmp/sb-%j.out" --wrap "exec $exadl run --resume $r2")
wait_job "$j3"
list() { awk '/^launches:/ { on = 1; next } on && /^[a-z]/ { on = 0 } on && /^- id:|^  status:/' \
    "$1/results.yaml" | tr -d ' ' | paste -sd' '; }
[ "$(exitcode "$j3")" = 0 ] && [ "$(list "$r2")" = "$(list "$r1")" ] && grep -q 'launches_kept: 2' "$r2/results.yaml" &&
    grep -q "jobs: \[\"$j2\", \"$j3\"\]" "$r2/results.yaml" &&
    pass "a second job resumes it: launch list equal to the uninterrupted run's, jobs $j2 and $j3 recorded" ||
    { fail "resume in job $j3: '$(list "$r2")' vs '$(list "$r1")'"; cat "$tmp/sb-$j3.out"; }

}

lane_a >"$tmp/lane_a.out" 2>&1 &
pa=$!
lane_b >"$tmp/lane_b.out" 2>&1 &
pb=$!
lane_c >"$tmp/lane_c.out" 2>&1 &
pc=$!
wait $pa $pb $pc
cat "$tmp/lane_a.out" "$tmp/lane_b.out" "$tmp/lane_c.out"
fails=$((fails + $(cat "$tmp"/lane_?.out | grep -c '^FAIL: ')))
echo "# the Slurm cases took $(($(date +%s) - t0)) s"
[ $fails -eq 0 ]
