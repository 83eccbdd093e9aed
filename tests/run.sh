#!/usr/bin/env bash
# ExaDL test runner.  Usage: tests/run.sh BUILD_DIR [BUILD_DIR...]
#
# For every build tree: each unit-test binary in BUILD/tests/ (which prints
# PASS:/FAIL:/SKIP: lines) and each integration script tests/it/*.sh (exit 0
# pass, 77 skip, anything else fail; it prints PASS:/FAIL:/SKIP: lines of its
# own when it checks several things).  Then, once, the fuzz harnesses when
# EXADL_FUZZ_BUILD names their build (make test does).  Last, that the tests
# left the source tree as they found it (`git status --porcelain` before and
# after: no new untracked or changed file; SKIP without git or outside a
# clone).  Ends with "N passed, N failed".
#
# MPI settings for this machine live here, not in the programs: tests run as
# root in CI and start more ranks than there are cores.
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
# no network in the sandboxes: shared memory and loopback only
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_pml=ob1 OMPI_MCA_mtl=^ofi,psm,psm2 OMPI_MCA_osc=^ucx
export EXADL_MPIRUN=${EXADL_MPIRUN:-mpirun}
# run inside a Slurm job or not, the tests see a plain machine (tests/it/slurm.sh
# starts a Slurm of its own): no allocation's variables reach exadl
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

[ $# -ge 1 ] || set -- build
# EXADL_TESTS="NAME ...": only these unit binaries (test_x) and integration
# scripts (x, for tests/it/x.sh) run (tests/manual/gpu_session.sh's GPU tests)
selected() { [ -z "${EXADL_TESTS:-}" ] || [[ " $EXADL_TESTS " == *" $1 "* ]]; }
pass=0 fail=0 skip=0
failed_names=()
logdir=$(mktemp -d "${TMPDIR:-/tmp}/exadl-tests.XXXXXX")
# the CPU peak is the machine's, cached (docs/harness.md "The peak"): the tests
# pin one of their own, so no number depends on a quiet probe and ~/.cache is
# never written (tests/support/peak_cache.py; tests/it/harness_peak.sh measures)
export EXADL_PEAK_CACHE=$logdir/peak-cache.yaml
python3 tests/support/peak_cache.py "$EXADL_PEAK_CACHE" 2e10 || echo "tests/run.sh: no pinned peak cache"
t_start=$(date +%s)
# the tree as the tests found it (every untracked file listed, ignored ones not)
tree_state() { git -C "$root" status --porcelain --untracked-files=all 2>/dev/null; }
tree_git=0
if command -v git >/dev/null 2>&1 && git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    tree_git=1
    tree_state >"$logdir/tree.before"
fi

count() { # $1 = tag, $2 = log file
    local tag=$1 log=$2 p f s
    p=$(grep -c '^PASS: ' "$log"); f=$(grep -c '^FAIL: ' "$log"); s=$(grep -c '^SKIP: ' "$log")
    sed -n -e "s/^\(PASS\|FAIL\|SKIP\): /\1: [$tag] /p" "$log"
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    if [ "$f" -gt 0 ]; then
        while IFS= read -r l; do failed_names+=("[$tag] $l"); done < <(grep '^FAIL: ' "$log")
    fi
}

for build in "$@"; do
    tag=$(basename "$build")
    if [ ! -x "$build/bin/stemdl" ] || [ ! -x "$build/bin/exadl" ]; then
        echo "FAIL: [$tag] build: $build/bin is missing programs (run make first)"
        fail=$((fail + 1)); failed_names+=("[$tag] build missing")
        continue
    fi
    export EXADL_BIN=$root/$build/bin EXADL_BUILD=$root/$build EXADL_ROOT=$root
    # the sanitizer build keeps Open MPI's components mapped (tests/support/nodlclose.c)
    # so that LeakSanitizer can name, and tests/lsan.supp suppress, what they allocate
    if [ -f "$build/lib/libnodlclose.so" ]; then
        export LD_PRELOAD=$root/$build/lib/libnodlclose.so
        export ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0
        export LSAN_OPTIONS=suppressions=$root/tests/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0
    else
        unset LD_PRELOAD
    fi
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        selected "$name" || continue
        log=$logdir/$tag-$name.log
        t0=$(date +%s)
        timeout 600 "$t" >"$log" 2>&1
        rc=$?
        if ! grep -qE '^(PASS|FAIL|SKIP): ' "$log" || { [ $rc -ne 0 ] && ! grep -q '^FAIL: ' "$log"; }; then
            echo "FAIL: $name: exited $rc without reporting a failure" >>"$log"
        fi
        count "$tag" "$log"
        [ $(( $(date +%s) - t0 )) -gt 20 ] && echo "  ($tag/$name took $(( $(date +%s) - t0 )) s)"
        if grep -q '^FAIL: ' "$log"; then sed 's/^/    | /' "$log" | tail -n 30; fi
    done
    for t in tests/it/*.sh; do
        [ -f "$t" ] || continue
        name=$(basename "$t" .sh)
        selected "$name" || continue
        log=$logdir/$tag-$name.log
        t0=$(date +%s)
        (cd "$root" && EXADL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/exadl-it.XXXXXX") timeout 900 bash "$t") >"$log" 2>&1
        rc=$?
        if ! grep -qE '^(PASS|FAIL|SKIP): ' "$log"; then
            case $rc in
            0) echo "PASS: $name" >>"$log" ;;
            77) echo "SKIP: $name: $(tail -n 1 "$log")" >>"$log" ;;
            *) echo "FAIL: $name: exit status $rc" >>"$log" ;;
            esac
        elif [ $rc -ne 0 ] && [ $rc -ne 77 ] && ! grep -q '^FAIL: ' "$log"; then
            echo "FAIL: $name: exit status $rc" >>"$log"
        fi
        count "$tag" "$log"
        [ $(( $(date +%s) - t0 )) -gt 20 ] && echo "  ($tag/$name took $(( $(date +%s) - t0 )) s)"
        if grep -q '^FAIL: ' "$log"; then sed 's/^/    | /' "$log" | tail -n 40; fi
    done
done

# the fuzz harnesses, once (not per build): `make test` builds them where clang
# has libFuzzer and names the folder in EXADL_FUZZ_BUILD (tests/fuzz/run.sh)
if [ -n "${EXADL_FUZZ_BUILD:-}" ] && [ "${EXADL_FUZZ_SECONDS:-15}" != 0 ]; then
    log=$logdir/fuzz.log
    t0=$(date +%s)
    if [ -x "$EXADL_FUZZ_BUILD/fuzz/fuzz_suite" ]; then
        tests/fuzz/run.sh "$EXADL_FUZZ_BUILD" "${EXADL_FUZZ_SECONDS:-15}" >"$log" 2>&1
    else
        echo "SKIP: fuzz: no harnesses in $EXADL_FUZZ_BUILD (${EXADL_FUZZ_CC:-clang} with libFuzzer" \
             "not found; Debian: apt-get install clang libclang-rt-dev)" >"$log"
    fi
    count fuzz "$log"
    echo "  (fuzzing took $(( $(date +%s) - t0 )) s)"
    if grep -q '^FAIL: ' "$log"; then sed 's/^/    | /' "$log" | tail -n 20; fi
fi

# a test writes only into its own temporary folders: whatever is new in
# `git status` now (a stray file in the tree, a tracked file changed) is a failure
log=$logdir/clean-tree.log
if [ "$tree_git" = 1 ]; then
    tree_state >"$logdir/tree.after"
    new=$(grep -vxF -f "$logdir/tree.before" "$logdir/tree.after")
    if [ -n "$new" ]; then
        echo "FAIL: clean-tree: the tests left files in the source tree (git status):" >"$log"
        printf '%s\n' "$new" | sed 's/^/    /' >>"$log"
    else
        echo "PASS: clean-tree: git status unchanged by the tests" >"$log"
    fi
else
    echo "SKIP: clean-tree: no git clone here (git status cannot tell what the tests left)" >"$log"
fi
count all "$log"
grep -q '^FAIL: ' "$log" && sed -n 's/^    /    | /p' "$log"

echo
echo "logs: $logdir   time: $(( $(date +%s) - t_start )) s"
if [ ${#failed_names[@]} -gt 0 ]; then
    echo "failed:"
    printf '  %s\n' "${failed_names[@]}"
fi
echo "$skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
