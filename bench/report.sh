# shellcheck shell=bash
# Sourced by the benchmarks that end in one table (bench/table.awk):
# bench/fabric-vs-ibsim.sh and bench/kernel-vs-ibsim.sh.  Their arguments
# (sets of K LEVELS RUNS) and what they need, the work directory, a set's
# fat tree and ibsim on it, the table's rows and the notes under it, a
# tool's run that fails made a note, busy loops to measure beside, and an
# end that stops every process it started and prints what was measured
# however the run stopped.  The caller defines measure_set K LEVELS
# RUNS DIR (which calls set_begin), set_rows MISSING (the rows of a set,
# also while set_open=1 says it is being measured) and print_table (which
# calls report_footer), and sets phase (what it does, said if the run stops
# early).  Needs bench/timing.sh (run_limited, median) for the runs and
# scripts/ibsim-session.sh for ibsim.
# shellcheck disable=SC2154,SC2034 # the caller's variables, and those set for it

# bench_sets_check ARG...: exit 2 unless the arguments are K LEVELS RUNS
# sets, numbers all, RUNS at least 1.
bench_sets_check() {
	local arg runs
	if [ $(($# % 3)) -ne 0 ]; then
		echo "usage: $0 [K LEVELS RUNS]..." >&2
		exit 2
	fi
	for arg in "$@"; do
		case $arg in
		'' | *[!0-9]*) echo "$0: '$arg' is not a number (usage: $0 [K LEVELS RUNS]...)" >&2; exit 2 ;;
		esac
	done
	for runs in $(printf '%s %s %s\n' "$@" | cut -d' ' -f3); do
		[ "$runs" -ge 1 ] || { echo "$0: RUNS must be at least 1" >&2; exit 2; }
	done
}

# bench_paths TOOL...: top_srcdir, top_builddir, libs (the built
# libraries), umad and umad2sim set; exit 1 saying what is missing: one of
# the TOOLs, ibsim and umad2sim (unless NO_IBSIM is set), or the build.
bench_paths() {
	local need
	top_srcdir=${top_srcdir:-$(dirname "$0")/..}
	top_srcdir=$(cd "$top_srcdir" && pwd)
	top_builddir=${top_builddir:-.}
	top_builddir=$(cd "$top_builddir" && pwd)
	libs=$top_builddir/.libs
	umad=$top_builddir/cli/umad
	# The program itself where libtool built one: its wrapper script takes
	# longer to start than a small fabric takes to load.
	[ ! -x "$top_builddir/cli/.libs/umad" ] || umad=$top_builddir/cli/.libs/umad
	umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
	[ -n "${NO_IBSIM:-}" ] || set -- "$@" ibsim
	for need in "$@"; do
		command -v "$need" >/dev/null ||
			{ echo "$need not installed (scripts/install-deps; NO_IBSIM=1 leaves ibsim out)"; exit 1; }
	done
	[ -n "${NO_IBSIM:-}" ] || [ -f "$umad2sim" ] ||
		{ echo "$umad2sim missing (libumad2sim0; NO_IBSIM=1 leaves ibsim out)"; exit 1; }
	if [ ! -x "$umad" ] || [ ! -f "$libs/backend-sim.so" ]; then
		echo "build first: umad or backend-sim.so missing"
		exit 1
	fi
}

# report_start: a new work directory ($work), no rows, no notes.
report_start() {
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	work=$(mktemp -d)
	rows=$work/rows
	notes=$work/notes
	: > "$rows"
	: > "$notes"
	failed=0
	notes_made=0
	table_done=
	set_open=
	phase="setting up"
	limited_pid=
	busy_pids=()
	client_pids=()
}

# note TEXT: a note under the table; its mark ("[n]") is left in mark.
note() {
	notes_made=$((notes_made + 1))
	printf '[%d] %s\n' "$notes_made" "$(printf '%s' "$*" | tr '\t\n' '  ')" >> "$notes"
	mark="[$notes_made]"
}

# failure TEXT: a note for something that went wrong; the run will exit 1.
failure() {
	failed=1
	note "$@"
}

# last_words FILE...: the last line of the first of the files that has one
# (a tool's errors, then its output), to say why it failed.
last_words() {
	local line='' file
	for file in "$@"; do
		line=$(grep -v '^[[:space:]]*$' "$file" 2>/dev/null | tail -n1 | cut -c1-200) || :
		[ -z "$line" ] || break
	done
	echo "${line:-no output}"
}

progress() { echo "-- $title: $*" >&2; }

# row MEASUREMENT OURS IN-PROCESS IBSIM REF TARGET: a row of the table (bench/table.awk).
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$title" "$@" >> "$rows"; }

# bad SIDE WHAT WHY: a run that exited 0 but did not do its job.
bad() {
	failure "$2, $1: $3"
	cell="failed $mark"
}

# median_of FILE: the median of the figures in FILE.
median_of() { median < "$1"; }

# report_run SIDE WHAT CMD...: CMD with its output in $dir/out and its
# errors in $dir/err, within $limit seconds; elapsed_ms is its wall time.
# If it fails, the failure is noted and cell says so.
report_run() {
	local side=$1 what=$2 status=0 why
	shift 2
	run_limited "$limit" "$dir/out" "$dir/err" "$@" || status=$?
	[ "$status" -ne 0 ] || return 0
	case $status in
	124 | 137) why="ran out of time ($limit s)" ;;
	*) why="exit status $status: $(last_words "$dir/err" "$dir/out")" ;;
	esac
	failure "$what, $side: $why"
	cell="failed $mark"
	return 1
}

# alive PID: whether PID still runs (a zombie, dead but not yet reaped, does not).
alive() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$state" ] && [ "$state" != Z ]
}

# stop_pids PID...: the bench's own children stopped: TERM, then KILL for
# those still running 2 s later, and all of them reaped.
stop_pids() {
	local pid left tries=40
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || :
	while :; do
		left=
		for pid; do
			! alive "$pid" || left=1
		done
		if [ -z "$left" ] || [ "$tries" -eq 0 ]; then
			break
		fi
		tries=$((tries - 1))
		sleep 0.05
	done
	[ -z "$left" ] || kill -KILL "$@" 2>/dev/null || :
	for pid; do
		wait "$pid" 2>/dev/null || :
	done
}

# busy_start N: N busy loops (CPU-bound processes, in busy_pids) beside what
# is measured, until busy_stop (or the exit trap).  Each also ends by itself
# once the bench's shell is gone or dead (a zombie), should that be killed
# past its traps; it looks with sh's read, which starts no process.
busy_start() {
	local i
	for i in $(seq "$1"); do
		# shellcheck disable=SC2016 # the loop's own variables
		sh -c 'while read -r _ _ state _ < "/proc/$1/stat" && [ "$state" != Z ]; do
			i=0; while [ "$i" -lt 10000 ]; do i=$((i + 1)); done
		done 2>/dev/null' busy-loop "$$" &
		busy_pids+=("$!")
	done
}

# busy_stop: the busy loops stopped (TERM, then KILL).
busy_stop() {
	stop_pids "${busy_pids[@]}"
	busy_pids=()
}

# set_begin K LEVELS RUNS DIR: a set of measurements begins on the fat tree
# K LEVELS (scripts/gen-fattree), in DIR: runs, dir, net (its file), title,
# switches, hcas and limit set; 1 (a failure noted) if it cannot be made.
set_begin() {
	runs=$3
	dir=$4
	net=$dir/fabric.net
	title="fat tree k=$1, $2 levels"
	mkdir "$dir"
	phase="generating the $title"
	if ! "$top_srcdir/scripts/gen-fattree" "$1" "$2" > "$net" 2> "$dir/gen.err"; then
		failure "scripts/gen-fattree $1 $2: $(last_words "$dir/gen.err")"
		return 1
	fi
	switches=$(grep -c '^Switch' "$net") || :
	hcas=$(grep -c '^Hca' "$net") || :
	title="$title ($switches switches, $hcas HCAs)"
	set_open=1
	limit=${BENCH_TIMEOUT:-$((120 + hcas / 20))}
}

# ibsim_left_out: whether NO_IBSIM leaves ibsim out (then down[ibsim] says so,
# one note for the run).
ibsim_left_out() {
	[ -n "${NO_IBSIM:-}" ] || return 1
	if [ -z "${no_ibsim_mark:-}" ]; then
		note "ibsim left out (NO_IBSIM is set)"
		no_ibsim_mark=$mark
	fi
	down[ibsim]="not run $no_ibsim_mark"
}

# measure_sets K LEVELS RUNS...: measure_set (the caller's) for each set,
# in $work (where the tools may leave files), then the table.
measure_sets() {
	local n=0
	cd "$work" || exit
	while [ $# -gt 0 ]; do
		n=$((n + 1))
		measure_set "$1" "$2" "$3" "$work/set$n"
		shift 3
	done
	phase="printing the table"
	print_table
}

# start_ibsim_set: ibsim (scripts/ibsim-session.sh) on the set's fabric ($net,
# its $hcas HCAs), with the limits it needs;
# 1 (and down[ibsim] set, a note saying why) when it cannot load it.
start_ibsim_set() {
	local -a opts
	read -ra opts <<< "$(ibsim_limits "$net")"
	if IBSIM_READY_TIMEOUT=${IBSIM_READY_TIMEOUT:-$((60 + hcas / 50))} \
		start_ibsim "$net" "$dir" "${opts[@]}" 2> "$dir/ibsim-start.err"; then
		return 0
	fi
	note "ibsim: cannot load (${opts[*]:+with ${opts[*]}: }$(last_words "$dir/ibsim-start.err"))"
	down[ibsim]="not run $mark"
	stop_ibsim
	return 1
}

# report_footer OURS: the legend of the ratio, the machine, the table (its
# first column of figures named OURS) and the notes.
report_footer() {
	echo "ratio: $1 / the column named; met?: the target against this run's figures."
	# Figures from a busy machine are not those of an idle one: say which it was.
	echo "machine: $(getconf _NPROCESSORS_ONLN) CPUs, load average $load_before at the start," \
		"$(cut -d' ' -f1-3 /proc/loadavg) at the end."
	echo
	awk -v ours="$1" -f "$top_srcdir/bench/table.awk" "$rows" || failed=1
	if [ -s "$notes" ]; then
		echo
		cat "$notes"
	fi
	table_done=1
}

# report_traps STOP: on exit, however it comes, the tool being run, the
# clients run at once (the caller's client_pids), the busy loops and then
# the servers stopped (STOP, the caller's function), the table printed if
# it was not (the run stopped early: what was measured still shows), the
# work directory removed, and the exit status 1 after a failure.
report_traps() {
	# shellcheck disable=SC2064 # STOP now
	trap "report_exit $1" EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

report_exit() {
	local status=$?
	trap - EXIT
	# A second signal (timeout(1) signals the child, then its group) must not cut the table short.
	trap "" INT TERM
	if [ -n "$limited_pid" ]; then
		kill "$limited_pid" 2>/dev/null || :
		wait "$limited_pid" 2>/dev/null || :
	fi
	# Clients run at once (each under timeout(1)) and busy loops, if any.
	stop_pids "${client_pids[@]}"
	client_pids=()
	busy_stop
	"$1"
	if [ -z "$table_done" ]; then
		failure "the run stopped early (status $status) while $phase"
		[ -z "$set_open" ] || set_rows "not run $mark"
		print_table
	fi
	[ "$failed" -eq 0 ] || [ "$status" -ne 0 ] || status=1
	rm -rf "$work"
	exit "$status"
}
