#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# A client of the same user writes over the fabric's shared memory (tests/arena_vandal):
# zeroes its header through its mapping, punches a hole there, or zeroes the fabric's root
# object, and stays connected.  `umad fabric serve` does not die of a signal at the next
# client: it stops with its documented message (exit status 1), and that client, ibstat, is
# told the fabric went, in time.  Before, a client is served, so that the test sees a change, not a server that never
# served.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibstat"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
vandal=$top_builddir/tests/arena_vandal
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
[ -x "$vandal" ] || { echo "FAIL: $vandal not built"; exit 1; }

client() {
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim \
		UMAD_SIM_FABRIC="$work/sock" timeout 30 "$@"
}

for how in zero punch root; do
	rm -f "$work/sock"
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" "$umad" fabric serve --socket "$work/sock" \
		2> "$work/serve.err" &
	server=$!
	for _ in $(seq 300); do
		[ -S "$work/sock" ] && break
		kill -0 "$server" 2>/dev/null || break
		sleep 0.05
	done
	client ibstat > "$work/before.out" 2>&1
	grep -q "CA 'sim0'" "$work/before.out" ||
		{ fail "$how: ibstat was not served before: $(head -3 "$work/before.out")"; end_procs "$server"; continue; }
	"$vandal" "$work/sock" "$how" > "$work/vandal.out" 2>&1 &
	vandal_pid=$!
	for _ in $(seq 200); do
		grep -q '^done$' "$work/vandal.out" && break
		kill -0 "$vandal_pid" 2>/dev/null || break
		sleep 0.05
	done
	grep -q '^done$' "$work/vandal.out" ||
		{ fail "$how: the vandal could not: $(cat "$work/vandal.out")"; end_procs "$server" "$vandal_pid"; continue; }
	client ibstat > "$work/after.out" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "$how: ibstat after it: exit status $rc: $(head -3 "$work/after.out")"
	[ -s "$work/after.out" ] || fail "$how: ibstat after it said nothing"
	timeout 10 tail --pid="$server" -f /dev/null
	if kill -0 "$server" 2>/dev/null; then
		fail "$how: the server still runs 10 s after a client wrote over its memory"
		end_procs "$server"
		continue
	fi
	wait "$server"
	status_of_server=$?
	[ "$status_of_server" = 1 ] ||
		fail "$how: the server ended with status $status_of_server (not 1): $(tail -3 "$work/serve.err")"
	grep -q "the fabric's shared memory was written over by a client" "$work/serve.err" ||
		fail "$how: the server did not say why it stopped: $(tail -3 "$work/serve.err")"
	echo "note: $how: $(grep -m1 'written over' "$work/serve.err" | cut -c1-200)"
	echo "note: $how: ibstat: $(head -1 "$work/after.out" | cut -c1-200)"
	end_procs "$server" "$vandal_pid"
done

[ "$status" -eq 0 ] && echo "PASS: a client writing over the fabric's memory does not crash the server"
exit "$status"
