#!/usr/bin/env bash
# energy (docs/energy.md): the energy of stemdl's timed steps from power
# sources that need no hardware, with exact energies, on 2 ranks of one node:
# - a powercap-shaped folder (EXADL_POWERCAP_ROOT: package-0 with a wrap at
#   10 J, its DRAM zone, a core zone that must be left out), the fake NVML
#   (tests/support/fake_nvml.c through EXADL_NVML_LIB: GPU 0's energy counter,
#   GPU 1's power) and a site meter command.  With EXADL_POWER_INTERVAL_S=0
#   the sources are read at the window's two ends only, in the order RAPL,
#   NVML, meter, and the meter is also asked once when found: so the meter
#   script, at its second call (the window's start, after the RAPL reading),
#   advances the RAPL counters (package 9 J -> 0.5 J across the wrap: 1.5 J;
#   DRAM 2 J), and the fake NVML's k-th call reads the k-th value of its file
#   (GPU 0: 3.5 J).  Every source's energy, the node's (the meter's: 250.5
#   J), J/sample and FLOP/s per W in the record are exact; GPU 1's peak is
#   its 300 W; one sampling rank per node (the meter asked 3 times);
# - without the meter the node's energy is the components' sum (3.5 J), in
#   stemdl's, cosmoflow's and modelpar's records alike;
# - an unreadable counter: that source n/a with its reason, the node's energy
#   n/a (never 0), the run still ok; no source at all: each absent with why;
# - a bad EXADL_POWER_INTERVAL_S: one line naming it, exit 2;
# - a suite's power: block (the sources as the launches' environment; a bad
#   meter and an unknown key refused with their position, exit 2);
# - exadl run of the fake sources, 2 launches: the energy rows in results
#   (yaml, csv, json) at 3.5 J over the samples, the report's energy table
#   and power-over-time plot;
# - exadl compare of two such runs, B's GPU at 7 J: J/sample 2x with its CI
#   in procurement (A wins) and a regression by launches (exit 1);
# - a real RAPL read where /sys/class/powercap/intel-rapl:0 is readable
#   (SKIP with the reason otherwise).
set -u
S=$EXADL_BIN/stemdl
T=${EXADL_TMP:?}/energy
M=${EXADL_MPIRUN:-mpirun}
NVML=${EXADL_BUILD:?}/lib/libexadl_fake_nvml.so
mkdir -p "$T"
[ -r "$NVML" ] || { echo "SKIP: energy: $NVML not built"; exit 77; }
command -v "$M" >/dev/null || { echo "SKIP: energy: no mpirun"; exit 77; }

# ---- the fake sources
pc=$T/powercap
mkdir -p "$pc/intel-rapl:0" "$pc/intel-rapl:0:0" "$pc/intel-rapl:0:1" "$T/nvml"
printf 'package-0\n' >"$pc/intel-rapl:0/name"
printf '9000000\n' >"$pc/intel-rapl:0/energy_uj"
printf '10000000\n' >"$pc/intel-rapl:0/max_energy_range_uj"
printf 'dram\n' >"$pc/intel-rapl:0:0/name"
printf '100\n' >"$pc/intel-rapl:0:0/energy_uj"
printf '10000000\n' >"$pc/intel-rapl:0:0/max_energy_range_uj"
printf 'core\n' >"$pc/intel-rapl:0:1/name"
printf '7\n' >"$pc/intel-rapl:0:1/energy_uj"
printf '2\n' >"$T/nvml/count"
printf '1000 1000 4500\n' >"$T/nvml/gpu0_energy_mj"
printf '300000\n' >"$T/nvml/gpu1_power_mw"
# the site meter: its calls counted in a file; the second advances RAPL
{
    echo '#!/bin/sh'
    echo "n=\$(cat '$T/meter.calls' 2>/dev/null || echo 0)"
    echo "echo \$((n + 1)) >'$T/meter.calls'"
    echo 'case $n in'
    echo '0) echo "1000 J" ;;'
    echo "1) printf '500000\\n' >'$pc/intel-rapl:0/energy_uj'"
    echo "   printf '2000100\\n' >'$pc/intel-rapl:0:0/energy_uj'"
    echo '   echo "1 kJ" ;;'
    echo '*) echo "1250.5 J" ;;'
    echo 'esac'
} >"$T/meter.sh"
chmod +x "$T/meter.sh"

run() { # name np [VAR=value ...]: stemdl tiny with the fake sources and VARs
    local name=$1 np=$2
    shift 2
    env EXADL_POWER_INTERVAL_S=0 EXADL_POWERCAP_ROOT="$pc" EXADL_NVML_LIB="$NVML" \
        EXADL_FAKE_NVML_DIR="$T/nvml" "$@" \
        "$M" -np "$np" "$S" --preset tiny --steps 3 --warmup 1 --threads 1 --quiet \
        --record "$T/$name.yaml" >"$T/$name.out" 2>&1
}

check() { # name message python-asserts (the record as r, its energy block as e, src by name)
    local name=$1 msg=$2
    if python3 - "$T/$name.yaml" "$3" <<'PY'; then echo "PASS: energy: $msg"; else echo "FAIL: energy: $msg"; fi
import math, sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
e = r.get('energy')
assert e is not None, 'no energy block'
src = {s['name']: s for s in e['sources']}
exec(sys.argv[2])
PY
}

rm -f "$T/meter.calls"
run meter 2 EXADL_POWER_METER="command:$T/meter.sh" EXADL_POWER_METER_ACCURACY=0.02 \
    || echo "FAIL: energy: stemdl with the fake sources: $(tail -n 3 "$T/meter.out")"
check meter "each source's energy exact: RAPL package 1.5 J across its wrap, DRAM 2 J, core left out, NVML GPU 0 3.5 J, GPU 1 300 W peak" '
assert sorted(src) == ["nvml:gpu0", "nvml:gpu1", "rapl:dram-0", "rapl:package-0", "site:node"], sorted(src)
assert all(s["status"] == "ok" for s in e["sources"]), e["sources"]
assert src["rapl:package-0"]["energy_j"] == 1.5, src["rapl:package-0"]
assert src["rapl:dram-0"]["energy_j"] == 2.0, src["rapl:dram-0"]
assert src["nvml:gpu0"]["energy_j"] == 3.5 and src["nvml:gpu0"]["reads"] == "energy counter", src["nvml:gpu0"]
assert src["nvml:gpu1"]["peak_power_w"] == 300 and src["nvml:gpu1"]["accuracy"] == 0.05, src["nvml:gpu1"]
assert src["site:node"]["accuracy"] == 0.02 and src["site:node"]["energy_j"] == 250.5
assert all(s["node"] == 0 for s in e["sources"])'
check meter "the node's energy is the meter's (250.5 J, basis meter), one node, J/sample and FLOP/s per W exact" '
t, f = r["timing"], r["flops"]
n = t["samples_per_step"] * len(t["step_s"])
assert e["nodes"] == 1 and len(e["node_list"]) == 1 and e["basis"] == "meter", e
assert e["energy_j"] == 250.5 and e["interval_s"] == 0
assert e["samples"] == n and e["j_per_sample"] == 250.5 / n, (e["j_per_sample"], n)
assert e["flops_per_w_executed"] == f["executed_per_step"] * len(t["step_s"]) / 250.5
assert e["flops_per_w_convention"] == f["convention_per_sample"] * n / 250.5
assert e["avg_power_w"] == 250.5 / e["window_s"]'
calls=$(cat "$T/meter.calls" 2>/dev/null)
[ "$calls" = 3 ] && echo "PASS: energy: the meter asked 3 times (found, start, end): one sampling rank on the node" \
    || echo "FAIL: energy: the meter asked ${calls:-no} times, want 3"

# ---- no meter: the components' sum (RAPL unchanged reads 0 J, a reading)
printf '1\n' >"$T/nvml/count"
run comp 2 || echo "FAIL: energy: stemdl without a meter: $(tail -n 3 "$T/comp.out")"
check comp "without a meter the node's energy is the components' sum, exact (3.5 J)" '
assert e["basis"] == "components" and e["energy_j"] == 3.5, (e["basis"], e["energy_j"])
assert src["rapl:package-0"]["energy_j"] == 0 and "site" in [a["source"] for a in e["absent"]]'

# ---- every training program: cosmoflow and modelpar record the same block
for p in cosmoflow modelpar; do
    env EXADL_POWER_INTERVAL_S=0 EXADL_POWERCAP_ROOT="$T/none" EXADL_NVML_LIB="$NVML" \
        EXADL_FAKE_NVML_DIR="$T/nvml" "$EXADL_BIN/$p" --preset tiny --steps 2 --warmup 1 --threads 1 \
        --quiet --record "$T/$p.yaml" >"$T/$p.out" 2>&1 || echo "FAIL: energy: $p: $(tail -n 3 "$T/$p.out")"
    check "$p" "$p records the energy of its timed steps (3.5 J, components)" '
assert e["energy_j"] == 3.5 and e["basis"] == "components" and e["nodes"] == 1, e["energy_j"]
assert e["j_per_sample"] == 3.5 / e["samples"]'
done

# ---- unreadable: n/a with the reason, never 0; nothing at all: absent with why
printf 'garbage\n' >"$pc/intel-rapl:0/energy_uj"
run bad 2 || echo "FAIL: energy: stemdl with an unreadable counter failed: $(tail -n 3 "$T/bad.out")"
check bad "an unreadable RAPL counter: n/a with its reason, the node's energy n/a (not 0), the run ok" '
p = src["rapl:package-0"]
assert p["status"] == "n/a" and "not an unsigned decimal" in p["reason"] and math.isnan(p["energy_j"]), p
assert math.isnan(e["energy_j"]) and math.isnan(e["j_per_sample"]) and e["basis"] == "n/a", e["energy_j"]
assert "package-0" in e["reason"] and r["status"] == "ok"'
run none 2 EXADL_POWERCAP_ROOT="$T/none" EXADL_NVML_LIB="$T/none/libnvidia-ml.so.1" \
    || echo "FAIL: energy: stemdl without sources: $(tail -n 3 "$T/none.out")"
check none "no source: each absent with why, the energy n/a" '
why = {a["source"]: a["reason"] for a in e["absent"]}
assert sorted(why) == ["nvml", "rapl", "site"] and "No such file" in why["rapl"], why
assert "EXADL_POWER_METER" in why["site"] and not e["sources"] and math.isnan(e["energy_j"])'

out=$(EXADL_POWER_INTERVAL_S=soon "$S" --preset tiny --steps 1 --warmup 0 --threads 1 --quiet 2>&1)
rc=$?
if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] && grep -q 'EXADL_POWER_INTERVAL_S' <<<"$out"; then
    echo "PASS: energy: a bad EXADL_POWER_INTERVAL_S is one line naming it, exit 2"
else
    echo "FAIL: energy: a bad EXADL_POWER_INTERVAL_S: exit $rc: $out"
fi

out=$(EXADL_POWER_METER=/dev/meter "$S" --preset tiny --check-config 2>&1)
rc=$?
[ $rc = 2 ] && grep -q 'EXADL_POWER_METER' <<<"$out" \
    && echo "PASS: energy: --check-config refuses a bad EXADL_POWER_METER (exit 2)" \
    || echo "FAIL: energy: --check-config with a bad EXADL_POWER_METER: exit $rc: $out"
nohelp=
for p in stemdl cosmoflow modelpar; do
    "$EXADL_BIN/$p" --help 2>&1 | grep -q 'EXADL_POWER_METER' || nohelp="$nohelp $p"
done
[ -z "$nohelp" ] && echo "PASS: energy: --help of stemdl, cosmoflow and modelpar names the energy settings" \
    || echo "FAIL: energy: --help does not name the energy settings:$nohelp"
lines=$(env EXADL_POWER_INTERVAL_S=0 EXADL_NVML_LIB="$NVML" EXADL_FAKE_NVML_DIR="$T/nvml" \
    EXADL_POWERCAP_ROOT="$T/none" "$S" --preset tiny --steps 2 --warmup 1 --threads 1 2>&1 | grep '^  energy ')
grep -q '3.5 J over the timed steps (components, 1 node)' <<<"$lines" \
    && echo "PASS: energy: the summary's energy line: $lines" || echo "FAIL: energy: the summary's energy line: $lines"

# ---- exadl run: results, metrics, report
root_env=
[ "$(id -u)" = 0 ] && root_env='  OMPI_ALLOW_RUN_AS_ROOT: "1"
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: "1"'
asan_env=
[ -n "${ASAN_OPTIONS:-}" ] && asan_env="  ASAN_OPTIONS: \"$ASAN_OPTIONS:detect_leaks=0\""
{
    echo 'name: energy'
    echo 'launcher: mpirun'
    echo 'scales: [2]'
    echo 'repetitions: 2'
    echo 'timeout_s: 300'
    echo "power: {powercap_root: none, nvml_lib: \"$NVML\", interval_s: 0.01}"
    echo 'env:'
    echo '  OMPI_MCA_rmaps_base_oversubscribe: "1"'
    echo "  EXADL_FAKE_NVML_DIR: \"$T/nvml\""
    [ -n "$root_env" ] && echo "$root_env"
    [ -n "$asan_env" ] && echo "$asan_env"
    echo 'benchmarks:'
    echo '  - name: tiny'
    echo '    program: stemdl'
    echo '    config: {preset: tiny, steps: 3, warmup: 1, threads: 1}'
} >"$T/suite.yaml"
# the suite's power: block is checked like the rest of it
sed 's|^power: .*|power: {meter: "/dev/meter", interval_s: 0.01}|' "$T/suite.yaml" >"$T/suite_bad.yaml"
out=$("$EXADL_BIN/exadl" validate "$T/suite_bad.yaml" 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "suite_bad.yaml:[0-9]*:[0-9]*: power.meter: '/dev/meter' is neither" <<<"$out" \
    && echo "PASS: energy: a bad power.meter in a suite: one positioned error, exit 2" \
    || echo "FAIL: energy: a bad power.meter in a suite: exit $rc: $out"
sed 's|^power: .*|power: {interval: 1}|' "$T/suite.yaml" >"$T/suite_bad.yaml"
out=$("$EXADL_BIN/exadl" validate "$T/suite_bad.yaml" 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "interval_s" <<<"$out" \
    && echo "PASS: energy: an unknown key of power: refused, the nearest one named" \
    || echo "FAIL: energy: an unknown key of power: exit $rc: $out"
# powercap_root: none is the suite's folder's none/ (relative paths are the suite's)
out=$(cd "$T" && "$EXADL_BIN/exadl" run "$T/suite.yaml" --out "$T/res" 2>&1)
rc=$?
d=$(ls -d "$T"/res/*-energy 2>/dev/null | head -1)
if [ -z "$d" ] || [ ! -f "$d/results.yaml" ]; then
    echo "FAIL: energy: exadl run wrote no results ($rc): $(echo "$out" | tail -n 5)"
else
    python3 - "$d" <<'PY' && echo "PASS: energy: exadl run: energy_j_per_sample 3.5 J over the samples in results.yaml, .csv, .json, 2 launches" || echo "FAIL: energy: exadl run's energy rows"
import glob, json, sys, yaml
d = sys.argv[1]
rec = yaml.safe_load(open(sorted(glob.glob(d + '/records/*.yaml'))[0]))
n = rec['timing']['samples_per_step'] * len(rec['timing']['step_s'])
res = yaml.safe_load(open(d + '/results.yaml'))
rows = [m for m in res['metrics'] if m['metric'] == 'energy_j_per_sample']
assert len(rows) == 1, rows
m = rows[0]
assert m['value'] == 3.5 / n and m['row']['energy_basis'] == 'components', m
assert 'energy_flops_per_w' in [x['metric'] for x in res['metrics']]
assert 'energy_j_per_sample' in open(d + '/results.csv').read()
assert 'energy_j_per_sample' in json.dumps(json.load(open(d + '/results.json')))
PY
    grep -q '^## Energy' "$d/report.md" && grep -q '| tiny | 2 | 1 | components | 2 of 2 |' "$d/report.md" \
        && echo "PASS: energy: the report's energy table (components, 2 of 2 launches measured)" \
        || echo "FAIL: energy: the report's energy table: $(grep -A6 '^## Energy' "$d/report.md")"
    ls "$d"/plots/energy_power.* >/dev/null 2>&1 && grep -q 'energy_power' "$d/report.md" \
        && echo "PASS: energy: the power-over-time plot" || echo "FAIL: energy: no energy_power plot"
fi

# ---- a reference file checks the energy rows: 3.5 J over the run's samples
# passes, an upper bound of 0.1 J/sample fails (exit 1)
if [ -n "$d" ] && [ -f "$d/results.yaml" ]; then
    n=$(python3 -c "import glob,yaml; r=yaml.safe_load(open(sorted(glob.glob('$d/records/*.yaml'))[0])); print(r['timing']['samples_per_step']*len(r['timing']['step_s']))")
    {
        echo 'exadl_reference: 1'
        echo 'name: energy-acceptance'
        echo 'kind: acceptance'
        echo 'source: tests/it/energy.sh (the fake NVML GPU takes 3.5 J per launch)'
        echo 'system: any'
        echo 'checks:'
        echo '  - metric: energy_j_per_sample'
        echo "    where: {benchmark: tiny, scale: 2, energy_basis: components}"
        echo "    value: $(python3 -c "print(repr(3.5 / $n))")"
        echo '    lower: -1.0e-9'
        echo '    upper: 1.0e-9'
        echo '    unit: J'
    } >"$T/ref_ok.yaml"
    sed -e 's/^    value: .*/    value: 0.1/' -e 's/^    lower: .*/    lower: null/' -e 's/^    upper: .*/    upper: 0/' \
        "$T/ref_ok.yaml" >"$T/ref_bad.yaml"
    "$EXADL_BIN/exadl" check "$d" --reference "$T/ref_ok.yaml" >"$T/check_ok.out" 2>&1
    ok=$?
    "$EXADL_BIN/exadl" check "$d" --reference "$T/ref_bad.yaml" >"$T/check_bad.out" 2>&1
    bad=$?
    [ $ok = 0 ] && [ $bad = 1 ] && grep -q 'PASS.*energy_j_per_sample' "$T/check_ok.out" \
        && grep -q 'FAIL.*energy_j_per_sample' "$T/check_bad.out" \
        && echo "PASS: energy: a reference file checks energy_j_per_sample (exact value passes, 0.1 J upper bound fails)" \
        || echo "FAIL: energy: reference checks of energy_j_per_sample (exit $ok, $bad): $(tail -n 4 "$T/check_ok.out" "$T/check_bad.out")"
fi

# ---- text from a record reaches report.md escaped: a copied run whose
# record's energy block holds table breakers, a newline and a terminal escape
if [ -n "$d" ] && [ -f "$d/results.yaml" ]; then
    cp -r "$d" "$T/hostile"
    python3 - "$T/hostile" <<'PY'
import glob, sys, yaml
for f in sorted(glob.glob(sys.argv[1] + '/records/*.yaml')):
    r = yaml.safe_load(open(f))
    e = r['energy']
    e['basis'] = 'comp|onents\n## forged'
    e['absent'][0]['reason'] = 'a | b\n| forged | row |\x1b[31m red `x`'
    e['sources'][0]['accuracy_note'] = '<script>|\n'
    if f.endswith('r1.yaml'):  # the first launch: its energy n/a, and why
        e['energy_j'] = float('nan')
        e['reason'] = 'meter | gone\n| forged |'
    yaml.safe_dump(r, open(f, 'w'))
PY
    "$EXADL_BIN/exadl" analyze "$T/hostile" >"$T/hostile.out" 2>&1
    python3 - "$T/hostile/report.md" <<'PY' && echo "PASS: energy: record text in the energy section escaped (no forged row, heading or escape; a launch's n/a and why below its table)" || echo "FAIL: energy: record text reached report.md unescaped"
import sys
md = open(sys.argv[1]).read()
sec = md[md.index('## Energy'):]
sec = sec[:sec.index('\n## ', 5)]
assert '\x1b' not in sec, 'terminal escape'
assert not any(l.startswith(('## forged', '| forged')) for l in sec.splitlines()), 'forged markdown'
rows = [l for l in sec.splitlines() if l.startswith('|')]
lines = sec.splitlines()
for i, l in enumerate(lines):  # each table runs unbroken to a blank line
    if l.startswith('|---'):
        j = i + 1
        while j < len(lines) and lines[j].strip():
            assert lines[j].startswith('|'), 'a table broken by: ' + lines[j]
            j += 1
assert '- tiny@2: energy n/a: meter \\| gone \\| forged \\|' in sec, 'the n/a reason below the table'
assert '| tiny | 2 | 1 | comp' in sec and ' 1 of 2 |' in sec, 'one launch of two measured' 
assert all(l.count('|') - l.count('\\|') == rows[0].count('|') for l in rows[:3]), rows[:3]
PY
fi

# ---- compare: run B's GPU takes twice the energy (7 J): J/sample 2x with its
# CI, A the winner in procurement, a regression (exit 1) in regression mode
if [ -n "$d" ] && [ -f "$d/results.yaml" ]; then
    mkdir -p "$T/nvml2"
    printf '1\n' >"$T/nvml2/count"
    printf '1000 1000 8000\n' >"$T/nvml2/gpu0_energy_mj"
    sed -e 's/^name: energy$/name: energy2/' -e "s|$T/nvml\"|$T/nvml2\"|" "$T/suite.yaml" >"$T/suite2.yaml"
    "$EXADL_BIN/exadl" run "$T/suite2.yaml" --out "$T/res" >"$T/run2.out" 2>&1
    d2=$(ls -d "$T"/res/*-energy2 2>/dev/null | head -1)
    if [ -z "$d2" ]; then
        echo "FAIL: energy: the second exadl run wrote nothing: $(tail -n 5 "$T/run2.out")"
    else
        p=$("$EXADL_BIN/exadl" compare --mode procurement "$d" "$d2" 2>&1)
        line=$(grep '^energy_j_per_sample ' <<<"$p")
        grep -q ' 2x \[2, 2\] *A ' <<<"$line" \
            && echo "PASS: energy: procurement compares J/sample: B/A 2x [2, 2], A the winner" \
            || echo "FAIL: energy: procurement's J/sample row: ${line:-none}"
        g=$("$EXADL_BIN/exadl" compare --ignore-interference --metric energy_j_per_sample "$d" "$d2" 2>&1)
        rc=$?
        line=$(grep '^energy_j_per_sample ' <<<"$g")
        [ $rc = 1 ] && grep -q '2x \[2, 2\].*launches *REGRESSION' <<<"$line" \
            && echo "PASS: energy: regression mode: J/sample 2x by launches is a REGRESSION, exit 1" \
            || echo "FAIL: energy: regression mode's J/sample row (exit $rc): ${line:-none}"
        g=$("$EXADL_BIN/exadl" compare --ignore-interference --metric energy_j_per_sample "$d" "$d" 2>&1)
        grep -q '^energy_j_per_sample .*no change' <<<"$g" \
            && echo "PASS: energy: a run against itself: J/sample no change" \
            || echo "FAIL: energy: a run against itself: $(grep '^energy_j' <<<"$g")"
    fi
fi

# ---- a real RAPL read
z=/sys/class/powercap/intel-rapl:0
if [ ! -d "$z" ]; then
    echo "SKIP: energy: real RAPL: $z does not exist here (no powercap RAPL driver: a VM, or not an Intel or AMD CPU)"
elif ! cat "$z/energy_uj" >/dev/null 2>&1; then
    echo "SKIP: energy: real RAPL: $z/energy_uj is not readable by $(id -un) (root only on kernels patched for CVE-2020-8694)"
else
    env -u EXADL_POWERCAP_ROOT EXADL_NVML_LIB="$T/none" "$M" -np 1 "$S" --preset tiny --steps 3 \
        --warmup 1 --threads 1 --quiet --record "$T/real.yaml" >"$T/real.out" 2>&1
    check real "real RAPL: package-0 read over the window, a positive energy" '
p = src["rapl:package-0"]
assert p["status"] == "ok" and p["energy_j"] > 0, p'
fi
exit 0
