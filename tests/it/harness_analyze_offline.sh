#!/usr/bin/env bash
# exadl analyze (and check, compare, history, summary, model RUN) of a copied
# run folder on a machine without its programs: a real `exadl run` of a tiny
# CPU suite (a stand-in benchmark, the exact-count references) records the
# peak_cpu and stemdl --describe answers in probe.yaml; in the copy every
# program exadl could start (the benchmark, peak_cpu, stemdl, cosmoflow, the
# launchers ...) is replaced by a script that leaves a mark and exits 1, in a
# bin folder of its own and in front of PATH.  analyze starts none of them and
# writes the same results.yaml (timings masked); without probe.yaml it says
# what is missing, in one line, and still writes results without the
# peak-derived number; a damaged probe.yaml is bad input (one error with its
# line, exit 2, nothing written); `exadl
# run --resume` keeps the recorded answers and asks the missing ones.
set -u
bin=${EXADL_BIN:?}
tmp=${EXADL_TMP:-$(mktemp -d)}
root=${EXADL_ROOT:-$(pwd)}
fails=0
pass() { echo "PASS: harness_analyze_offline: $1"; }
fail() { echo "FAIL: harness_analyze_offline: $1"; fails=$((fails + 1)); }
[ -x "$bin/stemdl" ] && [ -x "$bin/peak_cpu" ] || { echo "SKIP: harness_analyze_offline: stemdl or peak_cpu not built"; exit 77; }

# ---- the run, with a stand-in benchmark of its own (replaced in the copy)
mkdir -p "$tmp/prog" "$tmp/res"
cp "$root/tests/fixtures/harness/fake_bench.sh" "$tmp/prog/bench.sh"
cat >"$tmp/offline.yaml" <<EOF
name: offline
launcher: "env FAKE_RANKS={ranks} {cmd}"
scales: [1, 2]
repetitions: 1
timeout_s: 60
references: [$root/reference/stemdl-exact.yaml]
benchmarks:
  - name: good
    program: $tmp/prog/bench.sh
    config: {mode: ok, step: 0.05, steps: 6}
EOF
out=$("$bin/exadl" run "$tmp/offline.yaml" --out "$tmp/res" 2>&1); rc=$?
run=$(ls -d "$tmp"/res/*-offline 2>/dev/null | head -1)
if [ -z "$run" ] || [ ! -f "$run/results.yaml" ]; then
    fail "exadl run wrote no run folder ($rc)"; echo "$out" | tail -n 20; exit 1
fi
python3 - "$run/probe.yaml" <<'PY' && pass "exadl run recorded probe.yaml: the peak_cpu output and the describe answers of gb2019 and bench256" || fail "probe.yaml of the run"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d['exadl_probe'] == 1, d
assert d['peak']['program'] == 'peak_cpu' and 'peak_flops_per_s' in d['peak']['output'], d['peak']
assert sorted(a['args'][-1] for a in d['describe']) == ['bench256', 'gb2019'], d['describe']
assert all(a['program'] == 'stemdl' and 'conv_weights' in a['output'] for a in d['describe'])
PY
grep -q 'measured by peak_cpu on this host' "$run/results.yaml" && grep -q 'metric: fraction_of_peak' "$run/results.yaml" \
    && pass "the run's peak from peak_cpu, fraction of peak computed" || fail "peak in the run's results.yaml"

# ---- the machine without the programs: every name a mark
mkdir -p "$tmp/offbin" "$tmp/offpath" "$tmp/marks"
cp "$bin/exadl" "$tmp/offbin/exadl"
mark() { printf '#!/bin/sh\necho "$0 $*" >>"%s/marks/%s"\nexit 1\n' "$tmp" "$(basename "$1")" >"$1"; chmod +x "$1"; }
for p in "$bin"/*; do
    n=$(basename "$p")
    [ "$n" = exadl ] && continue
    mark "$tmp/offbin/$n"
    mark "$tmp/offpath/$n"
done
for n in stemdl peak_cpu bench_conv mpiprobe collectives cosmoflow orchestration skeleton datadist manytask \
    mpirun mpiexec orterun prterun srun salloc sbatch scontrol sinfo squeue sacct smpirun env sh bash; do
    [ -e "$tmp/offpath/$n" ] || mark "$tmp/offpath/$n"
done
copy() { # $1 name: $tmp/$1/RUN, a copy of the run folder (its benchmark is a mark)
    rm -rf "${tmp:?}/$1"
    mkdir -p "$tmp/$1"
    cp -a "$run" "$tmp/$1/"
    echo "$tmp/$1/$(basename "$run")"
}
mark "$tmp/prog/bench.sh"
offline() { PATH="$tmp/offpath:$PATH" "$tmp/offbin/exadl" "$@"; }
marks() { cat "$tmp"/marks/* 2>/dev/null; }
mask() { # timings, paths, the history line an analyze adds, and launches_kept
    # (analyze counts every launch as kept from before)
    sed -E -e 's/^( *(analysis_s|plots_s|report_s|wall_s|probe_s|launches_s|finished_utc|overhead_per_launch_s|peak_probe_s|launches_kept)): .*/\1: MASKED/' \
        -e "/^  - '?[0-9TZ:-]*: exadl analyze/d" -e "s#$2#RUN#g" "$1"
}

c1=$(copy c1)
rm -f "$c1/results.yaml" "$c1/report.md"
aout=$(offline analyze "$c1" 2>&1); arc=$?
[ -z "$(marks)" ] && pass "analyze of the copy started no program" || { fail "analyze started: $(marks)"; rm -f "$tmp"/marks/*; }
if diff <(mask "$run/results.yaml" "$run") <(mask "$c1/results.yaml" "$c1") >"$tmp/c1.diff"; then
    pass "analyze of the copy: the same results.yaml (timings masked; exit $arc)"
else
    fail "analyze of the copy: results.yaml differs ($arc)"; head -n 30 "$tmp/c1.diff"; echo "$aout" | tail -n 5
fi
cout=$(offline check "$c1" 2>&1); crc=$?
[ -z "$(marks)" ] && [ $crc -eq 0 ] && [ "$(grep -c '^  PASS' <<<"$cout")" -eq 6 ] \
    && pass "check of the copy: the 6 exact counts PASS from the recorded describe answers, no program started" \
    || { fail "check of the copy ($crc): $(marks)"; echo "$cout" | tail -n 10; rm -f "$tmp"/marks/*; }
for c in "summary $c1" "history $c1" "compare $run $c1" "model $c1"; do
    offline $c >"$tmp/cmd.out" 2>&1
    [ -z "$(marks)" ] && pass "exadl ${c%% *} of the copy starts no program" \
        || { fail "exadl ${c%% *} started: $(marks)"; rm -f "$tmp"/marks/*; }
done

# ---- without probe.yaml: one line says what is missing; results without the peak's number
c2=$(copy c2)
rm -f "$c2/probe.yaml" "$c2/results.yaml" "$c2/report.md"
aout=$(offline analyze "$c2" 2>&1); arc=$?
[ -z "$(marks)" ] && pass "analyze without probe.yaml started no program" || { fail "analyze without probe.yaml started: $(marks)"; rm -f "$tmp"/marks/*; }
grep -qF "exadl analyze: note: $c2/probe.yaml is missing: no recorded CPU peak (peak_cpu), so no fraction of peak" <<<"$aout" \
    && grep -qF "exadl analyze: note: 6 checks not evaluated: $c2/probe.yaml is missing (no recorded describe answers)" <<<"$aout" \
    && pass "analyze without probe.yaml says what is missing and where" || { fail "the missing notes ($arc)"; echo "$aout" | tail -n 8; }
[ -f "$c2/results.yaml" ] && ! grep -q 'metric: fraction_of_peak' "$c2/results.yaml" \
    && grep -q 'metric: throughput_samples_per_s' "$c2/results.yaml" \
    && grep -q 'not measured: no recorded peak_cpu answer' "$c2/results.yaml" \
    && [ "$(grep -c 'not evaluated: ' "$c2/results.yaml")" -ge 6 ] \
    && pass "results.yaml still written: no fraction_of_peak, the describe checks not evaluated" \
    || fail "results.yaml without probe.yaml"
cout=$(offline check "$c2" 2>&1)
[ -z "$(marks)" ] && grep -qF "exadl check: note: 6 checks not evaluated: $c2/probe.yaml is missing" <<<"$cout" \
    && pass "check without probe.yaml: not evaluated, said once, nothing started" \
    || { fail "check without probe.yaml: $(marks)"; echo "$cout" | tail -n 5; }

# ---- a damaged probe.yaml: bad input, one error naming file, line and problem
# and what to do; exit 2; results, report and records as they were (run.yaml's
# history notes every analyze, this one too)
c3=$(copy c3)
printf 'exadl_probe: 1\ndescribe:\n  - {program: stemdl, args: [--describe]}\n' >"$c3/probe.yaml"
before=$(cd "$c3" && find . -type f ! -name run.yaml -exec md5sum {} + | sort)
aout=$(offline analyze "$c3" 2>&1); arc=$?
cout=$(offline check "$c3" 2>&1); crc=$?
after=$(cd "$c3" && find . -type f ! -name run.yaml -exec md5sum {} + | sort)
want="$c3/probe.yaml:3:5: an answer has output: or error: (one of them) (remove $c3/probe.yaml to"
[ -z "$(marks)" ] && [ $arc -eq 2 ] && [ $crc -eq 2 ] && [ "$before" = "$after" ] \
    && [ "$(grep -c error <<<"$aout")" -eq 1 ] && grep -qF "exadl analyze: error: $want analyze" <<<"$aout" \
    && grep -qF "exadl check: error: $want check" <<<"$cout" \
    && pass "a damaged probe.yaml: one error with FILE:LINE:COL and what to do, exit 2, results untouched" \
    || { fail "damaged probe.yaml (analyze $arc, check $crc)"; echo "$aout" | tail -n 5; echo "$cout" | tail -n 3; }
# ---- exadl run --resume keeps the recorded answers and asks the missing ones
c4=$(copy c4)
python3 - "$c4/probe.yaml" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
del d['peak']
d['describe'] = d['describe'][:1]
d['describe'][0]['output'] = 'KEPT\n' + d['describe'][0]['output']
yaml.safe_dump(d, open(sys.argv[1], 'w'))
PY
"$bin/exadl" run --resume "$c4" >"$tmp/resume.out" 2>&1
python3 - "$c4/probe.yaml" <<'PY' && pass "run --resume: the recorded answer kept, the peak and the other describe asked again" || { fail "run --resume and probe.yaml"; tail -n 5 "$tmp/resume.out"; }
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d['peak']['program'] == 'peak_cpu' and 'peak_flops_per_s' in d['peak']['output'], d.get('peak')
assert len(d['describe']) == 2 and d['describe'][0]['output'].startswith('KEPT\n'), d['describe']
PY
[ $fails -eq 0 ]
