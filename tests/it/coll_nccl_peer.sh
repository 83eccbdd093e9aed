#!/usr/bin/env bash
# bench_nccl.sh and its peer, nccl-tests, without a GPU (issue 28 items 1, 5):
#   - a folder holding only libnccl.so.2 (a stub built here, as the
#     nvidia-nccl wheel ships it) cannot be linked with nccl-tests' `-lnccl`;
#     nccl_tests_build.sh's private home can, and the program needs
#     libnccl.so.2 and runs against the stub; a stand-in nccl-tests source
#     (a Makefile that links as nccl-tests' does) builds through it;
#   - with a fake nvidia-smi listing a GPU (EXADL_NVIDIA_SMI), a peer given
#     but missing is an error (exit 2, one line naming it and the fix), never
#     SKIPPED; with one listing none, SKIPPED and exit 0;
#   - both tools time alike: bench_nccl.sh gives ExaDL nccl-tests' -n as
#     --batch; collectives --batch N records batch N (not the 2 calls the
#     100-us plan makes of -n 20), and refuses a -n that is no multiple;
#   - coll_dev_sync spins (no sleep in its poll loop).
set -u
T=$EXADL_TMP
C=$EXADL_BIN/collectives
M=${EXADL_MPIRUN:-mpirun}
cc=${CC:-cc}
tool=benchmarks/collectives/tools/nccl_tests_build.sh
bench=benchmarks/collectives/tools/bench_nccl.sh

# ---- a wheel's NCCL: libnccl.so.2 only ------------------------------------------------------
W=$T/wheel/nvidia/nccl
mkdir -p "$W/include" "$W/lib" "$T/src"
printf 'int ncclGetVersion(int *version);\n' >"$W/include/nccl.h"
printf 'int ncclGetVersion(int *version) { *version = 22805; return 0; }\n' >"$T/stub.c"
"$cc" -shared -fPIC -Wl,-soname,libnccl.so.2 -o "$W/lib/libnccl.so.2" "$T/stub.c" || { echo "FAIL: nccl peer: cannot build the stub libnccl.so.2"; exit 1; }
cat >"$T/src/main.c" <<'EOF'
#include <stdio.h>
#include <nccl.h>
int main(void) { int v = 0; ncclGetVersion(&v); printf("nccl %d\n", v); return v == 22805 ? 0 : 1; }
EOF
if "$cc" -o "$T/direct" "$T/src/main.c" -I"$W/include" -L"$W/lib" -lnccl >/dev/null 2>&1; then
    echo "FAIL: nccl peer: -lnccl linked against a folder with only libnccl.so.2 (the layout does not reproduce the defect)"
else
    echo "PASS: nccl peer: -lnccl cannot link against a folder with only libnccl.so.2 (the wheel's layout, nccl-tests' link)"
fi
home=$(NCCL_HOME=$W "$tool" --link-only "$T/home" 2>"$T/link.err")
rc=$?
if [ $rc -eq 0 ] && [ -n "$home" ] && "$cc" -o "$T/linked" "$T/src/main.c" -I"$home/include" -L"$home/lib" -lnccl 2>"$T/cc.err" &&
    readelf -d "$T/linked" | grep -q 'NEEDED.*\[libnccl\.so\.2\]' &&
    [ "$(LD_LIBRARY_PATH=$W/lib "$T/linked")" = "nccl 22805" ]; then
    echo "PASS: nccl peer: nccl_tests_build.sh's private NCCL_HOME links -lnccl to the wheel's libnccl.so.2 (NEEDED libnccl.so.2, runs)"
else
    echo "FAIL: nccl peer: link through nccl_tests_build.sh --link-only: exit $rc, home '$home': $(head -c 300 "$T/link.err" "$T/cc.err" 2>/dev/null)"
fi
# a stand-in for nccl-tests' source: its Makefile links -L$(NCCL_HOME)/lib -lnccl
cat >"$T/src/Makefile" <<'EOF'
NCCL_HOME ?= /nonexistent
build/all_reduce_perf: main.c
	mkdir -p build
	$(CC) -o $@ main.c -I$(NCCL_HOME)/include -L$(NCCL_HOME)/lib -lnccl
EOF
out=$(NCCL_HOME=$W CC="$cc" "$tool" "$T/src" 2>"$T/build.err")
rc=$?
if [ $rc -eq 0 ] && [ "$out" = "$T/src/build/all_reduce_perf" ] && [ -x "$out" ]; then
    echo "PASS: nccl peer: nccl_tests_build.sh builds a -lnccl Makefile against the wheel layout and prints the program's path"
else
    echo "FAIL: nccl peer: nccl_tests_build.sh SRC: exit $rc, stdout '$out': $(tail -n 3 "$T/build.err")"
fi
NCCL_HOME=$T/nowhere "$tool" --link-only "$T/home2" >/dev/null 2>"$T/bad.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q 'nccl.h' "$T/bad.err"; then
    echo "PASS: nccl peer: an NCCL_HOME without nccl.h is one line, exit 2"
else
    echo "FAIL: nccl peer: an NCCL_HOME without nccl.h: exit $rc: $(head -c 200 "$T/bad.err")"
fi

# ---- bench_nccl.sh: the GPU probe is overridable; a missing peer where a GPU is listed ------
mkdir -p "$T/fake"
printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)"\nexit 0\n' >"$T/fake/smi-gpu"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$T/fake/smi-none"
chmod +x "$T/fake/smi-gpu" "$T/fake/smi-none"
EXADL_NVIDIA_SMI=$T/fake/smi-gpu EXADL_BIN=$EXADL_BIN "$bench" "$T/missing/all_reduce_perf" >"$T/miss.out" 2>"$T/miss.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/miss.err")" -eq 1 ] && grep -q "$T/missing/all_reduce_perf" "$T/miss.err" &&
    grep -q 'nccl_tests_build.sh' "$T/miss.err" && ! grep -q SKIPPED "$T/miss.out"; then
    echo "PASS: nccl peer: bench_nccl.sh with a GPU listed and the given all_reduce_perf missing fails (exit 2, one line naming it and the fix)"
else
    echo "FAIL: nccl peer: bench_nccl.sh, GPU listed, peer missing: exit $rc, stdout '$(head -c 200 "$T/miss.out")', stderr '$(head -c 300 "$T/miss.err")'"
fi
EXADL_NVIDIA_SMI=$T/fake/smi-none EXADL_BIN=$EXADL_BIN "$bench" "$T/missing/all_reduce_perf" >"$T/none.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^SKIPPED: no GPU' "$T/none.out"; then
    echo "PASS: nccl peer: bench_nccl.sh says SKIPPED where nvidia-smi -L lists no GPU"
else
    echo "FAIL: nccl peer: bench_nccl.sh without a GPU: exit $rc: $(head -c 200 "$T/none.out")"
fi

# ---- the same batches as nccl-tests ------------------------------------------------------------
ITERS=20 WARMUP=5 BATCHES=5 EXADL_NVIDIA_SMI=$T/fake/smi-none "$bench" --print-commands /x/all_reduce_perf >"$T/cmd.out" 2>&1
if grep -q '^nccl-tests: .*/x/all_reduce_perf .* -n 20 -w 5$' "$T/cmd.out" &&
    grep -q '^exadl: .*--backend nccl .* -n 100 --batch 20 -w 5 ' "$T/cmd.out"; then
    echo "PASS: nccl peer: bench_nccl.sh times ExaDL in batches of nccl-tests' -n (--batch 20, 5 batches, -w 5 both)"
else
    echo "FAIL: nccl peer: bench_nccl.sh --print-commands: $(cat "$T/cmd.out")"
fi
$M -np 2 "$C" --backend mpi --op allreduce -b 1K -e 2K -n 100 --batch 20 -w 5 --inplace no \
    --record "$T/b.yaml" >"$T/b.out" 2>&1
rc=$?
# the rows (after results:) say batch: 20, the config (before it) batch_calls: 20
nb=$(awk '/^results:/ { r = 1 } r && /^  batch: 20$/ { n++ } END { print n + 0 }' "$T/b.yaml" 2>/dev/null)
ns=$(awk '/^results:/ { r = 1 } r && /^  samples: 5$/ { n++ } END { print n + 0 }' "$T/b.yaml" 2>/dev/null)
nc=$(awk '/^results:/ { exit } /^  batch_calls: 20$/ { n++ } END { print n + 0 }' "$T/b.yaml" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$nb" -eq 2 ] && [ "$ns" -eq 2 ] && [ "$nc" -eq 1 ]; then
    echo "PASS: nccl peer: collectives -n 100 --batch 20 records batch 20 x 5 samples for each size (config batch_calls: 20)"
else
    echo "FAIL: nccl peer: collectives --batch 20: exit $rc, $nb rows with batch 20, $ns with 5 samples: $(tail -n 2 "$T/b.out")"
fi
"$C" --backend mpi --op allreduce -n 30 --batch 20 --check-config >/dev/null 2>"$T/nm.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/nm.err")" -eq 1 ] && grep -q -- '--batch 20' "$T/nm.err"; then
    echo "PASS: nccl peer: -n 30 --batch 20 refused in one line (exit 2)"
else
    echo "FAIL: nccl peer: -n 30 --batch 20: exit $rc: $(head -c 200 "$T/nm.err")"
fi

# ---- coll_dev_sync spins -------------------------------------------------------------------------
body=$(awk '/^void coll_dev_sync\(/ { on = 1 } on { print } on && /^}/ { exit }' benchmarks/collectives/device.c)
if [ -n "$body" ] && echo "$body" | grep -q cudaStreamQuery && ! echo "$body" | grep -qE 'nanosleep|usleep|sleep\('; then
    echo "PASS: nccl peer: coll_dev_sync spins on cudaStreamQuery (no sleep between polls, as nccl-tests)"
else
    echo "FAIL: nccl peer: coll_dev_sync sleeps between polls (or was not found in device.c)"
fi
