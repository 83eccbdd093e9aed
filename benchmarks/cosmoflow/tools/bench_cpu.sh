#!/usr/bin/env bash
# bench_cpu.sh: the CPU benchmark of CosmoFlow, every number measured in this
# run, side by side (nothing hard-coded).
#
#   benchmarks/cosmoflow/tools/bench_cpu.sh [BUILD_DIR]        (default: build)
#   env: PRESET (default cosmo128), STEPS (timed steps, default 3), WARMUP (1),
#        THREADS (the all-cores runs, default: online CPUs),
#        TORCH_STEPS (default 2), PYTHON (default /usr/bin/python3, Debian's
#        python3-torch), SKIP_TORCH=1, SKIP_SCALING=1
#
# Prints YAML-ish lines:
#   (a) peak:     measured peak fp32 FLOP/s, 1 thread and THREADS (peak_cpu)
#   (b) conv:     FLOP/s of the 3D convolutions of real `cosmoflow --kernels
#                 fast` runs on 1 and THREADS threads (their kernel tables:
#                 forward, data gradient, weight gradient, all), as a
#                 fraction of the peak measured with the same threads.
#                 Target >= 0.60.
#   (c) torch:    samples/s of those runs against the same network in
#                 PyTorch on the CPU (cosmoflow_torch.py, same threads, the
#                 faster of its two layouts), same preset and batch.
#                 Target >= 1.2.  The counts are compared too.
#   (d) scaling:  strong scaling of one sample from 1 to 2 ranks (one thread
#                 each, --spatial auto): efficiency T(1) / (2 T(2)), and the
#                 spatial model's prediction for 2 ranks learnt from the
#                 1-rank run and an MPI allreduce sweep (exadl model --spatial).
#   (e) ratios:   issue 29's targets, side by side in this run, on 1 and
#                 THREADS threads: cosmoflow fp32 (the runs of (b)),
#                 cosmoflow bf16 (`--precision bf16`, same steps), PyTorch
#                 fp32 (the runs of (c)) and bf16 (cosmoflow_torch.py
#                 --precision bf16: the fastest of CPU autocast and the model
#                 cast to bf16, in either layout, named) in samples/s;
#                 cosmoflow bf16 / PyTorch bf16 (target >= 1.2), cosmoflow
#                 bf16 / cosmoflow fp32 (>= 3), the 3D convolutions of the
#                 bf16 run / the bf16 peak (peak_cpu's peak_bf16 lines:
#                 the larger of its vdpbf16ps loop and oneDNN's bf16
#                 matmul, both printed; >= 0.50) and of the fp32 run / the
#                 fp32 peak (>= 0.80),
#                 each MET or MISSED and by how much.  Where peak_cpu says
#                 peak_bf16_isa: none the bf16 runs and lines are skipped and
#                 say so.  uptime before and after.
#                 peak_bf16_over_peak_fp32: the ratio of the two peaks, the
#                 most bf16 can gain over fp32 on this CPU.
# Run it on an otherwise idle machine: the load average is printed first and
# last; on a shared machine the numbers are not the code's.
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build}
bin=$build/bin
preset=${PRESET:-cosmo128}
steps=${STEPS:-3}
warmup=${WARMUP:-1}
nthreads=${THREADS:-$(getconf _NPROCESSORS_ONLN)}
tsteps=${TORCH_STEPS:-2}
py=${PYTHON:-/usr/bin/python3}
M=${EXADL_MPIRUN:-mpirun}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-cosmo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=benchmarks/stemdl/tools/bench_lib.sh
. benchmarks/stemdl/tools/bench_lib.sh
bench_cpu_build "$build" peak_cpu cosmoflow collectives exadl
export OMPI_MCA_rmaps_base_oversubscribe=1

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "n/a") printf "%.3f", a / b; else print "n/a" }'; }
# FLOP/s of the kernel rows whose kernel matches (conv3d_all: the three)
rec_rate() { # KERNEL FILE
    bench_kernel_rows "$2" | awk -v kern="$1" '
        $1 == kern || (kern == "conv3d_all" && $1 ~ /^conv3d_/) { F += $3; T += $4 }
        END { if (T > 0) printf "%.4e", F / T; else print "n/a" }'
}
run_cosmo() { # OUT NP THREADS [args...]
    local out=$1 np=$2 th=$3
    shift 3
    local cmd=("$bin/cosmoflow" --preset "$preset" --kernels fast --threads "$th" --steps "$steps"
               --warmup "$warmup" --quiet --record "$out" "$@")
    if [ "$np" = 1 ]; then "${cmd[@]}" >"$out.log" 2>&1; else $M -np "$np" "${cmd[@]}" >"$out.log" 2>&1; fi ||
        { echo "bench_cpu.sh: cosmoflow failed:" >&2; tail -n 20 "$out.log" >&2; exit 1; }
}

echo "bench_cpu:"
bench_cpu_host
echo "  preset: $preset"
bench_cpu_loadavg "the machine is not idle; the numbers are unreliable"

# ---- (a) peak ------------------------------------------------------------------------
bench_cpu_peak "$bin" "$nthreads" "$tmp"

# ---- (b) 3D convolutions against peak, 1 thread and all --------------------------------------
# (on a loaded machine OpenMP's barriers wait for preempted threads: the
# 1-thread numbers are the ones a shared machine can still measure)
run_cosmo "$tmp/fast1.yaml" 1 1
ths=(1)
[ "$nthreads" != 1 ] && { run_cosmo "$tmp/fastn.yaml" 1 "$nthreads"; ths+=("$nthreads"); }
echo "conv:"
for t in "${ths[@]}"; do
    [ "$t" = 1 ] && { rec=$tmp/fast1.yaml; pk=$p1; } || { rec=$tmp/fastn.yaml; pk=$pn; }
    echo "  - threads: $t"
    echo "    peak_flops_per_s: $pk"
    for kern in conv3d_fwd conv3d_bwd_data conv3d_bwd_weights conv3d_all; do
        r=$(rec_rate "$kern" "$rec")
        f=$(ratio "$r" "$pk")
        echo "    $kern: {flops_per_s: $r, fraction_of_peak: $f, target_0.60: $(bench_verdict "$f" 0.6)}"
    done
    echo "    step_s: $(bench_median_s "$rec")"
done

# ---- (c) against PyTorch, same threads ----------------------------------------------------------
echo "torch:"
if [ "${SKIP_TORCH:-0}" = 1 ]; then
    echo "  skipped: SKIP_TORCH=1"
elif ! "$py" -c 'import torch' 2>/dev/null; then
    echo "  skipped: \"$py cannot import torch (apt-get install python3-torch)\""
else
    "$py" benchmarks/cosmoflow/tools/cosmoflow_torch.py --preset "$preset" --count \
        --cosmoflow "$bin/cosmoflow" >"$tmp/count.txt" || true
    echo "  counts_equal: $(grep -q DIFFERENT "$tmp/count.txt" && echo no || echo yes)"
    for t in "${ths[@]}"; do
        [ "$t" = 1 ] && rec=$tmp/fast1.yaml || rec=$tmp/fastn.yaml
        "$py" benchmarks/cosmoflow/tools/cosmoflow_torch.py --preset "$preset" --bench --threads "$t" \
            --steps "$tsteps" --warmup 1 >"$tmp/torch$t.txt"
        tx=$(bench_val samples_per_s "$tmp/torch$t.txt")
        fx=$(bench_samples_per_s "$rec")
        r=$(ratio "$fx" "$tx")
        echo "  - threads: $t"
        echo "    torch: $(bench_val torch "$tmp/torch$t.txt")"
        echo "    torch_contiguous_median_s: $(bench_val contiguous_median_s "$tmp/torch$t.txt")"
        echo "    torch_channels_last_3d_median_s: $(bench_val channels_last_3d_median_s "$tmp/torch$t.txt")"
        echo "    torch_samples_per_s: $tx   # the faster layout"
        echo "    cosmoflow_samples_per_s: $fx"
        echo "    cosmoflow_over_torch: $r"
        echo "    target_1.2x: $(bench_verdict "$r" 1.2)"
    done
fi

# ---- (d) strong scaling 1 -> 2 ranks, and the model ------------------------------------------
echo "scaling:"
if [ "${SKIP_SCALING:-0}" = 1 ]; then
    echo "  skipped: SKIP_SCALING=1"
else
    mkdir -p "$tmp/run/records"
    run_cosmo "$tmp/run/records/cosmoflow-n1-r1.yaml" 1 1 --spatial auto
    run_cosmo "$tmp/run/records/cosmoflow-n2-r1.yaml" 2 1 --spatial auto
    $M -np 2 "$bin/collectives" --backend mpi --op allreduce --dtype float32 --inplace no -b 4 -e 16M \
        -f 4 --record "$tmp/run/records/allreduce-n2-r1.yaml" >"$tmp/ar.log" 2>&1 ||
        { echo "bench_cpu.sh: the allreduce sweep failed:" >&2; tail -n 5 "$tmp/ar.log" >&2; exit 1; }
    t1=$(bench_median_s "$tmp/run/records/cosmoflow-n1-r1.yaml")
    t2=$(bench_median_s "$tmp/run/records/cosmoflow-n2-r1.yaml")
    "$bin/exadl" model "$tmp/run" --spatial --scales 1,2 --out "$tmp/model" >"$tmp/model.txt" 2>&1 ||
        { echo "bench_cpu.sh: exadl model failed:" >&2; tail -n 5 "$tmp/model.txt" >&2; exit 1; }
    # the model's prediction for the configuration that ran at 2 ranks
    p2=$(awk '/^validation:/ { v = 1 } v && $1 == "ranks:" { r = $2 } v && r == 2 && $1 == "step_s:" { print $2; exit }' "$tmp/model/spatial_model.yaml")
    split=$(awk '$1 == "split:" { print $2 $3 $4; exit }' "$tmp/run/records/cosmoflow-n2-r1.yaml")
    echo "  threads_per_rank: 1"
    echo "  split_2_ranks: \"$split\""
    echo "  step_1_rank_s: $t1"
    echo "  step_2_ranks_s: $t2"
    echo "  efficiency_measured: $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", a / (2 * b) }')"
    echo "  model_step_2_ranks_s: $p2"
    echo "  efficiency_model: $(awk -v a="$t1" -v b="$p2" 'BEGIN { printf "%.3f", a / (2 * b) }')"
    echo "  model_over_measured: $(ratio "$p2" "$t2")"
    echo "  halo_s_per_step_measured: $(awk -F'[,:]+' '/kernel: halo,/ { t += $10 } END { printf "%.4g", t }' "$tmp/run/records/cosmoflow-n2-r1.yaml" | awk -v s="$steps" '{ printf "%.4g", $1 / s }')"
    echo "  halo_bytes_per_step_rank0: $(bench_val halo_bytes_per_sample "$tmp/run/records/cosmoflow-n2-r1.yaml")"
    echo "  model_links: \"$(sed -n 's/^links: //p' "$tmp/model/spatial_model.yaml" | tr -d "'\"" | cut -c1-200)\""
fi
echo "  loadavg_after: $(cut -d' ' -f1 /proc/loadavg)"

# ---- (e) issue 29's ratios: cosmoflow and PyTorch, fp32 and bf16, same run -----------
echo "ratios:"
echo "  uptime_before: \"$(uptime)\""
bench_cpu_bf16_peak "$tmp"
for t in "${ths[@]}"; do
    [ "$t" = 1 ] && { rec=$tmp/fast1.yaml; pk=$p1; pkb=$b1; } || { rec=$tmp/fastn.yaml; pk=$pn; pkb=$bn; }
    exbf=n/a convbf=n/a t32=n/a tbf=n/a tbest=n/a
    if [ "$bisa" != none ]; then
        run_cosmo "$tmp/bf16-$t.yaml" 1 "$t" --precision bf16
        exbf=$(bench_samples_per_s "$tmp/bf16-$t.yaml")
        convbf=$(rec_rate conv3d_all "$tmp/bf16-$t.yaml")
    fi
    if [ -f "$tmp/torch$t.txt" ]; then   # (c) ran PyTorch fp32
        t32=$(bench_val samples_per_s "$tmp/torch$t.txt")
        if [ "$bisa" != none ]; then
            "$py" benchmarks/cosmoflow/tools/cosmoflow_torch.py --preset "$preset" --bench --threads "$t" \
                --steps "$tsteps" --warmup 1 --precision bf16 >"$tmp/torchbf16-$t.txt"
            tbf=$(bench_val samples_per_s "$tmp/torchbf16-$t.txt")
            tbest="$(bench_val best_bf16 "$tmp/torchbf16-$t.txt") $(bench_val best_layout "$tmp/torchbf16-$t.txt")"
            failed=$(awk '/: failed \(/ { sub(/:.*/, ""); printf "%s%s", n++ ? ", " : "", $0 }' "$tmp/torchbf16-$t.txt")
            [ -n "$failed" ] && tbest="$tbest (failed in this torch: $failed)"
        fi
    fi
    bench_cpu_ratios "$t" "$(bench_samples_per_s "$rec")" "$exbf" "$t32" "$tbf" "$tbest" \
        "$(rec_rate conv3d_all "$rec")" "$pk" "$convbf" "$pkb"
done
echo "  uptime_after: \"$(uptime)\""
