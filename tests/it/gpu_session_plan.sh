#!/usr/bin/env bash
# tests/manual/gpu_session.sh's plan against the GPU machine's limits (issue 28
# items 2-4), without a GPU: the dry run (--plan, --dry-run) prints every
# phase with its device-tool call, estimate and returned files; this test
# reads that printout and checks it itself: each phase's command within 8
# minutes and 2,000 characters, each session within 25 minutes, at most 8
# files back per phase, none deeper than $OUT/a/b/file, every phase planned,
# session 1 ordered by value (build + GPU tests, gb2019 bf16, NCCL).  A plan
# made to break a limit through the environment (a phase's estimate, its
# files, a session) is refused, exit 1.  A phase run here (a stand-in
# nvidia-smi: no GPU, or a GPU with an input missing, or every phase with its
# steps echoed) leaves exactly its log and its tarball in $OUT.
set -u
cd "$(dirname "$0")/../.." || exit 1
S=tests/manual/gpu_session.sh
T=$(mktemp -d "${EXADL_TMP:-/tmp}/gpu-plan.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS: gpu_session plan: $*"; }
fail() { echo "FAIL: gpu_session plan: $*"; }

bash "$S" --plan >"$T/plan" 2>"$T/plan.err"
rc=$?
bash "$S" --dry-run >"$T/dry" 2>&1
if [ $rc = 0 ] && grep -q '^session 1:' "$T/plan" && cmp -s "$T/plan" "$T/dry"; then
    pass "--plan exits 0 and --dry-run prints the same"
else
    fail "--plan: exit $rc: $(head -c 300 "$T/plan.err" "$T/plan" | tr '\n' ' ')"
fi

# ---- the printout, read here: one line per phase ---------------------------------------------
# phase session command_chars phase_s call_s files depth
awk '
    /^session [0-9]+:/ { s = $2; sub(/:/, "", s) }
    /^  [a-z0-9-]+$/ { p = $1; order[++n] = p; sess[p] = s }
    /^    run: \{command: "/ { c = $0; sub(/^    run: \{command: "/, "", c); sub(/", carry:.*/, "", c); cmd[p] = c }
    /^    estimate: / { if (match($0, /= [0-9]+ s; call [0-9]+ s/)) { split(substr($0, RSTART, RLENGTH), a, " "); ph[p] = a[2]; call[p] = a[5] } }
    /^    returns: / { nf = 0; dp = 0
        for (i = 1; i <= NF; i++) if ($i ~ /^\$OUT\//) { nf++; d = gsub(/\//, "/", $i) - 1; if (d > dp) dp = d }
        files[p] = nf; depth[p] = dp }
    END { for (i = 1; i <= n; i++) { q = order[i]
        printf "%s %s %d %s %s %s %s\n", q, sess[q], length(cmd[q]), (ph[q] == "" ? "x" : ph[q]), (call[q] == "" ? "x" : call[q]), files[q], depth[q] } }
' "$T/plan" >"$T/rows"

bad=""
while read -r p _sess chars ph call nf dp; do
    [ "$ph" != x ] && [ "$call" != x ] || { bad="$bad $p:no-estimate"; continue; }
    [ "$ph" -le 480 ] || bad="$bad $p:${ph}s"
    [ "$chars" -ge 1 ] && [ "$chars" -le 2000 ] || bad="$bad $p:command-$chars-chars"
    [ "$nf" -ge 1 ] && [ "$nf" -le 8 ] || bad="$bad $p:$nf-files"
    [ "$dp" -le 2 ] || bad="$bad $p:depth-$dp"
done <"$T/rows"
if [ -s "$T/rows" ] && [ -z "$bad" ]; then
    pass "$(wc -l <"$T/rows") phases: each command within 480 s and 2,000 characters, 1-8 files back, at most 2 folders down"
else
    fail "phases over the limits:${bad:- none printed}"
fi

over=$(awk '{ t[$2] += $5 } END { for (s in t) if (t[s] > 1500) printf " session %s: %d s", s, t[s] }' "$T/rows")
sessions=$(awk '{ print $2 }' "$T/rows" | sort -u | tr '\n' ' ')
if [ -s "$T/rows" ] && [ -z "$over" ] && ! grep -q ' x ' "$T/rows"; then
    pass "every session's calls (machine starts and idle time included) within 25 min: sessions $sessions"
else
    fail "sessions over 25 min:$over"
fi

# every phase is planned once, and session 1 starts with the most valuable ones
missing=""
for p in $(bash "$S" --list); do
    [ "$(awk -v p="$p" '$1 == p' "$T/rows" | wc -l)" = 1 ] || missing="$missing $p"
done
first=$(awk '$2 == 1 { printf "%s ", $1 }' "$T/rows")
if [ -z "$missing" ] && [ "$first" = "build-tests stemdl-bf16 nccl " ]; then
    pass "every phase of --list planned once; session 1: $first"
else
    fail "phases not planned once:${missing:- none}; session 1: '$first'"
fi
# each call is the phase itself: the command the lead pastes into the device tool
if [ -s "$T/rows" ] && awk '{ print $1 }' "$T/rows" | while read -r p; do grep -qF "run: {command: \"$S --phase $p\", carry: [" "$T/plan" || exit 1; done; then
    pass "each call runs '$S --phase NAME' with what it carries"
else
    fail "a call is not '$S --phase NAME'"
fi

# ---- plans that break a limit are refused ----------------------------------------------------
refused() { # WHAT ENV...: --plan under ENV exits 1 and says REFUSED
    local what=$1; shift
    env "$@" bash "$S" --plan >"$T/r.out" 2>&1
    local r=$?
    if [ $r = 1 ] && grep -q 'REFUSED' "$T/r.out" && ! grep -q '^plan: within the limits' "$T/r.out"; then
        pass "refused: $what ($(grep -m1 'REFUSED' "$T/r.out" | sed 's/^ *//' | cut -c1-90))"
    else
        fail "not refused: $what: exit $r"
    fi
}
refused "a phase estimated at 9 min" GPU_SESSION_RUN_S_stemdl_bf16=540
refused "a build estimated past the phase's limit" GPU_SESSION_BUILD_S_nccl=400
refused "a session over 25 min (every phase in session 1)" \
    GPU_SESSION_SESSION_stemdl_tf32=1 GPU_SESSION_SESSION_stemdl_fp16=1 GPU_SESSION_SESSION_suite_gpu=1
refused "slower machine starts" GPU_SESSION_START_S=400
refused "9 files back" GPU_SESSION_FILES_nccl="a b c d e f g h i"
refused "a file 3 folders down" GPU_SESSION_FILES_suite_gpu="suite-gpu.log runs/a/b/x.yaml"
refused "a file outside \$OUT" GPU_SESSION_FILES_nccl="../nccl.log"
env GPU_SESSION_RUN_S_nccl=soon bash "$S" --plan >"$T/r.out" 2>&1
r=$?
if [ $r = 2 ] && grep -q 'whole seconds' "$T/r.out"; then pass "an estimate that is not a number: exit 2, named"
else fail "an estimate 'soon': exit $r: $(tail -n 1 "$T/r.out")"; fi

# ---- a phase leaves exactly its log and its tarball ------------------------------------------
mkdir -p "$T/nogpu" "$T/gpu"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$T/nogpu/nvidia-smi"
printf '#!/bin/sh\ncase "$*" in *compute_cap*) echo 9.0 ;; *query*) echo "NVIDIA H200, 580, 143771 MiB, 9.0, 1980 MHz" ;; *) echo "GPU 0: NVIDIA H200 (UUID: GPU-0)" ;; esac\n' >"$T/gpu/nvidia-smi"
chmod +x "$T/nogpu/nvidia-smi" "$T/gpu/nvidia-smi"
out_files() { (cd "$1" && find . -mindepth 1 | sed 's|^\./||' | sort | tr '\n' ' '); }
PATH=$T/nogpu:$PATH OUT=$T/out1 bash "$S" --phase build-tests >"$T/p1" 2>&1
r=$?
if [ $r = 0 ] && grep -q '^SKIPPED: no GPU' "$T/p1" && [ "$(out_files "$T/out1")" = "build-tests.log build-tests.tar.gz " ] &&
    tar -tzf "$T/out1/build-tests.tar.gz" >/dev/null 2>&1; then
    pass "no GPU: SKIPPED, exit 0, \$OUT holds build-tests.log and build-tests.tar.gz alone"
else
    fail "no GPU: exit $r, \$OUT: $(out_files "$T/out1" 2>/dev/null)"
fi
PATH=$T/gpu:$PATH OUT=$T/out2 NCCL_TESTS=$T/none bash "$S" --phase nccl >"$T/p2" 2>&1
r=$?
if [ $r = 2 ] && grep -q 'nccl-tests\|gpu_env' "$T/p2" && [ "$(out_files "$T/out2")" = "nccl.log nccl.tar.gz " ] &&
    ! grep -q '^== build' "$T/out2/nccl.log"; then
    pass "a GPU listed but nccl-tests' source missing: exit 2 before any build, \$OUT holds nccl.log and nccl.tar.gz alone"
else
    fail "missing nccl-tests: exit $r: $(tail -n 2 "$T/p2" | tr '\n' ' ') \$OUT: $(out_files "$T/out2" 2>/dev/null)"
fi
# every phase walked through on a stand-in GPU, its steps logged, not run
# (GPU_SESSION_STEPS=echo): its inputs pass, it builds first, then runs at
# least one step of its own, exits 0 and leaves its log and tarball alone
mkdir -p "$T/nt/src" && : >"$T/nt/src/Makefile"
walked="" bad=""
for p in $(bash "$S" --list); do
    o=$T/walk/$p
    PATH=$T/gpu:$PATH OUT=$o GPU_SESSION_STEPS=echo NCCL_TESTS=$T/nt BUILD=$T/walk-build \
        bash "$S" --phase "$p" >"$T/w.out" 2>&1
    r=$?
    first=$(grep -m1 '^== ' "$o/$p.log" 2>/dev/null)
    nsteps=$(grep -c '^== .*: (echo) ' "$o/$p.log" 2>/dev/null)
    if [ $r = 0 ] && [ "$(out_files "$o")" = "$p.log $p.tar.gz " ] && [[ "$first" == "== build ("*"(echo) make "* ]] &&
        [ "$nsteps" -ge 2 ]; then
        walked="$walked $p"
    else
        bad="$bad $p(exit $r, $nsteps steps: $(tail -n 1 "$T/w.out"))"
    fi
done
if [ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && ! command -v nvcc >/dev/null; then
    echo "SKIP: gpu_session plan: every phase walked: no CUDA toolkit here for gpu_env.sh to find"
elif [ -z "$bad" ] && [ -n "$walked" ]; then
    pass "every phase walked with its steps echoed: inputs pass, build first, exit 0, log and tarball alone:$walked"
else
    fail "phases that do not walk through:$bad"
fi
bash "$S" --phase nosuch >/dev/null 2>"$T/e"
r=$?
if [ $r = 2 ] && grep -q "unknown phase 'nosuch'" "$T/e"; then pass "an unknown phase: exit 2, named"
else fail "an unknown phase: exit $r: $(cat "$T/e")"; fi
