# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by every shell test that starts a process (tests/sim_env.sh sources
# it): what a test starts ends with it, also when the test fails midway or is
# interrupted: SIGTERM first, SIGKILL after a grace period.
#
#   end_procs PID...   SIGTERM (and SIGCONT, for a stopped one) to each PID
#                      and every process under it, SIGKILL to those still
#                      there after $UMAD_TEST_GRACE seconds (default 5);
#                      returns once they are gone, with the first PID's exit
#                      status when it is this shell's child (else 0).
#   at_exit COMMAND    COMMAND (an unmount, a namespace's removal) runs at
#                      exit, after every process the test started has ended;
#                      the newest first.
#   timeout ...        coreutils' timeout with -k $UMAD_TEST_GRACE: what
#                      ignores the TERM, or deadlocks on it, is killed.
#   procs_tree PID...  the PIDs and every process under them (to kill -9 a
#                      command with what it runs under, say).
#   procs_marked RUN [SHELL]
#                      the processes whose environment holds
#                      UMAD_TEST_RUN=RUN (and UMAD_TEST_SHELL SHELL, or one
#                      below it), but the caller and the processes it runs
#                      under.
#
# Every program the test starts carries in its environment UMAD_TEST_RUN,
# one value per `make check` (tests/local.mk; a test run by hand makes its
# own), UMAD_TEST_NAME, the test's (its log), and UMAD_TEST_SHELL, this
# shell's (after the one of the test that runs it, for a script run by a
# test that sources this file too): so what it started is found wherever it
# went (reparented, in a namespace, running as another user).  At exit (or
# INT, TERM, HUP), this shell's background jobs and every process with its
# UMAD_TEST_SHELL, or one below it, end;
# tests/nothing_left.sh, run after all the others, names and ends what still
# carries the run's UMAD_TEST_RUN.

# Bash's: a test run by sh comes back under bash.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# Once per shell (sim_env.sh and a script of the test's may both source it).
[ "${procs_sourced:-}" != "$$" ] || return 0
procs_sourced=$$

export UMAD_TEST_GRACE=${UMAD_TEST_GRACE:-5}

# procs_stat PID: sets procs_state, procs_ppid and procs_start (its start
# time, which tells it from a later process given the same id); 1 when gone.
procs_stat() {
	local line f
	{ read -r line < "/proc/$1/stat"; } 2>/dev/null || return 1
	# After "PID (COMM) ", which may hold spaces: state, ppid, ..., start time (the 20th).
	read -r -a f <<< "${line##*) }"
	procs_state=${f[0]} procs_ppid=${f[1]} procs_start=${f[19]}
}

# procs_tree PID...: the PIDs and every process under them.
procs_tree() {
	local -A kids=() seen=()
	local d p todo out=""
	for d in /proc/[0-9]*; do
		procs_stat "${d#/proc/}" && kids[$procs_ppid]+=" ${d#/proc/}"
	done
	todo="$*"
	while [ -n "$todo" ]; do
		set -- $todo
		todo=""
		for p; do
			[ -z "${seen[$p]:-}" ] || continue
			seen[$p]=1
			out+=" $p"
			todo+="${kids[$p]:-}"
		done
	done
	echo $out
}

# procs_left PID:START...: sets procs_left to the PIDs still running (not
# zombies) that started at START.
procs_left() {
	local id
	procs_left=""
	for id; do
		procs_stat "${id%:*}" && [ "$procs_state" != Z ] && [ "$procs_start" = "${id#*:}" ] &&
			procs_left+=" ${id%:*}"
	done
}

# procs_wait_gone SECONDS PID:START...: until they are gone or SECONDS passed; 1 then.
procs_wait_gone() {
	local ticks=$(($1 * 10))
	shift
	while procs_left "$@"; [ -n "$procs_left" ]; do
		[ "$ticks" -gt 0 ] || return 1
		ticks=$((ticks - 1))
		sleep 0.1
	done
}

# procs_says PID: its command line.
procs_says() {
	local arg out=""
	while IFS= read -r -d '' arg; do out+="$arg "; done 2>/dev/null < "/proc/$1/cmdline"
	echo "${out% }"
}

end_procs() {
	local p st=0 child_first= own=() ids=()
	[ $# -gt 0 ] || return 0
	for p in $(procs_tree "$@"); do
		procs_stat "$p" || continue
		ids+=("$p:$procs_start")
		[ "$procs_ppid" = "$BASHPID" ] || continue
		own+=("$p")
		[ "$p" = "$1" ] && child_first=1
	done
	for p in "${ids[@]}"; do kill -TERM "${p%:*}" 2>/dev/null; done
	for p in "${ids[@]}"; do kill -CONT "${p%:*}" 2>/dev/null; done
	if ! procs_wait_gone "$UMAD_TEST_GRACE" "${ids[@]}"; then
		for p in $procs_left; do
			echo "note: $p ($(procs_says "$p")) still ran $UMAD_TEST_GRACE s after SIGTERM: killed" >&2
			kill -KILL "$p" 2>/dev/null
		done
		procs_wait_gone "$UMAD_TEST_GRACE" "${ids[@]}" ||
			echo "note: $procs_left still there after SIGKILL" >&2
	fi
	for p in "${own[@]}"; do
		if [ "$p" = "$1" ]; then wait "$p" 2>/dev/null; st=$?; else wait "$p" 2>/dev/null; fi
	done
	[ -n "$child_first" ] || st=0
	return "$st"
}

procs_marked() {
	local run="UMAD_TEST_RUN=$1" shell="UMAD_TEST_SHELL=${2:-}" d p var has_run has_shell
	local skip=" " out=""
	p=$BASHPID
	while [ "$p" -gt 0 ] && procs_stat "$p"; do
		skip+="$p "
		p=$procs_ppid
	done
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		case $skip in *" $p "*) continue ;; esac
		has_run="" has_shell=""
		[ -n "${2:-}" ] || has_shell=1
		while IFS= read -r -d '' var; do
			[ "$var" != "$run" ] || has_run=1
			case $var in "$shell" | "$shell/"*) has_shell=1 ;; esac
		done 2>/dev/null < "$d/environ"
		[ -z "$has_run" ] || [ -z "$has_shell" ] || out+=" $p"
	done
	echo $out
}

timeout() { command timeout -k "$UMAD_TEST_GRACE" "$@"; }

procs_at_exit=()
at_exit() { procs_at_exit=("$1" "${procs_at_exit[@]}"); }

procs_exit() {
	local st=$? c
	trap - EXIT
	trap "" INT TERM HUP
	end_procs $(jobs -p) $(procs_marked "$UMAD_TEST_RUN" "$UMAD_TEST_SHELL")
	for c in "${procs_at_exit[@]}"; do eval "$c"; done
	exit "$st"
}

procs_stat $$
export UMAD_TEST_RUN=${UMAD_TEST_RUN:-by-hand.$$.$procs_start}
export UMAD_TEST_NAME=${UMAD_TEST_NAME:-$0}
export UMAD_TEST_SHELL=${UMAD_TEST_SHELL:+$UMAD_TEST_SHELL/}$$.$procs_start
trap procs_exit EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
