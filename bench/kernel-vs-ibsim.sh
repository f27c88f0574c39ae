#!/bin/bash
# Benchmark: a simulated host's device files (umad kernel: /dev/infiniband
# and /sys/class/infiniband through FUSE) against ibsim+umad2sim and the
# in-process sim backend, in one run, on fat trees from scripts/gen-fattree:
# one set of measurements for each K LEVELS RUNS given.  Each set:
#  1. DR SMP round trips per second from one client (bench/dr_rtt.c, built
#     against Debian's libibumad3): through the files (umad kernel -t FILE --
#     dr_rtt, the program loading Debian's library: no LD_LIBRARY_PATH, no
#     LD_PRELOAD; umad kernel and the program on one CPU, its default: every
#     wake-up is on the CPU that is running, none waits for an idle one), the
#     same with UMAD_KERNEL_CPU=any (where the scheduler puts them: what one
#     CPU buys), in-process (this library, UMAD_BACKEND=sim) and under
#     ibsim+umad2sim; and in the same rotation the FUSE floor
#     (bench/fuse_floor.c, built here with make: a server that mounts and
#     serves one file as umad kernel serves a umadN but answers every request
#     at once, doing nothing, and a client making per MAD the requests
#     libibumad makes, a write(2), a poll(2) and a read(2)) three ways: on one
#     CPU as umad kernel runs, with UMAD_KERNEL_CPU=any, and on one CPU with
#     the server taking its requests as kfs_serve does (epoll_wait, then reads
#     of the non-blocking channel until EAGAIN).  Median of RUNS runs each way,
#     the order turning from run to run.  Per MAD (1e6 / the rate, in us) the
#     files' figure is set against the floor's, each way: the FUSE path's cost
#     beyond what FUSE itself costs;
#  2. busy mode: the round trips of 1 through the files (both ways) and under
#     ibsim, and the floor (both ways), with one busy loop beside and then
#     two (each a shell's endless loop, started and stopped here: TERM, then
#     KILL); 3 short runs each way, medians, the files' against ibsim's and
#     per MAD against the floor's with the same loops;
#  3. the clients sweep: 1, 2, 4, 8 and 16 dr_rtt at once through the files
#     of one umad kernel (umad kernel -t FILE -- sh -c 'N dr_rtt & wait', both
#     ways) and under one ibsim, a fixed number of round trips shared among
#     them; all their round trips per second, from the first one's start to
#     the last one's end (dr_rtt prints both, on CLOCK_MONOTONIC); median of
#     RUNS runs.  ibsim attaches a fixed number of clients (10 in its source,
#     IBSIM_MAX_CLIENTS): one it refuses is a note, not a failure;
#  4. ibnetdiscover's wall time the same four ways as 1, median of RUNS runs each;
#     a run that does not find every switch and HCA of the file fails.  Through
#     the files it is the whole `umad kernel -t FILE -- ibnetdiscover` (the
#     fabric's load, the mount and the namespace included), as in-process it is
#     the whole ibnetdiscover (its fabric's load included); ibsim has loaded
#     its fabric before;
#  5. `umad kernel -t FILE -- true`: what starting and stopping costs.
# At the end, one table (bench/table.awk): a row per measurement, the
# files / in-process / ibsim figures, the ratio to the side the row compares
# with, the issue's target and whether this run met it; then each run's
# figure.  A figure that is missing reads "failed [n]" or "not run [n]";
# note n, under the table, says why.  A tool that fails or runs out of time
# makes the exit status 1, after the table; ibsim unable to load a fabric, or
# to attach as many clients as a sweep asks, is a note, not a failure.  Every
# fabric starts without an SM (--sm none, UMAD_SIM_SM=none), as ibsim's.
#
# PERF=1: after the table, where the time of one ibnetdiscover through the
# files goes, on the last set's fabric (PERF=anycpu: run as that row is).  perf needs root (or perf_event_paranoid <= 1) and the
# fuse, sched and raw_syscalls tracepoints:
#  - perf stat, counting per task: FUSE requests by kind, context switches,
#    wake-ups and system calls per MAD (a MAD is a FUSE write);
#  - perf record -a -g, sampling every CPU (cpu-clock): the machine's time by
#    who used it (the program, the server's threads, the
#    command's start, other processes, no one) and how (bench/perf-where.awk);
#  - perf trace -s: the system calls of the program and of the server, per
#    MAD, and their mean time (perf trace slows every call).
# The wall times under perf are not the table's: perf costs time of its own.
# PERF_KEEP=DIR keeps the perf data and reports in DIR.
#
# Environment:
#   KERNEL_BENCH_TREE="K LEVELS"  the fat tree when no arguments are given
#                          (default "36 3": 11,664 HCAs; "36 2", 648 HCAs,
#                          for a quick run);
#   KERNEL_BENCH_RUNS=N    runs each way when no arguments are given (default 5);
#   NO_IBSIM=1             leave ibsim out;
#   BENCH_TIMEOUT=S        the time each tool run may take, in seconds
#                          (default 120 + HCAs / 20);
#   IBSIM_READY_TIMEOUT=S  the time ibsim may take to load (default 60 + HCAs / 50);
#   PERF=1|files|anycpu, PERF_KEEP=DIR  as above.
# Usage: bench/kernel-vs-ibsim.sh [K LEVELS RUNS]...   (from the build directory)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -eu
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2086 # two words
	set -- ${KERNEL_BENCH_TREE:-36 3} "${KERNEL_BENCH_RUNS:-5}"
fi
# shellcheck source=bench/report.sh
. "${top_srcdir:-$(dirname "$0")/..}/bench/report.sh"
bench_sets_check "$@"
case ${PERF:-} in
'') perf_side= ;;
1) perf_side=files ;;
files | anycpu) perf_side=$PERF ;;
*) echo "$0: PERF=$PERF: 1, files or anycpu" >&2; exit 2 ;;
esac
bench_paths ibnetdiscover timeout make ${perf_side:+perf}
# On the build tree's libraries, as it is run below (umad refuses to run on another libibumad).
if ! LD_LIBRARY_PATH="$libs" "$umad" kernel 2>&1 | grep -q '^usage: umad kernel'; then
	echo "umad kernel not built (configure found no libfuse3)"
	exit 1
fi
[ -e /dev/fuse ] || { echo "/dev/fuse missing: umad kernel cannot serve the files"; exit 1; }
# shellcheck source=bench/timing.sh
. "$top_srcdir/bench/timing.sh"
# shellcheck source=scripts/ibsim-session.sh
. "$top_srcdir/scripts/ibsim-session.sh"
export UMAD_SIM_SM=none

report_start
sim=
ibsim_console_holder=
ibsim_keep_trap=1	# report_traps stops ibsim
sides=(files anycpu in-process ibsim)
floor_sides=(floor floor-anycpu floor-epoll)
busy_sides=(files anycpu ibsim floor floor-anycpu)
sweep_sides=(files anycpu ibsim)
sweep_clients=(1 2 4 8 16)
busy_runs=3
busy_pids=()
runs_list=$work/runs

print_table() {
	echo
	echo "files: Debian's libibumad3 through umad kernel's device files (FUSE), umad kernel and"
	echo "  the program on one CPU (its default); UMAD_KERNEL_CPU=any: the same where the scheduler"
	echo "  puts them;"
	echo "in-process: this library, UMAD_BACKEND=sim; ibsim: ibsim and umad2sim."
	echo "floor: bench/fuse_floor.c, a FUSE server that answers at once and a client making"
	echo "  libibumad's requests per MAD (write, poll, read), on one CPU as umad kernel runs, its"
	echo "  server blocking in read(2) on the channel (the floor) or in epoll_wait as kfs_serve;"
	echo "  per MAD: microseconds, 1e6 / the rate (the floor's MADs, the others' round trips);"
	echo "busy: that many shell loops running beside, 3 short runs each way;"
	echo "N dr_rtt at once: all their round trips per second, the first's start to the last's end."
	report_footer files
	if [ -s "$runs_list" ]; then
		echo
		echo "Each run's figure, in the order run:"
		cat "$runs_list"
	fi
}

# start_busy N: N busy loops beside what is measured, each a shell's endless loop.
start_busy() {
	local i
	for i in $(seq "$1"); do
		bash -c 'while :; do :; done' &
		busy_pids+=("$!")
	done
}

# running PID: whether PID is there and not a zombie (one not waited for yet).
running() {
	local state
	state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) || return 1
	[ "$state" != Z ]
}

# stop_busy: the busy loops ended, TERM, then KILL for one still there after a second.
stop_busy() {
	local pid i left
	[ "${#busy_pids[@]}" -gt 0 ] || return 0
	kill -TERM "${busy_pids[@]}" 2>/dev/null || :
	for i in $(seq 10); do
		left=
		for pid in "${busy_pids[@]}"; do
			! running "$pid" || left=1
		done
		[ -n "$left" ] || break
		sleep 0.1
	done
	for pid in "${busy_pids[@]}"; do
		! running "$pid" || kill -KILL "$pid" 2>/dev/null || :
	done
	wait "${busy_pids[@]}" 2>/dev/null || :
	busy_pids=()
}

# stop_servers: what runs beside the measurements stopped, whatever ends the run.
stop_servers() {
	stop_busy
	stop_ibsim
}

report_traps stop_servers

# side_cmd SIDE CMD...: the array cmd, CMD as a client of SIDE's fabric.
side_cmd() {
	local side=$1
	shift
	case $side in
	# Both attach at the same HCA (ibsim's default would be the file's first node, a switch).
	ibsim) cmd=(env SIM_HOST=H1 LD_PRELOAD="$umad2sim" "$@") ;;
	in-process) cmd=(env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim
		UMAD_SIM_TOPOLOGY="$net" UMAD_SIM_HOST=H1 "$@") ;;
	# CMD gets umad kernel's environment: without this library's path, it loads Debian's.
	*) cmd=(env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" "$umad" kernel -t "$net"
		--host H1 --sm none -- env -u LD_LIBRARY_PATH -u UMAD_MODULE_DIR "$@") ;;
	esac
	case $side in
	anycpu) cmd=(env UMAD_KERNEL_CPU=any "${cmd[@]}") ;;
	esac
}

# on SIDE WHAT CMD...: run CMD as a client of SIDE's fabric (report_run).
on() {
	local side=$1 what=$2 sim_status=0
	shift 2
	if [ "$side" = ibsim ] && [ -z "${down[ibsim]}" ] && ! kill -0 "$sim" 2>/dev/null; then
		wait "$sim" 2>/dev/null || sim_status=$?
		failure "ibsim exited (status $sim_status); its last words: $(ibsim_why "$dir/ibsim.log")"
		down[ibsim]="not run $mark"
	fi
	if [ -n "${down[$side]:-}" ]; then
		cell=${down[$side]}
		return 1
	fi
	side_cmd "$side" "$@"
	report_run "$side" "$what" "${cmd[@]}"
}

# per_mad CELL: a rate's cell as microseconds per MAD (1e6 / the rate); a
# cell without a figure as it is.
per_mad() {
	case $1 in
	'' | *[!0-9]*) echo "$1" ;;
	*) awk -v rate="$1" 'BEGIN { if (rate > 0) printf "%.2f\n", 1e6 / rate; else print "-" }' ;;
	esac
}

# busy_rows N MISSING: the rows of the runs with N busy loops beside.
busy_rows() {
	local -n busy=busy$1
	local m=$2 loops="$1 busy loop"
	[ "$1" -eq 1 ] || loops="${loops}s"
	row "DR SMP round trips/s, $loops beside (median of $busy_runs)" "${busy[files]:-$m}" - \
		"${busy[ibsim]:-$m}" ibsim -
	row "the same, UMAD_KERNEL_CPU=any" "${busy[anycpu]:-$m}" - "${busy[ibsim]:-$m}" ibsim -
	row "FUSE path per MAD, $loops, ratio to the floor with them" \
		"$(per_mad "${busy[files]:-$m}")" - "$(per_mad "${busy[ibsim]:-$m}")" \
		"floor=$(per_mad "${busy[floor]:-$m}")" -
	row "the same, UMAD_KERNEL_CPU=any (its floor too)" "$(per_mad "${busy[anycpu]:-$m}")" - - \
		"floor=$(per_mad "${busy[floor-anycpu]:-$m}")" -
}

# sweep_rows N MISSING: the rows of N dr_rtt at once.
sweep_rows() {
	local -n sweep=sweep$1
	local m=$2
	row "$1 dr_rtt at once, round trips/s in all (median of $runs)" "${sweep[files]:-$m}" - \
		"${sweep[ibsim]:-$m}" ibsim -
	row "the same, UMAD_KERNEL_CPU=any" "${sweep[anycpu]:-$m}" - "${sweep[ibsim]:-$m}" ibsim -
}

# set_rows [MISSING]: the rows of the set measured last (or being measured),
# MISSING (default "-") for each figure it lacks.
set_rows() {
	local m=${1:--} target_ibsim=- target_inproc=- floor_us n
	set_open=
	row "DR SMP round trips/s (median of $runs)" "${rtt[files]:-$m}" "${rtt[in-process]:-$m}" \
		"${rtt[ibsim]:-$m}" ibsim "ratio >= 2"
	row "the same, UMAD_KERNEL_CPU=any" "${rtt[anycpu]:-$m}" "${rtt[in-process]:-$m}" \
		"${rtt[ibsim]:-$m}" ibsim -
	floor_us=$(per_mad "${rtt[floor]:-$m}")
	row "FUSE floor per MAD, us (median of $runs)" "$floor_us" - - - -
	row "FUSE path per MAD, ratio to the floor" "$(per_mad "${rtt[files]:-$m}")" \
		"$(per_mad "${rtt[in-process]:-$m}")" "$(per_mad "${rtt[ibsim]:-$m}")" "floor=$floor_us" \
		"ratio <= 1.3"
	row "the same, UMAD_KERNEL_CPU=any (its floor too)" "$(per_mad "${rtt[anycpu]:-$m}")" - - \
		"floor=$(per_mad "${rtt[floor-anycpu]:-$m}")" -
	row "FUSE floor served as kfs_serve serves (epoll), us" "$(per_mad "${rtt[floor-epoll]:-$m}")" \
		- - "floor=$floor_us" -
	busy_rows 1 "$m"
	busy_rows 2 "$m"
	for n in "${sweep_clients[@]}"; do
		sweep_rows "$n" "$m"
	done
	# The issue's targets are for the 11,664-HCA tree (the 3-level k=36 one);
	# on other fabrics the ratios show, with no target.
	if [ "$hcas" -eq 11664 ]; then
		target_ibsim="ratio < 1"
		target_inproc="ratio <= 1.5"
	fi
	row "ibnetdiscover, ms (median of $runs)" "${ibnd[files]:-$m}" "${ibnd[in-process]:-$m}" \
		"${ibnd[ibsim]:-$m}" ibsim "$target_ibsim"
	row "ibnetdiscover against in-process, ms" "${ibnd[files]:-$m}" "${ibnd[in-process]:-$m}" \
		"${ibnd[ibsim]:-$m}" in-process "$target_inproc"
	row "ibnetdiscover, UMAD_KERNEL_CPU=any, ms" "${ibnd[anycpu]:-$m}" "${ibnd[in-process]:-$m}" \
		"${ibnd[ibsim]:-$m}" in-process -
	row "umad kernel -t FILE -- true, ms" "${startup[files]:-$m}" - - - -
}

# rate_of FILE: the round trips per second dr_rtt printed in FILE.
rate_of() { sed -n 's/.*: \([0-9]*\) per second,.*/\1/p' "$1"; }

# complete SIDE WHAT: whether ibnetdiscover's output in $dir/out has every
# switch and HCA of the fabric (if not: a failure, and cell says so).
complete() {
	local found fcas
	found=$(grep -c '^Switch' "$dir/out") || :
	fcas=$(grep -c '^Ca' "$dir/out") || :
	[ "$found" -eq "$switches" ] && [ "$fcas" -eq "$hcas" ] && return 0
	bad "$1" "$2" "found $found of $switches switches and $fcas of $hcas HCAs"
	return 1
}

# floor_run SIDE COUNT: COUNT MADs through the FUSE floor (bench/fuse_floor.c)
# run SIDE's way (report_run).
floor_run() {
	local -a how=()
	case $1 in
	floor-anycpu) how=(env UMAD_KERNEL_CPU=any "$floor" "$2") ;;
	floor-epoll) how=("$floor" "$2" epoll) ;;
	*) how=("$floor" "$2") ;;
	esac
	report_run "$1" fuse_floor "${how[@]}"
}

# The clients of a sweep: sh -c "$clients_script" sh N OUT CMD...: N CMDs at
# once, the output of the i-th in OUT.i.  Its status is 1 when one failed,
# except for those ibsim refused (umad2sim's sim_init could not attach):
# their number goes in OUT.refused.
# shellcheck disable=SC2016 # the inner shell's variables
clients_script='n=$1 out=$2
shift 2
pids= i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	"$@" > "$out.$i" 2>&1 &
	pids="$pids $!"
done
status=0 refused=0 i=0
for pid in $pids; do
	i=$((i + 1))
	wait "$pid" && continue
	if grep -q "sim_init: connect failed" "$out.$i"; then
		refused=$((refused + 1))
	else
		echo "client $i of $n: $(tail -n 1 "$out.$i")" >&2
		status=1
	fi
done
[ "$refused" -eq 0 ] || echo "$refused" > "$out.refused"
exit "$status"'

# sweep_run N SIDE: N dr_rtt at once on SIDE, a fixed number of round trips
# shared among them; clients_rate is all their round trips per second, from
# the first one's start to the last one's end.  1 (cell saying why) if it
# failed, or ibsim refused some (a note, not a failure).
sweep_run() {
	local n=$1 side=$2 total
	case $side in
	files) total=30000 ;;
	anycpu) total=10000 ;;
	ibsim) total=20000 ;;
	esac
	rm -f "$dir/client".*
	on "$side" "$n dr_rtt at once" sh -c "$clients_script" sh "$n" "$dir/client" \
		"$work/dr_rtt" $(( (total + n - 1) / n )) 0,1,1 || return 1
	if [ -f "$dir/client.refused" ]; then
		# A client that could not attach to an ibsim that is gone was not refused.
		if [ "$side" = ibsim ] && ! kill -0 "$sim" 2>/dev/null; then
			bad ibsim "$n dr_rtt at once" "ibsim exited during the run: $(ibsim_why "$dir/ibsim.log")"
			return 1
		fi
		note "$n dr_rtt at once, $side: it attached only $((n - $(cat "$dir/client.refused")))" \
			"of them (the others: $(grep -h -m1 'sim_init' "$dir"/client.[0-9]* | head -n1))"
		cell="not run $mark"
		return 1
	fi
	clients_rate=$(awk -v n="$n" '
		/ per second, / {
			for (i = 1; i < NF; i++)
				if ($i == "from") { start = $(i + 1); end = $(i + 3) }
			if (!got || start < first) first = start
			if (!got || end > last) last = end
			count += $1
			got++
		}
		END { if (got == n && last > first) printf "%.0f\n", count / (last - first) }' \
		"$dir"/client.[0-9]*)
	if [ -z "$clients_rate" ]; then
		bad "$side" "$n dr_rtt at once" \
			"not every client printed its rate and span: $(last_words "$dir/client.1")"
		return 1
	fi
}

# one_run KIND SIDE: one run of KIND on SIDE, its figure added to
# $dir/KIND.SIDE: rtt, DR SMP round trips per second (bench/dr_rtt.c), or
# the floor's MADs per second (bench/fuse_floor.c) on a floor side; busyN
# the same in short runs (with N busy loops beside); sweepN, the round trips
# per second of N dr_rtt at once; ibnd, ibnetdiscover's wall time in ms.  1
# (a failure noted, cell saying so) if it failed.
one_run() {
	local rate count what=dr_rtt
	case $1 in
	rtt | busy*)
		# About a second each, for what each side does on an idle machine.
		case $2 in
		files | floor | floor-epoll) count=30000 ;;
		anycpu | floor-anycpu) count=10000 ;;
		in-process) count=200000 ;;
		ibsim) count=5000 ;;
		esac
		[ "$1" = rtt ] || count=$((count / 4))
		case $2 in
		floor*) what=fuse_floor; floor_run "$2" "$count" || return 1 ;;
		*) on "$2" dr_rtt "$work/dr_rtt" "$count" 0,1,1 || return 1 ;;
		esac
		rate=$(rate_of "$dir/out")
		if [ -z "$rate" ]; then
			bad "$2" "$what" "no rate in its output: $(last_words "$dir/out")"
			return 1
		fi
		echo "$rate" >> "$dir/$1.$2" ;;
	sweep*)
		sweep_run "${1#sweep}" "$2" || return 1
		echo "$clients_rate" >> "$dir/$1.$2" ;;
	ibnd)
		on "$2" ibnetdiscover ibnetdiscover && complete "$2" ibnetdiscover || return 1
		echo "$elapsed_ms" >> "$dir/ibnd.$2" ;;
	esac
}

# round_robin KIND LABEL RESULTS RUNS SIDE...: RUNS runs of KIND (one_run)
# on each SIDE, the order turning from run to run, so that drift in the
# machine's load hits every side alike; RESULTS (an associative array's
# name) gets each side's median, or why it has none, and each run's figure
# is listed.
round_robin() {
	local kind=$1 label=$2 rr_runs=$4 i j side
	local -n results=$3
	local -A broken=()
	shift 4
	local -a rr_sides=("$@")
	local n=${#rr_sides[@]}
	for side in "${rr_sides[@]}"; do
		: > "$dir/$kind.$side"
		broken[$side]=${down[$side]:-}
	done
	for i in $(seq "$rr_runs"); do
		for j in $(seq 0 $((n - 1))); do
			side=${rr_sides[$(( (i + j) % n ))]}
			[ -z "${broken[$side]}" ] || continue
			progress "$label, $side, run $i of $rr_runs"
			one_run "$kind" "$side" || broken[$side]=$cell
		done
	done
	for side in "${rr_sides[@]}"; do
		# shellcheck disable=SC2034,SC2004 # the caller's associative array
		results[$side]=${broken[$side]:-$(median_of "$dir/$kind.$side")}
		printf '  %s, %s: %s\n' "$label" "$side" "$(tr '\n' ' ' < "$dir/$kind.$side")" >> "$runs_list"
	done
}

# measure_set K LEVELS RUNS DIR: one set of measurements, its rows added to the table.
measure_set() {
	local i n
	declare -gA down=([ibsim]='' [floor]=$floor_down [floor-anycpu]=$floor_down
		[floor-epoll]=$floor_down)
	declare -gA rtt=() ibnd=() startup=()
	# Emptied for this set: busy_rows and sweep_rows read them by name.
	for n in busy1 busy2 "${sweep_clients[@]/#/sweep}"; do
		unset "$n"
		declare -gA "$n"
	done
	set_begin "$@" || return 0
	echo "$title:" >> "$runs_list"

	if ! ibsim_left_out; then
		phase="$title: loading it in ibsim"
		progress "loading the fabric in ibsim"
		start_ibsim_set || :
	fi

	# The program through the files must load Debian's library, not this one.
	phase="$title: the library the program loads"
	if on files "ldd dr_rtt" ldd "$work/dr_rtt"; then
		if grep -q "$libs" "$dir/out" || ! grep -q 'libibumad.so.3 => /' "$dir/out"; then
			failure "through the files, dr_rtt does not load Debian's libibumad.so.3: $(grep libibumad "$dir/out" || echo none)"
			down[files]="failed $mark"
		fi
	else
		down[files]=$cell
	fi
	down[anycpu]=${down[files]:-}

	phase="$title: DR SMP round trips and the FUSE floor"
	round_robin rtt "DR SMP round trips/s" rtt "$runs" "${sides[@]}" "${floor_sides[@]}"
	for n in 1 2; do
		phase="$title: round trips with $n busy loop(s) beside"
		start_busy "$n"
		round_robin "busy$n" "round trips/s, $n busy" "busy$n" "$busy_runs" "${busy_sides[@]}"
		stop_busy
	done
	for n in "${sweep_clients[@]}"; do
		phase="$title: $n dr_rtt at once"
		round_robin "sweep$n" "$n dr_rtt at once, round trips/s" "sweep$n" "$runs" \
			"${sweep_sides[@]}"
	done
	phase="$title: ibnetdiscover"
	round_robin ibnd "ibnetdiscover, ms" ibnd "$runs" "${sides[@]}"

	phase="$title: umad kernel -- true"
	: > "$dir/start"
	startup[files]=${down[files]:-}
	for i in $(seq "$runs"); do
		[ -z "${startup[files]}" ] || break
		progress "umad kernel -- true, run $i of $runs"
		if on files "umad kernel -- true" true; then
			echo "$elapsed_ms" >> "$dir/start"
		else
			startup[files]=$cell
		fi
	done
	[ -n "${startup[files]}" ] || startup[files]=$(median_of "$dir/start")

	phase="$title: stopping ibsim"
	set_rows
	stop_ibsim
}

# --- PERF=1: where one ibnetdiscover's time goes ---------------------------------------

# perf_failed TEXT: a step of PERF=1 that failed, said where its figures
# would be (the notes are printed already); the run will exit 1.
perf_failed() {
	failed=1
	echo "  $*"
}

# perf_run NAME PERF-ARGS...: perf PERF-ARGS on one ibnetdiscover through
# the files ($perf_side's way), the server's pid left in $out/NAME.server.pid
# and the program's in $out/NAME.program.pid; its output in
# $out/NAME.{out,err}.  1 if it failed.
perf_run() {
	local name=$1 say_pid
	shift
	# Each process says its pid, then becomes what it runs (exec keeps the pid).
	# shellcheck disable=SC2016 # the inner shell's $$ and arguments
	say_pid='echo $$ > "$1"; shift; exec "$@"'
	side_cmd "$perf_side" sh -c "$say_pid" sh "$out/$name.program.pid" ibnetdiscover
	run_limited "$((limit * 4))" "$out/$name.out" "$out/$name.err" perf "$@" -- \
		sh -c "$say_pid" sh "$out/$name.server.pid" "${cmd[@]}"
}

# perf_where DIR: where the time of one ibnetdiscover through the files goes,
# on the last set's fabric, printed; the data kept in DIR.
perf_where() {
	local mads status=0 opcode
	local -a fuse_events=()
	out=$1
	mkdir -p "$out"
	echo
	echo "Where the time goes: one ibnetdiscover through the files, $perf_side ($title)"

	# Counts per task (inherited by the children): they slow every context
	# switch, so their wall time is not the table's.  FUSE requests by kind:
	# FUSE_READ 15, FUSE_WRITE 16, FUSE_POLL 40, then all.
	for opcode in 15 16 40; do
		fuse_events+=(-e fuse:fuse_request_send --filter "opcode == $opcode")
	done
	progress "perf stat"
	if ! perf_run stat stat -x, -o "$out/stat.csv" "${fuse_events[@]}" -e fuse:fuse_request_send \
		-e context-switches,cpu-migrations,task-clock,sched:sched_wakeup,raw_syscalls:sys_enter; then
		perf_failed "perf stat failed: $(last_words "$out/stat.err" "$out/stat.csv")"
		return 0
	fi
	awk -F, 'NF > 3 && $1 ~ /^[0-9.]+$/ {
		name = $3
		if (name == "fuse:fuse_request_send") name = "fuse." (++fuse)
		print name, $1 }' "$out/stat.csv" > "$out/counts"
	mads=$(awk '$1 == "fuse.2" { print $2 }' "$out/counts")
	if [ -z "$mads" ] || [ "$mads" -eq 0 ]; then
		perf_failed "perf stat counted no FUSE write: $(last_words "$out/stat.err" "$out/stat.csv")"
		return 0
	fi
	echo "  Counts (perf stat, per task: the program, umad kernel and their threads):"
	awk -v mads="$mads" '
		{ v[$1] = $2 }
		END {
			printf "    %d MADs (FUSE writes)\n", mads
			printf "    FUSE requests: %d, %.2f per MAD (read %.2f, write %.2f, poll %.2f, other %.2f)\n",
				v["fuse.4"], v["fuse.4"] / mads, v["fuse.1"] / mads, v["fuse.2"] / mads,
				v["fuse.3"] / mads, (v["fuse.4"] - v["fuse.1"] - v["fuse.2"] - v["fuse.3"]) / mads
			printf "    per MAD: %.2f context switches, %.2f wake-ups, %.1f system calls, %.2f CPU migrations\n",
				v["context-switches"] / mads, v["sched:sched_wakeup"] / mads,
				v["raw_syscalls:sys_enter"] / mads, v["cpu-migrations"] / mads
		}' "$out/counts"

	# Sampling every CPU: no cost at a context switch, and idle CPUs and
	# other processes show.
	progress "perf record"
	if ! perf_run record record -a -g -F 999 -e cpu-clock -o "$out/perf.data" ||
		! perf script -i "$out/perf.data" -F comm,pid,tid,time,ip,sym,dso > "$out/script" \
			2> "$out/script.err"; then
		perf_failed "perf record failed: $(last_words "$out/record.err" "$out/script.err")"
		return 0
	fi
	echo "  The machine's time by who used it and how (perf record -a, cpu-clock at 999 Hz;"
	echo "  % of the wall time times $(getconf _NPROCESSORS_ONLN) CPUs):"
	awk -v hz=999 -v cpus="$(getconf _NPROCESSORS_ONLN)" \
		-v server="$(cat "$out/record.server.pid")" -v program_pid="$(cat "$out/record.program.pid")" \
		-f "$top_srcdir/bench/perf-where.awk" "$out/script" || status=1

	progress "perf trace"
	if ! perf_run trace trace -s -o "$out/trace.txt"; then
		perf_failed "perf trace failed: $(last_words "$out/trace.err")"
		return 0
	fi
	echo "  System calls per MAD, and their mean time (perf trace -s, which slows every call):"
	awk -v mads="$mads" -v server="$(cat "$out/trace.server.pid")" '
		/^ [^ ].* \([0-9]+\), [0-9]+ events/ {
			tid = $2
			gsub(/[(),]/, "", tid)
			who = tid == server ? "server, main thread" : $1 " (thread " tid ")"
			next
		}
		who != "" && $1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9.]+$/ {
			if ($2 / mads < 0.05) next
			line[who] = line[who] sprintf("  %s %.2f (%.1f us)", $1, $2 / mads, $4 * 1000 / $2)
		}
		END { for (t in line) printf "    %s:%s\n", t, line[t] }' "$out/trace.txt" | sort
	return "$status"
}

phase="building bench/dr_rtt.c"
# Against Debian's libibumad3 (its headers and library), as a program built elsewhere is.
${CC:-cc} -O2 -o "$work/dr_rtt" "$top_srcdir/bench/dr_rtt.c" -libumad
phase="building bench/fuse_floor.c"
floor=$top_builddir/bench/fuse_floor
floor_down=
if ! make -s -C "$top_builddir" bench/fuse_floor > "$work/floor-build.log" 2>&1; then
	failure "make bench/fuse_floor: $(last_words "$work/floor-build.log")"
	floor_down="failed $mark"
fi
measure_sets "$@"
if [ -n "$perf_side" ] && [ -f "${net:-}" ]; then
	phase="perf"
	perf_out=${PERF_KEEP:-$work/perf}
	perf_where "$perf_out" || failed=1
	[ -z "${PERF_KEEP:-}" ] || echo "  (perf data and reports in $perf_out)"
fi
