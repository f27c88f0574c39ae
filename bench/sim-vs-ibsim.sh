#!/bin/bash
# Benchmark: libumad's in-process simulator against ibsim+umad2sim, in one run.
#  1. DR SMP round trips per second through the public API (bench/dr_rtt.c,
#     one binary: our libibumad.so.3 with UMAD_BACKEND=sim, then Debian's
#     libibumad under umad2sim with ibsim serving the same fabric);
#  2. ibnetdiscover's wall time on a 2-level fat tree (k=36: 648 HCAs),
#     median of RUNS alternated runs each way, and the ratio (target >= 10x);
#  3. opensm -o (one sweep to SUBNET UP) on the same fabric, likewise.
# Usage: bench/sim-vs-ibsim.sh [K] [RUNS]   (from the build directory)
set -eu
k=${1:-36}
runs=${2:-7}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
top_builddir=$(cd "$top_builddir" && pwd)
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
for need in ibsim ibnetdiscover opensm; do
	command -v "$need" >/dev/null || { echo "$need not installed (scripts/install-deps)"; exit 1; }
done
[ -f "$top_builddir/.libs/backend-sim.so" ] || { echo "build first: backend-sim.so missing"; exit 1; }

work=$(mktemp -d)
"$top_srcdir/scripts/gen-fattree" "$k" > "$work/fabric.net"
${CC:-cc} -O2 -o "$work/dr_rtt" "$top_srcdir/bench/dr_rtt.c" -I"$top_srcdir/include" \
	-L"$top_builddir/.libs" -libumad
. "$top_srcdir/scripts/ibsim-session.sh"
start_ibsim "$work/fabric.net" "$work"
sleep 1

ours() {
	LD_LIBRARY_PATH="$top_builddir/.libs" UMAD_MODULE_DIR="$top_builddir/.libs" \
		UMAD_BACKEND=sim UMAD_SIM_TOPOLOGY="$work/fabric.net" UMAD_SIM_HOST=H1 "$@"
}
# Both attach at the same HCA (ibsim's default would be the file's first node, a switch).
theirs() { SIM_HOST=H1 LD_PRELOAD="$umad2sim" "$@"; }
. "$top_srcdir/bench/timing.sh"

echo "fabric: 2-level fat tree k=$k ($(grep -c '^Switch' "$work/fabric.net") switches, $(grep -c '^Hca' "$work/fabric.net") HCAs)"
echo
echo "DR SMP round trips through the API (NodeInfo, 2 hops: path 0,1,1):"
printf '  libumad sim:    '; ours "$work/dr_rtt" 200000 0,1,1 || echo "  (failed)"
printf '  ibsim+umad2sim: '; theirs "$work/dr_rtt" 5000 0,1,1 2>/dev/null || echo "  (failed)"

# compare LABEL TARGET COMMAND...: median wall time both ways, and the ratio.
compare() {
	local label=$1 target=$2 a b i
	shift 2
	: > "$work/ours"
	: > "$work/theirs"
	for i in $(seq "$runs"); do
		# opensm keeps a cache between runs: each run starts from an empty one.
		rm -rf "$work/cache" && mkdir "$work/cache"
		# Alternate the two, so that drift in the machine's load hits both alike.
		OSM_CACHE_DIR="$work/cache" ours ms "$@" >> "$work/ours"
		rm -rf "$work/cache" && mkdir "$work/cache"
		OSM_CACHE_DIR="$work/cache" theirs ms "$@" >> "$work/theirs"
	done
	a=$(median < "$work/ours")
	b=$(median < "$work/theirs")
	echo
	echo "$label, median of $runs runs: libumad sim ${a} ms, ibsim+umad2sim ${b} ms"
	awk -v a="$a" -v b="$b" -v t="$target" 'BEGIN { if (a > 0) printf "  libumad sim is %.1fx faster%s\n", b / a, t }'
}
compare ibnetdiscover " (target >= 10x)" ibnetdiscover
# opensm's own work (routing, timers) dominates its sweep: no target here.
compare "opensm -o (to SUBNET UP)" "" opensm -o -f "$work/osm.log"
