#!/usr/bin/env bash
# stemdl --describe --model-conv-times: the plan model charges each candidate's
# convolutions their measured time at their shape (docs/spatial.md "Measured
# convolution times"), benchmarked once and cached per machine.
# - a first call measures every shape and appends one cache line each; a
#   second measures none and takes them all from the cache (counts, no times);
# - with injected times (the cache's time column rewritten): uniform times
#   of 1 us charge a plan 1 us per convolution call (35 in a tiny step, 36
#   split: the loss's 1/N is a 1x1 convolution) and the fewest FLOPs and
#   bytes win (data); times that make the whole-sample shapes slow pick 2x1:h;
# - a damaged cache line is refused in one line naming FILE:LINE (exit 2);
#   a cache that is a symlink is not written through (a warning, the
#   measuring goes on);
# - --model-links: alpha and B from a pingpong record (two rows: alpha the
#   small message's time, B the bytes over the time added) and from a machine
#   file; with --model-bytes-per-s too, refused before any output.
# No time is asserted.
set -u
S=$EXADL_BIN/stemdl
T=$EXADL_TMP
export EXADL_CONV_CACHE=$T/conv/cache.tsv
D=(--preset tiny --batch 4 --spatial 2 --describe --threads 1 --precision fp32 --model-conv-times on
    --model-latency-s 1e-5 --model-bytes-per-s 1e9)
line() { grep '^conv_times' "$1"; }

"$S" "${D[@]}" >"$T/d1" 2>&1 || echo "FAIL: conv_times the first --describe failed: $(tail -n 3 "$T/d1")"
# the convolutions' lines (their shape unnamed); the other kernels' are
# tests/it/stemdl_kernel_times.sh's
nconv() { awk -F'\t' '$5 ~ /^[0-9]/' "$EXADL_CONV_CACHE" 2>/dev/null | wc -l; }
n1=$(nconv)
if line "$T/d1" | grep -Eq "^conv_times +$n1 shapes of local convolutions: $n1 measured now .*, 0 from the cache" &&
    [ "$n1" -gt 10 ] && [ "$(awk '/^  / && $1 != "plan" && $10 == "-"' "$T/d1" | wc -l)" = 0 ]; then
    echo "PASS: conv_times the first call measures $n1 shapes, one cache line each, a conv_s per plan"
else
    echo "FAIL: conv_times first call: cache lines $n1, '$(line "$T/d1")'"
fi
"$S" "${D[@]}" >"$T/d2" 2>&1 || echo "FAIL: conv_times the second --describe failed"
n2=$(nconv)
if line "$T/d2" | grep -Eq "^conv_times +$n1 shapes of local convolutions: 0 measured now .*, $n1 from the cache" &&
    [ "$n2" = "$n1" ]; then
    echo "PASS: conv_times the second call measures nothing ($n1 shapes from the cache)"
else
    echo "FAIL: conv_times second call: cache lines $n2 (was $n1), '$(line "$T/d2")'"
fi

# injected times: the 6th field is "fwd bwd_data bwd_weights" (seconds)
inject() { # $1: awk condition on the shape (n cin h w cout k in s[1..6]) for slow
    awk -F'\t' -v OFS='\t' "{ split(\$5, s, \" \"); t = ($1) ? \"1 1 1\" : \"1e-6 1e-6 1e-6\"; \$6 = t; print }" \
        "$T/orig.tsv" >"$EXADL_CONV_CACHE"
}
cp "$EXADL_CONV_CACHE" "$T/orig.tsv"
inject 0
"$S" "${D[@]}" >"$T/d3" 2>&1
conv() { awk -v p="$2" '$1 == p { print $10 }' "$1"; }
if grep -Eq '^spatial_plan_chosen +data  \(predicted' "$T/d3" &&
    [ "$(conv "$T/d3" data)" = 3.5e-05 ] && [ "$(conv "$T/d3" 2x1:h)" = 3.6e-05 ] &&
    line "$T/d3" | grep -q " 0 measured now"; then
    echo "PASS: conv_times uniform injected times: 35 and 36 calls of 1 us, data chosen"
else
    echo "FAIL: conv_times uniform times: $(grep '^spatial_plan_chosen' "$T/d3"), conv_s data" \
        "$(conv "$T/d3" data) 2x1:h $(conv "$T/d3" 2x1:h)"
fi
# the shapes of whole samples (2 per rank: data, and the whole-sample levels
# of hs, hhs) slow, the tiles' (4 samples of a tile) fast: only the h plans
# avoid them, and 2x1:h ties with 1x2:h (square images), the first wins
inject 's[1] == 2'
"$S" "${D[@]}" >"$T/d4" 2>&1
if grep -Eq '^spatial_plan_chosen +2x1:h  \(predicted .*run it with --spatial 2x1 --spatial-plan h\)' "$T/d4"; then
    echo "PASS: conv_times slow whole-sample shapes: 2x1:h chosen"
else
    echo "FAIL: conv_times slow whole-sample shapes: $(grep -A12 '^spatial_plans' "$T/d4")"
fi

# refusals
printf 'cpu\t1\tfast\n' >"$EXADL_CONV_CACHE"
"$S" "${D[@]}" >"$T/d5" 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(grep -c . "$T/d5")" = 1 ] &&
    grep -q "cache.tsv:1: a convolution cache line has 3 tab-separated fields, not 6" "$T/d5"; then
    echo "PASS: conv_times a damaged cache is refused in one line: $(cat "$T/d5")"
else
    echo "FAIL: conv_times damaged cache: rc $rc: $(cat "$T/d5")"
fi
: >"$T/target"
rm -f "$EXADL_CONV_CACHE"
ln -s "$T/target" "$EXADL_CONV_CACHE"
"$S" "${D[@]}" >"$T/d6" 2>&1
rc=$?
if [ $rc = 0 ] && [ ! -s "$T/target" ] && grep -q "^spatial_plan_chosen" "$T/d6" &&
    [ "$(grep -c "warning: .*cannot write the convolution cache" "$T/d6")" = 1 ]; then
    echo "PASS: conv_times a symlinked cache is not written through"
else
    echo "FAIL: conv_times symlinked cache: rc $rc, target $(wc -c <"$T/target") bytes: $(tail -n 2 "$T/d6")"
fi
# links from measurement
cat >"$T/pp.yaml" <<EOF
exadl_record: 1
benchmark: collectives
results:
  - {op: pingpong, bytes: 1048584, median_s: 1.001e-3}
  - {op: allreduce, bytes: 8, median_s: 5}
  - {op: pingpong, bytes: 8, median_s: 1.0e-6}
EOF
L=(--preset tiny --batch 4 --spatial 2 --describe --model-flops 1e9)
"$S" "${L[@]}" --model-links "$T/pp.yaml" >"$T/l1" 2>&1
"$S" "${L[@]}" --model-links "$EXADL_ROOT/reference/machines/dev-2core.yaml" >"$T/l2" 2>&1
"$S" "${L[@]}" --model-links "$T/pp.yaml" --model-bytes-per-s 1e9 >"$T/l3" 2>&1
rc=$?
if grep -q '^model_links  *1e-06 s + bytes / 1.05e+09 B/s  (pingpong record: 8 B and 1048584 B)$' "$T/l1" &&
    grep -q 'links 1e-06 s + bytes / 1.05e+09 B/s; run it' "$T/l1" &&
    grep -q '^model_links  *4.05e-07 s + bytes / 3.94e+09 B/s  (machine file .*dev-2core.yaml (intra_node))$' "$T/l2" &&
    [ $rc = 2 ] && [ "$(grep -c . "$T/l3")" = 1 ] && grep -q "give the links one way" "$T/l3"; then
    echo "PASS: conv_times --model-links from a pingpong record and a machine file; both ways refused"
else
    echo "FAIL: conv_times --model-links: $(grep model_links "$T/l1" "$T/l2"), rc $rc: $(head -c 300 "$T/l3")"
fi
exit 0
