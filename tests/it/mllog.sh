#!/usr/bin/env bash
# MLPerf HPC's :::MLLOG order for a whole launch (issue 35, docs/data.md
# "Time to quality and MLLOG", tests/support/mllog_check.py):
# - the checker itself refuses logs that break hpc_1.0.0 common.yaml's order:
#   staging before run_start, init_start after run_start, staging_stop
#   without staging_start, an unclosed staging;
# - a cosmoflow launch that stages its set (--stage, 1 and 2 ranks) logs
#   init_start at the program's start (before the line it prints after MPI
#   starts), init_stop and run_start, then staging_start/staging_stop
#   (MLPerf HPC times staging), then the epochs; the checker passes it
#   (stemdl's unstaged lines: tests/it/stemdl_data.sh);
# - the same from a staged stemdl launch on its CBED set.
set -u
C=$EXADL_BIN/cosmoflow
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
CHK="$EXADL_ROOT/tests/support/mllog_check.py"

# the checker's own rules on hand-made logs
line() { # key event [metadata]
    printf ':::MLLOG {"namespace": "", "time_ms": %d, "event_type": "%s", "key": "%s", "value": %s, "metadata": {"file": "x", "lineno": 1%s}}\n' \
        "$((t += 1))" "$2" "$1" "${4:-null}" "${3:+, $3}"
}
good() { # a complete log; $1: where staging goes (before | after run_start)
    t=1000
    line init_start INTERVAL_START
    for k in submission_benchmark submission_org submission_platform; do line $k POINT_IN_TIME "" '"x"'; done
    line submission_division POINT_IN_TIME "" '"open"'
    line submission_status POINT_IN_TIME "" '"research"'
    line cache_clear POINT_IN_TIME "" false
    for k in train_samples eval_samples global_batch_size opt_base_learning_rate; do line $k POINT_IN_TIME "" 4; done
    line opt_name POINT_IN_TIME "" '"adam"'
    [ "$1" = before ] && line staging_start INTERVAL_START && line staging_stop INTERVAL_END
    line init_stop INTERVAL_END
    line run_start INTERVAL_START
    [ "$1" = after ] && line staging_start INTERVAL_START && line staging_stop INTERVAL_END
    line epoch_start INTERVAL_START '"epoch_num": 1'
    line eval_start INTERVAL_START '"epoch_num": 1'
    line eval_stop INTERVAL_END '"epoch_num": 1'
    line eval_accuracy POINT_IN_TIME '"epoch_num": 1' -0.5
    line epoch_stop INTERVAL_END '"epoch_num": 1'
    line run_stop INTERVAL_END '"status": "success"'
}
good after >"$T/ok.log"
good before >"$T/early.log"
{ good after | grep -v '"run_stop"'; line init_start INTERVAL_START; line run_stop INTERVAL_END '"status": "success"'; } >"$T/lateinit.log"
good after | grep -v '"staging_start"' >"$T/nostart.log"
good after | grep -v '"staging_stop"' >"$T/open.log"
check_case() { # file expected-rc what [checker options]
    python3 "$CHK" "${@:4}" "$1" >"$1.chk" 2>&1
    local rc=$?
    if [ "$rc" = "$2" ]; then echo "PASS: checker: $3 ($(tail -n 1 "$1.chk"))"
    else echo "FAIL: checker: $3: exit $rc: $(tail -n 1 "$1.chk")"; fi
}
check_case "$T/ok.log" 0 "staging after run_start accepted" --staging
check_case "$T/early.log" 1 "staging before run_start refused (MLPerf HPC times staging)"
check_case "$T/lateinit.log" 1 "init_start after run_start refused"
check_case "$T/nostart.log" 1 "staging_stop without staging_start refused"
check_case "$T/open.log" 1 "a staging never stopped refused"
good after | grep -v '"staging_' >"$T/unstaged.log"
check_case "$T/unstaged.log" 0 "a launch without staging accepted"
check_case "$T/unstaged.log" 1 "--staging wants the staging lines" --staging

# cosmoflow: a staged launch on 1 and 2 ranks
"$C" --preset tiny --data grf --seed 7 --make-data "$T/set" --samples 16 --val-samples 8 \
    --shard-samples 8 --format raw >"$T/mk.out" 2>&1 || echo "FAIL: --make-data: $(tail -n 2 "$T/mk.out")"
run=(--preset tiny --kernels reference --threads 1 --steps 6 --warmup 0 --seed 7 --batch 2
     --data "files:$T/set" --eval-every 3 --mllog true)
"$C" "${run[@]}" --stage "$T/st1" >"$T/c1.out" 2>&1 || echo "FAIL: cosmoflow --stage, 1 rank: $(tail -n 2 "$T/c1.out")"
$M -np 2 "$C" "${run[@]}" --batch 1 --stage "$T/st2" >"$T/c2.out" 2>&1 ||
    echo "FAIL: cosmoflow --stage, 2 ranks: $(tail -n 2 "$T/c2.out")"
for n in 1 2; do
    if python3 "$CHK" --staging --init-before '^cosmoflow: [0-9]+ rank' "$T/c$n.out" >"$T/c$n.chk" 2>&1; then
        echo "PASS: cosmoflow, $n rank(s), staged: init_start at program start, staging inside the run ($(tail -n 1 "$T/c$n.chk"))"
    else
        echo "FAIL: cosmoflow, $n rank(s), staged: $(tail -n 1 "$T/c$n.chk") (see $T/c$n.out)"
    fi
done
if [ "$(grep -c '^:::MLLOG .*"key": "init_start"' "$T/c2.out")" = 1 ]; then
    echo "PASS: 2 ranks: one init_start (rank 0's, told by the launcher's environment)"
else
    echo "FAIL: 2 ranks: $(grep -c '"init_start"' "$T/c2.out") init_start lines"
fi


# stemdl: a staged launch from its CBED set
"$EXADL_BIN/stemdl" --preset tiny --seed 7 --make-data "$T/cbed" --samples 16 --val-samples 8 --format raw \
    >"$T/smk.out" 2>&1 || echo "FAIL: stemdl --make-data: $(tail -n 2 "$T/smk.out")"
"$EXADL_BIN/stemdl" --preset tiny --kernels reference --threads 1 --steps 4 --warmup 0 --seed 7 --batch 2 \
    --data "files:$T/cbed" --eval-every 2 --mllog true --stage "$T/sst" --record "$T/s1.yaml" >"$T/s1.out" 2>&1 ||
    echo "FAIL: stemdl --stage: $(tail -n 2 "$T/s1.out")"
if python3 "$CHK" --staging --init-before '^stemdl: [0-9]+ rank' "$T/s1.out" >"$T/s1.chk" 2>&1 &&
    [ -f "$T/sst/manifest.yaml" ] && grep -q "^  staged_from: files:$T/cbed\$" "$T/s1.yaml"; then
    echo "PASS: stemdl, staged: the set copied, the MLLOG order holds ($(tail -n 1 "$T/s1.chk"))"
else
    echo "FAIL: stemdl, staged: $(tail -n 1 "$T/s1.chk") (see $T/s1.out, $T/s1.yaml)"
fi
