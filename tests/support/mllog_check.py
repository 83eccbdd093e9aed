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
Usage: mllog_check.py LOG.  Exit 0 and a summary line, or 1 naming the
first problem."""
import json
import sys

EXACTLY_ONE = ['submission_benchmark', 'submission_org', 'submission_platform',
               'submission_division', 'submission_status', 'init_stop', 'run_start',
               'run_stop', 'train_samples', 'eval_samples', 'global_batch_size', 'opt_name',
               'opt_base_learning_rate']
AT_LEAST_ONE = ['cache_clear', 'init_start', 'epoch_start', 'epoch_stop', 'eval_start',
                'eval_stop', 'eval_accuracy']
EPOCH_NUM = ['epoch_start', 'epoch_stop', 'eval_start', 'eval_stop', 'eval_accuracy']
EVENTS = {'POINT_IN_TIME', 'INTERVAL_START', 'INTERVAL_END'}


def fail(msg):
    print('mllog_check: ' + msg)
    sys.exit(1)


def main():
    lines = []
    with open(sys.argv[1], errors='replace') as f:
        for no, text in enumerate(f, 1):
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
    seen, last_t = {}, -1
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
        if k == 'init_stop' and ('init_start' not in seen or 'run_start' in seen):
            fail('line %d: init_stop outside init' % no)
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
    print('%d lines, %d keys, %d evaluations' % (len(lines), len(count), count['eval_accuracy']))


main()
