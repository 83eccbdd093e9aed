#!/usr/bin/env bash
# CosmoFlow's spatial parallelism over real MPI jobs (oversubscribed):
# - test_cosmo_spatial at 4 ranks: planted halos, and the loss and
#   gradients of every split of 4 (2x2x1, 4x1x1, 1x2x2, 2x1x2) and of 2 x 2
#   groups against one rank (tests/unit/test_cosmo_spatial.c; run alone it
#   is the 1-rank case, so tests/run.sh covers that);
# - the program: 2 ranks splitting D train the losses of 1 rank; the record
#   holds the decomposition and the halo rows;
# - samples from a raw file (--write-data, --data) give the same losses
#   split or not; a truncated file and impossible splits are refused with
#   the file or the option named.
set -u
C=$EXADL_BIN/cosmoflow
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
$M -np 4 "$EXADL_BUILD/tests/test_cosmo_spatial" 2>&1 | grep -E '^(PASS|FAIL|SKIP): ' ||
    echo "FAIL: cosmo_spatial np4 printed nothing"

common=(--preset tiny --kernels reference --threads 1 --steps 3 --warmup 1 --quiet)
run() { # name np [args...]
    local name=$1 np=$2
    shift 2
    if [ "$np" = 1 ]; then
        "$C" "${common[@]}" --record "$T/$name.yaml" "$@" >"$T/$name.out" 2>&1
    else
        $M -np "$np" "$C" "${common[@]}" --record "$T/$name.yaml" "$@" >"$T/$name.out" 2>&1
    fi
}
losses() { # the warm-up and timed losses of a record, one per line
    awk '/^loss:/ { s = 1; next } s && /^[^ ]/ { s = 0 }
         s && /^  (warmup|steps):/ { sub(/^[^[]*\[/, ""); sub(/\].*$/, ""); gsub(/, /, "\n"); print }' "$1"
}
same_losses() { # name a b: every loss within 1e-5 (relative)
    local v
    v=$(paste <(losses "$2") <(losses "$3") | awk '
        NF == 2 { n++; d = $1 - $2; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1
                  if (d > 1e-5 * m + 1e-12) bad = bad " " $1 "/" $2 }
        END { if (n < 4) print "too few losses (" n ")"; else if (bad) print "differ:" bad; else print "ok " n }')
    case $v in
    ok*) echo "PASS: $1 (${v#ok } losses within 1e-5)" ;;
    *) echo "FAIL: $1: $v" ;;
    esac
}

run one 1 || echo "FAIL: cosmoflow 1 rank: $(tail -n 3 "$T/one.out")"
run d2 2 --spatial 2 || echo "FAIL: cosmoflow --spatial 2: $(tail -n 3 "$T/d2.out")"
same_losses "cosmoflow --spatial 2 trains the losses of 1 rank" "$T/one.yaml" "$T/d2.yaml"

if grep -q '^  split: \[2, 1, 1\]$' "$T/d2.yaml" && grep -q '^  groups: 1$' "$T/d2.yaml" &&
    grep -q '^  samples_per_step: 1$' "$T/d2.yaml" && grep -q '^ranks: 2$' "$T/d2.yaml" &&
    grep -q '^- {kernel: halo, layer: conv1, calls: [1-9]' "$T/d2.yaml" &&
    grep -q '^- {kernel: gather, layer: fc1' "$T/d2.yaml" &&
    grep -q '^  halo_bytes_per_sample: [1-9]' "$T/d2.yaml"; then
    echo "PASS: cosmoflow record holds the decomposition, samples per step and halo rows"
else
    echo "FAIL: cosmoflow record lacks the decomposition or the halo rows (see $T/d2.yaml)"
fi

# the harness's model rebuilds the halo bytes from the record's geometry:
# they must equal what the benchmark counted (exadl model --spatial on a run
# folder made of these two records; no sweep, so no link constants)
mkdir -p "$T/run/records"
cp "$T/one.yaml" "$T/run/records/cosmoflow-n1-r1.yaml"
cp "$T/d2.yaml" "$T/run/records/cosmoflow-n2-r1.yaml"
if "$EXADL_BIN/exadl" model "$T/run" --spatial --scales 1,2 --quiet >"$T/model.out" 2>&1; then
    want=$(awk '$1 == "halo_bytes_per_sample:" { print $2 }' "$T/d2.yaml")
    got=$(awk '/^validation:/ { v = 1 } v && $1 == "ranks:" { r = $2 }
               v && r == 2 && $1 == "halo_bytes_rank0:" { print $2 }' "$T/run/model/spatial_model.yaml")
    if [ -n "$want" ] && [ "$want" = "$got" ]; then
        echo "PASS: exadl model --spatial rebuilds rank 0's halo bytes ($got) from the record's geometry"
    else
        echo "FAIL: exadl model --spatial: halo bytes $got, the benchmark counted $want"
    fi
else
    echo "FAIL: exadl model --spatial: $(tail -n 2 "$T/model.out")"
fi

# the report's spatial section and plot from the same folder (exadl analyze
# reads the records; nothing runs)
printf 'exadl_suite: 1\nname: cf\nscaling: spatial\nscales: [1, 2]\nrepetitions: 1\nbenchmarks:\n  - {name: cosmoflow, program: cosmoflow, config: {preset: tiny}}\n' \
    >"$T/run/suite.yaml"
"$EXADL_BIN/exadl" analyze "$T/run" >"$T/analyze.out" 2>&1
if grep -q '^### Spatial decomposition, halo exchange and the model' "$T/run/report.md" &&
    grep -A12 '^### Spatial decomposition' "$T/run/report.md" | grep -q '| 2 ' &&
    ls "$T/run"/plots/cosmoflow_spatial*.gp >/dev/null 2>&1; then
    echo "PASS: cosmoflow report: the spatial section (a row per scale) and its plot from the records"
else
    echo "FAIL: cosmoflow report lacks the spatial section or plot (see $T/run/report.md): $(tail -n 3 "$T/analyze.out")"
fi

# samples from a file, split and not
"$C" --preset tiny --write-data "$T/s.bin" --samples 3 >"$T/w.out" 2>&1 ||
    echo "FAIL: cosmoflow --write-data: $(tail -n 2 "$T/w.out")"
run f1 1 --data "$T/s.bin" || echo "FAIL: cosmoflow --data: $(tail -n 3 "$T/f1.out")"
run f2 2 --data "$T/s.bin" --spatial 1x2x1 || echo "FAIL: cosmoflow --data split: $(tail -n 3 "$T/f2.out")"
same_losses "cosmoflow --data: split ranks read their sub-volumes of the same samples" "$T/f1.yaml" "$T/f2.yaml"
if cmp -s <(losses "$T/f1.yaml") <(losses "$T/one.yaml"); then
    echo "FAIL: cosmoflow --data trained the synthetic stream (the file was not read)"
else
    echo "PASS: cosmoflow --data trains other samples than the synthetic stream"
fi

refused() { # name expected-text command...
    local name=$1 want=$2 rc
    shift 2
    "$@" >"$T/bad.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && grep -qF -- "$want" "$T/bad.out"; then
        echo "PASS: $name refused ($(grep -F -- "$want" "$T/bad.out" | head -n 1 | cut -c1-120))"
    else
        echo "FAIL: $name: exit $rc, expected '$want': $(head -n 2 "$T/bad.out")"
    fi
}
head -c 1000 "$T/s.bin" >"$T/short.bin"
refused "truncated sample file" "$T/short.bin" "$C" "${common[@]}" --data "$T/short.bin"
refused "3 spatial ranks on 2" "--spatial 3x1x1" $M -np 2 "$C" "${common[@]}" --spatial 3x1x1
# (more ranks than units, sub-volumes thinner than the halo: test_cosmo_net)
refused "an unknown spatial value" "--spatial: '2by2'" "$C" "${common[@]}" --spatial 2by2
printf 'preset: tiny\nblocks: two\n' >"$T/bad.yaml"
refused "a bad config file value" "bad.yaml:2:" "$C" --config "$T/bad.yaml"
exit 0
