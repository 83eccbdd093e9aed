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
# - the same from a staged stemdl launch on its CBED set;
# - --closed cosmoflow|deepcam, the hyper-parameter keys of MLPerf HPC's
#   closed rules (docs/data.md "Hyper-parameter keys"): hand-made logs with
#   them pass, without them or with wrong types refused; cosmoflow with SGD
#   and a schedule writes them from its configuration and passes, with an
#   eval_error (the validation MAE) after each eval_accuracy and a val_mae
#   curve in its record; stemdl (Adam) against DeepCAM's keys is refused for
#   batchnorm_group_size only (no batch norm in its network);
# - climate (DeepCAM's network, synthetic validation split): its log passes
#   --closed deepcam on 1 rank, 2 ranks --bn sync and --spatial 2, with
#   batchnorm_group_size 1, 2, 2; the split is the same samples on 1 rank of
#   batch 2 and 2 of batch 1 (equal validation losses); bad option
#   combinations exit 2; --help lists the options.
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

# --closed: the hyper-parameter keys of MLPerf HPC's closed rules (hand-made)
hyper() { # cosmoflow | deepcam: the keys its closed rules require, with values
    line number_of_nodes POINT_IN_TIME "" 1
    line accelerators_per_node POINT_IN_TIME "" 0
    line gradient_accumulation_frequency POINT_IN_TIME "" 1
    if [ "$1" = cosmoflow ]; then
        for k in opt_learning_rate_warmup_epochs opt_learning_rate_warmup_factor opt_learning_rate_decay_factor; do
            line $k POINT_IN_TIME "" 1
        done
        line opt_learning_rate_decay_boundary_epochs POINT_IN_TIME "" '[2, 4]'
        line eval_error POINT_IN_TIME '"epoch_num": 1' 0.1
    else
        for k in seed batchnorm_group_size opt_lr scheduler_lr_warmup_steps scheduler_lr_warmup_factor scheduler_decay_rate; do
            line $k POINT_IN_TIME "" 1
        done
        line opt_eps POINT_IN_TIME "" 1e-6
        line opt_betas POINT_IN_TIME "" '[0.9, 0.999]'
        line scheduler_type POINT_IN_TIME "" '"multistep"'
        line scheduler_milestones POINT_IN_TIME "" '[10]'
    fi
}
closed() { # cosmoflow | deepcam [opt_name]: a complete log with the closed keys
    good after | grep -v '"opt_name"\|"run_stop"'
    t=2000 # after the lines good printed in its pipe
    hyper "$1"
    line opt_name POINT_IN_TIME "" "\"${2:-$([ "$1" = cosmoflow ] && echo SGD || echo Adam)}\""
    line run_stop INTERVAL_END '"status": "success"'
}
closed_case() { # file bench expected-rc what [text the refusal must name]
    python3 "$CHK" --closed "$2" "$1" >"$1.chk" 2>&1
    local rc=$? out
    out=$(tail -n 1 "$1.chk")
    if [ "$rc" = "$3" ] && { [ $# -lt 5 ] || grep -qF -- "$5" "$1.chk"; }; then echo "PASS: --closed $2: $4 ($out)"
    else echo "FAIL: --closed $2: $4: exit $rc: $out"; fi
}
closed cosmoflow >"$T/cf.log"
closed deepcam >"$T/dc.log"
closed_case "$T/cf.log" cosmoflow 0 "a log with closed CosmoFlow's keys accepted"
closed_case "$T/dc.log" deepcam 0 "a log with closed DeepCAM's keys (multistep) accepted"
closed_case "$T/ok.log" cosmoflow 1 "a log without the hyper-parameter keys refused" \
    "opt_learning_rate_warmup_epochs appears 0 times"
closed_case "$T/ok.log" deepcam 1 "a log without the hyper-parameter keys refused" "opt_betas appears 0 times"
closed cosmoflow adam >"$T/cfadam.log"
closed_case "$T/cfadam.log" cosmoflow 1 "opt_name adam refused (SGD only)" 'opt_name value "adam" is not one of sgd/SGD'
closed deepcam | sed 's/"value": \[10\]/"value": 10/; /"opt_betas"/s/"value": \[[^]]*\]/"value": 0.9/' >"$T/dctype.log"
closed_case "$T/dctype.log" deepcam 1 "a number for a list refused" "opt_betas value 0.9 is not pair"
closed_case "$T/dctype.log" deepcam 1 "a number for the milestones refused" "scheduler_milestones value 10 is not list"
closed deepcam | grep -v '"scheduler_decay_rate"' >"$T/dcms.log"
closed_case "$T/dcms.log" deepcam 1 "multistep without its decay rate refused" "scheduler_decay_rate appears 0 times"

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
# cosmoflow with SGD, a warm-up and a decay: the closed keys from its
# configuration; global batch 2 of 16 samples: 0.125 epochs a step
"$C" "${run[@]}" --optimizer sgd --momentum 0.9 --lr 0.001 --lr-warmup-steps 2 --lr-warmup-start 0.0005 \
    --lr-decay 5:0.5 --record "$T/c3.yaml" >"$T/c3.out" 2>&1 || echo "FAIL: cosmoflow --optimizer sgd: $(tail -n 2 "$T/c3.out")"
closed_case "$T/c3.out" cosmoflow 0 "ExaDL's cosmoflow (SGD) passes closed CosmoFlow's keys, eval_error included"
# eval_error (the validation MAE) beside every eval_accuracy, with its
# epoch_num, and the record's curve of it (the MAE by hand: test_cosmo_mae)
mae=$(python3 -c 'import json, sys
acc, err = [], []
for t in open(sys.argv[1]):
    if t.startswith(":::MLLOG "):
        e = json.loads(t[9:])
        if e["key"] == "eval_accuracy": acc.append(e["metadata"].get("step"))
        if e["key"] == "eval_error" and e["value"] > 0 and "epoch_num" in e["metadata"]:
            err.append(e["metadata"].get("step"))
print("ok" if acc and acc == err else "accuracy at %s, error at %s" % (acc, err))' "$T/c3.out")
if [ "$mae" = ok ] && grep -q '^    val_mae: \[' "$T/c3.yaml" && grep -q '^  eval_error: ' "$T/c3.yaml"; then
    echo "PASS: cosmoflow: an eval_error (MAE > 0, epoch_num) after each eval_accuracy; the record's val_mae curve"
else
    echo "FAIL: cosmoflow: eval_error lines: $mae; record: $(grep -c 'val_mae\|eval_error' "$T/c3.yaml") MAE lines (see $T/c3.out, $T/c3.yaml)"
fi
keys() { # log key...: key=value of each, in order
    python3 -c 'import json, sys
v = {}
for t in open(sys.argv[1]):
    if t.startswith(":::MLLOG "):
        e = json.loads(t[9:]); v[e["key"]] = json.dumps(e["value"])
print(" ".join("%s=%s" % (k, v.get(k, "-")) for k in sys.argv[2:]))' "$@"
}
got=$(keys "$T/c3.out" opt_name seed number_of_nodes accelerators_per_node opt_base_learning_rate \
    opt_learning_rate_warmup_epochs opt_learning_rate_warmup_factor opt_learning_rate_decay_boundary_epochs \
    opt_learning_rate_decay_factor opt_weight_decay opt_momentum scheduler_milestones scheduler_decay_rate opt_lr)
want='opt_name="SGD" seed=7 number_of_nodes=1 accelerators_per_node=0 opt_base_learning_rate=0.001 opt_learning_rate_warmup_epochs=0.25 opt_learning_rate_warmup_factor=2 opt_learning_rate_decay_boundary_epochs=[0.5] opt_learning_rate_decay_factor=0.5 opt_weight_decay=0 opt_momentum=0.9 scheduler_milestones=[4] scheduler_decay_rate=0.5 opt_lr=0.0005'
if [ "$got" = "$want" ]; then echo "PASS: cosmoflow's hyper-parameter lines carry its configuration ($got)"
else echo "FAIL: cosmoflow's hyper-parameter lines: $got, want $want"; fi

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
# stemdl trains with Adam: DeepCAM's closed keys, but for batchnorm_group_size
# (its network has no batch norm, docs/data.md "Hyper-parameter keys")
closed_case "$T/s1.out" deepcam 1 "ExaDL's stemdl (Adam) refused for batchnorm_group_size only (no batch norm)" \
    "mllog_check: closed deepcam: batchnorm_group_size appears 0 times (exactly one)"
got=$(keys "$T/s1.out" opt_name opt_betas opt_eps opt_adam_epsilon scheduler_type scheduler_lr_warmup_factor)
want='opt_name="Adam" opt_betas=[0.9, 0.999] opt_eps=1e-08 opt_adam_epsilon=1e-08 scheduler_type="multistep" scheduler_lr_warmup_factor=1'
if [ "$got" = "$want" ]; then echo "PASS: stemdl's Adam lines ($got)"
else echo "FAIL: stemdl's Adam lines: $got, want $want"; fi

# climate (DeepCAM's network) on the same runtime: its synthetic validation
# split (--val-samples), MLLOG with DeepCAM's closed keys, batchnorm_group_size
# the ranks sharing batch-norm statistics (--bn local: 1; --bn sync over 2
# ranks: 2; a --spatial 2 split: its 2 ranks)
CL=$EXADL_BIN/climate
crun=(--preset tiny --kernels reference --threads 1 --steps 4 --warmup 0 --eval-every 2 --val-samples 4 --mllog true)
"$CL" "${crun[@]}" --batch 2 --record "$T/cl1.yaml" >"$T/cl1.out" 2>&1 || echo "FAIL: climate --mllog: $(tail -n 2 "$T/cl1.out")"
$M -np 2 "$CL" "${crun[@]}" --batch 1 --bn sync >"$T/cl2.out" 2>&1 || echo "FAIL: climate --bn sync, 2 ranks: $(tail -n 2 "$T/cl2.out")"
$M -np 2 "$CL" "${crun[@]}" --batch 1 --spatial 2 >"$T/cl3.out" 2>&1 || echo "FAIL: climate --spatial 2: $(tail -n 2 "$T/cl3.out")"
for n in 1 2 3; do
    if python3 "$CHK" --init-before '^climate: [0-9]+ rank' "$T/cl$n.out" >"$T/cl$n.chk" 2>&1; then
        echo "PASS: climate run $n: MLPerf's MLLOG order, init_start at program start ($(tail -n 1 "$T/cl$n.chk"))"
    else echo "FAIL: climate run $n: $(tail -n 1 "$T/cl$n.chk") (see $T/cl$n.out)"; fi
    closed_case "$T/cl$n.out" deepcam 0 "climate run $n passes closed DeepCAM's keys, batchnorm_group_size included"
done
want=('' 'batchnorm_group_size=1 eval_samples=4 submission_benchmark="deepcam"'
      'batchnorm_group_size=2 eval_samples=4 submission_benchmark="deepcam"'
      'batchnorm_group_size=2 eval_samples=4 submission_benchmark="deepcam"')
for n in 1 2 3; do
    got=$(keys "$T/cl$n.out" batchnorm_group_size eval_samples submission_benchmark)
    if [ "$got" = "${want[$n]}" ]; then echo "PASS: climate run $n: $got"
    else echo "FAIL: climate run $n: $got, want ${want[$n]}"; fi
done
# the split is the same samples whatever the ranks: 2 ranks of batch 1 with
# synchronised batch norm evaluate as 1 rank of batch 2
acc() { python3 -c 'import json, sys
print(" ".join(str(json.loads(t[9:])["value"]) for t in open(sys.argv[1])
               if t.startswith(":::MLLOG ") and json.loads(t[9:])["key"] == "eval_accuracy"))' "$1"; }
a1=$(acc "$T/cl1.out") a2=$(acc "$T/cl2.out")
if python3 -c 'import sys
a, b = [list(map(float, x.split())) for x in sys.argv[1:3]]
sys.exit(0 if len(a) == 2 and len(a) == len(b) and all(abs(x - y) <= 1e-4 * abs(x) for x, y in zip(a, b)) else 1)' "$a1" "$a2"; then
    echo "PASS: climate: validation 1 rank x batch 2 = 2 ranks x batch 1 (--bn sync): $a1 / $a2"
else
    echo "FAIL: climate: validation 1 rank x batch 2 ($a1) != 2 ranks x batch 1, --bn sync ($a2)"
fi
grep -q '^  curve:' "$T/cl1.yaml" && grep -q '^  eval_samples: 4$' "$T/cl1.yaml" &&
    ! grep -q 'val_mae' "$T/cl1.yaml" &&
    echo "PASS: climate's record: a time_to_train block with its curve (no MAE: climate has none)" ||
    echo "FAIL: climate's record: no time_to_train curve, or an MAE it does not measure (see $T/cl1.yaml)"
# bad combinations, --help
bad() { # expected-text args...
    local want=$1 out rc
    shift
    out=$("$CL" --preset tiny --check-config "$@" 2>&1)
    rc=$?
    if [ $rc = 2 ] && grep -qF -- "$want" <<<"$out"; then echo "PASS: climate $*: exit 2 ($out)"
    else echo "FAIL: climate $*: exit $rc: $out"; fi
}
bad "--target-loss needs --eval-every" --target-loss 0.5
bad "--eval-every needs a validation split" --eval-every 2 --val-samples 0
bad "--mllog" --mllog maybe
h=$("$CL" --help)
for o in --val-samples --eval-every --target-loss --mllog; do
    grep -q -- "^  $o " <<<"$h" || echo "FAIL: climate --help lacks $o"
done
grep -q -- "^  --val-samples " <<<"$h" && echo "PASS: climate --help lists --val-samples, --eval-every, --target-loss, --mllog"
