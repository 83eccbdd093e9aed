#!/usr/bin/env bash
# gpu_session.sh: issue 28's GPU measurement plan (docs/stemdl-gpu.md, "Left
# to measure on a GPU"), cut to the limits of the GPU machine lent here:
#
#   gpu_session.sh --plan | --dry-run   print the plan and check it against
#                                       the limits (runs nothing, needs no GPU)
#   gpu_session.sh --phase NAME         run one phase: what the device tool's
#                                       `run` is given (the plan prints each
#                                       call: command, carry, timeout_s)
#   gpu_session.sh --list               the phases, one per line, in order
#
# The machine's limits (the device tool's README): one command at a time, at
# most 10 minutes each; 30 minutes of device time a session, machine starts
# and the 30 s it stays warm after each call counted in; the machine goes
# back 30 s after a call, so every call may start on a fresh, bare machine;
# at most 8 files come back from $OUT, no deeper than $OUT/a/b/file; a command
# string of at most 2,000 characters.  Hence every phase:
#   - is one self-contained call: it builds what it needs into build-gpu when
#     missing (only the programs and GPU modules it runs; for the GPU's own
#     architecture alone) and checks its inputs (a GPU, .debs where the
#     machine lacks MPI or libyaml, nccl-tests' source for nccl) first;
#   - stops its steps at 8 minutes (the plan's limit; the tool kills at 10),
#     so that its results are always packed;
#   - writes exactly two files into $OUT: PHASE.log (everything) and
#     PHASE.tar.gz (machine.txt, the benchmark outputs, records, reports);
#     elsewhere than on the GPU machine ($OUT unset) into results/gpu-session.
# The plan is in sessions of at most 25 device minutes each, the phases in
# the order of their value: session 1 is the build with the GPU tests, gb2019
# bf16 on one GPU against PyTorch and NCCL against nccl-tests; later ones the
# other precisions, CosmoFlow, the default suites and the whole test suite.
# Each estimate is made from the table in this script (the --plan printout
# says how): a phase's command over 8 minutes, a session over 25, a phase
# returning more than 8 files or deeper than $OUT/a/b/file, or a command over
# 2,000 characters makes --plan exit 1.
#
# Before, here (Debian 12): benchmarks/stemdl/tools/gpu_debs.sh .debs; and
# nccl-tests' public source (github NVIDIA/nccl-tests) copied to
# .device/nccl-tests (both git-ignored: the calls carry them).
# Exit status: --phase 0 when every step passed (or SKIPPED without a GPU),
# 1 when a step failed or ran out of time, 2 for bad input (an unknown phase,
# a missing input); --plan 0 within the limits, 1 not, 2 bad input.
# Environment: OUT; BUILD (build-gpu); JOBS (nproc); DEBS (.debs);
# NCCL_TESTS (.device/nccl-tests).  For --plan: GPU_SESSION_START_S (machine
# start and transfers of a call, 120), GPU_SESSION_IDLE_S (30),
# GPU_SESSION_RUN_S_<phase> and GPU_SESSION_BUILD_S_<phase> (a phase's
# estimates, seconds), GPU_SESSION_FILES_<phase> (the files it returns),
# GPU_SESSION_SESSION_<phase> (its session); <phase> with '-' as '_'.  For
# --phase: GPU_SESSION_STEPS=echo logs each step instead of running it (the
# inputs are still checked: tests/it/gpu_session_plan.sh walks every phase so).
# shellcheck disable=SC2317 # the phases' functions are called by name (run_PHASE)
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
self=tests/manual/gpu_session.sh

# ---- the device tool's limits, and the plan's own -------------------------------------------
LIMIT_PHASE_S=480      # a phase's command: 8 minutes (the tool stops a command at 10)
LIMIT_SESSION_S=1500   # a session's calls: 25 of its 30 device minutes
LIMIT_FILES=8          # files back from $OUT
LIMIT_DEPTH=2          # folders down: $OUT/a/b/file comes back, $OUT/a/b/c/file does not
LIMIT_CMD_CHARS=2000   # the run tool's command string
RUN_TIMEOUT_S=600      # the run call's timeout_s: the tool's most; the phase stops itself at 480

# ---- estimates ---------------------------------------------------------------------------------
# A call's device time = start + the phase's command (build + run + packing) + idle.
#   start: a cold machine's start and the working tree's transfer (.debs: 27 MB).
#     The tool's README says "a minute or more"; 120 s is taken (no reading here).
#   idle: the 30 s the machine stays warm after the call, counted as device time.
# Builds (BUILD_S): a fresh machine (every call may start on one), 16 cores, the
#   GPU's own architecture only, from the CPU seconds of this repository's
#   objects measured here (see BUILD_EST): C + half of nvcc's (one of its three
#   architectures) over 8 cores (half of 16: make's order, links), at least the
#   longest nvcc file, doubled for an unknown machine, plus 20 s for unpacking
#   .debs and finding the toolkit.
# Runs (RUN_S): no part has run on a GPU yet; from issue 28's estimates of the
#   old phases (stemdl 12-15 min for three precisions; cosmoflow 7-10 min for
#   three precisions of two batches; the GPU and CPU default suites 12-16 min),
#   each taken at its upper end and divided as the phase divides the work.
PACK_S=10
start_s=${GPU_SESSION_START_S:-120}
idle_s=${GPU_SESSION_IDLE_S:-30}

# build sets: the make goals (in BUILD) and the cold build's estimate, seconds
declare -A BUILD_GOALS=(
    [all]="all"
    [stemdl]="bin/stemdl lib/libexadl_cuda.so"
    [coll]="bin/collectives lib/libexadl_coll_gpu.so"
    [cosmo]="bin/cosmoflow lib/libexadl_cuda.so"
    [progs]="programs"
)
# CPU seconds measured here (2026-11-26, Xeon with avx512_bf16, gcc 12.2, nvcc
# 13.0, GPU=1 with the three default architectures; /usr/bin/time per compile,
# so the machine's load does not count): all 108 (C and links 60, nvcc 48,
# longest file kern_cuda_ew.cu 6.1); stemdl and its module 56 (nvcc 46);
# collectives and its module 6 (nvcc 2.2); cosmoflow and its module 58 (nvcc
# 46); the programs and modules without the unit tests 86 (nvcc 48).
# all: 2 x max(6.1, (60 + 48/2) / 8) + 20 = 41 -> 45; stemdl, cosmo: 2 x 6.1 +
# 20 = 32 -> 35; coll: 2 x 2.2 + 20 = 24 -> 25; progs: 2 x (38 + 24) / 8 + 20 = 36 -> 40.
declare -A BUILD_EST=([all]=45 [stemdl]=35 [coll]=25 [cosmo]=35 [progs]=40)

# phase: session, build set, run estimate (s), how the run estimate is made, carried paths
PHASES=(build-tests stemdl-bf16 nccl stemdl-tf32 stemdl-fp16 cosmoflow-bf16 cosmoflow-tf32
        cosmoflow-fp32 suite-gpu suite-cpu all-tests)
declare -A SESSION=(
    [build-tests]=1 [stemdl-bf16]=1 [nccl]=1
    [stemdl-tf32]=2 [stemdl-fp16]=2 [cosmoflow-bf16]=2
    [cosmoflow-tf32]=3 [cosmoflow-fp32]=3 [suite-gpu]=3
    [suite-cpu]=4 [all-tests]=4)
declare -A BUILDSET=(
    [build-tests]=all [stemdl-bf16]=stemdl [nccl]=coll [stemdl-tf32]=stemdl [stemdl-fp16]=stemdl
    [cosmoflow-bf16]=cosmo [cosmoflow-tf32]=cosmo [cosmoflow-fp32]=cosmo
    [suite-gpu]=progs [suite-cpu]=progs [all-tests]=all)
declare -A RUN_EST=(
    [build-tests]=240 [stemdl-bf16]=300 [nccl]=150 [stemdl-tf32]=300 [stemdl-fp16]=300
    [cosmoflow-bf16]=200 [cosmoflow-tf32]=200 [cosmoflow-fp32]=200
    [suite-gpu]=320 [suite-cpu]=320 [all-tests]=360)
declare -A HOW=(
    [build-tests]="3 CUDA unit tests + 5 GPU integration tests (tests/run.sh, EXADL_TESTS): 88 s here without a GPU (2 cores, load 17); the GPU parts never ran: 4 min allowed"
    [stemdl-bf16]="issue 28: stemdl, 3 precisions, 12-15 min -> 15/3 min (2 tuned runs + PyTorch)"
    [nccl]="nccl-tests' build, 1 arch (3 min 14 s on 2 cores here -> ~60 s on 16) + 2 sweeps 1M-1G + probe"
    [stemdl-tf32]="as stemdl-bf16: 15/3 min"
    [stemdl-fp16]="as stemdl-bf16: 15/3 min"
    [cosmoflow-bf16]="issue 28: cosmoflow 7-10 min for 3 precisions x 2 batches -> 10/3 min (batches 1, 8)"
    [cosmoflow-tf32]="as cosmoflow-bf16: 10/3 min"
    [cosmoflow-fp32]="as cosmoflow-bf16: 10/3 min"
    [suite-gpu]="issue 28: GPU + CPU default suites 12-16 min -> 16/2 min, run with 2 repetitions of the default 3: x 2/3"
    [suite-cpu]="as suite-gpu: 16/2 min x 2/3 (2 repetitions)"
    [all-tests]="tests/run.sh build-gpu: CI's ~15 min for two builds on 2 cores -> one build, faster cores: 6 min")
declare -A CARRY=([nccl]=".debs .device")   # the others: .debs

key() { echo "${1//-/_}"; }
# a phase's value, an environment override GPU_SESSION_<WHAT>_<phase> first
est() { # WHAT PHASE DEFAULT
    local v
    v="GPU_SESSION_${1}_$(key "$2")"
    echo "${!v-$3}"
}
phase_files() { est FILES "$1" "$1.log $1.tar.gz"; }
phase_carry() { local c=${CARRY[$1]:-.debs}; echo "$c"; }
phase_command() { echo "$self --phase $1"; }
known_phase() { local p; for p in "${PHASES[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }
is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ ${#1} -le 6 ]; }

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; /^# shellcheck/d; s/^# \{0,1\}//'; }

# ---- --plan --------------------------------------------------------------------------------------
plan() {
    local bad=0 p s f n depth b r ph call cmd carry json total_all=0
    for v in start_s idle_s; do
        is_uint "${!v}" || { echo "gpu_session.sh: GPU_SESSION_${v^^}: '${!v}' is not a number of seconds" >&2; return 2; }
    done
    echo "gpu_session.sh plan: each phase is one call of the device tool's run (a fresh machine"
    echo "assumed: it goes back 30 s after a call); estimates from the table in $self:"
    echo "  call = start ${start_s} s (machine start + transfers) + build + run + pack ${PACK_S} s + idle ${idle_s} s"
    echo "  build: cold, 16 cores, the GPU's own architecture: 2 x (CPU seconds measured here, nvcc's halved) / 8"
    echo "    (at least the longest file) + 20 s for .debs"
    echo "  run: from issue 28's estimates of the old phases, upper end, divided as the phase divides the work"
    echo "limits: phase command <= ${LIMIT_PHASE_S} s, session <= ${LIMIT_SESSION_S} s (25 of 30 min),"
    echo "  <= ${LIMIT_FILES} files back, <= ${LIMIT_DEPTH} folders down, command <= ${LIMIT_CMD_CHARS} characters"
    # every phase complete in the table, and a function to run it (a typo costs a device call)
    for p in "${PHASES[@]}"; do
        if [ -z "${SESSION[$p]:-}" ] || [ -z "${BUILDSET[$p]:-}" ] || [ -z "${RUN_EST[$p]:-}" ] ||
            [ -z "${HOW[$p]:-}" ] || [ -z "${BUILD_EST[${BUILDSET[$p]:-none}]:-}" ] || ! declare -F "run_${p//-/_}" >/dev/null; then
            echo "REFUSED: $p: its row of the table (session, build set, estimates, how) or run_${p//-/_} is missing"
            bad=1
            return 1
        fi
    done
    local sess
    for sess in 1 2 3 4 5 6 7 8 9; do
        local total=0 any=0
        for p in "${PHASES[@]}"; do
            s=$(est SESSION "$p" "${SESSION[$p]}")
            [ "$s" = "$sess" ] || continue
            if [ $any = 0 ]; then echo; echo "session $sess:"; any=1; fi
            b=$(est BUILD_S "$p" "${BUILD_EST[${BUILDSET[$p]}]}")
            r=$(est RUN_S "$p" "${RUN_EST[$p]}")
            if ! is_uint "$b" || ! is_uint "$r"; then
                echo "gpu_session.sh: $p: estimates must be whole seconds (build '$b', run '$r')" >&2
                return 2
            fi
            ph=$((b + r + PACK_S))
            call=$((start_s + ph + idle_s))
            total=$((total + call))
            cmd=$(phase_command "$p")
            carry=$(phase_carry "$p")
            # shellcheck disable=SC2086 # one word per carried path
            json=$(printf '"%s",' $carry)
            echo "  $p"
            echo "    run: {command: \"$cmd\", carry: [${json%,}], timeout_s: $RUN_TIMEOUT_S}"
            echo "    estimate: build ${b} s (${BUILDSET[$p]}: ${BUILD_GOALS[${BUILDSET[$p]}]}) + run ${r} s + pack ${PACK_S} s = ${ph} s; call ${call} s; session so far ${total} s"
            echo "    run estimate: ${HOW[$p]}"
            n=0 depth=0
            local list=""
            for f in $(phase_files "$p"); do
                n=$((n + 1))
                d=$(tr -cd '/' <<<"$f" | wc -c)
                [ "$d" -gt "$depth" ] && depth=$d
                list="$list \$OUT/$f"
                case $f in /* | *..* | */ | *[!A-Za-z0-9._/-]*)
                    echo "    REFUSED: $f is not a plain relative name under \$OUT"; bad=1 ;;
                esac
            done
            echo "    returns: $n file(s), $depth folder(s) down:$list"
            if [ "$ph" -gt "$LIMIT_PHASE_S" ]; then echo "    REFUSED: the command's ${ph} s exceed ${LIMIT_PHASE_S} s"; bad=1; fi
            if [ "$n" -gt "$LIMIT_FILES" ]; then echo "    REFUSED: $n files exceed the ${LIMIT_FILES} that come back"; bad=1; fi
            if [ "$n" -eq 0 ]; then echo "    REFUSED: no file comes back"; bad=1; fi
            if [ "$depth" -gt "$LIMIT_DEPTH" ]; then echo "    REFUSED: $depth folders down exceed ${LIMIT_DEPTH}"; bad=1; fi
            if [ "${#cmd}" -gt "$LIMIT_CMD_CHARS" ]; then echo "    REFUSED: the command has ${#cmd} characters (> ${LIMIT_CMD_CHARS})"; bad=1; fi
        done
        [ $any = 1 ] || continue
        total_all=$((total_all + total))
        echo "  device time: ${total} s of ${LIMIT_SESSION_S} s ($((total / 60)) min $((total % 60)) s of 25 min)"
        if [ "$total" -gt "$LIMIT_SESSION_S" ]; then echo "  REFUSED: session $sess exceeds ${LIMIT_SESSION_S} s"; bad=1; fi
    done
    for p in "${PHASES[@]}"; do
        s=$(est SESSION "$p" "${SESSION[$p]}")
        case $s in [1-9]) ;; *) echo "REFUSED: $p: session '$s' is not 1-9"; bad=1 ;; esac
    done
    echo
    echo "all sessions: ${total_all} s of device time; session 1 is the first session's plan, its phases in this order"
    if [ $bad = 1 ]; then echo "plan: REFUSED (above)"; return 1; fi
    echo "plan: within the limits"
}

# ---- --phase ----------------------------------------------------------------------------------
phase_main() {
    local phase=$1
    out=${OUT:-$root/results/gpu-session}
    build=${BUILD:-build-gpu}
    jobs=${JOBS:-$(nproc)}
    mkdir -p "$out" || exit 1
    log=$out/$phase.log
    : >"$log" || exit 1
    work=$(mktemp -d "${TMPDIR:-/tmp}/exadl-gpu-session.XXXXXX") || exit 1
    res=$work/$phase
    mkdir -p "$res"
    t_begin=$SECONDS
    deadline=$((SECONDS + LIMIT_PHASE_S - PACK_S))
    failed=0
    say "gpu_session.sh --phase $phase: $(date -u +%FT%TZ) on $(hostname), commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    say "  results: $log and $out/$phase.tar.gz; steps stop at ${LIMIT_PHASE_S} s"
    if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
        say "SKIPPED: no GPU on $(hostname) (nvidia-smi -L lists none): gpu_session.sh --phase is for a GPU machine"
        pack
        exit 0
    fi
    inputs "$phase" || { pack; exit 2; }
    machine >"$res/machine.txt" 2>&1
    cat "$res/machine.txt" >>"$log"
    build_set "${BUILDSET[$phase]}" || { pack; exit 1; }
    "run_${phase//-/_}"
    say "== $phase: $([ $failed = 0 ] && echo passed || echo FAILED) after $((SECONDS - t_begin)) s (the plan's estimate: $((BUILD_EST[${BUILDSET[$phase]}] + RUN_EST[$phase] + PACK_S)) s)"
    pack
    exit $failed
}

say() { echo "$*" | tee -a "$log"; }

inputs() { # PHASE: the carried inputs, the toolchain
    export DEBS=${DEBS:-$root/.debs}
    if { ! command -v mpicc >/dev/null || [ ! -f /usr/include/yaml.h ]; } && [ ! -d "$DEBS" ]; then
        say "gpu_session.sh: this machine lacks MPI or libyaml and $DEBS is missing: run benchmarks/stemdl/tools/gpu_debs.sh .debs here, then carry .debs"
        return 1
    fi
    [ -d "$DEBS" ] && DEBS=$(cd "$DEBS" && pwd)
    # shellcheck source=benchmarks/stemdl/tools/gpu_env.sh
    . benchmarks/stemdl/tools/gpu_env.sh >>"$log" 2>&1 || { say "gpu_session.sh: gpu_env.sh found no CUDA, cuDNN or NCCL (above in $log)"; return 1; }
    # what every phase runs besides the toolkit (make: in .debs where the image lacks it)
    local t missing=""
    for t in make gcc g++ tar gzip timeout python3 lscpu; do command -v "$t" >/dev/null || missing="$missing $t"; done
    if [ -n "$missing" ]; then
        say "gpu_session.sh: this machine lacks:$missing (make comes in .debs: gpu_debs.sh .debs again, then carry it)"
        return 1
    fi
    nccl_tests=${NCCL_TESTS:-$root/.device/nccl-tests}
    if [ "$1" = nccl ] && [ ! -f "$nccl_tests/src/Makefile" ]; then
        say "gpu_session.sh: nccl: $nccl_tests/src/Makefile is missing: copy nccl-tests' source to .device/nccl-tests here and carry .device"
        return 1
    fi
    # one architecture, the GPU's own: the default three take three times the device compile
    local cc
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
    case $cc in '' | *[!0-9]*) say "gpu_session.sh: nvidia-smi gives no compute capability ('$cc')"; return 1 ;; esac
    gpu_cc=$cc
    export CUDA_ARCH="-gencode arch=compute_$cc,code=sm_$cc"
    # STRICT=nvcc: nvcc's own warnings stay errors; the image's gcc is newer than the one the
    # project is checked with, and a new warning of it must not cost the call (issue 28 item 9).
    # Exported too, for the makes that bench_gpu.sh and the tests run.
    export STRICT=nvcc
    makevars=(BUILD="$build" GPU=1 STRICT=nvcc CUDA_HOME="$CUDA_HOME" CUDNN_HOME="$CUDNN_HOME"
              NCCL_HOME="$NCCL_HOME" CUDA_ARCH="$CUDA_ARCH" "${EXADL_MAKEVARS[@]}")
}

machine() {
    echo "host: $(hostname)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm --format=csv
    "$CUDA_HOME/bin/nvcc" --version | tail -n 2
    echo "host compiler: $(g++ --version | head -n 1)"
    echo "CUDNN_HOME=$CUDNN_HOME"; echo "NCCL_HOME=$NCCL_HOME"
    grep -h -E '#define (CUDNN_MAJOR|CUDNN_MINOR|CUDNN_PATCHLEVEL) ' "$CUDNN_HOME"/include/cudnn_version*.h 2>/dev/null | awk '!seen[$0]++'
    grep -h -E '#define (NCCL_MAJOR|NCCL_MINOR|NCCL_PATCH) ' "$NCCL_HOME/include/nccl.h" 2>/dev/null
    lscpu | grep -E '^(Model name|CPU\(s\)):'
}

step() { # NAME CMD...: CMD's output into the log, within the phase's time left
    local name=$1; shift
    local left=$((deadline - SECONDS))
    if [ $left -lt 15 ]; then
        say "== $name: not started: the phase's ${LIMIT_PHASE_S} s are spent"
        failed=1
        return 1
    fi
    if [ "${GPU_SESSION_STEPS:-run}" = echo ]; then say "== $name: (echo) $*"; return 0; fi
    say "== $name: $*"
    local t0=$SECONDS
    timeout -k 10 "$left" "$@" >>"$log" 2>&1
    local rc=$?
    [ $rc = 124 ] && say "== $name: stopped at the phase's ${LIMIT_PHASE_S} s"
    say "== $name: exit $rc after $((SECONDS - t0)) s"
    [ $rc = 0 ] || failed=1
    return $rc
}

build_set() { # SET: make the set's goals in BUILD; up to date ones cost nothing
    local goals=() g
    for g in ${BUILD_GOALS[$1]}; do
        case $g in
            all) goals+=(all) ;;
            programs)
                local p
                for p in $(make --no-print-directory -s "${makevars[@]}" info | sed -n 's/^PROGRAMS=//p'); do goals+=("$build/bin/$p"); done
                for p in $(make --no-print-directory -s "${makevars[@]}" info | sed -n 's/^GPU_MODULES=//p'); do goals+=("$p"); done ;;
            *) goals+=("$build/$g") ;;
        esac
    done
    step "build ($1)" make --no-print-directory -j"$jobs" "${makevars[@]}" "${goals[@]}" || return 1
    make --no-print-directory -s "${makevars[@]}" info >>"$log" 2>&1
}

# ---- the phases ---------------------------------------------------------------------------------
GPU_TESTS="test_train_cuda test_cosmo_cuda test_climate_cuda stemdl_cuda cosmo_cuda climate_cuda coll_gpu gpu_module"
run_build_tests() {
    EXADL_TESTS=$GPU_TESTS step gpu-tests tests/run.sh "$build"
    # on a GPU machine a GPU test that says SKIP for want of a GPU or of the CUDA module is
    # a defect (issue 10); the two-GPU parts and the MPI that is not CUDA-aware say why
    grep -E '^SKIP' "$log" | sort | uniq -c | tee -a "$log" >"$res/skips.txt"
    if grep -q -i -E '^SKIP: .*(no CUDA GPU|no GPU on|no NVIDIA GPU|no CUDA module|no GPU modules)' "$log"; then
        say "== build-tests: a GPU test said SKIP for want of a GPU or the CUDA module on a GPU machine (skips.txt): FAILED"
        failed=1
    fi
    grep -E '^(FAIL|[0-9]+ passed, [0-9]+ failed)' "$log" | tee "$res/summary.txt"
}

stemdl() { # PRECISION
    PRECISION=$1 step "stemdl-$1" benchmarks/stemdl/tools/bench_gpu.sh "$build"
    sed -n '/^== stemdl-'"$1"': benchmarks/,/^== stemdl-'"$1"': exit/p' "$log" >"$res/bench_gpu-$1.yaml"
    grep -E 'fraction_of_measured_peak|exadl_over_torch|executed_tflops|samples_per_s' "$res/bench_gpu-$1.yaml"
}
run_stemdl_bf16() { stemdl bf16; }
run_stemdl_tf32() { stemdl tf32; }
run_stemdl_fp16() { stemdl fp16; }

cosmoflow() { # PRECISION
    PRECISIONS=$1 BATCHES="1 8" step "cosmoflow-$1" benchmarks/cosmoflow/tools/bench_gpu.sh "$build"
    sed -n '/^== cosmoflow-'"$1"': benchmarks/,/^== cosmoflow-'"$1"': exit/p' "$log" >"$res/bench_gpu-$1.yaml"
    grep -E '^  - \{precision' "$res/bench_gpu-$1.yaml"
}
run_cosmoflow_bf16() { cosmoflow bf16; }
run_cosmoflow_tf32() { cosmoflow tf32; }
run_cosmoflow_fp32() { cosmoflow fp32; }

run_nccl() {
    # nccl-tests links -lnccl and the wheels ship only libnccl.so.2: nccl_tests_build.sh
    # builds it against a private NCCL_HOME that names the wheel's library so
    step nccl-tests env CUDA_HOME="$CUDA_HOME" NCCL_HOME="$NCCL_HOME" \
        benchmarks/collectives/tools/nccl_tests_build.sh "$nccl_tests" -j"$jobs" \
        NVCC_GENCODE="-gencode=arch=compute_$gpu_cc,code=sm_$gpu_cc" || return
    step bench_nccl env EXADL_BIN="$build/bin" benchmarks/collectives/tools/bench_nccl.sh "$nccl_tests/build/all_reduce_perf"
    sed -n '/^== bench_nccl: env/,/^== bench_nccl: exit/p' "$log" >"$res/bench_nccl.txt"
    grep -E 'within|SKIPPED|busbw|algbw' "$res/bench_nccl.txt" | tail -n 20
}

# the default suite as fitted to this machine (KIND: gpu or cpu), with 2 launches per
# scale instead of 3 so that it fits one call; its run folder and report are packed
suite() { # KIND
    local y=$res/$1-suite.yaml
    if [ "${GPU_SESSION_STEPS:-run}" = echo ]; then
        printf 'repetitions: 3\n' >"$y.default"
    else
        "$build/bin/exadl" suite "--$1" >"$y.default" 2>>"$log" || { say "== $1-suite: exadl suite --$1 failed"; failed=1; return; }
    fi
    sed 's/^repetitions: 3\b/repetitions: 2/' "$y.default" >"$y"
    if ! grep -q '^repetitions: 2' "$y"; then say "== $1-suite: the default suite has no 'repetitions: 3' line to lower"; failed=1; return; fi
    step "$1-suite" "$build/bin/exadl" run "$y" --out "$res/runs"
    grep -E '^(benchmark|stemdl|cosmoflow|collectives|report|FAIL|error)' "$log" | tail -n 20
}
run_suite_gpu() { suite gpu; }
run_suite_cpu() { suite cpu; }

run_all_tests() {
    step all-tests tests/run.sh "$build"
    grep -E '^(FAIL|[0-9]+ passed, [0-9]+ failed)' "$log" | tee "$res/summary.txt"
}

# $OUT gets PHASE.tar.gz beside PHASE.log: nothing else, and never more than the tool takes
pack() {
    local tgz=$out/$phase.tar.gz
    [ -n "${res:-}" ] && [ -d "$res" ] || { res=$(mktemp -d)/$phase; mkdir -p "$res"; }
    tar -C "$(dirname "$res")" -czf "$tgz" "$phase" 2>>"$log"
    # 16 MiB a file: past that, again without any file over 1 MiB (named in the log)
    if [ "$(stat -c %s "$tgz")" -gt $((15 * 1024 * 1024)) ]; then
        say "gpu_session.sh: $tgz over 15 MiB: packed again without these files:"
        find "$res" -type f -size +1M | tee -a "$log"
        tar -C "$(dirname "$res")" -czf "$tgz" --exclude-from=<(find "$res" -type f -size +1M) "$phase" 2>>"$log"
    fi
    local n
    n=$(find "$out" -type f | wc -l)
    [ "$n" -le "$LIMIT_FILES" ] || say "gpu_session.sh: WARNING: $out holds $n files; $LIMIT_FILES come back"
    rm -rf "${work:-/nonexistent}"
}

# ---- command line -------------------------------------------------------------------------------
[ $# -gt 0 ] || { usage >&2; exit 2; }
case "$1" in
    -h | --help) usage; exit 0 ;;
    --plan | --dry-run) [ $# = 1 ] || { echo "gpu_session.sh: $1 takes no operand" >&2; exit 2; }; plan; exit $? ;;
    --list) printf '%s\n' "${PHASES[@]}"; exit 0 ;;
    --phase)
        [ $# = 2 ] || { echo "gpu_session.sh: --phase takes one phase name (--list)" >&2; exit 2; }
        known_phase "$2" || { echo "gpu_session.sh: unknown phase '$2' (--list: ${PHASES[*]})" >&2; exit 2; }
        phase_main "$2" ;;
    *) echo "gpu_session.sh: unknown option '$1' (--plan, --dry-run, --phase NAME, --list, --help)" >&2; exit 2 ;;
esac
