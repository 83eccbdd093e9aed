#!/usr/bin/env bash
# Bad input named for what it is (issue 27, "Input"):
#   every command's option parser (harness/cli/cli.c cli_option): a missing
#     value says so (`run --out`), an unknown option says so (`model --bogus`),
#     `model --network gb9999` names the unknown network and the known ones,
#     `metrics extra` and `suite --cpu --gpu` exit 2 with why;
#   each benchmark program's --check-config (benchmarks/common/opt.h): 0 and one
#     line on a good configuration, 2 and its own error on a bad one, no MPI;
#   `exadl validate` asks each program: `preset: tinyy` and `kernel: fast` fail
#     there (exit 2, the suite's file and line, the program's words), before
#     anything runs; every suite shipped in harness/suite/suites/ still passes;
#   root without Open MPI's root variables: `run` and `validate` refuse with the
#     fix (exit 2, nothing launched; the variables unset in a subshell);
#   the default suite (exadl run --dry-run): collectives from 2 ranks, 3
#     repetitions.
set -u
exadl=${EXADL_BIN:?}/exadl
bin=$EXADL_BIN
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_input: $1"; }
fail() { echo "FAIL: harness_input: $1"; fails=$((fails + 1)); }
# $1 name, $2 wanted exit status, $3 a fixed string the output must hold, $4 one
# it must not hold ("" for none), then the command
expect() {
    local name=$1 want=$2 has=$3 hasnt=$4 out rc
    shift 4
    out=$("$@" 2>&1); rc=$?
    if [ $rc -eq "$want" ] && grep -qF -- "$has" <<<"$out" && { [ -z "$hasnt" ] || ! grep -qF -- "$hasnt" <<<"$out"; }; then
        pass "$name"
    else
        fail "$name (exit $rc, want $want): $out"
    fi
}

# ---- the command line's messages ----------------------------------------------------
# (a suite that does not exist: an exadl that took --dry-run for the folder runs nothing)
expect "run --out without a value: needs a value" 2 "exadl run: error: --out needs a value" "unknown option" \
    "$exadl" run "$tmp/no-such-suite.yaml" --out
expect "run --out --dry-run: the value forgotten, not a folder named --dry-run" 2 "--out needs a value" "" \
    "$exadl" run "$tmp/no-such-suite.yaml" --out --dry-run
expect "run --bogus: unknown option" 2 "unknown option '--bogus'" "needs a value" "$exadl" run --bogus
expect "model --bogus: unknown option" 2 "exadl model: error: unknown option '--bogus'" "needs a value" \
    "$exadl" model --bogus
expect "model --network without a value: needs a value" 2 "--network needs a value" "unknown option" \
    "$exadl" model --network
expect "model --network gb9999: the network is unknown, the known ones listed" 2 \
    "--network gb9999: unknown preset 'gb9999' (choose gb2019, bench256, small or tiny)" "describe failed" \
    "$exadl" model --network gb9999 --gpu-flops 1e12 --machine "$root/reference/machines/dev-2core.yaml" --out "$tmp/m"
expect "metrics extra: exit 2, takes no arguments" 2 "exadl metrics: error: takes no arguments ('extra'" "" \
    "$exadl" metrics extra
expect "metrics --bogus: exit 2, unknown option" 2 "unknown option '--bogus'" "" "$exadl" metrics --bogus
expect "suite --cpu --gpu: exit 2, one or the other" 2 "give --cpu or --gpu, not both" "" "$exadl" suite --cpu --gpu
expect "suite --cpu --cpu is still --cpu" 0 "exadl_suite: 1" "" "$exadl" suite --cpu --cpu
expect "validate --bogus: unknown option" 2 "exadl validate: error: unknown option '--bogus'" "" \
    "$exadl" validate --bogus

# ---- each program checks its own configuration ----------------------------------------
# $1 program, then its options: 0 and the line
good() {
    local p=$1
    shift
    expect "$p --check-config: valid, exit 0" 0 "$p: --check-config: the configuration is valid" "" "$bin/$p" "$@" --check-config
}
# $1 program, $2 the words of its error, then its options: 2
bad() {
    local p=$1 words=$2
    shift 2
    expect "$p --check-config: '$*' refused, exit 2" 2 "$p: error: $words" "configuration is valid" \
        "$bin/$p" "$@" --check-config
}
good stemdl --preset small --kernels fast --threads 1 --steps 10
bad stemdl "unknown preset 'tinyy'" --preset tinyy
bad stemdl "unknown parameter 'kernel' (did you mean 'kernels'?)" --kernel fast
good cosmoflow --preset small --spatial auto --steps 8
bad cosmoflow "unknown preset" --preset cosmo9
good collectives --backend mpi --op all -b 8 -e 16777216 -f 4
bad collectives "--op" --op allreduc
good orchestration --mode all --steps 5
bad orchestration "--steps" --steps 0
good datadist --readers 4 --bytes 1M
bad datadist "unknown option" --reader 4
good manytask --tasks 10 --launcher direct
bad manytask "--tasks" --tasks 0
[ -x "$bin/skeleton" ] && { good skeleton --preset gb2019 --steps 2; bad skeleton "--preset" --preset gb9999; }

# ---- validate asks the programs ----------------------------------------------------------
mk() { # $1 file, $2 stemdl config
    cat >"$1" <<EOF
name: typo
launcher: mpirun
scales: [1]
env: {OMPI_ALLOW_RUN_AS_ROOT: "1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: "1"}
benchmarks:
  - name: net
    program: stemdl
    config: $2
EOF
}
mk "$tmp/tinyy.yaml" "{preset: tinyy, steps: 2}"
mk "$tmp/fast.yaml" "{preset: tiny, kernel: fast, steps: 2}"
mk "$tmp/ok.yaml" "{preset: tiny, kernels: fast, steps: 2}"
expect "validate: preset: tinyy fails (exit 2) with the suite's line and stemdl's words" 2 \
    "exadl validate: error: $tmp/tinyy.yaml:6: benchmark net: unknown preset 'tinyy' (choose gb2019, bench256, small or tiny) (stemdl --check-config)" "" \
    "$exadl" validate "$tmp/tinyy.yaml"
expect "validate: kernel: fast fails (exit 2): did you mean 'kernels'" 2 \
    "$tmp/fast.yaml:6: benchmark net: unknown parameter 'kernel' (did you mean 'kernels'?)" "" \
    "$exadl" validate "$tmp/fast.yaml"
expect "validate: the corrected suite passes, each program's check said" 0 \
    "  net: configuration valid (stemdl --check-config)" "" "$exadl" validate "$tmp/ok.yaml"
out=$("$exadl" run "$tmp/tinyy.yaml" --out "$tmp/tinyy" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "unknown preset 'tinyy'" <<<"$out" && [ ! -d "$tmp/tinyy" ] \
    && pass "run of preset: tinyy: exit 2 before anything runs, no run folder" || fail "run tinyy ($rc): $out"
# the default suite and every suite shipped: each program accepts its configuration
out=$("$exadl" validate 2>&1); rc=$?
n=$(grep -c ': configuration valid (' <<<"$out")
[ $rc -eq 0 ] && [ "$n" -ge 2 ] && pass "validate: the default suite, $n programs checked their configuration" \
    || fail "default suite ($rc, $n checked): $out"
for s in "$root"/harness/suite/suites/*.yaml; do
    out=$("$exadl" validate "$s" 2>&1); rc=$?
    [ $rc -eq 0 ] || fail "validate $(basename "$s") ($rc): $(grep error <<<"$out")"
done
pass "validate: every suite in harness/suite/suites/ (each program's --check-config accepts it)"

# ---- root without Open MPI's root variables -------------------------------------------------
if [ "$(id -u)" = 0 ]; then
    cat >"$tmp/root.yaml" <<EOF
name: asroot
launcher: mpirun
scales: [1]
env: {OMPI_MCA_rmaps_base_oversubscribe: "1"}
benchmarks:
  - name: net
    program: stemdl
    config: {preset: tiny, kernels: fast, steps: 1, warmup: 0}
EOF
    fix="export OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    (
        unset OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
        out=$("$exadl" run "$tmp/root.yaml" --out "$tmp/root" 2>&1); rc=$?
        [ $rc -eq 2 ] && grep -qF "Open MPI's mpirun" <<<"$out" && grep -qF "$fix" <<<"$out" && [ ! -d "$tmp/root" ] \
            && ! grep -q '\[1/1\]' <<<"$out" \
            && pass "run as root without the variables: refused before any launch with the fix, exit 2" \
            || fail "run as root ($rc): $out"
        expect "validate as root without the variables: exit 2 with the fix" 2 "$fix" "" "$exadl" validate "$tmp/root.yaml"
        expect "run --dry-run as root without the variables: the plan (nothing starts)" 0 "net-n1-r1: " "" \
            "$exadl" run "$tmp/root.yaml" --dry-run
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=0
        expect "validate as root with CONFIRM=0 (mpirun wants 1): exit 2" 2 "$fix" "" "$exadl" validate "$tmp/root.yaml"
        export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        expect "validate as root with both variables exported: valid" 0 "valid suite 'asroot'" "" \
            "$exadl" validate "$tmp/root.yaml"
        exit "$fails"
    )
    fails=$((fails + $?))
else
    echo "SKIP: harness_input: not root: the root refusal cannot be shown"
fi

# ---- the default suite: collectives from 2 ranks, 3 repetitions -----------------------------
out=$("$exadl" run --dry-run 2>&1); rc=$?
coll=$(grep -oE '^collectives-n[0-9]+-r[0-9]+' <<<"$out" | sort | paste -sd' ')
[ $rc -eq 0 ] && [ -n "$coll" ] && ! grep -qE 'collectives-n1-' <<<"$coll" \
    && grep -q "collectives-n2-r3" <<<"$coll" && ! grep -q 'collectives-n[0-9]*-r4' <<<"$coll" \
    && pass "default suite: collectives at 2 ranks and up, 3 repetitions ($coll)" \
    || fail "default suite collectives ($rc): '$coll'"
[ $fails -eq 0 ]
