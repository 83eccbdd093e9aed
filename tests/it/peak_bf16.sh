#!/usr/bin/env bash
# peak_cpu's bf16 peak (docs/stemdl-cpu-kernels.md "peak_cpu"): two
# measurements, the peak the larger, so that no bf16 fraction of peak divides
# by one library's rate (issue 29: 1.05 of a oneDNN-matmul "peak"):
# - on any CPU: with oneDNN's ISA masked to AVX2 (ONEDNN_MAX_CPU_ISA and the
#   older DNNL_MAX_CPU_ISA) `peak_bf16_isa: none` and no measurement keys;
#   --no-bf16 prints no bf16 line; --help names the instruction loop;
# - where the CPU has avx512_bf16 (SKIP elsewhere, saying so):
#   peak_bf16_instr_1thread_flops_per_s, peak_bf16_instr_flops_per_s,
#   peak_bf16_matmul_1thread_flops_per_s and peak_bf16_matmul_flops_per_s
#   present; every bf16 rate finite and > 0; peak_bf16_1thread_flops_per_s
#   and peak_bf16_flops_per_s each the larger of the two (the printed string),
#   their min <= median <= max; peak_bf16_method names the larger.
# No rate is compared with another beyond "which is larger": nothing here
# depends on how busy the machine is.
set -u
P=${EXADL_BIN:?}/peak_cpu
T=${EXADL_TMP:-$(mktemp -d)}
fails=0
pass() { echo "PASS: peak_bf16: $1"; }
fail() { echo "FAIL: peak_bf16: $1"; fails=$((fails + 1)); }
[ -x "$P" ] || { echo "SKIP: peak_bf16: peak_cpu not built"; exit 77; }
val() { awk -v k="$1:" '$1 == k { print $2; exit }' "$2"; }
args=(--threads 2 --reps 3 --seconds 0.02)

# ---- any CPU: masked ISA, --no-bf16, --help --------------------------------------
if ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2 "$P" "${args[@]}" >"$T/mask" 2>"$T/mask.err"; then
    if grep -qx 'peak_bf16_isa: none' "$T/mask" && ! grep -q '^peak_bf16_\(instr\|matmul\|method\|1thread\|flops\)' "$T/mask"; then
        pass "ISA masked to AVX2: peak_bf16_isa: none, no bf16 measurement"
    else
        fail "ISA masked to AVX2: $(grep '^peak_bf16' "$T/mask" | head -n 4 | tr '\n' '|')"
    fi
else
    fail "peak_cpu with the ISA masked failed: $(tail -n 2 "$T/mask.err")"
fi
if "$P" --threads 1 --reps 1 --seconds 0.02 --no-bf16 >"$T/nobf" 2>&1 && ! grep -q '^peak_bf16' "$T/nobf"; then
    pass "--no-bf16: no bf16 line"
else
    fail "--no-bf16: $(grep '^peak_bf16' "$T/nobf" | head -n 2 | tr '\n' '|')"
fi
if "$P" --help >"$T/help" 2>&1 && grep -q 'vdpbf16ps' "$T/help" && grep -q 'exit status' "$T/help"; then
    pass "--help names the bf16 instruction loop and the exit statuses"
else
    fail "--help: $(tr '\n' '|' <"$T/help")"
fi

# ---- the CPU's bf16 -----------------------------------------------------------------
if ! grep -qw 'avx512_bf16' /proc/cpuinfo; then
    echo "SKIP: peak_bf16: this CPU has no avx512_bf16 (/proc/cpuinfo): no instruction loop to check"
    [ $fails = 0 ] && exit 0 || exit 1
fi
if ! env -u ONEDNN_MAX_CPU_ISA -u DNNL_MAX_CPU_ISA "$P" "${args[@]}" >"$T/out" 2>"$T/err"; then
    fail "peak_cpu failed: $(tail -n 2 "$T/err")"
    exit 1
fi
missing=
for k in peak_bf16_instr_1thread_flops_per_s peak_bf16_instr_flops_per_s peak_bf16_matmul_1thread_flops_per_s \
    peak_bf16_matmul_flops_per_s peak_bf16_1thread_flops_per_s peak_bf16_flops_per_s peak_bf16_method \
    peak_bf16_instr_method peak_bf16_matmul_method peak_bf16_min_flops_per_s peak_bf16_max_flops_per_s; do
    grep -q "^$k: " "$T/out" || missing="$missing $k"
done
[ -z "$missing" ] && pass "the instruction and matmul keys present ($(val peak_bf16_isa "$T/out"))" \
    || fail "missing keys:$missing"
bad=$(awk '/^peak_bf16_.*flops_per_s:/ { v = $2
        if (v !~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ || !(v + 0 > 0) || v + 0 > 1e300) printf " %s", $0 }' "$T/out")
nrates=$(grep -c '^peak_bf16_.*flops_per_s:' "$T/out")
[ -z "$bad" ] && [ "$nrates" -ge 11 ] && pass "all $nrates bf16 rates finite and > 0" \
    || fail "bf16 rates ($nrates lines) not finite positive numbers:$bad"

# the peak of one thread count: the printed larger of the two, and which
check_peak() { # WHAT INSTR_KEY MATMUL_KEY PEAK_KEY MIN_KEY MAX_KEY -> sets win
    local i m p lo hi
    i=$(val "$2" "$T/out") m=$(val "$3" "$T/out") p=$(val "$4" "$T/out") lo=$(val "$5" "$T/out") hi=$(val "$6" "$T/out")
    win=$(awk -v i="$i" -v m="$m" 'BEGIN { print (i == m) ? "either" : (i + 0 > m + 0) ? "instr" : "matmul" }')
    local want=$m
    [ "$win" = instr ] && want=$i
    if [ -n "$p" ] && [ "$p" = "$want" ]; then
        pass "$1: $4 = the larger of instr $i and matmul $m"
    else
        fail "$1: $4 '$p', instr '$i', matmul '$m': not the larger"
    fi
    if awk -v a="$lo" -v b="$p" -v c="$hi" 'BEGIN { exit !(a != "" && c != "" && a + 0 <= b + 0 && b + 0 <= c + 0) }'; then
        pass "$1: min $lo <= $p <= max $hi (of the chosen measurement)"
    else
        fail "$1: min '$lo', median '$p', max '$hi'"
    fi
}
check_peak "1 thread" peak_bf16_instr_1thread_flops_per_s peak_bf16_matmul_1thread_flops_per_s \
    peak_bf16_1thread_flops_per_s peak_bf16_1thread_min_flops_per_s peak_bf16_1thread_max_flops_per_s
w1=$win
check_peak "2 threads" peak_bf16_instr_flops_per_s peak_bf16_matmul_flops_per_s \
    peak_bf16_flops_per_s peak_bf16_min_flops_per_s peak_bf16_max_flops_per_s
wn=$win
method=$(sed -n 's/^peak_bf16_method: //p' "$T/out")
ok=0
for a in instr matmul; do
    [ "$w1" = either ] || [ "$w1" = $a ] || continue
    for b in instr matmul; do
        [ "$wn" = either ] || [ "$wn" = $b ] || continue
        if [ $a = $b ]; then case $method in "$a ("*) ok=1 ;; esac
        else case $method in "$a on 1 thread, $b on 2 threads"*) ok=1 ;; esac; fi
    done
done
[ $ok = 1 ] && pass "peak_bf16_method names the larger (1 thread: $w1, 2 threads: $wn): $method" \
    || fail "peak_bf16_method '$method', the larger: $w1 on 1 thread, $wn on 2 threads"
[ $fails = 0 ]
