#!/usr/bin/env bash
# exadl model --from RUN beside --network: the straggler spread and the
# coordinator's cost per request come from a hand-written run folder whose
# values are worked out here; a machine file's straggler_cv (fit: false) wins
# over the run; a bad per-rank table is one error naming the file and line.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
T=$tmp/model_from
rm -rf "$T"
mkdir -p "$T/run/records"
# 4 ranks, each step 0.1 -+ 0.003: pooled sigma = sqrt(4 x 0.003^2 / 3) =
# 0.0034641, cv 0.034641
cat >"$T/run/records/stemdl-n4-r1.yaml" <<'Y'
exadl_record: 1
benchmark: stemdl
status: ok
ranks: 4
timing:
  step_s: [0.11, 0.11, 0.11]
  rank_compute_s:
    - [0.097, 0.103, 0.097, 0.103]
    - [0.103, 0.097, 0.103, 0.097]
    - [0.097, 0.103, 0.097, 0.103]
Y
# per request: (30 - 9) / 54 = 0.38889 us and (25 - 9) / 54 = 0.29630 us;
# the median of the two, 0.34259 us
cat >"$T/run/records/orchestration-n2-r1.yaml" <<'Y'
exadl_record: 1
benchmark: orchestration
status: ok
ranks: 2
results:
  - {mode: coordinator, grouping: none, ranks: 2, tensors: 27, cycles: 7, requests: 54, median_s: 30.0e-6}
  - {mode: cache, grouping: none, ranks: 2, tensors: 27, cycles: 7, requests: 0, median_s: 9.0e-6}
  - {mode: coordinator, grouping: layer, ranks: 2, tensors: 27, cycles: 7, requests: 54, median_s: 25.0e-6}
  - {mode: cache, grouping: layer, ranks: 2, tensors: 27, cycles: 7, requests: 0, median_s: 9.0e-6}
Y
cat >"$T/tiny.yaml" <<'Y'
exadl_machine: 1
name: tiny
nodes: 4
ranks_per_node: 2
intra_node: {latency_s: 1.0e-6, bandwidth_Bps: 1.0e10}
inter_node: {latency_s: 2.0e-6, bandwidth_Bps: 1.0e10}
Y
run_model() { # out machine
    "$exadl" model --network gb2019 --gpu-flops 55.8e12 --machine "$2" --from "$T/run" \
        --scales 2,8 --mode bitvector+layer,coordinator+layer --quiet --out "$T/$1" 2>"$T/$1.err"
}
val() { awk -v k="$1:" '$1 == k {print $2; exit}' "$2"; }
near() { awk -v x="$1" -v y="$2" -v r="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(x != "" && d <= r * y) }'; }
if run_model a "$T/tiny.yaml"; then
    cv=$(val jitter_cv "$T/a/model.yaml") req=$(val coordinator_per_request_s "$T/a/model.yaml")
    near "$cv" 0.034641 0.001 && echo "PASS: harness_model_from: straggler cv $cv from per-rank times" ||
        echo "FAIL: harness_model_from: jitter_cv '$cv', expected 0.034641"
    near "$req" 3.4259e-7 0.001 && echo "PASS: harness_model_from: cost per request $req s" ||
        echo "FAIL: harness_model_from: coordinator_per_request_s '$req', expected 3.4259e-7"
    grep -q "jitter_source: .*per-rank" "$T/a/model.yaml" && grep -q "request_source: .*orchestration" "$T/a/model.yaml" &&
        echo "PASS: harness_model_from: sources named in model.yaml" || echo "FAIL: harness_model_from: sources not in model.yaml"
else
    echo "FAIL: harness_model_from: exit $?: $(head -n 2 "$T/a.err")"
fi
# the machine file's own figure (fit: false) is kept
{ cat "$T/tiny.yaml"; echo 'straggler_cv: {value: 0.01, assumption: "test value"}'; } >"$T/tiny2.yaml"
if run_model b "$T/tiny2.yaml" && near "$(val jitter_cv "$T/b/model.yaml")" 0.01 1e-9; then
    echo "PASS: harness_model_from: the machine file's straggler_cv wins over the run"
else
    echo "FAIL: harness_model_from: machine straggler_cv: $(val jitter_cv "$T/b/model.yaml" 2>/dev/null) $(head -n 1 "$T/b.err")"
fi
# a per-rank row shorter than the first: the record is left out with one
# warning naming file, line and problem (as every unreadable record of a run)
sed -i 's/- \[0.103, 0.097, 0.103, 0.097\]/- [0.103, 0.097]/' "$T/run/records/stemdl-n4-r1.yaml"
run_model c "$T/tiny.yaml"; rc=$?
if [ $rc -eq 0 ] && grep -q "stemdl-n4-r1.yaml:9:[0-9]*: timing: rank_compute_s: step 1 must list 4" "$T/c.err" &&
    near "$(val jitter_cv "$T/c/model.yaml")" 0 0; then
    echo "PASS: harness_model_from: bad per-rank table: $(head -n 1 "$T/c.err" | cut -c1-160)"
else
    echo "FAIL: harness_model_from: bad per-rank table: exit $rc: $(head -n 1 "$T/c.err")"
fi
