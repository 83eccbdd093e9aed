#!/usr/bin/env bash
# Placeholders in a suite's args and config values (docs/harness.md
# "Placeholders"): {launch_dir} and {run_dir} are filled in literally into the
# launch's argv (a stand-in program writes down the arguments it got), under
# the local launcher (exec'd directly) and a template launcher (/bin/sh -c):
# a value with spaces, quotes, $(...) and backticks arrives as one argument
# and runs nothing; {{ and }} are literal braces; each launch gets its own
# folder RUN/launches/<id>/, made before it starts; the log, results.yaml and
# analyze show the filled-in command; `exadl run --resume` uses the same
# folder again; a link planted at a launch folder is refused.  An unknown
# placeholder or an unbalanced brace is refused by validate and run with
# FILE:LINE:COL (exit 2, no run folder).  Seconds, no MPI.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fake=$root/tests/fixtures/harness/fake_bench.sh
fails=0
pass() { echo "PASS: harness_placeholders: $1"; }
fail() { echo "FAIL: harness_placeholders: $1"; fails=$((fails + 1)); }

# the stand-in: each argument bracketed on a line of the file after --dump,
# "ran" appended to the file after --mark (its folder must exist already),
# then fake_bench.sh writes an ok record
cat >"$tmp/argv.sh" <<EOF
#!/bin/sh
dump= mark= prev=
for x in "\$@"; do
    case \$prev in --dump) dump=\$x ;; --mark) mark=\$x ;; esac
    prev=\$x
done
[ -n "\$dump" ] && { printf '[%s]\n' "\$@" >"\$dump" || exit 3; }
[ -n "\$mark" ] && { echo ran >>"\$mark" || exit 3; }
exec "$fake" "\$@"
EOF
chmod +x "$tmp/argv.sh"
weird="a b 'c' \"d\" \$(touch $tmp/pwned1) \`touch $tmp/pwned2\` ;touch $tmp/pwned3 \$HOME"
suite() { # $1 file, $2 launcher
    cat >"$1" <<EOF
name: ph
launcher: "$2"
scales: [1]
repetitions: 2
timeout_s: 60
benchmarks:
  - name: p
    program: $tmp/argv.sh
    config: {mode: ok, steps: 3, ckpt_dir: "{launch_dir}/ckpt"}
    args:
      - --dump
      - "{launch_dir}/argv"
      - --mark
      - "{launch_dir}/runs"
      - --run
      - "{run_dir}"
      - --weird
      - '$(sed "s/'/''/g" <<<"$weird")'
      - --lit
      - "{{x}} }}{{"
EOF
}
has() { grep -qxF -- "$2" "$1" 2>/dev/null; }

for launcher in local 'env FAKE_RANKS={ranks} {cmd}'; do
    what=$([ "$launcher" = local ] && echo "local (exec)" || echo "template (sh -c)")
    rm -f "$tmp"/pwned*
    suite "$tmp/s.yaml" "$launcher"
    out=$("$exadl" run "$tmp/s.yaml" --out "$tmp/res-${launcher%% *}" 2>&1); rc=$?
    run=$(ls -d "$tmp/res-${launcher%% *}"/*-ph 2>/dev/null | head -1)
    [ $rc -eq 0 ] && [ -n "$run" ] && pass "$what: the run ends ok" \
        || { fail "$what: exit $rc"; echo "$out" | tail -20 | sed 's/^/    /'; continue; }
    a1=$run/launches/p-n1-r1/argv a2=$run/launches/p-n1-r2/argv
    has "$a1" "[$run/launches/p-n1-r1/ckpt]" && has "$a1" "[$run/launches/p-n1-r1/runs]" \
        && has "$a1" "[$run]" && pass "$what: {launch_dir} and {run_dir} filled in (config and args)" \
        || { fail "$what: argv"; sed 's/^/    /' "$a1" 2>/dev/null; }
    has "$a2" "[$run/launches/p-n1-r2/ckpt]" && ! grep -q p-n1-r1 "$a2" \
        && [ "$(cat "$run/launches/p-n1-r1/runs" 2>/dev/null)" = ran ] \
        && pass "$what: each launch its own folder, made before it starts" || fail "$what: launch folders"
    has "$a1" "[$weird]" && ! ls "$tmp"/pwned* >/dev/null 2>&1 \
        && pass "$what: spaces, quotes, \$(...) and backticks arrive as one argument, run nothing" \
        || fail "$what: the weird value: $(grep -c . "$a1" 2>/dev/null) lines; $(ls "$tmp"/pwned* 2>/dev/null)"
    has "$a1" "[{x} }{]" && pass "$what: {{ and }} are literal braces" || fail "$what: literal braces"
    grep -qF "$run/launches/p-n1-r1/ckpt" "$run/logs/p-n1-r1.log" \
        && grep -qF "$run/launches/p-n1-r2/ckpt" "$run/results.yaml" \
        && pass "$what: the log and results.yaml show the filled-in command" || fail "$what: command shown"
done

# resume: p-n1-r2 stopped hard (no record, no journal): it runs again in the
# same folder; p-n1-r1 is kept and not run again; analyze shows the same commands
run=$(ls -d "$tmp"/res-local/*-ph 2>/dev/null | head -1)
if [ -n "$run" ]; then
    grep 'command:' "$run/results.yaml" >"$tmp/cmd-before"
    rm -f "$run/records/p-n1-r2.yaml" "$run/journal.yaml"
    out=$("$exadl" run --resume "$run" 2>&1); rc=$?
    [ $rc -eq 0 ] && [ "$(cat "$run/launches/p-n1-r2/runs")" = "$(printf 'ran\nran')" ] \
        && [ "$(cat "$run/launches/p-n1-r1/runs")" = ran ] \
        && [ "$(ls "$run/launches" | tr '\n' ' ')" = "p-n1-r1 p-n1-r2 " ] \
        && has "$run/launches/p-n1-r2/argv" "[$run/launches/p-n1-r2/ckpt]" \
        && pass "resume runs the launch again in the same folder" \
        || { fail "resume: exit $rc, $(ls "$run/launches" | tr '\n' ' ')"; echo "$out" | tail -5; }
    grep 'command:' "$run/results.yaml" | diff - "$tmp/cmd-before" >/dev/null \
        && "$exadl" analyze "$run" >/dev/null 2>&1 \
        && grep 'command:' "$run/results.yaml" | diff - "$tmp/cmd-before" >/dev/null \
        && pass "resume and analyze show the same filled-in commands" || fail "commands changed"
    # a link planted at a launch folder: nothing is written through it
    mkdir -p "$tmp/elsewhere"
    rm -rf "$run/launches/p-n1-r2" "$run/records/p-n1-r2.yaml" "$run/journal.yaml"
    ln -s "$tmp/elsewhere" "$run/launches/p-n1-r2"
    out=$("$exadl" run --resume "$run" 2>&1); rc=$?
    [ $rc -eq 2 ] && grep -q 'launches/p-n1-r2 is a symbolic link' <<<"$out" \
        && [ -z "$(ls -A "$tmp/elsewhere")" ] && pass "a link at a launch folder is refused (exit 2)" \
        || fail "planted link: exit $rc: $out"
else
    fail "no run folder to resume"
fi

# refused: FILE:LINE:COL and the problem, exit 2, by validate and by run
refuse() { # $1 what, $2 expected "LINE:COL: ... words", then the suite's lines
    local what=$1 want=$2 f=$tmp/bad.yaml
    shift 2
    printf '%s\n' 'name: bad' 'launcher: local' 'scales: [1]' 'benchmarks:' '  - name: p' \
        "    program: $tmp/argv.sh" "$@" >"$f"
    local v r
    v=$("$exadl" validate "$f" 2>&1); local vrc=$?
    r=$("$exadl" run "$f" --out "$tmp/bad-res" 2>&1); local rrc=$?
    if [ $vrc -eq 2 ] && [ $rrc -eq 2 ] && grep -qF "$f:$want" <<<"$v" && grep -qF "$f:$want" <<<"$r" \
        && [ ! -e "$tmp/bad-res" ]; then
        pass "$what is refused with its position (exit 2, no run folder)"
    else
        fail "$what: validate $vrc, run $rrc: $v"
    fi
    rm -rf "$tmp/bad-res"
}
refuse "an unknown placeholder in args" "9:10: args: unknown placeholder {lanch_dir}" \
    '    config: {mode: ok}' '    args:' '      - a{lanch_dir}'
refuse "an unknown placeholder in a quoted arg" "8:19: args: unknown placeholder {HOME}" \
    '    config: {mode: ok}' '    args: [--x, "a{HOME}/b"]'
refuse "an unbalanced '{' in config" "7:35: config: ckpt_dir: unbalanced '{'" \
    '    config: {mode: ok, ckpt_dir: "{launch_dir"}'
refuse "an unbalanced '}' in args" "8:20: args: unbalanced '}'" \
    '    config: {mode: ok}' '    args: [--x, "ab}c"]'
refuse "an unknown placeholder in a config list" "7:32: config: l: unknown placeholder {x}" \
    '    config: {mode: ok, l: [a, "{x}"]}'

# validate prints the plan with the folders relative to the run folder
suite "$tmp/s.yaml" local
out=$("$exadl" validate "$tmp/s.yaml" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -qF -- "--ckpt-dir launches/p-n1-r2/ckpt" <<<"$out" \
    && pass "validate shows each launch's folder in its plan" || fail "validate: exit $rc: $out"

[ $fails -eq 0 ]
