#!/usr/bin/env bash
# The report's spatial section for climate (docs/spatial.md "The climate
# network", "In the report"): `exadl run` of a small climate suite, the tiny
# preset on 32 x 32 fields split 1x2 and 2x2, 2 steps; each run's row in the
# table "Spatial split and per-level plan" shows the grid, the plan (h: every
# level split), the ranks per sample and the halo bytes and messages per
# step exactly as its record's network block says them, no shuffles and no
# prediction ("-"); the text names no single network.  No time is asserted.
set -u
E=$EXADL_BIN/exadl
T=$EXADL_TMP
[ -x "$E" ] || { echo "FAIL: climate_spatial_report: $E was not built"; exit 1; }
cat >"$T/suite.yaml" <<'YAML'
exadl_suite: 1
name: climate-split
description: the climate network split along W and on a 2 x 2 grid
launcher: mpirun
scaling: weak
scales: [2]
repetitions: 1
timeout_s: 180
env:
  OMP_NUM_THREADS: "1"
benchmarks:
  - name: climate-1x2
    program: climate
    scales: [2]
    config: {preset: tiny, width: 32, threads: 1, precision: fp32, steps: 2, warmup: 0, spatial: "1x2"}
  - name: climate-2x2
    program: climate
    scales: [4]
    config: {preset: tiny, width: 32, threads: 1, precision: fp32, steps: 2, warmup: 0, batch: 1, spatial: "2x2"}
YAML
if ! "$E" run "$T/suite.yaml" --out "$T/run" >"$T/run.out" 2>&1; then
    echo "FAIL: climate_spatial_report: exadl run: $(tail -n 5 "$T/run.out")"
    exit 0
fi
R=$(ls -d "$T"/run/*/)
nb() { # spatial_ranks halo_bytes halo_messages of record $1
    python3 -c 'import sys, yaml; n = yaml.safe_load(open(sys.argv[1]))["network"]; print(n["spatial_ranks"], n["spatial_grid"], n["halo_bytes_per_step"], n["halo_messages_per_step"])' "$1" 2>&1
}
for c in "1x2 2" "2x2 4"; do
    set -- $c
    g=$1 np=$2
    rec=$R/records/climate-$g-n$np-r1.yaml
    read -r sr sg hb hm <<<"$(nb "$rec")"
    row=$(grep "^| $np | $g | " "$R/report.md")
    # | ranks | grid | plan | ranks per sample | halo bytes | messages | shuffle bytes | messages |
    #   step [CI] | predicted | ratio | load |  (numbers as %.4g: compared as numbers)
    if [ "$sr" = "$np" ] && [ "$sg" = "$g" ] && python3 - "$row" "$np" "$g" "$hb" "$hm" <<'PY'
import re, sys
row, np_, g, hb, hm = sys.argv[1:]
try:
    c = [x.strip() for x in row.strip().strip("|").split("|")]
    near = lambda a, b: abs(float(a) - float(b)) <= 5e-4 * abs(float(b))
    ok = (c[0] == np_ and c[1] == g and c[2] == "h" and c[3] == np_ and float(hb) > 0 and
          near(c[4], hb) and near(c[5], hm) and c[6] == "0" and c[7] == "0" and
          re.match(r"[0-9.e+-]+ s \[", c[8]) is not None and c[9] == "-" and c[10] == "-")
except (ValueError, IndexError):
    ok = False
sys.exit(0 if ok else 1)
PY
    then
        echo "PASS: climate_spatial_report: the $g run's row shows its grid, plan h, $np ranks per sample, $hb halo bytes and $hm messages per step as recorded, no shuffles"
    else
        echo "FAIL: climate_spatial_report: $g: record '$sr $sg $hb $hm', row '$row'"
    fi
done
if grep -q 'a network without per-level plans splits every level' "$R/report.md"; then
    echo "PASS: climate_spatial_report: the section's text covers networks without per-level plans"
else
    echo "FAIL: climate_spatial_report: the section's text: $(grep -A3 'The grid is' "$R/report.md" | head -c 400)"
fi
exit 0
