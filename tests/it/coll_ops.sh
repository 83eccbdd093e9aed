#!/usr/bin/env bash
# Every registered collective over 2, 3 and 4 ranks: test_coll_ops (the unit
# test, one rank in tests/run.sh) under mpirun, so that each operation's real
# call is compared with the test's own reference on every rank.
set -u
tmp=${EXADL_TMP:-$(mktemp -d)}
for np in 2 3 4; do
    $EXADL_MPIRUN -np $np "$EXADL_BUILD/tests/test_coll_ops" >"$tmp/ops.out" 2>"$tmp/ops.err"
    rc=$?
    sed -n "s/^\(PASS\|FAIL\|SKIP\): /\1: np=$np /p" "$tmp/ops.out"
    if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$tmp/ops.out"; then
        echo "FAIL: test_coll_ops np=$np: exit $rc: $(tail -n 3 "$tmp/ops.err" | tr '\n' ' ')"
    fi
done
