#!/usr/bin/env bash
# The GPU build's warnings as errors (issue 28 item 9): nvcc's own warnings
# (its front ends cudafe++ and cicc, and ptxas) are errors, but the host
# compiler's are errors only where it is the GCC the project is checked with
# (NVCC_HOST_CHECKED): `-Werror all-warnings` passed -Werror to the host
# compiler too, and the GPU machines' newer g++ may warn where this one does
# not.  Checked in the Makefile's flags (make info, make -n), in what nvcc
# hands each tool (nvcc --dryrun), and by compiling a file with a host-only
# warning and one with a device-code warning.  The CPU build keeps -Werror.
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${EXADL_TMP:-/tmp}/nvcc-flags.XXXXXX")
trap 'rm -rf "$T"' EXIT
# the Makefile's defaults, whatever the caller exported (gpu_session.sh exports STRICT=nvcc)
unset STRICT NVCC_HOST_VERSION NVCC_HOST_CHECKED CUDA_ARCH NV_WERROR
pass() { echo "PASS: nvcc flags: $*"; }
fail() { echo "FAIL: nvcc flags: $*"; }
nvflags() { make --no-print-directory -s BUILD="$T/b" GPU=1 "$@" info | sed -n 's/^NVFLAGS=//p'; }

other=$(nvflags NVCC_HOST_VERSION=99)
checked=$(nvflags NVCC_HOST_VERSION=12 NVCC_HOST_CHECKED=12)
lax=$(nvflags STRICT=0 NVCC_HOST_VERSION=12 NVCC_HOST_CHECKED=12)
if [ -n "$other" ] && [[ "$other" != *all-warnings* ]] && [[ " $other " != *" -Werror "* ]] &&
    [[ "$other" != *"-Xcompiler -Werror"* ]] && [[ "$other" == *"-Xcudafe --promote_warnings"* ]] &&
    [[ "$other" == *"-Xptxas --warning-as-error"* ]]; then
    pass "another host GCC (99): nvcc's own warnings are errors, no -Werror (all-warnings) reaches the host compiler"
else
    fail "another host GCC (99): NVFLAGS=$other"
fi
if [[ "$checked" == *"-Xcompiler -Werror"* ]] && [[ "$checked" == *"--promote_warnings"* ]] &&
    [[ "$checked" != *all-warnings* ]] && [[ "$lax" != *Werror* ]] && [[ "$lax" != *promote_warnings* ]]; then
    pass "the checked host GCC keeps its warnings as errors (-Xcompiler -Werror); STRICT=0 makes none errors"
else
    fail "checked GCC: NVFLAGS=$checked; STRICT=0: $lax"
fi
# STRICT=nvcc (tests/manual/gpu_session.sh's GPU machine builds): nvcc's own only, even on the checked GCC
gpuhost=$(nvflags STRICT=nvcc NVCC_HOST_VERSION=12 NVCC_HOST_CHECKED=12)
cn=$(make --no-print-directory -n BUILD="$T/b" GPU=0 STRICT=nvcc "$T/b/obj/benchmarks/collectives/coll.o" 2>/dev/null |
        grep -- '-c benchmarks/collectives/coll.c')
if [[ "$gpuhost" == *"-Xcudafe --promote_warnings -Xptxas --warning-as-error"* ]] && [[ "$gpuhost" != *Werror* ]] &&
    [ -n "$cn" ] && [[ "$cn" != *Werror* ]] && grep -q 'GPU=1 STRICT=nvcc' tests/manual/gpu_session.sh; then
    pass "STRICT=nvcc: nvcc's own warnings are errors, no host -Werror (C or nvcc's host compile); gpu_session.sh builds so"
else
    fail "STRICT=nvcc: NVFLAGS=$gpuhost; C: $cn"
fi
# the compile line make would run for a .cu file, and the CPU build's C line
cu=$(make --no-print-directory -n BUILD="$T/b" GPU=1 NVCC_HOST_VERSION=99 \
        "$T/b/obj/benchmarks/collectives/coll_gpu.cu.o" 2>/dev/null | grep -- '-c benchmarks/collectives/coll_gpu.cu')
c=$(make --no-print-directory -n BUILD="$T/b" GPU=0 "$T/b/obj/benchmarks/collectives/coll.o" 2>/dev/null |
        grep -- '-c benchmarks/collectives/coll.c')
if [ -n "$cu" ] && [[ "$cu" != *all-warnings* ]] && [[ "$cu" != *"-Xcompiler -Werror"* ]] && [[ "$c" == *" -Werror "* ]]; then
    pass "make -n: the .cu compile passes no host -Werror on another GCC; the C compile keeps -Werror"
else
    fail "make -n: cu: '$cu'; c: '$c'"
fi

nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
if [ ! -x "$nvcc" ] || ! command -v gcc >/dev/null; then
    echo "SKIP: nvcc flags: what nvcc hands each tool, and compiles: no $nvcc here"
    exit 0
fi
one="-gencode arch=compute_80,code=sm_80"
other1=$(nvflags NVCC_HOST_VERSION=99 CUDA_ARCH="$one")
checked1=$(nvflags NVCC_HOST_VERSION=12 NVCC_HOST_CHECKED=12 CUDA_ARCH="$one")
printf '__global__ void k(float *x) { x[0] = 1.f; }\nstatic int f(int a, int b) { return a; }\nint main() { return f(1, 2); }\n' >"$T/host.cu"
printf '__global__ void k(float *x) { int unused; x[0] = 1.f; }\nint main() { return 0; }\n' >"$T/dev.cu"
# the host compile (gcc -c ... .cudafe1.cpp) and the front ends, as nvcc would run them
# shellcheck disable=SC2086
dry=$("$nvcc" $other1 --dryrun -c "$T/host.cu" -o "$T/h.o" 2>&1)
hostline=$(grep -E '^#\$ (gcc|g\+\+|c\+\+).* -c .*cudafe1\.cpp' <<<"$dry")
if [ -n "$hostline" ] && [[ "$hostline" != *" -Werror "* ]] && grep -q '^#\$ cudafe++.*--promote_warnings' <<<"$dry" &&
    grep -q -- '--promote_warnings' <<<"$(grep 'cicc' <<<"$dry")" && grep -q '^#\$ ptxas.*--warning-as-error' <<<"$dry"; then
    pass "nvcc --dryrun: cudafe++ and cicc promote warnings, ptxas --warning-as-error, the host compile has no -Werror"
else
    fail "nvcc --dryrun: host line: ${hostline:-none}"
fi
# shellcheck disable=SC2086
(cd "$T" && "$nvcc" $other1 -c host.cu -o h1.o) >"$T/h1.out" 2>&1
h1=$?
# shellcheck disable=SC2086
(cd "$T" && "$nvcc" $checked1 -c host.cu -o h2.o) >"$T/h2.out" 2>&1
h2=$?
# shellcheck disable=SC2086
(cd "$T" && "$nvcc" $other1 -c dev.cu -o d.o) >"$T/d.out" 2>&1
d=$?
if [ $h1 = 0 ] && grep -q 'unused parameter' "$T/h1.out" && [ $h2 != 0 ] && [ $d != 0 ] && grep -q '177' "$T/d.out"; then
    pass "a host-only warning compiles on another GCC (fatal on the checked one); a device-code warning (#177) fails the build"
else
    fail "compiles: host warning on another GCC exit $h1, on the checked one exit $h2, device warning exit $d: $(head -c 300 "$T/d.out" | tr "\n" " ")"
fi
