#!/usr/bin/env bash
# Faults injected into run folders (issue 30; docs/harness.md "Security and
# trust"), with fake benchmarks (seconds, no MPI):
#   D3  journal.yaml empty, missing, cut off, garbage, a folder or a link:
#       `exadl run --resume` re-runs and rewrites no finished launch (records'
#       md5 and inode unchanged), says how many finished earlier as analyze
#       counts them ok, and keeps the damaged journal aside
#       a record cut in half is moved aside (kept) before its launch runs again
#       exadl killed (SIGKILL) during a launch: resume runs what is missing
#   D4  a second writer of one folder (resume, analyze) while a resume runs:
#       exit 2 naming the holder's PID and host; the first ends normally
#   D1/D2 links planted in a folder (plots/, model/, journal.yaml, a record,
#       report.md, logs/): analyze, resume and model write nothing outside
#       it (exit 2 naming the link)
# A gate (a file the test creates) holds a launch until the test lets it go:
# no step depends on how fast the machine is.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fake=$root/tests/fixtures/harness/fake_bench.sh
fails=0
pass() { echo "PASS: resume_faults: $1"; }
fail() { echo "FAIL: resume_faults: $1"; fails=$((fails + 1)); }
# md5 and inode of every record of folder $1 (a rewrite changes the inode)
sums() { (cd "$1/records" && for f in *.yaml; do echo "$f $(md5sum <"$f" | cut -c1-32) $(stat -c %i "$f")"; done) 2>/dev/null; }
# everything below folder $1, with md5s: what a write outside would change
tree_sum() { (cd "$1" && find . -printf '%p %y %s\n' | sort && find . -type f -exec md5sum {} + | sort) 2>/dev/null; }
# wait until file $1 holds text $2 (60 s at most; a loaded machine is slow)
wait_for() { for _ in $(seq 600); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# the gate: a launch of "held" waits for $tmp/go before it starts the benchmark
cat >"$tmp/gate.sh" <<EOF
#!/bin/sh
echo \$\$ >>"$tmp/gate.pids"
for _ in \$(seq 1200); do [ -f "$tmp/go" ] && exec "$fake" "\$@"; sleep 0.1; done
exit 3
EOF
chmod +x "$tmp/gate.sh"
cat >"$tmp/s.yaml" <<EOF
name: rf
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1, 2]
repetitions: 1
timeout_s: 120
kill_grace_s: 1
device_peak_flops: 1.0e10
benchmarks:
  - {name: good, program: $fake, config: {mode: ok, step: 0.1}}
  - {name: held, program: $tmp/gate.sh, config: {mode: ok, step: 0.1}, scales: [1]}
EOF

# ---- a finished run to damage: 3 launches ok ---------------------------------
touch "$tmp/go"
"$exadl" run "$tmp/s.yaml" --out "$tmp/base" >"$tmp/base.out" 2>&1
base=$(ls -d "$tmp"/base/*-rf 2>/dev/null | head -1)
if [ -z "$base" ] || [ "$(ls "$base/records" | wc -l)" -ne 3 ]; then
    fail "the base run: $(tail -n 3 "$tmp/base.out")"
    exit 1
fi
rm -f "$base/exadl.lock"

# ---- D3: six damaged journals ------------------------------------------------
mkdir -p "$tmp/outside"
echo "a file outside the run folder" >"$tmp/outside/target.txt"
for v in empty missing truncated garbage directory symlink; do
    d=$tmp/j-$v
    cp -a "$base" "$d"
    j=$d/journal.yaml
    case $v in
    empty) : >"$j" ;;
    missing) rm -f "$j" ;;
    truncated) head -c $(( $(wc -c <"$j") - 20 )) "$j" >"$j.x" && mv "$j.x" "$j" ;;
    garbage) printf '\x00\xff{[: not yaml\n- {id: \n' >"$j" ;;
    directory) rm -f "$j" && mkdir "$j" && echo keep >"$j/inside" ;;
    symlink) rm -f "$j" && ln -s "$tmp/outside/target.txt" "$j" ;;
    esac
    before=$(sums "$d")
    out_before=$(tree_sum "$tmp/outside")
    "$exadl" run --resume "$d" >"$tmp/j-$v.out" 2>&1
    rc=$?
    after=$(sums "$d")
    if [ "$after" != "$before" ]; then
        fail "journal $v: a finished record was rewritten (exit $rc)"
    elif [ "$(tree_sum "$tmp/outside")" != "$out_before" ]; then
        fail "journal $v: a file outside the run folder changed"
    elif [ $v = symlink ]; then
        [ $rc -eq 2 ] && grep -q 'journal.yaml is a symbolic link' "$tmp/j-$v.out" &&
            pass "journal a link: refused (exit 2, names it), nothing written through it" ||
            fail "journal a link: exit $rc: $(tail -n 2 "$tmp/j-$v.out")"
    elif [ $rc -ne 0 ] || ! grep -q '3 launches finished earlier, 0 to run' "$tmp/j-$v.out"; then
        fail "journal $v: exit $rc: $(grep -m1 'resuming' "$tmp/j-$v.out")"
    elif [ "$(grep -c 'journal.yaml: .*: rebuilt from the records (3 launch(es) finished earlier)' "$tmp/j-$v.out")" -ne 1 ]; then
        fail "journal $v: not one line saying the journal was rebuilt"
    elif [ $v = directory ] && [ ! -f "$d/journal.yaml.damaged-1/inside" ]; then
        fail "journal a folder: not kept aside"
    elif ! "$exadl" analyze "$d" >"$tmp/j-$v.an" 2>&1 || grep -q 'launches: ' "$tmp/j-$v.an"; then
        fail "journal $v: analyze afterwards does not count 3 ok"
    else
        pass "journal $v: nothing re-run or rewritten, 3 finished earlier (as analyze counts), exit 0"
    fi
done

# ---- D3: a record cut in half is kept aside, its launch runs again -----------
d=$tmp/partial
cp -a "$base" "$d"
rec=$(ls "$d"/records/good-*1*.yaml | head -1)
head -c 100 "$rec" >"$tmp/half" && cp "$tmp/half" "$rec"
"$exadl" run --resume "$d" >"$tmp/partial.out" 2>&1
rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/half" "$rec.partial-1" && grep -q 'status: ok' "$rec" &&
    grep -q '2 launches finished earlier, 1 to run' "$tmp/partial.out" &&
    pass "a cut record: kept as NAME.partial-1, its launch run again, exit 0" ||
    fail "a cut record: exit $rc, $(ls "$d/records" | tr '\n' ' ')"

# ---- kill -9 during a launch, then resume ------------------------------------
rm -f "$tmp/go" "$tmp/gate.pids"
"$exadl" run "$tmp/s.yaml" --out "$tmp/kill" >"$tmp/kill.out" 2>&1 &
pid=$!
wait_for "$tmp/kill.out" '\] held' || fail "kill: the held launch never started"
kill -KILL $pid
wait $pid 2>/dev/null
for p in $(cat "$tmp/gate.pids" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
d=$(ls -d "$tmp"/kill/*-rf | head -1)
k_before=$(sums "$d")
touch "$tmp/go"
"$exadl" run --resume "$d" >"$tmp/kill2.out" 2>&1
rc=$?
n_before=$(echo "$k_before" | grep -c yaml)
[ $rc -eq 0 ] && [ "$(ls "$d"/records/*.yaml | wc -l)" -eq 3 ] &&
    [ "$(sums "$d" | grep -F -f <(echo "$k_before"))" = "$k_before" ] &&
    grep -q "$n_before launches finished earlier" "$tmp/kill2.out" &&
    pass "exadl killed during a launch: resume runs the rest, the $n_before finished records untouched" ||
    fail "kill then resume: exit $rc: $(grep -m1 resuming "$tmp/kill2.out")"

# ---- D4: one writer per folder -----------------------------------------------
d=$tmp/lock
cp -a "$base" "$d"
rm -f "$d"/records/held-*.yaml "$tmp/go"
sed -i '/held/d' "$d/journal.yaml"
"$exadl" run --resume "$d" >"$tmp/lock1.out" 2>&1 &
pid=$!
wait_for "$tmp/lock1.out" '\] held' || fail "lock: the first resume never started its launch"
# the second in the background: where it is not refused it would wait at the gate too
"$exadl" run --resume "$d" >"$tmp/lock2.out" 2>&1 &
pid2=$!
for _ in $(seq 600); do
    kill -0 $pid2 2>/dev/null || break
    grep -q '\] held' "$tmp/lock2.out" 2>/dev/null && break
    sleep 0.1
done
"$exadl" analyze "$d" >"$tmp/lock3.out" 2>&1
rc3=$?
touch "$tmp/go"
wait $pid2
rc2=$?
wait $pid
rc1=$?
host=$(hostname)
[ $rc2 -eq 2 ] && grep -q "pid $pid" "$tmp/lock2.out" && grep -qF "host $host" "$tmp/lock2.out" &&
    pass "a second resume while one runs: exit 2, names pid $pid and host" ||
    fail "a second resume: exit $rc2: $(tail -n 1 "$tmp/lock2.out")"
[ $rc3 -eq 2 ] && grep -q "pid $pid" "$tmp/lock3.out" &&
    pass "analyze while a resume runs: exit 2, names the holder" ||
    fail "analyze beside a resume: exit $rc3: $(tail -n 1 "$tmp/lock3.out")"
[ $rc1 -eq 0 ] && [ "$(grep -c 'exadl run --resume' "$d/run.yaml")" -eq 1 ] &&
    pass "the first resume ends normally (exit 0), one resume in run.yaml" ||
    fail "the first resume: exit $rc1, $(grep -c 'exadl run --resume' "$d/run.yaml") resumes in run.yaml"

# ---- D1/D2: links planted in a run folder ------------------------------------
# $1 name, $2 what to plant (a command run in the folder), $3... the command
plant() {
    local name=$1 how=$2 d=$tmp/p-$1
    shift 2
    rm -rf "$tmp/out-$name" && mkdir -p "$tmp/out-$name/plots" "$tmp/out-$name/model"
    echo "victim" >"$tmp/out-$name/victim.txt"
    cp -a "$base" "$d"
    (cd "$d" && eval "$how")
    local o_before
    o_before=$(tree_sum "$tmp/out-$name")
    "$@" "$d" >"$tmp/p-$name.out" 2>&1
    local rc=$?
    if [ "$(tree_sum "$tmp/out-$name")" != "$o_before" ]; then
        fail "a planted $name: $* wrote outside the run folder (exit $rc)"
    elif [ $rc -ne 2 ] || ! grep -q 'symbolic link' "$tmp/p-$name.out"; then
        fail "a planted $name: $*: exit $rc: $(tail -n 1 "$tmp/p-$name.out")"
    else
        pass "a planted $name: exadl $2 refused it (exit 2), nothing written outside"
    fi
}
plant plots 'rm -rf plots && ln -s "$tmp/out-plots/plots" plots' "$exadl" analyze
plant journal 'rm -f journal.yaml && ln -s "$tmp/out-journal/victim.txt" journal.yaml' "$exadl" run --resume
plant report 'rm -f report.md && ln -s "$tmp/out-report/victim.txt" report.md' "$exadl" analyze
plant record 'r=$(ls records/good-*1*.yaml | head -1) && rm -f "$r" && ln -s "$tmp/out-record/victim.txt" "$r"' "$exadl" run --resume
plant log 'l=$(ls logs/* | head -1) && rm -f "$l" && ln -s "$tmp/out-log/victim.txt" "$l"' "$exadl" analyze
# model: the hand-written run of tests/it/harness_model.sh
d=$tmp/p-model
cp -a "$root/tests/fixtures/harness/model-run" "$d"
mkdir -p "$tmp/out-model/model"
ln -s "$tmp/out-model/model" "$d/model"
"$exadl" model "$d" --scales 1,2 --quiet >"$tmp/p-model.out" 2>&1
rc=$?
[ $rc -eq 2 ] && [ -z "$(ls "$tmp/out-model/model")" ] && grep -q 'symbolic link' "$tmp/p-model.out" &&
    pass "a planted model/: exadl model RUN refused (exit 2), nothing written through it" ||
    fail "a planted model/: exit $rc, outside holds: $(ls "$tmp/out-model/model" | tr '\n' ' ')"

[ $fails -eq 0 ]
