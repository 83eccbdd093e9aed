#!/usr/bin/env bash
# The data distribution benchmark (docs/ensembles.md) on 2 ranks and a 1 MiB
# file: every strategy delivers bytes that match the file's formula; one byte
# planted wrong in the file is caught by every strategy (status invalid, the
# byte's offset named, exit non-zero); bad sizes are refused clearly (in the
# normal build only).
set -u
D=$EXADL_BIN/datadist
T=$EXADL_TMP
M="${EXADL_MPIRUN:-mpirun} --oversubscribe"
run() { $M -np 2 "$D" --bytes 1M --chunk-bytes 64K --reps 2 --warmup 0 --file "$T/data.bin" "$@"; }
if run --record "$T/ok.yaml" >"$T/ok.out" 2>&1 && grep -q '^status: ok' "$T/ok.yaml" &&
    [ "$(grep -c 'outcome: pass' "$T/ok.yaml")" = 5 ]; then
    echo "PASS: datadist 5 strategies deliver the file intact on 2 ranks"
else
    echo "FAIL: datadist clean run: $(tail -n 3 "$T/ok.out")"
fi
grep -q 'first_batch_s: \[' "$T/ok.yaml" && grep -q 'file_GBps:' "$T/ok.yaml" &&
    echo "PASS: datadist record has GB/s and first batch per rank" || echo "FAIL: datadist record lacks its numbers"
# plant one wrong byte in rank 1's shard (bytes 524288..): every strategy delivers it somewhere
printf '\xff' | dd of="$T/data.bin" bs=1 seek=700001 conv=notrunc status=none
if run --record "$T/bad.yaml" >"$T/bad.out" 2>&1; then
    echo "FAIL: datadist a corrupted file passed"
else
    n=$(grep -c 'outcome: fail' "$T/bad.yaml")
    if [ "$n" = 5 ] && grep -q '^status: invalid' "$T/bad.yaml" && grep -q 'first at byte 700000' "$T/bad.out"; then
        echo "PASS: datadist planted corruption caught by all 5 strategies (byte 700000 named)"
    else
        echo "FAIL: datadist planted corruption: $n of 5 caught: $(tail -n 3 "$T/bad.out")"
    fi
fi
# the refusals below: the normal build only (argument checks; CI time)
case ${EXADL_BUILD:-build} in
*build-san*) echo "SKIP: datadist bad sizes: normal build only (CI time)"; exit 0 ;;
esac
if $M -np 2 "$D" --bytes 1001 >"$T/size.out" 2>&1; then
    echo "FAIL: datadist --bytes 1001 on 2 ranks ran"
else
    grep -q 'must be a positive multiple of 8 x 2 ranks' "$T/size.out" && echo "PASS: datadist bad size refused clearly" ||
        echo "FAIL: datadist bad size: $(tail -n 2 "$T/size.out")"
fi
# an existing file of another size: refused, not overwritten
head -c 4096 /dev/zero >"$T/short.bin"
if $M -np 2 "$D" --bytes 1M --file "$T/short.bin" >"$T/short.out" 2>&1; then
    echo "FAIL: datadist a file of the wrong size was used"
elif grep -q 'short.bin: 4096 bytes, --bytes says 1048576' "$T/short.out" && [ "$(stat -c %s "$T/short.bin")" = 4096 ]; then
    echo "PASS: datadist a file of another size refused and left as it was"
else
    echo "FAIL: datadist wrong-size file: $(tail -n 2 "$T/short.out")"
fi
