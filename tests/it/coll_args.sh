#!/usr/bin/env bash
# Bad arguments of collectives and orchestration: one clear error line, exit
# status 2, nothing measured.
set -u
# CI time: the normal build only (argument handling over real ranks; the sanitizer build checks the same parsers in test_coll_args and the fuzz harnesses, the collectives in coll_ops.sh and coll_plant.sh)
case $(basename "${EXADL_BUILD:-build}") in
build-san*) echo "SKIP: coll_args: normal build only (CI time)"; exit 0 ;;
esac
bin=$EXADL_BIN/collectives
tmp=${EXADL_TMP:-$(mktemp -d)}
# check NAME NP PATTERN ARGS...: expect exit 2 and exactly one "PROGRAM: error:" line matching
# (PROGRAM: the basename of $bin)
check() {
    local name=$1 np=$2 pat=$3 prog
    prog=$(basename "$bin")
    shift 3
    if [ "$np" = 0 ]; then
        "$bin" "$@" >"$tmp/args.out" 2>"$tmp/args.err"
    else
        $EXADL_MPIRUN -np "$np" "$bin" "$@" >"$tmp/args.out" 2>"$tmp/args.err"
    fi
    local rc=$? n
    n=$(grep -c "^$prog: error:" "$tmp/args.err")
    if [ $rc -ne 2 ]; then
        echo "FAIL: coll_args $name: exit $rc, expected 2: $(head -n 2 "$tmp/args.err" | tr '\n' ' ')"
    elif [ "$n" -ne 1 ]; then
        echo "FAIL: coll_args $name: $n error lines"
    elif ! grep -q -- "$pat" "$tmp/args.err"; then
        echo "FAIL: coll_args $name: message lacks '$pat': $(head -n 1 "$tmp/args.err")"
    elif grep -q '^ *[0-9]' "$tmp/args.out"; then
        echo "FAIL: coll_args $name: measured anyway"
    else
        echo "PASS: coll_args $name"
    fi
}
check "MIN > MAX" 0 "MIN > MAX" -b 64 -e 32
check "unknown op" 0 "unknown value 'gather'" --op allreduce,gather
check "unknown type" 0 "unknown value 'float8'" --dtype float8
check "unknown reduction" 0 "unknown value 'avg'" --redop avg
check "unknown backend" 0 "unknown value 'gloo'" --backend gloo
check "bad size" 0 "not a size" -b 1X
check "unknown option" 0 "unknown option '--bogus'" --bogus
check "missing value" 0 "needs a value" --op
check "zero iterations" 0 "out of range" -n 0
check "bad inplace" 0 "unknown value 'maybe'" --inplace maybe
check "less than one element" 0 "less than one element" --op allreduce -b 2 -e 2
check "pingpong on one rank" 0 "at least 2 ranks" --op pingpong
check "orchestration is its own program" 0 "its own program now: run \`orchestration\`" --orchestration
check "orchestration flag among others" 2 "run \`orchestration\` with the same options" --op allreduce --orchestration --steps 3
check "allgather split over 3" 3 "cannot be split over 3 ranks" --op allgather -b 4 -e 4
check "reduce_scatter split over 3" 3 "cannot be split over 3 ranks" --op reduce_scatter -b 8 -e 64
check "alltoall split over 2" 2 "cannot be split over 2 ranks" --op alltoall -b 4 -e 4 --dtype float32
check "vote_1bit on device buffers" 0 "vote_1bit packs on the CPU" --backend nccl --op vote_1bit
check "root outside the job" 2 "--root 5 is not a rank" --root 5
"$bin" --help >"$tmp/args.out" 2>&1
if [ $? -eq 0 ] && grep -q -- '--backend mpi|mpi-cuda|nccl' "$tmp/args.out"; then
    echo "PASS: coll_args help"
else
    echo "FAIL: coll_args help"
fi
# the --op help is generated from the registry: one line per operation
missing=
for op in allreduce reduce_scatter allgather broadcast reduce alltoall pingpong vote_1bit sum_pbit; do
    grep -q "^ *$op  " "$tmp/args.out" || missing="$missing $op"
done
if [ -z "$missing" ]; then echo "PASS: coll_args help lists every operation"
else echo "FAIL: coll_args help lacks:$missing"; fi

bin=$EXADL_BIN/orchestration
check "orchestration option" 0 "unknown option '--op'" --op allreduce
check "orchestration groups" 0 "out of range" --groups 0
check "orchestration groups over 2 ranks" 2 "out of range" --groups 0
check "orchestration mode" 0 "unknown value 'horovod'" --mode horovod
check "orchestration tensor bytes" 0 "not a size" --tensor-bytes 4X
check "orchestration timeout" 0 "not a number of seconds" --timeout soon
"$bin" --help >"$tmp/args.out" 2>&1
if [ $? -eq 0 ] && grep -q '^usage: orchestration' "$tmp/args.out"; then
    echo "PASS: coll_args orchestration help"
else
    echo "FAIL: coll_args orchestration help"
fi
