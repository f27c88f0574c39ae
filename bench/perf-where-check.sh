#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# bench/perf-where.awk, the "where the time goes" of bench/kernel-vs-ibsim.sh
# PERF=1: each sample of a perf script text lands in the bucket of who ran it
# (server, its other threads, the program, its start, idle, another process) and
# of the system call or library it was in; only the samples from the server's
# first to the program's last count, and the shares are of that time on
# every CPU.  Needs no perf: runs in make check.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
where=${top_srcdir:-$(dirname "$0")/..}/bench/perf-where.awk
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# sample COMM PID/TID SECONDS FRAME...: one sample, its frames "SYMBOL (DSO)", leaf first.
sample() {
	local frame
	printf '%s %s %s:\n' "$1" "$2" "$3"
	shift 3
	for frame in "$@"; do
		printf '\t%16x %s\n' $((RANDOM)) "$frame"
	done
	echo
}
k='([kernel.kallsyms])'
{
	# Before the server started: perf's own start, left out.
	sample perf 90/90 0.500 "cmd_record (/usr/bin/perf)"
	# The server (pid 100) replying: a kernel stack under writev.
	sample umad 100/100 1.000 "_raw_spin_unlock_irqrestore $k" "fuse_dev_write $k" \
		"do_writev $k" "do_syscall_64 $k" "entry_SYSCALL_64_after_hwframe $k" \
		"__GI___writev (/usr/lib/x86_64-linux-gnu/libc.so.6)"
	# Its waits, seen in the kernel and on the way out in libc.
	sample umad 100/100 1.001 "do_epoll_wait $k" "__x64_sys_epoll_wait $k" "do_syscall_64 $k" \
		"entry_SYSCALL_64_after_hwframe $k" "epoll_wait (/usr/lib/x86_64-linux-gnu/libc.so.6)"
	sample umad 100/100 1.002 "epoll_wait (/usr/lib/x86_64-linux-gnu/libc.so.6)"
	sample umad 100/100 1.003 "__vdso_clock_gettime ([vdso])"
	sample umad 100/100 1.004 "try_read (/build/cli/.libs/umad)"
	sample umad 100/100 1.005 "fuse_session_process_buf (/usr/lib/x86_64-linux-gnu/libfuse3.so.3.14.0)"
	# Another thread of the server (the sim backend's events).
	sample umad 100/101 1.006 "events_main (/build/cli/.libs/backend-sim.so)"
	# The program (pid 200): its start, then its own code and a read(2).
	sample umad 200/200 1.007 "kns_show (/build/cli/.libs/umad)"
	sample ibnetdiscover 200/200 1.008 "ibnd_discover_fabric (/usr/lib/x86_64-linux-gnu/libibnetdisc.so.5)"
	sample ibnetdiscover 200/200 1.009 "mad_rpc (/usr/lib/x86_64-linux-gnu/libibmad.so.5)"
	sample ibnetdiscover 200/200 1.010 "fuse_simple_request $k" "ksys_read $k" "do_syscall_64 $k" \
		"entry_SYSCALL_64_after_hwframe $k" "read (/usr/lib/x86_64-linux-gnu/libc.so.6)"
	sample ibnetdiscover 200/200 1.011 "umad_recv (/usr/lib/x86_64-linux-gnu/libibumad.so.3)"
	# No one, and someone else (a name with a space).
	sample swapper 0/0 1.012 "default_idle $k"
	sample "Web Content" 300/301 1.013 "js_run (/usr/lib/libxul.so)"
	# The program's last sample.
	sample ibnetdiscover 200/200 1.020 "ibnd_discover_fabric (/usr/lib/x86_64-linux-gnu/libibnetdisc.so.5)"
	# After it: left out.
	sample swapper 0/0 1.500 "default_idle $k"
} > "$work/script"

awk -v hz=1000 -v cpus=2 -v server=100 -v program_pid=200 -f "$where" "$work/script" > "$work/got" ||
	fail "perf-where.awk failed"
# ms BUCKET: the milliseconds the report gives BUCKET (a fixed string).
ms() { grep -F "  $1" "$work/got" | awk '{ print $2 }'; }
check() {	# BUCKET MS
	[ "$(ms "$1")" = "$2" ] || fail "$1: '$(ms "$1")' ms, expected $2"
}
check "server: writev(2) of a FUSE reply" 1
check "server: epoll_wait (waits for a request)" 2	# in the kernel, and in libc
check "server: clock_gettime" 1
check "server: kfs, the sim backend, libc (and the fabric's load)" 1
check "server: libfuse" 1
check "server's other threads" 1
check "the command's start (mounts, exec)" 1
check "program: its own code" 3
check "program: read(2)" 1
check "program: libibumad" 1
check "idle: no task on the CPU" 1
check "other processes" 1
grep -q perf "$work/got" && fail "a sample before the server's first was counted"
# 20 ms from the first to the last, two CPUs: a sample is 1/40 of the time.
grep -q '^  20 ms from the server.s first sample to the program.s last, 15 samples:$' "$work/got" ||
	fail "the span or the count is wrong: $(head -n1 "$work/got")"
[ "$(grep -F "program: its own code" "$work/got" | awk '{ print $1 }')" = "7.5%" ] ||
	fail "3 samples of 40 are not 7.5%"
grep -q '^  the program ran 5 ms of the 20 ms, the server 6 ms (its other threads not counted)\.$' "$work/got" ||
	fail "the program's and the server's totals are wrong: $(tail -n1 "$work/got")"

# Nothing of the server or the program: an error, not an empty report.
sample swapper 0/0 1.0 "default_idle $k" > "$work/idle"
awk -v hz=1000 -v cpus=2 -v server=100 -v program_pid=200 -f "$where" "$work/idle" > /dev/null 2>&1 &&
	fail "a script without the server's or the program's samples was accepted"

[ "$status" -ne 0 ] || echo "ok: bench/perf-where.awk: buckets, span and shares from the samples"
[ "$status" -eq 0 ] || cat "$work/got"
exit "$status"
