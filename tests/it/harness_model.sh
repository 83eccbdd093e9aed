#!/usr/bin/env bash
# `exadl model` on a hand-written run (tests/fixtures/harness/model-run: a
# one-rank stemdl record with its gradient_reduction timeline, allreduce rows on
# the ring model with a = 0.5 ms and b = 1e-5 s/B, orchestration rows of 3 ms and
# 0.5 ms per cycle at 2 ranks): the fits and the predictions are those worked by
# hand in tests/unit/test_harness_model.c (bit vector: exposed 6.5 ms, step
# 56.5 ms; coordinator: exposed 8 ms); the describe mode; bad input refused with
# one line and exit status 2.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_model: $1"; }
fail() { echo "FAIL: harness_model: $1"; fails=$((fails + 1)); }
is_png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; }
# pred FILE MODE SCALE KEY, near A B
. "$root/tests/support/model_rows.sh"

run="$root/tests/fixtures/harness/model-run"
out=$("$exadl" model "$run" --mode bitvector+layer,coordinator+layer --scales 1,2 --out "$tmp/m" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
[ $rc -eq 0 ] && [ -s "$tmp/m/model.yaml" ] && pass "exadl model RUN exits 0 with model.yaml" || fail "exit $rc"
echo "$out" | grep -q "alpha 0.0005 s, beta 1e-05 s/B" && pass "ring fit of the allreduce rows (in-place row left out)" \
    || fail "fit: $(echo "$out" | grep network:)"
echo "$out" | grep -q "coordinator 0 + 0.003 (p-1) s, bit vector 0 + 0.0005 lg p s" \
    && pass "orchestration fit" || fail "orchestration fit"
m="$tmp/m/model.yaml"
ok=1
near "$(pred "$m" bitvector+layer 2 exposed_s)" 0.0065 || ok=0
near "$(pred "$m" bitvector+layer 2 step_s)" 0.0565 || ok=0
near "$(pred "$m" bitvector+layer 2 negotiation_s)" 0.0045 || ok=0
near "$(pred "$m" bitvector+layer 2 cycles)" 9 || ok=0
near "$(pred "$m" coordinator+layer 2 exposed_s)" 0.008 || ok=0
near "$(pred "$m" coordinator+layer 2 cycles)" 8 || ok=0
near "$(pred "$m" bitvector+layer 1 efficiency)" 1 || ok=0
[ $ok = 1 ] && pass "predictions as worked by hand" \
    || fail "predictions: bv exposed $(pred "$m" bitvector+layer 2 exposed_s), coord exposed $(pred "$m" coordinator+layer 2 exposed_s)"
if command -v gnuplot >/dev/null; then
    is_png "$tmp/m/model_efficiency.png" && [ -s "$tmp/m/model_efficiency.svg" ] && [ -s "$tmp/m/model_efficiency.gp" ] \
        && pass "efficiency plot (PNG, SVG, .gp)" || fail "plot"
else
    [ -s "$tmp/m/model_efficiency.dat" ] && pass "plot data (no gnuplot)" || fail "plot data"
fi

# describe mode: a network nothing ran, at a given FLOP rate, on a machine file
out=$("$exadl" model --network tiny --gpu-flops 1e9 --machine "$root/reference/machines/dev-2core.yaml" \
      --scales 1,2 --mode bitvector+layer --out "$tmp/d" 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "tiny: 14 layers" && grep -q "mode: bitvector+layer" "$tmp/d/model.yaml" \
    && pass "describe mode (stemdl --describe --preset tiny)" || { fail "describe mode: exit $rc"; echo "$out" | tail -5; }

# bad input: one line, exit 2
printf 'exadl_machine: 1\nnodes: 1\nranks_per_node: 2\nintra_node: {latency_s: 1e-6, bandwidth_Bps: fast}\n' >"$tmp/bad.yaml"
check_bad() { # name, expected text, command...
    local name=$1 want=$2
    shift 2
    local o rc
    o=$("$@" 2>&1); rc=$?
    if [ $rc -eq 2 ] && [ "$(echo "$o" | wc -l)" -eq 1 ] && echo "$o" | grep -q -- "$want"; then
        pass "refuses $name"
    else
        fail "$name: exit $rc, '$o'"
    fi
}
check_bad "a bad machine file" "bad.yaml:4:" "$exadl" model "$run" --machine "$tmp/bad.yaml" --out "$tmp/x"
check_bad "a folder without records" "not a run folder" "$exadl" model "$tmp" --out "$tmp/x"
check_bad "--network without a rate" "gpu-flops" "$exadl" model --network tiny --machine "$tmp/bad.yaml"
check_bad "an unknown mode" "--mode: 'bitvector+fast'" "$exadl" model "$run" --mode bitvector+fast --out "$tmp/x"
check_bad "bad scales" "--scales" "$exadl" model "$run" --scales 1,two --out "$tmp/x"
[ $fails -eq 0 ]
