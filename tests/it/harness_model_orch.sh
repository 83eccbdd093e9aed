#!/usr/bin/env bash
# The orchestration terms of `exadl model` from the collectives they run (docs/model.md
# "Orchestration"), checked against SimGrid simulations of the real orchestration code
# on Summit's platform (docs/simulate.md "Summit runs"), and the straggler lines:
#  - calibrated (--calibrate-from the shipped SMPI runs at 64..512 ranks), the model's
#    cycle at 1,024 ranks is within 20% of the 1,024-rank simulation (coordinator
#    26.3 us, bit vector 13.0 us per cycle, docs/simulate.md);
#  - every calibration row (64 .. 6,144 ranks where shipped) within 20% of its run;
#  - coordinator / bit vector orchestration cost per step at 6,000 GPUs (gb2019) in
#    [1.5, 2.5] from those inputs, with no --coord-request-s;
#  - efficiency at 27,600 with and without the straggler term, the source named, the
#    bit vector + layer one in [0.88, 0.98];
#  - the ablation per mode (groups, fused reductions per step and their mean size);
#  - --calibrate-from a folder without orchestration records: exit 2, one line.
# On main (before the collectives' model) the coordinator's cycle was 2a per rank:
# 2 ms at 1,024 ranks, the ratio at 6,000 1.013 (a step ratio), no calibration option.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}/harness_model_orch
root=${EXADL_ROOT:-$(pwd)}
mkdir -p "$tmp"
fails=0
pass() { echo "PASS: harness_model_orch: $1"; }
fail() { echo "FAIL: harness_model_orch: $1"; fails=$((fails + 1)); }
cal=$root/reference/machines/summit-smpi-orchestration
within() { awk -v x="$1" -v y="$2" -v t="$3" 'BEGIN { exit !(x != "" && y > 0 && x / y >= 1 - t && x / y <= 1 + t) }'; }

# calibrated on the small runs only: the 1,024-rank simulation is a prediction
mkdir -p "$tmp/small/records"
for f in "$cal"/records/orchestration-n*-r1.yaml; do
    n=${f##*-n}; n=${n%%-*}
    [ "$n" -le 512 ] && cp "$f" "$tmp/small/records/"
done
out=$("$exadl" model --network gb2019 --gpu-flops 55.8e12 --machine "$root/reference/machines/summit.yaml" \
      --calibrate-from "$tmp/small" --scales 6,1024,6000,27600 --out "$tmp/m1" 2>&1); rc=$?
[ $rc -eq 0 ] && pass "model --calibrate-from runs (exit 0)" || { fail "exit $rc: $(echo "$out" | tail -3)"; }
echo "$out" | grep -q "^negotiation: .*latencies x [0-9.]* fitted to [0-9]* orchestration rows" \
    && pass "the calibration is said: $(echo "$out" | grep -o 'latencies x [0-9.]*' | head -1)" || fail "no calibration line"
row=$(echo "$out" | awk '/^orchestration: one cycle/ { t = 1 } t && $1 == 1024 { print $6, $7; exit }')
coord=${row% *} bv=${row#* }
within "$coord" 26.316 0.20 && pass "coordinator cycle at 1,024: $coord us (simulated 26.3 us)" || fail "coordinator at 1,024: '$coord'"
within "$bv" 13.0 0.20 && pass "bit-vector cycle at 1,024: $bv us (simulated 13.0 us)" || fail "bit vector at 1,024: '$bv'"
ratio=$(echo "$out" | awk '/^coordinator \/ bit vector/ { t = 1 } t && $1 == "layer" && $3 == "6000:" { print $5; exit }')
awk -v r="$ratio" 'BEGIN { exit !(r != "" && r >= 1.5 && r <= 2.5) }' \
    && pass "coordinator / bit vector orchestration per step at 6,000 GPUs: $ratio, in [1.5, 2.5]" || fail "ratio at 6,000: '$ratio'"
echo "$out" | grep -q "plus rank 0's cost per request" && fail "a per-request cost was added" || pass "no per-request cost"
eff=$(echo "$out" | awk '/^stragglers at 27600/ { t = 1 } t && $1 == "bitvector+layer" { print $3, $5; exit }')
with=${eff% *} without=${eff#* }
awk -v x="$with" 'BEGIN { exit !(x != "" && x >= 0.88 && x <= 0.98) }' \
    && pass "bit vector + layer at 27,600: $with with stragglers (in [0.88, 0.98]), $without without" || fail "efficiency at 27,600: '$eff'"
awk -v x="$with" -v y="$without" 'BEGIN { exit !(y != "" && y > x) }' && pass "without stragglers higher" || fail "without: '$without'"
echo "$out" | grep -q "^  straggler source: machine file summit, straggler_cv: source: P. Sinha" \
    && pass "the straggler source is named" || fail "no straggler source line"

# the ablation per mode: groups, fused reductions and their size, for both orchestrations
abl=$(echo "$out" | awk '/^ablation at 27600/ { t = 1; next } t && /^$/ { exit } t && /groups .* reductions of .* MB/' | wc -l)
none=$(echo "$out" | awk '/^ablation at 27600/ { t = 1; next } t && /^$/ { exit } t && $1 == "bitvector+none" { print $2, $4 }')
four=$(echo "$out" | awk '/^ablation at 27600/ { t = 1; next } t && /^$/ { exit } t && $1 == "bitvector+4" { print $2, $4 }')
[ "$abl" -eq 6 ] && [ "$none" = "27 26" ] && [ "$four" = "4 24" ] \
    && pass "ablation predicted per mode (6 modes; none: 27 groups in 26 fused reductions, 4 groups: 24)" \
    || fail "ablation block: $abl lines, none '$none', 4 groups '$four'"

# every shipped run, from 64 to the largest, within 20% of the model with one scale
out=$("$exadl" model --network gb2019 --gpu-flops 55.8e12 --machine "$root/reference/machines/summit.yaml" \
      --calibrate-from "$cal" --scales 6,6144 --out "$tmp/m2" 2>&1); rc=$?
rows=$(echo "$out" | grep -c "model / run")
bad=$(echo "$out" | awk '/model \/ run/ { r = $NF; if (r < 0.8 || r > 1.2) print }')
[ $rc -eq 0 ] && [ "$rows" -ge 8 ] && [ -z "$bad" ] \
    && pass "$rows shipped simulation rows within 20% (largest: $(echo "$out" | awk '/model \/ run/ { print $1 }' | sort -n | tail -1) ranks)" \
    || fail "rows $rows, outside 20%: $bad"

# bad input: no orchestration records
mkdir -p "$tmp/empty/records"
out=$("$exadl" model --network gb2019 --gpu-flops 55.8e12 --machine "$root/reference/machines/summit.yaml" \
      --calibrate-from "$tmp/empty" --out "$tmp/m3" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && pass "no orchestration records: exit 2, one line" \
    || fail "empty calibration folder: exit $rc: $out"
[ $fails -eq 0 ]
