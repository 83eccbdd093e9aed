#!/usr/bin/env bash
# `stemdl --describe` totals equal the exact counts of reference/stemdl-exact.yaml,
# for every (preset, metric) the file lists.
set -u
ref=$EXADL_ROOT/reference/stemdl-exact.yaml
[ -f "$ref" ] || { echo "FAIL: describe: $ref missing"; exit 1; }
# the reference file is a list of checks: metric, where {.. preset: P}, value
checks=$(awk '
  /^ *- metric:/ { metric=$3 }
  /preset:/      { p=$0; sub(/.*preset: */, "", p); sub(/[},].*/, "", p); preset=p }
  /^ *value:/    { print preset, metric, $2 }' "$ref")
[ -n "$checks" ] || { echo "FAIL: describe: no checks parsed from $ref"; exit 1; }
n=0
while read -r preset metric value; do
    out=$("$EXADL_BIN/stemdl" --preset "$preset" --describe) || { echo "FAIL: describe $preset: stemdl failed"; continue; }
    got=$(printf '%s\n' "$out" | awk -v m="$metric" '$1 == m { print $2 }')
    if [ "$got" = "$value" ]; then
        echo "PASS: describe $preset $metric = $value"
    else
        echo "FAIL: describe $preset $metric: stemdl says '${got}', reference says $value"
    fi
    n=$((n + 1))
done <<<"$checks"
[ "$n" -ge 6 ] || echo "FAIL: describe: only $n checks found in $ref"
