#!/usr/bin/env bash
# The simulation-to-training workflow (docs/workflow.md) on 4 ranks (a
# trainer, 3 producers): both transports deliver every sample exactly once
# (consumed = expected, no duplicate, none damaged), the queue never holds
# more than its bound; a producer that stops (both modes), aborts mid-write or is
# killed with SIGKILL (files) costs exactly the samples it did not deliver
# and the trainer finishes with the others; a damaged and a duplicated
# sample are caught; bad options are refused in one line; --help,
# --check-config and --describe answer without MPI.  No timing is asserted.
set -u
W=$EXADL_BIN/workflow
T=$EXADL_TMP
M="${EXADL_MPIRUN:-mpirun} --oversubscribe"
# a key of the record's workflow block (the config block has keys of the same names)
wf() { sed -n '/^workflow:/,/^[a-z]/p' "$2" | sed -n "s/^  $1: //p"; }
run() { timeout 120 $M -np 4 "$W" --samples 30 --queue 6 --batch 3 --poll-us 500 "$@"; }
acct() { echo "$(wf consumed "$1")/$(wf expected "$1")/$(wf duplicates "$1")/$(wf corrupt "$1")/$(wf lost_to_failure "$1")"; }
bound() { [ "$(wf queue_depth_max "$1")" -le "$(wf queue_bound "$1")" ] 2>/dev/null; }

for mode in mpi files; do
    if run --mode $mode --record "$T/$mode.yaml" >"$T/$mode.out" 2>&1 && grep -q '^status: ok' "$T/$mode.yaml" &&
        [ "$(acct "$T/$mode.yaml")" = 90/90/0/0/0 ] && [ "$(wf steps "$T/$mode.yaml")" -ge 30 ]; then
        echo "PASS: workflow $mode: 90 of 90 samples consumed once each, none damaged, trained in $(wf steps "$T/$mode.yaml") steps"
    else
        echo "FAIL: workflow $mode: $(acct "$T/$mode.yaml" 2>/dev/null) $(tail -n 3 "$T/$mode.out")"
    fi
    bound "$T/$mode.yaml" && grep -q 'check: queue_bound, outcome: pass' "$T/$mode.yaml" &&
        echo "PASS: workflow $mode: queue depth $(wf queue_depth_max "$T/$mode.yaml") never above its bound 6" ||
        echo "FAIL: workflow $mode: queue depth $(wf queue_depth_max "$T/$mode.yaml") over bound 6"
done
# back-pressure at its tightest: one credit per producer, a step per sample
if run --mode files --queue 3 --batch 1 --record "$T/bp.yaml" >"$T/bp.out" 2>&1 &&
    [ "$(acct "$T/bp.yaml")" = 90/90/0/0/0 ] && [ "$(wf queue_depth_max "$T/bp.yaml")" -le 3 ]; then
    echo "PASS: workflow files with one credit per producer: 90 of 90, queue depth <= 3"
else
    echo "FAIL: workflow tight back-pressure: $(acct "$T/bp.yaml" 2>/dev/null) depth $(wf queue_depth_max "$T/bp.yaml" 2>/dev/null)"
fi
# a producer stops after 10 samples (both modes): 20 lost, the trainer goes on
for mode in mpi files; do
    if run --mode $mode --fail-producer 1 --fail-after 10 --record "$T/stop-$mode.yaml" >"$T/stop-$mode.out" 2>&1 &&
        [ "$(acct "$T/stop-$mode.yaml")" = 70/90/0/0/20 ] && [ "$(wf failed_producers "$T/stop-$mode.yaml")" = 1 ] &&
        grep -q 'producer 1 stopped.*20 lost' "$T/stop-$mode.out"; then
        echo "PASS: workflow $mode: a producer stopping after 10 samples: 70 consumed, 20 lost, run ok"
    else
        echo "FAIL: workflow $mode stopped producer: $(acct "$T/stop-$mode.yaml" 2>/dev/null) $(tail -n 3 "$T/stop-$mode.out")"
    fi
done
# a producer process aborts in the middle of writing its 8th sample (files)
if run --mode files --fail-producer 2 --fail-after 7 --fail-how abort --record "$T/abort.yaml" >"$T/abort.out" 2>&1 &&
    [ "$(acct "$T/abort.yaml")" = 67/90/0/0/23 ] && [ "$(wf partial_files "$T/abort.yaml")" = 1 ] &&
    grep -q 'how: killed by signal 6' "$T/abort.yaml"; then
    echo "PASS: workflow files: a producer aborting mid-write: its half file ignored, 67 consumed, 23 lost"
else
    echo "FAIL: workflow files aborted producer: $(acct "$T/abort.yaml" 2>/dev/null) $(tail -n 3 "$T/abort.out")"
fi
# a real SIGKILL of producer 1's process once it has made 5 samples (files)
D=$T/wfdir
run --mode files --dir "$D" --fail-producer 1 --fail-after 5 --fail-how hang --record "$T/kill.yaml" \
    >"$T/kill.out" 2>&1 &
job=$!
for _ in $(seq 600); do [ -f "$D/p1/hung" ] && break; sleep 0.1; done
if [ -f "$D/p1/hung" ] && pid=$(cat "$D/p1/pid") && kill -9 "$pid"; then
    wait $job
    rc=$?
    if [ $rc = 0 ] && [ "$(acct "$T/kill.yaml")" = 65/90/0/0/25 ] && grep -q 'how: killed by signal 9' "$T/kill.yaml" &&
        grep -q 'producer 1 killed by signal 9.*25 lost' "$T/kill.out" && [ ! -e "$D" ]; then
        echo "PASS: workflow files: producer 1 killed (SIGKILL) after 5 samples: 65 consumed, 25 lost, run ok, folder removed"
    else
        echo "FAIL: workflow files killed producer (exit $rc): $(acct "$T/kill.yaml" 2>/dev/null) $(tail -n 3 "$T/kill.out")"
    fi
else
    kill "$job" 2>/dev/null
    wait "$job"
    echo "FAIL: workflow files: producer 1 never reached its hang: $(tail -n 3 "$T/kill.out")"
fi
# a damaged and a duplicated sample are caught in both modes: status invalid, exit 1
for mode in mpi files; do
    if run --mode $mode --corrupt-sample 3 --duplicate-sample 5 --record "$T/bad-$mode.yaml" >"$T/bad-$mode.out" 2>&1; then
        echo "FAIL: workflow $mode: a damaged and a duplicated sample passed"
    elif [ "$(acct "$T/bad-$mode.yaml")" = 89/90/1/1/0 ] && grep -q '^status: invalid' "$T/bad-$mode.yaml"; then
        echo "PASS: workflow $mode: the damaged sample and the duplicate caught (status invalid)"
    else
        echo "FAIL: workflow $mode damaged/duplicate: $(acct "$T/bad-$mode.yaml" 2>/dev/null) $(tail -n 3 "$T/bad-$mode.out")"
    fi
done
# answers without MPI
"$W" --help >"$T/help.out" 2>&1 && grep -q 'exit status' "$T/help.out" &&
    "$W" --check-config --mode files --samples 10 2>&1 | grep -q 'configuration is valid' &&
    "$W" --describe --grid 8 --hidden 16 --batch 2 | grep -q '2048 parameters' &&
    echo "PASS: workflow --help, --check-config, --describe (8x8 grid, hidden 16: 2048 parameters)" ||
    echo "FAIL: workflow --help/--check-config/--describe"
# bad options: one line, exit 2
bad() {
    local want=$1
    shift
    "$W" --check-config "$@" >"$T/bad.out" 2>&1
    local rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$T/bad.out")" = 1 ] && grep -q -- "$want" "$T/bad.out"; then
        echo "PASS: workflow refuses $* in one line"
    else
        echo "FAIL: workflow $* (exit $rc): $(head -c 300 "$T/bad.out")"
    fi
}
bad "'tcp'" --mode tcp
bad "ends the whole job" --mode mpi --fail-producer 0 --fail-how abort
bad "more than --queue" --queue 4 --batch 5
bad "not below --samples" --samples 10 --fail-producer 0 --fail-after 10
bad "only with --mode files" --dir "$T/x"
bad "unknown option" --bogus 1
bad "more than 2^28" --grid 512 --hidden 4096
bad "more than 16 GiB" --grid 512 --queue 100000
# rank count: too few producers for the queue, under mpirun: one line from rank 0
timeout 60 $M -np 4 "$W" --queue 2 --batch 1 >"$T/q.out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(grep -c 'workflow: error' "$T/q.out")" = 1 ] && grep -q 'fewer than the 3 producers' "$T/q.out" &&
    echo "PASS: workflow --queue 2 with 3 producers refused once" ||
    echo "FAIL: workflow --queue 2 with 3 producers (exit $rc): $(head -c 300 "$T/q.out")"
