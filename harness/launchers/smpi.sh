#!/usr/bin/env bash
# smpi.sh: run an ExaDL benchmark as simulated ranks under SimGrid's smpirun
# (docs/simulate.md).  The smpi launcher (smpi.c) puts it in front of the
# benchmark's command; it also works alone.
#
#   harness/launchers/smpi.sh -np N [--platform XML] [--hostfile FILE] -- PROGRAM ARGS...
#
#   PROGRAM   an ExaDL program (any path): its simulated build is run,
#             $EXADL_SMPI_BIN/NAME, default build-smpi/bin/NAME (make smpi)
#   XML       SimGrid platform; default $EXADL_SMPI_PLATFORM, else
#             reference/platforms/summit-flat.xml (relative: from the current
#             folder, else from the project's root)
#   FILE      smpirun hostfile (host:ranks lines); default XML with .xml
#             replaced by .hosts, else reference/platforms/summit.hosts
#
# Fixed settings, each for a reason (docs/simulate.md "Settings"):
#   smpi/privatization:no        per-rank dlopen copies fail at tens of thousands of
#                                ranks; the programs keep no per-rank state in globals
#                                that changes results (docs/simulate.md "Globals")
#   collective algorithms        $EXADL_SMPI_COLL, a list of COLLECTIVE:ALGORITHM
#                                (smpi/allreduce:rdb, ...) or selector:NAME (smpi/
#                                coll-selector: ompi, mvapich2, mpich); default the
#                                algorithms Open MPI picks for small messages, named
#                                one by one: recursive doubling allreduce and
#                                allgather, binomial bcast, gather and reduce,
#                                recursive-doubling barrier.  A selector is slow to
#                                start at scale (SMP-aware communicators)
#   network/model:CM02, network/crosstraffic:0
#                                the platform's latency and bandwidth as written, no
#                                calibration factors, no reverse-traffic penalty:
#                                times follow the alpha-beta numbers of the XML
#   smpi/simulate-computation    $EXADL_SMPI_COMPUTE (no): the host time of the code
#                                between MPI calls is not simulated (it would measure
#                                this machine, under its load); compute enters only as
#                                smpi_execute_flops where a program says so
#   $EXADL_SMPI_CFG              more SimGrid settings (NAME:VALUE ...), e.g. smpi/or
#   smpi/auto-shared-malloc-thresh  $EXADL_SMPI_SHARED_BYTES (unset: off): allocations
#                                of at least that many bytes are one buffer shared by
#                                all ranks; contents are then meaningless, so a
#                                record's validation says nothing (set it only for
#                                timing at scale)
#   $EXADL_SMPI_CFG              more SimGrid settings, NAME:VALUE separated by
#                                spaces (e.g. smpi/or:0:5e-7:0, a receive overhead
#                                of 0.5 us per message), recorded as extra_settings
# After the run, when ARGS hold --record FILE, a `simulation:` block is appended
# to that record: simulated: true, the platform, ranks, this machine's wall time
# and peak memory for the whole simulation.  Exit status: smpirun's; 2 bad
# usage; 3 no smpirun or no simulated build (one line says which).
set -u
me=smpi.sh
say() { printf '%s: %s\n' "$me" "$*" >&2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
np= platform=${EXADL_SMPI_PLATFORM:-} hostfile=
while [ $# -gt 0 ]; do
    case $1 in
    -np) np=${2:-}; shift 2 || { say "-np needs a value"; exit 2; } ;;
    --platform) platform=${2:-}; shift 2 || { say "--platform needs a value"; exit 2; } ;;
    --hostfile) hostfile=${2:-}; shift 2 || { say "--hostfile needs a value"; exit 2; } ;;
    --) shift; break ;;
    *) say "unknown option '$1' (usage: $me -np N [--platform XML] [--hostfile FILE] -- PROGRAM ARGS...)"; exit 2 ;;
    esac
done
case $np in ''|*[!0-9]*|0) say "-np: '$np' is not a positive number of ranks"; exit 2 ;; esac
[ $# -ge 1 ] || { say "no program after --"; exit 2; }
command -v smpirun >/dev/null || { say "smpirun not found: apt-get install libsimgrid-dev (or ./run.sh simulate)"; exit 3; }
[ -n "$platform" ] || platform=$root/reference/platforms/summit-flat.xml
# a relative path: from here, else from the project (suites name reference/...)
[ -f "$platform" ] || [ ! -f "$root/$platform" ] || platform=$root/$platform
[ -f "$platform" ] || { say "platform $platform: no such file"; exit 2; }
if [ -z "$hostfile" ]; then
    hostfile=${platform%.xml}.hosts
    [ -f "$hostfile" ] || hostfile=$root/reference/platforms/summit.hosts
fi
[ -f "$hostfile" ] || { say "hostfile $hostfile: no such file"; exit 2; }
slots=$(awk -F: 'NF==2 {n += $2; next} NF {n++} END {print n+0}' "$hostfile")
[ "$np" -le "$slots" ] || { say "-np $np: the hostfile $hostfile has $slots rank slots"; exit 2; }

# the simulated build of the program exadl names (build/bin/NAME, or any
# build's): $EXADL_SMPI_BIN/NAME, default the project's build-smpi/bin/NAME
prog=${EXADL_SMPI_BIN:-$root/build-smpi/bin}/$(basename "$1"); shift
[ -x "$prog" ] || { say "$prog: no simulated build of this program (make smpi)"; exit 3; }

record=
prev=
for a in "$@"; do
    case $a in --record=*) record=${a#--record=} ;; esac
    [ "$prev" = --record ] && record=$a
    prev=$a
done

# the algorithm of each collective: Open MPI's choices for small messages,
# named one by one (a selector, smpi/coll-selector:ompi, sets up SMP-aware
# communicators at start-up: 45 s of CPU for 1,024 ranks instead of 1 s)
sel=${EXADL_SMPI_COLL:-allreduce:rdb bcast:binomial_tree gather:ompi_binomial reduce:binomial allgather:rdb barrier:ompi_recursivedoubling reduce_scatter:ompi_basic_recursivehalving}
coll=()
for c in $sel; do
    case $c in
    selector:*) coll+=("--cfg=smpi/coll-selector:${c#selector:}") ;;
    *:*) coll+=("--cfg=smpi/$c") ;;
    *) say "EXADL_SMPI_COLL: '$c' is not COLLECTIVE:ALGORITHM or selector:NAME"; exit 2 ;;
    esac
done
# a shared allocation (SMPI_SHARED_MALLOC) is mapped block by block: with
# SMPI's 1 MiB blocks a rank's 92 MB reduction buffer (skeleton, gb2019) is 92
# mappings, and 563 ranks passed the kernel's 65,530 (vm.max_map_count);
# blocks of 256 MiB make it one mapping per rank
shared=(--cfg=smpi/shared-malloc-blocksize:268435456)
[ -n "${EXADL_SMPI_SHARED_BYTES:-}" ] && shared+=("--cfg=smpi/auto-shared-malloc-thresh:$EXADL_SMPI_SHARED_BYTES")
# more settings, e.g. SMPI's per-message receive overhead (LogP's o):
# EXADL_SMPI_CFG='smpi/or:0:5e-7:0' (from 0 bytes: 0.5 us per message, 0 per
# byte); each NAME:VALUE, no spaces, no shell characters
extra=()
for c in ${EXADL_SMPI_CFG:-}; do
    case $c in
    */*:*) ;;
    *) say "EXADL_SMPI_CFG: '$c' is not a SimGrid NAME:VALUE setting"; exit 2 ;;
    esac
    case $c in
    *[!A-Za-z0-9/_.:+-]*) say "EXADL_SMPI_CFG: '$c' has characters other than letters, digits and / _ . : + -"; exit 2 ;;
    esac
    extra+=("--cfg=$c")
done
timing=$(mktemp "${TMPDIR:-/tmp}/exadl-smpi.XXXXXX")
trap 'rm -f "$timing"' EXIT
# GNU time gives the peak resident memory of the simulation (one process)
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%e %M' -o "$timing")
start=$(date +%s.%N)
"${timer[@]}" smpirun -np "$np" -platform "$platform" -hostfile "$hostfile" \
    --cfg=smpi/privatization:no "${coll[@]}" \
    --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
    --cfg=smpi/simulate-computation:"${EXADL_SMPI_COMPUTE:-no}" "${shared[@]}" "${extra[@]}" \
    --log=root.thres:warning --log=smpi_config.thres:warning \
    "$prog" "$@"
rc=$?
end=$(date +%s.%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')
peak_kb=$(awk 'END {print $2}' "$timing" 2>/dev/null)
case $peak_kb in ''|*[!0-9]*) peak_kb=-1 ;; esac
if [ "$rc" = 0 ] && [ -n "$record" ] && [ -f "$record" ]; then
    q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"; }
    {
        printf 'simulation:\n'
        printf '  simulated: true\n'
        printf '  simulator: %s\n' "$(q "$(smpirun -version 2>/dev/null | head -n 1)")"
        printf '  platform: %s\n' "$(q "$platform")"
        printf '  hostfile: %s\n' "$(q "$hostfile")"
        printf '  ranks: %d\n' "$np"
        printf '  collectives: %s\n' "$(q "$sel")"
        printf '  simulate_computation: %s\n' "$(q "${EXADL_SMPI_COMPUTE:-no}")"
        printf '  shared_malloc_bytes: %s\n' "${EXADL_SMPI_SHARED_BYTES:-0}"
        printf '  extra_settings: %s\n' "$(q "${EXADL_SMPI_CFG:-}")"
        printf '  wall_s: %s\n' "$wall"
        if [ "$peak_kb" -ge 0 ]; then
            printf '  peak_memory_bytes: %d\n' $((peak_kb * 1024))
        fi
    } >>"$record"
fi
exit $rc
