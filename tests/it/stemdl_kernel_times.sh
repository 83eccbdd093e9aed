#!/usr/bin/env bash
# stemdl --describe --model-conv-times: the plan model's kernels other than
# the convolutions (transposed convolutions, pooling, bias, ReLU, the loss,
# add, copy, zero, the halo and shuffle copies: copy3d, Adam) measured once per
# machine in the convolutions' cache
# (docs/spatial.md "Measured kernel times"), and a cache that cannot be
# written.
# - a first call appends a line per shape of each family (named in the
#   shape field) and counts them; a second measures none;
# - planted times (exact arithmetic): every time 0 but pooling's (0.5 s
#   forward, 0.25 s backward): each plan is charged 0.5 s per pool_fwd call
#   and 0.25 s per pool_bwd call, nothing else (2 of each in a tiny step:
#   1.5 s); planted on the whole-sample shapes only (2 samples per rank:
#   data, and level 1 of hs), data 1.5 s, 2x1:hs 0.75 s, 2x1:h 0; the halo
#   and shuffle copies (copy3d) planted: data 0, each split plan a whole
#   number of seconds; Adam planted: the same whole number for every plan;
# - a line of an unknown family: refused in one line naming FILE:LINE;
# - EXADL_CONV_CACHE under a regular file (unwritable, also as root): one
#   warning line naming the path and why, the measuring and the choice go
#   on (exit 0); exadl model --spatial --stemdl shows that line too.
# No time is asserted.
set -u
S=$EXADL_BIN/stemdl
T=$EXADL_TMP
export EXADL_CONV_CACHE=$T/kc/cache.tsv
D=(--preset tiny --batch 4 --spatial 2 --describe --threads 1 --precision fp32 --model-conv-times on)
M=(--model-latency-s 1e-5 --model-bytes-per-s 1e9)
line() { grep '^conv_times' "$1"; }
nother() { awk -F'\t' '$5 !~ /^[0-9]/' "$1" | wc -l; }

"$S" "${D[@]}" "${M[@]}" >"$T/d1" 2>&1 || echo "FAIL: kernel_times the first --describe failed: $(tail -n 3 "$T/d1")"
n1=$(nother "$EXADL_CONV_CACHE" 2>/dev/null || echo 0)
fams=$(awk -F'\t' '$5 !~ /^[0-9]/ { split($5, s, " "); print s[1] }' "$EXADL_CONV_CACHE" | sort -u | tr '\n' ' ')
if line "$T/d1" | grep -Eq "; $n1 shapes of other kernels: $n1 measured now, 0 from the cache$" &&
    [ "$n1" -gt 10 ] && [ "$fams" = "adam add bias copy copy3d l1 pool relu tconv zero " ] &&
    [ "$(awk '/^  / && $1 != "plan" && ($11 == "-" || $11 == 0)' "$T/d1" | wc -l)" = 0 ]; then
    echo "PASS: kernel_times the first call measures $n1 shapes of other kernels ($fams), an other_s per plan"
else
    echo "FAIL: kernel_times first call: $n1 lines of other kernels ($fams), '$(line "$T/d1")'"
fi
"$S" "${D[@]}" "${M[@]}" >"$T/d2" 2>&1 || echo "FAIL: kernel_times the second --describe failed"
if line "$T/d2" | grep -Eq ": 0 measured now .*; $n1 shapes of other kernels: 0 measured now, $n1 from the cache$" &&
    [ "$(nother "$EXADL_CONV_CACHE")" = "$n1" ]; then
    echo "PASS: kernel_times the second call measures nothing ($n1 shapes of other kernels from the cache)"
else
    echo "FAIL: kernel_times second call: $(nother "$EXADL_CONV_CACHE") lines, '$(line "$T/d2")'"
fi

# planted times; the untimed FLOPs (Adam's) and the bytes cost next to nothing
cp "$EXADL_CONV_CACHE" "$T/orig.tsv"
plant() { # $1: awk condition on the shape field's words s[1..7] for pooling's times
    awk -F'\t' -v OFS='\t' "{ split(\$5, s, \" \"); \$6 = (s[1] == \"pool\" && ($1)) ? \"0.5 0.25 0\" : \"0 0 0\"; print }" \
        "$T/orig.tsv" >"$EXADL_CONV_CACHE"
}
P=(--model-latency-s 0 --model-bytes-per-s 1e15 --model-flops 1e21)
col() { awk -v p="$2" -v c="$3" '$1 == p { print $c }' "$1"; }
plant 1
"$S" "${D[@]}" "${P[@]}" >"$T/d3" 2>&1
ok=1
for p in data 2x1:h 2x1:hs 2x1:hhs 1x2:h 1x2:hs 1x2:hhs; do
    [ "$(col "$T/d3" $p 10) $(col "$T/d3" $p 11) $(col "$T/d3" $p 12)" = "0 1.5 1.5" ] || ok=0
done
if [ $ok = 1 ] && line "$T/d3" | grep -q "other kernels: 0 measured now"; then
    echo "PASS: kernel_times planted pooling times: every plan predicted 2 x 0.5 + 2 x 0.25 = 1.5 s"
else
    echo "FAIL: kernel_times planted pooling times: $(grep -A9 '^spatial_plans' "$T/d3")"
fi
plant 's[2] == 2'
"$S" "${D[@]}" "${P[@]}" >"$T/d4" 2>&1
# (the h plans' other_s 0: their predicted step is the bytes' 6e-11 s)
if [ "$(col "$T/d4" data 12) $(col "$T/d4" 2x1:hs 12) $(col "$T/d4" 2x1:h 11) $(col "$T/d4" 2x1:hhs 11)" = "1.5 0.75 0 0" ] &&
    awk '$1 == "2x1:h" || $1 == "2x1:hhs" { if ($12 + 0 > 1e-9) bad = 1 } END { exit bad }' "$T/d4"; then
    echo "PASS: kernel_times pooling planted on the whole-sample shapes: data 1.5 s, 2x1:hs 0.75 s, 2x1:h 0"
else
    echo "FAIL: kernel_times whole-sample pooling: $(grep -A9 '^spatial_plans' "$T/d4")"
fi

# the halo and shuffle copies: 1 s each, the rest 0: data (unsplit) copies
# nothing, a split plan is charged a whole number of seconds, one per copy
awk -F'\t' -v OFS='\t' '{ split($5, s, " "); $6 = s[1] == "copy3d" ? "1 0 0" : "0 0 0"; print }' \
    "$T/orig.tsv" >"$EXADL_CONV_CACHE"
"$S" "${D[@]}" "${P[@]}" >"$T/d6" 2>&1
if [ "$(col "$T/d6" data 11)" = 0 ] &&
    awk '$1 ~ /^[12]x[12]:h/ { n++; if (!($11 >= 1 && $11 == int($11))) bad = 1 } END { exit bad || n != 6 }' "$T/d6"; then
    echo "PASS: kernel_times copy3d planted: data 0, the split plans $(col "$T/d6" 2x1:h 11) s (2x1:h) and $(col "$T/d6" 2x1:hs 11) s (2x1:hs): one per copy"
else
    echo "FAIL: kernel_times copy3d planted: $(grep -A9 '^spatial_plans' "$T/d6")"
fi

# Adam: 1 s per slice, the rest 0: the same whole number for every plan
awk -F'\t' -v OFS='\t' '{ split($5, s, " "); $6 = s[1] == "adam" ? "1 0 0" : "0 0 0"; print }' \
    "$T/orig.tsv" >"$EXADL_CONV_CACHE"
"$S" "${D[@]}" "${P[@]}" >"$T/d7" 2>&1
na=$(col "$T/d7" data 11)
if [ -n "$na" ] && awk -v a="$na" '/^  / && $1 != "plan" { n++; if ($11 != a || !(a >= 1 && a == int(a))) bad = 1 } END { exit bad || n != 7 }' "$T/d7"; then
    echo "PASS: kernel_times Adam planted: every plan charged the same $na s (one per parameter slice)"
else
    echo "FAIL: kernel_times Adam planted: $(grep -A9 '^spatial_plans' "$T/d7")"
fi

# a family the cache does not know: refused in one line naming FILE:LINE,
# the word's control bytes not shown
printf 'cpu\t1\tfast\tfp32\tfo\033o 1 1 1 1 1 1\t0 0 0\n' >"$EXADL_CONV_CACHE"
"$S" "${D[@]}" "${M[@]}" >"$T/d8" 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(grep -c . "$T/d8")" = 1 ] &&
    grep -q "cache.tsv:1: 'fo?o' is not a kernel family of the cache" "$T/d8"; then
    echo "PASS: kernel_times an unknown family is refused in one line: $(cat "$T/d8")"
else
    echo "FAIL: kernel_times unknown family: rc $rc: $(cat -v "$T/d8")"
fi

# a cache that cannot be written: a path under a regular file
: >"$T/file"
EXADL_CONV_CACHE=$T/file/cache.tsv "$S" "${D[@]}" "${M[@]}" >"$T/d5" 2>"$T/e5"
rc=$?
if [ $rc = 0 ] && [ "$(grep -c . "$T/e5")" = 1 ] &&
    grep -q "^stemdl: warning: $T/file/cache.tsv: cannot write the convolution cache: Not a directory; measuring without it$" "$T/e5" &&
    grep -q '^spatial_plan_chosen  *data ' "$T/d5" && line "$T/d5" | grep -Eq ' [1-9][0-9]* measured now' &&
    [ -f "$T/file" ] && [ ! -s "$T/file" ]; then
    echo "PASS: kernel_times an unwritable cache: one warning line naming it and why, measured and chosen"
else
    echo "FAIL: kernel_times unwritable cache: rc $rc, stderr '$(cat "$T/e5")', $(grep '^spatial_plan_chosen' "$T/d5")"
fi
# the harness's front end passes the warning on (stemdl's stderr is its log)
EXADL_CONV_CACHE=$T/file/cache.tsv "$EXADL_BIN/exadl" model --spatial --stemdl \
    --links "$EXADL_ROOT/reference/machines/dev-2core.yaml" --conv-times -- \
    --preset tiny --spatial 2 --batch 4 --threads 1 --precision fp32 >"$T/m6" 2>"$T/e6"
rc=$?
if [ $rc = 0 ] && [ "$(grep -c . "$T/e6")" = 1 ] &&
    grep -q "^stemdl: warning: $T/file/cache.tsv: cannot write the convolution cache: Not a directory; measuring without it$" "$T/e6" &&
    grep -q '^chosen: ' "$T/m6"; then
    echo "PASS: kernel_times exadl model --spatial --stemdl passes stemdl's one warning on"
else
    echo "FAIL: kernel_times exadl model with an unwritable cache: rc $rc, stderr '$(cat "$T/e6")'"
fi
# The small preset's first call (an empty cache): every kernel of every layer
# gets a row in the dry step's kernel table, which a fixed 256 rows could not
# hold (exit 1, "kernel table full", on the first call on a machine only).
# The normal build only: it measures ~260 shapes (a few seconds; minutes
# under the sanitizers).
case $(basename "${EXADL_BUILD:-build}") in
build-san*) echo "SKIP: kernel_times small preset's first call: normal build only (CI time)" ;;
*)
    EXADL_CONV_CACHE=$T/kc-small/cache.tsv "$S" --preset small --batch 2 --spatial 2 --describe \
        --threads 1 --precision fp32 --model-conv-times on "${M[@]}" >"$T/ds" 2>&1
    rc=$?
    if [ $rc = 0 ] && ! grep -q 'kernel table full' "$T/ds" && line "$T/ds" | grep -q 'measured now'; then
        echo "PASS: kernel_times small preset's first call measures every shape (exit 0)"
    else
        echo "FAIL: kernel_times small preset's first call: exit $rc: $(grep -m1 error "$T/ds")"
    fi ;;
esac
exit 0
