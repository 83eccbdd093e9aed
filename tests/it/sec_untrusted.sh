#!/usr/bin/env bash
# Untrusted inputs through the real programs (issue 12; docs/harness.md
# "Security and trust"):
#   D1  titles and paths with backticks, system(), quotes, backslashes and
#       newlines through every plot exadl draws from the command line (run:
#       training and collectives plots; history; model from a run folder and
#       from a describe file with a machine file): plots drawn, no file created
#   D2  LD_PRELOAD planted in a run folder's suite.yaml: `exadl check` and
#       `exadl analyze` start no program, so it is never loaded
#   D4  collectives and orchestration on a full filesystem: exit status 1
#   D7  a huge layer count: stemdl refuses it at once
#   D11 a key given twice in results.yaml: one line naming file and line
#   D12 launcher_args with a template launcher: refused by validate
#   D13 absurd suite times and model options: refused with the allowed range
set -u
exadl=${EXADL_BIN:?}/exadl
bin=$EXADL_BIN
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fake=$root/tests/fixtures/harness/fake_bench.sh
fails=0
pass() { echo "PASS: sec_untrusted: $1"; }
fail() { echo "FAIL: sec_untrusted: $1"; fails=$((fails + 1)); }
is_png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; }
# what a hostile string would create: PWNED_* files anywhere below $tmp or here
pwned() { find "$tmp" . -maxdepth 6 -name 'PWNED*' 2>/dev/null | head -3; }
cd "$tmp" || exit 1

# a folder name with every character gnuplot interprets (a newline too)
hostile=$'q\'; system("touch PWNED_sys"); \' `touch PWNED_bt` "dq\\ @m\nnl'
have_gp=0
command -v gnuplot >/dev/null && have_gp=1

# ---- D1: exadl run with --out in a hostile folder: training and collectives plots
mkdir -p "$tmp/$hostile"
cat >"$tmp/fake.yaml" <<EOF
name: sec
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1, 2]
repetitions: 1
timeout_s: 30
benchmarks:
  - name: good
    program: $fake
    config: {mode: ok, step: 0.01, steps: 4}
  - name: coll
    program: $fake
    config: {mode: coll}
EOF
out=$("$exadl" run "$tmp/fake.yaml" --out "$tmp/$hostile" 2>&1); rc=$?
runs=("$tmp/$hostile"/*-sec) # (the name holds a newline: no ls | head)
run=${runs[0]}
[ -d "$run" ] || run=
if [ $have_gp = 1 ]; then
    ok=1
    for p in good_throughput good_efficiency good_flops good_kernels coll_busbw \
             coll_latency; do
        is_png "$run/plots/$p.png" && [ -s "$run/plots/$p.svg" ] || { ok=0; echo "  $p not drawn"; }
    done
    [ $rc -eq 0 ] && [ $ok = 1 ] && [ -z "$(pwned)" ] \
        && pass "D1 run: every plot drawn in a hostile --out folder, no command ran" \
        || { fail "D1 run ($rc): $(pwned)"; echo "$out" | tail -n 5; }
else
    echo "SKIP: sec_untrusted: D1 run plots (no gnuplot)"
fi

# ---- D1: history with a hostile benchmark name from results.yaml
if [ -n "$run" ] && [ $have_gp = 1 ]; then
    bench=$'x`touch PWNED_hist`\'; system("touch PWNED_hsys"); \''
    # the metric rows' benchmark, as a YAML double-quoted string
    python3 - "$run/results.yaml" "$tmp/r.yaml" "$bench" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(text.replace("{benchmark: good,", "{benchmark: %s," % json.dumps(sys.argv[3])))
PY
    mkdir -p "$tmp/hrun" && cp "$tmp/r.yaml" "$tmp/hrun/results.yaml"
    grep -qF 'PWNED_hist' "$tmp/hrun/results.yaml" || fail "D1 history: the planted name is not in results.yaml"
    out=$("$exadl" history "$tmp/hrun" --benchmark "$bench" --out "$tmp/$hostile" 2>&1); rc=$?
    hps=("$tmp/$hostile"/history-*)
    hp=${hps[0]}
    [ $rc -eq 0 ] && is_png "$hp/history.png" && [ -z "$(pwned)" ] && grep -qF 'PWNED_hsys' "$hp/history.svg" \
        && pass "D1 history: a hostile benchmark name is drawn as text, no command ran" \
        || { fail "D1 history ($rc): $(pwned)"; echo "$out" | tail -n 5; }
fi

# ---- D1: model from a hostile run folder, and from a hostile describe file + machine file
if [ $have_gp = 1 ]; then
    mrun="$tmp/run\`touch PWNED_run\`'x"
    cp -r "$root/tests/fixtures/harness/model-run" "$mrun"
    out=$("$exadl" model "$mrun" --scales 1,2 --quiet 2>&1); rc=$?
    [ $rc -eq 0 ] && is_png "$mrun/model/model_efficiency.png" && [ -z "$(pwned)" ] \
        && pass "D1 model RUN: a hostile run folder name in the title, no command ran" \
        || { fail "D1 model RUN ($rc): $(pwned)"; echo "$out" | tail -n 5; }
    sed 's/^name: dev-2core/name: "m`touch PWNED_machine`'"'"'; system(\\"touch PWNED_msys\\"); '"'"'"/' \
        "$root/reference/machines/dev-2core.yaml" >"$tmp/machine.yaml"
    grep -q PWNED_machine "$tmp/machine.yaml" || fail "D1 model: the planted machine name is missing"
    dfile="$tmp/d\`touch PWNED_dfile\`'.txt"
    if "$bin/stemdl" --describe --preset tiny >"$dfile" 2>/dev/null; then
        out=$("$exadl" model --describe-file "$dfile" --gpu-flops 1e12 --machine "$tmp/machine.yaml" \
              --scales 1,2 --quiet --out "$tmp/$hostile/model" 2>&1); rc=$?
        [ $rc -eq 0 ] && is_png "$tmp/$hostile/model/model_efficiency.png" && [ -z "$(pwned)" ] \
            && grep -qF 'PWNED_msys' "$tmp/$hostile/model/model_efficiency.svg" \
            && pass "D1 model --machine: hostile machine and file names drawn as text, no command ran" \
            || { fail "D1 model --machine ($rc): $(pwned)"; echo "$out" | tail -n 5; }
    else
        fail "stemdl --describe --preset tiny failed"
    fi
fi

# ---- D2: a library planted in a run folder is not loaded by exadl check
if [ -n "$run" ] && command -v cc >/dev/null; then
    printf '#include <stdio.h>\n__attribute__((constructor)) static void f(void) { fclose(fopen("%s/PWNED_preload", "w")); }\n' \
        "$tmp" >"$tmp/evil.c"
    # a plain folder name: the loader splits LD_PRELOAD at spaces
    cp -r "$run" "$tmp/d2run"
    cc -shared -fPIC -o "$tmp/d2run/evil.so" "$tmp/evil.c"
    printf 'env:\n  LD_PRELOAD: %s/evil.so\n  OMP_NUM_THREADS: "1"\n' "$tmp/d2run" >"$tmp/d2run/suite.yaml"
    # the library does load where it is given on purpose (the test can fail)
    LD_PRELOAD="$tmp/d2run/evil.so" /bin/true && [ -f "$tmp/PWNED_preload" ] && rm -f "$tmp/PWNED_preload" \
        || fail "D2: the planted library does not even load on purpose"
    # check starts no program: the describe answers come from the folder's
    # probe.yaml (this run recorded none for these references: not evaluated)
    out=$("$exadl" check "$tmp/d2run" --reference "$root/reference/stemdl-exact.yaml" 2>&1); rc=$?
    [ ! -e "$tmp/PWNED_preload" ] && [ $rc -eq 0 ] && grep -q 'checks not evaluated: .*probe.yaml' <<<"$out" \
        && pass "D2 check: starts no program (LD_PRELOAD from the run folder never loaded); unanswered describe checks not evaluated" \
        || { fail "D2 check ($rc)"; echo "$out" | tail -n 8; }

    # exadl analyze reads the same kind of folder: it starts none of the
    # folder's programs (an optional benchmark's --help probe ran a planted
    # script), and no probe either
    printf '#!/bin/sh\ntouch "%s/PWNED_analyze"\necho usage\n' "$tmp" >"$tmp/d2run/evil.sh"
    chmod +x "$tmp/d2run/evil.sh"
    printf 'name: probe\nlauncher: local\nscales: [1]\nrepetitions: 1\nenv: {LD_PRELOAD: %s/evil.so}\nbenchmarks:\n  - {name: x, program: %s/evil.sh, optional: true}\n' \
        "$tmp/d2run" "$tmp/d2run" >"$tmp/d2run/suite.yaml"
    "$tmp/d2run/evil.sh" >/dev/null && [ -f "$tmp/PWNED_analyze" ] && rm -f "$tmp/PWNED_analyze" \
        || fail "analyze: the planted program does not even run on purpose"
    out=$("$exadl" analyze "$tmp/d2run" 2>&1); rc=$?
    [ ! -e "$tmp/PWNED_analyze" ] && [ ! -e "$tmp/PWNED_preload" ] && grep -q 'nothing runs' <<<"$out" \
        && pass "analyze: no program of the run folder started, LD_PRELOAD never loaded (exit $rc)" \
        || { fail "analyze started the folder's program or loaded LD_PRELOAD ($rc)"; echo "$out" | tail -n 8; }
fi

# ---- D4: a full filesystem for the record
full=$EXADL_BUILD/lib/libfullfs.so
if [ -f "$full" ]; then
    pre=${LD_PRELOAD:+$LD_PRELOAD:}$full
    out=$(EXADL_FULLFS=fullrec LD_PRELOAD=$pre "$bin/collectives" --op allreduce -e 64K \
          --record "$tmp/fullrec.yaml" 2>&1 >/dev/null); rc=$?
    [ $rc -ne 0 ] && grep -q '^collectives: error: .*fullrec.yaml: cannot write' <<<"$out" && [ ! -e "$tmp/fullrec.yaml" ] \
        && pass "D4 collectives: a record it cannot write is an error, exit $rc" \
        || fail "D4 collectives exit $rc: $out"
    out=$(EXADL_FULLFS=fullorch LD_PRELOAD=$pre "$bin/orchestration" --steps 2 --tensors 8 \
          --record "$tmp/fullorch.yaml" 2>&1 >/dev/null); rc=$?
    [ $rc -ne 0 ] && grep -q '^orchestration: error: .*fullorch.yaml: cannot write' <<<"$out" \
        && pass "D4 orchestration: a record it cannot write is an error, exit $rc" \
        || fail "D4 orchestration exit $rc: $out"
else
    fail "D4: $full is not built"
fi

# ---- D7: a huge layer count refused at once
printf 'preset: tiny\nbottleneck: 1000000\n' >"$tmp/huge.yaml"
out=$(timeout 20 "$bin/stemdl" --describe --config "$tmp/huge.yaml" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'huge.yaml:2:13: bottleneck must be between 1 and 1000' <<<"$out" \
    && pass "D7 stemdl: bottleneck 1000000 refused with the allowed range" || fail "D7 ($rc): $out"

# ---- D11: a key given twice in results.yaml
if [ -n "$run" ]; then
    mkdir -p "$tmp/dup"
    sed 's/^exadl_results: 1$/exadl_results: 1\nexadl_results: 1/' "$run/results.yaml" >"$tmp/dup/results.yaml"
    out=$("$exadl" summary "$tmp/dup" 2>&1); rc=$?
    [ $rc -eq 2 ] && grep -qE "^exadl summary: error: $tmp/dup/results.yaml:[0-9]+:1: key 'exadl_results' given twice \(first at line [0-9]+\)\$" <<<"$out" \
        && pass "D11 summary: a key twice in results.yaml names file and line" || fail "D11 ($rc): $out"
fi

# ---- D12, D13: refused with one line and the allowed range
printf 'launcher: "env X={ranks} {cmd}"\nlauncher_args: [--bind-to, core]\nbenchmarks: [{program: /bin/true}]\n' \
    >"$tmp/tmpl.yaml"
out=$("$exadl" validate "$tmp/tmpl.yaml" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'tmpl.yaml:2:16: launcher_args: the template launcher would ignore it' <<<"$out" \
    && pass "D12 validate: launcher_args with a template refused" || fail "D12 ($rc): $out"
printf 'timeout_s: 1e-9\nbenchmarks: [{program: /bin/true}]\n' >"$tmp/t.yaml"
out=$("$exadl" validate "$tmp/t.yaml" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 't.yaml:1:12: timeout_s: 1e-09 is out of range (allowed 0.1 to' <<<"$out" \
    && pass "D13 validate: timeout_s 1e-9 refused with the range" || fail "D13 timeout ($rc): $out"
out=$("$exadl" model "$root/tests/fixtures/harness/model-run" --coord-request-s 1e308 --out "$tmp/m13" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'coord-request-s: 1e+308 is out of range (allowed 0 to 10)' <<<"$out" && [ ! -e "$tmp/m13" ] \
    && pass "D13 model: --coord-request-s 1e308 refused with the range" || fail "D13 model ($rc): $out"

[ -z "$(pwned)" ] || fail "a hostile string created: $(pwned)"
[ $fails -eq 0 ]
