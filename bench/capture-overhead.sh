#!/bin/bash
# Benchmark: what capturing adds to ibnetdiscover's wall time on a 2-level
# fat tree of 648 HCAs (k=36), two ways:
#  1. ibsim's fabric with Debian's libibumad under umad2sim, captured by the
#     LD_PRELOAD shim (libumad-capture.so, the in-library tap's code);
#  2. libumad's own simulator (UMAD_BACKEND=sim) with the in-library tap
#     (UMAD_CAPTURE), where discovery itself is about 20 times faster, so the
#     capture's own cost per MAD weighs far more.
# Prints the median of RUNS runs each way and the ratio, measured in one run.
# Usage: bench/capture-overhead.sh [K] [RUNS]   (from the build directory)
set -eu
k=${1:-36}
runs=${2:-7}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
shim=$top_builddir/.libs/libumad-capture.so
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
for need in ibsim ibnetdiscover; do
	command -v "$need" >/dev/null || { echo "$need not installed (scripts/install-deps)"; exit 1; }
done
[ -f "$shim" ] || { echo "build first: $shim missing"; exit 1; }

work=$(mktemp -d)
"$top_srcdir/scripts/gen-fattree" "$k" > "$work/fabric.net"
. "$top_srcdir/scripts/ibsim-session.sh"
start_ibsim "$work/fabric.net" "$work"
sleep 1

. "$top_srcdir/bench/timing.sh"

: > "$work/plain"
: > "$work/captured"
for i in $(seq "$runs"); do
	# Alternate the two, so that drift in the machine's load hits both alike.
	LD_PRELOAD="$umad2sim" ms ibnetdiscover >> "$work/plain"
	UMAD_PRELOAD_CAPTURE="$work/cap.pcapng" LD_PRELOAD="$shim $umad2sim" \
		ms ibnetdiscover >> "$work/captured"
done
plain=$(median < "$work/plain")
captured=$(median < "$work/captured")
mads=$(UMAD_PRELOAD_CAPTURE="$work/cap.pcapng" LD_PRELOAD="$shim $umad2sim" ibnetdiscover > /dev/null 2>&1;
	"$top_builddir/cli/umad" capture stats "$work/cap.pcapng" | head -1 | sed 's/.*: \([0-9]*\) MADs.*/\1/')
echo "fabric: 2-level fat tree k=$k ($(grep -c '^Switch' "$work/fabric.net") switches, $(grep -c '^Hca' "$work/fabric.net") HCAs), $mads MADs per discovery"
echo "ibnetdiscover under ibsim+umad2sim, median of $runs: plain ${plain} ms, captured ${captured} ms"
awk -v p="$plain" -v c="$captured" 'BEGIN { printf "capture overhead: %+.1f %% (target <= 5 %%)\n", (c - p) * 100 / p }'

if [ -f "$top_builddir/.libs/backend-sim.so" ]; then
	ours() {
		LD_LIBRARY_PATH="$top_builddir/.libs" UMAD_MODULE_DIR="$top_builddir/.libs" \
			UMAD_BACKEND=sim UMAD_SIM_TOPOLOGY="$work/fabric.net" "$@"
	}
	: > "$work/plain"
	: > "$work/captured"
	for i in $(seq "$runs"); do
		ours ms ibnetdiscover >> "$work/plain"
		UMAD_CAPTURE="$work/cap2.pcapng" ours ms ibnetdiscover >> "$work/captured"
	done
	plain=$(median < "$work/plain")
	captured=$(median < "$work/captured")
	echo "ibnetdiscover on libumad's simulator, median of $runs: plain ${plain} ms, captured (UMAD_CAPTURE) ${captured} ms"
	awk -v p="$plain" -v c="$captured" -v n="$mads" 'BEGIN { printf "capture overhead: %+.1f %% (%.2f us per MAD; target <= 5 %%)\n", (c - p) * 100 / p, (c - p) * 1000 / n }'
fi
