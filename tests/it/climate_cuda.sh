#!/usr/bin/env bash
# climate --backend cuda (docs/climate.md "CUDA"):
#   - the CUDA module defines the segmentation kernels (the dconv entry points
#     of kern_cuda_conv.cu, kern_cuda_seg.cu's table filler and device
#     kernels, kern_cuda_segew.cu's) and imports cuDNN's batch norm and group-count calls;
#   - with the CUDA module replaced by tests/support/fake_kcu.c (the
#     reference kernels in host memory), climate --backend cuda trains the
#     tiny preset: status ok, the same losses and the same counted FLOPs per
#     kernel and layer as --backend cpu --kernels reference;
#   - test_climate_cuda on the fake module: its fp32 tests PASS with error 0
#     (reference against reference: a check of the test's own buffers and
#     windows); with a runtime whose device count fails (a driver older than
#     the runtime) its tests FAIL, never SKIP;
#   - the real module without a GPU: one line naming the missing GPU (exit 2),
#     no longer a refusal of the backend;
#   - with a GPU: the small preset trains 40 steps in fp32 and its loss falls
#     (last 5 steps' mean under half the first 5's, as climate.sh's CPU run).
# Without the CUDA module or a GPU those parts say SKIP.
set -u
C=$EXADL_BIN/climate
T=$EXADL_TMP
B=$EXADL_BUILD
[ -x "$C" ] || { echo "FAIL: climate cuda: $C was not built"; exit 1; }
mod=$B/lib/libexadl_cuda.so

# ---- the module defines the kernels ---------------------------------------------------------
if [ ! -f "$mod" ]; then
    echo "SKIP: climate cuda: module symbols: this build ($(basename "$B")) has no CUDA module"
else
    defs=$(nm -C --defined-only "$mod" 2>/dev/null)
    undef=$(nm -D --undefined-only "$mod" 2>/dev/null)
    miss=""
    for s in 'kcu_fill_seg(' 'kcu_release_seg(' 'kcu_op_dconv_fwd(' 'kcu_op_dconv_bwd_data(' \
        'kcu_op_dconv_bwd_weights(' 'k_wce_partial<float>' 'k_wce_grad<float>' 'k_wce_grad<__nv_bfloat16>' \
        'k_gpool<float>' 'k_bcast<float>' 'k_inv_to_var(' 'k_var_to_inv('; do
        printf '%s\n' "$defs" | grep -qF "$s" || miss="$miss $s"
    done
    for s in cudnnBatchNormalizationForwardTraining cudnnBatchNormalizationBackward \
        cudnnSetConvolutionGroupCount cudnnDeriveBNTensorDescriptor; do
        printf '%s\n' "$undef" | grep -qw "$s" || miss="$miss $s(import)"
    done
    if [ -z "$miss" ]; then
        echo "PASS: climate cuda: libexadl_cuda.so defines the segmentation kernels and calls cuDNN's batch norm and grouped convolution"
    else
        echo "FAIL: climate cuda: libexadl_cuda.so lacks:$miss"
    fi
fi

# ---- the host side through the fake module -------------------------------------------------
F=$B/lib/libexadl_fake_kcu.so
losses() { awk '$1 == "loss:" { l = 1; next } l && $1 == "steps:" { print; exit }' "$1"; }
# kernel, layer, calls and FLOPs of the record's kernel table, one row per line
flops() {
    python3 -c 'import sys, yaml
for r in yaml.safe_load(open(sys.argv[1])).get("kernels") or []:
    print(r["kernel"], r["layer"], r["calls"], r["flops"])' "$1" | sort
}
if [ ! -f "$F" ]; then
    echo "FAIL: climate cuda: $F was not built"
else
    run=(--preset tiny --steps 3 --warmup 0 --quiet --seed 7)
    EXADL_CUDA_MODULE=$F "$C" "${run[@]}" --backend cuda --record "$T/fake.yaml" >"$T/fake.out" 2>&1
    rf=$?
    "$C" "${run[@]}" --backend cpu --kernels reference --record "$T/ref.yaml" >"$T/ref.out" 2>&1
    rr=$?
    lf=$(losses "$T/fake.yaml" 2>/dev/null)
    lr=$(losses "$T/ref.yaml" 2>/dev/null)
    if [ $rf -eq 0 ] && [ $rr -eq 0 ] && grep -q '^status: ok' "$T/fake.yaml" && [ -n "$lf" ] && [ "$lf" = "$lr" ]; then
        echo "PASS: climate cuda: the fake CUDA module trains tiny with the reference backend's losses ($lf)"
    else
        echo "FAIL: climate cuda: fake module: exit $rf (cpu $rr), losses '$lf' vs '$lr': $(tail -n 2 "$T/fake.out")"
    fi
    if ! python3 -c 'import yaml' 2>/dev/null; then
        echo "SKIP: climate cuda: counted FLOPs: no python3 yaml module to read the records with"
    elif [ $rf -eq 0 ] && [ $rr -eq 0 ] && [ -n "$(flops "$T/fake.yaml")" ] &&
        diff <(flops "$T/fake.yaml") <(flops "$T/ref.yaml") >"$T/flops.diff"; then
        echo "PASS: climate cuda: the CUDA backend counts the same FLOPs per kernel and layer as the reference ($(flops "$T/fake.yaml" | wc -l) rows)"
    else
        echo "FAIL: climate cuda: counted FLOPs differ from the reference's: $(head -c 400 "$T/flops.diff" 2>/dev/null)"
    fi
fi

# ---- the kernel test's own plumbing, and its verdict where CUDA cannot start ------------------
U=$B/tests/test_climate_cuda
mpi=$(ldd "$C" 2>/dev/null | awk '$1 ~ /^libmpi\.so/ { print $3; exit }')
if [ ! -x "$U" ] || [ ! -f "$mod" ]; then
    echo "SKIP: climate cuda: the kernel test's plumbing: this build ($(basename "$B")) has no CUDA module"
elif [ -z "$mpi" ]; then
    echo "SKIP: climate cuda: the kernel test's plumbing: climate links no libmpi to preload for the fake module"
else
    # the fake module's kernels are the reference set: fp32 must PASS with
    # error 0 (a check of the test's buffers and windows, not of CUDA); it
    # has no bf16, so those FAIL at creation and are not counted
    LD_PRELOAD=$mpi${LD_PRELOAD:+:$LD_PRELOAD} EXADL_CUDA_MODULE=$F "$U" >"$T/uf.out" 2>&1
    if [ "$(grep -c '^PASS: test_.*_fp32$' "$T/uf.out")" -eq 4 ] &&
        grep -q 'worst normwise error fp32: dconv 0, bn 0, loss/pool 0 ' "$T/uf.out"; then
        echo "PASS: climate cuda: test_climate_cuda's plumbing on the fake module: 4 fp32 tests (3 kernel families, a step) PASS with error 0"
    else
        echo "FAIL: climate cuda: test_climate_cuda on the fake module: $(grep -E '^(FAIL|#)' "$T/uf.out" | head -c 400)"
    fi
fi
P=$B/lib/libexadl_fake_cudart.so
if [ -x "$U" ] && [ -f "$mod" ] && [ -f "$P" ]; then
    LD_PRELOAD=$P${LD_PRELOAD:+:$LD_PRELOAD} "$U" >"$T/ud.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ "$(grep -c '^FAIL: .*CUDA cannot start' "$T/ud.out")" -eq 7 ] && ! grep -q '^SKIP' "$T/ud.out"; then
        echo "PASS: climate cuda: test_climate_cuda with an old driver FAILs its 7 tests, no SKIP"
    else
        echo "FAIL: climate cuda: test_climate_cuda with an old driver: exit $rc, $(grep -c '^SKIP' "$T/ud.out") SKIP"
    fi
else
    echo "SKIP: climate cuda: old-driver verdict: no CUDA module or fake runtime in this build"
fi

# ---- the real module: no GPU is one line, a GPU trains ---------------------------------------
if [ ! -f "$mod" ]; then
    echo "SKIP: climate cuda: training on a GPU: this build ($(basename "$B")) has no CUDA module"
    exit 0
fi
"$C" --preset small --backend cuda --precision fp32 --steps 40 --warmup 0 --quiet --record "$T/gpu.yaml" \
    >"$T/gpu.out" 2>"$T/gpu.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'no CUDA GPU' "$T/gpu.err"; then
    if [ "$(wc -l <"$T/gpu.err")" -eq 1 ] && ! grep -q 'does not have' "$T/gpu.err"; then
        echo "PASS: climate cuda: without a GPU --backend cuda says so in one line (exit 2): $(cut -c1-100 "$T/gpu.err")"
    else
        echo "FAIL: climate cuda: without a GPU: $(head -c 400 "$T/gpu.err")"
    fi
    echo "SKIP: climate cuda: training on a GPU: no CUDA GPU on this machine"
    exit 0
fi
steps=$(losses "$T/gpu.yaml" 2>/dev/null | tr -d '[],' | sed 's/steps://')
if [ $rc -eq 0 ] && grep -q '^status: ok' "$T/gpu.yaml" &&
    printf '%s\n' $steps | awk '{ v[NR] = $1 } END { if (NR < 10) exit 1; for (i = 1; i <= 5; i++) { a += v[i]; b += v[NR - 5 + i] } exit !(b < a / 2) }'; then
    echo "PASS: climate cuda: small trains 40 steps in fp32 on the GPU and its loss falls below half"
else
    echo "FAIL: climate cuda: small on the GPU: exit $rc, losses: $(printf '%s ' $steps | cut -c1-300) $(head -c 300 "$T/gpu.err")"
fi
exit 0
