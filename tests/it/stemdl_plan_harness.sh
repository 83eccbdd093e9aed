#!/usr/bin/env bash
# exadl model --spatial --stemdl: STEMDL's plan model from the harness
# (docs/spatial.md "The harness"), and `exadl run` of what it chose.
# - the tiny preset, --spatial 2 at batch 1 per group, links from the
#   development machine's file: the candidates (data and the hs plans refused:
#   one sample cannot be handed out whole), the choice 2x1:h (it ties with
#   1x2:h: square images; the first wins), the exact command and suite entry;
# - a memory limit under every plan: none chosen (exit 1);
# - refusals (exit 2): no links, no stemdl options, a --model- option after
#   --, a grid that does not divide, a links file that is neither kind;
# - the printed suite entry and a hand-written plan-hs entry run by `exadl
#   run` on 2 ranks: the records carry the plans, the report's spatial
#   section shows each run's grid, plan, halo and shuffle bytes as recorded,
#   and for the chosen entry the model's prediction (--model-predicted-step-s,
#   in the printed command and entry, recorded as network.predicted_step_s)
#   beside the measured median, their ratio and the load before the launch
#   (the hand-written hs entry: "-");
#   the model asked for that run (--record): its options, batch and split.
# No time is asserted.
set -u
E=$EXADL_BIN/exadl
T=$EXADL_TMP
SRC=$EXADL_ROOT
MACH=$SRC/reference/machines/dev-2core.yaml
O=(--preset tiny --spatial 2 --batch 1 --threads 1 --precision fp32 --steps 2 --warmup 0)

"$E" model --spatial --stemdl --links "$MACH" --flops 1e9 -- "${O[@]}" >"$T/m.out" 2>&1
rc=$?
names=$(awk '/^  plan / { on = 1; next } on == 1 && /^  [^ ]/ { printf "%s ", $1 } /^$/ && on { on = 2 }' "$T/m.out")
refused=$(grep -c 'refused or does not fit' "$T/m.out")
if [ $rc = 0 ] && [ "$names" = "data 2x1:h 2x1:hs 2x1:hhs 1x2:h 1x2:hs 1x2:hhs " ] &&
    [ "$refused" = 5 ] && grep -q '^  2x1:h .*  <- chosen$' "$T/m.out" &&
    PRED=$(sed -n 's/^chosen: 2x1:h, predicted \([0-9][0-9.e+-]*\) s per step, 242340 bytes of network buffers per rank$/\1/p' "$T/m.out") &&
    [ -n "$PRED" ] &&
    grep -q "^  mpirun -np 2 .*/stemdl --preset tiny --threads 1 --precision fp32 --steps 2 --warmup 0 --batch 1 --spatial 2x1 --spatial-plan h --model-predicted-step-s $PRED$" "$T/m.out" &&
    grep -q "^    config: {preset: tiny, threads: 1, precision: fp32, steps: 2, warmup: 0, batch: 1, spatial: \"2x1\", spatial_plan: h, model_predicted_step_s: $PRED}$" "$T/m.out" &&
    grep -q "^  links: 4.05e-07 s + bytes / 3.94e+09 B/s  (machine file .*dev-2core.yaml (intra_node))" "$T/m.out"; then
    echo "PASS: model_stemdl candidates, 5 refused, 2x1:h chosen with its command and suite entry"
else
    echo "FAIL: model_stemdl (exit $rc): names '$names', refused $refused: $(cat "$T/m.out")"
fi

"$E" model --spatial --stemdl --links "$MACH" --flops 1e9 --memory-bytes 100000 -- "${O[@]}" >"$T/mem.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^chosen: none' "$T/mem.out" &&
    [ "$(grep -c 'refused or does not fit' "$T/mem.out")" = 7 ]; then
    echo "PASS: model_stemdl a memory limit under every plan: none chosen (exit 1)"
else
    echo "FAIL: model_stemdl memory limit: exit $rc: $(tail -n 4 "$T/mem.out")"
fi

refuse() { # what, expected text, args...
    local what=$1 want=$2
    shift 2
    "$E" model --spatial --stemdl "$@" >"$T/r.out" 2>&1
    local rc=$?
    if [ $rc = 2 ] && grep -q -- "$want" "$T/r.out" && [ "$(grep -c . "$T/r.out")" = 1 ]; then
        echo "PASS: model_stemdl refuses $what"
    else
        echo "FAIL: model_stemdl $what: exit $rc: $(cat "$T/r.out")"
    fi
}
refuse "no links" "needs --links FILE" --flops 1e9 -- "${O[@]}"
refuse "no stemdl options" "needs stemdl's options after --" --links "$MACH" --flops 1e9
refuse "a --model- option after --" "'--model-flops' is set by exadl" --links "$MACH" --flops 1e9 \
    -- --preset tiny --spatial 2 --model-flops 1
refuse "a grid that does not divide" "height 16 does not split into 3 equal tiles" \
    --links "$MACH" --flops 1e9 -- --preset tiny --spatial 3
printf 'a: 1\n' >"$T/links.yaml"
refuse "a links file of neither kind" "neither a machine file (exadl_machine) nor a collectives" \
    --links "$T/links.yaml" --flops 1e9 -- "${O[@]}"

# the chosen entry, and a plan with shuffles, run by the harness
{
    cat <<EOF
exadl_suite: 1
name: stemdl-plan
description: the plan exadl model chose, and one with shuffles
launcher: mpirun
scaling: weak
scales: [2]
repetitions: 1
timeout_s: 120
env:
  OMP_NUM_THREADS: "1"
benchmarks:
EOF
    sed -n '/^suite entry:/,$p' "$T/m.out" | tail -n +2
    cat <<EOF
  - name: stemdl-hs
    program: stemdl
    scales: [2]
    config: {preset: tiny, threads: 1, precision: fp32, steps: 2, warmup: 0, batch: 2, spatial: "2", spatial_plan: hs}
EOF
} >"$T/suite.yaml"
if "$E" run "$T/suite.yaml" --out "$T/run" >"$T/run.out" 2>&1; then
    R=$(ls -d "$T"/run/*/)
    rec_h=$R/records/stemdl-2x1-h-n2-r1.yaml rec_s=$R/records/stemdl-hs-n2-r1.yaml
    sb() { python3 -c 'import sys, yaml; n = yaml.safe_load(open(sys.argv[1]))["network"]; print(n["spatial_plan"], n["halo_bytes_per_step"], n["halo_messages_per_step"], n["shuffle_bytes_per_step"], n["shuffle_messages_per_step"])' "$1"; }
    read -r ph hh mh sh qh <<<"$(sb "$rec_h")"
    read -r ps hs ms ss qs <<<"$(sb "$rec_s")"
    if [ "$ph" = h ] && [ "$ps" = hs ] && [ "$ss" -gt 0 ] &&
        grep -q "^| 2 | 2x1 | h | 2 | $hh | $mh | $sh | $qh | " "$R/report.md" &&
        grep -q "^| 2 | 2 | hs | 2 | $hs | $ms | $ss | $qs | " "$R/report.md"; then
        echo "PASS: model_stemdl exadl run of the chosen entry and a plan-hs entry: records and report agree (hs: $ss shuffle bytes per step)"
    else
        echo "FAIL: model_stemdl run: records '$ph $hh $mh $sh $qh' '$ps $hs $ms $ss $qs', report: $(grep -A5 'Spatial split' "$R/report.md")"
    fi
    # the prediction beside the measured step: recorded, shown, divided
    rp=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["network"].get("predicted_step_s", "none"))' "$rec_h")
    rs=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["network"].get("predicted_step_s", "none"))' "$rec_s")
    row_h=$(grep "^| 2 | 2x1 | h | " "$R/report.md") row_s=$(grep "^| 2 | 2 | hs | " "$R/report.md")
    # | ... | step measured [CI] | predicted | predicted / measured | load |
    if python3 - "$rp" "$PRED" "$row_h" <<'PY'
import re, sys
rp, pred, row = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    c = [x.strip() for x in row.strip().strip("|").split("|")]
    med = float(re.match(r"([0-9.e+-]+) s \[", c[8]).group(1))
    ok = (float(rp) == float(pred) and c[9] == pred + " s" and
          abs(float(c[10]) - float(pred) / med) <= 0.002 * float(c[10]) + 0.0015 and
          re.fullmatch(r"[0-9]+\.[0-9](-[0-9]+\.[0-9])?", c[11]) is not None)
except (ValueError, IndexError, AttributeError):
    ok = False  # no prediction recorded, or a row without the columns
sys.exit(0 if ok else 1)
PY
    then
        if [ "$rs" = none ] && echo "$row_s" | grep -Eq '\| - \| - \| [0-9.-]+ \|$'; then
            echo "PASS: model_stemdl the chosen run records the prediction ($rp s); the report sets it beside the measured median with the ratio and the load; none for the hand-written entry"
        else
            echo "FAIL: model_stemdl the hs entry has a prediction: record '$rs', row '$row_s'"
        fi
    else
        echo "FAIL: model_stemdl prediction in the report: printed '$PRED', recorded '$rp', row '$row_h'"
    fi
    # the model for a run: the hs record's options, the links file's
    "$E" model --spatial --stemdl --links "$MACH" --flops 1e9 --record "$rec_s" >"$T/mr.out" 2>&1
    rc=$?
    if [ $rc = 0 ] && grep -q '^exadl model --spatial --stemdl: 2 ranks per sample group, batch 2 per group$' "$T/mr.out" &&
        grep -q '^  mpirun -np 2 .*/stemdl --preset tiny --threads 1 --precision fp32 --steps 2 --warmup 0 .*--batch [12] --spatial ' "$T/mr.out" &&
        ! grep -q -- '--record' "$T/mr.out"; then
        echo "PASS: model_stemdl --record: the run's options, its batch and split"
    else
        echo "FAIL: model_stemdl --record: exit $rc: $(cat "$T/mr.out")"
    fi
    refuse "a record not of stemdl" "not a stemdl record with its command" --links "$MACH" \
        --flops 1e9 --record "$T/links.yaml"
else
    echo "FAIL: model_stemdl exadl run of the chosen plan: $(tail -n 5 "$T/run.out")"
fi
exit 0
