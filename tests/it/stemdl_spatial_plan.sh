#!/usr/bin/env bash
# stemdl --spatial-plan: per-level plans of the FC-DenseNet's split
# (docs/spatial.md "Per-level plans"): levels split along H, then an
# all-to-all shuffle to whole samples for the low-resolution levels and back.
# - the tiny preset at batch 4 on 1 rank, then --spatial 2 with plans hs and
#   hhs on 2 ranks and --spatial 4 with hs on 4 ranks, and W splits: 1x2 on 2
#   ranks, 2x2 (the corners) with plans h and hs on 4, and 2 groups of 2 ranks
#   with plan hs at batch 2 per group: every step's loss within
#   1e-5 relative, the ranks' weights identical and within 1e-4 of the largest
#   1-rank weight; the kernel table's shuffle rows (2 per step and shuffle
#   layer); the record's plan and its shuffle bytes, counted by hand;
# - bad plans refused in one line (exit 2);
# - --describe: the plan model's candidates, their byte counts (by hand) and
#   the choice given a machine (no timing is asserted).
set -u
S=$EXADL_BIN/stemdl
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
O=(--preset tiny --steps 12 --warmup 0 --precision fp32 --threads 1 --quiet)
CMP=$EXADL_ROOT/tests/support/stemdl_compare.py

"$S" "${O[@]}" --batch 4 --record "$T/r1.yaml" --dump-weights "$T/w1" >"$T/o1" 2>&1 ||
    echo "FAIL: spatial_plan the 1-rank run failed: $(tail -n 3 "$T/o1")"
# np split plan batch (per group): the last, 2 data-parallel groups of 2 ranks
for r in "2 2 hs 4" "2 2 hhs 4" "4 4 hs 4" "2 1x2 h 4" "4 2x2 h 4" "4 2x2 hs 4" "4 2 hs 2"; do
    # shellcheck disable=SC2086
    set -- $r
    np=$1 sp=$2 plan=$3 b=$4 tag="np$1-$2-$3"
    [ "$np-$sp-$plan" = "2-2-hs" ] && tag=np2-hs # the run the checks below read
    if ! $M -np "$np" "$S" "${O[@]}" --batch "$b" --spatial "$sp" --spatial-plan "$plan" \
        --record "$T/r$tag.yaml" --dump-weights "$T/w$tag" >"$T/o$tag" 2>&1; then
        echo "FAIL: spatial_plan $np ranks --spatial-plan $plan failed: $(tail -n 3 "$T/o$tag")"
        continue
    fi
    verdict=$(python3 "$CMP" "$T/r1.yaml" "$T/r$tag.yaml" "$T/w1.0" "$T/w$tag" "$np")
    case $verdict in
    ok*) echo "PASS: spatial_plan $np ranks --spatial $sp --spatial-plan $plan --batch $b matches 1 rank: ${verdict#ok }" ;;
    *) echo "FAIL: spatial_plan $np ranks --spatial $sp --spatial-plan $plan --batch $b vs 1 rank: $verdict" ;;
    esac
done

# the shuffles: td0 into level 1, tu1 out of it; forward and backward each step
k=$(awk '/^kernels_steps:/ { print $2 }' "$T/rnp2-hs.yaml")
for layer in td0 tu1; do
    calls=$(grep -o "kernel: shuffle, layer: $layer, calls: [0-9]*" "$T/rnp2-hs.yaml" | awk '{ print $NF }')
    if [ -n "$k" ] && [ "$calls" = "$((2 * k))" ]; then
        echo "PASS: spatial_plan the kernel table's shuffle at $layer: $calls calls over $k steps"
    else
        echo "FAIL: spatial_plan shuffle at $layer: '$calls' calls over '$k' steps (want 2 per step)"
    fi
done
if grep -q "kernel: halo, layer: down0" "$T/rnp2-hs.yaml" 2>/dev/null &&
    ! grep -q "kernel: halo, layer: down1" "$T/rnp2-hs.yaml"; then
    echo "PASS: spatial_plan halos at level 0, none at the whole-sample levels"
else
    echo "FAIL: spatial_plan halo rows of the hs run: level 0 without or level 1 with an exchange"
fi
# tiny, hs over 2 ranks at batch 4: td0's 9 pooled maps and up0's 2 x 5 new
# maps, tiles of 4 x 8 at level 1, 2 of the 4 samples to the other rank,
# forward and backward, 4 bytes: 2 x 19 x 32 x 2 x 1 x 4 = 9728
net=$(awk '/^network:/ { on = 1 } on { printf "%s ", $0 } on && /}/ { exit }' "$T/rnp2-hs.yaml" | tr -s ' ')
case $net in
*"spatial_plan: hs,"*"shuffle_bytes_per_step: 9728,"*"shuffle_messages_per_step: 4"*)
    echo "PASS: spatial_plan the record names the plan and its shuffle bytes: ${net#network: }" ;;
*) echo "FAIL: spatial_plan the record's network block: $net" ;;
esac

refuse() { # what expect-regex args...
    local what=$1 re=$2
    shift 2
    "$S" --preset tiny "$@" --check-config >"$T/ref.out" 2>&1
    local rc=$? lines
    lines=$(wc -l <"$T/ref.out")
    if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -Eq "$re" "$T/ref.out"; then
        echo "PASS: spatial_plan $what refused: $(cat "$T/ref.out")"
    else
        echo "FAIL: spatial_plan $what: rc $rc, $lines lines: $(head -c 300 "$T/ref.out")"
    fi
}
refuse "a plan without a split" "spatial-plan hs needs --spatial N" --spatial-plan hs
refuse "whole samples at level 0" "spatial-plan sh: level 0 must be h" --spatial 2 --spatial-plan sh
refuse "H after whole samples" "spatial-plan hsh: level 2 is split along H after level 1" --spatial 2 --spatial-plan hsh
refuse "too many letters" "spatial-plan hhhs: 4 letters for the 3 levels" --spatial 2 --spatial-plan hhhs
refuse "a batch the ranks cannot share" "spatial-plan hs: --batch 1 does not give the 2 ranks" \
    --spatial 2 --batch 1 --spatial-plan hs
refuse "a letter not h or s" "spatial.plan: 'hx' is not a spatial plan" --spatial 2 --spatial-plan hx

# the plan model: tiny, --spatial 2, batch 4 (4 bytes per element)
D=$("$S" --preset tiny --batch 4 --spatial 2 --describe --model-flops 1e9 --model-latency-s 1e-5 \
    --model-bytes-per-s 1e9)
names=$(echo "$D" | awk '/^spatial_plans/ { on = 1; getline; next } on && /^  / { printf "%s ", $1 } !/^  / { on = 0 }')
if [ "$names" = "data 2x1:h 2x1:hs 2x1:hhs 1x2:h 1x2:hs 1x2:hhs " ]; then
    echo "PASS: spatial_plan --describe enumerates the candidates: $names"
else
    echo "FAIL: spatial_plan --describe candidates: '$names'"
fi
# halo bytes of a rank with one neighbour (2 ranks): half a middle rank's
# 14528 per sample (the unit test counts those) x 4 samples = 29056; shuffles
# as above; hhs: 22 maps at tiles of 2 x 4: 2 x 22 x 8 x 2 x 4 = 2816
row() { echo "$D" | awk -v p="$1" '$1 == p { print $3, $4, $5, $6 }'; }
if [ "$(row 2x1:h)" = "29056 17 0 0" ] && [ "$(row 2x1:hs | cut -d' ' -f3-)" = "9728 4" ] &&
    [ "$(row 2x1:hhs | cut -d' ' -f3-)" = "2816 4" ] && [ "$(row data)" = "0 0 0 0" ] &&
    [ "$(row 1x2:h)" = "29056 17 0 0" ]; then
    echo "PASS: spatial_plan the candidates' halo and shuffle bytes and messages"
else
    echo "FAIL: spatial_plan candidates' bytes: 2x1:h '$(row 2x1:h)', 2x1:hs '$(row 2x1:hs)'," \
        "2x1:hhs '$(row 2x1:hhs)', data '$(row data)', 1x2:h '$(row 1x2:h)'"
fi
# 4 ranks at batch 2: no whole samples to hand out; 2x2's halo (4368 per
# sample for a middle rank, the unit test's count) halved for 2 tiles per
# axis, x 2 samples x 4 bytes = 17472; the model picks a grid and says how
D4=$("$S" --preset tiny --batch 2 --spatial 4 --describe --model-flops 1e9 --model-latency-s 1e-5 \
    --model-bytes-per-s 1e9)
if echo "$D4" | grep -Eq '^  data +refused: --batch 2 does not give 4 ranks whole samples' &&
    echo "$D4" | grep -Eq '^  2x2:hs +refused: .*--batch 2 does not give the 4 ranks' &&
    [ "$(echo "$D4" | awk '$1 == "2x2:h" { print $3, $4 }')" = "17472 34" ] &&
    echo "$D4" | grep -Eq '^spatial_plan_chosen +[0-9]+x[0-9]+:h .*run it with --spatial [0-9]+x[0-9]+ --spatial-plan h\)'; then
    echo "PASS: spatial_plan 4 ranks at batch 2: refusals, 2x2's halo, $(echo "$D4" | grep '^spatial_plan_chosen' | cut -c 1-60)"
else
    echo "FAIL: spatial_plan 4 ranks at batch 2: $(echo "$D4" | tail -n 12)"
fi
if echo "$D" | grep -Eq "^spatial_plan_chosen +[a-z]+  \(predicted [0-9.e+-]+ s per step"; then
    echo "PASS: spatial_plan the model says its choice: $(echo "$D" | grep '^spatial_plan_chosen')"
else
    echo "FAIL: spatial_plan no choice: $(echo "$D" | tail -n 2)"
fi
"$S" --preset tiny --batch 4 --spatial 2 --describe --model-flops 1e9 --model-bytes-per-s 1e9 \
    --model-memory-bytes 7e5 | grep -Eq "^  2x1:h +refused: does not fit: 799908 bytes" &&
    echo "PASS: spatial_plan a plan over --model-memory-bytes does not fit" ||
    echo "FAIL: spatial_plan --model-memory-bytes 7e5 kept 2x1:h"
"$S" --preset tiny --batch 4 --spatial 2 --describe | grep -q "^spatial_plan_chosen  *none: no machine" &&
    echo "PASS: spatial_plan without a machine the model predicts nothing" ||
    echo "FAIL: spatial_plan predicted without a machine"
exit 0
