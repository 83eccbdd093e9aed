#!/usr/bin/env bash
# The gradient-reduction engine inside stemdl, over real MPI jobs:
# - every orchestration/grouping/fusion setting trains the same model: on 2
#   ranks bit for bit (a + b is the same sum in any order); on 3 ranks the
#   library may sum a fused buffer in another order than separate ones, so
#   the weights must agree to 1e-5 of the largest change training made;
#   (the thread engine, --engine thread: its cycles release groups while
#   backward runs, so fused batches differ from setting to setting; the
#   inline engine's weights: gsync_engine.sh);
# - a layer that never becomes ready on one rank ends in a clear error after
#   --comm-timeout, never in a hang, with either engine;
# - the record describes the engine and its timeline.
set -u
S=$EXADL_BIN/stemdl
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
settings=(
  "coordinator none 8388608 1"
  "bitvector layer 8388608 1"
  "bitvector 3 8388608 0"
  "bitvector none 256 0"
  "coordinator 2 64 2"
)
run() { # np name orchestration grouping fusion cycle
    $M -np "$1" "$S" --preset tiny --steps 4 --warmup 1 --quiet --engine thread --orchestration "$3" --grouping "$4" \
        --fusion-bytes "$5" --cycle-ms "$6" --dump-weights "$T/w$1-$2" --record "$T/r$1-$2.yaml" \
        >"$T/out$1-$2" 2>&1
}
for np in 2 3; do
    i=0
    for s in "${settings[@]}"; do
        # shellcheck disable=SC2086
        set -- $s
        if ! run "$np" "$i" "$@"; then echo "FAIL: gsync np$np setting '$s' failed: $(tail -n 3 "$T/out$np-$i")"; fi
        i=$((i + 1))
    done
done
# initial weights (lr 0) to measure how far training moved them
"$S" --preset tiny --steps 1 --warmup 0 --lr 0 --quiet --dump-weights "$T/w0" >/dev/null
floats() { od -An -v -tf4 -w4 "$1" | tr -d ' '; }
for i in 1 2 3 4; do
    if cmp -s "$T/w2-0.0" "$T/w2-$i.0" && cmp -s "$T/w2-$i.0" "$T/w2-$i.1"; then
        echo "PASS: gsync np2 setting '${settings[$i]}' gives the weights of '${settings[0]}' bit for bit"
    else
        echo "FAIL: gsync np2 setting '${settings[$i]}' differs from '${settings[0]}'"
    fi
    verdict=$(paste <(floats "$T/w0.0") <(floats "$T/w3-0.0") <(floats "$T/w3-$i.2") | awk '
        { m = $2 - $1; if (m < 0) m = -m; if (m > moved) moved = m
          d = $3 - $2; if (d < 0) d = -d; if (d > diff) diff = d }
        END { printf "%s moved %.3g diff %.3g", (moved > 1e-3 && diff <= 1e-5 * moved) ? "ok" : "bad", moved, diff }')
    case $verdict in
    ok*) echo "PASS: gsync np3 setting '${settings[$i]}' within 1e-5 of '${settings[0]}' ($verdict)" ;;
    *) echo "FAIL: gsync np3 setting '${settings[$i]}' vs '${settings[0]}': $verdict" ;;
    esac
done
grep -q '^  groups: 3$' "$T/r2-2.yaml" && grep -q '^  grouping: count$' "$T/r2-2.yaml" &&
    grep -q '^  orchestration: bitvector$' "$T/r2-2.yaml" && grep -q '^  timeline:' "$T/r2-2.yaml" &&
    grep -q "^  engine_reason: 'asked: engine thread'$" "$T/r2-2.yaml" &&
    echo "PASS: gsync record describes the engine" || echo "FAIL: gsync record lacks the engine's block"

# a gradient that never becomes ready on rank 1: an error naming it, not a
# hang, whichever engine waits for it
for e in thread inline; do
    start=$(date +%s)
    EXADL_GSYNC_DROP=1:3 timeout 60 $M -x EXADL_GSYNC_DROP -np 2 "$S" --preset tiny --steps 2 --quiet \
        --engine $e --comm-timeout 2 >"$T/drop-$e.out" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        echo "FAIL: gsync missing gradient (engine $e): exit status $rc after $took s"
    elif ! grep -q "stalled for more than 2 s.*not ready on rank 1" "$T/drop-$e.out"; then
        echo "FAIL: gsync missing gradient (engine $e): no clear message: $(grep -m1 error "$T/drop-$e.out")"
    else
        echo "PASS: gsync missing gradient (engine $e) ends in an error after $took s: $(grep -m1 -o 'tensor [0-9]* ([^)]*) not ready on rank 1' "$T/drop-$e.out")"
    fi
done
