#!/usr/bin/env bash
# bench_io.sh: the read-only (DLIO-style) mode of cosmoflow or stemdl against
# dd reading the same files (docs/data.md "Read-only mode"), every number
# measured in this run.
#
#   benchmarks/cosmoflow/tools/bench_io.sh [BUILD_DIR]        (default: build)
#   env: PROGRAM (cosmoflow | stemdl, default cosmoflow: the program whose
#        set is written and read; its set: cosmoflow's GRF set, stemdl's
#        CBED set),
#        PRESET (default small: cosmoflow 64^3 x 4, 4 MiB samples; stemdl
#        128 x 64x64 in, 64x64 potential maps out, 2.1 MB samples), SAMPLES (default 128),
#        FORMAT (raw | hdf5, default raw), SHARD (samples per shard, default 16),
#        BATCH (default 4), RANKS (default 1), PREFETCH (the reader thread's
#        depth, default 2; 0: no thread, each batch read straight into the
#        step's buffer), READAHEAD (samples hinted to the kernel ahead of each
#        read, --readahead; default: the program's), DIR (default: a fresh folder
#        under ${TMPDIR:-/tmp}, removed at the end)
#
# (a) writes the GRF set (--make-data) and prints its write rate;
# (b) cold reads: before each reader, every shard's pages are dropped from
#     the page cache (fsync, then posix_fadvise DONTNEED: only these files,
#     not the machine's cache), then
#       dd:         each shard file in turn, bs=4M, to /dev/null;
#       PROGRAM:    --read-only true over one epoch (SAMPLES / (BATCH x RANKS)
#                   steps), the training's reader thread, PREFETCH, global
#                   shuffle (samples in random order across the shards),
#                   the program's --readahead (or READAHEAD),
#                   --verify false (no CRC: the storage alone, as dd), then
#                   again with each sample's CRC checked (training's default);
# (c) warm reads: the same two again with the files in the page cache;
# then the ratio PROGRAM / dd of each (the target: within 20%, >= 0.8).
set -u
BUILD=${1:-build}
PROGRAM=${PROGRAM:-cosmoflow}
case $PROGRAM in
cosmoflow) SET=(--data grf) ;;
stemdl) SET=(--data cbed --val-samples 0) ;;
*) echo "bench_io.sh: PROGRAM '$PROGRAM' is not cosmoflow or stemdl"; exit 2 ;;
esac
C=$BUILD/bin/$PROGRAM
PRESET=${PRESET:-small} SAMPLES=${SAMPLES:-128} FORMAT=${FORMAT:-raw} SHARD=${SHARD:-16}
BATCH=${BATCH:-4} RANKS=${RANKS:-1} PREFETCH=${PREFETCH:-2} READAHEAD=${READAHEAD:-}
own=0
if [ -z "${DIR:-}" ]; then DIR=$(mktemp -d "${TMPDIR:-/tmp}/exadl-bench-io.XXXXXX")/set; own=1; fi
[ -x "$C" ] || { echo "bench_io.sh: $C not built (make)"; exit 2; }
now() { date +%s.%N; }
evict() { # drop the set's pages from the page cache
    python3 - "$DIR" <<'PY'
import os, sys
d = sys.argv[1]
for n in os.listdir(d):
    fd = os.open(os.path.join(d, n), os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
PY
}
echo "uptime_before: $(cat /proc/loadavg)"
echo "set: $PROGRAM preset $PRESET, $SAMPLES samples, $FORMAT, $SHARD per shard, in $DIR"
"$C" --preset "$PRESET" --make-data "$DIR" "${SET[@]}" --samples "$SAMPLES" --format "$FORMAT" \
    --shard-samples "$SHARD" | sed 's/^/make: /' || exit 1
steps=$((SAMPLES / (BATCH * RANKS)))
[ "$steps" -ge 1 ] || { echo "bench_io.sh: SAMPLES < BATCH x RANKS"; exit 2; }
dd_read() {
    local t0 t1 bytes=0
    t0=$(now)
    for f in "$DIR"/train-*; do
        dd if="$f" of=/dev/null bs=4M status=none
        bytes=$((bytes + $(stat -c %s "$f")))
    done
    t1=$(now)
    awk -v b="$bytes" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.6g %d %.6g\n", b / (z - a) / 1e9, b, z - a }'
}
ours() {
    local cmd=("$C" --preset "$PRESET" --data "files:$DIR" --read-only true --steps "$steps" --verify "$1"
               --warmup 0 --batch "$BATCH" --threads 1 --prefetch "$PREFETCH")
    [ -n "$READAHEAD" ] && cmd+=(--readahead "$READAHEAD")
    if [ "$RANKS" = 1 ]; then "${cmd[@]}"; else mpirun -np "$RANKS" "${cmd[@]}"; fi |
        awk '$1 == "read_only:" { print $5, $9, $7 }'
}
for mode in cold warm; do
    [ $mode = cold ] && evict
    read -r dd_gbps dd_bytes dd_s < <(dd_read)
    [ $mode = cold ] && evict
    read -r our_gbps our_bytes our_s < <(ours false)
    [ $mode = cold ] && evict
    read -r crc_gbps crc_bytes crc_s < <(ours true)
    echo "$mode:"
    echo "  dd:        {GBps: $dd_gbps, bytes: $dd_bytes, seconds: $dd_s}"
    echo "  $PROGRAM: {GBps: $our_gbps, bytes: $our_bytes, seconds: $our_s, ranks: $RANKS, batch: $BATCH, steps: $steps, prefetch: $PREFETCH, readahead: ${READAHEAD:-default}, verify: false}"
    echo "  ${PROGRAM}_crc: {GBps: $crc_gbps, bytes: $crc_bytes, seconds: $crc_s, verify: true}"
    awk -v p="$PROGRAM" -v a="$our_gbps" -v b="$dd_gbps" -v c="$crc_gbps" 'BEGIN { r = a / b; printf "  ratio: {%s_over_dd: %.3f, target: 0.8, verdict: %s, with_crc_over_dd: %.3f}\n", p, r, (r >= 0.8 ? "MET" : "MISSED"), c / b }'
done
echo "uptime_after: $(cat /proc/loadavg)"
[ $own = 1 ] && rm -rf "$(dirname "$DIR")"
exit 0
