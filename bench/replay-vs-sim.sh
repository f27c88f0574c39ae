#!/bin/bash
# Benchmark: replaying a capture against the simulator that recorded it.
# ibnetdiscover runs on a fat tree in the sim backend with UMAD_CAPTURE set,
# then RUNS alternated times each way, on the simulator and on the replay
# backend answering from that capture; prints the median wall times and
# peak memory (maximum resident set, GNU time) of both, the capture's size,
# and the verdict on the targets: replay's wall time at most the
# simulator's, replay's peak memory below the capture's size.
# Usage: bench/replay-vs-sim.sh [K] [LEVELS] [RUNS]   (from the build directory)
set -eu
k=${1:-36}
levels=${2:-3}
runs=${3:-5}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
top_builddir=$(cd "$top_builddir" && pwd)
command -v ibnetdiscover >/dev/null || { echo "ibnetdiscover not installed (scripts/install-deps)"; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time not installed (scripts/install-deps)"; exit 1; }
for m in backend-sim backend-replay; do
	[ -f "$top_builddir/.libs/$m.so" ] || { echo "build first: $m.so missing"; exit 1; }
done
. "$top_srcdir/bench/timing.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$top_srcdir/scripts/gen-fattree" "$k" "$levels" > "$work/fabric.net"
# The simulator as it recorded: the power-on fabric, no built-in SM to bring up.
lib() {
	LD_LIBRARY_PATH="$top_builddir/.libs" UMAD_MODULE_DIR="$top_builddir/.libs" \
		UMAD_SIM_TOPOLOGY="$work/fabric.net" UMAD_SIM_HOST=H1 UMAD_SIM_SM=none "$@"
}
# measure OUT BACKEND: one ibnetdiscover, "milliseconds kilobytes" appended to OUT.
measure() {
	lib env UMAD_BACKEND="$2" UMAD_REPLAY="$work/cap.pcapng" \
		/usr/bin/time -f '%e %M' -o "$work/time" ibnetdiscover > "$work/$2.out" 2>/dev/null
	awk '{ printf "%d %d\n", $1 * 1000, $2 }' "$work/time" >> "$1"
}

echo "fabric: $levels-level fat tree k=$k ($(grep -c '^Switch' "$work/fabric.net") switches," \
	"$(grep -c '^Hca' "$work/fabric.net") HCAs)"
lib env UMAD_BACKEND=sim UMAD_CAPTURE="$work/cap.pcapng" ibnetdiscover > "$work/recorded.out"
# The machine's load says how far to trust a ratio near 1: other work slows
# both sides, and ibnetdiscover's own list walks (most of its time) vary.
load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
capture_kb=$(( $(stat -c %s "$work/cap.pcapng") / 1024 ))
: > "$work/sim"
: > "$work/replay"
for i in $(seq "$runs"); do
	measure "$work/sim" sim
	measure "$work/replay" replay
	echo "  run $i of $runs" >&2
done
# The replay must answer as the fabric did (but for the time stamp line).
if ! diff <(grep -v '^# Topology file' "$work/recorded.out") \
	  <(grep -v '^# Topology file' "$work/replay.out") > /dev/null; then
	echo "replay's ibnetdiscover output differs from the simulator's"
	exit 1
fi
sim_ms=$(cut -d' ' -f1 < "$work/sim" | median)
sim_kb=$(cut -d' ' -f2 < "$work/sim" | median)
replay_ms=$(cut -d' ' -f1 < "$work/replay" | median)
replay_kb=$(cut -d' ' -f2 < "$work/replay" | median)
echo "ibnetdiscover, medians of $runs runs; capture $((capture_kb / 1024)) MiB;" \
	"load average $load_before before, $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?') after, $(nproc) CPUs:"
awk -v sm="$sim_ms" -v sk="$sim_kb" -v rm="$replay_ms" -v rk="$replay_kb" -v ck="$capture_kb" 'BEGIN {
	printf "  sim     %6d ms %6d MiB peak\n", sm, sk / 1024
	printf "  replay  %6d ms %6d MiB peak\n", rm, rk / 1024
	printf "  replay wall / sim wall %.2f (target <= 1: %s); replay peak / capture size %.2f (target < 1: %s)\n",
		rm / sm, rm <= sm ? "met" : "NOT met", rk / ck, rk < ck ? "met" : "NOT met"
}'
