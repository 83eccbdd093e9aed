#!/usr/bin/env bash
# The GPU backends: nccl and mpi-cuda run and validate where a GPU (and, for
# mpi-cuda, a CUDA-aware MPI) is present; elsewhere the program says why it
# cannot run (exit 3) and this test says SKIP with that reason.  Validation
# covers the upload's order with NCCL (cudaMemcpyAsync on the benchmark's
# stream, then synchronised): every element of every size is checked.
set -u
bin=$EXADL_BIN/collectives
tmp=${EXADL_TMP:-$(mktemp -d)}
np=1
gpus=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    gpus=$(nvidia-smi -L | grep -c '^GPU')
    np=$gpus
    [ "$np" -gt 4 ] && np=4
fi
# a GPU machine's sanitizer build (GPU=0) has no GPU module: the GPU runs
# belong to the build that has one (make test runs both: not twice, and not
# as failures here)
if [ "$gpus" -gt 0 ] && [ ! -f "${EXADL_BUILD:-build}/lib/libexadl_coll_gpu.so" ]; then
    echo "SKIP: coll_gpu: this build ($(basename "${EXADL_BUILD:-build}")) has no CUDA path; the GPU runs are in the build that has it"
    exit 0
fi
for be in nccl mpi-cuda; do
    name="coll_gpu $be"
    $EXADL_MPIRUN -np "$np" "$bin" --backend $be --op all --dtype float32,float16,bfloat16 \
        --redop sum,max -e 64K -n 3 -w 1 --record "$tmp/gpu.yaml" >"$tmp/gpu.out" 2>"$tmp/gpu.err"
    rc=$?
    case $rc in
    0)
        if grep -q '^# wrong elements: 0$' "$tmp/gpu.out" && grep -q '^gpus: [1-9]' "$tmp/gpu.yaml"; then
            echo "PASS: $name over $np rank(s)"
        else
            echo "FAIL: $name: ran but the output or record is not as expected"
        fi
        ;;
    3)
        why=$(grep '^collectives: error:' "$tmp/gpu.err" | head -n 1 | sed 's/^collectives: error: //')
        if [ $be = nccl ] && [ "$gpus" -gt 0 ]; then
            # nvidia-smi lists GPUs: NCCL not running on them is a failure
            echo "FAIL: $name: $gpus GPU(s) here but the backend is unavailable: $why"
        elif [ -n "$why" ] && grep -q '^status: failed' "$tmp/gpu.yaml"; then
            echo "SKIP: $name: $why"
        else
            echo "FAIL: $name: exit 3 without a reason or without a failed record"
        fi
        ;;
    *) echo "FAIL: $name: exit $rc: $(tail -n 3 "$tmp/gpu.err" | tr '\n' ' ')" ;;
    esac
done
