#!/usr/bin/env bash
# The 3D U-Net (`cosmoflow --network unet3d`, docs/cosmoflow.md "3D U-Net"):
# - `--describe` of unet128 and unet-tiny equals the independent count of
#   LBANN's layer list (tests/support/unet3d_count.py), key by key, and
#   unet128 is 19,070,560 parameters and 3,908,017,586,176 forward FLOPs;
# - 1 rank trains unet-tiny 10 steps with the loss finite and falling, the
#   same losses on a second run (deterministic); the runs compared use lr
#   0.02: at the preset's 0.05 the fast set's 1-rank trajectory leaves the
#   host loops' by 5e-5 from step 4 on (rounding carried across a ReLU or
#   max-pool kink; from equal weights every gradient agrees within 5e-6),
#   while at 0.02 every pair below agrees within 1e-7;
# - 2 ranks splitting D (--spatial 2: halo planes for the 3^3 convolutions,
#   skip tensors split alike so the concatenation is local, batch norm's
#   statistics summed) train the losses of 1 rank within 1e-5 relative over
#   10 steps, and 4 ranks at 32^3 over 3 steps;
# - on the kernel sets (un_kern.c; the default fast oneDNN set, and the
#   reference set) 10 steps train the host loops' losses within 1e-5
#   relative, and the kernel table (--table) has the convolutions', the
#   transposed convolutions' GEMMs', the pooling's, batch norm's and, split,
#   the halo exchanges' rows, its FLOPs the steps' (2 ranks split on the host
#   loops as well);
# - bad options exit 2 naming the option; a job whose rank count is not
#   --spatial, and splits that do not divide D / 8, are refused.
set -u
C=$EXADL_BIN/cosmoflow
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
COUNT=$SRC/tests/support/unet3d_count.py

value() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

check_counts() { # preset, count-script arguments...
    local p=$1
    shift
    if ! "$C" --network unet3d --preset "$p" --describe >"$T/$p.describe" 2>&1; then
        echo "FAIL: unet3d --preset $p --describe: $(tail -n 2 "$T/$p.describe")"
        return
    fi
    if ! python3 "$COUNT" "$@" >"$T/$p.count" 2>&1; then
        echo "FAIL: unet3d_count.py $*: $(tail -n 2 "$T/$p.count")"
        return
    fi
    local bad="" k
    for k in parameters conv_weights bn_parameters forward_conv_flops_per_sample layers; do
        local a b
        a=$(value "$T/$p.describe" "$k")
        b=$(value "$T/$p.count" "$k")
        [ -n "$a" ] && [ "$a" = "$b" ] || bad="$bad $k=${a:-none}/${b:-none}"
    done
    if [ -z "$bad" ]; then echo "PASS: unet3d $p --describe equals the independent count"
    else echo "FAIL: unet3d $p --describe against unet3d_count.py (describe/count):$bad"; fi
}
check_counts unet128 --size 128 --filters 32
check_counts unet-tiny --size 16 --filters 4

if [ "$(value "$T/unet128.describe" parameters)" = 19070560 ] &&
    [ "$(value "$T/unet128.describe" forward_conv_flops_per_sample)" = 3908017586176 ]; then
    echo "PASS: unet128 is LBANN's network (19,070,560 parameters, 3.91 TFLOP forward)"
else
    echo "FAIL: unet128: $(value "$T/unet128.describe" parameters) parameters," \
        "$(value "$T/unet128.describe" forward_conv_flops_per_sample) FLOPs"
fi

# training on one rank
train() { # name args...
    local name=$1
    shift
    "$C" --network unet3d --preset unet-tiny --steps 10 --lr 0.02 "$@" >"$T/$name.out" 2>&1
}
if train t1 && train t2; then
    awk '$1 == "step" { print $4 }' "$T/t1.out" >"$T/t1.loss"
    awk '$1 == "step" { print $4 }' "$T/t2.out" >"$T/t2.loss"
    n=$(wc -l <"$T/t1.loss")
    if [ "$n" = 10 ] && awk 'NR == 1 { f = $1 } { l = $1; if ($1 != $1 + 0 || $1 + 0 != $1 + 0) bad = 1 }
        END { exit !(bad == 0 && l < 0.95 * f) }' "$T/t1.loss"; then
        echo "PASS: unet3d 1 rank: loss falls ($(head -n 1 "$T/t1.loss") -> $(tail -n 1 "$T/t1.loss"))"
    else
        echo "FAIL: unet3d 1 rank: $n losses, not falling by 5%: $(tr '\n' ' ' <"$T/t1.loss")"
    fi
    if cmp -s "$T/t1.loss" "$T/t2.loss"; then echo "PASS: unet3d training is deterministic"
    else echo "FAIL: unet3d: two runs gave different losses"; fi
else
    echo "FAIL: unet3d training: $(tail -n 2 "$T/t1.out" "$T/t2.out" 2>/dev/null | tr '\n' ' ')"
fi

# refusals: exit 2, one line naming the option
refuse() { # what-to-find args...
    local want=$1
    shift
    "$C" "$@" >"$T/r.out" 2>&1
    local rc=$?
    if [ "$rc" = 2 ] && grep -q -- "$want" "$T/r.out" && [ "$(wc -l <"$T/r.out")" = 1 ]; then
        echo "PASS: refused: $*"
    else
        echo "FAIL: $* (rc $rc, wanted 2 and one line with '$want'): $(head -c 300 "$T/r.out")"
    fi
}
refuse "--spatial 2: the 3D U-Net runs on exactly" --network unet3d --spatial 2
refuse "--spatial 3: D / 8 = 2" --network unet3d --spatial 3 --describe
refuse "--spatial 2x2x1: the 3D U-Net splits D only" --network unet3d --spatial 2x2x1
refuse "--network 'bogus'" --network bogus --describe
refuse "--preset 'nope'" --network unet3d --preset nope
refuse "--size 12" --network unet3d --size 12 --describe
refuse "--filters" --network unet3d --filters 0 --describe
refuse "--bogus" --network unet3d --bogus 1
refuse "--lr" --network unet3d --lr abc
refuse "--backend cuda: the 3D U-Net runs on the cpu backend only" --network unet3d --backend cuda
refuse "--kernels bogus: unknown" --network unet3d --kernels bogus

refuse "over the limit of 8589934592 (split D over more ranks, or raise --max-bytes)" --network unet3d --preset unet128 --steps 1
# unet128's buffers: over the 8 GiB guard on 1 rank, under it on 2 (the
# gradients share buffers by lifetime, docs/cosmoflow.md)
"$C" --network unet3d --preset unet128 --spatial 2 --describe >"$T/u2.describe" 2>&1
b1=$(value "$T/unet128.describe" training_bytes)
b2=$(value "$T/u2.describe" training_bytes)
if [ -n "$b1" ] && [ -n "$b2" ] && [ "$b1" -gt 8589934592 ] && [ "$b2" -le 8589934592 ]; then
    echo "PASS: unet128 needs $b1 bytes on 1 rank (refused), $b2 per rank on 2 spatial ranks (accepted)"
else
    echo "FAIL: unet128 training bytes ${b1:-none} on 1 rank, ${b2:-none} on 2"
fi
if "$C" --network unet3d --preset unet128 --check-config >"$T/cc.out" 2>&1 &&
    grep -q "configuration is valid" "$T/cc.out"; then
    echo "PASS: unet3d --check-config"
else
    echo "FAIL: unet3d --check-config: $(head -c 300 "$T/cc.out")"
fi
if "$C" --network unet3d --help >"$T/h.out" 2>&1 && grep -q "Exit status" "$T/h.out"; then
    echo "PASS: unet3d --help"
else
    echo "FAIL: unet3d --help"
fi

# the kernel sets against the host loops (t1: the default, fast)
same() { # what file-a file-b
    if [ -s "$2" ] && [ "$(wc -l <"$2")" = "$(wc -l <"$3")" ] &&
        paste "$2" "$3" | awk '{ d = $1 - $2; if (d < 0) d = -d
            if (d > 1e-5 * ($1 < 0 ? -$1 : $1)) bad = 1 } END { exit bad }'; then
        echo "PASS: unet3d $1 within 1e-5 ($(wc -l <"$2") steps)"
    else
        echo "FAIL: unet3d $1: $(tr '\n' ' ' <"$2" 2>/dev/null) against $(tr '\n' ' ' <"$3" 2>/dev/null)"
    fi
}
train h1 --kernels host
train r1 --kernels reference
awk '$1 == "step" { print $4 }' "$T/h1.out" >"$T/h1.loss"
awk '$1 == "step" { print $4 }' "$T/r1.out" >"$T/r1.loss"
same "fast set (the default) trains the host loops' losses" "$T/t1.loss" "$T/h1.loss"
same "reference set trains the host loops' losses" "$T/r1.loss" "$T/h1.loss"
# the kernel table: one row per kernel and layer, its FLOPs the steps'
"$C" --network unet3d --preset unet-tiny --steps 2 --table >"$T/tab.out" 2>&1
rows=$(awk '$1 == "conv3d_fwd" || $1 == "conv3d_bwd_data" || $1 == "conv3d_bwd_weights" ||
    ($1 == "dense_fwd" && $2 ~ /^deconv/) || $1 == "pool3d_bwd" || $1 == "bn_relu_fwd" { n++ }
    END { print n + 0 }' "$T/tab.out")
sum=$(awk '$1 == "step" { s += $6 } END { printf "%.0f", s }' "$T/tab.out")
tot=$(awk '$1 == "total_flops" { print $2 }' "$T/tab.out")
# 14 conv+BN layers and the 1^3 one: 15 forward, 15 weight and 14 data
# gradients (not down1a's), 3 tconv forward GEMM rows, 3 pooling backward, 14 BN
if [ "$rows" = 64 ] && [ -n "$tot" ] && [ "$tot" = "$sum" ]; then
    echo "PASS: unet3d --table: $rows rows of convolutions, tconv GEMMs, pooling, batch norm; $tot FLOPs = the steps'"
else
    echo "FAIL: unet3d --table: $rows rows (64 wanted), total $tot against the steps' $sum: $(tail -c 300 "$T/tab.out")"
fi

# two ranks splitting D against one
$M -np 2 "$C" --network unet3d --preset unet-tiny --steps 10 --lr 0.02 --spatial 2 >"$T/np2.out" 2>&1
rc=$?
awk '$1 == "step" { print $4 }' "$T/np2.out" >"$T/np2.loss"
if [ "$rc" = 0 ] && [ "$(wc -l <"$T/np2.loss")" = 10 ] && [ -s "$T/t1.loss" ] &&
    paste "$T/t1.loss" "$T/np2.loss" | awk '{ d = $1 - $2; if (d < 0) d = -d
        if (d > 1e-5 * ($1 < 0 ? -$1 : $1)) bad = 1 } END { exit bad }'; then
    echo "PASS: unet3d 2 spatial ranks train the losses of 1 rank within 1e-5 (10 steps)"
else
    echo "FAIL: unet3d 2 spatial ranks: rc $rc, losses $(tr '\n' ' ' <"$T/np2.loss") against" \
        "$(cat "$T/t1.loss" 2>/dev/null | tr '\n' ' '): $(tail -c 300 "$T/np2.out")"
fi
# the host loops split too, and the fast set's halo rows
$M -np 2 "$C" --network unet3d --preset unet-tiny --steps 10 --lr 0.02 --spatial 2 --kernels host >"$T/np2h.out" 2>&1
awk '$1 == "step" { print $4 }' "$T/np2h.out" >"$T/np2h.loss"
same "host loops on 2 spatial ranks train 1 rank's losses" "$T/np2h.loss" "$T/h1.loss"
$M -np 2 "$C" --network unet3d --preset unet-tiny --steps 1 --spatial 2 --table >"$T/np2t.out" 2>&1
hb=$(awk '$1 == "total_flops" { print $8 }' "$T/np2t.out")
# by hand from the layer table: rank 0 sends one padded plane ((e+2)^2 c
# floats) per 3^3 convolution's input forward and again for its weight
# gradient, and one of dz for each data gradient (not down1a's)
want=$(awk '$2 == "conv" && $3 == 3 { p = ($6 + 2) * ($6 + 2); f += 2 * p * $4
    if ($1 != "down1a") f += p * $5 } END { print 4 * f }' "$T/unet-tiny.describe")
if grep -q '^halo  *up3a ' "$T/np2t.out" && [ -n "$hb" ] && [ "$hb" = "$want" ]; then
    echo "PASS: unet3d 2 ranks: halo rows in the kernel table, $hb halo bytes sent by rank 0 per step (by hand $want)"
else
    echo "FAIL: unet3d 2 ranks --table: halo bytes ${hb:-none}, by hand $want: $(tail -c 300 "$T/np2t.out")"
fi
# four ranks: the middle ones exchange with two neighbours
w=(--network unet3d --size 32 --filters 2 --steps 3)
"$C" "${w[@]}" >"$T/w1.out" 2>&1
$M -np 4 "$C" "${w[@]}" --spatial 4 >"$T/w4.out" 2>&1
rc=$?
awk '$1 == "step" { print $4 }' "$T/w1.out" >"$T/w1.loss"
awk '$1 == "step" { print $4 }' "$T/w4.out" >"$T/w4.loss"
if [ "$rc" = 0 ] && [ "$(wc -l <"$T/w4.loss")" = 3 ] && [ "$(wc -l <"$T/w1.loss")" = 3 ] &&
    paste "$T/w1.loss" "$T/w4.loss" | awk '{ d = $1 - $2; if (d < 0) d = -d
        if (d > 1e-5 * ($1 < 0 ? -$1 : $1)) bad = 1 } END { exit bad }'; then
    echo "PASS: unet3d 4 spatial ranks at 32^3 train the losses of 1 rank within 1e-5 (3 steps)"
else
    echo "FAIL: unet3d 4 spatial ranks at 32^3: rc $rc, losses $(tr '\n' ' ' <"$T/w4.loss")" \
        "against $(tr '\n' ' ' <"$T/w1.loss"): $(tail -c 300 "$T/w4.out")"
fi

$M -np 2 "$C" --network unet3d --preset unet-tiny --steps 2 >"$T/np2b.out" 2>&1
rc=$?
if [ "$rc" != 0 ] && grep -q "runs on exactly its spatial ranks (2 given" "$T/np2b.out"; then
    echo "PASS: unet3d on 2 ranks without --spatial 2 refused"
else
    echo "FAIL: unet3d on 2 ranks without --spatial 2: rc $rc: $(head -c 300 "$T/np2b.out")"
fi
exit 0
