#!/bin/sh
# The README's demo: the simulated fabric (UMAD_BACKEND=sim, the embedded
# default topology: two switches, four HCAs, brought up by the built-in SM)
# walked by examples/dr_walk, then Debian's unmodified diags on our
# libibumad.so.3: discovery, the SM, a route, the SA and the PMA.
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
	echo
	echo "== sminfo: the built-in SM =="
	sminfo
	echo
	echo "== ibtracert from Hca1 (LID 3) to Hca3 (LID 5), through the switches' LFTs =="
	ibtracert 3 5
	echo
	echo "== saquery: the SA's PathRecord from LID 3 to LID 5 =="
	saquery -p --src-to-dst 3:5
	echo
	echo "== perfquery: the counters of Switch1's port 1 (LID 1), this process's MADs in them =="
	perfquery 1 1
else
	echo "(infiniband-diags not installed: apt-get install infiniband-diags)"
fi
