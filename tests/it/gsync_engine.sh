#!/usr/bin/env bash
# The gradient engine's option (engine: auto | thread | inline, docs/gsync.md
# "Which engine runs") over real MPI jobs:
# - inline and thread train the same model: 2-rank stemdl tiny and 2-rank
#   cosmoflow tiny --spatial 2 give byte-identical --dump-weights files (the
#   same sums; on 2 ranks a + b is one number in any fusion);
# - auto's choice and its reason reach the record's gradient_reduction
#   block: inline with --threads 1 on 2 ranks where a rank has no core to
#   spare (this 2-core machine; elsewhere the reason's own numbers decide),
#   inline with as many threads as the node has CPUs (any machine), thread
#   when asked, none on one rank;
# - a bad value exits 2 in one line naming the option and the choices, on
#   each program of the runtime; --check-config takes the key from a file.
set -u
S=$EXADL_BIN/stemdl
C=$EXADL_BIN/cosmoflow
CL=$EXADL_BIN/climate
T=$EXADL_TMP
M=${EXADL_MPIRUN:-mpirun}
fails=0
pass() { echo "PASS: gsync_engine: $1"; }
fail() { echo "FAIL: gsync_engine: $1"; fails=$((fails + 1)); }
# KEY of a record's top-level block BLOCK: a folded scalar's lines joined,
# YAML's quotes undone
key_of() { # file block key
    [ -f "$1" ] || return 0
    awk -v b="$2:" -v k="  $3: " -v q="'" '
        function out(v) {
            if (substr(v, 1, 1) == q) { v = substr(v, 2, length(v) - 2); gsub(q q, q, v) }
            else if (substr(v, 1, 1) == "\"") v = substr(v, 2, length(v) - 2)
            print v; done = 1; exit }
        f && /^    / { sub(/^ +/, ""); v = v " " $0; next }
        f { out(v) }
        $0 == b { s = 1; next }
        s && /^[^ ]/ { s = 0 }
        s && index($0, k) == 1 { v = substr($0, length(k) + 1); f = 1 }
        END { if (f && !done) out(v) }' "$1"
}
engine() { key_of "$1" gradient_reduction engine; }
reason() { key_of "$1" gradient_reduction engine_reason; }

# --- the same weights, byte for byte ----------------------------------------
st=(--preset tiny --steps 3 --warmup 1 --quiet --threads 1)
for e in inline thread; do
    $M -np 2 "$S" "${st[@]}" --engine $e --dump-weights "$T/sw-$e" --record "$T/s-$e.yaml" \
        >"$T/s-$e.out" 2>&1 || fail "stemdl --engine $e on 2 ranks: $(tail -n 3 "$T/s-$e.out")"
done
if [ -s "$T/sw-inline.0" ] && cmp -s "$T/sw-inline.0" "$T/sw-thread.0" && cmp -s "$T/sw-inline.1" "$T/sw-thread.1" &&
    cmp -s "$T/sw-inline.0" "$T/sw-inline.1"; then
    pass "stemdl tiny, 2 ranks: --engine inline and thread give byte-identical weights"
else
    fail "stemdl tiny, 2 ranks: the weights of --engine inline and thread differ"
fi
cf=(--preset tiny --kernels reference --threads 1 --steps 2 --warmup 1 --quiet --spatial 2)
for e in inline thread; do
    $M -np 2 "$C" "${cf[@]}" --engine $e --dump-weights "$T/cw-$e" --record "$T/c-$e.yaml" \
        >"$T/c-$e.out" 2>&1 || fail "cosmoflow --spatial 2 --engine $e: $(tail -n 3 "$T/c-$e.out")"
done
if [ -s "$T/cw-inline.0" ] && cmp -s "$T/cw-inline.0" "$T/cw-thread.0" && cmp -s "$T/cw-inline.1" "$T/cw-thread.1"; then
    pass "cosmoflow tiny --spatial 2, 2 ranks: --engine inline and thread give byte-identical weights"
else
    fail "cosmoflow tiny --spatial 2: the weights of --engine inline and thread differ"
fi

# --- the record says which engine ran and why -------------------------------
for f in s-inline c-inline; do
    [ "$(engine "$T/$f.yaml")" = inline ] && reason "$T/$f.yaml" | grep -q 'asked: engine inline' ||
        fail "$f: the record's engine is '$(engine "$T/$f.yaml")' ($(reason "$T/$f.yaml")), not inline asked"
done
for f in s-thread c-thread; do
    [ "$(engine "$T/$f.yaml")" = thread ] && reason "$T/$f.yaml" | grep -q 'asked: engine thread' ||
        fail "$f: the record's engine is '$(engine "$T/$f.yaml")' ($(reason "$T/$f.yaml")), not thread asked"
done
[ "$(engine "$T/s-inline.yaml")" = inline ] && [ "$(engine "$T/s-thread.yaml")" = thread ] &&
    [ "$(engine "$T/c-thread.yaml")" = thread ] && [ "$(engine "$T/c-inline.yaml")" = inline ] &&
    pass "the records say engine inline / thread as asked"
# auto, --threads 1: the engine follows the reason's numbers; on a node with
# fewer than 4 CPUs (2 ranks, no core to spare) it is inline
$M -np 2 "$S" "${st[@]}" --record "$T/a1.yaml" >"$T/a1.out" 2>&1 || fail "stemdl auto: $(tail -n 3 "$T/a1.out")"
got=$(engine "$T/a1.yaml") why=$(reason "$T/a1.yaml")
cpus=$(getconf _NPROCESSORS_ONLN)
want=$(printf '%s\n' "$why" | sed -n 's/.*auto: cpu backend, \([0-9]*\) compute threads\{0,1\} + .* \([0-9]*\) cores\{0,1\} for this rank.*/\1 \2/p' |
    awk '{ print ($1 + 1 > $2) ? "inline" : "thread" }')
if [ -z "$want" ]; then
    fail "auto: the reason does not give the rule's numbers: $why"
elif [ "$got" != "$want" ]; then
    fail "auto: engine $got, but the reason says $want: $why"
elif [ "$cpus" -lt 4 ] && [ "$got" != inline ]; then
    fail "auto on $cpus CPUs with 2 ranks of 1 thread: engine $got, not inline ($why)"
else
    pass "auto, 2 ranks of 1 thread on $cpus CPUs: engine $got ($why)"
fi
[ "$(key_of "$T/s-inline.yaml" config engine)" = inline ] && [ "$(key_of "$T/c-thread.yaml" config engine)" = thread ] &&
    [ "$(key_of "$T/a1.yaml" config engine)" = auto ] &&
    pass "the config block keeps the option as given (inline, thread, auto)" ||
    fail "the config block: engine '$(key_of "$T/s-inline.yaml" config engine)', '$(key_of "$T/c-thread.yaml" config engine)', '$(key_of "$T/a1.yaml" config engine)'"
# auto with a thread per CPU of the node: no rank has a core to spare anywhere
$M -np 2 "$S" --preset tiny --steps 1 --warmup 0 --quiet --threads "$cpus" --record "$T/an.yaml" \
    >"$T/an.out" 2>&1 || fail "stemdl auto --threads $cpus: $(tail -n 3 "$T/an.out")"
[ "$(engine "$T/an.yaml")" = inline ] && reason "$T/an.yaml" | grep -q "auto: cpu backend, $cpus compute thread" &&
    pass "auto with --threads $cpus (the node's CPUs) runs inline and says why" ||
    fail "auto --threads $cpus: engine '$(engine "$T/an.yaml")' ($(reason "$T/an.yaml"))"
# one rank: no engine
"$S" --preset tiny --steps 1 --warmup 0 --quiet --record "$T/one.yaml" >"$T/one.out" 2>&1 ||
    fail "stemdl 1 rank: $(tail -n 3 "$T/one.out")"
[ "$(engine "$T/one.yaml")" = none ] && reason "$T/one.yaml" | grep -q 'one rank' &&
    pass "one rank: engine none" || fail "one rank: engine '$(engine "$T/one.yaml")'"

# --- bad values, config files -----------------------------------------------
for p in "$S" "$C" "$CL"; do
    n=$(basename "$p")
    out=$("$p" --preset tiny --engine fast 2>&1)
    rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
        printf '%s' "$out" | grep -q -- "engine: unknown value 'fast' (choose one of: auto, thread, inline)"; then
        pass "$n --engine fast: exit 2, one line naming the option and the choices"
    else
        fail "$n --engine fast: exit $rc: $out"
    fi
done
printf 'preset: tiny\nengine: inline\n' >"$T/good.yaml"
printf 'preset: tiny\nengine: fast\n' >"$T/bad.yaml"
for p in "$S" "$C" "$CL"; do
    n=$(basename "$p")
    "$p" --config "$T/good.yaml" --check-config >"$T/cc.out" 2>&1 &&
        pass "$n --check-config accepts engine: inline in a config file" ||
        fail "$n --check-config engine: inline: $(head -n 2 "$T/cc.out")"
    out=$("$p" --config "$T/bad.yaml" --check-config 2>&1)
    rc=$?
    [ $rc -eq 2 ] && printf '%s' "$out" | grep -q 'bad.yaml:2' &&
        printf '%s' "$out" | grep -q "choose one of: auto, thread, inline" &&
        pass "$n --check-config refuses engine: fast naming the file, line and choices" ||
        fail "$n --check-config engine: fast: exit $rc: $out"
done
"$S" --help 2>&1 | grep -q -- '--engine' && pass "stemdl --help lists --engine" || fail "stemdl --help lacks --engine"
[ $fails -eq 0 ]
