#!/usr/bin/env bash
# The network search (docs/search.md): the planted optimum is found far
# faster than random sampling (counts of candidates, fixed seeds, sync mode:
# its decisions do not depend on the completion order); async and sync runs
# on 3 and 4 ranks complete, with a planted fitness and with training;
# reproducibility (sync twice, async replayed from its record, a replay of
# another seed refused); --help, --describe, --check-config, bad options
# refused in one line; a search through exadl run (metrics, report section,
# plot); 64 simulated workers under SMPI where smpirun and build-smpi are
# (normal build only).  Counts only: no host time is asserted (the SMPI case
# compares simulated times).
set -u
S=$EXADL_BIN/search
T=$EXADL_TMP
M="${EXADL_MPIRUN:-mpirun} --oversubscribe"
key() { sed -n "s/^  $1: //p" "$2" | head -n 1; }
ok() { [ -f "$2" ] && grep -q '^status: ok' "$2" && [ "$(key evaluated "$2")" != "" ] || { echo "FAIL: search $1: $(tail -n 2 "$3")"; return 1; }; }

# --help, --describe, --check-config: no MPI start-up
if "$S" --help >"$T/help.out" 2>&1 && grep -q 'exit status' "$T/help.out" && grep -q -- '--replay RECORD' "$T/help.out"; then
    echo "PASS: search --help (with exit codes)"
else
    echo "FAIL: search --help: $(head -n 2 "$T/help.out")"
fi
if "$S" --describe --seed 7 >"$T/desc.out" 2>&1 && grep -q '^configurations 49152$' "$T/desc.out" &&
    grep -q '^planted optimum (seed 7): growth=' "$T/desc.out"; then
    echo "PASS: search --describe: the space (49152 configurations) and the planted optimum"
else
    echo "FAIL: search --describe: $(tail -n 2 "$T/desc.out")"
fi
"$S" --check-config --fitness planted --mode sync --cost-s 0.5 >"$T/cc.out" 2>&1 &&
    grep -q 'configuration is valid' "$T/cc.out" && echo "PASS: search --check-config" ||
    echo "FAIL: search --check-config: $(cat "$T/cc.out")"
# bad options: one line, exit 2, the option named
bad=0 n=0
while IFS='|' read -r args want; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$S" --check-config $args >"$T/bad.out" 2>&1
    rc=$?
    if [ $rc != 2 ] || [ "$(wc -l <"$T/bad.out")" != 1 ] || ! grep -q -- "$want" "$T/bad.out"; then
        echo "FAIL: search refusal of '$args' (exit $rc): $(cat "$T/bad.out")"
        bad=1
    fi
done <<'EOF'
--mode fast|--mode: unknown value 'fast'
--evals 0|--evals
--evals 49153|--evals
--stop-at-optimum|--stop-at-optimum: only with --fitness planted
--fitness planted --group-ranks 2|--group-ranks: only with --fitness train
--cost-s 1|--cost-s: only with --fitness planted
--generation 4|--generation: only with --mode sync
--population 1|--population
--population 30 --evals 20|--population 30: more than --evals 20
--steps x|--steps
--bogus|unknown option '--bogus'
EOF
[ $bad = 0 ] && echo "PASS: search $n bad options refused in one line each (exit 2)"
# ranks that do not form groups: refused on every rank, one message
$M -np 4 "$S" --group-ranks 2 >"$T/groups.out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q 'need 1 master + a multiple of --group-ranks 2' "$T/groups.out" &&
    echo "PASS: search 4 ranks in groups of 2 refused" || echo "FAIL: search groups of 2 on 4 ranks (exit $rc): $(tail -n 2 "$T/groups.out")"

# the planted optimum: the evolving search against random sampling, sync on
# 4 ranks (3 worker groups), seeds 1 2 3.  Random sampling without repetition
# meets one configuration of N = 49152 after (N + 1) / 2 = 24576.5 on average.
plant="--fitness planted --mode sync --evals 49152 --stop-at-optimum"
sum=0 fails=0 worst=0
for s in 1 2 3; do
    $M -np 4 "$S" $plant --seed $s --record "$T/p$s.yaml" >"$T/p$s.out" 2>&1
    ok "planted seed $s" "$T/p$s.yaml" "$T/p$s.out" || { fails=1; continue; }
    e=$(key evals_to_optimum "$T/p$s.yaml")
    [ "${e:--1}" -gt 0 ] 2>/dev/null || { echo "FAIL: search seed $s: the optimum was not found ($e)"; fails=1; continue; }
    sum=$((sum + e))
    [ "$e" -gt "$worst" ] && worst=$e
done
if [ $fails = 0 ]; then
    ratio=$((24576 * 3 / sum))
    [ $ratio -ge 20 ] && echo "PASS: search found the planted optimum after $sum candidates over 3 seeds (random sampling: 73729 expected), $ratio x fewer" ||
        echo "FAIL: search planted optimum after $sum candidates over 3 seeds: only $ratio x fewer than random sampling"
    # random sampling with 10 x the evolving search's worst count: it misses for the fixed seeds
    budget=$((worst * 10)) missed=0
    for s in 1 2 3; do
        $M -np 4 "$S" $plant --strategy random --evals $budget --seed $s --record "$T/r$s.yaml" >"$T/r$s.out" 2>&1
        ok "random seed $s" "$T/r$s.yaml" "$T/r$s.out" && [ "$(key evals_to_optimum "$T/r$s.yaml")" = -1 ] && missed=$((missed + 1))
    done
    [ $missed -ge 2 ] && echo "PASS: search random sampling with $budget candidates (10 x the search's worst) missed the optimum for $missed of 3 seeds" ||
        echo "FAIL: search random sampling with $budget candidates missed the optimum for only $missed of 3 seeds"
fi

# reproducibility: sync twice gives the same candidates, whatever the completion order
$M -np 4 "$S" $plant --seed 1 --record "$T/p1b.yaml" >"$T/p1b.out" 2>&1
h1=$(key trace_hash "$T/p1.yaml" 2>/dev/null) h2=$(key trace_hash "$T/p1b.yaml" 2>/dev/null)
[ -n "$h1" ] && [ "$h1" = "$h2" ] && echo "PASS: search sync: the same seed gives the same candidates (trace $h1)" ||
    echo "FAIL: search sync: traces '$h1' and '$h2' differ"
# async on 3 ranks with a simulated cost, then replayed in its completion order
async="--fitness planted --mode async --evals 60 --population 8 --cost-s 0.002 --seed 5"
$M -np 3 "$S" $async --record "$T/a.yaml" >"$T/a.out" 2>&1
if ok "async planted on 3 ranks" "$T/a.yaml" "$T/a.out"; then
    [ "$(key evaluated "$T/a.yaml")" = 60 ] && echo "PASS: search async planted on 3 ranks: 60 candidates, each once" ||
        echo "FAIL: search async planted on 3 ranks: $(key evaluated "$T/a.yaml") candidates evaluated, not 60"
    $M -np 3 "$S" $async --replay "$T/a.yaml" --record "$T/ar.yaml" >"$T/ar.out" 2>&1
    if ok "async replay" "$T/ar.yaml" "$T/ar.out"; then
        [ "$(key trace_hash "$T/ar.yaml")" = "$(key trace_hash "$T/a.yaml")" ] &&
            grep -q 'check: replay_identical, outcome: pass' "$T/ar.yaml" &&
            echo "PASS: search async replayed in the recorded completion order: the same candidates" ||
            echo "FAIL: search async replay: $(tail -n 2 "$T/ar.out")"
    fi
    $M -np 3 "$S" ${async/--seed 5/--seed 6} --replay "$T/a.yaml" >"$T/ax.out" 2>&1
    rc=$?
    [ $rc != 0 ] && grep -q 'search: error: --replay' "$T/ax.out" &&
        echo "PASS: search a replay with another seed refused: $(grep -m1 'search: error' "$T/ax.out" | cut -c1-80)" ||
        echo "FAIL: search a replay with another seed (exit $rc): $(tail -n 2 "$T/ax.out")"
fi
$M -np 3 "$S" --replay "$T/help.out" >"$T/rbad.out" 2>&1
[ $? = 2 ] && grep -q "search: error: .*help.out" "$T/rbad.out" && echo "PASS: search --replay of a file that is no record refused" ||
    echo "FAIL: search --replay of a non-record: $(tail -n 2 "$T/rbad.out")"

# training: async on 3 ranks (2 groups of 1), sync on 3 ranks (1 group of 2)
$M -np 3 "$S" --evals 6 --population 3 --steps 2 --record "$T/ta.yaml" >"$T/ta.out" 2>&1
if ok "async training on 3 ranks" "$T/ta.yaml" "$T/ta.out"; then
    [ "$(key evaluated "$T/ta.yaml")" = 6 ] && grep -q 'check: fitness_finite, outcome: pass' "$T/ta.yaml" &&
        ! grep -q 'flops: 0,' "$T/ta.yaml" &&
        echo "PASS: search async training on 3 ranks: 6 candidates trained, finite held-out losses, FLOPs counted" ||
        echo "FAIL: search async training: $(tail -n 2 "$T/ta.out")"
fi
$M -np 3 "$S" --mode sync --group-ranks 2 --evals 4 --population 2 --generation 2 --steps 2 --record "$T/ts.yaml" >"$T/ts.out" 2>&1
if ok "sync training, a group of 2" "$T/ts.yaml" "$T/ts.out"; then
    [ "$(key generations "$T/ts.yaml")" = 2 ] && grep -q 'check: fitness_finite, outcome: pass' "$T/ts.yaml" &&
        echo "PASS: search sync training on 3 ranks (a group of 2): 2 generations" ||
        echo "FAIL: search sync training: $(tail -n 2 "$T/ts.out")"
fi

# through exadl run: the search block's metrics, the report's section and its plot
export EXADL_PEAK_CACHE=$T/peak.yaml # pinned: no peak_cpu runs here
python3 "$EXADL_ROOT/tests/support/peak_cache.py" "$EXADL_PEAK_CACHE" 2e10
cat >"$T/suite.yaml" <<EOF2
exadl_suite: 1
name: sr
launcher: mpirun
repetitions: 1
timeout_s: 300
benchmarks:
  - name: plant
    program: $S
    scales: [3]
    config: {fitness: planted, mode: sync, evals: 49152, stop_at_optimum: null, seed: 1}
EOF2
mkdir -p "$T/runs"
if "$EXADL_BIN/exadl" run "$T/suite.yaml" --out "$T/runs" >"$T/exadl.out" 2>&1; then
    d=$(ls -d "$T"/runs/*-sr | head -n 1)
    if grep -q 'metric: search_evals_to_optimum, value: ' "$d/results.yaml" &&
        grep -q 'metric: search_candidates_per_hour' "$d/results.yaml" && grep -q '^## Network search' "$d/report.md" &&
        grep -q '^| plant | 3 | sync | planted |' "$d/report.md" && [ -f "$d/plots/search_best.dat" ]; then
        echo "PASS: search through exadl run: search_* metrics, the report's network search section and its plot"
    else
        echo "FAIL: search through exadl run: $(grep -c search_ "$d/results.yaml") search_ rows; report: $(grep -c 'Network search' "$d/report.md")"
    fi
else
    echo "FAIL: search: exadl run of a search suite: $(tail -n 3 "$T/exadl.out")"
fi

# simulated (docs/search.md "At scale"): 64 workers under SMPI, async and
# sync, in simulated time (deterministic: no host time but the master's
# charged decisions, microseconds against a minute per candidate)
root=${EXADL_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "$(basename "${EXADL_BUILD:-build}")" != build ]; then
    echo "SKIP: search under SMPI: the normal build only"
elif ! command -v smpirun >/dev/null || [ ! -x "$root/build-smpi/bin/search" ]; then
    echo "SKIP: search under SMPI: no smpirun or no build-smpi/bin/search (make smpi)"
else
    for m in async sync; do
        "$root/harness/launchers/smpi.sh" -np 65 -- "$S" --fitness planted --mode $m --evals 640 --population 32 \
            --cost-s 60 --seed 3 --record "$T/sim-$m.yaml" >"$T/sim-$m.out" 2>&1
    done
    if ok "simulated async" "$T/sim-async.yaml" "$T/sim-async.out" && ok "simulated sync" "$T/sim-sync.yaml" "$T/sim-sync.out" &&
        grep -q '^  simulated: true' "$T/sim-async.yaml" && [ "$(key evaluated "$T/sim-async.yaml")" = 640 ] &&
        [ "$(key messages_received "$T/sim-sync.yaml")" = 640 ]; then
        a=$(key candidates_per_hour "$T/sim-async.yaml") s=$(key candidates_per_hour "$T/sim-sync.yaml")
        b=$(key master_busy_fraction "$T/sim-async.yaml")
        if awk -v a="$a" -v s="$s" -v b="$b" 'BEGIN { exit !(a > s && b > 0) }'; then
            echo "PASS: search under SMPI, 64 workers: async $a, sync $s candidates per simulated hour (a generation waits for its largest network); decisions charged (master busy $b)"
        else
            echo "FAIL: search under SMPI: async $a, sync $s candidates/h, master busy $b"
        fi
    fi
fi
exit 0
