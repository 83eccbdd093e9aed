#!/usr/bin/env python3
"""Check the :::MLLOG lines of a launch log against the rules of MLPerf HPC's
logging format (mlcommons/logging, compliance_checker hpc_1.0.0: common.yaml,
and closed_cosmoflow.yaml's keys): every line a JSON object with namespace,
time_ms, event_type, key, value and metadata (file, lineno); the keys
required once (submission_*, init_stop, run_start, run_stop with a status,
train_samples, eval_samples, global_batch_size, opt_name,
opt_base_learning_rate) present exactly once, those required at least once
(cache_clear, init_start, epoch_start/stop, eval_start/stop,
eval_accuracy, each with epoch_num where the rules say) present; init
before run, run_stop last of the run's keys, time_ms never decreasing.
Order (common.yaml's CHECKs): init_start neither after init_stop nor after
run_start; init_stop after init_start, before run_start, less than 30
minutes after the first init_start; staging_start after run_start (MLPerf
HPC counts staging in the timed run), staging_stop after a staging_start,
each staging_start closed before the next and before run_stop.
Options:
  --staging          the log must have staging_start and staging_stop (a
                     launch that staged its data set)
  --init-before RE   the first init_start comes before the first line of the
                     log (MLLOG or not) that matches RE: a line the program
                     prints after its MPI start, so init_start is the
                     program's start, not the training's
  --closed BENCH     the keys MLPerf HPC's closed division requires of BENCH
                     (cosmoflow or deepcam; compliance_checker hpc_1.0.0 to
                     3.0.0, same keys: closed_common.yaml, closed_BENCH.yaml,
                     and for deepcam the files its opt_name and
                     scheduler_type select): each required key present
                     (exactly once or at least once, as the rules say), each
                     value of the rules' type (number, list, name from the
                     rules' set), a refusal naming every key that fails.
                     Not checked (values of the real data sets and runs, not
                     of a log's form): submission_division closed,
                     submission_benchmark naming BENCH, DeepCAM's
                     train_samples 121266, eval_samples 15158 and opt_eps
                     1e-6, the quality targets (eval_error <= 0.124,
                     eval_accuracy >= 0.82).
Usage: mllog_check.py [--staging] [--init-before RE] [--closed BENCH] LOG.
Exit 0 and a summary line, or 1 naming the first problem."""
import json
import re
import sys

EXACTLY_ONE = ['submission_benchmark', 'submission_org', 'submission_platform',
               'submission_division', 'submission_status', 'init_stop', 'run_start',
               'run_stop', 'train_samples', 'eval_samples', 'global_batch_size', 'opt_name',
               'opt_base_learning_rate']
AT_LEAST_ONE = ['cache_clear', 'init_start', 'epoch_start', 'epoch_stop', 'eval_start',
                'eval_stop', 'eval_accuracy']
EPOCH_NUM = ['epoch_start', 'epoch_stop', 'eval_start', 'eval_stop', 'eval_accuracy']
EVENTS = {'POINT_IN_TIME', 'INTERVAL_START', 'INTERVAL_END'}

# MLPerf HPC's closed rules (mlcommons/logging compliance_checker hpc_*):
# key -> (how many: 1 exactly one, 0 optional but checked, 'n' at least one,
# the value's type: 'num' a number, 'pos' > 0, 'nonneg' >= 0, 'list' a list,
# 'pair' a list of two, 'bool', or a tuple of the names allowed)
CLOSED_COMMON = {'number_of_nodes': (1, 'pos'), 'accelerators_per_node': (1, 'nonneg'),
                 'gradient_accumulation_steps': (0, 'pos'),
                 'gradient_accumulation_frequency': (0, 'pos')}
CLOSED = {
    'cosmoflow': {
        'global_batch_size': (1, 'pos'), 'opt_name': (1, ('sgd', 'SGD')),
        'opt_base_learning_rate': (1, 'nonneg'),
        'opt_learning_rate_warmup_epochs': (1, 'nonneg'),
        'opt_learning_rate_warmup_factor': (1, 'nonneg'),
        'opt_learning_rate_decay_boundary_epochs': (1, 'list'),
        'opt_learning_rate_decay_factor': (1, 'num'),
        'dropout': (0, 'num'), 'opt_weight_decay': (0, 'nonneg'),
        'eval_error': ('n', 'num')},
    'deepcam': {
        'gradient_accumulation_frequency': (1, 'pos'), 'seed': (1, 'pos'),
        'global_batch_size': (1, 'pos'), 'batchnorm_group_size': (1, 'pos'),
        'opt_name': (1, ('Adam', 'AdamW', 'LAMB')), 'opt_lr': (1, 'pos'),
        'opt_betas': (1, 'pair'), 'opt_eps': (1, 'num'),
        'scheduler_type': (1, ('multistep', 'cosine_annealing')),
        'scheduler_lr_warmup_steps': (1, 'nonneg'), 'scheduler_lr_warmup_factor': (1, 'num'),
        'train_samples': (1, 'num'), 'eval_samples': (1, 'num'),
        'eval_accuracy': ('n', 'num')},
}
# deepcam's further files, chosen by a key's value
CLOSED_MORE = {
    ('opt_name', 'LAMB'): {'opt_bias_correction': (1, 'bool'), 'opt_grad_averaging': (1, 'bool'),
                           'opt_max_grad_norm': (1, 'num')},
    ('scheduler_type', 'multistep'): {'scheduler_milestones': (1, 'list'),
                                      'scheduler_decay_rate': (1, 'num')},
    ('scheduler_type', 'cosine_annealing'): {'scheduler_t_max': (1, 'num'),
                                             'scheduler_eta_min': (1, 'nonneg')},
}


def value_ok(v, kind):
    isnum = isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == 'num':
        return isnum
    if kind == 'pos':
        return isnum and v > 0
    if kind == 'nonneg':
        return isnum and v >= 0
    if kind == 'list':
        return isinstance(v, list)
    if kind == 'pair':
        return isinstance(v, list) and len(v) == 2
    if kind == 'bool':
        return isinstance(v, bool)
    return isinstance(v, str) and v in kind


def closed_problems(bench, lines):
    """Every problem of the closed rules of bench, one string each."""
    rules = dict(CLOSED_COMMON)
    rules.update(CLOSED[bench])
    values = {}
    for _, ev in lines:
        values.setdefault(ev['key'], []).append(ev['value'])
    if bench == 'deepcam':
        for (key, val), more in CLOSED_MORE.items():
            if val in values.get(key, []):
                rules.update(more)
    problems = []
    for key in sorted(rules):
        want, kind = rules[key]
        got = values.get(key, [])
        if want == 1 and len(got) != 1:
            problems.append('%s appears %d times (exactly one)' % (key, len(got)))
        elif want == 'n' and not got:
            problems.append('%s missing (at least one)' % key)
        bad = [v for v in got if not value_ok(v, kind)]
        if bad:
            problems.append('%s value %s is not %s' % (key, json.dumps(bad[0]),
                            kind if isinstance(kind, str) else 'one of ' + '/'.join(kind)))
    return problems


def fail(msg):
    print('mllog_check: ' + msg)
    sys.exit(1)


def main():
    args, staging, init_before, closed = sys.argv[1:], False, None, None
    while args and args[0].startswith('--'):
        if args[0] == '--staging':
            staging, args = True, args[1:]
        elif args[0] == '--closed' and len(args) > 1 and args[1] in CLOSED:
            closed, args = args[1], args[2:]
        elif args[0] == '--init-before' and len(args) > 1:
            init_before, args = re.compile(args[1]), args[2:]
        else:
            fail('unknown option %s' % args[0])
    if len(args) != 1:
        fail('usage: mllog_check.py [--staging] [--init-before RE] [--closed cosmoflow|deepcam] LOG')
    lines, first_match = [], None
    with open(args[0], errors='replace') as f:
        for no, text in enumerate(f, 1):
            if init_before and first_match is None and init_before.search(text):
                first_match = no
            if not text.startswith(':::MLLOG '):
                continue
            try:
                ev = json.loads(text[len(':::MLLOG '):])
            except ValueError as e:
                fail('line %d: not JSON: %s' % (no, e))
            for k in ('namespace', 'time_ms', 'event_type', 'key', 'value', 'metadata'):
                if k not in ev:
                    fail('line %d: no "%s"' % (no, k))
            if ev['event_type'] not in EVENTS:
                fail('line %d: event_type %r' % (no, ev['event_type']))
            md = ev['metadata']
            if not isinstance(md, dict) or 'file' not in md or 'lineno' not in md:
                fail('line %d: metadata without file and lineno' % no)
            lines.append((no, ev))
    if not lines:
        fail('no :::MLLOG lines')
    count = {}
    for _, ev in lines:
        count[ev['key']] = count.get(ev['key'], 0) + 1
    for k in EXACTLY_ONE:
        if count.get(k, 0) != 1:
            fail('%s appears %d times, MLPerf wants exactly one' % (k, count.get(k, 0)))
    for k in AT_LEAST_ONE:
        if count.get(k, 0) < 1:
            fail('%s missing' % k)
    if staging and (count.get('staging_start', 0) < 1 or count.get('staging_stop', 0) < 1):
        fail('no staging_start/staging_stop: the launch staged its data set')
    if init_before:
        first_init = min(no for no, ev in lines if ev['key'] == 'init_start')
        if first_match is None:
            fail('no line matches %r (--init-before)' % init_before.pattern)
        if first_init > first_match:
            fail('line %d: init_start after line %d (%r): not at the program\'s start'
                 % (first_init, first_match, init_before.pattern))
    seen, last_t, first_init_t, staging_open = {}, -1, None, False
    for no, ev in lines:
        k, md = ev['key'], ev['metadata']
        if ev['time_ms'] < last_t:
            fail('line %d: time_ms goes back' % no)
        last_t = ev['time_ms']
        if k in EPOCH_NUM and 'epoch_num' not in md:
            fail('line %d: %s without epoch_num' % (no, k))
        if k == 'submission_division' and ev['value'] not in ('closed', 'open'):
            fail('line %d: division %r' % (no, ev['value']))
        if k == 'submission_status' and ev['value'] not in ('cloud', 'onprem', 'preview', 'research'):
            fail('line %d: status %r' % (no, ev['value']))
        if k == 'init_start':
            if 'init_stop' in seen or 'run_start' in seen:
                fail('line %d: init_start after init_stop or run_start' % no)
            if first_init_t is None:
                first_init_t = ev['time_ms']
        if k == 'init_stop' and ('init_start' not in seen or 'run_start' in seen):
            fail('line %d: init_stop outside init' % no)
        if k == 'init_stop' and ev['time_ms'] - first_init_t >= 30 * 60 * 1000:
            fail('line %d: init_stop 30 minutes or more after init_start' % no)
        if k == 'staging_start':
            if 'run_start' not in seen:
                fail('line %d: staging_start before run_start (MLPerf HPC times staging)' % no)
            if staging_open:
                fail('line %d: staging_start inside staging' % no)
            staging_open = True
        if k == 'staging_stop':
            if not staging_open:
                fail('line %d: staging_stop without staging_start' % no)
            staging_open = False
        if k == 'run_stop' and staging_open:
            fail('line %d: run_stop inside staging' % no)
        if k == 'run_start' and 'init_stop' not in seen:
            fail('line %d: run_start before init_stop' % no)
        if k in ('epoch_start', 'eval_accuracy') and 'run_start' not in seen:
            fail('line %d: %s before run_start' % (no, k))
        if k == 'run_stop' and ('status' not in md or md['status'] not in ('success', 'aborted')):
            fail('line %d: run_stop without a status' % no)
        if 'run_stop' in seen and k in ('epoch_start', 'eval_accuracy', 'run_start'):
            fail('line %d: %s after run_stop' % (no, k))
        if k == 'global_batch_size' and not ev['value'] > 0:
            fail('line %d: global_batch_size %r' % (no, ev['value']))
        seen[k] = no
    if staging_open:
        fail('staging_start never stopped')
    if closed:
        problems = closed_problems(closed, lines)
        if problems:
            fail('closed %s: %s' % (closed, '; '.join(problems)))
    print('%d lines, %d keys, %d evaluations, %d staging%s'
          % (len(lines), len(count), count['eval_accuracy'], count.get('staging_start', 0),
             ', closed %s keys' % closed if closed else ''))


main()
