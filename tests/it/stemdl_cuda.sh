#!/usr/bin/env bash
# stemdl --backend cuda end to end.
#
# Everywhere: the CUDA options are accepted at parse time (--describe), a bad
# precision is refused; without a GPU (or in a build without the CUDA path,
# like the sanitizer build) a run fails with one clear line, exit status 1 or
# 2, no crash and no record; the PyTorch model of benchmarks/stemdl counts the
# same forward conv FLOPs as stemdl (17,169,802,854,400 for gb2019); the
# Makefile links cuDNN and NCCL from a Python-wheel layout (only libcudnn.so.9
# and libnccl.so.2); bench_gpu.sh says SKIPPED where there is no GPU; with
# torch, the PyTorch peer's CPU bench runs tiny in fp32 and bf16 (a smoke, no
# time checked) and refuses fp16 on the CPU.
# On a GPU: tiny trains in fp32, bf16 and fp16 (the loss falls, the record has
# the device block), and two ranks stay in sync where two GPUs exist.  Where
# there is none these print SKIP, never PASS.
set -u
S=$EXADL_BIN/stemdl
# a folder of its own under EXADL_TMP: this script and gpu_module.sh / stemdl_cuda.sh /
# gpu_env_torch.sh make stand-in CUDA layouts, one of them of links to the real
# toolkit; sharing one folder, a later script wrote its empty stand-ins through those
# links into /usr/local/cuda (run by hand with one EXADL_TMP for several scripts)
T=$(mktemp -d "$EXADL_TMP/stemdl_cuda.XXXXXX") || exit 1
build=$(basename "${EXADL_BUILD:-build}")

# ---- parse-time acceptance ---------------------------------------------------------------
for p in fp32 tf32 bf16 fp16; do
    if "$S" --preset tiny --backend cuda --precision "$p" --describe >"$T/d.out" 2>"$T/d.err" &&
        grep -q "executed_flops_per_sample" "$T/d.out"; then
        echo "PASS: cuda precision $p accepted at parse time"
    else
        echo "FAIL: cuda precision $p: --describe exit status or output wrong: $(head -c 300 "$T/d.err")"
    fi
done
"$S" --preset tiny --backend cuda --precision fp8 --describe >/dev/null 2>"$T/p.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/p.err")" -eq 1 ] && grep -q "fp32 | tf32 | bf16 | fp16\|fp32, tf32, bf16\|fp8" "$T/p.err"; then
    echo "PASS: cuda precision fp8 refused"
else
    echo "FAIL: cuda precision fp8: exit $rc, stderr: $(head -c 300 "$T/p.err")"
fi

# ---- is there a GPU for this build? --------------------------------------------------------
echo "keep me" >"$T/old.yaml"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$S" --preset tiny --backend cuda --steps 1 --warmup 0 --quiet \
    --record "$T/probe.yaml" >"$T/probe.out" 2>"$T/probe.err"
rc=$?
gpu=1
if grep -q "built without the CUDA path" "$T/probe.err"; then
    gpu=0
    why="this build ($build) has no CUDA path"
elif grep -q "no CUDA GPU" "$T/probe.err"; then
    gpu=0
    why=$(sed -n 's/.*\(no CUDA GPU.*\)/\1/p' "$T/probe.err" | head -n 1)
fi
if [ $gpu = 0 ]; then
    lines=$(wc -l <"$T/probe.err")
    if [ $rc -ne 1 ] && [ $rc -ne 2 ]; then
        echo "FAIL: cuda without a GPU: exit status $rc, expected 1 or 2"
    elif [ "$lines" -ne 1 ]; then
        echo "FAIL: cuda without a GPU: $lines lines on stderr, expected 1: $(head -c 400 "$T/probe.err")"
    elif [ -e "$T/probe.yaml" ]; then
        echo "FAIL: cuda without a GPU: a record was written"
    else
        echo "PASS: cuda without a GPU fails with one line: $(head -n 1 "$T/probe.err")"
    fi
    case $build in
    build-san*)
        if grep -q "built without the CUDA path" "$T/probe.err"; then
            echo "PASS: the sanitizer build says it has no CUDA path"
        else
            echo "FAIL: the sanitizer build (GPU=0) should say 'built without the CUDA path': $(cat "$T/probe.err")"
        fi ;;
    esac
elif [ $rc -ne 0 ]; then
    echo "FAIL: cuda tiny run: exit status $rc: $(tail -n 3 "$T/probe.err")"
fi

# ---- the PyTorch model counts what stemdl counts -------------------------------------------
# a python3 that has torch counts on the model itself; any python3 walks the wiring's shapes
py=""
for c in python3 /usr/bin/python3; do
    command -v "$c" >/dev/null 2>&1 || continue
    "$c" -c 'import sys; sys.exit(sys.version_info < (3, 7))' 2>/dev/null || continue
    if "$c" -c 'import torch' 2>/dev/null; then py=$c; break; fi
    [ -n "$py" ] || py=$c
done
if [ -z "$py" ]; then
    echo "SKIP: torch model FLOP count: no python3 here"
else
    for preset in gb2019 bench256 small tiny; do
        if "$py" benchmarks/stemdl/tools/stemdl_torch.py --count --preset "$preset" --stemdl "$S" >"$T/torch-$preset.out" 2>&1; then
            how=$(grep -q '^torch_forward' "$T/torch-$preset.out" && echo "torch model hooks" || echo "wiring shapes, no torch here")
            echo "PASS: torch model forward conv FLOPs $preset = stemdl's $(awk '$1 == "stemdl_forward_conv_flops_per_sample:" { print $2 }' "$T/torch-$preset.out") ($how)"
        else
            echo "FAIL: torch model FLOP count $preset: $(grep -E 'FAIL|rror' "$T/torch-$preset.out" | head -n 3)"
        fi
    done
fi

# ---- the PyTorch peer's CPU bench runs fp32 and bf16 (smoke, tiny; nothing timed is checked) ----
if [ -z "$py" ] || ! "$py" -c 'import torch' 2>/dev/null; then
    echo "SKIP: stemdl_torch.py --bench --device cpu: no python3 with torch here"
else
    for prec in fp32 bf16; do
        o=$T/torch-cpu-$prec.out
        if ! "$py" benchmarks/stemdl/tools/stemdl_torch.py --bench --device cpu --preset tiny --threads 1 \
            --steps 1 --warmup 0 --precision "$prec" >"$o" 2>&1; then
            echo "FAIL: stemdl_torch.py --device cpu --precision $prec: $(grep -E 'FAIL|rror' "$o" | head -n 3)"
            continue
        fi
        best=$(awk '$1 == "torch_best:" { print $2 }' "$o")
        want='^(contiguous|channels_last)$'
        [ "$prec" = bf16 ] && want='^(autocast|bf16_model)_(contiguous|channels_last)$'
        if grep -q "^torch_precision: $prec\$" "$o" && [[ "$best" =~ $want ]] && grep -q "^${best}_median_s: " "$o" &&
            awk '$1 == "torch_samples_per_s:" { ok = $2 > 0 } END { exit !ok }' "$o"; then
            echo "PASS: stemdl_torch.py --device cpu --precision $prec runs tiny (faster variant $best$(grep -q ': failed (' "$o" && echo "; $(grep -c ': failed (' "$o") variant(s) this torch cannot run, said so"))"
        else
            echo "FAIL: stemdl_torch.py --device cpu --precision $prec: output $(head -c 300 "$o" | tr '\n' ' ')"
        fi
    done
    if "$py" benchmarks/stemdl/tools/stemdl_torch.py --bench --device cpu --preset tiny --precision fp16 >"$T/torch-cpu-fp16.out" 2>&1; then
        echo "FAIL: stemdl_torch.py --device cpu accepted --precision fp16"
    else
        echo "PASS: stemdl_torch.py --device cpu refuses --precision fp16 ($(tail -n 1 "$T/torch-cpu-fp16.out"))"
    fi
fi

# ---- the Makefile finds cuDNN and NCCL in a Python-wheel layout -----------------------------
# A build-system check, not a GPU test: the layout is made up here (an nvcc
# that only exists, headers and libraries that are empty files), so it runs
# on every machine, with CUDA or without
FC=$T/fake-cuda
W=$T/site-packages/nvidia
mkdir -p "$FC/bin" "$FC/include" "$FC/lib64" "$W/cudnn/include" "$W/cudnn/lib" "$W/nccl/include" "$W/nccl/lib"
printf '#!/bin/sh\nexit 0\n' >"$FC/bin/nvcc"
chmod +x "$FC/bin/nvcc"
: >"$W/cudnn/include/cudnn.h"
: >"$W/nccl/include/nccl.h"
: >"$W/cudnn/lib/libcudnn.so.9"
: >"$W/nccl/lib/libnccl.so.2"
make --no-print-directory -s BUILD="$T/wheel-build" CUDA_HOME="$FC" CUDNN_HOME="$W/cudnn" NCCL_HOME="$W/nccl" info >"$T/info" 2>&1
if grep -q "GPU=1" "$T/info" && grep -q "$W/cudnn/lib/libcudnn.so.9" "$T/info" &&
    grep -q "$W/nccl/lib/libnccl.so.2" "$T/info" && grep -q -- "-Wl,-rpath,$W/cudnn/lib" "$T/info"; then
    echo "PASS: Makefile links libcudnn.so.9 and libnccl.so.2 from a wheel layout (CUDNN_HOME, NCCL_HOME)"
else
    echo "FAIL: Makefile with a wheel layout: $(cat "$T/info")"
fi
make --no-print-directory -s BUILD="$T/wheel-build" GPU=0 CUDA_HOME="$FC" CUDNN_HOME="$W/cudnn" NCCL_HOME="$W/nccl" info >"$T/info0" 2>&1
if grep -q "GPU=0" "$T/info0" && grep -q "GPU_LIBS=$" "$T/info0"; then
    echo "PASS: make GPU=0 leaves the CUDA path out"
else
    echo "FAIL: make GPU=0: $(cat "$T/info0")"
fi

# ---- bench_gpu.sh without a GPU ---------------------------------------------------------------
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    if benchmarks/stemdl/tools/bench_gpu.sh "$T/bench-build" >"$T/bench.out" 2>&1 && grep -q '^SKIPPED: ' "$T/bench.out" &&
        [ ! -d "$T/bench-build" ]; then
        echo "PASS: bench_gpu.sh says SKIPPED without a GPU: $(grep '^SKIPPED' "$T/bench.out")"
    else
        echo "FAIL: bench_gpu.sh without a GPU: $(tail -n 3 "$T/bench.out")"
    fi
fi

# ---- on a GPU ---------------------------------------------------------------------------------
gpu_tests="cuda tiny trains fp32|cuda tiny trains bf16|cuda tiny trains fp16|cuda kernel timing off|cuda chunked convolutions train|cuda gradient times are device times|cuda two ranks stay in sync|cuda tuning outside the comm timeout"
if [ $gpu = 0 ]; then
    IFS='|' read -ra names <<<"$gpu_tests"
    for n in "${names[@]}"; do echo "SKIP: $n: $why"; done
    exit 0
fi

field() { awk -v k="$1:" '$1 == k { print $2; exit }' "$2"; }
for p in fp32 bf16 fp16; do
    r=$T/tiny-$p.yaml
    probe=0
    [ $p = bf16 ] && probe=1
    EXADL_PEAK_PROBE=$probe "$S" --preset tiny --backend cuda --precision $p --steps 40 --warmup 2 --quiet \
        --record "$r" >"$T/tiny-$p.out" 2>&1
    rc=$?
    trend=$(grep -o 'check: loss_trend, outcome: [a-z]*' "$r" 2>/dev/null | awk '{ print $NF }')
    status=$(field status "$r" 2>/dev/null)
    if [ $rc -ne 0 ] || [ "$status" != ok ]; then
        echo "FAIL: cuda tiny trains $p: exit $rc, status '$status': $(tail -n 3 "$T/tiny-$p.out")"
    elif [ "$trend" != pass ]; then
        echo "FAIL: cuda tiny trains $p: the loss did not fall: $(grep 'loss_trend' "$r")"
    elif ! grep -q '^device:' "$r" || ! grep -q '^precision_detail:' "$r" || ! grep -q 'memory_used_peak_bytes: [1-9]' "$r"; then
        echo "FAIL: cuda tiny trains $p: the record lacks the device or precision_detail block"
    elif [ $p = bf16 ] && ! grep -q '^device_peak_flops: [1-9]' "$r"; then
        echo "FAIL: cuda tiny trains bf16: no measured device_peak_flops in the record"
    elif [ $p = fp16 ] && ! grep -q 'kind: dynamic' "$r"; then
        echo "FAIL: cuda tiny trains fp16: no dynamic loss scaling in the record"
    else
        echo "PASS: cuda tiny trains $p (loss $(grep -A1 '^loss:' "$r" | tail -n 1 | sed 's/.*\[\([^,]*\),.*/\1/') -> falls; $(field model "$r"))"
    fi
done

EXADL_PEAK_PROBE=0 "$S" --preset tiny --backend cuda --precision bf16 --steps 5 --kernel-timing false --quiet \
    --record "$T/nokt.yaml" >"$T/nokt.out" 2>&1
if [ $? -eq 0 ] && [ "$(field status "$T/nokt.yaml")" = ok ] &&
    ! grep '{kernel: conv_fwd' "$T/nokt.yaml" | grep -qv 'time_s: 0[,}]'; then
    echo "PASS: cuda kernel timing off (no per-kernel times, step times recorded)"
else
    echo "FAIL: cuda kernel timing off: $(tail -n 3 "$T/nokt.out")"
fi

# cuDNN's 2^31-element limit, lowered so that tiny's convolutions go in
# sample chunks (batch 4: 1 to 3 samples per call)
EXADL_PEAK_PROBE=0 EXADL_CUDNN_MAX_ELEMS=10000 "$S" --preset tiny --backend cuda --precision bf16 --batch 4 \
    --steps 30 --warmup 1 --quiet --record "$T/chunk.yaml" >"$T/chunk.out" 2>&1
if [ $? -eq 0 ] && [ "$(field status "$T/chunk.yaml")" = ok ] &&
    grep -q 'check: loss_trend, outcome: pass' "$T/chunk.yaml" && grep -q '{op: [a-z_]*, x: [123]x' "$T/chunk.yaml"; then
    echo "PASS: cuda chunked convolutions train (batch 4 in calls of fewer samples, the loss falls)"
else
    echo "FAIL: cuda chunked convolutions train: $(tail -n 3 "$T/chunk.out")"
fi

# the last gradient is ready when the device made it: near the end of the
# step, not when the host had queued backward (about a third of the way)
EXADL_PEAK_PROBE=0 "$S" --preset small --backend cuda --precision bf16 --steps 3 --warmup 1 --kernel-timing false \
    --quiet --record "$T/dt.yaml" >"$T/dt.out" 2>&1
bw=$(awk '$1 == "backward_end_s:" { gsub(/[][,]/, " "); m = $2; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m; exit }' "$T/dt.yaml")
med=$(field median_s "$T/dt.yaml")
if awk -v b="$bw" -v m="$med" 'BEGIN { exit !(b != "" && m > 0 && b >= 0.6 * m && b <= 1.05 * m) }'; then
    echo "PASS: cuda gradient times are device times (last gradient at $bw s of a $med s step)"
else
    echo "FAIL: cuda gradient times are device times: last gradient at '$bw' s of a '$med' s step (expected 0.6 to 1.05 of it): $(tail -n 2 "$T/dt.out")"
fi

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${ngpu:-0}" -lt 2 ]; then
    echo "SKIP: cuda two ranks stay in sync: $ngpu GPU(s) here, two needed"
elif ! command -v "${EXADL_MPIRUN:-mpirun}" >/dev/null 2>&1; then
    echo "SKIP: cuda two ranks stay in sync: no mpirun"
else
    EXADL_PEAK_PROBE=0 "${EXADL_MPIRUN:-mpirun}" -np 2 "$S" --preset tiny --backend cuda --precision bf16 --steps 10 \
        --quiet --record "$T/np2.yaml" --dump-weights "$T/w" >"$T/np2.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || [ "$(field status "$T/np2.yaml")" != ok ]; then
        echo "FAIL: cuda two ranks stay in sync: exit $rc: $(tail -n 3 "$T/np2.out")"
    elif ! cmp -s "$T/w.0" "$T/w.1"; then
        echo "FAIL: cuda two ranks stay in sync: the dumped weights differ"
    elif ! grep -q 'nccl: [0-9]' "$T/np2.yaml"; then
        echo "FAIL: cuda two ranks stay in sync: the record names no NCCL version"
    else
        echo "PASS: cuda two ranks stay in sync (NCCL, weights identical bit for bit)"
    fi
fi
# cudnnFind runs in the tuning pass, before the engine's timeout counts: a
# timeout shorter than the search does not end the run
if [ "${ngpu:-0}" -lt 2 ] || ! command -v "${EXADL_MPIRUN:-mpirun}" >/dev/null 2>&1; then
    echo "SKIP: cuda tuning outside the comm timeout: $ngpu GPU(s) here, two needed"
else
    EXADL_PEAK_PROBE=0 EXADL_CUDNN_ALGO=find "${EXADL_MPIRUN:-mpirun}" -np 2 "$S" --preset small --backend cuda \
        --precision bf16 --steps 2 --warmup 1 --comm-timeout 1 --quiet --record "$T/tune.yaml" >"$T/tune.out" 2>&1
    rc=$?
    tune=$(field cudnn_tune_s "$T/tune.yaml")
    if [ $rc -eq 0 ] && [ "$(field status "$T/tune.yaml")" = ok ]; then
        echo "PASS: cuda tuning outside the comm timeout (cudnnFind took $tune s, --comm-timeout 1)"
    else
        echo "FAIL: cuda tuning outside the comm timeout: exit $rc: $(grep -m1 error "$T/tune.out")"
    fi
fi
