#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Run after every other test of the run (tests/local.mk makes its log wait
# for theirs): no process any of them started is still running.  Each one
# found (it carries the run's UMAD_TEST_RUN, tests/procs.sh; in a namespace,
# as another user or reparented alike) is named with the test that started
# it and its command line, and ended, TERM then KILL, so that nothing hangs
# on it.  Skips (77) outside `make check`, which sets the run's mark.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
[ -n "${UMAD_TEST_RUN:-}" ] || { echo "SKIP: no UMAD_TEST_RUN: run by make check"; exit 77; }
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/procs.sh"

# what_of PID VAR: VAR's value in PID's environment.
what_of() {
	local var
	while IFS= read -r -d '' var; do
		case $var in "$2="*) echo "${var#*=}"; return ;; esac
	done 2>/dev/null < "/proc/$1/environ"
	echo "?"
}

left=$(procs_marked "$UMAD_TEST_RUN")
[ -z "$left" ] && { echo "PASS: nothing the tests started is running"; exit 0; }
for p in $left; do
	procs_stat "$p" || continue
	echo "FAIL: still running, from $(what_of "$p" UMAD_TEST_NAME): pid $p (parent $procs_ppid," \
		"user $(stat -c %U "/proc/$p" 2>/dev/null)): $(procs_says "$p")"
done
end_procs $left
exit 1
