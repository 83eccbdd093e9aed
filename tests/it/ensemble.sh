#!/usr/bin/env bash
# Trainers and the LTFB tournament in the training runtime (docs/ensembles.md),
# over real MPI jobs of 4 ranks (stemdl tiny, a few steps):
# - --trainers 3 on 4 ranks is refused with one clear line and a failed record;
# - --trainers 2 with a tournament at the last step: after the round a trainer
#   that adopted its partner's model holds the partner's weights before the
#   round byte for byte (cmp of the dumps), one that kept its own holds its
#   own, and the ranks inside each trainer hold identical weights;
# - the record's ensemble block names both trainers, their rates and the round;
# - cosmoflow composes trainers with its spatial groups (2 trainers x 2 ranks
#   of one sample each), or refuses a trainer size its groups do not divide.
set -u
S=$EXADL_BIN/stemdl
C=$EXADL_BIN/cosmoflow
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
M="$M --oversubscribe"

# K that does not divide the ranks
if $M -np 4 "$S" --preset tiny --steps 1 --warmup 0 --quiet --trainers 3 --record "$T/bad.yaml" \
    >"$T/bad.out" 2>&1; then
    echo "FAIL: ensemble --trainers 3 on 4 ranks ran"
elif grep -q 'trainers 3 does not divide the 4 rank' "$T/bad.out" && grep -q '^status: failed' "$T/bad.yaml"; then
    echo "PASS: ensemble --trainers 3 on 4 ranks refused clearly (record status failed)"
else
    echo "FAIL: ensemble --trainers 3 on 4 ranks: no clear refusal: $(tail -n 3 "$T/bad.out")"
fi
if "$S" --preset tiny --steps 1 --quiet --tournament-every 1 >"$T/bad1.out" 2>&1; then
    echo "FAIL: ensemble a tournament with one trainer ran"
else
    grep -q 'needs trainers 2 or more' "$T/bad1.out" && echo "PASS: ensemble a tournament with one trainer refused" ||
        echo "FAIL: ensemble one-trainer tournament: $(tail -n 2 "$T/bad1.out")"
fi

# two trainers of two ranks, a round after steps 2 and 4 (the last)
if ! $M -np 4 "$S" --preset tiny --steps 3 --warmup 1 --quiet --trainers 2 --tournament-every 2 \
    --dump-weights "$T/w" --record "$T/r.yaml" >"$T/run.out" 2>&1; then
    echo "FAIL: ensemble 2 trainers x 2 ranks with LTFB failed: $(tail -n 3 "$T/run.out")"
    exit 0
fi
# ranks 0,1 are trainer 0, ranks 2,3 trainer 1
for t in 0 1; do
    a=$((2 * t)) b=$((2 * t + 1))
    cmp -s "$T/w.$a" "$T/w.$b" && cmp -s "$T/w.pre.$a" "$T/w.pre.$b" &&
        echo "PASS: ensemble ranks inside trainer $t hold identical weights (before and after the round)" ||
        echo "FAIL: ensemble ranks $a and $b of trainer $t differ"
done
# the last round's outcome per trainer, from the record (flow mappings in order)
outcome() { # trainer -> adopted true|false of the last round
    grep "{trainer: $1, partner:" "$T/r.yaml" | tail -n 1 | sed -n 's/.*adopted: \(true\|false\).*/\1/p'
}
for t in 0 1; do
    me=$((2 * t)) other=$((2 * (1 - t)))
    case $(outcome "$t") in
    true)
        cmp -s "$T/w.$me" "$T/w.pre.$other" &&
            echo "PASS: ensemble trainer $t adopted: its weights equal the winner's (trainer $((1 - t))) before the round" ||
            echo "FAIL: ensemble trainer $t adopted but its weights differ from the winner's" ;;
    false)
        cmp -s "$T/w.$me" "$T/w.pre.$me" &&
            echo "PASS: ensemble trainer $t kept its model: its weights are its own before the round" ||
            echo "FAIL: ensemble trainer $t kept its model but its weights changed in the round" ;;
    *) echo "FAIL: ensemble record lacks trainer $t's round" ;;
    esac
done
# the trainers started from different weights: the round had two models to choose from
cmp -s "$T/w.pre.0" "$T/w.pre.2" && echo "FAIL: ensemble both trainers trained the same model" ||
    echo "PASS: ensemble trainers train different models"
grep -q '^  trainers: 2$' "$T/r.yaml" && grep -q 'aggregate_samples_per_s:' "$T/r.yaml" &&
    [ "$(grep -c 'exchange_bytes:' "$T/r.yaml")" = 2 ] && grep -q 'every_trainer_valid' "$T/r.yaml" &&
    echo "PASS: ensemble record has the trainers, their aggregate rate and 2 rounds" ||
    echo "FAIL: ensemble record lacks its ensemble block"

# CosmoFlow: spatial groups inside trainers (the normal build only: the same
# runtime path as stemdl's above, and slow under the sanitizers)
case ${EXADL_BUILD:-build} in
*build-san*) echo "SKIP: ensemble cosmoflow trainers: normal build only (CI time)"; C= ;;
esac
# An empty C, not a sentinel path: a path such as /nonexistent can exist (as
# root, an earlier run may have made it), and a directory passes -x.
if [ -n "$C" ] && [ -f "$C" ] && [ -x "$C" ]; then
    if $M -np 4 "$C" --preset tiny --steps 1 --warmup 0 --quiet --spatial 2 --trainers 2 \
        --record "$T/c.yaml" >"$T/c.out" 2>&1 && grep -q '^  trainers: 2$' "$T/c.yaml"; then
        echo "PASS: ensemble cosmoflow 2 trainers x (1 group of 2 spatial ranks)"
    else
        echo "FAIL: ensemble cosmoflow trainers with spatial groups: $(tail -n 3 "$T/c.out")"
    fi
    if $M -np 2 "$C" --preset tiny --steps 1 --warmup 0 --quiet --spatial 2 --trainers 2 \
        >"$T/c2.out" 2>&1; then
        echo "FAIL: ensemble cosmoflow trainers of 1 rank with 2-rank spatial groups ran"
    else
        grep -q 'do not form groups of 2' "$T/c2.out" && echo "PASS: ensemble cosmoflow trainer smaller than its spatial group refused" ||
            echo "FAIL: ensemble cosmoflow trainer/group mismatch: $(tail -n 2 "$T/c2.out")"
    fi
fi
