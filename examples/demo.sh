#!/bin/sh
# The README's demo: the simulated fabric (UMAD_BACKEND=sim, the embedded
# default topology: two switches, four HCAs) walked by examples/dr_walk, then
# Debian's unmodified ibnetdiscover and ibstat on our libibumad.so.3.
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export LD_LIBRARY_PATH="$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export UMAD_MODULE_DIR="$top_builddir/.libs" UMAD_BACKEND=sim

echo "== examples/dr_walk: NodeInfo of every node, by directed route =="
"$top_builddir/examples/dr_walk"
if command -v ibnetdiscover >/dev/null 2>&1; then
	echo
	echo "== Debian's ibnetdiscover, unmodified, on the same simulated fabric =="
	ibnetdiscover
	echo
	echo "== Debian's ibstat =="
	ibstat
else
	echo "(infiniband-diags not installed: apt-get install infiniband-diags)"
fi
