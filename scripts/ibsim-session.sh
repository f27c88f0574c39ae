# Sourced by tests and benchmarks: start_ibsim NETFILE WORKDIR runs ibsim on
# NETFILE with its own socket name, its console kept open (ibsim spins at
# EOF on stdin), and stops it and removes WORKDIR when the caller exits.
# Sets $sim (ibsim's pid); ibsim's output goes to WORKDIR/ibsim.log.
start_ibsim() {
	export IBSIM_SOCKNAME="umad$$"
	mkfifo "$2/console"
	sleep 3600 > "$2/console" &
	ibsim_console_holder=$!
	ibsim -s "$1" < "$2/console" > "$2/ibsim.log" 2>&1 &
	sim=$!
	ibsim_workdir=$2
	trap 'kill $sim $ibsim_console_holder 2>/dev/null; wait 2>/dev/null; rm -rf "$ibsim_workdir"' EXIT
	# Ready once it listens; a large fabric takes a moment to build.
	sleep 1
}
