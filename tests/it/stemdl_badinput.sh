#!/usr/bin/env bash
# Bad input to stemdl: one clear line on stderr naming the problem (and
# FILE:LINE where a file is at fault), exit status 2, no crash, no record.
set -u
S=$EXADL_BIN/stemdl
T=$EXADL_TMP
printf 'growth: 8\ndown: [1, 2\n' >"$T/malformed.yaml"
printf 'preset: tiny\ngrowht: 8\n' >"$T/unknown.yaml"
printf 'preset: tiny\ndown: [1, 2, 3]\n' >"$T/lengths.yaml"
head -c 256 /dev/urandom >"$T/garbage.yaml"
printf 'preset: tiny\nimage: 18\n' >"$T/divisible.yaml"
printf 'preset: tiny\nf0: 0\n' >"$T/zero.yaml"

# name | expected text in the message | arguments
cases=(
  "unknown-preset|unknown preset 'nope'|--preset nope"
  "zero-size|growth must be between 1|--preset tiny --growth 0"
  "negative-size|c_in must be between 1|--preset tiny --c-in -4"
  "not-divisible|not divisible by 2^levels|--preset tiny --image 18"
  "list-lengths|list lengths disagree|--preset tiny --down 1,2,3"
  "even-kernel|must be odd|--preset tiny --k 4"
  "not-a-number|'abc' is not an integer|--preset tiny --steps abc"
  "unknown-option|did you mean 'growth'|--preset tiny --grwoth 3"
  "missing-value|--steps needs a value|--preset tiny --steps"
  "stray-argument|unexpected argument|--preset tiny oops"
  "missing-config|cannot open|--config $T/nope.yaml"
  "malformed-yaml|malformed.yaml:3:|--config $T/malformed.yaml"
  "unknown-yaml-key|unknown.yaml:2:1: unknown key 'growht' (did you mean 'growth'?)|--config $T/unknown.yaml"
  "yaml-list-lengths|list lengths disagree|--config $T/lengths.yaml"
  "yaml-garbage|garbage.yaml:|--config $T/garbage.yaml"
  "yaml-not-divisible|not divisible|--config $T/divisible.yaml"
  "yaml-zero|zero.yaml:2:5: f0 must be between 1|--config $T/zero.yaml"
  "cpu-fp16|the cpu backend runs fp32 or bf16|--preset tiny --precision fp16"
  "reference-bf16|runs on the fast kernels|--preset tiny --precision bf16 --kernels reference"
  "orchestration|orchestration: unknown value 'horovod'|--preset tiny --orchestration horovod"
  "grouping-word|'layers' is not none, layer or a number of groups|--preset tiny --grouping layers"
  "grouping-zero|'0' is not none, layer or a number of groups|--preset tiny --grouping 0"
  "fusion-zero|fusion_bytes must be between 4|--preset tiny --fusion-bytes 0"
  "cycle-negative|cycle_ms must be between 0|--preset tiny --cycle-ms -1"
  "cache-negative|cache_capacity must be between 0|--preset tiny --cache-capacity -2"
  "timeout-zero|comm_timeout must be between 0.1|--preset tiny --comm-timeout 0"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name want args <<<"$c"
    rm -f "$T/rec.yaml"
    # shellcheck disable=SC2086
    "$S" $args --record "$T/rec.yaml" >"$T/out" 2>"$T/err"
    rc=$?
    lines=$(wc -l <"$T/err")
    if [ $rc -ne 2 ]; then
        echo "FAIL: bad input $name: exit status $rc, expected 2"
    elif [ "$lines" -ne 1 ]; then
        echo "FAIL: bad input $name: $lines lines on stderr, expected 1: $(head -c 300 "$T/err")"
    elif ! grep -qF -- "$want" "$T/err"; then
        echo "FAIL: bad input $name: message lacks '$want': $(cat "$T/err")"
    elif [ -e "$T/rec.yaml" ]; then
        echo "FAIL: bad input $name: a record was written"
    else
        echo "PASS: bad input $name"
    fi
done

# an earlier record survives a run that cannot start
echo "keep me" >"$T/old.yaml"
"$S" --preset nope --record "$T/old.yaml" 2>/dev/null
if [ "$(cat "$T/old.yaml")" = "keep me" ]; then echo "PASS: bad input keeps earlier record"
else echo "FAIL: bad input keeps earlier record"; fi
