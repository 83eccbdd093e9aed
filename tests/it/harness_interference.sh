#!/usr/bin/env bash
# Interference is measured, recorded and judged (harness/run/interference.h,
# docs/harness.md "Interference"): a short suite of a stand-in benchmark that
# sleeps (it uses no CPU of its own) runs once beside two CPU hogs (`yes`,
# started and killed by PID here) and once without.  Beside the hogs every
# launch must read busy: results.yaml's launches: carry interference: {verdict:
# busy, ...} with their numbers, run: launches_busy counts them, stdout warns
# at once, report.md marks them, and `exadl analyze` keeps it (journal.yaml).
# Without the hogs the field must exist and be well-formed; its verdict is not
# asserted (other jobs on a shared CI machine may make it busy too).
set -u
bin=${EXADL_BIN:?}
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_interference: $1"; }
fail() { echo "FAIL: harness_interference: $1"; fails=$((fails + 1)); }
[ -r /proc/stat ] || { echo "SKIP: harness_interference: no /proc/stat"; exit 77; }
hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; hogs=(); }
trap stop_hogs EXIT
export EXADL_PEAK_CACHE=$tmp/peak.yaml # pinned: no peak_cpu runs here
python3 "$root/tests/support/peak_cache.py" "$EXADL_PEAK_CACHE" 2e10

mkdir -p "$tmp/prog"
cp "$root/tests/fixtures/harness/fake_bench.sh" "$tmp/prog/bench.sh"
cat >"$tmp/s.yaml" <<EOF2
name: intf
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1]
repetitions: 2
timeout_s: 60
benchmarks:
  - name: sleeper
    program: $tmp/prog/bench.sh
    config: {mode: ok, step: 0.05, steps: 6, sleep: 1}
EOF2

check() { # $1 results.yaml, $2 want busy (1) or any (0)
    python3 - "$1" "$2" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
want_busy = sys.argv[2] == '1'
L = d['launches']
assert len(L) == 2, L
for l in L:
    i = l['interference']
    assert i['verdict'] in ('quiet', 'busy', 'unknown'), i
    if i['verdict'] == 'unknown':
        assert i.get('why'), i
        continue
    for k in ('loadavg_1min_before', 'own_cores', 'others_cores', 'wall_s', 'own_cpu_s', 'busy_above_cores'):
        assert isinstance(i[k], (int, float)) and i[k] >= 0, (k, i)
    assert i['cpus'] >= 1 and 1 <= i['launch_cores'] <= i['cpus'], i
    assert (i['verdict'] == 'busy') == (i['others_cores'] + (i['steal_cores'] or 0) > i['busy_above_cores']), i
    if want_busy:
        assert i['verdict'] == 'busy', i
busy = sum(l['interference']['verdict'] == 'busy' for l in L)
assert d['run']['launches_busy'] == busy, (d['run']['launches_busy'], busy)
PY
}

# ---- beside two hogs, started and killed by PID
yes >/dev/null & hogs+=($!)
yes >/dev/null & hogs+=($!)
out=$("$bin/exadl" run "$tmp/s.yaml" --out "$tmp/busy" 2>&1); rc=$?
stop_hogs
run=$(ls -d "$tmp"/busy/*-intf 2>/dev/null | head -1)
if [ -z "$run" ] || [ ! -f "$run/results.yaml" ]; then
    fail "exadl run beside the hogs wrote no results ($rc)"; echo "$out" | tail -n 20; exit 1
fi
check "$run/results.yaml" 1 && pass "beside two hogs: every launch recorded busy, with its numbers; launches_busy: 2" \
    || { fail "beside two hogs: not recorded busy"; grep -A2 'interference:' "$run/results.yaml" | head -n 12; }
grep -qE '^exadl: warning: launch 1/2 sleeper scale 1 rep 1: measured while the machine was busy \(load [0-9.]+ on [0-9]+ cores; other processes [0-9.]+ cores' <<<"$out" \
    && grep -q '^interference: 2 of 2 launches measured while the machine was busy' <<<"$out" \
    && pass "stdout of exadl run warns at once, naming the launch and the numbers, and sums up at the end" \
    || { fail "no busy warning on stdout"; echo "$out" | head -n 8; }
grep -q '^| sleeper-n1-r1 (busy) |' "$run/report.md" && grep -q '2 of 2 launches were measured while the machine was busy' "$run/report.md" \
    && pass "report.md marks the busy launches and lists their numbers" || fail "report.md does not mark busy launches"
grep -q '^\*\*Interference:\*\* 2 of 2 launches were measured while the machine was busy' "$run/report.md" \
    && [ "$(grep -n '^\*\*Interference:' "$run/report.md" | cut -d: -f1)" -lt "$(grep -n '^## Summary' "$run/report.md" | cut -d: -f1)" ] \
    && pass "report.md says it on its first page, above the summary" || fail "no interference line above the summary"
grep -q 'interference: {verdict: busy' "$run/journal.yaml" && pass "journal.yaml keeps the verdict" || fail "journal.yaml has no interference"
cp "$run/results.yaml" "$tmp/busy.yaml"
"$bin/exadl" analyze "$run" >/dev/null 2>&1
check "$run/results.yaml" 1 && pass "exadl analyze keeps the busy verdicts (from journal.yaml)" || fail "analyze lost the busy verdicts"

# ---- without hogs: the field exists and is well-formed (the verdict may be busy on a loaded machine)
out=$("$bin/exadl" run "$tmp/s.yaml" --out "$tmp/quiet" 2>&1); rc=$?
run=$(ls -d "$tmp"/quiet/*-intf 2>/dev/null | head -1)
[ -n "$run" ] && check "$run/results.yaml" 0 \
    && pass "without hogs: interference recorded and well-formed ($(grep -o 'verdict: [a-z]*' "$run/results.yaml" | sort | uniq -c | tr -s ' ' | paste -sd,))" \
    || { fail "without hogs: interference missing or malformed ($rc)"; echo "$out" | tail -n 5; }
[ $fails -eq 0 ]
