#!/usr/bin/env bash
# A bare `make` (what run.sh and the README's first command call) builds every
# program.  The rules that each folder's module.mk defines come before `all` in
# the Makefile, so without .DEFAULT_GOAL the first library was the default:
# `./run.sh` on a fresh clone built libcoll.a alone and stopped with
# "build/bin/exadl: No such file or directory".  Checked on make's database
# (make -pn prints it and runs nothing), into an empty build folder.
set -u
cd "$EXADL_ROOT" || exit 1
tmp=$(mktemp -d "${EXADL_TMP:-/tmp}/exadl-goal.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
make -pn BUILD="$tmp/b" GPU=0 >"$tmp/db" 2>"$tmp/err"
goal=$(sed -n 's/^\.DEFAULT_GOAL := //p' "$tmp/db" | tail -n 1)
if [ "$goal" = all ]; then
    echo "PASS: build_goal: a bare make builds 'all'"
else
    echo "FAIL: build_goal: a bare make builds '$goal', not 'all'"
    head -n 5 "$tmp/err"
fi
# every program the module.mk files declare is a prerequisite of all
progs=$(sed -n 's/^PROGRAMS := //p' "$tmp/db" | tail -n 1)
deps=" $(sed -n 's/^all: //p' "$tmp/db" | tail -n 1) "
missing=""
for p in $progs; do
    case "$deps" in *" $tmp/b/bin/$p "*) ;; *) missing="$missing $p" ;; esac
done
if [ -n "$progs" ] && [ -z "$missing" ]; then
    echo "PASS: build_goal: all builds every program ($(echo $progs | wc -w): $progs)"
else
    echo "FAIL: build_goal: programs missing from all:${missing:- (no PROGRAMS in the database of make)}"
fi
