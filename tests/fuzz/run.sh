#!/usr/bin/env bash
# Run the libFuzzer harnesses (make fuzz-build; docs/harness.md "Security and
# trust").  Usage:
#   tests/fuzz/run.sh BUILD SECONDS     each BUILD/fuzz/fuzz_NAME: first its crash
#                                       regressions (tests/fuzz/regress/NAME/*, each
#                                       input once), then SECONDS of fuzzing from its
#                                       seeds; two at a time where there are 2 cores
#   tests/fuzz/run.sh --can-build [CC]  exit 0 when CC (clang) links -fsanitize=fuzzer
#
# Seeds: tests/fuzz/seeds/NAME/ and the project's own files of that kind
# (suites, reference files, machine files, records); what a run adds to the
# corpus stays in BUILD/fuzz/corpus/NAME/.  One line per harness, "PASS: fuzz
# NAME: ..." with the executions and the corpus size, or "FAIL: fuzz NAME:
# ..." with the saved input (BUILD/fuzz/crashes/): once the bug is fixed, copy
# the input to tests/fuzz/regress/NAME/ so that every later run replays it.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)

if [ "${1:-}" = --can-build ]; then
    cc=${2:-clang}
    command -v "$cc" >/dev/null 2>&1 || exit 1
    printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' |
        "$cc" -x c -fsanitize=fuzzer,address,undefined,float-cast-overflow - -o /dev/null >/dev/null 2>&1
    exit $?
fi

build=$(cd "${1:?usage: tests/fuzz/run.sh BUILD SECONDS}" && pwd)
seconds=${2:-15}
bins=("$build"/fuzz/fuzz_*)
[ -x "${bins[0]}" ] || { echo "FAIL: fuzz: no harnesses in $build/fuzz (make fuzz-build)"; exit 1; }
mkdir -p "$build/fuzz/crashes" "$build/fuzz/logs"

# the project's own files of each kind, besides tests/fuzz/seeds/NAME/
project_seeds() {
    case $1 in
    suite) echo harness/suite/suites ;;
    reference) echo reference ;;
    machine) echo reference/machines ;;
    record) echo tests/fixtures/harness tests/fixtures/harness/model-run/records ;;
    esac
}

fuzz_one() { # $1 binary; prints one PASS/FAIL line
    local bin=$1 name log corpus art seeds=() rc
    name=$(basename "$bin" | sed 's/^fuzz_//')
    log=$build/fuzz/logs/$name.log
    corpus=$build/fuzz/corpus/$name
    art=$build/fuzz/crashes/$name-
    mkdir -p "$corpus"
    # regressions: every input that once crashed, replayed
    local reg=(tests/fuzz/regress/"$name"/*) nreg=0
    if [ -f "${reg[0]}" ]; then
        nreg=${#reg[@]}
        if ! (cd "$build/fuzz" && "$bin" -close_fd_mask=3 -rss_limit_mb=2048 -timeout=20 \
                  "${reg[@]/#/$root/}") >"$log.regress" 2>&1; then
            echo "FAIL: fuzz $name: a regression input crashes again (see $log.regress)"
            return
        fi
    fi
    [ -d "tests/fuzz/seeds/$name" ] && seeds+=("$root/tests/fuzz/seeds/$name")
    for d in $(project_seeds "$name"); do
        local f
        for f in "$d"/*.yaml; do [ -f "$f" ] && cp "$f" "$corpus/" 2>/dev/null; done
    done
    local dict=()
    [ "$name" != options ] && dict=(-dict="$root/tests/fuzz/yaml.dict")
    local maxlen=8192
    [ "$name" = results ] && maxlen=32768 # a run's results.yaml is some 20 KB
    # in an empty folder: a relative file name in an input names nothing there
    local work=$build/fuzz/work/$name
    mkdir -p "$work"
    (cd "$work" && "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=$maxlen -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$art" \
        "${dict[@]}" "$corpus" "${seeds[@]}") >"$log" 2>&1
    rc=$?
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ $rc -eq 0 ]; then
        echo "PASS: fuzz $name: $nreg regression inputs replayed, ${runs:-?} runs in $seconds s," \
             "no crash (corpus $(ls "$corpus" | wc -l) inputs)"
    else
        local saved
        saved=$(grep -o "Test unit written to [^ ]*" "$log" | tail -n 1 | sed 's/Test unit written to //')
        echo "FAIL: fuzz $name: exit $rc after ${runs:-?} runs; input ${saved:-(none saved)}; log $log"
        grep -m 3 -E 'ERROR: |runtime error: |SUMMARY: ' "$log" | sed 's/^/    | /'
    fi
}

jobs=$(nproc 2>/dev/null || echo 1)
[ "$jobs" -gt 2 ] && jobs=2
out=$build/fuzz/logs/summary.txt
: >"$out"
running=0
for bin in "${bins[@]}"; do
    [ -x "$bin" ] || continue
    fuzz_one "$bin" >>"$out.$(basename "$bin")" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
for bin in "${bins[@]}"; do
    cat "$out.$(basename "$bin")" >>"$out" 2>/dev/null
    rm -f "$out.$(basename "$bin")"
done
cat "$out"
! grep -q '^FAIL: ' "$out"
