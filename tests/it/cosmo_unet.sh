#!/usr/bin/env bash
# The 3D U-Net (`cosmoflow --network unet3d`, docs/cosmoflow.md "3D U-Net"):
# - `--describe` of unet128 and unet-tiny equals the independent count of
#   LBANN's layer list (tests/support/unet3d_count.py), key by key, and
#   unet128 is 19,070,560 parameters and 3,908,017,586,176 forward FLOPs;
# - 1 rank trains unet-tiny 10 steps with the loss finite and falling, the
#   same losses on a second run (deterministic);
# - 2 ranks splitting D (--spatial 2: halo planes for the 3^3 convolutions,
#   skip tensors split alike so the concatenation is local, batch norm's
#   statistics summed) train the losses of 1 rank within 1e-5 relative over
#   10 steps, and 4 ranks at 32^3 over 3 steps;
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
    "$C" --network unet3d --preset unet-tiny --steps 10 "$@" >"$T/$name.out" 2>&1
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
refuse "--backend cuda: the 3D U-Net runs on the host reference loops only" --network unet3d --backend cuda
refuse "--kernels fast: the 3D U-Net runs on the host reference loops only" --network unet3d --kernels fast

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

# two ranks splitting D against one
$M -np 2 "$C" --network unet3d --preset unet-tiny --steps 10 --spatial 2 >"$T/np2.out" 2>&1
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
