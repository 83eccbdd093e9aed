#!/usr/bin/env bash
# The peak is the machine's, and re-analysis changes nothing (docs/harness.md
# "The peak", "Resume and analyze"):
# - a run takes the CPU peak from this machine's cache (EXADL_PEAK_CACHE, a
#   pinned file here: no test depends on a quiet probe) and records it in
#   probe.yaml with where it came from;
# - `exadl analyze` of the untouched folder, with --machine vendor-a given to
#   the run and another cache in the environment, writes results.yaml byte for
#   byte but for the history line analyze appends, and results.csv/json whole;
# - the records made 2x slower and analysed again: fraction_of_peak falls by
#   2x, the peak stays (a fraction of peak never rises because the machine got
#   busier);
# - a cache whose CI is wider than 10% of its median is refused: no
#   fraction_of_peak, the source says why;
# - `--remeasure-peak` beside two CPU hogs (started and killed by PID):
#   peak_cpu runs 5 times, the probe is judged busy, refused as a denominator
#   and not cached.
set -u
bin=${EXADL_BIN:?}
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_peak: $1"; }
fail() { echo "FAIL: harness_peak: $1"; fails=$((fails + 1)); }
[ -x "$bin/peak_cpu" ] || { echo "SKIP: harness_peak: peak_cpu not built"; exit 77; }
hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; hogs=(); }
trap stop_hogs EXIT
cache=$tmp/peak-pinned.yaml
python3 "$root/tests/support/peak_cache.py" "$cache" 2e10
export EXADL_PEAK_CACHE=$cache

mkdir -p "$tmp/prog"
cp "$root/tests/fixtures/harness/fake_bench.sh" "$tmp/prog/bench.sh"
cat >"$tmp/s.yaml" <<EOF2
name: peak
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1, 2]
repetitions: 1
timeout_s: 60
benchmarks:
  - name: good
    program: $tmp/prog/bench.sh
    config: {mode: ok, step: 0.05, steps: 6}
EOF2
out=$("$bin/exadl" run "$tmp/s.yaml" --out "$tmp/res" --machine vendor-a 2>&1); rc=$?
run=$(ls -d "$tmp"/res/*-peak 2>/dev/null | head -1)
if [ -z "$run" ] || [ ! -f "$run/results.yaml" ]; then
    fail "exadl run wrote no run folder ($rc)"; echo "$out" | tail -n 20; exit 1
fi
peaks() { # $1 results.yaml: "FLOPS_PER_DEVICE FRACTION@1 FRACTION@2" (None where absent)
    python3 - "$1" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
f = {m['scale']: m['value'] for m in d['metrics'] if m['metric'] == 'fraction_of_peak'}
print(d['device_peak']['flops_per_device'], f.get(1), f.get(2))
PY
}
source_has() { # $1 results.yaml, $2 regular expression the device peak's source must match
    python3 -c "import re,sys,yaml; s=yaml.safe_load(open(sys.argv[1]))['device_peak']['source']; sys.exit(not re.search(sys.argv[2], s))" "$1" "$2"
}
grep -qF "exadl: peak: from $cache" <<<"$out" && ! grep -q 'peak: measuring' <<<"$out" \
    && python3 - "$run/probe.yaml" "$cache" <<'PY' && pass "the run took the cached peak (no probe) and recorded it in probe.yaml with its source" || { fail "the cached peak"; echo "$out" | head -n 5; }
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))['peak']
assert sys.argv[2] in p['from'] and len(p['outputs']) == 5 and p['interference']['verdict'] == 'quiet', p
PY
read -r pk f1 f2 < <(peaks "$run/results.yaml")
[ "$pk" = 20000000000.0 ] && [ "$f1" != None ] && source_has "$run/results.yaml" 'median of 5 probes.*from the peak cache' \
    && pass "device peak 2e10 per core from the cache, fraction_of_peak $f1" || fail "device peak $pk, fraction $f1"

# ---- re-analysis of the untouched folder, elsewhere (another cache): byte for byte
for f in yaml csv json; do cp "$run/results.$f" "$tmp/orig.$f"; done
python3 "$root/tests/support/peak_cache.py" "$tmp/other.yaml" 9e10
EXADL_PEAK_CACHE=$tmp/other.yaml "$bin/exadl" analyze "$run" >"$tmp/an.out" 2>&1; arc=$?
# the one line analyze adds: run.history's "UTC: exadl analyze DIR"
if diff "$tmp/orig.yaml" <(grep -v "^  - '[0-9TZ:-]*: exadl analyze " "$run/results.yaml") >"$tmp/an.diff" \
    && [ "$(diff "$tmp/orig.yaml" "$run/results.yaml" | grep -c '^>')" = 1 ]; then
    pass "analyze of the untouched folder: results.yaml byte for byte but the history line it adds (exit $arc)"
else
    fail "analyze changed results.yaml"; head -n 20 "$tmp/an.diff"
fi
cmp -s "$tmp/orig.csv" "$run/results.csv" && cmp -s "$tmp/orig.json" "$run/results.json" \
    && pass "results.csv and results.json byte for byte" || { fail "results.csv/json changed"; diff "$tmp/orig.csv" "$run/results.csv" | head -n 4; }
grep -q '^  machine: vendor-a$' "$run/results.yaml" && grep -q '^machine_name: vendor-a$' "$run/run.yaml" \
    && pass "analyze keeps machine: vendor-a (run.yaml's machine_name)" || fail "the machine name after analyze"

# ---- the records 2x slower, analysed again: the fraction of peak falls, the peak stays
python3 - "$run/records" <<'PY'
import glob, re, sys
for p in glob.glob(sys.argv[1] + '/*.yaml'):
    t = open(p).read()
    t = re.sub(r'step_s: \[([^\]]*)\]', lambda m: 'step_s: [' + ', '.join(repr(2 * float(x)) for x in m.group(1).split(',')) + ']', t)
    open(p, 'w').write(t)
PY
"$bin/exadl" analyze "$run" >/dev/null 2>&1
read -r spk s1 s2 < <(peaks "$run/results.yaml")
python3 -c "import sys; a=[float(x) for x in sys.argv[1:]]; assert a[0]==a[1] and abs(a[3]/a[2]-0.5)<0.01 and abs(a[5]/a[4]-0.5)<0.01, a" \
    "$pk" "$spk" "$f1" "$s1" "$f2" "$s2" \
    && pass "records 2x slower: fraction_of_peak $f1 -> $s1, $f2 -> $s2; the peak stays $spk" \
    || fail "slower records: peak $pk -> $spk, fraction $f1 -> $s1, $f2 -> $s2"

# ---- a cache whose CI is too wide: refused as a denominator
python3 "$root/tests/support/peak_cache.py" "$tmp/wide.yaml" 2e10 0.5
out=$(EXADL_PEAK_CACHE=$tmp/wide.yaml "$bin/exadl" run "$tmp/s.yaml" --out "$tmp/wide" 2>&1)
w=$(ls -d "$tmp"/wide/*-peak 2>/dev/null | head -1)
read -r wpk w1 w2 < <(peaks "$w/results.yaml")
[ "$wpk" = None ] && [ "$w1" = None ] && source_has "$w/results.yaml" '^refused: the 95% CI of the peak over 5 peak_cpu probes on this host' \
    && pass "a peak whose CI is wider than 10% of its median: no fraction_of_peak, the reason said" \
    || { fail "wide CI: peak $wpk, fraction $w1"; grep -A2 device_peak "$w/results.yaml"; }

# ---- --remeasure-peak beside two hogs: measured, busy, refused, not cached
cp "$cache" "$tmp/cache.before"
yes >/dev/null & hogs+=($!)
yes >/dev/null & hogs+=($!)
out=$("$bin/exadl" run "$tmp/s.yaml" --out "$tmp/busy" --remeasure-peak 2>&1)
stop_hogs
b=$(ls -d "$tmp"/busy/*-peak 2>/dev/null | head -1)
read -r bpk b1 b2 < <(peaks "$b/results.yaml")
grep -q 'exadl: peak: measuring (5 runs of peak_cpu, --remeasure-peak)' <<<"$out" && grep -q 'exadl: peak: not cached: the machine was busy' <<<"$out" \
    && cmp -s "$cache" "$tmp/cache.before" && [ "$bpk" = None ] && [ "$b1" = None ] \
    && source_has "$b/results.yaml" '^refused: peak_cpu ran on this host while the machine was busy' \
    && python3 -c "import yaml,sys; p=yaml.safe_load(open(sys.argv[1]))['peak']; assert len(p['outputs'])==5 and p['interference']['verdict']=='busy', p" "$b/probe.yaml" \
    && pass "--remeasure-peak beside two hogs: 5 probes, judged busy, refused as a denominator, the cache untouched" \
    || { fail "the busy probe"; grep 'peak' <<<"$out"; grep -A2 device_peak "$b/results.yaml"; }
[ $fails -eq 0 ]
