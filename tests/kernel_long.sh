#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Messages longer than one FUSE request through umad kernel's files, both
# ways: opensm, at host H1 under `umad kernel`, answers saquery's PathRecord
# table (several megabytes: its write(2) comes to the server in pieces) to
# saquery at host H2 under another `umad kernel` (its read(2) goes out in
# pieces).  The table must equal the one saquery gets from the same opensm
# through this library's sim backend at the same host, not through files.
# Skips (77) without /dev/fuse, the kernel's mount API or root.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm saquery"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
export UMAD_MODULE_DIR="$libs"
[ -x "$umad" ] || { echo "SKIP: umad kernel not built"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: FUSE in a namespace needs root here (/dev/fuse)"; exit 77; }

server="" sm=""
die() {
	echo "FAIL: $*"
	exit 1
}
# $sm and $server end at exit, whatever happens (tests/procs.sh).

# 20-port switches, two levels: 200 HCAs; saquery -p asks for every pair's path.
sh "$top_srcdir/scripts/gen-fattree" 20 2 > "$work/fabric.net" || die "gen-fattree"
mkdir -m 700 "$work/f"
socket=$work/f/socket
"$umad" fabric serve -t "$work/fabric.net" --socket "$socket" --sm none > "$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || die "the fabric is not served: $(cat "$work/serve.log")"

mkdir -m 700 "$work/osm"
# Under the sanitizers (preloaded into opensm too): opensm frees a request once
# its answer is in, while the umad_send() that sent it may not have returned
# from write(), whose buffer ASan checks after the call; an answer through the
# files can come that fast.  opensm's race, not ours to judge.
osm_asan=${ASAN_OPTIONS:-}
if [ -n "${UMAD_SANITIZERS:-}" ]; then
	echo "interceptor_via_fun:osm_vendor_send" > "$work/osm/asan.supp"
	osm_asan="$osm_asan:suppressions=$work/osm/asan.supp"
fi
"$umad" kernel --fabric "$socket" --host H1 -- \
	env -u LD_LIBRARY_PATH OSM_CACHE_DIR="$work/osm" ASAN_OPTIONS="$osm_asan" \
	opensm -d2 -f "$work/osm/opensm.log" > "$work/opensm.out" 2>&1 &
sm=$!
for _ in $(seq 300); do
	grep -q "SUBNET UP" "$work/osm/opensm.log" 2>/dev/null && break
	sleep 0.1
done
grep -q "SUBNET UP" "$work/osm/opensm.log" || die "opensm did not bring the fabric up: $(head -60 "$work/opensm.out")"

timeout 120 "$umad" kernel --fabric "$socket" --host H2 -- env -u LD_LIBRARY_PATH saquery -p \
	> "$work/files.txt" 2> "$work/files.err" || die "saquery through the files: $(tail -3 "$work/files.err")"
UMAD_SIM_SM=builtin sim env UMAD_SIM_FABRIC="$socket" UMAD_SIM_HOST=H2 saquery -p \
	> "$work/sim.txt" 2> "$work/sim.err" || die "saquery through the sim backend: $(tail -3 "$work/sim.err")"
bytes=$(wc -c < "$work/sim.txt")
records=$(grep -c "PathRecord dump" "$work/sim.txt")
[ "$records" -gt 0 ] || die "no PathRecord in saquery's output: $(head -3 "$work/sim.err")"
cmp -s "$work/files.txt" "$work/sim.txt" ||
	die "the table through the files differs: $(diff "$work/files.txt" "$work/sim.txt" | head -5)"
# The answer's RMPP payload is records x 64 bytes: more than one FUSE request (1 MiB).
payload=$((records * 64))
[ "$payload" -gt 1048576 ] || die "the table is too small to test pieces ($payload bytes)"
echo "PASS: a $payload-byte PathRecord table from opensm through the files equals the sim backend's ($records records, $bytes bytes of output)"
