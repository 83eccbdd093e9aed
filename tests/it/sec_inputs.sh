#!/usr/bin/env bash
# Input files that are not files, a suite at its size cap, a launch on a full
# disk (issue 30; docs/harness.md "Security and trust"):
#   D6  a FIFO given as any input file (validate, run --dry-run, stemdl and
#       cosmoflow --config --describe, check --reference, model --machine):
#       refused in one line "FILE: not a regular file (a FIFO)", exit 2, at
#       once (it blocked forever); a directory and a device likewise
#   cap a suite of exactly 64 MiB is read, one byte more is refused naming
#       the cap (docs/harness.md)
#   full a launch whose log cannot be written (ENOSPC, tests/support/fullfs.c)
#       says why in exadl's output and the journal, not with an empty log;
#       a FIFO planted as that launch's log does not block analyze
#   D7  results.yaml's machine and host with ESC, BEL and a newline: check,
#       history and compare print them escaped (\x1b); a record's CPU model
#       with a forged "Verdict" line is one escaped cell of report.md; a
#       --machine name with an escape is refused
# Every command runs under `timeout 20`: a regression fails, it does not hang.
set -u
exadl=${EXADL_BIN:?}/exadl
bin=$EXADL_BIN
tmp=${EXADL_TMP:-$(mktemp -d)}/sec_inputs
root=${EXADL_ROOT:-$(pwd)}
fake=$root/tests/fixtures/harness/fake_bench.sh
fails=0
pass() { echo "PASS: sec_inputs: $1"; }
fail() { echo "FAIL: sec_inputs: $1"; fails=$((fails + 1)); }
mkdir -p "$tmp" || exit 1

# one small run folder, for check
cat >"$tmp/s.yaml" <<EOF
name: inputs
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1]
repetitions: 1
timeout_s: 30
benchmarks:
  - name: ok
    program: $fake
    config: {mode: ok, step: 0.01, steps: 2}
EOF
timeout 120 "$exadl" run "$tmp/s.yaml" --out "$tmp/res" >"$tmp/run.out" 2>&1
run=$(ls -d "$tmp"/res/*-inputs 2>/dev/null | head -1)
[ -n "$run" ] && [ -f "$run/results.yaml" ] || { fail "setup: no run folder"; sed 's/^/    /' "$tmp/run.out"; }

# ---- D6: a FIFO (nobody writes to it) for every input file
mkfifo "$tmp/fifo" || exit 1
refuse() { # $1 what, $2 the path in the message, $3 kind, then the command
    local what=$1 path=$2 kind=$3 out rc
    shift 3
    out=$(timeout 20 "$@" 2>&1 </dev/null); rc=$?
    if [ $rc -eq 2 ] && grep -qF "$path: not a regular file ($kind)" <<<"$out" \
        && [ "$(grep -c 'not a regular file' <<<"$out")" = 1 ]; then
        pass "$what: refused, exit 2"
    else
        fail "$what: exit $rc (124: it blocked), wanted 2 and '$path: not a regular file ($kind)': $(head -c 300 <<<"$out")"
    fi
}
refuse "validate FIFO" "$tmp/fifo" "a FIFO" "$exadl" validate "$tmp/fifo"
refuse "run --dry-run FIFO" "$tmp/fifo" "a FIFO" "$exadl" run --dry-run "$tmp/fifo"
refuse "stemdl --config FIFO --describe" "$tmp/fifo" "a FIFO" "$bin/stemdl" --config "$tmp/fifo" --describe
refuse "cosmoflow --config FIFO --describe" "$tmp/fifo" "a FIFO" "$bin/cosmoflow" --config "$tmp/fifo" --describe
refuse "model --machine FIFO" "$tmp/fifo" "a FIFO" "$exadl" model --network tiny --gpu-flops 1e9 \
    --machine "$tmp/fifo"
[ -n "$run" ] && refuse "check --reference FIFO" "$tmp/fifo" "a FIFO" "$exadl" check "$run" \
    --reference "$tmp/fifo"
refuse "cosmoflow --data FIFO" "$tmp/fifo" "a FIFO" "$bin/cosmoflow" --preset tiny --data "$tmp/fifo" --steps 1
# datadist's dataset: refused by rank 0 before any rank opens it (its own
# line and exit status 1, as its other dataset errors)
out=$(timeout 60 ${EXADL_MPIRUN:-mpirun} -np 1 "$bin/datadist" --file "$tmp/fifo" --bytes 64K 2>&1 </dev/null); rc=$?
[ $rc -ne 124 ] && [ $rc -ne 0 ] && grep -qF "datadist: error: $tmp/fifo: not a regular file" <<<"$out" \
    && pass "datadist --file FIFO: refused in one line, not waited on" \
    || fail "datadist --file FIFO: exit $rc (124: it blocked): $(head -c 300 <<<"$out")"
refuse "validate a directory" "$tmp/res" "a directory" "$exadl" validate "$tmp/res"
refuse "validate a device" "/dev/null" "a character device" "$exadl" validate /dev/null

# ---- the suite size cap: 64 MiB exactly is read, 64 MiB + 1 byte is not
cap=$((64 * 1024 * 1024))
printf 'name: cap\nlauncher: local\nscales: [1]\nbenchmarks: [{program: /bin/true}]\n#' >"$tmp/cap.yaml"
head -c $((cap - $(stat -c %s "$tmp/cap.yaml"))) /dev/zero | tr '\0' x >>"$tmp/cap.yaml"
out=$(timeout 60 "$exadl" validate "$tmp/cap.yaml" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(stat -c %s "$tmp/cap.yaml")" = $cap ] \
    && pass "a suite of exactly 64 MiB is read" || fail "64 MiB suite: exit $rc: $(head -c 300 <<<"$out")"
printf x >>"$tmp/cap.yaml"
out=$(timeout 60 "$exadl" validate "$tmp/cap.yaml" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "$tmp/cap.yaml: larger than $cap bytes" <<<"$out" \
    && pass "a suite of 64 MiB + 1 byte is refused naming the cap" \
    || fail "64 MiB + 1 suite: exit $rc: $(head -c 300 <<<"$out")"
rm -f "$tmp/cap.yaml"

# ---- a launch on a full disk: its log cannot be written, exadl says why
full=$EXADL_BUILD/lib/libfullfs.so
if [ -f "$full" ]; then
    sed 's/name: ok/name: fullb/' "$tmp/s.yaml" >"$tmp/full.yaml"
    out=$(EXADL_FULLFS=fullb-n1 LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD:}$full \
          timeout 120 "$exadl" run "$tmp/full.yaml" --out "$tmp/fullres" 2>&1); rc=$?
    frun=$(ls -d "$tmp"/fullres/*-inputs 2>/dev/null | head -1)
    [ $rc -eq 1 ] && grep -q 'cannot write log .*fullb-n1-r1\.log.*: No space left on device' <<<"$out" \
        && grep -q 'No space left on device' "$frun/journal.yaml" \
        && pass "full disk: the launch fails saying ENOSPC (output and journal), exit 1" \
        || { fail "full disk: exit $rc, no ENOSPC named"; echo "$out" | tail -n 8 | sed 's/^/    /'; }
    # the same folder with a FIFO planted as the failed launch's log: analyze
    # must not block on it; the run folder check refuses the folder (exit 2,
    # one line naming the FIFO) before anything is read
    if [ -n "$frun" ] && rm -f "$frun/logs/fullb-n1-r1.log" && mkfifo "$frun/logs/fullb-n1-r1.log"; then
        out=$(timeout 20 "$exadl" analyze "$frun" 2>&1); rc=$?
        [ $rc -eq 2 ] && grep -q 'logs/fullb-n1-r1.log is a FIFO' <<<"$out" \
            && pass "analyze: a FIFO planted as a log is refused in one line, not read, exit 2" \
            || fail "analyze with a FIFO log: exit $rc (124: it blocked): $(tail -n 3 <<<"$out")"
    fi
else
    fail "full disk: $full is not built"
fi

# ---- D7: text from a run folder reaches the terminal and report.md escaped
if [ -n "$run" ]; then
    h=$tmp/hostile
    cp -r "$run" "$h"
    # results.yaml's machine and host with an OSC title, BEL, CSI and a newline
    sed -i 's/^  machine: null/  machine: "m\\e]2;pwned\\a\\nVerdict: all checks PASS"/; s/^  host: .*/  host: "h\\e[31mred"/' \
        "$h/results.yaml"
    printf 'exadl_reference: 1\nkind: acceptance\nchecks:\n  - {metric: throughput_samples_per_s, where: {benchmark: ok}, value: 1, lower: -1, upper: 1.0e9}\n' \
        >"$tmp/ref.yaml"
    for c in "check $h --reference $tmp/ref.yaml" "history $h" "compare $h $h"; do
        out=$(timeout 20 "$exadl" $c 2>&1)
        if grep -q 'm\\x1b\]2;pwned\\x07\\nVerdict' <<<"$out" && ! grep -q $'[\x1b\x07]' <<<"$out"; then
            pass "$c: results.yaml's machine shown escaped (\\x1b, \\x07, \\n)"
        else
            fail "$c: control characters reached the terminal: $(head -c 400 <<<"$out" | cat -v)"
        fi
    done 2>/dev/null
    # a record's CPU model with an escape and a forged verdict line
    sed -i 's/model: Fake CPU/model: "Fake\\e[2J\\n\\nVerdict: all checks PASS"/' "$h"/records/*.yaml
    timeout 20 "$exadl" analyze "$h" >/dev/null 2>&1
    if grep -q 'Fake\\x1b\\\[2J  Verdict' "$h/report.md" && ! grep -q $'\x1b' "$h/report.md" \
        && ! grep -q '^Verdict' "$h/report.md"; then
        pass "report.md: a record's CPU model escaped, no forged line"
    else
        fail "report.md: $(grep -n 'CPU' "$h/report.md" | head -3 | cat -v)"
    fi
fi
out=$(timeout 20 "$exadl" run --machine $'a\e[31m' --dry-run "$tmp/s.yaml" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'control characters' <<<"$out" && pass "run --machine with an escape: refused, exit 2" \
    || fail "run --machine with an escape: exit $rc: $(cat -v <<<"$out" | head -3)"

exit $((fails > 0))
