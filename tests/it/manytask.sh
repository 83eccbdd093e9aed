#!/usr/bin/env bash
# The many-task throughput benchmark (docs/ensembles.md): planted failures are
# counted and retried by the stated policy, tasks that keep failing count as
# failed for good, and tasks run through mpirun too.
set -u
B=$EXADL_BIN/manytask
T=$EXADL_TMP
num() { sed -n "s/^  $1: //p" "$2"; }
# tasks 0, 4, 8 fail their first attempt; one retry each brings them home
"$B" --tasks 12 --concurrency 3 --launcher direct --plant-failures 4 --retries 1 --record "$T/a.yaml" >"$T/a.out" 2>&1
if [ "$(num done "$T/a.yaml")/$(num failed "$T/a.yaml")/$(num failed_attempts "$T/a.yaml")/$(num attempts "$T/a.yaml")" = 12/0/3/15 ]; then
    echo "PASS: manytask 3 planted failures retried: 12 done, 3 failed attempts, 15 attempts"
else
    echo "FAIL: manytask planted failures: $(tail -n 2 "$T/a.out")"
fi
# they fail twice: with one retry they fail for good
"$B" --tasks 12 --concurrency 3 --launcher direct --plant-failures 4 --plant-attempts 2 --retries 1 \
    --record "$T/b.yaml" >"$T/b.out" 2>&1
if [ "$(num done "$T/b.yaml")/$(num failed "$T/b.yaml")/$(num failed_attempts "$T/b.yaml")" = 9/3/6 ] &&
    grep -q 'every_task_done, outcome: fail' "$T/b.yaml"; then
    echo "PASS: manytask tasks failing past the retries count as failed (9 done, 3 failed, 6 failed attempts)"
else
    echo "FAIL: manytask permanent failures: $(tail -n 2 "$T/b.out")"
fi
# a task that never works: no task done, status failed, exit non-zero (a path
# under /proc/self, which nobody can create, not a sentinel like /nonexistent)
if "$B" --tasks 2 --concurrency 2 --launcher direct --task /proc/self/exadl-absent/task --retries 0 \
    --record "$T/c.yaml" >"$T/c.out" 2>&1; then
    echo "FAIL: manytask a task that cannot start passed"
else
    grep -q '^status: failed' "$T/c.yaml" && grep -q 'exit status 127' "$T/c.yaml" &&
        echo "PASS: manytask a task that cannot start fails the run clearly" ||
        echo "FAIL: manytask unstartable task: $(tail -n 2 "$T/c.out")"
fi
# through mpirun (the normal build only: the launcher, not this program, is measured)
case ${EXADL_BUILD:-build} in
*build-san*) echo "SKIP: manytask through mpirun: normal build only (CI time)"; exit 0 ;;
esac
if "$B" --tasks 4 --concurrency 2 --launcher mpirun --record "$T/m.yaml" >"$T/m.out" 2>&1 &&
    [ "$(num done "$T/m.yaml")" = 4 ]; then
    echo "PASS: manytask 4 tasks through mpirun ($(num tasks_per_s "$T/m.yaml") tasks/s)"
else
    echo "FAIL: manytask through mpirun: $(tail -n 3 "$T/m.out")"
fi
