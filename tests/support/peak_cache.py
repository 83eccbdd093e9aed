#!/usr/bin/env python3
"""Write a pinned peak cache (harness/run/peakcache.h) for this machine, so that
a test's fraction of peak does not depend on how busy the machine is:

    tests/support/peak_cache.py FILE PER_CORE_FLOPS [SPREAD]

FILE gets five peak_cpu answers of PER_CORE_FLOPS per core (times 1 + SPREAD,
1, 1, 1, 1 - SPREAD: SPREAD 0.5 gives a CI too wide to use), keyed by this
host, CPU model and online CPU count as exadl reads them, measured on a quiet
machine.  Point EXADL_PEAK_CACHE at FILE."""
import json, os, socket, sys

path, per = sys.argv[1], float(sys.argv[2])
spread = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
model = "unknown"
with open("/proc/cpuinfo") as f:
    for line in f:
        if line.startswith("model name") and ":" in line:
            model = line.split(":", 1)[1].strip() or "unknown"
            break
cpus = os.sysconf("SC_NPROCESSORS_ONLN")
def answer(v):
    return ("isa: avx512f\nrepetitions: 5\nonline_cpus: %d\npeak_1thread_flops_per_s: %.6e\n"
            "threads: %d\npeak_flops_per_s: %.6e\npeak_per_thread_flops_per_s: %.6e\n"
            "peak_bf16_isa: none\n" % (cpus, v, cpus, v * cpus, v))
outs = [answer(per * f) for f in (1 + spread, 1, 1, 1, 1 - spread)]
q = json.dumps
with open(path, "w") as f:
    f.write("exadl_probe: 1\npeak:\n  program: peak_cpu\n  args: [--reps, '5', --seconds, '0.1']\n")
    f.write("  output: %s\n  via_launcher: false\n  host: %s\n" % (q(outs[0]), q(socket.gethostname().split(".")[0])))
    f.write("  outputs:\n" + "".join("    - %s\n" % q(o) for o in outs))
    f.write("  from: %s\n  cpu_model: %s\n  cpus: %d\n  measured_utc: 2026-01-01T00:00:00Z\n"
            % (q("a pinned test cache"), q(model), cpus))
    f.write("  interference: {verdict: quiet, cpus: %d, launch_cores: %d}\n" % (cpus, cpus))
f.close()
