#!/usr/bin/env bash
# STEMDL checkpoints and read-only mode (issue 35, docs/data.md "Checkpoints",
# "Read-only mode"; the code is cosmoflow's: benchmarks/train/ckpt.c, tdlio.c,
# tdataopt.c):
# - a run of 8 steps equals 4 steps + --restore + 4 steps bit for bit: the
#   final weights and the step-8 checkpoint files (weights, Adam's m and v)
#   are equal, on 1 rank (samples made in memory), on 2 ranks (2 groups,
#   reading shards) and on 2 ranks splitting each sample (--spatial 2); the
#   record's checkpoint block has the writes and their bandwidth;
# - --read-only true reads the batches of every step and prints samples/s and
#   GB/s (and with --record, writes them): the sample counts on 1 rank, 2
#   groups and a spatial pair;
# - bad combinations are refused in one line, exit 2: --read-only without
#   files:DIR or with checkpoints, --checkpoint-every without a folder, a
#   restore with a warm-up or no steps left, a checkpoint of another rank
#   count, another preset (parameters) or another image size (FLOPs per
#   sample); a corrupt checkpoint file is refused naming it;
# - --help lists the options and the exit codes.
set -u
S=$EXADL_BIN/stemdl
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
"$S" --preset tiny --seed 7 --samples 32 --val-samples 8 --shard-samples 8 --make-data "$T/set" \
    --format raw >"$T/mk.out" 2>&1 || echo "FAIL: --make-data: $(tail -n 2 "$T/mk.out")"

launch() { # np command...: the command, under mpirun when np > 1
    local np=$1
    shift
    if [ "$np" = 1 ]; then "$@"; else $M -np "$np" "$@"; fi
}
common=(--preset tiny --kernels reference --threads 1 --warmup 0 --seed 7 --quiet)
run() { # name np [args...]: weights $T/name.w.RANK, record $T/name.yaml
    local name=$1 np=$2
    shift 2
    launch "$np" "$S" "${common[@]}" --dump-weights "$T/$name.w" --record "$T/$name.yaml" "$@" \
        >"$T/$name.out" 2>&1 || echo "FAIL: $name: $(grep -m1 error "$T/$name.out")"
}
# what np args...: the whole run (8 steps, checkpoints at 4 and 8 in ck_whole),
# 4 steps (checkpoint at 4 in ck_part), the restore from it to 8 (checkpoint at 8)
restarted() {
    local what=$1 np=$2 tag=$3
    shift 3
    run "$tag.whole" "$np" "$@" --steps 8 --checkpoint-every 4 --checkpoint-dir "$T/$tag.ckw"
    run "$tag.part" "$np" "$@" --steps 4 --checkpoint-every 4 --checkpoint-dir "$T/$tag.ckp"
    run "$tag.rest" "$np" "$@" --steps 8 --checkpoint-every 4 --checkpoint-dir "$T/$tag.ckp" \
        --restore "$T/$tag.ckp/step-00000004"
    local ok=1 r
    for ((r = 0; r < np; r++)); do
        f=$(printf 'step-00000008/rank-%05d.bin' $r)
        [ -s "$T/$tag.whole.w.$r" ] && cmp -s "$T/$tag.whole.w.$r" "$T/$tag.rest.w.$r" &&
            [ -s "$T/$tag.ckw/$f" ] && cmp -s "$T/$tag.ckw/$f" "$T/$tag.ckp/$f" || ok=0
    done
    if [ $ok = 1 ] && grep -q '^  restored_step: 4$' "$T/$tag.rest.yaml" &&
        grep -q '^  writes: 2$' "$T/$tag.whole.yaml" && grep -q '^  step: \[4, 8\]$' "$T/$tag.whole.yaml" &&
        grep -Eq '^  write_GBps: [0-9.e+-]+$' "$T/$tag.whole.yaml" && ! grep -q '^  write_GBps: 0$' "$T/$tag.whole.yaml" &&
        grep -q '^step: 4$' "$T/$tag.ckp/step-00000004/manifest.yaml" &&
        grep -q "^ranks: $np\$" "$T/$tag.ckp/step-00000004/manifest.yaml"; then
        echo "PASS: $what: 8 steps = 4 steps + restore + 4 steps, bit for bit (weights, and the step-8 checkpoints: weights, m, v); writes and GB/s recorded"
    else
        echo "FAIL: $what: the restored run differs from the whole one, or the records miss the checkpoints (see $T/$tag.*)"
    fi
}
restarted "1 rank, --data cbed" 1 r1 --batch 2 --data cbed
restarted "2 ranks (2 groups), raw shards" 2 r2 --batch 1 --data "files:$T/set"
restarted "2 ranks splitting each sample (--spatial 2), raw shards" 2 rs --batch 2 --spatial 2 --data "files:$T/set"

# read-only: the batches of every step, no compute
ro() { # name np expected-samples args...
    local name=$1 np=$2 want=$3
    shift 3
    launch "$np" "$S" --preset tiny --data "files:$T/set" --read-only true --steps 8 --warmup 0 "$@" \
        >"$T/$name.out" 2>&1
    local rc=$?
    if [ $rc = 0 ] && grep -q "^stemdl: read only (no compute): $np rank(s) read $want samples" "$T/$name.out" &&
        grep -Eq '^read_only: samples_per_s [0-9.e+]+ GBps [0-9.e+-]+ seconds [0-9.e+-]+ bytes [0-9]+$' "$T/$name.out" &&
        ! grep -q 'timed steps' "$T/$name.out"; then
        echo "PASS: --read-only on $np rank(s) $*: reads the $want samples of 8 steps, prints samples/s and GB/s, trains nothing"
    else
        echo "FAIL: --read-only on $np rank(s) $*: exit $rc: $(tail -n 2 "$T/$name.out")"
    fi
}
ro ro1 1 32 --batch 4 --record "$T/ro1.yaml"
if grep -q '^read_only:$' "$T/ro1.yaml" && grep -q '^  program: stemdl$' "$T/ro1.yaml" &&
    grep -q '^  samples: 32$' "$T/ro1.yaml" && grep -Eq '^  GBps: [0-9.e+-]+$' "$T/ro1.yaml" &&
    grep -Eq '^  samples_per_s: [0-9.e+-]+$' "$T/ro1.yaml"; then
    echo "PASS: --read-only --record FILE writes the read_only map (samples, bytes, seconds, samples/s, GB/s)"
else
    echo "FAIL: --read-only --record: $(cat "$T/ro1.yaml" 2>&1 | head -n 5)"
fi
ro ro2 2 32 --batch 2
ro ros 2 16 --batch 2 --spatial 2
bytes1=$(awk '$1 == "read_only:" { print $9 }' "$T/ro1.out")
bytess=$(awk '$1 == "read_only:" { print $9 }' "$T/ros.out")
if [ -n "$bytes1" ] && [ "$bytess" = "$bytes1" ]; then
    echo "PASS: a spatial pair reads each of its 16 samples whole on both ranks (the bytes of 32 samples)"
else
    echo "FAIL: read-only bytes: 1 rank $bytes1, spatial pair $bytess"
fi

# refusals: one line, exit 2
refused() { # what pattern np args...
    local what=$1 pat=$2 np=$3
    shift 3
    launch "$np" "$S" "$@" >"$T/ref.out" 2>&1
    local rc=$? n
    n=$(grep -c '^stemdl: error: ' "$T/ref.out")
    if [ $rc = 2 ] && [ "$n" = 1 ] && grep -q "^stemdl: error: .*$pat" "$T/ref.out" &&
        { [ "$np" != 1 ] || [ "$(wc -l <"$T/ref.out")" = 1 ]; }; then
        echo "PASS: $what: refused in one line, exit 2"
    else
        echo "FAIL: $what: exit $rc, $n error line(s): $(head -n 3 "$T/ref.out")"
    fi
}
refused "--read-only without --data files:DIR" '--read-only needs --data files:DIR' 1 --preset tiny --read-only true
refused "--read-only --data cbed" '--read-only needs --data files:DIR' 1 --preset tiny --read-only true --data cbed
refused "--read-only with checkpoints" '--read-only computes nothing' 1 --preset tiny --read-only true \
    --data "files:$T/set" --checkpoint-every 2 --checkpoint-dir "$T/x"
refused "--checkpoint-every without --checkpoint-dir" '--checkpoint-every needs --checkpoint-dir' 1 --preset tiny --checkpoint-every 2
refused "--read-only maybe" "--read-only: 'maybe' is not true or false" 1 --preset tiny --read-only maybe
refused "--restore with a warm-up" 'takes --warmup 0' 1 "${common[@]}" --data cbed --warmup 1 --steps 8 \
    --restore "$T/r1.ckp/step-00000004"
refused "--restore with no steps left" 'the checkpoint has done 4 steps; --steps 4 leaves none' 1 "${common[@]}" \
    --data cbed --steps 4 --restore "$T/r1.ckp/step-00000004"
refused "--restore of a 1-rank checkpoint on 2 ranks" 'rank-00000.bin: written by rank 0 of a run of 1 rank(s); this run has 2' 2 \
    "${common[@]}" --data cbed --steps 8 --restore "$T/r1.ckp/step-00000004"
refused "--restore of a 2-rank checkpoint on 1 rank" 'written by rank 0 of a run of 2 rank(s); this run has 1' 1 \
    "${common[@]}" --data cbed --steps 8 --restore "$T/r2.ckp/step-00000004"
refused "--restore of a tiny checkpoint into preset small" 'a network of 7060 parameters; this one has [0-9]* (another preset' 1 \
    "${common[@]}" --preset small --data cbed --steps 8 --restore "$T/r1.ckp/step-00000004"
refused "--restore of a tiny checkpoint into tiny at --image 32 (same parameters)" 'forward FLOPs per sample; this one has' 1 \
    "${common[@]}" --image 32 --data cbed --steps 8 --restore "$T/r1.ckp/step-00000004"
mkdir -p "$T/empty"
refused "--restore of a folder without a manifest" 'no manifest: not a checkpoint' 1 "${common[@]}" --data cbed --steps 8 \
    --restore "$T/empty"
refused "--restore of a data set's folder" "manifest.yaml: not a checkpoint's manifest" 1 "${common[@]}" --data cbed \
    --steps 8 --restore "$T/set"

# a corrupt checkpoint file is found when it is read whole: the run fails naming it
python3 - "$T/r1.ckp/step-00000004/rank-00000.bin" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[200] ^= 0x01
open(p, 'wb').write(b)
PY
"$S" "${common[@]}" --batch 2 --data cbed --steps 8 --restore "$T/r1.ckp/step-00000004" >"$T/bad.out" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q 'step-00000004/rank-00000.bin: CRC-32 .*(corrupt)' "$T/bad.out"; then
    echo "PASS: a corrupt checkpoint file is refused naming it (exit $rc)"
else
    echo "FAIL: a corrupt checkpoint: exit $rc: $(grep -m1 error "$T/bad.out")"
fi

"$S" --help >"$T/help.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q -- '--read-only true' "$T/help.out" && grep -q -- '--checkpoint-every N' "$T/help.out" &&
    grep -q -- '--checkpoint-dir DIR' "$T/help.out" && grep -q -- '--restore DIR/step-NNNNNNNN' "$T/help.out" &&
    grep -q '^Exit status: 0 ok; 1 the run failed' "$T/help.out" && grep -q '2 bad input' "$T/help.out" &&
    grep -q -- '--restore of a checkpoint of another rank count' "$T/help.out"; then
    echo "PASS: --help lists --read-only, --checkpoint-every, --checkpoint-dir, --restore and the exit codes"
else
    echo "FAIL: --help (exit $rc) misses the checkpoint or read-only options"
fi
exit 0
