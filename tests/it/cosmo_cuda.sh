#!/usr/bin/env bash
# cosmoflow --backend cuda end to end.  Everywhere: without a GPU (or in a
# build without the CUDA path) a run fails with one clear line, no crash and
# no record.  On a GPU: the small preset trains in fp32, bf16 and fp16 with
# finite losses and the record's device block (the fp16 loss gradient's
# scale: test_cosmo_cuda's mse_loss_scale_fp16); a 2-rank spatial split where two GPUs
# exist.  Where there is none these print SKIP, never PASS, and
# tools/bench_gpu.sh must say SKIPPED.  Everywhere with torch: the PyTorch
# peer's CPU bf16 bench runs on tiny (a smoke; no time is checked).
set -u
C=$EXADL_BIN/cosmoflow
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
gpus=0
command -v nvidia-smi >/dev/null 2>&1 && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# the PyTorch peer's CPU bf16 bench (what bench_cpu.sh runs), as a smoke on tiny:
# it runs, names the faster variant, says which variants this torch cannot run
py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import torch' 2>/dev/null; then
    echo "SKIP: cosmoflow_torch.py --precision bf16 on the CPU: $py cannot import torch"
elif "$py" benchmarks/cosmoflow/tools/cosmoflow_torch.py --bench --preset tiny --steps 1 --warmup 0 \
    --precision bf16 >"$T/torch-bf16.out" 2>&1 &&
    [[ "$(awk '$1 == "best_bf16:" { print $2 }' "$T/torch-bf16.out")" =~ ^(autocast|bf16_model)$ ]] &&
    grep -q "^$(awk '$1 == "best_bf16:" { b = $2 } $1 == "best_layout:" { l = $2 } END { print b "_" l }' "$T/torch-bf16.out")_median_s: " "$T/torch-bf16.out" &&
    awk '$1 == "samples_per_s:" { ok = $2 > 0 } END { exit !ok }' "$T/torch-bf16.out"; then
    echo "PASS: cosmoflow_torch.py --precision bf16 on the CPU runs tiny (faster: $(awk '$1 == "best_bf16:" { b = $2 } $1 == "best_layout:" { l = $2 } END { print b, l }' "$T/torch-bf16.out"); $(grep -c ': failed (' "$T/torch-bf16.out") variant(s) this torch cannot run, said so)"
else
    echo "FAIL: cosmoflow_torch.py --precision bf16 on the CPU: $(grep -E 'FAIL|rror' "$T/torch-bf16.out" | head -n 3)"
fi
# a GPU machine's sanitizer build (GPU=0): the GPU runs belong to the build
# that has the CUDA path (make test runs both: not twice, not as failures here)
if [ "$gpus" -gt 0 ] && [ ! -f "${EXADL_BUILD:-build}/lib/libexadl_cuda.so" ]; then
    echo "SKIP: cosmo_cuda training: this build ($(basename "${EXADL_BUILD:-build}")) has no CUDA path; the GPU runs are in the build that has it"
    exit 0
fi
if [ "$gpus" -eq 0 ]; then
    "$C" --preset tiny --backend cuda --steps 1 --warmup 0 --record "$T/none.yaml" >"$T/none.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ ! -s "$T/none.yaml" -o -n "$(grep -l 'status: failed' "$T/none.yaml" 2>/dev/null)" ] &&
        grep -q "error" "$T/none.out"; then
        echo "PASS: cosmoflow --backend cuda without a GPU fails with a clear line ($(grep error "$T/none.out" | head -n 1 | cut -c1-100))"
    else
        echo "FAIL: cosmoflow --backend cuda without a GPU: exit $rc: $(tail -n 2 "$T/none.out")"
    fi
    # the GPU benchmark: SKIPPED with its reason, exit 0, nothing built
    if benchmarks/cosmoflow/tools/bench_gpu.sh "$T/bench-build" >"$T/bench.out" 2>&1 &&
        grep -q '^SKIPPED: no NVIDIA GPU' "$T/bench.out" && [ ! -d "$T/bench-build" ]; then
        echo "PASS: cosmoflow bench_gpu.sh says SKIPPED without a GPU: $(grep '^SKIPPED' "$T/bench.out" | cut -c1-100)"
    else
        echo "FAIL: cosmoflow bench_gpu.sh without a GPU: $(tail -n 3 "$T/bench.out")"
    fi
    echo "SKIP: cosmo_cuda training: no GPU on this machine"
    exit 0
fi
for p in fp32 bf16 fp16; do
    if "$C" --preset small --backend cuda --precision "$p" --steps 3 --warmup 1 --quiet \
        --record "$T/g-$p.yaml" >"$T/g-$p.out" 2>&1 && grep -q '^status: ok' "$T/g-$p.yaml" &&
        grep -q '^device_peak_flops:' "$T/g-$p.yaml"; then
        echo "PASS: cosmoflow small trains on the GPU in $p"
    else
        echo "FAIL: cosmoflow small on the GPU in $p: $(tail -n 3 "$T/g-$p.out")"
    fi
done
if [ "$gpus" -ge 2 ]; then
    if $M -np 2 "$C" --preset small --backend cuda --spatial 2 --steps 3 --warmup 1 --quiet \
        --record "$T/g2.yaml" >"$T/g2.out" 2>&1 && grep -q '^status: ok' "$T/g2.yaml"; then
        echo "PASS: cosmoflow small splits one sample over 2 GPUs"
    else
        echo "FAIL: cosmoflow --spatial 2 on 2 GPUs: $(tail -n 3 "$T/g2.out")"
    fi
else
    echo "SKIP: cosmoflow spatial split on GPUs: $gpus GPU(s), 2 needed"
fi
