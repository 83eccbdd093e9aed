#!/usr/bin/env bash
# exadl run and signals, without Slurm (tests/it/slurm.sh has the Slurm cases):
# a reader that goes away (| head -1) does not end the run; SIGUSR1 lets the
# running launch finish and stops the rest; SIGTERM and a SIGSEGV sent to
# exadl stop an Open MPI job whose ranks are in process groups of their own,
# and a launcher's children in sessions of their own, leaving nothing
# running; SIGKILL of exadl still ends the mpirun job (the parent-death
# signal); a hard stop leaves a folder that `exadl analyze` reports and
# `exadl run --resume` completes to the launch list of a run never stopped;
# a report that cannot be written goes to a temporary folder, and exadl says
# where instead of naming a file that is not there.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fake=$root/tests/fixtures/harness/fake_bench.sh
sleeper=$root/tests/fixtures/harness/sleeper.sh
fails=0
pass() { echo "PASS: harness_signals: $1"; }
fail() { echo "FAIL: harness_signals: $1"; fails=$((fails + 1)); }
# live processes among the PIDs in file $1 (zombies do not count)
alive() {
    local p st out=
    for p in $(cat "$1" 2>/dev/null); do
        st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)
        [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && out="$out $p"
    done
    echo "$out"
}
# wait until file $1 has $2 lines (20 s at most)
wait_lines() {
    for _ in $(seq 200); do
        [ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
# wait up to 5 s for the PIDs of $1 to end
wait_dead() { for _ in $(seq 50); do [ -z "$(alive "$1")" ] && return 0; sleep 0.1; done; return 1; }

quick() { # $1 file, $2 name, $3 launcher, $4 extra benchmark lines
    cat >"$1" <<EOF
name: $2
launcher: $3
scales: [1, 2]
repetitions: 2
timeout_s: 60
kill_grace_s: 1
device_peak_flops: 1.0e10
env: {SLEEPER_PIDS: "$tmp/$2.pids"}
benchmarks:
  - {name: good, program: $fake, config: {mode: ok, step: 0.1}}
$4
EOF
}
tmpl='"env FAKE_RANKS={ranks} {cmd}"'

# 1. exadl run | head -1: the run goes on and writes everything
quick "$tmp/pipe.yaml" pipe "$tmpl" ""
"$exadl" run "$tmp/pipe.yaml" --out "$tmp/pipe" | head -1 >"$tmp/pipe.head"
rc=${PIPESTATUS[0]}
r=$(ls -d "$tmp"/pipe/*-pipe 2>/dev/null | head -1)
[ "$rc" -eq 0 ] && [ -f "$r/results.yaml" ] && [ -f "$r/report.md" ] &&
    [ "$(ls "$r"/records | wc -l)" -eq 4 ] && grep -q 'status: ok' "$r/results.yaml" &&
    pass "SIGPIPE on stdout (| head -1): exit 0, all 4 launches, results written" ||
    fail "exadl run | head -1: exit $rc, folder '$r'"

# 2. SIGUSR1 or SIGUSR2 (Slurm's warning before a time limit) during a
#    launch: it finishes, the rest are not run, exit 130
for sig in USR1 USR2; do
    n=$(tr 'A-Z' 'a-z' <<<"$sig")
    quick "$tmp/$n.yaml" "$n" "$tmpl" \
        "  - {name: slow, program: $fake, config: {mode: ok, step: 0.1, sleep: 2}, scales: [1], repetitions: 1}
  - {name: after, program: $fake, config: {mode: ok}, scales: [1], repetitions: 1}"
    "$exadl" run "$tmp/$n.yaml" --out "$tmp/$n" >"$tmp/$n.out" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q '\] slow' "$tmp/$n.out" && break; sleep 0.1; done
    kill -$sig $pid
    wait $pid
    rc=$?
    r=$(ls -d "$tmp"/$n/*-$n 2>/dev/null | head -1)
    [ $rc -eq 130 ] && grep -qE '^\[5/6\] slow .* ok ' "$tmp/$n.out" &&
        [ -f "$r/records/slow-n1-r1.yaml" ] && [ ! -f "$r/records/after-n1-r1.yaml" ] &&
        grep -q 'launches_not_run: 1' "$r/results.yaml" &&
        grep -q "stopped_by: exadl got SIG$sig" "$r/results.yaml" &&
        grep -q 'launches: 5 ok, 1 not run of 6' "$tmp/$n.out" &&
        pass "SIG$sig: the running launch finishes, the next is not run, exit 130, results written" ||
        { fail "SIG$sig (exit $rc)"; cat "$tmp/$n.out"; }
done

# 3-6: a 2-rank launch that waits, stopped by a signal to exadl
stop_test() { # $1 name, $2 launcher, $3 signal; prints exadl's exit status
    quick "$tmp/$1.yaml" "$1" "$2" "  - {name: wait, program: $sleeper, scales: [2], repetitions: 1}
  - {name: after, program: $fake, config: {mode: ok}, scales: [1], repetitions: 1}"
    sed -i 's/^scales: \[1, 2\]/scales: [1]/; s/^repetitions: 2/repetitions: 1/' "$tmp/$1.yaml"
    : >"$tmp/$1.pids"
    "$exadl" run "$tmp/$1.yaml" --out "$tmp/$1" >"$tmp/$1.out" 2>&1 &
    local pid=$! rc
    wait_lines "$tmp/$1.pids" 2
    sleep 0.3
    kill -"$3" $pid
    wait $pid
    rc=$?
    echo "$rc"
}
# 3. Open MPI puts its ranks in process groups of their own
rc=$(stop_test term mpirun TERM)
r=$(ls -d "$tmp"/term/*-term 2>/dev/null | head -1)
left=$(wait_dead "$tmp/term.pids" || alive "$tmp/term.pids")
[ "$rc" = 130 ] && [ "$(wc -l <"$tmp/term.pids")" -eq 2 ] && [ -z "$left" ] &&
    grep -q 'status: interrupted' "$r/results.yaml" && grep -q 'launches_not_run: 1' "$r/results.yaml" &&
    pass "SIGTERM during an mpirun job: both ranks ended, exit 130, results written" ||
    { fail "SIGTERM during mpirun (exit $rc, left:$left)"; cat "$tmp/term.out"; }

# 4. a launcher that puts its children in sessions of their own (setsid)
rc=$(stop_test sess "\"sh -c 'setsid {cmd} & setsid {cmd} & wait'\"" INT)
left=$(wait_dead "$tmp/sess.pids" || alive "$tmp/sess.pids")
[ "$rc" = 130 ] && [ "$(wc -l <"$tmp/sess.pids")" -eq 2 ] && [ -z "$left" ] &&
    pass "SIGINT: children in sessions of their own (setsid) ended too" ||
    { fail "setsid children survived (exit $rc, left:$left)"; cat "$tmp/sess.out"; }

# 5. SIGSEGV sent to exadl: the launch tree goes first, then exadl dies of it
rc=$(stop_test segv mpirun SEGV)
left=$(wait_dead "$tmp/segv.pids" || alive "$tmp/segv.pids")
# (in the sanitizer build AddressSanitizer's handler, before ours, reports it and exits 1)
{ [ "$rc" = 139 ] || { [ "$rc" = 1 ] && grep -q 'AddressSanitizer: SEGV' "$tmp/segv.out"; }; } && [ -z "$left" ] &&
    pass "SIGSEGV to exadl: no rank left, exadl ends by SIGSEGV" ||
    { fail "SIGSEGV (exit $rc, left:$left)"; cat "$tmp/segv.out"; }

# 6. SIGKILL of exadl (nothing can be handled): mpirun gets SIGTERM and ends its ranks
rc=$(stop_test kill mpirun KILL)
left=$(wait_dead "$tmp/kill.pids" || alive "$tmp/kill.pids")
r=$(ls -d "$tmp"/kill/*-kill 2>/dev/null | head -1)
[ "$rc" = 137 ] && [ -z "$left" ] && pass "SIGKILL of exadl: the mpirun job ends too (parent-death signal)" ||
    { fail "SIGKILL (exit $rc, left:$left)"; cat "$tmp/kill.out"; }

# 7. the hard-stopped folder: summary says what to do, analyze writes results, resume completes
out=$("$exadl" summary "$r" 2>&1)
rc=$?
[ $rc -eq 2 ] && grep -q "exadl analyze $r" <<<"$out" &&
    pass "summary of a hard-stopped run names exadl analyze" || fail "summary of a hard-stopped run: $out"
"$exadl" analyze "$r" >"$tmp/an.out" 2>&1
rc=$?
[ $rc -eq 130 ] && grep -q 'status: interrupted' "$r/results.yaml" &&
    grep -q 'launches_ok: 1' "$r/results.yaml" && grep -q 'launches_interrupted: 1' "$r/results.yaml" &&
    grep -q 'launches_not_run: 1' "$r/results.yaml" &&
    grep -q 'the run stopped during this launch' "$r/results.yaml" && [ -f "$r/report.md" ] &&
    pass "analyze: results.yaml and report.md from the records (1 ok, 1 interrupted, 1 not run)" ||
    { fail "analyze (exit $rc)"; cat "$tmp/an.out"; }
# resume with a stand-in that now ends, to compare with a run never stopped
sed -i "s|program: $sleeper|program: $fake, env: {FAKE_RANKS: \"2\"}, config: {mode: ok}|" \
    "$r/suite.yaml" "$tmp/kill.yaml"
"$exadl" run --resume "$r" >"$tmp/res.out" 2>&1
rc=$?
"$exadl" run "$tmp/kill.yaml" --out "$tmp/whole" >/dev/null 2>&1
w=$(ls -d "$tmp"/whole/*-kill 2>/dev/null | head -1)
list() { # the launch list: id and status of each
    awk '/^launches:/ { on = 1; next } on && /^[a-z]/ { on = 0 } on && /^- id:|^  status:/' \
        "$1/results.yaml" | tr -d ' ' | paste -sd' '
}
[ $rc -eq 0 ] && [ -n "$w" ] && [ "$(list "$r")" = "$(list "$w")" ] &&
    grep -q 'launches_kept: 1' "$r/results.yaml" &&
    grep -q 'resuming .*: 1 launches finished earlier, 2 to run' "$tmp/res.out" &&
    pass "resume: 1 kept, 2 run; the launch list equals a run never stopped" ||
    { fail "resume (exit $rc): '$(list "$r")' vs '$(list "$w")'"; cat "$tmp/res.out"; }

# 8. report.md and results.yaml cannot be written in the run folder
quick "$tmp/full.yaml" full "$tmpl" \
    "  - {name: slow, program: $fake, config: {mode: ok, sleep: 1}, scales: [1], repetitions: 1}"
TMPDIR=$tmp "$exadl" run "$tmp/full.yaml" --out "$tmp/full" >"$tmp/full.out" 2>&1 &
pid=$!
r=
for _ in $(seq 100); do
    r=$(ls -d "$tmp"/full/*-full 2>/dev/null | head -1)
    [ -n "$r" ] && break
    sleep 0.05
done
mkdir -p "$r/report.md" "$r/results.yaml" # a folder in the way of the rename
wait $pid
rc=$?
fb=$(ls -d "$tmp"/exadl-*-full-* 2>/dev/null | head -1)
[ $rc -eq 1 ] && [ -s "$fb/report.md" ] && [ -s "$fb/results.yaml" ] &&
    ! grep -q "^report: $r/report.md" "$tmp/full.out" &&
    grep -q "^report: $fb/report.md" "$tmp/full.out" &&
    grep -q "report.md written to $fb/report.md instead" "$tmp/full.out" &&
    pass "a report that cannot be written goes to a temporary folder, and exadl says so (exit 1)" ||
    { fail "report write failure (exit $rc, fallback '$fb')"; cat "$tmp/full.out"; }

[ $fails -eq 0 ]
