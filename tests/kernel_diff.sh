#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The three-way differential test of umad kernel: one simulated host (H5 of
# a k=8 fat tree, 12 switches and 32 HCAs, served by `umad fabric serve`
# with the built-in SM), every use run three ways inside
# `umad kernel --fabric S --host H5 -- ...`:
#  (a) Debian's libibumad3, neither LD_LIBRARY_PATH nor LD_PRELOAD: the
#      device files and sysfs served through FUSE;
#  (b) this library, UMAD_BACKEND=kernel: the same files;
#  (c) this library, UMAD_BACKEND=sim UMAD_SIM_FABRIC=S UMAD_SIM_HOST=H5:
#      the fabric directly, no file in between.
# The uses: ibstat, ibstatus, ibnetdiscover, smpquery (NodeInfo, PortInfo;
# directed route and by LID), perfquery, saquery (NodeRecord, IsSM
# PortInfoRecords, LinkRecord, PortInfoRecord, and all 1,936 PathRecords:
# RMPP tables of 25 to some 600 segments, read after ENOSPC), sminfo, ibping
# to a second namespace at H9 (ibping -S there, the same way), and opensm -o
# reaching SUBNET UP through the issm and umad files on fabrics of its own
# (served with --sm none, one per way, so that each starts from nothing).
# Their outputs must be identical, but for what each run is free to differ
# in, normalised as follows and nothing else:
#  - ibnetdiscover's "# Topology file: generated on DATE" line: the date;
#  - ibping's round trips and wall time ("time X ms", "rtt min/avg/max");
#  - opensm's log: each line's date, microseconds and thread id; its stdout
#    is compared as printed (the log's name is the same in each run);
#  - captures: see below.
# perfquery's counters need nothing: a query of the host's own port crosses no
# link, and no other traffic crosses H5's while the three ways run.
# Added to them:
#  - tests/kernel_static_probe.c, linked -static, on the device with system
#    calls only: its NodeGUID and PortGUID are ibstat's, and the answer
#    carries the request's TID back, its high half replaced by a
#    kernel-style hi_tid (24 bits, not 0, not what was written);
#  - prometheus-node-exporter's infiniband collector alone, on
#    `umad kernel --mount DIR`'s DIR/sys (no namespace) and on /sys inside
#    the namespace: every node_infiniband_* metric of a port is there, and
#    the data, packet and unicast packet counters grow with the traffic of
#    the uses (the PMA counts every MAD that crosses the port's link; the
#    error, discard, wait and multicast counters stay as they were);
#  - `umad capture -w FILE` (the LD_PRELOAD shim) on Debian's libibumad3 for
#    ibnetdiscover, smpquery, perfquery, saquery and sminfo, against the
#    in-library tap (UMAD_CAPTURE) of (b) and (c) for the same commands:
#    frame by frame, the direction, the umad metadata comment and every byte
#    of the packet are equal, except the packet's timestamps (never
#    compared), the TID (libibmad starts each process at a random one: each
#    is replaced by its rank of first appearance), the ICRC and VCRC (they
#    cover the TID), and the 64 data bytes of an SMP Get request sent (a Get
#    carries no data; libibmad's query of the local port leaves its stack
#    there);
#  - umad kernel itself: it exits with its command's status once the command
#    has ended, and `umad kernel --mount DIR` ends on SIGTERM leaving no
#    mount behind; under the sanitizers it leaks nothing.
# KERNEL_DIFF_KEEP=1 keeps the work directory (outputs, captures) and says where.
# Skips (77) without /dev/fuse, mount (or user) namespaces, the diags,
# opensm, tshark, node_exporter or Debian's libibumad3, naming what is missing.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm ibstat ibstatus ibnetdiscover smpquery perfquery saquery sminfo ibping tshark
prometheus-node-exporter"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
shim=$libs/libumad-capture.so
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
[ -f "$shim" ] || { echo "FAIL: $shim not built"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# --- what the test needs of the machine -------------------------------------------------
[ -c /dev/fuse ] || skip "no /dev/fuse: FUSE is missing"
[ -r /dev/fuse ] && [ -w /dev/fuse ] || skip "/dev/fuse is not open to $(id -un): FUSE is missing"
if [ "$(id -u)" -eq 0 ]; then
	unshare -m true 2>/dev/null || skip "mount namespaces are missing (unshare -m fails)"
else
	unshare -Urm true 2>/dev/null || skip "user namespaces are missing (unshare -Urm fails)"
	command -v fusermount3 >/dev/null 2>&1 || skip "fusermount3 is missing (--mount as a user)"
fi
debian_umad=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$(command -v ibstat)" 2>/dev/null |
	awk '$1 == "libibumad.so.3" { print $3 }')
case $debian_umad in
"" | not | "$libs"/*) skip "Debian's libibumad3 is missing: ibstat loads no libibumad.so.3 of its own" ;;
esac
: "${CC:=cc}"
static_ok=yes
env -u LD_PRELOAD "$CC" -std=gnu11 -Wall -Wextra -Werror -static \
	-I"$top_srcdir/include" -I"$top_srcdir" -I"$top_builddir" \
	-o "$work/kernel_static_probe" "$top_srcdir/tests/kernel_static_probe.c" \
	> "$work/cc.log" 2>&1 || static_ok=no
if [ "$static_ok" = no ]; then
	# Only a missing static libc excuses it; anything else is the probe's fault.
	grep -q "cannot find -lc" "$work/cc.log" ||
		{ fail "kernel_static_probe.c does not compile:"; cat "$work/cc.log"; }
	echo "NOTE: no static libc (libc6-dev): the static program is left out"
fi

# --- what the scripts inside share with this one ---------------------------------------
export WORK=$work LIBS=$libs UMAD=$umad SHIM=$shim
cat > "$work/lib.sh" <<'EOF'
set -u
# end_procs, timeout -k, and what the script starts ended when it exits.
. "$UMAD_TEST_PROCS"
# The three ways (the sanitizers' runtimes, when the harness preloads them, stay for b and c).
run_a() {
	env -u LD_LIBRARY_PATH -u LD_PRELOAD -u UMAD_BACKEND -u UMAD_MODULE_DIR -u UMAD_SIM_FABRIC \
		-u UMAD_SIM_HOST -u UMAD_CAPTURE "$@"
}
run_b() {
	env -u UMAD_SIM_FABRIC -u UMAD_SIM_HOST -u UMAD_CAPTURE LD_LIBRARY_PATH="$LIBS" \
		UMAD_MODULE_DIR="$LIBS" UMAD_BACKEND=kernel "$@"
}
run_c() {
	env -u UMAD_CAPTURE LD_LIBRARY_PATH="$LIBS" UMAD_MODULE_DIR="$LIBS" UMAD_BACKEND=sim \
		UMAD_SIM_FABRIC="$S" UMAD_SIM_HOST="$H" "$@"
}
# three NAME CMD...: CMD each way, its output and exit status in $WORK/out/NAME.{a,b,c}.
three() {
	local name=$1 m
	shift
	for m in a b c; do
		"run_$m" timeout -k "$UMAD_TEST_GRACE" 60 "$@" > "$WORK/out/$name.$m" 2>&1
		echo "exit status $?" >> "$WORK/out/$name.$m"
	done
}
# wait_file FILE SECONDS: until FILE exists; 1 if it did not in time.
wait_file() {
	local t=0
	while [ ! -e "$1" ]; do
		[ "$t" -ge $(($2 * 10)) ] && return 1
		sleep 0.1
		t=$((t + 1))
	done
}
# exporter NAME SYSFS: node_exporter's infiniband collector alone on SYSFS, at a free port
# of 127.0.0.1 (in $WORK/NAME.port); 1 when none could be had.
exporter() {
	local name=$1 sysfs=$2 try t port pid
	for try in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 30000))
		env -u LD_PRELOAD prometheus-node-exporter --collector.disable-defaults \
			--collector.infiniband --path.sysfs="$sysfs" \
			--web.listen-address="127.0.0.1:$port" > "$WORK/$name.log" 2>&1 &
		pid=$!
		echo "$pid" > "$WORK/$name.pid"
		for t in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			if grep -q "Listening on" "$WORK/$name.log"; then
				echo "$port" > "$WORK/$name.port"
				return 0
			fi
			sleep 0.1
		done
		# Its port taken, or not listening in 10 s: another try.
		end_procs "$pid"
	done
	echo "node_exporter did not start:"
	cat "$WORK/$name.log"
	return 1
}
# scrape NAME OUT: NAME's /metrics, node_infiniband_* samples only, in OUT.
scrape() {
	local port
	port=$(cat "$WORK/$1.port") || return 1
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
	grep '^node_infiniband_' <&3 > "$2"
	exec 3<&-
}
stop_exporter() {
	end_procs "$(cat "$WORK/$1.pid")"
	rm -f "$WORK/$1.pid"
}
EOF
. "$work/lib.sh"

# --- the test's processes, ended whatever happens (tests/procs.sh), then its mount --------
mkdir -m 700 "$work/out" "$work/cap" "$work/mnt"
cleanup() {
	if grep -q " $work/mnt " /proc/self/mounts 2>/dev/null; then
		if [ "$(id -u)" -eq 0 ]; then umount -l "$work/mnt"; else fusermount3 -uz "$work/mnt"; fi
	fi
	# Kept: sim_env.sh's removal, which runs next, is then given no directory.
	if [ -n "${KERNEL_DIFF_KEEP:-}" ]; then echo "kept $work"; work=; else rm -rf "$work"; fi
}
at_exit cleanup

# expect NAME FILE REGEX: FILE must have a line matching REGEX.
expect() {
	grep -q -- "$3" "$2" || { fail "$1: no line matching '$3' in $2:"; sed 's/^/    /' "$2" | head -20; }
}

# background NAME CMD...: CMD in the background, its pid in $work/NAME.pid, its output in
# $work/NAME.log and, once it has ended, its exit status in $work/NAME.end.
background() {
	local name=$1
	shift
	(
		"$@" > "$work/$name.log" 2>&1 &
		echo $! > "$work/$name.pid"
		wait $!
		echo $? > "$work/$name.end"
		rm -f "$work/$name.pid"
	) 2> "$work/$name.wait" &
	wait_file "$work/$name.pid" 10 || wait_file "$work/$name.end" 1
}

# serve NAME [ARGS]: a fabric of the k=8 fat tree at $work/NAME/s.
sh "$top_srcdir/scripts/gen-fattree" 8 > "$work/ft8.net"
serve() {
	local name=$1
	shift
	mkdir -m 700 "$work/$name"
	background "serve_$name" env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" \
		"$umad" fabric serve --socket "$work/$name/s" -t "$work/ft8.net" "$@"
}
serve main
for m in a b c; do serve "osm_$m" --sm none; done
for name in main osm_a osm_b osm_c; do
	wait_file "$work/$name/s" 10 ||
		{ echo "FAIL: umad fabric serve ($name) did not start:"; cat "$work/serve_$name.log"; exit 1; }
done
main=$work/main/s

# Under the sanitizers, umad kernel, ours, is checked for leaks, which the harness turns off
# for the programs it runs; they get the harness's options back.
# (The program itself, not libtool's wrapper, whose sed and the like leak.)
umad_asan=${ASAN_OPTIONS:-}
umad_kernel=$umad
if [ -n "${UMAD_SANITIZERS:-}" ]; then
	umad_asan="$umad_asan:detect_leaks=1"
	[ -x "$top_builddir/cli/.libs/umad" ] && umad_kernel=$top_builddir/cli/.libs/umad
fi

# kernel NAME FABRIC HOST SCRIPT [ARGS...]: bash SCRIPT ARGS inside umad kernel at HOST of
# FABRIC, in the background; the script's exit status goes to $work/NAME.rc as its last act.
kernel() {
	local name=$1 fabric=$2 host=$3
	shift 3
	background "$name" env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" ASAN_OPTIONS="$umad_asan" \
		"$umad_kernel" kernel --fabric "$fabric" --host "$host" -- \
		env ASAN_OPTIONS="${ASAN_OPTIONS:-}" S="$fabric" H="$host" \
		bash -c 'rc_file=$1; shift; bash "$@"; rc=$?; echo "$rc" > "$rc_file"; exit "$rc"' \
		bash "$work/$name.rc" "$@"
}

# kernel_end NAME SECONDS: NAME's command must end within SECONDS, and umad kernel within
# 5 s after it, with the command's exit status.  What is still running is killed.
kernel_end() {
	local name=$1 limit=$2 rc end t=0
	while [ ! -e "$work/$name.rc" ] && [ ! -e "$work/$name.end" ] && [ "$t" -lt $((limit * 10)) ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if [ ! -e "$work/$name.rc" ] && [ ! -e "$work/$name.end" ]; then
		fail "$name: the command has not ended in $limit s; killed. Its output:"
		tail -20 "$work/$name.log" | sed 's/^/    /'
		[ -e "$work/$name.pid" ] && kill -KILL "$(cat "$work/$name.pid")"
		wait_file "$work/$name.end" 5
		return
	fi
	rc=$(cat "$work/$name.rc" 2>/dev/null)
	if ! wait_file "$work/$name.end" 5; then
		fail "$name: umad kernel still running 5 s after its command exited (status ${rc:-?}); killed"
		[ -e "$work/$name.pid" ] && kill -KILL "$(cat "$work/$name.pid")"
		wait_file "$work/$name.end" 5
		return
	fi
	end=$(cat "$work/$name.end")
	[ "$end" = "${rc:-none}" ] ||
		{ fail "$name: umad kernel exited with $end, its command with ${rc:-nothing}:"; sed 's/^/    /' "$work/$name.log" | tail -20; }
}


# --- node_exporter on the mount, no namespace: before the traffic ---------------------
background mount env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" ASAN_OPTIONS="$umad_asan" \
	"$umad_kernel" kernel --fabric "$main" --host H5 --mount "$work/mnt"
mounted=no
if wait_file "$work/mnt/sys/class/infiniband_mad/abi_version" 10; then
	mounted=yes
	if exporter exporter_mount "$work/mnt/sys"; then
		scrape exporter_mount "$work/out/metrics_mount.before" ||
			fail "node_exporter on the mount: no /metrics"
	else
		fail "node_exporter on $work/mnt/sys did not start"
	fi
else
	fail "umad kernel --mount: no files at $work/mnt:"
	sed 's/^/    /' "$work/mount.log"
fi

# --- the peer at H9: ibping -S each way, one after the other ----------------------------
cat > "$work/peer.sh" <<'EOF'
. "$WORK/lib.sh"
run_a ibstat -p | head -1 > "$WORK/peer.guid"
for m in a b c; do
	# ibping -S itself, not a shell around it, is the process to end (its pid from sh's exec).
	"run_$m" sh -c 'echo $$ > "$1"; exec ibping -S' sh "$WORK/ibping_server.$m.pid" \
		> "$WORK/ibping_server.$m" 2>&1 &
	waiter=$!
	wait_file "$WORK/ibping_server.$m.pid" 10
	touch "$WORK/ibping.$m.ready"
	wait_file "$WORK/ibping.$m.done" 60 || echo "peer: no client for way $m"
	end_procs "$waiter"
	rm -f "$WORK/ibping_server.$m.pid"
done
true
EOF

# --- the host H5: every use three ways ------------------------------------------------
cat > "$work/main.sh" <<'EOF'
. "$WORK/lib.sh"
cd "$WORK"
exporter exporter_ns /sys && scrape exporter_ns "$WORK/out/metrics_ns.before"
port=/sys/class/infiniband/sim0/ports/1
three ibstat ibstat
three ibstatus ibstatus
three ibnetdiscover ibnetdiscover
three smpquery_ni_local smpquery -D nodeinfo 0
three smpquery_ni_leaf smpquery -D nodeinfo 0,1
three smpquery_pi_leaf smpquery -D portinfo 0,1 5
three smpquery_ni_sm smpquery nodeinfo "$(cat $port/sm_lid)"
three smpquery_pi_local smpquery portinfo "$(cat $port/lid)" 1
three perfquery perfquery
three perfquery_x perfquery -x
three saquery_nr saquery
three saquery_sm saquery -s
three saquery_lr saquery LinkRecord
three saquery_pir saquery PortInfoRecord
three saquery_pr saquery -p
three sminfo sminfo
# The static program: no library at all.
if [ -x "$WORK/kernel_static_probe" ]; then
	"$WORK/kernel_static_probe" > "$WORK/out/static" 2>&1
	echo "exit status $?" >> "$WORK/out/static"
fi
# RMPP through the files: the first read of a table is short, and the kernel says ENOSPC.
if command -v strace > /dev/null 2>&1; then
	run_a strace -f -e trace=read -o "$WORK/out/saquery.strace" saquery -p > /dev/null 2>&1
fi
# ibping to H9, each way on both ends.
for m in a b c; do
	wait_file "$WORK/ibping.$m.ready" 30 || { echo "no ibping server for way $m"; break; }
	# Answered once: its agent is registered.
	for try in $(seq 1 50); do
		"run_$m" ibping -c 1 -t 100 -G "$(cat "$WORK/peer.guid")" > /dev/null 2>&1 && break
	done
	"run_$m" timeout -k "$UMAD_TEST_GRACE" 30 ibping -c 3 -G "$(cat "$WORK/peer.guid")" > "$WORK/out/ibping.$m" 2>&1
	echo "exit status $?" >> "$WORK/out/ibping.$m"
	touch "$WORK/ibping.$m.done"
done
# Captures: the shim on Debian's libibumad3, the tap of this library.
capture() {
	local name=$1
	shift
	# As run_a, but for LD_PRELOAD: the shim goes there (after the sanitizers' runtimes, if any).
	env -u LD_LIBRARY_PATH -u UMAD_BACKEND -u UMAD_MODULE_DIR -u UMAD_SIM_FABRIC -u UMAD_SIM_HOST \
		-u UMAD_CAPTURE UMAD_CAPTURE_SHIM="$SHIM" "$UMAD" capture -w "$WORK/cap/$name.a" -- \
		env -u LD_LIBRARY_PATH "$@" > /dev/null 2>&1
	run_b env UMAD_CAPTURE="$WORK/cap/$name.b" "$@" > /dev/null 2>&1
	run_c env UMAD_CAPTURE="$WORK/cap/$name.c" "$@" > /dev/null 2>&1
}
capture ibnetdiscover ibnetdiscover
capture smpquery smpquery -D nodeinfo 0
capture perfquery perfquery
capture saquery saquery
capture sminfo sminfo
# More traffic for the counters, then what node_exporter sees inside.
for i in 1 2 3; do run_a saquery > /dev/null; done
scrape exporter_ns "$WORK/out/metrics_ns.after"
stop_exporter exporter_ns
EOF

# --- opensm -o, each way on a fabric of its own ----------------------------------------
cat > "$work/osm.sh" <<'EOF'
. "$WORK/lib.sh"
m=$1
# Its own output alone, not umad kernel's around it.
exec > "$WORK/out/opensm.$m" 2>&1
mkdir -p "$WORK/osm_$m/cache" "$WORK/osm_$m/run"
cd "$WORK/osm_$m/run"
cap=/sys/class/infiniband/sim0/ports/1/cap_mask
echo "cap_mask before: $(cat $cap)"
# opensm frees a request once its answer is in, even while the umad_send() that sent it has
# yet to return from write(); ASan checks write()'s buffer after the call, and so reports
# opensm's race when the answer comes that fast (through the files, way b): not ours to judge.
if [ -n "${UMAD_SANITIZERS:-}" ]; then
	echo "interceptor_via_fun:osm_vendor_send" > "$WORK/osm_$m/asan.supp"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:suppressions=$WORK/osm_$m/asan.supp"
fi
OSM_CACHE_DIR="$WORK/osm_$m/cache" "run_$m" timeout -k "$UMAD_TEST_GRACE" 60 opensm -o -f osm.log
echo "exit status $?"
echo "cap_mask after: $(cat $cap)"
EOF


kernel peer "$main" H9 "$work/peer.sh"
kernel main "$main" H5 "$work/main.sh"
for m in a b c; do
	kernel "osm_$m" "$work/osm_$m/s" H1 "$work/osm.sh" "$m"
done
kernel_end main 240
# Whatever became of the client, the peer need not wait for it.
touch "$work/ibping.a.done" "$work/ibping.b.done" "$work/ibping.c.done"
kernel_end peer 30
for m in a b c; do
	kernel_end "osm_$m" 60
done
[ -s "$work/main.log" ] && { echo "what the uses printed besides their outputs:"; sed 's/^/    /' "$work/main.log"; }
[ -e "$work/main.rc" ] || { echo "FAIL: the uses did not run"; exit 1; }

# --- (a), (b) and (c) compared ---------------------------------------------------------
# same NAME [SED]: $work/out/NAME.{a,b,c} identical, after the sed -E script SED if given.
same() {
	local name=$1 expr=${2:-} m
	for m in a b c; do
		[ -e "$work/out/$name.$m" ] || { fail "$name: way $m did not run"; return; }
		sed -E "$expr" "$work/out/$name.$m" > "$work/out/$name.$m.norm"
	done
	for m in b c; do
		if ! cmp -s "$work/out/$name.a.norm" "$work/out/$name.$m.norm"; then
			fail "$name: (a) Debian's libibumad3 and ($m) $([ $m = b ] && echo UMAD_BACKEND=kernel ||
				echo UMAD_BACKEND=sim) differ:"
			diff -u "$work/out/$name.a.norm" "$work/out/$name.$m.norm" | head -30 | sed 's/^/    /'
		fi
	done
}
date_line='s/^(# Topology file: generated on ).*/\1DATE/'
timings='s/time [0-9.]+ ms/time T ms/; s|rtt min/avg/max = .*|rtt min/avg/max = T|'
for name in ibstat ibstatus smpquery_ni_local smpquery_ni_leaf smpquery_pi_leaf smpquery_ni_sm \
	smpquery_pi_local perfquery perfquery_x saquery_nr saquery_sm saquery_lr saquery_pir \
	saquery_pr sminfo; do
	same "$name"
done
same ibnetdiscover "$date_line"
same ibping "$timings"
for name in "$work"/out/*.a; do
	expect "$(basename "$name" .a) (a)" "$name" "^exit status 0$"
done
# Identical is not enough: the outputs must be the fabric's.
out=$work/out
expect "ibstat" "$out/ibstat.a" "State: Active"
expect "ibstatus" "$out/ibstatus.a" "state:.*4: ACTIVE"
[ "$(grep -c '^Switch' "$out/ibnetdiscover.a")" -eq 12 ] && [ "$(grep -c '^Ca' "$out/ibnetdiscover.a")" -eq 32 ] ||
	fail "ibnetdiscover: not the 12 switches and 32 CAs of the fat tree"
expect "smpquery NodeInfo, hop 0" "$out/smpquery_ni_local.a" "^NodeType:.*Channel Adapter"
expect "smpquery NodeInfo, hop 1" "$out/smpquery_ni_leaf.a" "^NodeType:.*Switch"
expect "smpquery PortInfo, hop 1" "$out/smpquery_pi_leaf.a" "^LinkState:.*Active"
expect "smpquery NodeInfo by LID" "$out/smpquery_ni_sm.a" "^Guid:\.*0x"
expect "smpquery PortInfo by LID" "$out/smpquery_pi_local.a" "^LinkState:.*Active"
expect "perfquery" "$out/perfquery.a" "^PortXmitPkts:\.*[1-9]"
expect "perfquery -x" "$out/perfquery_x.a" "^PortUnicastXmitPkts:\.*[1-9]"
[ "$(grep -c '^NodeRecord dump' "$out/saquery_nr.a")" -eq 44 ] || fail "saquery: not 44 NodeRecords"
[ "$(grep -c '^PathRecord dump' "$out/saquery_pr.a")" -eq $((44 * 44)) ] ||
	fail "saquery -p: not the 1,936 PathRecords"
expect "saquery -s" "$out/saquery_sm.a" "PortInfoRecord dump"
expect "saquery LinkRecord" "$out/saquery_lr.a" "LinkRecord dump"
expect "saquery PortInfoRecord" "$out/saquery_pir.a" "PortInfoRecord dump"
expect "sminfo" "$out/sminfo.a" "SMINFO_MASTER"
expect "ibping" "$out/ibping.a" "3 packets transmitted, 3 received"
for m in a b c; do
	# Its shell reports the SIGTERM that ended it; anything else is ibping's complaint.
	grep -qv '^Terminated$' "$work/ibping_server.$m" &&
		{ fail "ibping -S, way $m, at H9 said:"; sed 's/^/    /' "$work/ibping_server.$m"; }
done
if [ -e "$out/saquery.strace" ]; then
	expect "saquery -p: a short read of a table answered ENOSPC" "$out/saquery.strace" \
		"read(.*= -1 ENOSPC"
else
	echo "NOTE: no strace: the ENOSPC of the first short read is not checked directly"
fi

# --- the static program ----------------------------------------------------------------
if [ "$static_ok" = yes ]; then
	expect "static program" "$out/static" "^exit status 0$"
	expect "static program: ABI" "$out/static" "^abi_version 5$"
	node=$(sed -n 's/^[[:space:]]*Node GUID: //p' "$out/ibstat.a")
	port=$(sed -n 's/^[[:space:]]*Port GUID: //p' "$out/ibstat.a" | head -1)
	expect "static program: ibstat's NodeGUID and PortGUID" "$out/static" \
		"^NodeGUID $node PortGUID $port NodeType 1$"
	# The answer comes back with the request's low TID half (libibmad matches
	# it) and the agent's hi_tid in the high one, as ib_umad rewrites it.
	sent=$(sed -n 's/^tid sent 0x\([0-9a-f]*\) received 0x[0-9a-f]*$/\1/p' "$out/static")
	got=$(sed -n 's/^tid sent 0x[0-9a-f]* received 0x\([0-9a-f]*\)$/\1/p' "$out/static")
	if [ "${#got}" -ne 16 ] || [ "${got:8}" != "${sent:8}" ]; then
		fail "static program: the answer's TID 0x$got is not the request's (0x$sent)"
	elif [ "${got:0:2}" != 00 ] || [ "${got:0:8}" = 00000000 ] || [ "${got:0:8}" = "${sent:0:8}" ]; then
		fail "static program: the answer's TID 0x$got has no kernel-style hi_tid (sent 0x$sent)"
	fi
	cat "$out/static"
fi

# --- opensm -o through the issm and umad files ------------------------------------------
osm_norm='s/^[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} [0-9]{6} \[[0-9A-Fa-f]+\] //'
for m in a b c; do
	cp "$work/osm_$m/run/osm.log" "$out/opensm_log.$m" 2>/dev/null
	"$umad" fabric --socket "$work/osm_$m/s" show > "$out/opensm_fabric.$m" 2>&1
done
same opensm
same opensm_log "$osm_norm"
same opensm_fabric
expect "opensm -o (a)" "$out/opensm.a" "^exit status 0$"
expect "opensm -o (a)" "$out/opensm_log.a" "SUBNET UP"
expect "opensm -o (a): IsSM through issm0" "$out/opensm_log.a" "Setting IS_SM on port"
grep -q "ERR" "$out/opensm_log.a" && { fail "opensm -o (a) logged errors:"; grep ERR "$out/opensm_log.a"; }
[ "$(grep '^  \[' "$out/opensm_fabric.a" | grep -vc 'Active/LinkUp')" -eq 0 ] &&
	[ "$(grep -c '^  \[' "$out/opensm_fabric.a")" -eq 128 ] ||
	fail "after opensm -o, not every one of the 128 ports is Active"
# The IsSM bit (CapabilityMask bit 1) is clear once opensm has closed issm0.
cap=$(sed -n 's/^cap_mask after: //p' "$out/opensm.a")
[ -n "$cap" ] && [ $((cap & 2)) -eq 0 ] || fail "opensm -o (a): IsSM still set after it exited (cap_mask '$cap')"

# --- captures: the shim on Debian's libibumad3 against the tap --------------------------
# frames FILE: one line per frame: direction, the metadata comment and the packet's bytes
# in hex, but for the TID (its rank), the CRCs and a sent SMP Get's data (see the top).
frames() {
	tshark -r "$1" -T fields -e frame.p2p_dir -e frame.comment 2>/dev/null > "$1.meta"
	tshark -r "$1" -x 2>/dev/null | awk '
	function flush() { if (hex != "") print hex; hex = "" }
	/^$/ { flush(); next }
	/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / { line = substr($0, 7, 48); gsub(/ /, "", line); hex = hex line }
	END { flush() }' > "$1.hex"
	# LRH, BTH and DETH are 28 bytes (68 with a GRH: LNH 3); the TID is MAD bytes 8-15,
	# the class byte 1, the method byte 3; an SMP's data is MAD bytes 64-127.
	paste "$1.meta" "$1.hex" | awk -F'\t' '
	{
		p = $3
		mad = (substr(p, 4, 1) == "3" ? 68 : 28) * 2
		low = substr(p, mad + 25, 8)
		if (!(low in rank)) rank[low] = ++n
		head = substr(p, 1, mad + 16)
		rest = substr(p, mad + 33, length(p) - mad - 32 - 12)
		class = substr(p, mad + 3, 2); method = substr(p, mad + 7, 2)
		if ($1 == "0" && (class == "01" || class == "81") && method == "01")
			rest = substr(rest, 1, (64 - 16) * 2) sprintf("%128s", "") substr(rest, (128 - 16) * 2 + 1)
		print $1, $2, head, "T" rank[low], rest
	}'
}
for name in ibnetdiscover smpquery perfquery saquery sminfo; do
	for m in a b c; do
		if [ ! -s "$work/cap/$name.$m" ]; then
			fail "capture of $name, way $m: no file"
			continue 2
		fi
		frames "$work/cap/$name.$m" > "$work/cap/$name.$m.frames"
	done
	n=$(wc -l < "$work/cap/$name.a.frames")
	[ "$n" -gt 0 ] || fail "capture of $name by the shim: no frame"
	tshark -r "$work/cap/$name.a" 2>/dev/null | grep -qi malformed &&
		fail "capture of $name by the shim: malformed frames"
	for m in b c; do
		cmp -s "$work/cap/$name.a.frames" "$work/cap/$name.$m.frames" || {
			fail "capture of $name: the shim's on (a) and the tap's on ($m) differ:"
			diff "$work/cap/$name.a.frames" "$work/cap/$name.$m.frames" | head -6 | cut -c1-300
		}
	done
	echo "capture of $name: $n frames, the same in (a), (b) and (c)"
done

# --- node_exporter: inside the namespace, and on the mount -------------------------------
# grows NAME BEFORE AFTER: every node_infiniband_* metric of port 1 there, the traffic
# counters grown, the others as they were.
grows() {
	local name=$1 before=$2 after=$3 metric b a
	for metric in excessive_buffer_overrun_errors_total link_downed_total \
		link_error_recovery_total local_link_integrity_errors_total \
		multicast_packets_received_total multicast_packets_transmitted_total \
		port_constraint_errors_received_total port_constraint_errors_transmitted_total \
		port_data_received_bytes_total port_data_transmitted_bytes_total \
		port_discards_transmitted_total port_errors_received_total \
		port_packets_received_total port_packets_transmitted_total \
		port_receive_remote_physical_errors_total port_receive_switch_relay_errors_total \
		port_transmit_wait_total symbol_error_total unicast_packets_received_total \
		unicast_packets_transmitted_total vl15_dropped_total state_id physical_state_id \
		rate_bytes_per_second; do
		b=$(sed -n "s/^node_infiniband_$metric{device=\"sim0\",port=\"1\"} //p" "$before")
		a=$(sed -n "s/^node_infiniband_$metric{device=\"sim0\",port=\"1\"} //p" "$after")
		if [ -z "$b" ] || [ -z "$a" ]; then
			fail "node_exporter ($name): no node_infiniband_$metric for sim0 port 1"
			continue
		fi
		case $metric in
		port_data_* | port_packets_* | unicast_packets_*)
			awk -v b="$b" -v a="$a" 'BEGIN { exit !(a + 0 > b + 0) }' ||
				fail "node_exporter ($name): $metric did not grow ($b, then $a)" ;;
		*)
			[ "$a" = "$b" ] || fail "node_exporter ($name): $metric moved ($b, then $a)" ;;
		esac
	done
	grep -q '^node_infiniband_state_id{device="sim0",port="1"} 4$' "$after" ||
		fail "node_exporter ($name): the port is not Active (state_id 4)"
	grep -q '^node_infiniband_info{.*device="sim0"' "$after" ||
		fail "node_exporter ($name): no node_infiniband_info"
	echo "node_exporter ($name): $(grep -c . "$after") samples; PortXmitPkts" \
		"$(sed -n 's/^node_infiniband_port_packets_transmitted_total{device="sim0",port="1"} //p' "$before") ->" \
		"$(sed -n 's/^node_infiniband_port_packets_transmitted_total{device="sim0",port="1"} //p' "$after")"
}
if [ -s "$out/metrics_ns.before" ] && [ -s "$out/metrics_ns.after" ]; then
	grows "/sys in the namespace" "$out/metrics_ns.before" "$out/metrics_ns.after"
else
	fail "node_exporter on /sys inside the namespace: no metrics"
fi
if [ "$mounted" = yes ]; then
	scrape exporter_mount "$out/metrics_mount.after" || fail "node_exporter on the mount: no /metrics"
	stop_exporter exporter_mount
	if [ -s "$out/metrics_mount.before" ] && [ -s "$out/metrics_mount.after" ]; then
		grows "--mount DIR" "$out/metrics_mount.before" "$out/metrics_mount.after"
	fi
	# SIGTERM: umad kernel --mount unmounts and exits 0.
	kill -TERM "$(cat "$work/mount.pid")"
	if ! wait_file "$work/mount.end" 5; then
		fail "umad kernel --mount: still running 5 s after SIGTERM"
	elif [ "$(cat "$work/mount.end")" != 0 ]; then
		fail "umad kernel --mount: exit status $(cat "$work/mount.end") after SIGTERM, expected 0:"
		tail -20 "$work/mount.log" | sed 's/^/    /'
	fi
	grep -q " $work/mnt " /proc/self/mounts &&
		fail "umad kernel --mount: $work/mnt still mounted after it ended"
fi

[ "$status" -eq 0 ] && echo "PASS: (a), (b) and (c) agree on every use; the static program, node_exporter and the captures too"
exit "$status"
