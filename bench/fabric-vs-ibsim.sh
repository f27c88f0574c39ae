#!/bin/bash
# Benchmark: the shared fabric (umad fabric serve, clients in other
# processes) against the in-process simulator and ibsim+umad2sim, in one run,
# on fat trees from scripts/gen-fattree: one set of measurements for each
# K LEVELS RUNS given.  Each set:
#  1. loads the fabric in umad fabric serve and in ibsim: the time until each
#     answers (ours: listening; ibsim: parsed and bound, scripts/ibsim-session.sh)
#     and its peak memory;
#  2. DR SMP round trips per second from one client (bench/dr_rtt.c; the
#     same binary in-process, on the shared fabric, and under ibsim; on the
#     shared fabric the client answers them itself, and once more with
#     UMAD_SIM_FABRIC_SMP=server, as a client that does not map the fabric;
#     and as a client over TCP on the loopback, which maps nothing);
#     then the same beside busy loops: through the server (the mailbox),
#     over TCP and under ibsim, each with 1 and then 2 busy loops beside
#     (CPU-bound sh loops the bench starts and stops, TERM then KILL, on
#     every way out: bench/report.sh), each figure the median of SHORT_RUNS
#     short runs, the order of the three sides turning from run to run, as
#     busy figures are noisy; targets: over TCP at least ibsim's in the same
#     conditions, through the server at least 3 times it;
#     then a clients sweep: 1, 2, 4, 8 and 16 dr_rtt processes at once, at
#     HCAs H1..HN, over TCP, through the server and under ibsim (one ibsim,
#     N clients under umad2sim), a total split evenly among them; each is
#     told when to begin (dr_rtt's START, once all have had time to open
#     their port), and the figure is the aggregate: all their round trips
#     divided by the span from the first one's beginning to the last one's
#     end (dr_rtt prints both), so that a client left to run alone at the
#     end does not count as running at once; the median of SHORT_RUNS runs,
#     the sides turning.  Targets: over TCP, 16 clients at least twice
#     ibsim's 16 (ibsim 0.10 takes at most 10 clients at once: its 16 is a
#     note, and a row compares with its 8 instead), and at least our own
#     1-client aggregate.  Clients that began further apart than a tenth of
#     their span get a note.  Beside them, in the same turns, the TCP floor
#     (bench/tcp_floor.c): as many clients and round trips, the same sizes,
#     against a server that does no work: what the machine's loopback TCP
#     allows, and a note when a target lies above it;
#  3. ibnetdiscover's wall time, median of RUNS runs each way, the order of
#     the three turning from run to run; a run that does not find every
#     switch and HCA of the file fails; then as many runs over TCP; then
#     RUNS runs each, in-process and over TCP, beside 1 busy loop (target at
#     11,664 HCAs: over TCP at most 2.5 times in-process);
#  4. opensm -o (one sweep to SUBNET UP) on a fabric as loaded (a second
#     sweep would find the LIDs already set: the servers start again between
#     runs), median of RUNS runs each way, the order turning: wall, and the
#     CPU time the fabric's server spent on it (ours: umad fabric serve;
#     ibsim's: ibsim).
# At the end, one table (bench/table.awk): a row per measurement, the three
# sides, the ratio of the shared fabric's figure to the side the row compares
# it with, the issue's target and whether this run met it, computed from the
# figures.  A figure that is missing reads "failed [n]" or "not run [n]";
# note n, under the table, says why.  A tool that exits non-zero or runs out
# of time, or a server that fails, makes the exit status 1, after the table;
# ibsim unable to load a fabric (its limits, its time) is a note, not a
# failure: it is not ours.  Every fabric starts without an SM
# (UMAD_SIM_SM=none), as ibsim's does.
# Environment:
#   NO_IBSIM=1             leave ibsim out;
#   SHORT_RUNS=N           the runs whose median is a figure beside busy loops
#                          and of the clients sweep (default 3);
#   BENCH_TIMEOUT=S        the time each tool run (and our server's load) may
#                          take, in seconds (default 120 + HCAs / 20);
#   IBSIM_READY_TIMEOUT=S  the time ibsim may take to load (default 60 + HCAs / 50);
#   IBSIM_OPENSM_MAX_HCAS  the largest fabric on which opensm runs under ibsim
#                          (default 11664: the issue asks for ibsim's sweep up
#                          to 11,664 HCAs, and ibsim's time for it grows
#                          faster than the fabric: ibsim-peer.md's table).
# Usage: bench/fabric-vs-ibsim.sh [K LEVELS RUNS]...   (from the build
# directory; default 36 2 5).  make bench runs 36 2 5  36 3 3  60 3 1.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -eu
[ $# -gt 0 ] || set -- 36 2 5
# shellcheck source=bench/report.sh
. "${top_srcdir:-$(dirname "$0")/..}/bench/report.sh"
bench_sets_check "$@"
# The runs of each cell beside busy loops and of the clients sweep: short
# runs, whose median is the figure.
short_runs=${SHORT_RUNS:-3}
case $short_runs in
'' | *[!0-9]*) short_runs=0 ;;
esac
[ "$short_runs" -ge 1 ] || { echo "$0: SHORT_RUNS must be a number, at least 1" >&2; exit 2; }
bench_paths ibnetdiscover opensm timeout
# shellcheck source=bench/timing.sh
. "$top_srcdir/bench/timing.sh"
# shellcheck source=scripts/ibsim-session.sh
. "$top_srcdir/scripts/ibsim-session.sh"
export UMAD_SIM_SM=none

report_start
(umask 077; head -c 32 /dev/urandom | base64 > "$work/key")	# the TCP clients' key
server=
sim=
ibsim_console_holder=
ibsim_keep_trap=1	# report_traps stops ibsim

print_table() {
	echo
	echo "shared: umad fabric serve and clients in other processes (UMAD_SIM_FABRIC);"
	echo "in-process: the simulator in the client (UMAD_SIM_TOPOLOGY); ibsim: ibsim and umad2sim."
	echo "DR RT, N busy loops: DR SMP round trips/s with N CPU-bound loops beside, median of $short_runs runs;"
	echo "aggregate, N clients: DR SMP round trips/s of N at once (all round trips / their span), median of $short_runs."
	echo "TCP floor: bench/tcp_floor.c, N clients and a server that does no work, the same round trips"
	echo "  (sizes, TCP_NODELAY, epoll): what the loopback's TCP allows on this machine."
	report_footer shared
}

stop_server() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || :
		wait "$server" 2>/dev/null || :
		server=
	fi
}

stop_servers() {
	stop_server
	stop_ibsim
}
report_traps stop_servers

# cpu_ms PID: the CPU time (user + system) a process has used, in milliseconds.
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$1/stat"
}
# peak_mb PID: a process's peak resident memory, in MB.
peak_mb() { awk '/^VmHWM/ { printf "%d\n", $2 / 1024 }' "/proc/$1/status"; }

# server_of SIDE: the pid of SIDE's server (none in-process).
server_of() {
	case $1 in
	shared | via-server | tcp) echo "$server" ;;
	ibsim) echo "$sim" ;;
	esac
}

# up SIDE: whether SIDE's fabric can take a client; if not, sets cell to why.
up() {
	local status=0 pid how side=$1
	[ "$side" != in-process ] || return 0
	# One server serves the shared fabric's clients, mapping it or not, and those over TCP.
	case $side in via-server | tcp) side=shared ;; esac
	[ -z "${down[$side]}" ] || { cell=${down[$side]}; return 1; }
	pid=$(server_of "$side")
	kill -0 "$pid" 2>/dev/null && return 0
	wait "$pid" 2>/dev/null || status=$?
	if [ "$status" -gt 128 ]; then
		how="was killed by signal $((status - 128))"
	else
		how="exited with status $status"
	fi
	if [ "$side" = shared ]; then
		failure "umad fabric serve $how; its last words: $(last_words "$dir/serve.err")"
	else
		failure "ibsim $how; its last words: $(ibsim_why "$dir/ibsim.log")"
	fi
	down[$side]="not run $mark"
	cell=${down[$side]}
	return 1
}

# side_env SIDE HOST: in side_cmd, the env(1) command that makes what follows
# it a client of SIDE's fabric attached at HCA HOST: in-process, shared (the
# client answers SMPs itself), via-server (the same fabric, SMPs through the
# server: UMAD_SIM_FABRIC_SMP=server, the mailbox), tcp or ibsim.
side_env() {
	local base=(env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim UMAD_SIM_HOST="$2")
	case $1 in
	in-process) side_cmd=("${base[@]}" UMAD_SIM_TOPOLOGY="$net") ;;
	shared) side_cmd=("${base[@]}" UMAD_SIM_FABRIC="$sock") ;;
	via-server) side_cmd=("${base[@]}" UMAD_SIM_FABRIC="$sock" UMAD_SIM_FABRIC_SMP=server) ;;
	tcp) side_cmd=("${base[@]}" UMAD_SIM_FABRIC="tcp:$tcp_at" UMAD_SIM_FABRIC_KEY="$work/key") ;;
	# ibsim's default would be the file's first node, a switch.
	ibsim) side_cmd=(env SIM_HOST="$2" LD_PRELOAD="$umad2sim") ;;
	esac
}

# on SIDE WHAT [NAME=VALUE...] CMD...: run CMD as a client of SIDE's fabric
# (side_env), attached at H1 on every side: report_run.
on() {
	local side=$1 what=$2
	shift 2
	up "$side" || return 1
	side_env "$side" H1
	report_run "$side" "$what" "${side_cmd[@]}" "$@"
}

# rtt_once SIDE WHAT COUNT: COUNT DR SMP round trips from one client of SIDE's
# fabric (on); rate is their rate per second, or, with status 1, the cell
# saying why there is none.
rtt_once() {
	if ! on "$1" "$2" "$work/dr_rtt" "$3" 0,1,1; then
		rate=$cell
		return 1
	fi
	rate=$(sed -n 's/.*: \([0-9]*\) per second,.*/\1/p' "$dir/out")
	[ -z "$rate" ] || return 0
	bad "$1" "$2" "no rate in its output: $(last_words "$dir/out")"
	rate=$cell
	return 1
}

# found_all SIDE WHAT: whether the ibnetdiscover whose output is $dir/out
# found every switch and HCA of the file; if not, bad says what it found.
found_all() {
	local found fcas
	found=$(grep -c '^Switch' "$dir/out") || :
	fcas=$(grep -c '^Ca' "$dir/out") || :
	[ "$found" -eq "$switches" ] && [ "$fcas" -eq "$hcas" ] && return 0
	bad "$1" "$2" "found $found of $switches switches and $fcas of $hcas HCAs"
	return 1
}

# Round trips per run beside busy loops, and in all per run of the sweep
# (TOTAL/N per client).
declare -A busy_count=([via-server]=50000 [tcp]=10000 [ibsim]=5000)
declare -A sweep_total=([via-server]=400000 [tcp]=40000 [ibsim]=20000)
sweep_sizes="1 2 4 8 16"
# The clients' START is 100 ms after the bench starts them, and this many ms
# more per client: one under umad2sim takes longer to attach to ibsim than ours.
declare -A sweep_lead_ms=([via-server]=40 [tcp]=40 [ibsim]=100)
sweep_n=	# the clients at once of the sweep's run under way
beside=	# what runs beside the tool (", 1 busy loop"), for the notes

# rtt_what SIDE: what the notes call dr_rtt on SIDE.
rtt_what() {
	case $1 in
	via-server) echo "dr_rtt (SMPs through the server)" ;;
	tcp) echo "dr_rtt (over TCP)" ;;
	*) echo dr_rtt ;;
	esac
}

# turning RUNS WHAT FN SIDE...: FN SIDE run RUNS times for each SIDE, the order
# of the sides turning from run to run.  FN leaves its figure in once, or
# returns 1 with cell saying why there is none (SIDE is then not run again).
# figure[SIDE] is the median of SIDE's figures, or that cell.
declare -A figure=()
turning() {
	local runs=$1 what=$2 fn=$3 i j side each=
	shift 3
	local -a order=("$@")
	local -A broken=()
	[ $# -lt 2 ] || each=" each way"
	for side; do
		: > "$dir/turning.$side"
		broken[$side]=
	done
	for i in $(seq "$runs"); do
		progress "$what, run $i of $runs$each"
		for j in "${!order[@]}"; do
			side=${order[$(( (i + j) % ${#order[@]} ))]}
			[ -z "${broken[$side]}" ] || continue
			if "$fn" "$side"; then
				echo "$once" >> "$dir/turning.$side"
			else
				broken[$side]=$cell
			fi
		done
	done
	for side; do
		figure[$side]=${broken[$side]:-$(median_of "$dir/turning.$side")}
	done
}

# ibnd_once SIDE: one ibnetdiscover on SIDE that finds the whole fabric: its wall time.
ibnd_once() {
	local what=ibnetdiscover
	[ "$1" != tcp ] || what="ibnetdiscover (over TCP)"
	on "$1" "$what$beside" ibnetdiscover && found_all "$1" "$what$beside" || return 1
	once=$elapsed_ms
}

# busy_rtt_once SIDE: DR SMP round trips per second, a short run beside busy loops.
busy_rtt_once() {
	rtt_once "$1" "$(rtt_what "$1")$beside" "${busy_count[$1]}" || return 1
	once=$rate
}

# measure_busy_rtt: busy_rtt[LOOPS,SIDE] for 1 and 2 busy loops, the
# mailbox, TCP and ibsim each.
measure_busy_rtt() {
	local loops side
	for loops in 1 2; do
		beside=", $loops busy loop"
		[ "$loops" -eq 1 ] || beside+=s
		busy_start "$loops"
		turning "$short_runs" "DR SMP round trips$beside" busy_rtt_once via-server tcp ibsim
		busy_stop
		for side in via-server tcp ibsim; do
			busy_rtt[$loops,$side]=${figure[$side]}
		done
	done
	beside=
}

# clients_run SIDE N TOTAL: N dr_rtt processes at once, clients of SIDE's
# fabric at HCAs H1..HN, TOTAL/N round trips each, all told to begin at one
# instant (dr_rtt's START, late enough for each to have opened its port).
# agg is their aggregate: all their round trips over the span from the
# first one's beginning to the last one's end; spread_ms is how far apart
# they began, span_ms that span.  Status 1, cell saying why, if a client
# failed; ibsim taking fewer clients than N is a note, not a failure.
clients_run() {
	local side=$1 n=$2 each=$(($3 / $2)) i at status why='' refused=0 now_refused figures
	local refusal="can't open new connection"	# ibsim's words for a client beyond its limit
	up "$side" || return 1
	[ "$side" != ibsim ] || refused=$(grep -c "$refusal" "$dir/ibsim.log") || :
	rm -f "$dir"/client*.out "$dir"/client*.err
	at=$(($(now_us) + 100000 + n * ${sweep_lead_ms[$side]} * 1000))
	at=$((at / 1000000)).$(printf %06d $((at % 1000000)))
	for i in $(seq "$n"); do
		side_env "$side" "H$i"
		timeout -k 10 "$limit" "${side_cmd[@]}" "$work/dr_rtt" "$each" 0,1,1 "$at" \
			> "$dir/client$i.out" 2> "$dir/client$i.err" &
		client_pids+=("$!")
	done
	for i in $(seq "$n"); do
		status=0
		wait "${client_pids[i - 1]}" || status=$?
		if [ "$status" -eq 0 ] || [ -n "$why" ]; then
			continue
		fi
		case $status in
		124 | 137) why="client $i of $n ran out of time ($limit s)" ;;
		*) why="client $i of $n: exit status $status: $(last_words "$dir/client$i.err" "$dir/client$i.out")" ;;
		esac
	done
	client_pids=()
	if [ -n "$why" ] && [ "$side" = ibsim ]; then
		now_refused=$(grep -c "$refusal" "$dir/ibsim.log") || :
		if [ "$now_refused" -gt "$refused" ]; then
			note "ibsim took $((n - now_refused + refused)) of $n clients at once, refusing the others" \
				"(its log: $(grep -m1 -o "sim_ctl_new_client: $refusal.*" "$dir/ibsim.log" | cut -c1-100)): no aggregate for $n"
			cell="not run $mark"
			return 1
		fi
	fi
	if [ -n "$why" ]; then
		failure "dr_rtt, $n clients at once, $side: $why"
		cell="failed $mark"
		return 1
	fi
	if ! figures=$(awk -v want="$n" '
		/ DR SMP round trips .*, from [0-9.]+ to [0-9.]+ s$/ {
			got++
			total += $1
			if (got == 1 || $(NF - 3) < first) first = $(NF - 3)
			if (got == 1 || $(NF - 3) > late) late = $(NF - 3)
			if (got == 1 || $(NF - 1) > last) last = $(NF - 1)
		}
		END {
			if (got != want || last <= first) exit 1
			printf "%.0f %.0f %.0f\n", total / (last - first), (late - first) * 1000, (last - first) * 1000
		}' "$dir"/client*.out); then
		failure "dr_rtt, $n clients at once, $side: not $n rates with their span in their output" \
			"($(last_words "$dir/client1.out"))"
		cell="failed $mark"
		return 1
	fi
	read -r agg spread_ms span_ms <<< "$figures"
}

# sweep_once SIDE: the aggregate of $sweep_n clients of SIDE at once; a note
# (its mark in sweep_mark) when they began further apart than a tenth of their span.
sweep_once() {
	if [ "$1" = floor ]; then
		floor_once
		return
	fi
	clients_run "$1" "$sweep_n" "${sweep_total[$1]}" || return 1
	once=$agg
	if [ $((spread_ms * 10)) -gt "$span_ms" ] && [ -z "${sweep_mark[$1,$sweep_n]:-}" ]; then
		note "$sweep_n clients at once, $1: they began up to $spread_ms ms apart, in a span of $span_ms ms" \
			"(some had not opened their port by the start they were given, or got no CPU at it)"
		sweep_mark[$1,$sweep_n]=" $mark"
	fi
}

# floor_once: the TCP floor's aggregate for $sweep_n clients at once
# (bench/tcp_floor.c: a server that does no work, as many round trips).
floor_once() {
	local each=$((sweep_total[tcp] / sweep_n))
	report_run floor "tcp_floor, $sweep_n clients" "$work/tcp_floor" "$sweep_n" "$each" || return 1
	once=$(awk '/ over TCP with nothing served: [0-9]+ per second$/ { print $(NF - 2) }' "$dir/out")
	if [ -z "$once" ]; then
		bad floor "tcp_floor, $sweep_n clients" "no rate in its output ($(last_words "$dir/out"))"
		return 1
	fi
}

# measure_sweep: sweep[SIDE,N] for N clients at once over TCP, through the
# mailbox and under ibsim, N from 1 to 16.
measure_sweep() {
	local side
	for sweep_n in $sweep_sizes; do
		# Each client has an HCA of its own, H1..HN.
		if [ "$sweep_n" -gt "$hcas" ]; then
			note "$sweep_n clients at once: not run, the fabric has $hcas HCAs"
			for side in tcp via-server ibsim floor; do
				sweep[$side,$sweep_n]="not run $mark"
			done
			continue
		fi
		turning "$short_runs" "$sweep_n clients at once" sweep_once tcp via-server ibsim floor
		for side in tcp via-server ibsim floor; do
			sweep[$side,$sweep_n]=${figure[$side]}${sweep_mark[$side,$sweep_n]:-}
		done
	done
	# A target above the floor cannot be met by any server on this machine: say so beside it.
	above_floor "twice ibsim's 8" "${sweep[ibsim,8]:-}" 2
	above_floor "our own 1-client aggregate (a client that spins while the server answers)" \
		"${sweep[tcp,1]:-}" 1
}

# above_floor WHAT FIGURE FACTOR: a note when FACTOR times FIGURE, a target for
# 16 clients over TCP, lies above the TCP floor's 16 clients.
above_floor() {
	local floor16=${sweep[floor,16]:-} figure=$2
	case "$floor16.$figure" in
	*[!0-9.]* | .* | *.) return 0 ;;
	esac
	[ $(($3 * figure)) -gt "$floor16" ] || return 0
	note "16 clients over TCP: $1 ($(($3 * figure))) is above the TCP floor's 16 clients" \
		"($floor16, bench/tcp_floor.c: a server that does no work) on this machine in this run"
}

# busy_rows MEASUREMENT SIDE TARGET: the rows of SIDE's DR round trips beside
# 1 and 2 busy loops, against ibsim's beside as many.
busy_rows() {
	local loops
	for loops in 1 2; do
		row "$1, $loops busy loop$([ "$loops" -eq 1 ] || echo s)" "${busy_rtt[$loops,$2]:-$m}" - \
			"${busy_rtt[$loops,ibsim]:-$m}" ibsim "$3"
	done
}

# set_rows [MISSING]: the rows of the set measured last (or being measured),
# MISSING (default "-") for each figure it lacks.
set_rows() {
	local m=${1:--} target n
	set_open=
	row "servers' load, ms" "${load[shared]:-$m}" - "${load[ibsim]:-$m}" ibsim "shared < 2000"
	row "servers' peak memory after load, MB" "${mem[shared]:-$m}" - "${mem[ibsim]:-$m}" ibsim "shared < 500"
	row "servers' peak memory at the end, MB" "${mem_end[shared]:-$m}" - "${mem_end[ibsim]:-$m}" ibsim -
	row "DR SMP round trips/s, one client" "${rtt[shared]:-$m}" "${rtt[in-process]:-$m}" \
		"${rtt[ibsim]:-$m}" ibsim "shared >= 100000"
	row "the same, SMPs through the server" "${rtt[via-server]:-$m}" - "${rtt[ibsim]:-$m}" ibsim -
	busy_rows "DR RT through the server (mailbox)" via-server "ratio >= 3"
	row "the same over TCP (loopback)" "${rtt[tcp]:-$m}" - "${rtt[ibsim]:-$m}" ibsim "ratio >= 5"
	busy_rows "DR RT over TCP" tcp "ratio >= 1"
	for n in $sweep_sizes; do
		if [ "$n" -eq 16 ]; then target="ratio >= 2"; else target=-; fi
		row "aggregate over TCP, $n client$([ "$n" -eq 1 ] || echo s)" "${sweep[tcp,$n]:-$m}" - \
			"${sweep[ibsim,$n]:-$m}" ibsim "$target"
	done
	# ibsim takes at most 10 clients at once (0.10's build): 8 is its nearest figure to 16.
	row "aggregate over TCP, 16 clients, against ibsim's 8" "${sweep[tcp,16]:-$m}" - \
		"${sweep[ibsim,8]:-$m}" ibsim "ratio >= 2"
	row "aggregate over TCP, 16 clients, against 1 client" "${sweep[tcp,16]:-$m}" - - \
		"1 client=${sweep[tcp,1]:-$m}" "ratio >= 1"
	for n in $sweep_sizes; do
		row "TCP floor (nothing served), $n client$([ "$n" -eq 1 ] || echo s)" "${sweep[floor,$n]:-$m}" - \
			"${sweep[ibsim,$n]:-$m}" ibsim -
	done
	row "aggregate over TCP, 16 clients, against the TCP floor" "${sweep[tcp,16]:-$m}" - - \
		"floor=${sweep[floor,16]:-$m}" -
	for n in $sweep_sizes; do
		row "aggregate through the server (mailbox), $n client$([ "$n" -eq 1 ] || echo s)" \
			"${sweep[via-server,$n]:-$m}" - "${sweep[ibsim,$n]:-$m}" ibsim -
	done
	row "ibnetdiscover, ms (median of $runs)" "${ibnd[shared]:-$m}" "${ibnd[in-process]:-$m}" \
		"${ibnd[ibsim]:-$m}" in-process "ratio <= 1.5"
	# The issue asks for ibnetdiscover twice as fast as under ibsim at 11,664 HCAs
	# (the 3-level k=36 tree); on the other fabrics the ratio shows, with no target.
	if [ "$hcas" -eq 11664 ]; then target="ratio <= 0.5"; else target=-; fi
	row "ibnetdiscover against ibsim, ms" "${ibnd[shared]:-$m}" "${ibnd[in-process]:-$m}" \
		"${ibnd[ibsim]:-$m}" ibsim "$target"
	# From a client over TCP: at 11,664 HCAs at most twice in-process, and faster than ibsim.
	if [ "$hcas" -eq 11664 ]; then target="ratio <= 2"; else target=-; fi
	row "ibnetdiscover over TCP, ms" "${ibnd[tcp]:-$m}" "${ibnd[in-process]:-$m}" \
		"${ibnd[ibsim]:-$m}" in-process "$target"
	if [ "$hcas" -eq 11664 ]; then target="ratio < 1"; else target=-; fi
	row "ibnetdiscover over TCP against ibsim, ms" "${ibnd[tcp]:-$m}" "${ibnd[in-process]:-$m}" \
		"${ibnd[ibsim]:-$m}" ibsim "$target"
	if [ "$hcas" -eq 11664 ]; then target="ratio <= 2.5"; else target=-; fi
	row "ibnetdiscover over TCP, 1 busy loop" "${ibnd_busy[tcp]:-$m}" "${ibnd_busy[in-process]:-$m}" - \
		in-process "$target"
	row "opensm -o, ms (median of $runs)" "${osm[shared]:-$m}" "${osm[in-process]:-$m}" \
		"${osm[ibsim]:-$m}" ibsim "ratio < 1"
	row "opensm -o: server's CPU, ms" "${cpu[shared]:-$m}" - "${cpu[ibsim]:-$m}" ibsim "ratio <= 0.1"
}

# start_shared: umad fabric serve on the set's fabric, ready for clients;
# 1 (and down[shared] set) when it is not.
start_shared() {
	local t0
	t0=$(now_us)
	LD_LIBRARY_PATH="$libs" "$umad" fabric serve -t "$net" --socket "$sock" --sm none \
		--listen 127.0.0.1:0 --key-file "$work/key" 2> "$dir/serve.err" &
	server=$!
	# Ready once it says where it listens over TCP: it prints that after both sockets listen.
	until tcp_at=$(sed -n 's/.*UMAD_SIM_FABRIC=tcp:\([^ ]*\) .*/\1/p' "$dir/serve.err") &&
		[ -n "$tcp_at" ]; do
		up shared || return 1
		if [ $(($(now_us) - t0)) -ge $((limit * 1000000)) ]; then
			failure "umad fabric serve not listening after $limit s (BENCH_TIMEOUT)"
			down[shared]="not run $mark"
			stop_server
			return 1
		fi
		if [ $(($(now_us) - t0)) -lt 2000000 ]; then sleep 0.01; else sleep 0.1; fi
	done
}

# fresh_fabric SIDE: SIDE's server started again, its fabric as loaded
# (an SM's sweep leaves LIDs set that the next sweep would find).
fresh_fabric() {
	case $1 in
	shared) [ -n "${down[shared]}" ] || { stop_server; start_shared; } ;;
	ibsim) [ -n "${down[ibsim]}" ] || { stop_ibsim; start_ibsim_set; } ;;
	esac
	return 0
}

# measure_set K LEVELS RUNS DIR: one set of measurements, its rows added to the table.
measure_set() {
	local endports t0 side i j count rate err_lines pid
	local -a sides=(in-process shared ibsim) opts
	sock=$4/srv/socket
	declare -gA down=([in-process]='' [shared]='' [ibsim]='')
	# The figures, one per side; set_rows makes them rows.
	declare -gA load=() mem=() mem_end=() rtt=() ibnd=() osm=() cpu=()
	# Beside busy loops: busy_rtt[LOOPS,SIDE], ibnd_busy[SIDE]; several clients at
	# once: sweep[SIDE,N] (their aggregate), sweep_mark[SIDE,N] (a note on it).
	declare -gA busy_rtt=() ibnd_busy=() sweep=() sweep_mark=()
	set_begin "$@" || return 0
	# One LID per switch and per HCA port (one each here); unicast LIDs end at 0xBFFF.
	endports=$((switches + hcas))
	if [ "$endports" -gt 49151 ]; then
		note "$title: $endports end ports, more than the 49,151 unicast LIDs: no SM can give each its own LID"
	fi

	# --- 1. the servers' load ------------------------------------------------------------
	phase="$title: loading it in umad fabric serve"
	progress "loading the fabric in umad fabric serve"
	t0=$(now_us)
	if start_shared; then
		load[shared]=$(( ($(now_us) - t0) / 1000 ))
		mem[shared]=$(peak_mb "$server")
	else
		load[shared]=${down[shared]}
		mem[shared]=${down[shared]}
	fi

	if ! ibsim_left_out; then
		phase="$title: loading it in ibsim"
		progress "loading the fabric in ibsim"
		t0=$(now_us)
		if start_ibsim_set; then
			load[ibsim]=$(( ($(now_us) - t0) / 1000 ))
			mem[ibsim]=$(peak_mb "$sim")
		fi
	fi
	[ -n "${load[ibsim]:-}" ] || load[ibsim]=${down[ibsim]}
	[ -n "${mem[ibsim]:-}" ] || mem[ibsim]=${down[ibsim]}

	# --- 2. round trips ------------------------------------------------------------------
	phase="$title: DR SMP round trips"
	for side in "${sides[@]}" via-server tcp; do
		case $side in
		in-process) count=200000 ;;
		shared | via-server) count=100000 ;;
		tcp) count=20000 ;;
		ibsim) count=5000 ;;
		esac
		progress "$count DR SMP round trips, $side"
		rtt_once "$side" "$(rtt_what "$side")" "$count" || :
		rtt[$side]=$rate
	done
	phase="$title: DR SMP round trips beside busy loops"
	measure_busy_rtt
	phase="$title: DR SMP round trips from several clients at once"
	measure_sweep

	# --- 3. ibnetdiscover ----------------------------------------------------------------
	phase="$title: ibnetdiscover"
	turning "$runs" ibnetdiscover ibnd_once "${sides[@]}"
	for side in "${sides[@]}"; do
		ibnd[$side]=${figure[$side]}
	done
	turning "$runs" "ibnetdiscover over TCP" ibnd_once tcp
	ibnd[tcp]=${figure[tcp]}
	phase="$title: ibnetdiscover beside a busy loop"
	beside=", 1 busy loop"
	busy_start 1
	turning "$runs" "ibnetdiscover$beside" ibnd_once in-process tcp
	busy_stop
	beside=
	ibnd_busy[in-process]=${figure[in-process]}
	ibnd_busy[tcp]=${figure[tcp]}

	# --- 4. opensm -o --------------------------------------------------------------------
	# RUNS sweeps each way, the order turning as for ibnetdiscover, each on
	# a fabric as loaded (the servers start again between runs).
	phase="$title: opensm -o"
	local -A osm_broken=() cpu_broken=() osm_mark=()
	for side in "${sides[@]}"; do
		: > "$dir/osm.$side"
		: > "$dir/cpu.$side"
		osm_broken[$side]=
		cpu_broken[$side]=
		osm_mark[$side]=
	done
	if [ -z "${down[ibsim]}" ] && [ "$hcas" -gt "${IBSIM_OPENSM_MAX_HCAS:-11664}" ]; then
		note "opensm under ibsim: not run above IBSIM_OPENSM_MAX_HCAS=${IBSIM_OPENSM_MAX_HCAS:-11664} HCAs"
		osm_broken[ibsim]="not run $mark"
	fi
	for i in $(seq "$runs"); do
		for j in 0 1 2; do
			side=${sides[$(( (i + j) % 3 ))]}
			[ -z "${osm_broken[$side]}" ] || continue	# failed before, or not run
			progress "opensm -o, run $i of $runs each way, $side"
			[ "$i" -eq 1 ] || fresh_fabric "$side"
			# opensm keeps a cache between runs: each starts from an empty one.
			rm -rf "$dir/cache-$side" "$dir/opensm-$side.log"
			mkdir "$dir/cache-$side"
			pid=$(server_of "$side")
			t0=
			[ -z "$pid" ] || ! up "$side" || t0=$(cpu_ms "$pid")
			if ! on "$side" "opensm -o" OSM_CACHE_DIR="$dir/cache-$side" \
				opensm -o -f "$dir/opensm-$side.log"; then
				osm_broken[$side]=$cell
				continue
			fi
			if ! grep -q 'SUBNET UP' "$dir/opensm-$side.log"; then
				bad "$side" "opensm -o" "exited 0 without SUBNET UP in its log ($(last_words "$dir/opensm-$side.log"))"
				osm_broken[$side]=$cell
				continue
			fi
			echo "$elapsed_ms" >> "$dir/osm.$side"
			err_lines=$(grep -c 'ERR [0-9A-F]\{4\}:' "$dir/opensm-$side.log") || :
			if [ "$err_lines" -gt 0 ] && [ -z "${osm_mark[$side]}" ]; then
				note "opensm -o, $side: SUBNET UP with $err_lines error lines in its log, the first:" \
					"$(grep -m1 'ERR [0-9A-F]\{4\}:' "$dir/opensm-$side.log" | cut -c1-200)"
				osm_mark[$side]=" $mark"
			fi
			[ "$side" != in-process ] || continue
			if [ -z "$t0" ] || ! up "$side"; then
				cpu_broken[$side]=$cell
			else
				echo $(( $(cpu_ms "$pid") - t0 )) >> "$dir/cpu.$side"
			fi
		done
	done
	for side in "${sides[@]}"; do
		osm[$side]=${osm_broken[$side]:-$(median_of "$dir/osm.$side")${osm_mark[$side]}}
		if [ "$side" = in-process ]; then
			cpu[$side]=-
		elif [ -n "${osm_broken[$side]}" ]; then
			cpu[$side]=${osm_broken[$side]}	# the CPU of sweeps that failed
		else
			cpu[$side]=${cpu_broken[$side]:-$(median_of "$dir/cpu.$side")}
		fi
	done

	for side in shared ibsim; do
		if up "$side"; then
			mem_end[$side]=$(peak_mb "$(server_of "$side")")
		else
			mem_end[$side]=$cell
		fi
	done

	phase="$title: stopping the servers"
	set_rows
	stop_server
	stop_ibsim
}

phase="building bench/dr_rtt.c"
${CC:-cc} -O2 -o "$work/dr_rtt" "$top_srcdir/bench/dr_rtt.c" -I"$top_srcdir/include" \
	-L"$libs" -libumad
phase="building bench/tcp_floor.c"
${CC:-cc} -O2 -o "$work/tcp_floor" "$top_srcdir/bench/tcp_floor.c"
measure_sets "$@"
