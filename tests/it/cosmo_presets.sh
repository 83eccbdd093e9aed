#!/usr/bin/env bash
# CosmoFlow's presets and network family (docs/cosmoflow.md "The network"):
# - `cosmoflow --describe` of every preset equals an independent count of
#   its layer list (tests/support/cosmo_count.py, written from the docs'
#   layer lists, not from the C code), key by key;
# - cosmo128 stays MLPerf's network (68,853,694,464 forward conv FLOPs);
#   cosmo512 is within 1% of LBANN's 23,064,356 parameters;
# - LBANN's rule (blocks 0) and the filter cap on a small network, with max
#   and average pooling and per-block kernels 5, 3, 1: 2 spatial ranks train
#   the losses of 1 rank;
# - the MLPerf recipe (--recipe mlperf): 1 rank's losses finite and falling,
#   the record naming it, 2 spatial ranks = 1; the default stays exadl;
#   refusals exit 2 naming the problem;
# - the figures docs/cosmoflow.md prints in its counts table and its
#   executed-FLOP sentence equal `--describe`;
# - `exadl check` of a tiny cosmoflow run shows reference/cori-2018.yaml's
#   published figures as N/A beside the run's, and the exact counts pass.
set -u
C=$EXADL_BIN/cosmoflow
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
COUNT=$SRC/tests/support/cosmo_count.py
DOC=$SRC/docs/cosmoflow.md

describe_value() { # file key: the number after the key
    awk -v k="$2" '$1 == k { print $2; exit }' "$1"
}

for p in cosmo128 cosmo256 cosmo512 small tiny; do
    if ! "$C" --preset "$p" --describe >"$T/$p.describe" 2>&1; then
        echo "FAIL: cosmoflow --preset $p --describe: $(tail -n 2 "$T/$p.describe")"
        continue
    fi
    if ! python3 "$COUNT" "$p" >"$T/$p.count" 2>&1; then
        echo "FAIL: cosmo_count.py $p: $(tail -n 2 "$T/$p.count")"
        continue
    fi
    bad=""
    n=0
    while read -r key value; do
        n=$((n + 1))
        got=$(describe_value "$T/$p.describe" "$key")
        [ "$got" = "$value" ] || bad="$bad $key=${got:-missing}/$value"
    done <"$T/$p.count"
    if [ -z "$bad" ] && [ "$n" -ge 8 ]; then
        echo "PASS: $p --describe equals the independent count ($n figures)"
    else
        echo "FAIL: $p --describe against the independent count (describe/count):$bad"
    fi
done

v=$(describe_value "$T/cosmo128.describe" forward_conv_flops_per_sample)
if [ "$v" = 68853694464 ]; then
    echo "PASS: cosmo128 keeps MLPerf's 68,853,694,464 forward conv FLOPs per sample"
else
    echo "FAIL: cosmo128 forward conv FLOPs $v, not 68853694464"
fi

# LBANN's CosmoFlow at 512^3 (mlperf=True, 4 inputs and 4 targets):
# 23,064,356 parameters counted from its layer definitions (docs/cosmoflow.md)
v=$(describe_value "$T/cosmo512.describe" parameters)
if awk -v v="${v:-0}" 'BEGIN { d = v - 23064356; if (d < 0) d = -d; exit !(d <= 0.01 * 23064356) }'; then
    echo "PASS: cosmo512 has $v parameters, within 1% of LBANN's 23,064,356"
else
    echo "FAIL: cosmo512 has ${v:-no} parameters, not within 1% of LBANN's 23,064,356"
fi
# its gradient bytes: the tensors the record's gradient_reduction block lists
# (--describe sums the same list), 4 bytes per parameter of LBANN's count
v=$(describe_value "$T/cosmo512.describe" gradient_bytes)
if [ "${v:-0}" = $((4 * 23064356)) ]; then
    echo "PASS: cosmo512's gradients are $v bytes per step (4 x 23,064,356)"
else
    echo "FAIL: cosmo512's gradient bytes ${v:-none}, not $((4 * 23064356))"
fi

# LBANN's rule and the cap on a network small enough for the reference loops:
# size 32, blocks 0 -> 3 blocks, filters 4, 8, 8 (cap 8): 2 ranks = 1 rank
common=(--preset tiny --size 32 --blocks 0 --filters 4 --filter-cap 8 --kernels reference
    --threads 1 --steps 3 --warmup 1 --quiet)
steps_losses() { # the timed losses of a record, one per line (a wrapped flow sequence too)
    awk '/^loss:/ { s = 1; next } s && /^[^ ]/ { s = 0 }
         s && /^  steps:/ { c = 1 } s && c { buf = buf $0; if ($0 ~ /\]/) c = 0 }
         END { sub(/^[^[]*\[/, "", buf); sub(/\].*$/, "", buf); gsub(/ /, "", buf)
               n = split(buf, a, ","); for (i = 1; i <= n; i++) if (a[i] != "") print a[i] }' "$1"
}
losses() { # the warm-up and timed losses of a record, one per line
    awk '/^loss:/ { s = 1; next } s && /^[^ ]/ { s = 0 }
         s && /^  (warmup|steps):/ { sub(/^[^[]*\[/, ""); sub(/\].*$/, ""); gsub(/, /, "\n"); print }' "$1"
}
if "$C" "${common[@]}" --describe >"$T/rule.describe" 2>&1 &&
    grep -q '^layers  *6$' "$T/rule.describe" &&
    grep -q '^conv2  *conv  *8x8^3' "$T/rule.describe"; then
    echo "PASS: blocks 0 at size 32 gives LBANN's 3 blocks, the cap holds conv2 at 8 filters"
else
    echo "FAIL: blocks 0 / filter-cap 8 at size 32 (see $T/rule.describe)"
fi
for pool in max avg 5,3,1; do
    case $pool in
    *,*) extra=(--block-kernels "$pool") ;;
    *) extra=(--pool "$pool") ;;
    esac
    "$C" "${common[@]}" "${extra[@]}" --record "$T/r1$pool.yaml" >"$T/r1$pool.out" 2>&1 ||
        echo "FAIL: capped network, $pool pooling, on 1 rank: $(tail -n 3 "$T/r1$pool.out")"
    $M -np 2 "$C" "${common[@]}" "${extra[@]}" --spatial 2 --record "$T/r2$pool.yaml" \
        >"$T/r2$pool.out" 2>&1 ||
        echo "FAIL: capped network, $pool pooling, on 2 spatial ranks: $(tail -n 3 "$T/r2$pool.out")"
    v=$(paste <(losses "$T/r1$pool.yaml") <(losses "$T/r2$pool.yaml") | awk '
        NF == 2 { n++; d = $1 - $2; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1
                  if (d > 1e-5 * m + 1e-12) bad = bad " " $1 "/" $2 }
        END { if (n < 4) print "too few losses (" n ")"; else if (bad) print "differ:" bad; else print "ok " n }')
    case $v in
    ok*) echo "PASS: blocks 0 + filter cap, $pool (pooling or block kernels): 2 spatial ranks train the losses of 1 (${v#ok } within 1e-5)" ;;
    *) echo "FAIL: blocks 0 + filter cap, $pool pooling, 2 spatial ranks against 1: $v" ;;
    esac
done
# the record's gradient bytes are --describe's, 4 per parameter
gsum=$(awk '/^  tensors:/ { on = 1; next } on && /^  - \{name:/ { for (i = 1; i <= NF; i++)
    if ($i == "bytes:") { v = $(i + 1); sub(",", "", v); s += v } next } on { on = 0 }
    END { print s + 0 }' "$T/r1max.yaml")
"$C" "${common[@]}" --pool max --describe >"$T/r1max.describe" 2>&1
gd=$(describe_value "$T/r1max.describe" gradient_bytes)
pd=$(describe_value "$T/r1max.describe" parameters)
if [ "$gsum" -gt 0 ] && [ "$gsum" = "${gd:-x}" ] && [ "$gsum" = $((4 * ${pd:-0})) ]; then
    echo "PASS: the record's gradient_reduction tensors sum to --describe's gradient_bytes ($gsum = 4 x $pd)"
else
    echo "FAIL: record gradient bytes $gsum, --describe ${gd:-none}, 4 x parameters $((4 * ${pd:-0}))"
fi
if grep -q '^- {kernel: avgpool3d_fwd, layer: conv2, calls: 3, flops: 12288,' "$T/r1avg.yaml" &&
    ! grep -q 'kernel: pool3d_fwd' "$T/r1avg.yaml"; then
    echo "PASS: pool avg runs average pooling (its rows: conv2's 3 x 8 x 512 FLOPs), no max-pooling"
else
    echo "FAIL: pool avg's record lacks the avgpool3d rows (see $T/r1avg.yaml)"
fi

# the documented figures: every row of the counts table and the executed
# FLOPs sentence equal --describe
for p in cosmo128 cosmo256 cosmo512; do
    row=$(grep "^| $p |" "$DOC" | head -n 1 | tr -d ',')
    if [ -z "$row" ]; then
        echo "FAIL: docs/cosmoflow.md has no counts row for $p"
        continue
    fi
    want=$(printf '%s %s %s %s %s' "$(describe_value "$T/$p.describe" parameters)" \
        "$(describe_value "$T/$p.describe" conv_weights)" \
        "$(describe_value "$T/$p.describe" dense_weights)" \
        "$(describe_value "$T/$p.describe" forward_conv_flops_per_sample)" \
        "$(describe_value "$T/$p.describe" convention_flops_per_sample)")
    got=$(echo "$row" | awk -F'|' '{ for (i = 3; i <= 7; i++) { gsub(/ /, "", $i); printf "%s%s", (i > 3 ? " " : ""), $i } }')
    if [ "$got" = "$want" ]; then
        echo "PASS: docs/cosmoflow.md's $p row equals --describe"
    else
        echo "FAIL: docs/cosmoflow.md's $p row '$got', --describe '$want'"
    fi
done
doc=$(tr '\n' ' ' <"$DOC" | grep -o 'are [0-9,]* per cosmo128 sample' | head -n 1 | awk '{ gsub(/,/, "", $2); print $2 }')
v=$(describe_value "$T/cosmo128.describe" executed_flops_per_sample)
if [ -n "$doc" ] && [ "$doc" = "$v" ]; then
    echo "PASS: docs/cosmoflow.md's executed FLOPs per cosmo128 sample equal --describe ($v)"
else
    echo "FAIL: docs/cosmoflow.md says ${doc:-nothing} executed FLOPs per cosmo128 sample, --describe $v"
fi

# the MLPerf recipe (dropout 0.5, 1.2 tanh, log inputs, SGD 0.9 and its
# schedule): one rank on one repeated sample, losses finite and falling
# (the mean of the last 5 of 40 below the first 5's: the masks are from the
# seed, so the run is the same every time); the record says which recipe ran
"$C" --preset tiny --write-data "$T/one.bin" --samples 1 >"$T/wd.out" 2>&1 ||
    echo "FAIL: --write-data: $(tail -n 2 "$T/wd.out")"
rec=(--preset tiny --recipe mlperf --kernels reference --threads 1 --quiet)
if "$C" "${rec[@]}" --data "$T/one.bin" --steps 40 --warmup 0 --record "$T/m1.yaml" >"$T/m1.out" 2>&1; then
    v=$(steps_losses "$T/m1.yaml" | awk '
        { n++; a[n] = $1; if ($1 !~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) bad = 1 }
        END { for (i = 1; i <= 5; i++) f += a[i]; for (i = n - 4; i <= n; i++) l += a[i]
              if (n != 40 || bad) print "bad"; else if (l < f) print "ok " f / 5 " " l / 5; else print "flat " f / 5 " " l / 5 }')
    case $v in
    ok*) echo "PASS: mlperf recipe on 1 rank: 40 finite losses, mean of the first 5 / last 5: ${v#ok }" ;;
    *) echo "FAIL: mlperf recipe losses not finite and falling: $v (see $T/m1.yaml)" ;;
    esac
    if grep -q '^  recipe: mlperf$' "$T/m1.yaml" && grep -q '^  optimizer: sgd$' "$T/m1.yaml" &&
        grep -q '^  dropout: 0.5$' "$T/m1.yaml" && grep -q '^  out_scale: 1.2$' "$T/m1.yaml" &&
        grep -q '^  log_input: true$' "$T/m1.yaml" && grep -q '^  momentum: 0.9$' "$T/m1.yaml" &&
        grep -q '^- {kernel: dropout, layer: fc1, calls: 80, flops: 1280,' "$T/m1.yaml" &&
        grep -q '^- {kernel: tanh, layer: fc3, calls: 80, flops: 960,' "$T/m1.yaml" &&
        grep -q '^- {kernel: sgd, layer: fc1, calls: 40, flops: ' "$T/m1.yaml"; then
        echo "PASS: the record says recipe mlperf (sgd, dropout 0.5, 1.2 tanh, log inputs) with its dropout, tanh and sgd rows"
    else
        echo "FAIL: the record of the mlperf recipe lacks its keys or rows (see $T/m1.yaml)"
    fi
else
    echo "FAIL: mlperf recipe on 1 rank: $(tail -n 3 "$T/m1.out")"
fi
if "$C" --preset tiny --kernels reference --threads 1 --steps 1 --warmup 0 --quiet \
    --record "$T/d1.yaml" >"$T/d1.out" 2>&1 && grep -q '^  recipe: exadl$' "$T/d1.yaml" &&
    grep -q '^  optimizer: adam$' "$T/d1.yaml" && grep -q '^  dropout: 0$' "$T/d1.yaml" &&
    ! grep -q 'kernel: dropout' "$T/d1.yaml"; then
    echo "PASS: the default stays recipe exadl (Adam, no dropout, linear output) and its record says so"
else
    echo "FAIL: the default run's record does not say recipe exadl with Adam and no dropout (see $T/d1.yaml)"
fi
"$C" "${rec[@]}" --steps 3 --warmup 1 --record "$T/mr1.yaml" >"$T/mr1.out" 2>&1 ||
    echo "FAIL: mlperf recipe, 1 rank: $(tail -n 3 "$T/mr1.out")"
$M -np 2 "$C" "${rec[@]}" --steps 3 --warmup 1 --spatial 2 --record "$T/mr2.yaml" >"$T/mr2.out" 2>&1 ||
    echo "FAIL: mlperf recipe, 2 spatial ranks: $(tail -n 3 "$T/mr2.out")"
v=$(paste <(losses "$T/mr1.yaml") <(losses "$T/mr2.yaml") | awk '
    NF == 2 { n++; d = $1 - $2; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1
              if (d > 1e-5 * m + 1e-12) bad = bad " " $1 "/" $2 }
    END { if (n < 4) print "too few losses (" n ")"; else if (bad) print "differ:" bad; else print "ok " n }')
case $v in
ok*) echo "PASS: mlperf recipe: 2 spatial ranks drop the same units and train the losses of 1 (${v#ok } within 1e-5)" ;;
*) echo "FAIL: mlperf recipe, 2 spatial ranks against 1: $v" ;;
esac
refuse() { # name expected-text args...
    local name=$1 want=$2
    shift 2
    local out rc
    out=$("$C" --preset tiny "$@" --check-config 2>&1)
    rc=$?
    if [ "$rc" = 2 ] && printf '%s' "$out" | grep -q -- "$want"; then
        echo "PASS: refused with exit 2: $name"
    else
        echo "FAIL: $name: exit $rc, '$out'"
    fi
}
refuse "the recipe on the cuda backend" "run on the cpu backend" --recipe mlperf --backend cuda
refuse "the recipe in bf16" "run in fp32, not bf16" --recipe mlperf --precision bf16
refuse "an unknown recipe" "unknown recipe 'fast'" --recipe fast
refuse "decays out of order" "lr_decay" --lr-decay 5:0.5,3:0.1
refuse "average pooling on the cuda backend" "pool avg runs on the cpu backend" --pool avg --backend cuda
refuse "block kernels not one per block" "block_kernels has 3 entries for 2 blocks" --block-kernels 3,3,3
refuse "an even block kernel" "block_kernels entry 2 is 4: must be odd" --block-kernels 3,4
refuse "blocks 0 at a size not a power of two" "power of two" --size 24 --blocks 0

# the Cori reference as `exadl check` shows a published one
cat >"$T/suite.yaml" <<EOF
exadl_suite: 1
name: cosmo-presets
description: a tiny cosmoflow run to check the references against
launcher: mpirun
scaling: spatial
scales: [1]
repetitions: 1
timeout_s: 120
env:
  OMP_NUM_THREADS: "1"
references:
  - $SRC/reference/cosmoflow-exact.yaml
  - $SRC/reference/cori-2018.yaml
benchmarks:
  - name: cosmoflow
    program: cosmoflow
    config: {preset: tiny, kernels: reference, threads: 1, steps: 2, warmup: 1}
EOF
if "$EXADL_BIN/exadl" run "$T/suite.yaml" --out "$T/run" >"$T/run.out" 2>&1; then
    "$EXADL_BIN/exadl" check "$T"/run/*/ >"$T/check.out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q '^reference cori-2018 (published)$' "$T/check.out" &&
        grep -q '^  N/A   efficiency .*preset=cori2018 scale=8192 .*expected 0.77 ' "$T/check.out" &&
        grep -q '^  N/A   convention_sustained_flops .*expected 3.50 PFLOP/s' "$T/check.out" &&
        [ "$(grep -c '^  PASS  .*preset=cosmo' "$T/check.out")" = 18 ]; then
        echo "PASS: exadl check shows the Cori 2018 figures (3.5 PF/s, 0.77 at 8,192 nodes) as N/A beside the run; 18 exact counts pass"
    else
        echo "FAIL: exadl check with reference/cori-2018.yaml (exit $rc, see $T/check.out)"
    fi
else
    echo "FAIL: exadl run of a tiny cosmoflow suite: $(tail -n 3 "$T/run.out")"
fi
exit 0
