#!/usr/bin/env bash
# stemdl --backend cuda's host side without a GPU: the CUDA module replaced by
# tests/support/fake_kcu.c (EXADL_CUDA_MODULE; "GPUs" from EXADL_FAKE_GPUS and
# CUDA_VISIBLE_DEVICES, the reference kernels, MPI for NCCL).  Runs in every
# build, the sanitizer build too.
#   - ranks bound to one GPU each by `exadl bind` (as `exadl run` and Slurm's
#     --gpus-per-task=1 do) train: each rank sees 1 GPU, 2 ranks per node;
#   - two ranks on one physical GPU are refused, naming the GPU;
#   - the fake-GPU run trains bit for bit as the CPU reference backend (the
#     tuning pass changes nothing, the device transport sums what MPI sums);
#   - --sysinfo --backend cuda (no MPI start-up) describes the GPU;
#   - a device count that fails for another reason than "no GPU" is an error
#     ("CUDA cannot start"), not "no CUDA GPU" (which tests turn into SKIP);
#   - a transport whose wait fails (a dead NCCL peer) ends the run with its reason.
set -u
S=$EXADL_BIN/stemdl
X=$EXADL_BIN/exadl
T=$EXADL_TMP
F=$EXADL_BUILD/lib/libexadl_fake_kcu.so
M=${EXADL_MPIRUN:-mpirun}
if [ ! -f "$F" ]; then
    echo "FAIL: cuda stub: $F was not built"
    exit 1
fi
export EXADL_CUDA_MODULE=$F
tiny=(--preset tiny --backend cuda --steps 3 --warmup 1 --quiet)
field() { awk -v k="$1:" '$1 == k { print $2; exit }' "$2"; }

# ---- exadl bind: one GPU visible per rank, two ranks per node -------------------------
EXADL_FAKE_GPUS=2 CUDA_VISIBLE_DEVICES=0,1 "$M" -np 2 "$X" bind -- "$S" "${tiny[@]}" \
    --record "$T/bind.yaml" >"$T/bind.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(field status "$T/bind.yaml")" = ok ] && grep -q 'ExaDL fake GPU' "$T/bind.yaml" &&
    grep -q '^gpus: 2' "$T/bind.yaml"; then
    echo "PASS: cuda stub: 2 ranks bound to one GPU each by exadl bind train (each sees 1 GPU)"
else
    echo "FAIL: cuda stub: 2 ranks under exadl bind: exit $rc: $(grep -m1 error "$T/bind.out")"
fi

# ---- two ranks, one GPU ------------------------------------------------------------------
EXADL_FAKE_GPUS=1 "$M" -np 2 "$S" "${tiny[@]}" >"$T/share.out" 2>"$T/share.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'ranks 0 and 1 would share GPU GPU-fake-0' "$T/share.err"; then
    echo "PASS: cuda stub: 2 ranks on one physical GPU refused: $(grep -m1 'would share' "$T/share.err")"
else
    echo "FAIL: cuda stub: 2 ranks on one GPU: exit $rc: $(head -c 300 "$T/share.err")"
fi

# ---- the same training as the CPU reference, bit for bit ------------------------------------
EXADL_FAKE_GPUS=2 "$M" -np 2 "$S" "${tiny[@]}" --dump-weights "$T/wg" >"$T/g.out" 2>&1
rg=$?
"$M" -np 2 "$S" --preset tiny --backend cpu --kernels reference --steps 3 --warmup 1 --quiet \
    --dump-weights "$T/wc" >"$T/c.out" 2>&1
rc=$?
if [ $rg -eq 0 ] && [ $rc -eq 0 ] && cmp -s "$T/wg.0" "$T/wc.0" && cmp -s "$T/wg.1" "$T/wc.1"; then
    echo "PASS: cuda stub: 2 fake GPUs (tuning pass, device transport) train the same weights as the CPU reference"
else
    echo "FAIL: cuda stub: fake GPUs vs CPU reference: exit $rg/$rc, weights $(cmp "$T/wg.0" "$T/wc.0" 2>&1)"
fi

# ---- --sysinfo starts no MPI -----------------------------------------------------------------
"$S" --sysinfo --backend cuda >"$T/si.out" 2>"$T/si.err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'model: ExaDL fake GPU' "$T/si.out" && grep -q 'nccl' "$T/si.out"; then
    echo "PASS: cuda stub: --sysinfo --backend cuda describes the GPU without MPI"
else
    echo "FAIL: cuda stub: --sysinfo --backend cuda: exit $rc: $(head -c 300 "$T/si.err")"
fi

# ---- a failing device count is not "no GPU" ------------------------------------------------
EXADL_FAKE_CUDA_ERROR=1 "$S" "${tiny[@]}" >"$T/e.out" 2>"$T/e.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'CUDA cannot start on .*insufficient' "$T/e.err" && ! grep -q 'no CUDA GPU' "$T/e.err"; then
    echo "PASS: cuda stub: a device count failing with a driver present is an error: $(head -n 1 "$T/e.err")"
else
    echo "FAIL: cuda stub: failing device count: exit $rc: $(head -c 300 "$T/e.err")"
fi
EXADL_FAKE_GPUS=0 "$S" "${tiny[@]}" >"$T/n.out" 2>"$T/n.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'no CUDA GPU on' "$T/n.err" && [ "$(wc -l <"$T/n.err")" -eq 1 ]; then
    echo "PASS: cuda stub: no device is 'no CUDA GPU', one line, exit 2"
else
    echo "FAIL: cuda stub: no device: exit $rc: $(head -c 300 "$T/n.err")"
fi

# ---- a dead NCCL peer ends the step in an error ------------------------------------------------
EXADL_FAKE_GPUS=2 EXADL_FAKE_WAIT_FAIL=1 timeout 60 "$M" -np 2 "$S" "${tiny[@]}" >"$T/w.out" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'gradient reduction: fake NCCL: the communicator failed on rank 1' "$T/w.out"; then
    echo "PASS: cuda stub: a failed reduction wait ends the run with its reason"
else
    echo "FAIL: cuda stub: failed reduction wait: exit $rc: $(grep -m1 error "$T/w.out")"
fi
exit 0
