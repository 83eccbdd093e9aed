#!/usr/bin/env bash
# The layout of docs/architecture.md, checked on the source tree: includes are
# written from the repository root and name files that exist, no two project
# headers share a name, each part includes only the parts below it (the
# harness never sees benchmark code beyond the MPI-free common library; the
# training runtime never sees a network; one benchmark never sees another's
# folder), no header include cycle, processes start only in harness/proc/,
# every C file of benchmarks/ and harness/ is built (its folder has a
# module.mk, or a parent's covers it), and every record block is a folder of
# harness/blocks/ and a line of blocks.def.
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

# the network libraries, which a benchmark may use: benchmarks/networks/NAME/
# (a prefix naming no folder fails below)
NETWORKS = ['benchmarks/networks/']
# the benchmarks: every folder of benchmarks/ whose module.mk declares a program
progdecl = re.compile(r'^\s*PROGRAMS\s*\+?=\s*(.*)$', re.M)
programs = {}   # program -> the module.mk declaring it
bench_dirs = []
for dp, dn, fn in os.walk('benchmarks'):
    if 'module.mk' not in fn: continue
    mk = os.path.join(dp, 'module.mk')
    names = ' '.join(progdecl.findall(open(mk, encoding='utf-8').read())).split()
    for n in names: programs[n] = mk
    if names and dp.count('/') == 1: bench_dirs.append(dp + '/')
for dp, dn, fn in os.walk('harness'):
    if 'module.mk' in fn:
        mk = os.path.join(dp, 'module.mk')
        for n in ' '.join(progdecl.findall(open(mk, encoding='utf-8').read())).split():
            programs[n] = mk
for n in NETWORKS:
    if n.count('/') > 2 and not os.path.isdir(n):
        fail('NETWORKS names %s, which is no folder: drop it from tests/it/layout.sh' % n)
def network_of(f):
    """the network library folder f is in (benchmarks/networks/NAME/), or None"""
    for n in NETWORKS:
        if not f.startswith(n): continue
        if n.count('/') > 2: return n
        parts = f.split('/')
        return '/'.join(parts[:3]) + '/' if len(parts) > 3 else None
    return None

# who may include whom: the first matching rule of the includer decides
# (prefix, may include, may not include although a prefix above allows it)
allowed = [
    ('benchmarks/common/mpi/', ['benchmarks/common/'], []),
    ('benchmarks/common/', ['benchmarks/common/'], ['benchmarks/common/mpi/']),
    ('benchmarks/train/kernels/', ['benchmarks/common/', 'benchmarks/train/kernels/'], []),
    ('benchmarks/train/', ['benchmarks/common/', 'benchmarks/train/'], []),
]
def rule_of(f):
    for p, r, no in allowed:
        if f.startswith(p): return r, no
    net = network_of(f)
    if net: return ['benchmarks/common/', 'benchmarks/train/', net], []
    for b in bench_dirs:
        if f.startswith(b): return ['benchmarks/common/', 'benchmarks/train/', b] + NETWORKS, []
    if f.startswith('harness/'): return ['harness/', 'benchmarks/common/'], ['benchmarks/common/mpi/']
    if f.startswith('tests/'): return [''], []
    return None, []
graph = {}
bases = {}
checked = 0
for f in sorted(files):
    text = open(f, encoding='utf-8', errors='replace').read()
    graph[f] = []
    if f.endswith('.h'):
        bases.setdefault(os.path.basename(f), []).append(f)
    rule, notallowed = rule_of(f)
    if rule is None:
        fail('%s: no layout rule covers it (a benchmark folder needs a module.mk that declares '
             'its program)' % f)
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
        elif any(name.startswith(p) for p in notallowed):
            fail('%s: includes %s: %s' % (f, name, 'the harness includes MPI code'
                                          if f.startswith('harness/')
                                          else 'the MPI-free common library includes MPI code'))
print('PASS: layout: %d includes of %d files written from the root and allowed' % (checked, len(files))) if not fails else None

dups = {b: v for b, v in bases.items() if len(v) > 1}
if dups:
    for b, v in sorted(dups.items()): fail('header name %s used %d times: %s' % (b, len(v), ', '.join(v)))
else:
    print('PASS: layout: %d project headers, no two with the same name' % sum(len(v) for v in bases.values()))

# ---- arrows (issue 26 items 4, 6): the harness's layers, module circles, and
# coverage: every folder of benchmarks/ whose module.mk declares a program is a
# benchmark (rule_of above; none is listed by hand), every workload program of
# the workload table is declared and built.
# The harness's folders, lowest first: a file of a folder includes only its
# own folder and the folders before it (one line may hold several folders of
# one level, separated by spaces: they may include each other).  proc: process
# starts (spawn, signals, the process tree); blocks: the record reader and
# the data half of the record blocks (the reader fills a record's blocks, each
# block reads through it); blocks-derive: not a folder but the
# derived half of the record blocks (harness/blocks/derive.[ch] and each
# block's der_<name>.[ch]), above the analysis and the model whose numbers it
# reads and below the report whose sections show it; a folder not made yet is
# skipped, a folder not listed fails.  blocks sits below run (an outcome holds
# its launch's record), plots below model and report (both draw), workloads just
# above util (the suite, checks, model and report look programs up in it).
HARNESS_ORDER = [
    'util',
    'proc',
    'workloads',
    'launchers',
    'suite',
    'blocks',
    'run',
    'analysis',
    'checks',
    'plots',
    'model',
    'blocks-derive',
    'report',
    'cli',
]
# Wrong-way arrows the order cannot see (run/ may include suite/, its launch.h
# may not): the process starter (launch.h or proctree.h, wherever it lives)
# does not include the suite parser.
NEVER = [(re.compile(r'^harness/([a-z_]+/)*(launch|proctree)\.h$'), 'harness/suite/',
          'the process starter includes the suite parser')]
# Known violations, reported and not counted until the branch named fixes
# them; an entry that no longer matches fails, so that it is deleted.
KNOWN = {
}
seen_known = set()
def violation(key, msg):
    if key in KNOWN:
        seen_known.add(key)
        print('KNOWN: layout: %s (%s)' % (msg, KNOWN[key]))
    else:
        fail(msg)

level = {}
for i, line in enumerate(HARNESS_ORDER):
    for d in line.split(): level[d] = i
DERIVED = re.compile(r'^harness/blocks/(\w+/)?(der_\w+|derive)\.[ch]$')
def part(f):  # a harness file's entry of HARNESS_ORDER: its folder, or blocks-derive
    return 'blocks-derive' if DERIVED.match(f) else f.split('/')[1]
hfolders = sorted({part(f) for f in files if f.startswith('harness/') and f.count('/') >= 2})
order_fails = fails
for d in hfolders:
    if d not in level: fail('harness/%s/ is not in HARNESS_ORDER of tests/it/layout.sh: give it its level' % d)
for f in sorted(graph):
    for name in graph[f]:
        for pat, pre, why in NEVER:
            if pat.match(f) and name.startswith(pre):
                violation('%s -> %s' % (f, name), '%s: includes %s: %s' % (f, name, why))
        if not (f.startswith('harness/') and name.startswith('harness/')): continue
        a, b = part(f), part(name)
        if a in level and b in level and level[b] > level[a]:
            violation('%s -> %s' % (f, name), '%s: includes %s, above it (harness/%s/ is below '
                      'harness/%s/ in HARNESS_ORDER)' % (f, name, a, b))
if fails == order_fails:
    print('PASS: layout: the harness folders include only their level and below: %s%s'
          % (' < '.join(' = '.join(d for d in l.split() if d in hfolders) for l in HARNESS_ORDER
                        if any(d in hfolders for d in l.split())),
             ' (not made yet: %s)' % ', '.join(d for d in level if d not in hfolders)
             if any(d not in hfolders for d in level) else ''))

# module include circles: a module is X.c (or X.cu) with X.h beside it; X uses
# Y when X.c or X.h includes Y.h; X and Y are a circle when each uses the other
# (config.c includes plan.h and plan.h includes config.h: config and plan are
# one circle).  The header cycle check above sees header-to-header circles only.
mods = {}
for f in files:
    if f.startswith(('benchmarks/', 'harness/')) and f.endswith(('.c', '.cu')):
        base = f[:f.rindex('.')]
        if os.path.isfile(base + '.h'): mods.setdefault(base, []).append(f)
deps = {}
for base, srcs in mods.items():
    deps[base] = {n[:-2] for s in srcs + [base + '.h'] for n in graph.get(s, [])
                  if n.endswith('.h') and n[:-2] in mods and n[:-2] != base}
circle_fails = fails
for x in sorted(mods):
    for y in sorted(deps[x]):
        if x < y and x in deps[y]:
            violation('%s <-> %s' % (x, y), 'module include circle: %s and %s each include the '
                      'other\'s header (from the .c or the .h)' % (x, y))
if fails == circle_fails:
    print('PASS: layout: %d modules, no two include each other%s'
          % (len(mods), ' (but the KNOWN above)' if seen_known else ''))
for k in sorted(set(KNOWN) - seen_known):
    fail('KNOWN lists "%s", which no longer happens: delete it from tests/it/layout.sh' % k)

# every benchmark folder is under the benchmark rule above (no list to forget
# one in), and every workload of the workload table has its program declared
# by a module.mk and built
wl = re.findall(r'\.program\s*=\s*"([^"]+)"', open('harness/workloads/registry.c', encoding='utf-8').read())
wl_fails = fails
if not wl: fail('harness/workloads/registry.c: no .program found')
for p in wl:
    if p not in programs: fail('workload program %s: no module.mk declares it (PROGRAMS += %s)' % (p, p))
    elif not os.path.isfile(os.path.join(build, 'bin', p)):
        fail('workload program %s (%s) is not built in %s' % (p, programs[p], build))
if fails == wl_fails:
    print('PASS: layout: benchmarks %s under the benchmark rule; workload programs %s declared and built'
          % (', '.join(d.split('/')[1] for d in sorted(bench_dirs)), ', '.join(wl)))

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

# process starts in one place: in harness/, fork, exec*, popen, system and
# posix_spawn are called only under harness/proc/ (comments and strings aside)
spawn_call = re.compile(r'\b(v?fork|exec[lv]p?e?|execvpe|popen|system|posix_spawnp?)\s*\(')
strip = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
starts = []
for f in files:
    if f.startswith('harness/') and not f.startswith('harness/proc/'):
        code = strip.sub(' ', open(f, encoding='utf-8', errors='replace').read())
        starts += ['%s (%s)' % (f, m.group(1)) for m in spawn_call.finditer(code)]
if starts: fail('processes started outside harness/proc/: ' + ', '.join(sorted(starts)))
else: print('PASS: layout: processes start only in harness/proc/')

# every C file of the parts is built in this build tree
missing = []
for f in files:
    if f.endswith('.c') and f.startswith(('benchmarks/', 'harness/')):
        if not os.path.isfile(os.path.join(build, 'obj', f[:-2] + '.o')): missing.append(f)
if missing: fail('not built (no module.mk covers them?): ' + ', '.join(sorted(missing)))
else: print('PASS: layout: every C file of benchmarks/ and harness/ is built')

# record blocks (docs/architecture.md "A record block"): every folder under
# harness/blocks/ is a line BLOCK(name) of blocks.def and every line a folder,
# whose files are named blk_<name>.* (the data half) and der_<name>.* (the
# derived half); a block includes no other block but the training block (the
# network block derives per-step counts from it, the ensemble and
# update_exchange blocks compare its training work)
blocks_def = open('harness/blocks/blocks.def', encoding='utf-8').read()
listed = re.findall(r'^BLOCK\((\w+)\)', blocks_def, re.M)
folders = sorted(d for d in os.listdir('harness/blocks') if os.path.isdir(os.path.join('harness/blocks', d)))
bfails = fails
for d in folders:
    if d not in listed: fail('harness/blocks/%s/ is not a line of harness/blocks/blocks.def' % d)
    for f in os.listdir(os.path.join('harness/blocks', d)):
        if not f.startswith(('blk_%s.' % d, 'der_%s.' % d)):
            fail('harness/blocks/%s/%s: a block\'s files are blk_%s.* and der_%s.*' % (d, f, d, d))
for n in listed:
    if n not in folders: fail('blocks.def lists %s, which has no folder harness/blocks/%s/' % (n, n))
if len(set(listed)) != len(listed): fail('blocks.def lists a block twice')
for f in files:
    m = re.match(r'harness/blocks/(\w+)/', f)
    if not m: continue
    for name in graph.get(f, []):
        o = re.match(r'harness/blocks/(\w+)/', name)
        if o and o.group(1) not in (m.group(1), 'training'):
            fail('%s: the %s block includes the %s block (%s)' % (f, m.group(1), o.group(1), name))
# every workload's record kind is a line of kinds.def, whose blocks all exist
kinds = dict(re.findall(r'^RECORD_KIND\("([^"]+)",((?:\s*B\(\w+\))+)\)',
                        open('harness/blocks/kinds.def', encoding='utf-8').read(), re.M))
for k, bl in sorted(kinds.items()):
    for b in re.findall(r'B\((\w+)\)', bl):
        if b not in listed: fail('kinds.def: kind %s names block %s, not a line of blocks.def' % (k, b))
wkinds = re.findall(r'\.kind = "([^"]+)"', open('harness/workloads/registry.c', encoding='utf-8').read())
for k in wkinds:
    if k not in kinds: fail('workload kind %s (harness/workloads/registry.c) is not a line of kinds.def' % k)
if fails == bfails:
    print('PASS: layout: %d record blocks, each a folder of harness/blocks/ and a line of blocks.def; '
          'the %d workloads\' record kinds (%s) in kinds.def' % (len(listed), len(wkinds), ', '.join(wkinds)))
sys.exit(1 if fails else 0)
PY
