#!/usr/bin/env bash
# bench_cpu.sh: the CPU benchmark of STEMDL's fast path, every number measured
# in this run, side by side (nothing hard-coded).
#
#   benchmarks/stemdl/tools/bench_cpu.sh [BUILD_DIR]        (default: build)
#   env: STEPS (timed fast steps, default 5), REF_STEPS (reference, default 1),
#        THREADS (the all-cores runs, default: online CPUs), SKIP_REF=1,
#        TORCH_STEPS (PyTorch's timed steps, default 3), PYTHON (default
#        /usr/bin/python3, Debian's python3-torch), SKIP_TORCH=1
#
# Prints YAML-ish lines:
#   (a) peak:      measured peak fp32 FLOP/s, 1 core and all cores (peak_cpu)
#   (b) conv:      FLOP/s of the 5x5 dense-layer convolutions of the `small`
#                  preset (down*, bottleneck*, up*) on the fast path, per
#                  kernel (forward, data gradient, weight gradient), as a
#                  fraction of the measured peak with the same thread count.
#                  Two measurements: bench_conv (the layer shapes through
#                  kern_ops, median of repetitions) and the kernels table of
#                  a real `stemdl --kernels fast` run (the same layers inside
#                  the training step).  Target: >= 0.50.
#                  bench_conv --kernels blas gives im2col + OpenBLAS on the
#                  same shapes: the library comparison.
#   (c) step:      median step time of `stemdl --preset small`, fast against
#                  reference kernels on one core (and fast on all cores).
#                  Target: fast >= 20x faster.
#   (d) ratios:    issue 29's targets, side by side in this run, on 1 and
#                  THREADS threads: ExaDL fp32 (the fast runs of (c)), ExaDL
#                  bf16 (`--precision bf16`, same steps), PyTorch fp32 and
#                  bf16 (stemdl_torch.py --bench --device cpu: the faster
#                  layout; bf16 the fastest of CPU autocast and the model
#                  cast to bf16, named) in samples/s; ExaDL bf16 / PyTorch
#                  bf16 (target >= 1.2), ExaDL bf16 / ExaDL fp32 (>= 3), the
#                  dense-layer convolutions of the bf16 run / the bf16 peak
#                  (peak_cpu's peak_bf16 lines: the larger of its vdpbf16ps
#                  loop and oneDNN's bf16 matmul, both printed; >= 0.50)
#                  and of the fp32 run
#                  / the fp32 peak (>= 0.80), each MET or MISSED and by how
#                  much.  Where peak_cpu says peak_bf16_isa: none the bf16
#                  runs and lines are skipped and say so.  uptime before
#                  and after.
#                  peak_bf16_over_peak_fp32: the ratio of the two peaks, the
#                  most bf16 can gain over fp32 on this CPU.
# Run it on an otherwise idle machine: the multi-thread numbers of a shared
# machine are meaningless (the load average is printed first).
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build}
bin=$build/bin
steps=${STEPS:-5}
ref_steps=${REF_STEPS:-1}
nthreads=${THREADS:-$(getconf _NPROCESSORS_ONLN)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-cpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=benchmarks/stemdl/tools/bench_lib.sh
. benchmarks/stemdl/tools/bench_lib.sh
bench_cpu_build "$build" peak_cpu bench_conv stemdl

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
# per-kernel FLOP/s of the dense-layer convolutions in a stemdl record
rec_conv_rate() { # KERNEL FILE
    bench_kernel_rows "$2" | awk -v kern="$1" '
        ($1 == kern || (kern == "conv_all" && $1 ~ /^conv_/)) &&
            $2 ~ /^(down|bottleneck|up)[0-9]*\.l[0-9]+$/ { F += $3; T += $4 }
        END { if (T > 0) printf "%.4e", F / T; else print "n/a" }'
}

echo "bench_cpu:"
bench_cpu_host
bench_cpu_loadavg "the machine is not idle; multi-thread numbers are unreliable"

# ---- (a) peak -----------------------------------------------------------------
bench_cpu_peak "$bin" "$nthreads" "$tmp" vector_bits

# ---- (b) 5x5 convolutions against peak -----------------------------------------
echo "conv:"
for t in 1 "$nthreads"; do
    [ "$t" = 1 ] && pk=$p1 || pk=$pn
    for k in fast blas; do
        "$bin/bench_conv" --preset small --kernels "$k" --threads "$t" --peak "$pk" >"$tmp/bc-$k-$t.txt"
    done
    echo "  - threads: $t"
    echo "    library: \"$(awk -F': ' '/^library:/ { print $2; exit }' "$tmp/bc-fast-$t.txt")\""
    echo "    compared_with: \"im2col + $(awk -F': ' '/^library:/ { print $2; exit }' "$tmp/bc-blas-$t.txt")\""
    echo "    peak_flops_per_s: $pk"
    for kern in conv_fwd conv_bwd_data conv_bwd_weights conv_all; do
        r=$(bench_val ${kern}_flops_per_s "$tmp/bc-fast-$t.txt")
        f=$(ratio "$r" "$pk")
        rb=$(bench_val ${kern}_flops_per_s "$tmp/bc-blas-$t.txt")
        echo "    $kern: {flops_per_s: $r, fraction_of_peak: $f, target_0.50: $(bench_verdict "$f" 0.5), im2col_openblas_flops_per_s: $rb, onednn_over_openblas: $(ratio "$r" "$rb")}"
    done
    if [ "$t" = "$nthreads" ] && [ "$t" = 1 ]; then break; fi
done

# ---- (c) training step: fast against reference ----------------------------------
run_stemdl() { # KERNELS THREADS STEPS WARMUP OUT [args...]
    local k=$1 th=$2 st=$3 wu=$4 out=$5
    shift 5
    "$bin/stemdl" --preset small --kernels "$k" --threads "$th" --steps "$st" --warmup "$wu" \
        --quiet --record "$out" "$@" >"$out.log" 2>&1 || { echo "bench_cpu.sh: stemdl failed:" >&2; tail -n 20 "$out.log" >&2; exit 1; }
}

run_stemdl fast 1 "$steps" 1 "$tmp/fast1.yaml"
fast1=$(bench_median_s "$tmp/fast1.yaml")
fastn=$fast1
if [ "$nthreads" != 1 ]; then
    run_stemdl fast "$nthreads" "$steps" 1 "$tmp/fastn.yaml"
    fastn=$(bench_median_s "$tmp/fastn.yaml")
fi
echo "conv_in_step:"
for t in 1 "$nthreads"; do
    [ "$t" = 1 ] && { rec=$tmp/fast1.yaml; pk=$p1; } || { rec=$tmp/fastn.yaml; pk=$pn; }
    echo "  - threads: $t"
    for kern in conv_fwd conv_bwd_data conv_bwd_weights conv_all; do
        r=$(rec_conv_rate "$kern" "$rec")
        f=$(ratio "$r" "$pk")
        echo "    $kern: {flops_per_s: $r, fraction_of_peak: $f, target_0.50: $(bench_verdict "$f" 0.5)}"
    done
    [ "$t" = "$nthreads" ] && break
done
echo "step:"
echo "  fast_1thread_step_s: $fast1"
echo "  fast_${nthreads}threads_step_s: $fastn"
if [ "${SKIP_REF:-0}" = 1 ]; then
    echo "  reference_step_s: skipped"
else
    run_stemdl reference 1 "$ref_steps" 0 "$tmp/ref.yaml"
    ref=$(bench_median_s "$tmp/ref.yaml")
    s1=$(ratio "$ref" "$fast1")
    echo "  reference_step_s: $ref"
    echo "  speedup_1thread: $s1"
    echo "  target_20x: $(bench_verdict "$s1" 20)"
    echo "  speedup_${nthreads}threads: $(ratio "$ref" "$fastn")"
fi
echo "  loadavg_after: $(cut -d' ' -f1 /proc/loadavg)"

# ---- (d) issue 29's ratios: ExaDL and PyTorch, fp32 and bf16, same run -------------
py=${PYTHON:-/usr/bin/python3}
tsteps=${TORCH_STEPS:-3}
echo "ratios:"
echo "  uptime_before: \"$(uptime)\""
bench_cpu_bf16_peak "$tmp"
have_torch=1
if [ "${SKIP_TORCH:-0}" = 1 ]; then
    have_torch=0; echo "  torch: \"skipped: SKIP_TORCH=1\""
elif ! "$py" -c 'import torch' 2>/dev/null; then
    have_torch=0; echo "  torch: \"skipped: $py cannot import torch (apt-get install python3-torch)\""
fi
batch=$(awk '$1 == "batch:" { print $2; exit }' "$tmp/fast1.yaml")
for t in 1 "$nthreads"; do
    [ "$t" = 1 ] && { rec=$tmp/fast1.yaml; pk=$p1; pkb=$b1; } || { rec=$tmp/fastn.yaml; pk=$pn; pkb=$bn; }
    exbf=n/a convbf=n/a t32=n/a tbf=n/a tbest=n/a
    if [ "$bisa" != none ]; then
        run_stemdl fast "$t" "$steps" 1 "$tmp/bf16-$t.yaml" --precision bf16
        exbf=$(bench_samples_per_s "$tmp/bf16-$t.yaml")
        convbf=$(rec_conv_rate conv_all "$tmp/bf16-$t.yaml")
    fi
    if [ "$have_torch" = 1 ]; then
        for prec in fp32 bf16; do
            [ "$prec" = bf16 ] && [ "$bisa" = none ] && continue
            "$py" benchmarks/stemdl/tools/stemdl_torch.py --bench --device cpu --preset small \
                --threads "$t" --batch "$batch" --steps "$tsteps" --warmup 1 --precision "$prec" \
                >"$tmp/torch-$prec-$t.txt" 2>"$tmp/torch-$prec-$t.err" ||
                { echo "bench_cpu.sh: stemdl_torch.py failed:" >&2; tail -n 5 "$tmp/torch-$prec-$t.err" >&2; exit 1; }
        done
        t32=$(bench_val torch_samples_per_s "$tmp/torch-fp32-$t.txt")
        if [ "$bisa" != none ]; then
            tbf=$(bench_val torch_samples_per_s "$tmp/torch-bf16-$t.txt")
            tbest=$(bench_val torch_best "$tmp/torch-bf16-$t.txt")
            failed=$(awk '/: failed \(/ { sub(/:.*/, ""); printf "%s%s", n++ ? ", " : "", $0 }' "$tmp/torch-bf16-$t.txt")
            [ -n "$failed" ] && tbest="$tbest (failed in this torch: $failed)"
        fi
    fi
    bench_cpu_ratios "$t" "$(bench_samples_per_s "$rec")" "$exbf" "$t32" "$tbf" "$tbest" \
        "$(rec_conv_rate conv_all "$rec")" "$pk" "$convbf" "$pkb"
    [ "$t" = "$nthreads" ] && break
done
echo "  uptime_after: \"$(uptime)\""
