#!/usr/bin/env bash
# The GPU unit tests ask nvidia-smi -L whether there is a GPU when their CUDA
# module does not load (tests/unit/gpu_probe.h; issue 28 item 11), as the
# scripts do, not /proc/driver/nvidia/version (a driver, not a GPU): with a
# fake nvidia-smi (EXADL_NVIDIA_SMI) listing a GPU and the module missing,
# test_cosmo_cuda FAILs every GPU test (never SKIP); listing none, it SKIPs
# them (in a build without the CUDA path, make test's sanitizer build, it is
# compiled out: one SKIP).  coll_gpu.sh and cosmo_cuda.sh, which ran their GPU
# work in that build too (and failed there), SKIP it.  And no unit test
# reads /proc/driver/nvidia.
set -u
T=$EXADL_TMP
U=$EXADL_BUILD/tests/test_cosmo_cuda
[ -x "$U" ] || { echo "FAIL: gpu probe: $U was not built"; exit 1; }
mkdir -p "$T/fake"
printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)"\nexit 0\n' >"$T/fake/smi-gpu"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$T/fake/smi-none"
chmod +x "$T/fake/smi-gpu" "$T/fake/smi-none"
gpu_tests() { grep -cE "^$1: cosmo_cuda_" "$2"; }

if [ -f "$EXADL_BUILD/lib/libexadl_cuda.so" ]; then
    EXADL_CUDA_MODULE=$T/missing/libexadl_cuda.so EXADL_NVIDIA_SMI=$T/fake/smi-gpu "$U" >"$T/g.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ "$(gpu_tests FAIL "$T/g.out")" -ge 3 ] && [ "$(gpu_tests SKIP "$T/g.out")" -eq 0 ]; then
        echo "PASS: gpu probe: nvidia-smi -L lists a GPU, the CUDA module is missing: test_cosmo_cuda FAILs its $(gpu_tests FAIL "$T/g.out") GPU tests, no SKIP"
    else
        echo "FAIL: gpu probe: a GPU listed, no module: exit $rc, $(gpu_tests FAIL "$T/g.out") FAIL, $(gpu_tests SKIP "$T/g.out") SKIP"
    fi
    EXADL_CUDA_MODULE=$T/missing/libexadl_cuda.so EXADL_NVIDIA_SMI=$T/fake/smi-none "$U" >"$T/n.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ "$(gpu_tests SKIP "$T/n.out")" -ge 3 ] && [ "$(gpu_tests FAIL "$T/n.out")" -eq 0 ]; then
        echo "PASS: gpu probe: nvidia-smi -L lists none: test_cosmo_cuda SKIPs its GPU tests"
    else
        echo "FAIL: gpu probe: no GPU listed, no module: exit $rc, $(gpu_tests FAIL "$T/n.out") FAIL, $(gpu_tests SKIP "$T/n.out") SKIP"
    fi
else
    # the sanitizer build compiles the GPU unit tests out: one SKIP, whatever is listed
    EXADL_NVIDIA_SMI=$T/fake/smi-gpu "$U" >"$T/s.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^SKIP: .*no CUDA path' "$T/s.out" && ! grep -q '^FAIL' "$T/s.out"; then
        echo "PASS: gpu probe: test_cosmo_cuda in a build without the CUDA path SKIPs (a GPU listed or not)"
    else
        echo "FAIL: gpu probe: test_cosmo_cuda in a build without the CUDA path: exit $rc: $(head -c 300 "$T/s.out")"
    fi
fi
# the GPU integration tests in a build without the CUDA path, a GPU listed
# (make test's sanitizer build on a GPU machine): SKIP, not run a second time
if [ ! -f "$EXADL_BUILD/lib/libexadl_cuda.so" ]; then
    mkdir -p "$T/fakebin"
    cp "$T/fake/smi-gpu" "$T/fakebin/nvidia-smi"
    for t in coll_gpu cosmo_cuda; do
        mkdir -p "$T/$t"
        PATH=$T/fakebin:$PATH PYTHON=/bin/false EXADL_TMP=$T/$t bash "tests/it/$t.sh" >"$T/$t.out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q "^SKIP: .*has no CUDA path" "$T/$t.out" && ! grep -q '^FAIL' "$T/$t.out"; then
            echo "PASS: gpu probe: $t.sh in a build without the CUDA path on a GPU machine SKIPs its GPU runs"
        else
            echo "FAIL: gpu probe: $t.sh in a build without the CUDA path, a GPU listed: exit $rc: $(grep -m2 -E '^(FAIL|SKIP)' "$T/$t.out")"
        fi
    done
fi
hits=$(grep -ln '"/proc/driver/nvidia' tests/unit/*.c tests/unit/*.h 2>/dev/null | tr '\n' ' ')
if [ -z "$hits" ]; then
    echo "PASS: gpu probe: no unit test decides GPU presence from /proc/driver/nvidia"
else
    echo "FAIL: gpu probe: /proc/driver/nvidia still read by: $hits"
fi
