#!/bin/sh
# The README's demo: our libibumad.so.3 serving an unmodified Debian ibstat and
# the list_ports example on a fake host (a sysfs tree in a temporary directory).
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sh "$top_srcdir/examples/fake-host.sh" "$tmp"
export UMAD_SYSFS_ROOT="$tmp/sys" UMAD_DEV_DIR="$tmp/dev/infiniband"
export LD_LIBRARY_PATH="$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "== examples/list_ports (our library, kernel backend, fake sysfs) =="
"$top_builddir/examples/list_ports"
if command -v ibstat >/dev/null 2>&1; then
	echo
	echo "== Debian's ibstat, unmodified, on our library =="
	ibstat
	echo
	echo "== ibstat -p =="
	ibstat -p
else
	echo "(ibstat not installed: apt-get install infiniband-diags)"
fi
