#!/usr/bin/env bash
# climate --spatial N: each sample split along H over groups of N ranks
# (docs/spatial.md "The climate network"), against one rank of the same
# samples, in fp32 (bf16 rounds the compute copy of weights that differ in
# their last bits, which moves later losses by ~1e-3; its first loss equals):
# - 2 ranks split 2x1, 4 ranks split 4x1 (tiny at 64 rows: at 32 the
#   smallest maps have 2 rows) and 2 groups of 2x1 (batch 1 per group,
#   batch norm over all 4 ranks) each compute every step's loss within 1e-5
#   relative of 1 rank (--bn sync on 1 rank: the same batch-norm loops,
#   which equal --bn local: climate_bn.sh) over 4 steps; the ranks' weights
#   are bit-identical, and within 1e-4 (relative 2-norm) of the 1-rank run's
#   (measured 4e-6 to 6e-6 after 1 step: Adam's first step is about lr for
#   any gradient near zero, and the image pool's gradient nearly cancels);
# - the record says the split (spatial_ranks, spatial_grid) and its halo bytes,
#   the same as --describe's, which prints the network's bytes per rank
#   below the unsplit network's; the kernel table has the halo rows;
# - splits that do not fit are refused in one line, exit 2.
set -u
C=$EXADL_BIN/climate
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
[ -x "$C" ] || { echo "FAIL: climate: $C was not built"; exit 1; }

losses() { # the timed steps' losses of record $1, one per line
    awk '/^loss:/ { in_loss = 1; next } in_loss && /^[a-z]/ { in_loss = 0 }
         in_loss && /steps:/ { s = 1 } in_loss && /warmup:/ { s = 0 }
         in_loss && s { gsub(/steps:|\[|\]|,/, " "); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.e+-]+$/) print $i }' "$1"
}
cmp_losses() { # "ok worst N" when every step of A is within 1e-5 relative of B's
    paste <(losses "$1") <(losses "$2") | awk '
        { d = $1 - $2; if (d < 0) d = -d; r = d / ($2 > 0 ? $2 : 1); n++; if (r > w) w = r }
        END { if (n < 4) { print "bad", n + 0, "steps"; exit }
              printf "%s worst %.2e over %d steps\n", w <= 1e-5 ? "ok" : "bad", w, n }'
}
relw() { # relative 2-norm of A - B over B (fp32 weight dumps)
    python3 -c '
import sys, array
a = array.array("f"); b = array.array("f")
a.frombytes(open(sys.argv[1], "rb").read()); b.frombytes(open(sys.argv[2], "rb").read())
assert len(a) == len(b) and len(a) > 0
print("%.3e" % (sum((x - y) ** 2 for x, y in zip(a, b)) / sum(y * y for y in b)) ** 0.5)' "$1" "$2" 2>&1
}

base=(--preset tiny --threads 1 --quiet --precision fp32 --warmup 0 --steps 4)
# case: name ranks reference-args split-args
run_case() {
    local name=$1 np=$2 ref=$3 split=$4
    "$C" "${base[@]}" $ref --bn sync --record "$T/$name.1.yaml" >"$T/$name.1.out" 2>&1 ||
        { echo "FAIL: climate $name: 1 rank $ref: exit $?: $(tail -n 2 "$T/$name.1.out")"; return; }
    "$M" -np "$np" "$C" "${base[@]}" $split --record "$T/$name.n.yaml" --dump-weights "$T/$name.w" \
        >"$T/$name.n.out" 2>&1 ||
        { echo "FAIL: climate $name: $np ranks $split: exit $?: $(tail -n 2 "$T/$name.n.out")"; return; }
    local v
    v=$(cmp_losses "$T/$name.n.yaml" "$T/$name.1.yaml")
    case "$v" in
    ok*) echo "PASS: climate $name ($np ranks: $split) follows 1 rank ($ref): losses $v (bound 1e-5)" ;;
    *) echo "FAIL: climate $name ($np ranks: $split) differs from 1 rank ($ref): $v" ;;
    esac
    local same=1 r
    for ((r = 1; r < np; r++)); do cmp -s "$T/$name.w.0" "$T/$name.w.$r" || same=0; done
    if [ -s "$T/$name.w.0" ] && [ $same = 1 ] &&
        grep -q 'check: weights_identical_across_ranks, outcome: pass' "$T/$name.n.yaml"; then
        echo "PASS: climate $name: the $np ranks' weights are bit-identical after 4 steps"
    else
        echo "FAIL: climate $name: the ranks' weights differ"
    fi
}
run_case split2 2 "" "--spatial 2"
run_case split4 4 "--height 64" "--height 64 --spatial 4"
run_case groups2x2 4 "--batch 2" "--spatial 2 --batch 1 --bn sync"

# the weights after one step against one rank's
"$C" "${base[@]}" --steps 1 --bn sync --dump-weights "$T/o1" >/dev/null 2>&1
"$M" -np 2 "$C" "${base[@]}" --steps 1 --spatial 2 --dump-weights "$T/o2" >/dev/null 2>&1
w=$(relw "$T/o2.0" "$T/o1.0")
if awk -v w="$w" 'BEGIN { exit !(w + 0 == w && w < 1e-4) }'; then
    echo "PASS: climate --spatial 2: weights after 1 step within $w of 1 rank's (relative 2-norm, bound 1e-4)"
else
    echo "FAIL: climate --spatial 2: weights after 1 step vs 1 rank's: $w (bound 1e-4)"
fi

# the record and --describe
y=$T/split2.n.yaml
hb=$(grep -o 'halo_bytes_per_step: [0-9]*' "$y" 2>/dev/null | awk '{ print $2 }')
# the busiest rank of a group of 2 (one neighbour) sends, per halo convolution
# with c input channels, w columns and a halo rows at batch b: 4 b c a w bytes
# in each of the fill, the backward's refill and the fold (no fold for the
# input): the layer table's convolutions, counted here apart from the code

db=$("$C" --preset tiny --spatial 2 --describe 2>&1 | awk '$1 == "halo_bytes_per_step" { print $2 }')
ib=$("$C" --preset tiny --describe 2>&1 | awk -v N=2 -v b=2 '
    $2 == "conv" || $2 == "tconv" {
        k = $3; s = $4; d = $5; split($7, in_, "x"); H = in_[2]; a = 0
        if ($2 == "tconv") a = 1
        else if (k == 3 && d < H) a = int((d + s - 1) / s) * s  # taps at -d, 0, +d
        if (a == 0) next
        if (a > H / N) { bad = 1; next }  # a gather: none at this size
        bytes += 4 * b * in_[1] * a * in_[3] * ((seen++ == 0 && $1 == "conv1") ? 2 : 3)
    }
    END { if (!bad) print bytes }')
net=$(awk '/^network:/ { on = 1 } on { printf "%s ", $0 } on && /}/ { exit }' "$y" 2>/dev/null | tr -s ' ')
if printf '%s' "$net" | grep -q 'spatial_ranks: 2, spatial_grid: 2x1' && [ -n "$hb" ] && [ "$hb" -gt 0 ] &&
    [ "$hb" = "$db" ] && [ "$hb" = "$ib" ] && printf '%s' "$net" | grep -q 'batch_norm: synchronised, bn_group_ranks: 2,'; then
    echo "PASS: climate --spatial 2: the record says the split 2x1, batch norm over the group and $hb halo bytes per step (= --describe = counted from the layer table)"
else
    echo "FAIL: climate --spatial 2: the record's split or halo bytes ('$hb', --describe '$db', layer table '$ib')"
fi
if grep -q 'kernel: halo, layer: conv2,' "$y" && grep -q 'kernel: pool_allreduce, layer: aspp_pool,' "$y" &&
    grep -q 'kernel: halo_gather, layer: conv3.dw,' "$T/split4.n.yaml"; then
    echo "PASS: climate --spatial: the kernel table has the halo, pool_allreduce and halo_gather rows"
else
    echo "FAIL: climate --spatial: halo, pool_allreduce or halo_gather rows missing from the kernel table"
fi
"$C" --preset tiny --height 64 --spatial 4 --describe >"$T/d4.out" 2>&1
if awk '$1 == "network_bytes_per_rank" { split($4, a, ":"); ok = $2 + 0 > 0 && $2 + 0 < a[1] + 0 } END { exit !ok }' "$T/d4.out" &&
    grep -q '^spatial  *4x1' "$T/d4.out"; then
    echo "PASS: climate --spatial 4 --describe: $(awk '$1 == "network_bytes_per_rank"' "$T/d4.out" | tr -s ' ' | cut -c1-90)"
else
    echo "FAIL: climate --spatial 4 --describe: no smaller network_bytes_per_rank: $(head -c 300 "$T/d4.out")"
fi

# refusals: one line, exit 2
refuse() { # what expected-text args...
    local what=$1 want=$2
    shift 2
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc = 2 ] && printf '%s\n' "$out" | grep -q -- "$want" && [ "$(printf '%s\n' "$out" | grep -c 'error')" = 1 ]; then
        echo "PASS: climate refuses $what in one line (exit 2)"
    else
        echo "FAIL: climate $what: exit $rc, wanted one line with '$want': $(printf '%s' "$out" | head -c 300)"
    fi
}
refuse "--spatial 3" "layer the input's height 32 does not split into 3 equal tiles" "$C" --preset tiny --spatial 3 --check-config
refuse "--spatial 4 at 32 rows" "layer block3.skip's height 2 does not split into 4 equal tiles" "$C" --preset tiny --spatial 4 --check-config
refuse "--spatial 2 with --bn-group 3" "a multiple of 2 ranks" "$C" --preset tiny --spatial 2 --bn sync --bn-group 3 --check-config
refuse "--spatial 2 on the cuda backend" "cpu backend only" "$C" --preset tiny --spatial 2 --backend cuda --check-config
refuse "--spatial 2 on 3 ranks" "3 ranks do not form groups of 2" "$M" -np 3 "$C" "${base[@]}" --spatial 2
exit 0
