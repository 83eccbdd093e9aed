#!/usr/bin/env bash
# The report compares like with like and its figures read right (issue 27), on
# the .gp/.dat files and report.md of a run of a stand-in benchmark
# (tests/fixtures/harness/report_bench.sh: records written at once, no MPI):
# two STEMDL entries that differ only in their gradient-reduction mode, a
# CosmoFlow entry with the same mode, whose efficiency CIs reach 2.55 at 2
# ranks, and collectives behind an emulated link (EXADL_NET_RATE) that report
# a busbw above the link's rate.  Checked: the modes section and its plots
# set only the STEMDL entries side by side; titles promise a model only where
# one is drawn; every efficiency y range holds every CI bound; rank axes tick
# at integers; sizes tick at powers of two in binary units; no log axis is
# left with gnuplot's default labels (0.100000); rates take one SI prefix (the
# history plot and table too); throughput and FLOP axes start at 0; the key
# is outside the plot area; STEMDL's efficiency plot draws Summit's published
# 0.93; a best busbw above the link is flagged, one below is not.
set -u
exadl=${EXADL_BIN:?}/exadl
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
bench=$root/tests/fixtures/harness/report_bench.sh
fails=0
pass() { echo "PASS: report_plots: $1"; }
fail() { echo "FAIL: report_plots: $1"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "SKIP: report_plots: no python3"; exit 77; }

cat >"$tmp/plots.yaml" <<EOF
name: plots
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1, 2]
repetitions: 1
timeout_s: 30
device_peak_flops: 1.0e11
benchmarks:
  - name: bv-layer
    program: $bench
    config: {kind: stemdl, orch: bitvector}
  - name: coord-layer
    program: $bench
    config: {kind: stemdl, orch: coordinator, step: 0.6}
  - name: cosmo
    program: $bench
    config: {kind: cosmoflow, orch: bitvector, step: 0.2}
  - name: coll
    program: $bench
    scales: [2]
    env: {EXADL_NET_RATE: 1gbit}
    config: {kind: coll, busbw: 0.5}
  - name: fastlink
    program: $bench
    scales: [2]
    env: {EXADL_NET_RATE: 10gbit}
    config: {kind: coll, busbw: 0.5}
EOF
for k in 1 2; do
    out=$("$exadl" run "$tmp/plots.yaml" --out "$tmp/res" 2>&1) || { fail "exadl run $k: $(echo "$out" | tail -n 3)"; exit 1; }
done
runs=$(ls -d "$tmp"/res/*-plots)
run=$(echo "$runs" | head -1)
[ -f "$run/report.md" ] && [ -f "$run/plots/bv-layer_efficiency.gp" ] || { fail "no report or plots in $run"; exit 1; }

python3 - "$run" <<'PY' || fails=$((fails + 1))
import glob, math, os, re, sys
run = sys.argv[1]
P = os.path.join(run, 'plots')
rep = open(os.path.join(run, 'report.md')).read()
gp = {os.path.basename(f)[:-3]: open(f).read() for f in glob.glob(P + '/*.gp')}
bad = 0
def check(ok, what):
    global bad
    print(('PASS' if ok else 'FAIL') + ': report_plots: ' + what)
    bad += not ok
def dat(name):
    rows = []
    for l in open(os.path.join(P, name + '.dat')):
        if l.startswith('#') or not l.strip() or not re.match(r'[0-9]', l): continue
        rows.append(l.split())
    return rows
def num(x):
    try: return float(x)
    except ValueError: return math.nan
def yrange(g):
    m = re.search(r'^set yrange \[([^:\]]*):([^\]]*)\]', g, re.M)
    return (num(m.group(1)), num(m.group(2))) if m else None

# efficiency: the y range holds every value and CI bound of the .dat
eff = [n for n in gp if n.endswith('_efficiency') and not n.startswith('model')]
msgs = []
for n in eff:
    r = yrange(gp[n])
    vals = [v for row in dat(n) for v in map(num, row[1:]) if math.isfinite(v)]
    if not r or not vals or not all(r[0] <= v <= r[1] for v in vals):
        msgs.append('%s: yrange %s, values up to %s' % (n, r, max(vals) if vals else '-'))
check(eff and not msgs and max(num(x) for row in dat('bv-layer_efficiency') for x in row[1:]) > 1.2,
      'every efficiency y range holds every CI bound (%d plots, CI up to 2.55) %s' % (len(eff), msgs))

# rank axes: an explicit list of integer ticks
rank_plots = [n for n, g in gp.items() if re.search(r"^set xlabel '(ranks|scale)", g, re.M)]
msgs = []
for n in rank_plots:
    m = re.search(r'^set xtics \(([^)]*)\)', gp[n], re.M)
    if not m or not all(re.fullmatch(r'\d+', t.strip()) for t in m.group(1).split(',')):
        msgs.append(n)
check(len(rank_plots) >= 10 and not msgs, 'rank axes tick at integers only (%d plots) %s' % (len(rank_plots), msgs))

# no gnuplot default labels (0.100000) on a log axis, no %f formats
msgs = [n for n, g in gp.items()
        if (re.search(r'^set logscale [a-z]*y', g, re.M) and not re.search(r'^set format y', g, re.M))
        or re.search(r"^set format [xy] '[^']*%[0-9.]*f", g, re.M)]
check(not msgs, 'no %f-style or default log-axis labels ' + str(msgs))

# message sizes: ticks at powers of two, in B/KiB/MiB/GiB
msgs = []
for n in ('coll_busbw', 'coll_latency'):
    m = re.search(r'^set xtics \(([^)]*)\)', gp.get(n, ''), re.M)
    tics = re.findall(r'"(\d+) (B|KiB|MiB|GiB)" (\d+)', m.group(1)) if m else []
    mult = {'B': 1, 'KiB': 1024, 'MiB': 1 << 20, 'GiB': 1 << 30}
    if len(tics) < 4 or not all(int(v) * mult[u] == int(x) and int(x) & (int(x) - 1) == 0 for v, u, x in tics):
        msgs.append(n)
check(not msgs, 'message sizes tick at powers of two in binary units ' + str(msgs))

# rates: one SI prefix from the data; throughput and FLOP axes from 0
g = gp['bv-layer_flops']
check("set ylabel 'GFLOP/s'" in g and '$2/1e+09' in g, 'FLOP/s axis in GFLOP/s')
msgs = [n for n in gp if (n.endswith('_throughput') or n.endswith('_flops')) and not re.search(r'^set yrange \[0:', gp[n], re.M)]
check(not msgs, 'throughput and FLOP axes start at 0 ' + str(msgs))

# the key outside the plot area
msgs = [n for n, g in gp.items() for l in re.findall(r'^set key.*$', g, re.M) if 'outside' not in l and 'below' not in l]
check(not msgs, 'every key outside the plot area ' + str(msgs))

# Summit's published 0.93 on STEMDL's weak-scaling efficiency, not on CosmoFlow's
check(re.search(r"0\.93 with lines.*Summit 2019", gp['bv-layer_efficiency']) is not None
      and 'Summit' not in gp['cosmo_efficiency'], "Summit's 0.93 drawn on STEMDL's efficiency only")

# the modes section: the STEMDL entries only, with the CosmoFlow entry named apart
sec = rep.split('## Gradient reduction: modes side by side', 1)
body = sec[1].split('\n## ', 1)[0] if len(sec) == 2 else ''
rows = re.findall(r'^\| (\S+) \| (?:bitvector|coordinator)\+', body, re.M)
check(sorted(set(rows)) == ['bv-layer', 'coord-layer'] and 'Not set side by side: cosmo' in body,
      'the modes section sets only one workload against itself (rows: %s)' % sorted(set(rows)))
heads = [open(f).readline() for f in glob.glob(P + '/ablation_*.dat')]
check(heads and not any('cosmo' in h for h in heads), 'the modes plots hold no other workload')

# titles promise a model only where one is drawn
msgs = []
for n in [n for n in gp if n.startswith('ablation_')]:
    t = re.search(r'^set title (.*)$', gp[n], re.M).group(1)
    head = open(os.path.join(P, n + '.dat')).readline().lstrip('#').split()
    cols = [i for i, h in enumerate(head) if 'model' in h]
    drawn = any(math.isfinite(num(row[i])) for row in dat(n) for i in cols if i < len(row))
    if 'model' in t and not drawn:
        msgs.append(n)
check([n for n in gp if n.startswith('ablation_')] and not msgs, 'titles say "model" only where one is drawn ' + str(msgs))

# the emulated link: 1 Gbit/s is 0.125 GB/s; busbw 0.99 GB/s is flagged, under 10 Gbit/s not
colls = rep.split('### Collectives')
flag_coll = any("Above the emulated link's 1 Gbit/s" in c and 'allreduce' in c for c in colls)
check(flag_coll and rep.count('Above the emulated link') == 1,
      'a best busbw above the emulated link is flagged (and only there)')
sys.exit(1 if bad else 0)
PY

# history over the two runs: the y axis and the CIs in the value's SI prefix
hout=$("$exadl" history $runs --metric sustained_flops --benchmark bv-layer --out "$tmp/hist" 2>&1)
hgp=$(ls "$tmp"/hist/*/history.gp 2>/dev/null | head -1)
if [ -n "$hgp" ] && grep -q "^set ylabel 'GFLOP/s'" "$hgp" && grep -q '\$2/1e+09' "$hgp" \
    && grep -q '[0-9.]* \[[0-9.]*, [0-9.]*\] GFLOP/s' <<<"$hout" && ! grep -q 'e+1[0-9]' <<<"$hout"; then
    pass "history: GFLOP/s on its y axis and in its table's CIs"
else
    fail "history's SI units"; echo "$hout" | tail -n 6; [ -n "$hgp" ] && grep ylabel "$hgp"
fi
# the scripts draw (a wrong line in one would leave it undrawn)
if command -v gnuplot >/dev/null; then
    missing=$(for g in "$run"/plots/*.gp; do [ -s "${g%.gp}.png" ] || basename "$g"; done)
    [ -z "$missing" ] && pass "gnuplot draws every plot" || fail "not drawn: $missing"
fi
[ $fails -eq 0 ]
