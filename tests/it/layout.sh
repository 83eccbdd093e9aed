#!/usr/bin/env bash
# The layout of docs/architecture.md, checked on the source tree: includes are
# written from the repository root and name files that exist, no two project
# headers share a name, each part includes only the parts below it (the
# harness never sees benchmark code beyond the MPI-free common library; the
# training runtime never sees a network; one benchmark never sees another's
# folder), no header include cycle, and every C file of benchmarks/ and
# harness/ is built (its folder has a module.mk, or a parent's covers it).
set -u
cd "$EXADL_ROOT" || exit 1
python3 - "$EXADL_BUILD" <<'PY'
import os, re, sys
build = sys.argv[1]
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
files = []
for top in ('benchmarks', 'harness', 'tests'):
    for dp, dn, fn in os.walk(top):
        files += [os.path.join(dp, f) for f in fn if f.endswith(('.c', '.h', '.cu'))]
fails = 0
def fail(msg):
    global fails
    fails += 1
    print('FAIL: layout: ' + msg)

# who may include whom: the first matching prefix of the includer decides
allowed = [
    ('benchmarks/common/mpi/', ['benchmarks/common/']),
    ('benchmarks/common/', ['benchmarks/common/record/', 'benchmarks/common/']),
    ('benchmarks/train/kernels/', ['benchmarks/common/', 'benchmarks/train/kernels/']),
    ('benchmarks/train/', ['benchmarks/common/', 'benchmarks/train/']),
    ('benchmarks/networks/fcdensenet/', ['benchmarks/common/', 'benchmarks/train/',
                                         'benchmarks/networks/fcdensenet/']),
    ('benchmarks/stemdl/', ['benchmarks/common/', 'benchmarks/train/', 'benchmarks/stemdl/',
                            'benchmarks/networks/fcdensenet/']),
    ('benchmarks/collectives/', ['benchmarks/common/', 'benchmarks/collectives/']),
    ('benchmarks/orchestration/', ['benchmarks/common/', 'benchmarks/orchestration/',
                                   'benchmarks/networks/fcdensenet/', 'benchmarks/train/']),
    ('benchmarks/peak/', ['benchmarks/common/', 'benchmarks/peak/', 'benchmarks/train/',
                          'benchmarks/networks/fcdensenet/']),
    ('harness/', ['harness/', 'benchmarks/common/']),
    ('tests/', ['']),
]
forbidden_for_harness = 'benchmarks/common/mpi/'
graph = {}
bases = {}
checked = 0
for f in sorted(files):
    text = open(f, encoding='utf-8', errors='replace').read()
    graph[f] = []
    if f.endswith('.h'):
        bases.setdefault(os.path.basename(f), []).append(f)
    rule = next((r for p, r in allowed if f.startswith(p)), None)
    for name in inc.findall(text):
        checked += 1
        if '/' not in name or name.startswith('.'):
            fail('%s: include "%s" is not written from the repository root' % (f, name))
            continue
        if not os.path.isfile(name):
            fail('%s: include "%s" names no file' % (f, name))
            continue
        graph[f].append(name)
        if name.endswith('.c') and not f.startswith('tests/'):
            fail('%s: includes a C file (%s)' % (f, name))
        if rule is not None and not any(name.startswith(p) for p in rule):
            fail('%s: includes %s, outside what its part may see (%s)' % (f, name, ', '.join(rule)))
        if f.startswith('harness/') and name.startswith(forbidden_for_harness):
            fail('%s: the harness includes MPI code (%s)' % (f, name))
print('PASS: layout: %d includes of %d files written from the root and allowed' % (checked, len(files))) if not fails else None

dups = {b: v for b, v in bases.items() if len(v) > 1}
if dups:
    for b, v in sorted(dups.items()): fail('header name %s used %d times: %s' % (b, len(v), ', '.join(v)))
else:
    print('PASS: layout: %d project headers, no two with the same name' % sum(len(v) for v in bases.values()))

# header include cycles (an include guard hides them from the compiler)
state = {}
cycle = []
def visit(n, stack):
    state[n] = 1
    for m in graph.get(n, []):
        if not m.endswith('.h'): continue
        if state.get(m) == 1:
            cycle.append(stack[stack.index(m):] + [m] if m in stack else [n, m]); continue
        if not state.get(m): visit(m, stack + [m])
    state[n] = 2
for h in sorted(g for g in graph if g.endswith('.h')):
    if not state.get(h): visit(h, [h])
if cycle: fail('header include cycle: ' + ' -> '.join(cycle[0]))
else: print('PASS: layout: no header include cycle')

# every C file of the parts is built in this build tree
missing = []
for f in files:
    if f.endswith('.c') and f.startswith(('benchmarks/', 'harness/')):
        if not os.path.isfile(os.path.join(build, 'obj', f[:-2] + '.o')): missing.append(f)
if missing: fail('not built (no module.mk covers them?): ' + ', '.join(sorted(missing)))
else: print('PASS: layout: every C file of benchmarks/ and harness/ is built')
sys.exit(1 if fails else 0)
PY
