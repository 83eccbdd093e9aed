#!/usr/bin/env bash
# The validation catches one planted wrong element in every operation, at
# every size, in both variants, over 1, 2 and 3 ranks; the run then exits 1 and
# its record says invalid.
set -u
bin=$EXADL_BIN/collectives
tmp=${EXADL_TMP:-$(mktemp -d)}
for np in 1 2 3; do
    out=$tmp/plant$np.txt err=$tmp/plant$np.err rec=$tmp/plant$np.yaml
    # rank 0 is the root of broadcast and reduce, and a pingpong end
    $EXADL_MPIRUN -np $np "$bin" --op all --dtype float16,int32 --redop sum,max -b 24 -e 384 \
        -n 2 -w 0 --plant-error 0:5 --record "$rec" >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne 1 ]; then
        echo "FAIL: coll_plant np=$np: exit $rc, expected 1: $(tail -n 2 "$err" | tr '\n' ' ')"
        continue
    fi
    grep -q '^status: invalid' "$rec" || echo "FAIL: coll_plant np=$np: record status is not invalid"
    for op in allreduce reduce_scatter allgather broadcast reduce alltoall pingpong; do
        [ $np = 1 ] && [ $op = pingpong ] && continue
        name="coll_plant np=$np $op"
        # the rows of this operation's block; columns 9 and 13 are #wrong
        rows=$(awk -v op=$op '/^# op /{cur=$3} !/^#/ && NF >= 13 && cur == op' "$out" | wc -l)
        notone=$(awk -v op=$op '/^# op /{cur=$3} !/^#/ && NF >= 13 && cur == op &&
                 ($9 != 1 || ($13 != 1 && $13 != "nan"))' "$out" | head -n 2)
        if [ "$rows" -lt 8 ] || [ -n "$notone" ]; then
            echo "FAIL: $name: rows without exactly one wrong element ($rows rows): $notone"
        elif ! grep -q "rank 0: $op .*output element" "$err"; then
            echo "FAIL: $name: no message naming the wrong element"
        else
            echo "PASS: $name: $rows rows, one wrong element each"
        fi
    done
done
# the environment hook, and a rank other than 0 (allreduce: every rank has output)
EXADL_COLL_PLANT_ERROR=2:1000 $EXADL_MPIRUN -np 3 "$bin" --op allreduce -b 4K -e 4K -n 1 -w 0 \
    >"$tmp/plant.txt" 2>"$tmp/plant.err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'rank 2: allreduce' "$tmp/plant.err" &&
    awk '!/^#/ && NF >= 13 && $9 == 1 && $13 == 1' "$tmp/plant.txt" | grep -q .; then
    echo "PASS: coll_plant env hook on rank 2"
else
    echo "FAIL: coll_plant env hook on rank 2: exit $rc"
fi
# without a plant the same run is clean
$EXADL_MPIRUN -np 3 "$bin" --op allreduce -b 4K -e 4K -n 1 -w 0 >"$tmp/plant.txt" 2>&1
if [ $? -eq 0 ]; then echo "PASS: coll_plant control run"; else echo "FAIL: coll_plant control run"; fi
