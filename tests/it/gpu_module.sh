#!/usr/bin/env bash
# The GPU path's build and its edges, without a GPU:
#   - no program needs the CUDA runtime, cuDNN, cuBLAS or NCCL to load: they
#     are in the GPU modules (build/lib/libexadl_*.so), opened only for a GPU
#     backend; with those libraries hidden from the loader, --help and the CPU
#     backends run, and the GPU backends stop with one line naming what is
#     missing;
#   - a C file that includes nccl.h finds it in NCCL_HOME when NCCL comes from
#     a Python wheel (not under CUDA_HOME), and the collectives' module links
#     the wheel's libnccl.so.2;
#   - every CUDA, NCCL, cuDNN and cuBLAS call's result is checked (or cast to
#     void on purpose);
#   - a CUDA runtime whose device count fails with a driver present (here
#     tests/support/fake_cudart.c preloaded: a driver for CUDA 12.8 under a
#     13.x runtime) makes stemdl, collectives, test_train_cuda and
#     bench_gpu.sh fail loudly, never SKIP.
# Parts that need the GPU modules or CUDA's files say SKIP where they are absent.
set -u
B=$EXADL_BUILD
# a folder of its own under EXADL_TMP: this script and gpu_module.sh / stemdl_cuda.sh /
# gpu_env_torch.sh make stand-in CUDA layouts, one of them of links to the real
# toolkit; sharing one folder, a later script wrote its empty stand-ins through those
# links into /usr/local/cuda (run by hand with one EXADL_TMP for several scripts)
T=$(mktemp -d "$EXADL_TMP/gpu_module.XXXXXX") || exit 1
S=$EXADL_BIN/stemdl
C=$EXADL_BIN/collectives
M=${EXADL_MPIRUN:-mpirun}
gpu_re='lib(cudart|cudnn|nccl|cublas|cublasLt|cuda)\.so'
cuda=${CUDA_HOME:-/usr/local/cuda}
mods=$(ls "$B"/lib/libexadl_cuda.so "$B"/lib/libexadl_coll_gpu.so 2>/dev/null)

# ---- load-time dependencies ---------------------------------------------------------------
bad=""
for p in "$EXADL_BIN"/*; do
    [ -x "$p" ] || continue
    need=$(readelf -d "$p" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -E "$gpu_re" | tr '\n' ' ')
    [ -n "$need" ] && bad="$bad $(basename "$p"): $need;"
done
if [ -z "$bad" ]; then
    echo "PASS: gpu module: no program loads a GPU library at start-up ($(ls "$EXADL_BIN" | tr '\n' ' '))"
else
    echo "FAIL: gpu module: programs that need GPU libraries to start:$bad"
fi

# ---- the programs with the GPU libraries hidden from the loader ------------------------------
if [ -z "$mods" ]; then
    echo "SKIP: gpu module: programs start with CUDA hidden: this build ($(basename "$B")) has no GPU modules"
else
    # every library the programs and the modules resolve, but the GPU ones, in
    # one directory; the loader is told to use it alone (no cache, no run paths)
    L=$T/libs
    mkdir -p "$L"
    for f in "$S" "$C" $mods; do
        ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
    done | sort -u | while read -r name path; do
        echo "$name" | grep -qE "$gpu_re" || ln -sf "$path" "$L/$name"
    done
    for m in $mods; do ln -sf "$m" "$L/$(basename "$m")"; done
    ldso=$(readelf -l "$S" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
    inhibit=$(for m in $mods; do printf '%s:' "$L/$(basename "$m")"; done)
    hidden() { "$ldso" --inhibit-cache --library-path "$L" --inhibit-rpath "${inhibit%:}" "$@"; }
    hidden "$S" --backend cuda --preset tiny --steps 1 --warmup 0 >"$T/h-cuda.out" 2>"$T/h-cuda.err"
    rc=$?
    if grep -q "no CUDA GPU\|CUDA cannot start" "$T/h-cuda.err"; then
        echo "SKIP: gpu module: programs start with CUDA hidden: the CUDA libraries are in a system directory here, they cannot be hidden"
    else
        hidden "$S" --help >"$T/h-help.out" 2>&1
        rh=$?
        hidden "$S" --preset tiny --backend cpu --steps 1 --warmup 0 --quiet >"$T/h-cpu.out" 2>&1
        rcpu=$?
        hidden "$C" --backend mpi --op allreduce -b 1K -e 4K -n 2 -w 1 >"$T/h-coll.out" 2>&1
        rcoll=$?
        hidden "$C" --backend nccl --op allreduce -b 1K -e 4K -n 2 -w 1 >"$T/h-nccl.out" 2>"$T/h-nccl.err"
        rnccl=$?
        if [ $rh -eq 0 ] && [ $rcpu -eq 0 ] && [ $rcoll -eq 0 ]; then
            echo "PASS: gpu module: with the GPU libraries hidden, stemdl --help, stemdl --backend cpu and collectives --backend mpi run"
        else
            echo "FAIL: gpu module: with the GPU libraries hidden: --help $rh, --backend cpu $rcpu ($(tail -n 1 "$T/h-cpu.out")), collectives mpi $rcoll ($(tail -n 1 "$T/h-coll.out"))"
        fi
        if [ $rc -eq 2 ] && [ "$(wc -l <"$T/h-cuda.err")" -eq 1 ] &&
            grep -q "cannot load the CUDA module libexadl_cuda.so: lib[a-zA-Z]*\.so[.0-9]*: cannot open" "$T/h-cuda.err"; then
            echo "PASS: gpu module: stemdl --backend cuda says what is missing: $(cat "$T/h-cuda.err")"
        else
            echo "FAIL: gpu module: stemdl --backend cuda with CUDA hidden: exit $rc: $(head -c 400 "$T/h-cuda.err")"
        fi
        if [ $rnccl -eq 3 ] && grep -q "cannot load the GPU module libexadl_coll_gpu.so: lib[a-zA-Z]*\.so" "$T/h-nccl.err"; then
            echo "PASS: gpu module: collectives --backend nccl says what is missing (exit 3)"
        else
            echo "FAIL: gpu module: collectives --backend nccl with CUDA hidden: exit $rnccl: $(head -c 400 "$T/h-nccl.err")"
        fi
    fi
fi

# ---- NCCL and cuDNN from a Python wheel: the includes of the C files ------------------------
if [ -z "$mods" ]; then
    echo "SKIP: gpu module: wheel layout build: runs with the build that has the GPU modules, not $(basename "$B")"
elif [ -x "$cuda/bin/nvcc" ] && [ -f "$cuda/include/nccl.h" ] && ls "$cuda"/lib64/libnccl.so.2 >/dev/null 2>&1 &&
    ls "$cuda"/include/cudnn*.h >/dev/null 2>&1; then
    # a CUDA_HOME without nccl.h and cudnn.h, and the wheel's own directories
    FC=$T/cuda
    mkdir -p "$FC/include"
    for e in "$cuda"/*; do [ "$(basename "$e")" = include ] || ln -s "$e" "$FC/$(basename "$e")"; done
    for e in "$cuda"/include/*; do
        case $(basename "$e") in nccl*.h | cudnn*.h) ;; *) ln -s "$e" "$FC/include/$(basename "$e")" ;; esac
    done
    W=$T/site-packages/nvidia
    mkdir -p "$W/cudnn/include" "$W/cudnn/lib" "$W/nccl/include" "$W/nccl/lib"
    ln -s "$cuda"/include/cudnn*.h "$W/cudnn/include/"
    ln -s "$cuda/include/nccl.h" "$W/nccl/include/"
    ln -s "$(readlink -f "$cuda/lib64/libcudnn.so.9")" "$W/cudnn/lib/libcudnn.so.9"
    ln -s "$(readlink -f "$cuda/lib64/libnccl.so.2")" "$W/nccl/lib/libnccl.so.2"
    WB=$T/wheel-build
    # one architecture: the module is host code, the point is where nccl.h and libnccl come from
    make --no-print-directory -s GPU=1 BUILD="$WB" CUDA_HOME="$FC" CUDNN_HOME="$W/cudnn" NCCL_HOME="$W/nccl" \
        CUDA_ARCH="-gencode arch=compute_80,code=sm_80" \
        "$WB/obj/benchmarks/collectives/device.o" "$WB/obj/benchmarks/collectives/coll.o" \
        "$WB/lib/libexadl_coll_gpu.so" >"$T/wheel.log" 2>&1
    rc=$?
    needed=$(readelf -d "$WB/lib/libexadl_coll_gpu.so" 2>/dev/null | grep -E 'NEEDED|RUNPATH')
    if [ $rc -eq 0 ] && echo "$needed" | grep -q 'libnccl.so.2' && echo "$needed" | grep -q "$W/nccl/lib"; then
        echo "PASS: gpu module: with NCCL and cuDNN only in wheel directories, the C files that include nccl.h compile and the module links libnccl.so.2 from NCCL_HOME"
    else
        echo "FAIL: gpu module: wheel layout build: exit $rc: $(grep -m3 -E 'error|No such' "$T/wheel.log") $needed"
    fi
else
    echo "SKIP: gpu module: wheel layout build: no nvcc, nccl.h, cudnn.h and libnccl.so.2 under $cuda to imitate a wheel with"
fi

# ---- every GPU library call is checked -----------------------------------------------------
python3 - <<'PY'
import os, re, sys
call = re.compile(r'\b(cuda|nccl|cudnn|cublas)[A-Z]\w*\(')
cond = re.compile(r'\b(if|while|for)\s*\(.*\)$')
hits, n = [], 0
for dp, dn, fn in os.walk('benchmarks'):
    for f in sorted(fn):
        if not f.endswith(('.c', '.cu', '.h')): continue
        path, prev = os.path.join(dp, f), ';'
        for i, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
            code = re.sub(r'//.*', '', line).rstrip()
            st = code.strip()
            if not st or st.startswith(('#', '*', '/*')): continue
            for m in call.finditer(code):
                n += 1
                b = code[:m.start()].rstrip()
                if b.endswith('(void)'): continue
                # a call whose value nobody takes: it starts a statement
                if (b == '' and prev[-1:] in ';{})') or b.endswith(('else', '{', ';')) or \
                        (b.endswith(')') and cond.search(b)):
                    hits.append('%s:%d: %s' % (path, i, st))
            prev = st
if hits:
    print('FAIL: gpu module: unchecked CUDA/NCCL/cuDNN/cuBLAS calls (wrap in a check, or cast to (void) saying why): '
          + '; '.join(hits))
else:
    print('PASS: gpu module: all %d CUDA/NCCL/cuDNN/cuBLAS calls in benchmarks/ are checked or cast to void' % n)
PY

# ---- a driver older than the runtime: loud, never SKIP -------------------------------------------
P=$B/lib/libexadl_fake_cudart.so
if [ -z "$mods" ] || [ ! -f "$P" ]; then
    echo "SKIP: gpu module: device count failing with a driver present: this build ($(basename "$B")) has no GPU modules"
    exit 0
fi
pre=$P${LD_PRELOAD:+:$LD_PRELOAD}
LD_PRELOAD=$pre "$S" --preset tiny --backend cuda --steps 1 --warmup 0 >"$T/d.out" 2>"$T/d.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'CUDA cannot start on .*driver supports CUDA 12.8' "$T/d.err" && ! grep -q 'no CUDA GPU' "$T/d.err"; then
    echo "PASS: gpu module: stemdl with an old driver fails loudly: $(head -n 1 "$T/d.err")"
else
    echo "FAIL: gpu module: stemdl with an old driver: exit $rc: $(head -c 300 "$T/d.err")"
fi
LD_PRELOAD=$pre "$C" --backend nccl --op allreduce -b 1K -e 1K -n 1 -w 0 >"$T/dc.out" 2>"$T/dc.err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'CUDA cannot start' "$T/dc.err"; then
    echo "PASS: gpu module: collectives --backend nccl with an old driver fails (exit 1, not 3 'unavailable')"
else
    echo "FAIL: gpu module: collectives with an old driver: exit $rc: $(head -c 300 "$T/dc.err")"
fi
if [ -x "$B/tests/test_train_cuda" ]; then
    LD_PRELOAD=$pre "$B/tests/test_train_cuda" >"$T/tc.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && grep -q '^FAIL: .*CUDA cannot start' "$T/tc.out" && ! grep -q '^SKIP: ' "$T/tc.out"; then
        echo "PASS: gpu module: test_train_cuda with an old driver FAILs its GPU tests ($(grep -c '^FAIL' "$T/tc.out") FAIL, no SKIP)"
    else
        echo "FAIL: gpu module: test_train_cuda with an old driver: exit $rc, $(grep -c '^SKIP' "$T/tc.out") SKIP, $(grep -c '^FAIL' "$T/tc.out") FAIL"
    fi
fi
# bench_gpu.sh where nvidia-smi lists a GPU that CUDA cannot use: an error
mkdir -p "$T/fakebin"
printf '#!/bin/sh\necho "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)"\n' >"$T/fakebin/nvidia-smi"
chmod +x "$T/fakebin/nvidia-smi"
PATH=$T/fakebin:$PATH LD_PRELOAD=$pre SKIP_TORCH=1 STEPS=1 WARMUP=0 \
    benchmarks/stemdl/tools/bench_gpu.sh "$B" >"$T/bg.out" 2>"$T/bg.err"
rc=$?
if [ $rc -ne 0 ] && ! grep -q '^SKIPPED' "$T/bg.out" && grep -q 'CUDA cannot start' "$T/bg.err"; then
    echo "PASS: gpu module: bench_gpu.sh with an unusable GPU fails (exit $rc), no SKIPPED"
else
    echo "FAIL: gpu module: bench_gpu.sh with an unusable GPU: exit $rc: $(tail -n 2 "$T/bg.out") $(tail -n 2 "$T/bg.err")"
fi
exit 0
