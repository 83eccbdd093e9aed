#!/usr/bin/env bash
# The climate program (DeepCAM's DeepLabv3+, docs/climate.md):
# - `climate --describe` prints, for every preset, the parameters and forward
#   convolution FLOPs per sample that tests/support/deepcam_count.py counts
#   from the layer list on its own, and the values of reference/climate-exact.yaml;
# - the small preset trains on 1 rank (batch 4) and on 2 ranks (batch 2
#   each, the same samples): the mean loss of the last 5 of 40 steps is under
#   half that of the first 5 (deterministic: fixed seed, 1 thread), every
#   deciding check passes, the 2 ranks end with bit-identical weights, the
#   record says batch norm is per-rank;
# - --help (exit codes), --check-config, and bad input refused in one line
#   with exit 2: an unknown key, an unknown preset, an image that is not a
#   multiple of 16, a value out of range (the CUDA backend: climate_cuda.sh).
set -u
C=$EXADL_BIN/climate
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
[ -x "$C" ] || { echo "FAIL: climate: $C was not built"; exit 1; }

# ---- exact counts -----------------------------------------------------------------------
for p in tiny small deepcam gb2018; do
    out=$("$C" --preset "$p" --describe 2>&1) || { echo "FAIL: climate describe $p: exit $?: $out"; continue; }
    ref=$(python3 "$EXADL_ROOT/tests/support/deepcam_count.py" --preset "$p") ||
        { echo "FAIL: climate describe $p: deepcam_count.py failed"; continue; }
    for pair in "parameters params" "forward_conv_flops_per_sample fwd_conv_flops"; do
        set -- $pair
        got=$(printf '%s\n' "$out" | awk -v m="$1" '$1 == m { print $2 }')
        want=$(printf '%s\n' "$ref" | awk -v m="$2" '$1 == m { print $2 }')
        if [ -n "$got" ] && [ "$got" = "$want" ]; then
            echo "PASS: climate describe $p $1 = $got (independent count)"
        else
            echo "FAIL: climate describe $p $1: climate says '$got', deepcam_count.py '$want'"
        fi
    done
done
# the published DeepCAM size, written out (docs/climate.md)
"$C" --preset deepcam --describe | grep -q '^parameters  *56454720$' &&
    "$C" --preset deepcam --describe | grep -q '^forward_conv_flops_per_sample  *655337666560 ' &&
    echo "PASS: climate describe deepcam: 56,454,720 parameters, 655.3 GFLOP forward conv per sample" ||
    echo "FAIL: climate describe deepcam: not 56,454,720 parameters and 655,337,666,560 FLOP"
ref=$EXADL_ROOT/reference/climate-exact.yaml
if [ -f "$ref" ]; then
    checks=$(awk '
      /^ *- metric:/ { metric=$3 }
      /preset:/      { p=$0; sub(/.*preset: */, "", p); sub(/[},].*/, "", p); preset=p }
      /^ *value:/    { print preset, metric, $2 }' "$ref")
    n=0
    while read -r preset metric value; do
        got=$("$C" --preset "$preset" --describe | awk -v m="$metric" '$1 == m { print $2 }')
        [ "$got" = "$value" ] || echo "FAIL: climate describe $preset $metric: '$got', $ref says $value"
        n=$((n + 1))
    done <<<"$checks"
    [ "$n" -ge 8 ] && echo "PASS: climate describe equals $n values of reference/climate-exact.yaml" ||
        echo "FAIL: climate: only $n checks in $ref"
else
    echo "FAIL: climate: $ref missing"
fi

# ---- training -----------------------------------------------------------------------------
# loss_fall FILE: "ok FIRST LAST" when the mean of the last 5 steps' losses is
# below half the mean of the first 5
loss_fall() {
    awk '/^loss:/ { in_loss = 1; next } in_loss && /^[a-z]/ { in_loss = 0 }
         in_loss { gsub(/steps:|\[|\]|,/, " "); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.e+-]+$/) v[n++] = $i }
         END { if (n < 10) { print "bad only", n, "losses"; exit }
               for (i = 0; i < 5; i++) { f += v[i]; l += v[n - 1 - i] }
               f /= 5; l /= 5; printf "%s %.4f %.4f (%d steps)\n", (l < f / 2) ? "ok" : "bad", f, l, n }' "$1"
}
checks_pass() { # every deciding check of the record passed
    grep -q '^status: ok' "$1" && ! grep -q 'outcome: fail, decides_status: true' "$1"
}
args=(--preset small --threads 1 --quiet)
"$C" "${args[@]}" --record "$T/r1.yaml" >"$T/r1.out" 2>&1
rc=$?
v=$(loss_fall "$T/r1.yaml" 2>/dev/null)
case "$rc $v" in
"0 ok"*) echo "PASS: climate small, 1 rank x batch 4: mean loss of the first 5 / last 5 of 40 steps ${v#ok }" ;;
*) echo "FAIL: climate small, 1 rank: exit $rc, loss: $v $(tail -n 2 "$T/r1.out")" ;;
esac
checks_pass "$T/r1.yaml" && grep -q 'batch_norm: per-rank' "$T/r1.yaml" &&
    echo "PASS: climate small, 1 rank: record ok, checks pass, batch norm per-rank" ||
    echo "FAIL: climate small, 1 rank: record status or checks: $(grep -m1 'outcome: fail' "$T/r1.yaml")"

"$M" -np 2 "$C" "${args[@]}" --batch 2 --record "$T/r2.yaml" --dump-weights "$T/w2" >"$T/r2.out" 2>&1
rc=$?
v=$(loss_fall "$T/r2.yaml" 2>/dev/null)
case "$rc $v" in
"0 ok"*) echo "PASS: climate small, 2 ranks x batch 2: mean loss of the first 5 / last 5 of 40 steps ${v#ok }" ;;
*) echo "FAIL: climate small, 2 ranks: exit $rc, loss: $v $(tail -n 2 "$T/r2.out")" ;;
esac
if [ -s "$T/w2.0" ] && cmp -s "$T/w2.0" "$T/w2.1" && checks_pass "$T/r2.yaml" &&
    grep -q 'check: weights_identical_across_ranks, outcome: pass' "$T/r2.yaml"; then
    echo "PASS: climate small, 2 ranks: weights bit-identical on both ranks after 40 steps"
else
    echo "FAIL: climate small, 2 ranks: weights differ or a check failed"
fi

# ---- command line -------------------------------------------------------------------------
"$C" --help >"$T/help" 2>&1 && grep -q 'Exit codes' "$T/help" && grep -q -- '--width-div' "$T/help" &&
    echo "PASS: climate --help exits 0 with the exit codes and the keys" || echo "FAIL: climate --help"
"$C" --preset deepcam --check-config >/dev/null 2>&1 && echo "PASS: climate --check-config accepts deepcam" ||
    echo "FAIL: climate --check-config deepcam"
refuse() { # label, expected text, args...
    local label=$1 want=$2
    shift 2
    out=$("$C" "$@" 2>&1)
    rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -q -- "$want"; then
        echo "PASS: climate refuses $label in one line (exit 2)"
    else
        echo "FAIL: climate $label: exit $rc, output: $out"
    fi
}
refuse "an unknown key" "unknown parameter 'bogus'" --preset tiny --bogus 1
refuse "an unknown preset" "unknown preset 'nope'" --preset nope
refuse "an image not a multiple of 16" "multiples of 16" --preset tiny --image 40 --check-config
refuse "a width divisor out of range" "width_div must be between 1 and 64" --preset tiny --width-div 0
printf 'preset: tiny\nmiddle_blocks: many\n' >"$T/bad.yaml"
refuse "a bad value in --config" "bad.yaml" --config "$T/bad.yaml"
