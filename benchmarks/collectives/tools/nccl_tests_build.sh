#!/usr/bin/env bash
# nccl_tests_build.sh: builds nccl-tests' all_reduce_perf (bench_nccl.sh's
# peer) from its public source against the NCCL that ExaDL uses, a Python
# wheel's included.
#
#   benchmarks/collectives/tools/nccl_tests_build.sh SRC [MAKE_ARG...]
#       make -C SRC (MAKE_ARGs added: MPI=1, NVCC_GENCODE=..., -j16) with
#       NCCL_HOME set so that `-lnccl` links; prints the path of
#       SRC/build/all_reduce_perf as its last line
#   benchmarks/collectives/tools/nccl_tests_build.sh --link-only DIR
#       only the link step below: prints the NCCL_HOME to give a build that
#       links -lnccl (NCCL_HOME itself, or DIR made for it)
#
# Why: nccl-tests' Makefile links `-L$NCCL_HOME/lib -lnccl`, which needs
# libnccl.so; the nvidia-nccl wheel ships only libnccl.so.2, and the link
# fails.  Where NCCL_HOME has no libnccl.so, a private home is made (for a
# build: SRC/build/exadl-nccl-home; nothing of NCCL_HOME is changed):
# include -> NCCL_HOME/include, lib/libnccl.so and lib/libnccl.so.N -> the
# libnccl.so.N found.  The program records the soname (libnccl.so.2), so at
# run time the loader finds the wheel's library on LD_LIBRARY_PATH (gpu_env.sh
# puts it there; bench_nccl.sh adds NCCL_HOME's lib).
# Environment: NCCL_HOME (required; gpu_env.sh sets it), CUDA_HOME (passed
# to make when set).
# Exit status: 0 built (or linked), 1 the build failed (its last lines on
# stderr), 2 bad input (no SRC, no nccl.h or libnccl.so* under NCCL_HOME).
set -u
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case "${1:-}" in -h|--help) usage; exit 0 ;; "") usage >&2; exit 2 ;; esac

die2() { echo "nccl_tests_build.sh: $*" >&2; exit 2; }

# link_home DIR: the NCCL_HOME to build with, on stdout
link_home() {
    local home=$1 dir=$2 d so
    [ -f "$home/include/nccl.h" ] || die2 "NCCL_HOME=$home has no include/nccl.h (set NCCL_HOME to NCCL's or the nvidia-nccl wheel's folder)"
    for d in lib lib64; do
        if [ -e "$home/$d/libnccl.so" ]; then echo "$home"; return 0; fi
    done
    so=""
    for d in lib lib64; do
        for so in "$home/$d"/libnccl.so.[0-9]*; do [ -e "$so" ] && break 2; so=""; done
    done
    [ -n "$so" ] || die2 "NCCL_HOME=$home has no lib/libnccl.so nor lib/libnccl.so.N to link with"
    mkdir -p "$dir/lib" || exit 1
    ln -sfn "$(cd "$home/include" && pwd)" "$dir/include" &&
        ln -sf "$(readlink -f "$so")" "$dir/lib/libnccl.so" &&
        ln -sf "$(readlink -f "$so")" "$dir/lib/$(basename "$so")" || exit 1
    echo "$dir"
}

[ -n "${NCCL_HOME:-}" ] || die2 "NCCL_HOME is not set (source benchmarks/stemdl/tools/gpu_env.sh first)"
if [ "$1" = --link-only ]; then
    [ $# -eq 2 ] || die2 "--link-only takes one folder"
    link_home "$NCCL_HOME" "$2"
    exit $?
fi
src=$1
shift
[ -f "$src/Makefile" ] || die2 "$src has no Makefile: give nccl-tests' source folder"
home=$(link_home "$NCCL_HOME" "$src/build/exadl-nccl-home") || exit $?
log=$src/build/exadl-build.log
args=(NCCL_HOME="$home")
[ -n "${CUDA_HOME:-}" ] && args+=(CUDA_HOME="$CUDA_HOME")
echo "nccl_tests_build.sh: make -C $src ${args[*]} $*" >&2
if ! make -C "$src" "${args[@]}" "$@" >"$log" 2>&1; then
    echo "nccl_tests_build.sh: the build failed (all of it in $log):" >&2
    tail -n 8 "$log" >&2
    exit 1
fi
[ -x "$src/build/all_reduce_perf" ] || { echo "nccl_tests_build.sh: make succeeded but $src/build/all_reduce_perf is missing" >&2; exit 1; }
echo "$src/build/all_reduce_perf"
