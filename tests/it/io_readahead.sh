#!/usr/bin/env bash
# The reader's read hints and the report's validation MAE (issue 35,
# docs/data.md "Training from a set" and "Read-only mode"):
# - --readahead N (samples of the read order asked of the kernel ahead of
#   each read, posix_fadvise WILLNEED): a bad value exits 2 with one line
#   naming the option (cosmoflow, stemdl, and under --check-config); --help
#   lists it;
# - the hints change nothing that is read: the same run with --readahead 0
#   and 8 (reader thread), 0 and 3 (no thread), raw and HDF5 shards, and 2
#   ranks splitting each sample (sub-volume hints) ends with equal weights,
#   bit for bit, and equal to the samples made in memory;
# - the hints are made: strace counts one WILLNEED per sample after the
#   first with --readahead 4, none with 0 (counts, not time; SKIP without
#   strace);
# - the record's io block and the read-only record and line carry readahead;
# - the report: a cosmoflow entry evaluating every 2 steps gets the figure
#   io_mae (its points the record's val_mae curve) beside io_quality, and
#   the table's val MAE column holds the last evaluation's MAE.
set -u
C=$EXADL_BIN/cosmoflow
S=$EXADL_BIN/stemdl
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
fails=0
pass() { echo "PASS: io_readahead: $1"; }
fail() { echo "FAIL: io_readahead: $1"; fails=$((fails + 1)); }

# ---- the option ---------------------------------------------------------------
bad() { # what program args...: exit 2, one line on stderr naming --readahead
    local what=$1
    shift
    "$@" >"$T/bad.out" 2>"$T/bad.err"
    local rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] &&
        grep -q -- "--readahead: .* is not a whole number from 0 to" "$T/bad.err"; then
        pass "$what: exit 2, one line: $(cat "$T/bad.err")"
    else
        fail "$what: exit $rc: $(head -c 300 "$T/bad.err")"
    fi
}
bad "cosmoflow --readahead -1" "$C" --preset tiny --readahead -1 --steps 1
bad "stemdl --readahead x" "$S" --preset tiny --readahead x --steps 1
bad "cosmoflow --check-config --readahead 99999999" "$C" --preset tiny --check-config --readahead 99999999
if "$C" --help | grep -q -- '--readahead N' && "$S" --help | grep -q -- '--readahead N'; then
    pass "--help lists --readahead (cosmoflow, stemdl)"
else
    fail "--help has no --readahead"
fi

# ---- the same weights ---------------------------------------------------------
H5=hdf5
"$C" --preset tiny --make-data "$T/probe" --samples 1 --format hdf5 >/dev/null 2>&1 || H5=raw
set_args=(--preset tiny --data grf --seed 7 --shard-samples 8 --samples 32 --val-samples 8)
"$C" "${set_args[@]}" --make-data "$T/raw" --format raw >"$T/mk1.out" 2>&1 &&
    "$C" "${set_args[@]}" --make-data "$T/h5" --format $H5 >"$T/mk2.out" 2>&1 ||
    fail "--make-data: $(tail -n 2 "$T/mk1.out" "$T/mk2.out")"
common=(--preset tiny --kernels reference --threads 1 --steps 6 --warmup 0 --seed 7 --quiet
        --samples 32 --val-samples 8)
train() { # name np [args...]: dumps $T/name.w.RANK, record $T/name.yaml
    local name=$1 np=$2
    shift 2
    local cmd=("$C" "${common[@]}" --dump-weights "$T/$name.w" --record "$T/$name.yaml" "$@")
    if [ "$np" = 1 ]; then "${cmd[@]}" >"$T/$name.out" 2>&1; else $M -np "$np" "${cmd[@]}" >"$T/$name.out" 2>&1; fi ||
        fail "$name: $(tail -n 3 "$T/$name.out")"
}
same() { # what a b ...: rank 0's weights of all equal
    local what=$1 a=$2 ok=1
    shift 2
    for b in "$@"; do [ -s "$T/$a.w.0" ] && cmp -s "$T/$a.w.0" "$T/$b.w.0" || ok=0; done
    if [ $ok = 1 ]; then pass "$what"; else fail "$what ($a and $* differ or are missing)"; fi
}
train mem 1 --batch 2 --data grf
train r0 1 --batch 2 --data "files:$T/raw" --readahead 0
train r8 1 --batch 2 --data "files:$T/raw" --readahead 8
train n3 1 --batch 2 --data "files:$T/raw" --readahead 3 --prefetch 0
train h0 1 --batch 2 --data "files:$T/h5" --readahead 0
train h8 1 --batch 2 --data "files:$T/h5" --readahead 8
same "1 rank, raw shards: --readahead 0, 8 and 3 (no reader thread) train the weights of the samples in memory" mem r0 r8 n3
same "1 rank, $H5 shards: --readahead 0 and 8 train equal weights" r0 h0 h8
train s0 2 --batch 2 --spatial 2 --data "files:$T/raw" --readahead 0
train s6g 2 --batch 2 --spatial 2 --data "files:$T/raw" --readahead 6
same "2 ranks splitting each sample: sub-volume hints (--readahead 6) train the weights of --readahead 0" s0 s6g
if grep -q '^  readahead: 8$' "$T/r8.yaml" && grep -q '^  readahead: 0$' "$T/r0.yaml" &&
    grep -q '^  readahead: 0$' "$T/mem.yaml" && grep -q '^  samples_read: 12$' "$T/r8.yaml"; then
    pass "the io block records readahead (8 given; 0 given; 0 for samples made in memory)"
else
    fail "io block: $(grep -E 'readahead|samples_read' "$T/r8.yaml" "$T/r0.yaml" "$T/mem.yaml")"
fi

# ---- the hints are made ---------------------------------------------------------
ro=(--preset tiny --data "files:$T/raw" --read-only true --steps 6 --warmup 0 --batch 2 --threads 1
    --verify false)
if command -v strace >/dev/null; then
    for r in 0 4; do
        strace -f -qq -e trace=fadvise64 -o "$T/st$r" "$C" "${ro[@]}" --readahead $r >"$T/st$r.out" 2>&1
    done
    n0=$(grep -c WILLNEED "$T/st0"); n4=$(grep -c WILLNEED "$T/st4")
    # 12 reads: positions 1 .. 11 hinted once each (position 0 is read at once)
    if [ "$n0" = 0 ] && [ "$n4" = 11 ]; then
        pass "one WILLNEED per sample after the first with --readahead 4 (11 of 12 reads), none with 0"
    else
        fail "WILLNEED calls: $n0 with --readahead 0, $n4 with 4 (want 0 and 11)"
    fi
    strace -f -qq -e trace=fadvise64 -o "$T/sth" "$C" "${ro[@]}" --data "files:$T/h5" --readahead 4 >"$T/sth.out" 2>&1
    nh=$(grep -c WILLNEED "$T/sth")
    if [ "$H5" = raw ] || [ "$nh" = 11 ]; then
        pass "$H5 shards: 11 WILLNEED calls with --readahead 4 (the input dataset's offset)"
    else
        fail "$H5 shards: $nh WILLNEED calls with --readahead 4 (want 11)"
    fi
else
    echo "SKIP: io_readahead: no strace: the hint count is not checked"
fi
"$C" "${ro[@]}" --readahead 5 --record "$T/ro.yaml" >"$T/ro.out" 2>&1
if grep -q '^  readahead: 5$' "$T/ro.yaml" && grep -q 'prefetch 2, readahead 5, shuffle global' "$T/ro.out"; then
    pass "the read-only record and line carry readahead 5"
else
    fail "read-only: $(cat "$T/ro.out") $(grep readahead "$T/ro.yaml" 2>/dev/null)"
fi

# ---- the report: validation MAE ---------------------------------------------------
exadl=$EXADL_BIN/exadl
# exadl itself stays leak-checked in the sanitizer build; the launch's leak
# check is the training tests' job (as tests/it/harness_e2e.sh)
asan_env=
[ -n "${ASAN_OPTIONS:-}" ] && asan_env="env: {ASAN_OPTIONS: \"$ASAN_OPTIONS:detect_leaks=0\"}"
cat >"$T/mae.yaml" <<EOF
name: mae
launcher: "env {cmd}"
scales: [1]
repetitions: 1
timeout_s: 120
$asan_env
benchmarks:
  - name: cosmo-mae
    program: cosmoflow
    config: {preset: tiny, kernels: reference, threads: 1, batch: 2, steps: 6, warmup: 0, seed: 7,
             data: "files:$T/raw"}
    args: [--eval-every, "2"]
EOF
"$exadl" run "$T/mae.yaml" --out "$T/res" >"$T/run.out" 2>&1 ||
    fail "exadl run: $(tail -n 5 "$T/run.out")"
run=$(ls -d "$T"/res/*-mae 2>/dev/null | head -1)
python3 - "$run" <<'PY' || fails=$((fails + 1))
import glob, os, re, sys
run = sys.argv[1]
bad = 0
def check(ok, what):
    global bad
    print(('PASS' if ok else 'FAIL') + ': io_readahead: ' + what)
    bad += not ok
rec = open(glob.glob(os.path.join(run, 'records', 'cosmo-mae-n1-r1.yaml'))[0]).read()
m = re.search(r'^    val_mae: \[(.*)\]$', rec, re.M)
s = re.search(r'^    step: \[(.*)\]$', rec, re.M)
mae = [float(x) for x in m.group(1).split(',')] if m else []
steps = [float(x) for x in s.group(1).split(',')] if s else []
check(len(mae) == 3 and len(steps) == 3, 'the record has 3 evaluations with val_mae: %s' % mae)
P = os.path.join(run, 'plots')
pts = []
if os.path.exists(os.path.join(P, 'io_mae.dat')):
    for l in open(os.path.join(P, 'io_mae.dat')):
        f = l.split()
        if len(f) == 2 and re.match(r'[0-9]', f[0]): pts.append((float(f[0]), float(f[1])))
check(len(pts) == len(mae) and all(abs(a - b) <= 1e-4 * abs(b) and x == y
                                   for (x, a), y, b in zip(pts, steps, mae)),
      'plots/io_mae.dat holds the record\'s (step, val_mae) points: %s' % pts)
gp = open(os.path.join(P, 'io_mae.gp')).read() if os.path.exists(os.path.join(P, 'io_mae.gp')) else ''
check('Validation MAE' in gp and "'io_mae.dat' index 0" in gp and 'cosmo-mae, 1 ranks' in gp,
      'plots/io_mae.gp draws the MAE line of the entry')
check(os.path.exists(os.path.join(P, 'io_quality.dat')), 'plots/io_quality.dat is still there')
md = open(os.path.join(run, 'report.md')).read()
head = re.search(r'^\| entry \| scale \| source .*$', md, re.M)
row = re.search(r'^\| cosmo-mae \| 1 \| files .*$', md, re.M)
cells = [c.strip() for c in row.group(0).strip('|').split('|')] if row else []
heads = [c.strip() for c in head.group(0).strip('|').split('|')] if head else []
ok = 'val MAE' in heads and len(cells) == len(heads) and mae and \
    abs(float(cells[heads.index('val MAE')]) - mae[-1]) <= 1e-3 * abs(mae[-1])
check(ok, 'the table\'s val MAE column holds the last evaluation\'s MAE (%s): %s' %
      (mae[-1] if mae else None, cells))
check('plots/io_mae.' in md, 'report.md links the io_mae figure')
sys.exit(1 if bad else 0)
PY
[ $fails -eq 0 ]
