#!/usr/bin/env bash
# climate --precision bf16 on the cpu backend (docs/climate.md "bf16"):
# - with oneDNN's ISA masked to AVX2 the run is refused in one line, exit 2
#   (AVX512-BF16 or AMX needed); the rest says SKIP on a CPU without them;
# - the small preset (seed 42, 1 thread, 40 steps) trains in bf16 and its
#   loss follows fp32's: the first step's loss within 1e-3 relative but not
#   equal to it (> 1e-6: the convolutions did round to bf16), each of the
#   first 20 steps within 5e-2 (measured at most 2.2e-2; the two runs
#   drift apart step by step as any two roundings do), the mean of the last
#   5 of 40 within 20% of fp32's (measured 6.6%) and below half the mean
#   of the first 5;
# - the record's kernel rows say bf16 for the dilated and grouped
#   convolutions (dconv_*) and fp32 for batch norm, the loss, ReLU, pooling
#   and Adam; the record's precision is bf16.
# Per-kernel errors: tests/unit/test_train_seg_bf16.c.
set -u
C=$EXADL_BIN/climate
T=$EXADL_TMP
[ -x "$C" ] || { echo "FAIL: climate: $C was not built"; exit 1; }

out=$(ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2 "$C" --preset tiny --precision bf16 --steps 1 2>&1)
rc=$?
if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -q 'AVX512-BF16 or AMX'; then
    echo "PASS: climate --precision bf16 refused in one line with the ISA masked to AVX2 (exit 2)"
else
    echo "FAIL: climate bf16 with the ISA masked: exit $rc: $out"
fi

args=(--preset small --threads 1 --quiet --steps 40)
"$C" "${args[@]}" --precision bf16 --record "$T/b.yaml" >"$T/b.out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'AVX512-BF16 or AMX' "$T/b.out"; then
    echo "SKIP: climate bf16 training: $(head -n 1 "$T/b.out")"
    exit 77
fi
[ $rc -eq 0 ] || echo "FAIL: climate --precision bf16: exit $rc: $(tail -n 2 "$T/b.out")"
"$C" "${args[@]}" --precision fp32 --record "$T/f.yaml" >"$T/f.out" 2>&1 ||
    echo "FAIL: climate --precision fp32: exit $?: $(tail -n 2 "$T/f.out")"

losses() {
    awk '/^loss:/ { in_loss = 1; next } in_loss && /^[a-z]/ { in_loss = 0 }
         in_loss && /steps:/ { s = 1 } in_loss && /warmup:/ { s = 0 }
         in_loss && s { gsub(/steps:|\[|\]|,/, " "); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.e+-]+$/) print $i }' "$1"
}
v=$(paste <(losses "$T/b.yaml") <(losses "$T/f.yaml") | awk '
    { b[NR] = $1; f[NR] = $2; n = NR }
    END {
        if (n != 40) { print "bad", n, "losses"; exit }
        r1 = (b[1] - f[1]) / f[1]; if (r1 < 0) r1 = -r1
        for (i = 1; i <= 20; i++) { r = (b[i] - f[i]) / f[i]; if (r < 0) r = -r; if (r > w) w = r }
        for (i = 0; i < 5; i++) { bf += b[1 + i]; bl += b[n - i]; fl += f[n - i] }
        rl = (bl - fl) / fl; if (rl < 0) rl = -rl
        ok = r1 > 1e-6 && r1 < 1e-3 && w < 5e-2 && rl < 0.2 && bl < bf / 2
        printf "%s first %.2e, worst of 20 steps %.2e, last 5 of 40 %.4f vs fp32 %.4f (%.1f%%), first 5 %.4f\n",
            ok ? "ok" : "bad", r1, w, bl / 5, fl / 5, 100 * rl, bf / 5 }')
case "$v" in
ok*) echo "PASS: climate small bf16 follows fp32: ${v#ok } (bounds 1e-6 < first < 1e-3, 5e-2, 20%, falls by half)" ;;
*) echo "FAIL: climate small bf16 against fp32: $v" ;;
esac

# a flow-mapping row may wrap onto the next line (its time_s's digits vary from run to run):
# rows are read from the record with its lines joined
rows() { tr '\n' ' ' <"$T/b.yaml" | grep -o "kernel: $1, [^}]*" | grep -o 'dtype: [a-z0-9]*' | sort -u | tr '\n' ' '; }
bad=""
for k in dconv_fwd dconv_bwd_data dconv_bwd_weights; do
    [ "$(rows "$k")" = "dtype: bf16 " ] || bad="$bad $k:'$(rows "$k")'"
done
for k in bn_fwd bn_bwd wce_fwd wce_bwd relu_fwd gpool_fwd adam; do
    [ "$(rows "$k")" = "dtype: fp32 " ] || bad="$bad $k:'$(rows "$k")'"
done
if [ -z "$bad" ] && grep -q '^  precision: bf16' "$T/b.yaml"; then
    echo "PASS: climate bf16 record: dconv rows bf16; batch norm, loss, ReLU, pooling, Adam fp32"
else
    echo "FAIL: climate bf16 record rows:$bad $(grep -m1 'precision:' "$T/b.yaml")"
fi
exit 0
