#!/usr/bin/env bash
# stemdl --spatial: the FC-DenseNet split along H over the ranks of a spatial
# group (docs/spatial.md), against the unsplit network:
# - the tiny preset on 1 rank at batch 2, then split 2x1 on 2 ranks, 4x1 on 4
#   ranks, and 2x1 on 4 ranks (2 data-parallel groups at batch 1, the same
#   samples): every step's loss within 1e-5 relative of the 1-rank run, every
#   rank's weights bit for bit the same, and within 1e-4 of the largest
#   weight of the 1-rank run's (Adam's step is about lr whatever the size of
#   a gradient, so the rounding of near-zero gradients, summed in another
#   order, shows in the weights far more than in the loss);
# - splits that do not divide a layer's height or width, tiles thinner than
#   the halo, ranks that do not form whole groups, Lion's compressed exchange
#   (a vote on signs of partial gradients): refused in one line;
# - --describe prints the memory per rank, which falls with the split.
set -u
S=$EXADL_BIN/stemdl
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
O=(--preset tiny --steps 12 --warmup 0 --precision fp32 --threads 1 --quiet)

"$S" "${O[@]}" --batch 2 --record "$T/r1.yaml" --dump-weights "$T/w1" >"$T/o1" 2>&1 ||
    echo "FAIL: spatial2d the 1-rank run failed: $(tail -n 3 "$T/o1")"
runs=("2 2x1 2" "4 4x1 2" "4 2x1 1")
for r in "${runs[@]}"; do
    # shellcheck disable=SC2086
    set -- $r
    np=$1 sp=$2 b=$3 tag="np$1-$2"
    if ! $M -np "$np" "$S" "${O[@]}" --batch "$b" --spatial "$sp" --record "$T/r$tag.yaml" \
        --dump-weights "$T/w$tag" >"$T/o$tag" 2>&1; then
        echo "FAIL: spatial2d $np ranks --spatial $sp failed: $(tail -n 3 "$T/o$tag")"
        continue
    fi
    verdict=$(python3 "$EXADL_ROOT/tests/support/stemdl_compare.py" "$T/r1.yaml" "$T/r$tag.yaml" \
        "$T/w1.0" "$T/w$tag" "$np")
    case $verdict in
    ok*) echo "PASS: spatial2d $np ranks --spatial $sp --batch $b matches 1 rank at batch 2: ${verdict#ok }" ;;
    *) echo "FAIL: spatial2d $np ranks --spatial $sp --batch $b vs 1 rank: $verdict" ;;
    esac
done
grep -q '^  spatial: 2x1$' "$T/rnp2-2x1.yaml" && echo "PASS: spatial2d the record's config names the split" ||
    echo "FAIL: spatial2d the record's config lacks spatial: 2x1"
grep -q 'kernel: halo, layer: down0.l0' "$T/rnp2-2x1.yaml" &&
    echo "PASS: spatial2d the kernel table has the halo exchange's rows" ||
    echo "FAIL: spatial2d no halo row in the split run's kernel table"

# refused in one line, exit 2, naming the option and the layer
refuse() { # what expect-regex args...
    local what=$1 re=$2
    shift 2
    "$S" --preset tiny "$@" --check-config >"$T/ref.out" 2>&1
    local rc=$? lines
    lines=$(wc -l <"$T/ref.out")
    if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -Eq "$re" "$T/ref.out"; then
        echo "PASS: spatial2d $what refused: $(cat "$T/ref.out")"
    else
        echo "FAIL: spatial2d $what: rc $rc, $lines lines: $(head -c 300 "$T/ref.out")"
    fi
}
refuse "3x1 (16 rows)" "spatial 3x1: layer conv_init's height 16 does not split into 3" --spatial 3x1
refuse "8x1 (4 rows after 2 poolings)" "spatial 8x1: layer bottleneck.l0's height 4 does not split into 8" \
    --spatial 8x1
refuse "a W split that does not divide a width" "spatial 1x3: layer conv_init's width 16 does not split into 3" \
    --spatial 1x3
refuse "tiles thinner than the halo" "spatial 4: layer bottleneck.l0's tiles of 1 rows are thinner than its halo of 2" \
    --spatial 4 --k 5
refuse "a split of 0" "spatial.*'0' is not N or HxW" --spatial 0
refuse "Lion's sign vote" "spatial 2 with --exchange 1bit: the ranks of a group hold parts of one gradient" \
    --spatial 2 --optimizer lion --exchange 1bit
$M -np 3 "$S" --preset tiny --steps 1 --quiet --spatial 2 >"$T/np3.out" 2>&1
rc=$?
if [ "$rc" != 0 ] && grep -q "3 ranks do not form groups of 2" "$T/np3.out"; then
    echo "PASS: spatial2d 3 ranks with --spatial 2 refused"
else
    echo "FAIL: spatial2d 3 ranks with --spatial 2: rc $rc, $(head -c 300 "$T/np3.out")"
fi

# --describe: memory per rank of the split, falling as the split grows
mem() { "$S" --preset tiny --batch 4 --spatial "$1" --describe | awk '/^memory_per_rank_bytes/ { print $2 }'; }
m2=$(mem 2) m4=$(mem 4)
if [ -n "$m2" ] && [ -n "$m4" ] && [ "$m4" -lt "$m2" ] &&
    "$S" --preset tiny --batch 4 --spatial 2 --describe | grep -q "^spatial  *2: 2 ranks per sample along H, tiles of 8 of 16 rows"; then
    echo "PASS: spatial2d --describe prints memory per rank: $m2 bytes at 2x1, $m4 at 4x1"
else
    echo "FAIL: spatial2d --describe memory per rank: '$m2' at 2x1, '$m4' at 4x1"
fi
"$S" --preset tiny --describe | grep -q "^memory_per_rank_bytes" &&
    echo "FAIL: spatial2d --describe of an unsplit run prints a split's memory" ||
    echo "PASS: spatial2d --describe of an unsplit run prints no split"
exit 0
