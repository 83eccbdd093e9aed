#!/usr/bin/env bash
# `exadl model RUN` follows the engine the base record ran (docs/gsync.md "The
# engine"): an inline engine starts every reduction when backward ends, so none
# overlaps it.  The run is tests/fixtures/harness/model-run (harness_model.sh:
# ring a = 0.5 ms, b = 1e-5 s/B; bit vector 0.5 ms per cycle at 2 ranks; cycles
# of 4 ms; groups A, B, C of 100, 200, 300 bytes ready at 10, 20, 30 ms; backward
# ends at 30 ms; step 50 ms) with `engine: inline` added to its stemdl record.
# Worked by hand at 2 ranks, bit vector + layer: idle cycles until the first at
# or after 30 ms (8 cycles, the 8th starts at 32 ms), that cycle's negotiation
# (0.5 ms) releases all three groups, fused (600 bytes <= fusion 1000) into one
# reduction of 2 a + 600 b = 7 ms: it ends at 39.5 ms, exposed 9.5 ms, step
# 59.5 ms, 9 cycles, negotiation 4.5 ms.  The thread engine's 6.5 ms is
# harness_model.sh's; here the same run without the key must give it too.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_model_engine: $1"; }
fail() { echo "FAIL: harness_model_engine: $1"; fails=$((fails + 1)); }
# pred FILE MODE SCALE KEY, near A B
. "$root/tests/support/model_rows.sh"

mkdir -p "$tmp/inline/records"
cp "$root"/tests/fixtures/harness/model-run/records/*.yaml "$tmp/inline/records/"
sed -i 's/^  cycle_ms: 4$/  cycle_ms: 4\n  engine: inline\n  engine_reason: "a test: the run ran inline"/' \
    "$tmp/inline/records/stemdl-n1-r1.yaml"
grep -q '^  engine: inline$' "$tmp/inline/records/stemdl-n1-r1.yaml" || fail "fixture edit (no engine line)"

out=$("$exadl" model "$tmp/inline" --mode bitvector+layer --scales 1,2 --out "$tmp/mi" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
m="$tmp/mi/model.yaml"
[ $rc -eq 0 ] && [ -s "$m" ] && pass "exadl model on the inline run exits 0" || fail "exit $rc"
echo "$out" | grep -q "engine inline (as the base record ran)" && pass "the work source names the inline engine" \
    || fail "no engine in the work source"
ok=1
for kv in "exposed_s 0.0095" "step_s 0.0595" "cycles 9" "negotiation_s 0.0045"; do
    set -- $kv
    v=$(pred "$m" bitvector+layer 2 "$1")
    near "$v" "$2" || { ok=0; echo "    $1: $v, by hand $2"; }
done
[ $ok = 1 ] && pass "inline predictions as worked by hand (exposed 9.5 ms, step 59.5 ms)" || fail "inline predictions"

out=$("$exadl" model "$root/tests/fixtures/harness/model-run" --mode bitvector+layer --scales 2 --out "$tmp/mt" 2>&1); rc=$?
v=$(pred "$tmp/mt/model.yaml" bitvector+layer 2 exposed_s)
[ $rc -eq 0 ] && near "$v" 0.0065 && ! echo "$out" | grep -q "engine inline" \
    && pass "without the key: the overlapping engine (exposed 6.5 ms)" || fail "without the key: exit $rc, exposed $v"

# A launch that split its samples over ranks (network.spatial_ranks 2) is no
# data-parallel rank's step: the model refuses to learn from it, in one line
# that names `exadl model --spatial`, with exit status 2.
mkdir -p "$tmp/split/records"
cp "$root"/tests/fixtures/harness/model-run/records/*.yaml "$tmp/split/records/"
sed -i 's/^validation: \[\]$/network: {layers: 3, parameters: 150, spatial_ranks: 2, spatial_plan: h}\nvalidation: []/' \
    "$tmp/split/records/stemdl-n1-r1.yaml"
grep -q 'spatial_ranks: 2' "$tmp/split/records/stemdl-n1-r1.yaml" || fail "fixture edit (no network line)"
out=$("$exadl" model "$tmp/split" --mode bitvector+layer --scales 2 --out "$tmp/ms" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
[ $rc -eq 2 ] && [ "$(echo "$out" | grep -c .)" -eq 1 ] && echo "$out" | grep -q "exadl model --spatial" \
    && pass "a spatially split launch is not learnt from: one line naming exadl model --spatial, exit 2" \
    || fail "split launch: exit $rc, $(echo "$out" | grep -c .) lines"
[ $fails -eq 0 ]
