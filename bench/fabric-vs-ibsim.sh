#!/bin/bash
# Benchmark: the shared fabric (umad fabric serve, clients in other
# processes) against the in-process simulator and ibsim+umad2sim, in one run,
# on a fat tree from scripts/gen-fattree K LEVELS:
#  1. the server's load (wall, peak memory);
#  2. DR SMP round trips per second from one client (bench/dr_rtt.c; the
#     same binary in-process, through the server, and under ibsim);
#  3. ibnetdiscover's wall time, median of RUNS alternated runs each way;
#  4. opensm -o (one sweep to SUBNET UP): wall, and the CPU time the fabric's
#     server spent on it (ours: the umad fabric serve process; ibsim's: ibsim).
# Every fabric starts without an SM (UMAD_SIM_SM=none), as ibsim's does.
# NO_IBSIM=1 skips ibsim (its sweep of a 3-level fat tree takes minutes).
# Usage: bench/fabric-vs-ibsim.sh [K] [LEVELS] [RUNS]   (from the build directory)
set -eu
k=${1:-36}
levels=${2:-2}
runs=${3:-5}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
top_builddir=$(cd "$top_builddir" && pwd)
libs=$top_builddir/.libs
umad=$top_builddir/cli/umad
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
for need in ibsim ibnetdiscover opensm; do
	command -v "$need" >/dev/null || { echo "$need not installed (scripts/install-deps)"; exit 1; }
done
[ -x "$umad" ] && [ -f "$libs/backend-sim.so" ] || { echo "build first: umad or backend-sim.so missing"; exit 1; }

work=$(mktemp -d)
server=
sim=
ibsim_console_holder=
cleanup() {
	# ibsim-session.sh sets its own EXIT trap; this one replaces it and does its work too.
	kill $server $sim $ibsim_console_holder 2>/dev/null
	wait $server $sim $ibsim_console_holder 2>/dev/null
	rm -rf "$work"
}
"$top_srcdir/scripts/gen-fattree" "$k" "$levels" > "$work/fabric.net"
${CC:-cc} -O2 -o "$work/dr_rtt" "$top_srcdir/bench/dr_rtt.c" -I"$top_srcdir/libumad" \
	-L"$libs" -libumad
. "$top_srcdir/bench/timing.sh"
export UMAD_SIM_SM=none

# cpu_ms PID: the CPU time (user + system) a process has used, in milliseconds.
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$1/stat"
}

echo "fabric: fat tree k=$k, $levels levels ($(grep -c '^Switch' "$work/fabric.net") switches, $(grep -c '^Hca' "$work/fabric.net") HCAs)"

# --- 1. the server's load ------------------------------------------------------------------
trap cleanup EXIT
sock=$work/srv/socket
start=$(date +%s%N)
LD_LIBRARY_PATH="$libs" "$umad" fabric serve -t "$work/fabric.net" --socket "$sock" 2> "$work/serve.err" &
server=$!
while [ ! -S "$sock" ]; do
	kill -0 "$server" 2>/dev/null || { cat "$work/serve.err"; exit 1; }
	sleep 0.01
done
end=$(date +%s%N)
echo "umad fabric serve: loaded and listening in $(( (end - start) / 1000000 )) ms," \
	"peak memory $(awk '/VmHWM/ { printf "%d MB", $2 / 1024 }' "/proc/$server/status")"

ours() {
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim \
		UMAD_SIM_TOPOLOGY="$work/fabric.net" UMAD_SIM_HOST=H1 "$@"
}
shared() {
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim \
		UMAD_SIM_FABRIC="$sock" UMAD_SIM_HOST=H1 "$@"
}
theirs() { SIM_HOST=H1 LD_PRELOAD="$umad2sim" "$@"; }
if [ -z "${NO_IBSIM:-}" ]; then
	. "$top_srcdir/scripts/ibsim-session.sh"
	start_ibsim "$work/fabric.net" "$work"
	sleep 1
fi
trap cleanup EXIT

# --- 2. round trips ---------------------------------------------------------------------------
echo
echo "DR SMP round trips through the API (NodeInfo, 2 hops: path 0,1,1), one client:"
printf '  in-process:        '; ours "$work/dr_rtt" 200000 0,1,1 || echo "  (failed)"
printf '  shared fabric:     '; shared "$work/dr_rtt" 100000 0,1,1 || echo "  (failed)"
if [ -z "${NO_IBSIM:-}" ]; then
	printf '  ibsim+umad2sim:    '; theirs "$work/dr_rtt" 5000 0,1,1 2>/dev/null || echo "  (failed)"
fi

# --- 3, 4. ibnetdiscover and opensm -o -----------------------------------------------------
# compare LABEL COMMAND...: median wall time each way, alternated, and the ratios.
compare() {
	local label=$1 a b c i
	shift
	: > "$work/ours"; : > "$work/shared"; : > "$work/theirs"
	for i in $(seq "$runs"); do
		# opensm keeps a cache between runs: each run starts from an empty one.
		rm -rf "$work/cache" && mkdir "$work/cache"
		OSM_CACHE_DIR="$work/cache" ours ms "$@" >> "$work/ours"
		rm -rf "$work/cache" && mkdir "$work/cache"
		OSM_CACHE_DIR="$work/cache" shared ms "$@" >> "$work/shared"
		if [ -z "${NO_IBSIM:-}" ]; then
			rm -rf "$work/cache" && mkdir "$work/cache"
			OSM_CACHE_DIR="$work/cache" theirs ms "$@" >> "$work/theirs"
		fi
	done
	a=$(median < "$work/ours")
	b=$(median < "$work/shared")
	echo
	echo "$label, median of $runs runs: in-process ${a} ms, shared fabric ${b} ms" \
		"($(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx the in-process time", b / (a ? a : 1) }'))"
	if [ -z "${NO_IBSIM:-}" ]; then
		c=$(median < "$work/theirs")
		echo "  ibsim+umad2sim ${c} ms: the shared fabric is" \
			"$(awk -v b="$b" -v c="$c" 'BEGIN { printf "%.1fx faster", c / (b ? b : 1) }')"
	fi
}
compare ibnetdiscover ibnetdiscover

# opensm -o: wall both ways, and the servers' CPU for one sweep each.
rm -rf "$work/cache" && mkdir "$work/cache"
before=$(cpu_ms "$server")
t=$(OSM_CACHE_DIR="$work/cache" shared ms opensm -o -f "$work/osm.log")
used=$(( $(cpu_ms "$server") - before ))
echo
echo "opensm -o (to SUBNET UP): shared fabric ${t} ms wall, server CPU ${used} ms"
if [ -z "${NO_IBSIM:-}" ]; then
	ibsim_pid=$(pgrep -n -x ibsim)
	rm -rf "$work/cache" && mkdir "$work/cache"
	before=$(cpu_ms "$ibsim_pid")
	t2=$(OSM_CACHE_DIR="$work/cache" theirs ms opensm -o -f "$work/osm.log")
	used2=$(( $(cpu_ms "$ibsim_pid") - before ))
	echo "  ibsim+umad2sim ${t2} ms wall, ibsim CPU ${used2} ms:" \
		"$(awk -v a="$t" -v b="$t2" -v u="$used" -v v="$used2" \
			'BEGIN { printf "wall %.1fx faster, server CPU %.2f of ibsim'"'"'s", b / (a ? a : 1), u / (v ? v : 1) }')"
fi
