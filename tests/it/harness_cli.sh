#!/usr/bin/env bash
# exadl's command line: help, unknown commands, validate (good and bad suites
# with FILE:LINE:COLUMN), sysinfo, metrics, the default suite.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_cli: $1"; }
fail() { echo "FAIL: harness_cli: $1"; fails=$((fails + 1)); }

out=$("$exadl" --help 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q 'usage: exadl COMMAND' <<<"$out" && pass "exadl --help" || fail "exadl --help ($rc)"
ok=1
for c in run validate check compare history summary sysinfo suite metrics bind; do
    out=$("$exadl" $c --help 2>&1) && grep -q "usage: exadl $c" <<<"$out" || { ok=0; echo "  $c --help: $out"; }
done
[ $ok = 1 ] && pass "every COMMAND --help" || fail "COMMAND --help"
out=$("$exadl" chek 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "did you mean 'check'" <<<"$out" && pass "unknown command suggests" \
    || fail "unknown command: $rc $out"
out=$("$exadl" 2>&1); [ $? -eq 2 ] && pass "no command: exit 2" || fail "no command"
out=$("$exadl" run --bogus 2>&1); [ $? -eq 2 ] && grep -q "unknown option '--bogus'" <<<"$out" \
    && pass "run: unknown option" || fail "run --bogus: $out"
out=$("$exadl" run --machine "" --dry-run 2>&1); [ $? -eq 2 ] && grep -q "machine: give a name of 1 to 100" <<<"$out" \
    && pass "run: an empty --machine refused" || fail "run --machine '': $out"

# validate: good
cat >"$tmp/good.yaml" <<EOF
name: cli-good
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1, 2]
benchmarks:
  - program: $root/tests/fixtures/harness/fake_bench.sh
    config: {mode: ok}
EOF
out=$("$exadl" validate "$tmp/good.yaml" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q "valid suite 'cli-good'" <<<"$out" && grep -q 'fake_bench-n2-r1: /bin/sh -c' <<<"$out" \
    && pass "validate a good suite prints the plan" || fail "validate good ($rc): $out"

# validate: bad ones, each with FILE:LINE:COLUMN
check_bad() { # name, text, expected message (grep -F)
    printf '%s' "$2" >"$tmp/$1.yaml"
    out=$("$exadl" validate "$tmp/$1.yaml" 2>&1); rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$3" <<<"$out" && [ "$(wc -l <<<"$out")" -eq 1 ]; then
        pass "validate $1"
    else
        fail "validate $1 ($rc): $out"
    fi
}
check_bad typo $'name: x\nbenchmarks:\n  - program: /bin/true\n    repetitons: 2\n' \
    "$tmp/typo.yaml:4:5: unknown key 'repetitons' (did you mean 'repetitions'?)"
check_bad syntax $'name: x\nbenchmarks: [\n' "$tmp/syntax.yaml:3:1:"
check_bad bomb $'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n' \
    "expands to more than"
head -c 3000 /dev/urandom >"$tmp/garbage.yaml" 2>/dev/null || dd if=/dev/urandom of="$tmp/garbage.yaml" bs=1 count=3000 2>/dev/null
out=$("$exadl" validate "$tmp/garbage.yaml" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qE "^exadl validate: error: $tmp/garbage.yaml:[0-9]+:[0-9]+: " <<<"$out" \
    && pass "validate binary garbage: file:line:col" || fail "garbage ($rc): $out"
out=$("$exadl" validate /proc/self/exadl-absent.yaml 2>&1); [ $? -eq 2 ] && grep -q 'cannot open' <<<"$out" \
    && pass "validate a missing file" || fail "missing file: $out"

# the default suite is valid here
out=$("$exadl" validate 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q "valid suite 'default'" <<<"$out" && pass "default suite validates" \
    || fail "default suite ($rc): $out"
out=$("$exadl" suite --gpu 2>&1); grep -q 'backend: cuda' <<<"$out" && pass "exadl suite --gpu" || fail "suite --gpu"
# the CPU entries (stemdl, cosmoflow, climate) run bf16 exactly where /proc/cpuinfo has avx512_bf16 or amx_bf16
out=$("$exadl" suite --cpu 2>&1); n=$(grep -c 'config:.*precision: bf16' <<<"$out")
if grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo 2>/dev/null; then
    [ "$n" = 3 ] && grep -q '^# bf16: this CPU has' <<<"$out" && pass "exadl suite --cpu: bf16 (the CPU has it)"         || fail "suite --cpu on a bf16 CPU: $n bf16 entries"
else
    [ "$n" = 0 ] && grep -q '^# fp32: this CPU has neither' <<<"$out" && pass "exadl suite --cpu: fp32 (no bf16 here)"         || fail "suite --cpu without bf16: $n bf16 entries"
fi

# sysinfo: a system block (from stemdl --sysinfo, or exadl's own)
out=$("$exadl" sysinfo 2>/dev/null); rc=$?
[ $rc -eq 0 ] && grep -q '^system:' <<<"$out" && grep -q 'cpu:' <<<"$out" && pass "sysinfo" \
    || fail "sysinfo ($rc): $out"
out=$("$exadl" metrics); grep -q '^efficiency ' <<<"$out" && grep -q 'busbw_GBps' <<<"$out" \
    && pass "metrics lists the names" || fail "metrics"

# bind: CUDA_VISIBLE_DEVICES from the local rank
out=$(CUDA_VISIBLE_DEVICES=4,5,6 OMPI_COMM_WORLD_LOCAL_RANK=4 "$exadl" bind -- sh -c 'echo $CUDA_VISIBLE_DEVICES')
[ "$out" = 5 ] && pass "bind: local rank 4 of GPUs 4,5,6 -> 5" || fail "bind gave '$out'"

[ $fails -eq 0 ]
