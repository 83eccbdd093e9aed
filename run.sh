#!/usr/bin/env bash
# ExaDL's main job: install what is missing, build, run the default suite.
#
#   ./run.sh                 install what is missing (Debian: apt-get), build with
#                            make, run `exadl run` (the embedded default suite, fitted
#                            to this machine), print the summary table and the path
#                            of the report
#   ./run.sh SUITE.yaml ...  the same with a suite of your own (arguments go to
#                            `exadl run`, e.g. --out DIR)
#   ./run.sh test            install, build, and run every test (`make test`)
#   ./run.sh simulate [...]  install SimGrid too (libsimgrid-dev), build the simulated
#                            programs (make smpi) and run the Summit simulation suite
#                            (harness/suite/suites/simulate-summit.yaml; arguments go
#                            to `exadl run`; docs/simulate.md)
#
# Where there is no apt-get (or no root), nothing is installed: the script prints
# exactly which packages (Debian names) or environment modules are missing and
# stops.  Exit status: exadl's (0 all launches ok and all checks passed).
set -u
cd "$(dirname "$0")"

say() { printf '%s\n' "run.sh: $*"; }

# ---- what the build and the run need -----------------------------------------
# each line: debian-package  what-provides-it (a command, or a header + library)
missing=()
miss() { missing+=("$1"); }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
# does `#include <$1>` compile and `-l$2` link (with mpicc for MPI)?
have_lib() {
    local hdr=$1 lib=$2 cc=${3:-cc}
    have_cmd "$cc" || return 1
    printf '#include <%s>\nint main(void){return 0;}\n' "$hdr" |
        "$cc" -x c - -o /dev/null ${lib:+-l$lib} >/dev/null 2>&1
}
check() {
    missing=()
    { have_cmd cc || have_cmd gcc; } && have_cmd make || miss "build-essential (cc, make)"
    have_cmd mpicc && have_lib mpi.h "" mpicc || miss "libopenmpi-dev (mpicc, mpi.h)"
    have_cmd mpirun || miss "openmpi-bin (mpirun)"
    have_lib yaml.h yaml || miss "libyaml-dev (yaml.h, -lyaml)"
    have_lib cblas.h openblas || miss "libopenblas-dev (cblas.h, -lopenblas)"
    have_lib dnnl.h dnnl || miss "libdnnl-dev (dnnl.h, -ldnnl: oneDNN)"
    have_cmd gnuplot || miss "gnuplot-nox (gnuplot, for the plots)"
    # data sets in HDF5 (docs/data.md; the Makefile finds it through pkg-config;
    # without it the hdf5 encoding is refused and raw shards still work)
    { have_cmd pkg-config && pkg-config --exists hdf5; } ||
        miss "libhdf5-dev (hdf5.h, -lhdf5: HDF5 data sets; needs pkg-config)"
    have_cmd pkg-config || miss "pkg-config (finds HDF5)"
    # shard checksums through zlib's crc32() (Makefile ZLIB=auto; without it a slower loop)
    { have_cmd pkg-config && pkg-config --exists zlib; } || miss "zlib1g-dev (zlib.h: the shards' CRC-32)"
    if [ "$mode" = test ] || [ "$mode" = simulate ]; then
        # SimGrid's SMPI: make smpi and tests/it/smpi.sh (docs/simulate.md)
        { have_cmd smpicc && have_cmd smpirun; } || miss "libsimgrid-dev (smpicc, smpirun: make smpi)"
    fi
    if [ "$mode" = test ]; then
        # some tests read records with PyYAML to cross-check our own YAML reader
        have_cmd python3 || miss "python3 (tests)"
        python3 -c 'import yaml' 2>/dev/null || miss "python3-yaml (tests: PyYAML)"
        # the fuzz harnesses of `make test`: clang with libFuzzer (a Recommends of
        # clang, so named: apt-get runs with --no-install-recommends)
        if ! have_cmd clang || ! tests/fuzz/run.sh --can-build clang; then
            miss "clang (tests: the fuzz harnesses)"
            miss "libclang-rt-dev (tests: libFuzzer, clang -fsanitize=fuzzer)"
        fi
        # tests/it/slurm.sh starts a single-node Slurm of its own (no systemd needed)
        have_cmd slurmctld || miss "slurmctld (tests: a local Slurm controller)"
        have_cmd slurmd || miss "slurmd (tests: a local Slurm node)"
        have_cmd srun && have_cmd sbatch || miss "slurm-client (tests: srun, salloc, sbatch)"
        have_cmd munged || miss "munge (tests: Slurm's authentication)"
        # tests/it/lioncub.sh and vcluster.sh: network namespaces, a bridge, tc htb links
        have_cmd ip && have_cmd tc || miss "iproute2 (tests: ip and tc, the emulated networks)"
        # tests/it/io_readahead.sh counts the read hints with strace
        have_cmd strace || miss "strace (tests: the read hints of io_readahead.sh)"
    fi
}
mode=${1:-run}

check
if [ ${#missing[@]} -gt 0 ]; then
    pkgs=$(printf '%s\n' "${missing[@]}" | sed 's/ .*//' | tr '\n' ' ')
    if have_cmd apt-get && [ "$(id -u)" = 0 ]; then
        say "installing: $pkgs"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update && apt-get install -y --no-install-recommends ca-certificates $pkgs ||
            { say "error: apt-get could not install: $pkgs"; exit 1; }
        check
    elif have_cmd apt-get && have_cmd sudo && sudo -n true 2>/dev/null; then
        say "installing with sudo: $pkgs"
        sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends ca-certificates $pkgs ||
            { say "error: apt-get could not install: $pkgs"; exit 1; }
        check
    fi
fi
if [ ${#missing[@]} -gt 0 ]; then
    say "error: missing, and not installed here (no apt-get, or not root):"
    printf '  %s\n' "${missing[@]}"
    say "on Debian/Ubuntu: apt-get install $(printf '%s\n' "${missing[@]}" | sed 's/ .*//' | tr '\n' ' ')"
    say "on a cluster with environment modules, load the equivalents, e.g.:"
    say "  module load gcc openmpi openblas onednn libyaml gnuplot"
    exit 1
fi

# ---- build ---------------------------------------------------------------------
jobs=$(nproc 2>/dev/null || echo 2)
say "building (make -j$jobs)"
if ! make -j"$jobs" >build.log 2>&1; then
    tail -n 30 build.log
    say "error: the build failed; the whole log is in build.log"
    exit 1
fi
rm -f build.log

if [ "${1:-}" = test ]; then
    shift
    exec make test "$@"
fi

if [ "${1:-}" = simulate ]; then
    shift
    say "building the simulated programs (make smpi)"
    make -j"$jobs" smpi >build.log 2>&1 || { tail -n 30 build.log; say "error: make smpi failed; the log is in build.log"; exit 1; }
    rm -f build.log
    exec build/bin/exadl run harness/suite/suites/simulate-summit.yaml "$@"
fi

# ---- run ---------------------------------------------------------------------------
# exadl prints one line per launch, then the summary table (scale, samples/s,
# efficiency, FLOP/s, checks) and the path of report.md
build/bin/exadl run "$@"
status=$?
case $status in
0) say "done: every launch ok, every check passed" ;;
1) say "done, but a launch or a check failed (the report says which)" ;;
130) say "interrupted; what ran is in the report" ;;
*) say "exadl run failed (exit status $status)" ;;
esac
exit $status
