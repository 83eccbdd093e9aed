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
# - W and H x W grids (tiny at 32 x 32: every level's width divides by 2):
#   1x2 and 2x2 (halos along W and the corners, the smallest levels' atrous
#   convolutions gathering over the grid) and 2 groups of 1x2 (batch norm
#   over all 4 ranks) follow 1 rank within 1e-5 with bit-identical weights
#   (2x2 at lr 5e-4, see there), and 2x2's gradient after one step is 1
#   rank's within 1e-5; 1x4 at 64 columns, whose smallest maps' atrous
#   convolutions gather along W, likewise;
#   the 2x2 record says its grid and the halo bytes --describe counts;
# - splits that do not fit are refused in one line, exit 2 (a height or a
#   width that does not divide, naming the layer; a grid that is not N or HxW).
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
# (cases with the same reference arguments share its 1-rank run)
run_case() {
    local name=$1 np=$2 ref=$3 split=$4
    local key
    key=ref$(printf '%s' "$ref" | tr -c 'a-z0-9' '_')
    if [ -s "$T/$key.yaml" ]; then
        cp "$T/$key.yaml" "$T/$name.1.yaml"
    else
        "$C" "${base[@]}" $ref --bn sync --record "$T/$name.1.yaml" >"$T/$name.1.out" 2>&1 ||
            { echo "FAIL: climate $name: 1 rank $ref: exit $?: $(tail -n 2 "$T/$name.1.out")"; return; }
        cp "$T/$name.1.yaml" "$T/$key.yaml"
    fi
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
run_case w1x2 2 "--width 32" "--width 32 --spatial 1x2"
# 2x2 at lr 5e-4: at the preset's 2e-3 its 4th loss moves by 4.9e-5 from
# rounding alone (its first 3 within 3e-7; the gradient check below holds
# it to 1e-5): Adam's early steps, about lr per weight whatever the
# gradient's size, amplify last-bit differences (SGD at lr 0.05 moves 2x1's
# 4th loss by 7e-4)
run_case g2x2 4 "--width 32 --lr 5e-4" "--width 32 --lr 5e-4 --spatial 2x2"
run_case groups1x2 4 "--width 32 --batch 2" "--width 32 --spatial 1x2 --batch 1 --bn sync"
# 1x4 at 64 columns: tiles 1 column wide at the smallest maps, where conv3-5's
# rate-2 depthwise convolutions gather over the grid along W (lr 5e-4 as 2x2)
run_case w1x4 4 "--width 64 --lr 5e-4" "--width 64 --lr 5e-4 --spatial 1x4"

# the weights after one step against one rank's
"$C" "${base[@]}" --steps 1 --bn sync --dump-weights "$T/o1" >/dev/null 2>&1
"$M" -np 2 "$C" "${base[@]}" --steps 1 --spatial 2 --dump-weights "$T/o2" >/dev/null 2>&1
w=$(relw "$T/o2.0" "$T/o1.0")
if awk -v w="$w" 'BEGIN { exit !(w + 0 == w && w < 1e-4) }'; then
    echo "PASS: climate --spatial 2: weights after 1 step within $w of 1 rank's (relative 2-norm, bound 1e-4)"
else
    echo "FAIL: climate --spatial 2: weights after 1 step vs 1 rank's: $w (bound 1e-4)"
fi

# the 2x2 gradient: one SGD step at lr 1 without momentum from the same
# weights, w1 - w0 = -g, against 1 rank's (relative 2-norm; measured 1.0e-6
# for 2x2, 8.4e-7 for 2x1)
G=(--preset tiny --width 32 --threads 1 --quiet --precision fp32 --warmup 0 --steps 1 --optimizer sgd --momentum 0)
"$C" "${G[@]}" --lr 0 --dump-weights "$T/g0" >/dev/null 2>&1
"$C" "${G[@]}" --lr 1 --bn sync --dump-weights "$T/g1" >/dev/null 2>&1
"$M" -np 4 "$C" "${G[@]}" --lr 1 --spatial 2x2 --dump-weights "$T/g4" >/dev/null 2>&1
ge=$(python3 -c '
import sys, array
def ld(p):
    a = array.array("f"); a.frombytes(open(p, "rb").read()); return a
w0, a, b = ld(sys.argv[1]), ld(sys.argv[2]), ld(sys.argv[3])
assert len(w0) == len(a) == len(b) > 0
ga = [x - y for x, y in zip(a, w0)]; gb = [x - y for x, y in zip(b, w0)]
print("%.3e" % (sum((x - y) ** 2 for x, y in zip(ga, gb)) / sum(x * x for x in ga)) ** 0.5)' "$T/g0.0" "$T/g1.0" "$T/g4.0" 2>&1)
if awk -v e="$ge" 'BEGIN { exit !(e + 0 == e && e < 1e-5) }'; then
    echo "PASS: climate --spatial 2x2: the gradient of one step within $ge of 1 rank's (relative 2-norm, bound 1e-5)"
else
    echo "FAIL: climate --spatial 2x2: the gradient of one step vs 1 rank's: $ge (bound 1e-5)"
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
    grep -q 'kernel: halo_gather, layer: conv3.dw,' "$T/split4.n.yaml" &&
    grep -q 'kernel: halo_gather, layer: conv3.dw,' "$T/w1x4.n.yaml"; then
    echo "PASS: climate --spatial: the kernel table has the halo, pool_allreduce and halo_gather rows (4x1 and 1x4)"
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

# the 2x2 record: its grid, halo bytes as --describe counts them (more than
# 2x1's: the W halos and the corners), halos along W (conv2's 3x3 at 1x2)
y4=$T/g2x2.n.yaml
hb4=$(grep -o 'halo_bytes_per_step: [0-9]*' "$y4" 2>/dev/null | awk '{ print $2 }')
db4=$("$C" --preset tiny --width 32 --spatial 2x2 --describe 2>&1 | awk '$1 == "halo_bytes_per_step" { print $2 }')
db2=$("$C" --preset tiny --width 32 --spatial 2 --describe 2>&1 | awk '$1 == "halo_bytes_per_step" { print $2 }')
net4=$(awk '/^network:/ { on = 1 } on { printf "%s ", $0 } on && /}/ { exit }' "$y4" 2>/dev/null | tr -s ' ')
if printf '%s' "$net4" | grep -q 'spatial_ranks: 4, spatial_grid: 2x2,' && [ -n "$hb4" ] && [ "$hb4" = "$db4" ] &&
    [ -n "$db2" ] && [ "$hb4" -gt "$db2" ] && grep -q 'kernel: halo, layer: conv2,' "$T/w1x2.n.yaml" &&
    "$C" --preset tiny --width 32 --spatial 2x2 --describe 2>&1 | grep -q '^spatial  *2x2 '; then
    echo "PASS: climate --spatial 2x2: the record says the grid 2x2 and $hb4 halo bytes per step (= --describe; 2x1: $db2)"
else
    echo "FAIL: climate --spatial 2x2: the record's grid or halo bytes ('$hb4', --describe '$db4', 2x1 '$db2')"
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
refuse "--spatial 1x2 at 48 columns" "--spatial 1x2: layer block3.skip's width 3 does not split into 2 equal tiles" "$C" --preset tiny --spatial 1x2 --check-config
refuse "--spatial 2x2 at 48 columns" "'s width 3 does not split into 2 equal tiles" "$C" --preset tiny --spatial 2x2 --check-config
refuse "--spatial 1x3 at 32 columns" "layer the input's width 32 does not split into 3 equal tiles" "$C" --preset tiny --width 32 --spatial 1x3 --check-config
refuse "--spatial 2x" "2x" "$C" --preset tiny --spatial 2x --check-config
refuse "--spatial 2x2 on 2 ranks" "2 ranks do not form groups of 4" "$M" -np 2 "$C" "${base[@]}" --width 32 --spatial 2x2
refuse "--spatial 2 with --bn-group 3" "a multiple of 2 ranks" "$C" --preset tiny --spatial 2 --bn sync --bn-group 3 --check-config
refuse "--spatial 2 on the cuda backend" "cpu backend only" "$C" --preset tiny --spatial 2 --backend cuda --check-config
refuse "--spatial 2 on 3 ranks" "3 ranks do not form groups of 2" "$M" -np 3 "$C" "${base[@]}" --spatial 2
exit 0
