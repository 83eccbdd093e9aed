# Shell helpers for tests of `exadl model RUN` (sourced, not run):
#   pred FILE MODE SCALE KEY   the value of KEY in the prediction row of MODE
#                              at SCALE in FILE (a model.yaml)
#   near A B                   A is B within 1e-9 absolute + 1e-9 relative
pred() {
    python3 - "$1" "$2" "$3" "$4" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for row in re.findall(r"- \{(scale: [^}]*)\}", text.replace("\n     ", " ").replace("\n    ", " ")):
    kv = dict(x.split(": ", 1) for x in re.split(r",\s+", row))
    if kv.get("mode") == sys.argv[2] and kv.get("scale") == sys.argv[3]:
        print(kv[sys.argv[4]]); break
PY
}
near() { python3 -c "import sys; sys.exit(0 if abs(float('$1') - $2) <= 1e-9 + 1e-9 * abs($2) else 1)" 2>/dev/null; }
