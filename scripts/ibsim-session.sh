# shellcheck shell=bash
# Sourced by tests and benchmarks: start_ibsim NETFILE WORKDIR [IBSIM-OPTION...]
# runs ibsim on NETFILE with its own socket name, its console kept open (ibsim
# spins at EOF on stdin), and stops it and removes WORKDIR when the caller
# exits.  Sets $sim (ibsim's pid); ibsim's output goes to WORKDIR/ibsim.log.
# It returns once ibsim is ready: it has printed "Network simulator ready."
# (the file is parsed) and bound its control socket (clients can attach).  If
# ibsim exits first, or is not ready within IBSIM_READY_TIMEOUT seconds
# (default 60), it says why on stderr (ibsim_why) and returns 1.
# A caller with its own EXIT trap sets ibsim_keep_trap=1 and calls stop_ibsim.

start_ibsim() {
	local net=$1 dir=$2 limit=${IBSIM_READY_TIMEOUT:-60} start=$SECONDS
	shift 2
	export IBSIM_SOCKNAME="umad$$"
	mkfifo "$dir/console"
	# As long as ibsim runs, however long the caller measures.
	sleep infinity > "$dir/console" &
	ibsim_console_holder=$!
	ibsim -s "$@" "$net" < "$dir/console" > "$dir/ibsim.log" 2>&1 &
	sim=$!
	ibsim_workdir=$dir
	if [ -z "${ibsim_keep_trap:-}" ]; then
		trap 'kill $sim $ibsim_console_holder 2>/dev/null; wait 2>/dev/null; rm -rf "$ibsim_workdir"' EXIT
	fi
	# ibsim prints its banner before it binds its sockets: both are needed.
	until grep -q '^Network simulator ready' "$dir/ibsim.log" &&
		grep -q "@$IBSIM_SOCKNAME:ctl" /proc/net/unix; do
		if ! kill -0 "$sim" 2>/dev/null; then
			echo "ibsim exited before it was ready: $(ibsim_why "$dir/ibsim.log")" >&2
			return 1
		fi
		if [ $((SECONDS - start)) -ge "$limit" ]; then
			echo "ibsim not ready after $limit s (IBSIM_READY_TIMEOUT); its last words:" \
				"$(ibsim_why "$dir/ibsim.log")" >&2
			return 1
		fi
		# Look often while a small fabric may be ready any moment, seldom
		# later, so as not to take the CPU from a large fabric's load.
		if [ $((SECONDS - start)) -lt 2 ]; then sleep 0.01; else sleep 0.1; fi
	done
}

# stop_ibsim: stop the ibsim start_ibsim started (and its console), if any.
stop_ibsim() {
	if [ -n "${sim:-}" ]; then
		kill "$sim" "$ibsim_console_holder" 2>/dev/null || :
		wait "$sim" "$ibsim_console_holder" 2>/dev/null || :
		rm -f "$ibsim_workdir/console"
		sim=
		ibsim_console_holder=
	fi
}

# ibsim_why LOG: the line of ibsim's output that says why it stopped (its
# panic, else its last line that is not a parse warning).
ibsim_why() {
	local why
	why=$(grep -m1 'ibpanic' "$1" 2>/dev/null | sed 's/^ibpanic: \[[0-9]*\] //; s/: Success$//') || :
	[ -n "$why" ] || why=$(grep -v 'parse_port_connection_data' "$1" 2>/dev/null | tail -n1) || :
	echo "${why:-no output}"
}

# ibsim_limits NETFILE: the ibsim options (-N nodes, -S switches, -P ports,
# -L linear forwarding table size) that NETFILE needs beyond ibsim 0.10's
# compile-time defaults (2,048 nodes, 256 switches, 13,312 ports, 30,720
# LIDs); nothing for a fabric within them.  Ports count as ibsim counts them:
# each switch has a port 0 besides its external ones.
ibsim_limits() {
	awk '
	$1 ~ /^(Switch|Hca|Ca|Rt)$/ && $2 ~ /^[0-9]+$/ {
		nodes++
		if ($1 == "Switch") { switches++; ports += $2 + 1; lids++ }
		else { ports += $2; lids += $2 }
	}
	END {
		if (nodes > 2048) printf "-N %d ", nodes
		if (switches > 256) printf "-S %d ", switches
		if (ports > 13312) printf "-P %d ", ports
		# LIDs go up to 0xBFFF: an LFT never needs more than 49,152 entries.
		if (lids + 1 > 30720) printf "-L %d ", (lids + 1 > 49152 ? 49152 : lids + 1)
		print ""
	}' "$1"
}
