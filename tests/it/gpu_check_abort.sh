#!/usr/bin/env bash
# A CUDA or cuDNN error in one GPU test fails that test, and the test binary
# goes on with the next ones (issue 28 item 7): the GPU tests install an
# abort hook (tests/unit/tap_check.h) that check_fail calls instead of
# exit(1).  Without a GPU: test_cosmo_cuda on the fake CUDA module
# (tests/support/fake_kcu.c, the reference kernels in host memory), whose
# first convolution call fails through check_fail as the real module's
# CK_DNN does (EXADL_FAKE_CHECK_FAIL=1):
#   - that test (cosmo_cuda_kernels_fp32) prints FAIL naming the failed call;
#   - the fp32 tests after it (the chunked convolutions, the training step)
#     still run and PASS; the binary exits non-zero;
#   - without the injected error the same fp32 tests PASS (the plumbing).
# The fake module has no bf16 or fp16: those tests FAIL at creation there and
# are not counted.
set -u
B=$EXADL_BUILD
T=$EXADL_TMP
U=$B/tests/test_cosmo_cuda
F=$B/lib/libexadl_fake_kcu.so
C=$EXADL_BIN/cosmoflow
if [ ! -f "$B/lib/libexadl_cuda.so" ]; then
    echo "SKIP: gpu check abort: this build ($(basename "$B")) has no CUDA path (test_cosmo_cuda only says SKIP)"
    exit 0
fi
[ -x "$U" ] && [ -f "$F" ] || { echo "FAIL: gpu check abort: $U or $F was not built"; exit 1; }
# the fake module calls MPI (its "NCCL"): give it the library the programs link
mpi=$(ldd "$C" 2>/dev/null | awk '$1 ~ /^libmpi\.so/ { print $3; exit }')
[ -n "$mpi" ] || { echo "SKIP: gpu check abort: cosmoflow links no libmpi to preload for the fake module"; exit 0; }
fp32='cosmo_cuda_(kernels_fp32|conv_chunked_fp32|step_fp32)'

LD_PRELOAD=$mpi${LD_PRELOAD:+:$LD_PRELOAD} EXADL_CUDA_MODULE=$F "$U" >"$T/plain.out" 2>&1
if [ "$(grep -cE "^PASS: $fp32\$" "$T/plain.out")" -eq 3 ]; then
    echo "PASS: gpu check abort: test_cosmo_cuda's 3 fp32 tests PASS on the fake module"
else
    echo "FAIL: gpu check abort: test_cosmo_cuda on the fake module: $(grep -E '^(FAIL|PASS)' "$T/plain.out" | head -c 500)"
fi

LD_PRELOAD=$mpi${LD_PRELOAD:+:$LD_PRELOAD} EXADL_CUDA_MODULE=$F EXADL_FAKE_CHECK_FAIL=1 "$U" >"$T/inj.out" 2>&1
rc=$?
if grep -qE '^FAIL: cosmo_cuda_kernels_fp32: check failed: .*cudnnConvolutionForward.*EXADL_FAKE_CHECK_FAIL=1' "$T/inj.out"; then
    echo "PASS: gpu check abort: the injected cuDNN error FAILs its test: $(grep '^FAIL: cosmo_cuda_kernels_fp32' "$T/inj.out" | cut -c1-160)"
else
    echo "FAIL: gpu check abort: no FAIL line for the injected error (exit $rc): $(grep -vE '^(PASS|SKIP)' "$T/inj.out" | head -n 4 | cut -c1-300)"
fi
if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q '^PASS: cosmo_cuda_conv_chunked_fp32$' "$T/inj.out" &&
    grep -q '^PASS: cosmo_cuda_step_fp32$' "$T/inj.out"; then
    echo "PASS: gpu check abort: the tests after the failed one ran and PASS (exit $rc: the failure counted)"
else
    echo "FAIL: gpu check abort: after the injected error (exit $rc) the later tests did not run or pass: $(grep -E '^(PASS|FAIL)' "$T/inj.out" | tr '\n' ' ' | cut -c1-400)"
fi
exit 0
