#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# A fabric reached over TCP between two hosts: two network namespaces joined
# by a veth pair (tests/netns_pair.sh).  `umad fabric serve --listen` runs
# in A; in B, Debian's unmodified opensm and infiniband-diags are its
# clients (UMAD_SIM_FABRIC=tcp:HOST:PORT, UMAD_SIM_FABRIC_KEY):
#  - opensm in B brings the fabric up; in A and B, sminfo, saquery,
#    ibnetdiscover, ibroute, perfquery see what it set, over IPv4 and, when
#    the kernel has it, IPv6; ibstat over every address of the host;
#  - a client with another key, or none, is refused with a message, and the
#    server says why;
#  - saquery -p killed while its PathRecord table comes leaves the server
#    serving, its memory back;
#  - 64 clients in B at once.
# Skips (77) when not root, without network namespaces, opensm or the diags.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm sminfo saquery perfquery ibroute ibnetdiscover smpquery ibstat"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
. "$top_srcdir/tests/netns_pair.sh"

(umask 077; head -c 32 /dev/urandom | base64 > "$work/key"; head -c 32 /dev/urandom | base64 > "$work/other")
mkdir -m 700 "$work/cache"
netns_pair_up

# expect NAME FILE REGEX: FILE must have a line matching REGEX.
expect() {
	grep -q -- "$3" "$2" || { fail "$1: no line matching '$3' in:"; sed 's/^/    /' "$2" | head -20; }
}

# remote NS ADDR:PORT CMD...: CMD in namespace NS (a, b or host) as a client of the fabric there.
remote() {
	local ns=$1 at=$2
	shift 2
	case "$ns" in
	a) set -- ip netns exec "$NETNS_A" "$@" ;;
	b) set -- ip netns exec "$NETNS_B" "$@" ;;
	esac
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim UMAD_SIM_FABRIC="tcp:$at" \
		UMAD_SIM_FABRIC_KEY="${KEY:-$work/key}" OSM_CACHE_DIR=$work/cache timeout 120 "$@"
}

server=
# serve NS ADDR TOPOLOGY...: the fabric served in NS (a, or host), listening over TCP at ADDR
# (port 0: one the system picks); $at is where it listens then.
serve() {
	local ns=$1 addr=$2 i
	shift 2
	: > "$work/serve.err"
	if [ "$ns" = a ]; then
		LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" ip netns exec "$NETNS_A" "$umad" fabric serve \
			--sm none --socket "$work/sock" --listen "$addr" --key-file "$work/key" "$@" \
			2> "$work/serve.err" &
	else
		LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" "$umad" fabric serve \
			--sm none --socket "$work/sock" --listen "$addr" --key-file "$work/key" "$@" \
			2> "$work/serve.err" &
	fi
	server=$!
	tcp_listening "$server" "$work/serve.err" && return 0
	fail "the server did not listen at $addr: $(cat "$work/serve.err")"
	return 1
}

stop_server() {
	[ -n "$server" ] || return 0
	end_procs "$server"
	server=
}

# start_opensm NS: opensm as a client there, in the background; waits for SUBNET UP.
# ($osm is the shell running remote: stop_opensm ends it and opensm below it.)
osm=
start_opensm() {
	rm -f "$work/osm.log"
	remote "$1" "$at" opensm -d2 -f "$work/osm.log" > "$work/osm.out" 2>&1 &
	osm=$!
	for _ in $(seq 1 300); do
		grep -q "SUBNET UP" "$work/osm.log" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "opensm over TCP: no SUBNET UP: $(tail -3 "$work/osm.log" 2>/dev/null) $(cat "$work/osm.out")"
	return 1
}

stop_opensm() {
	[ -n "$osm" ] || return 0
	end_procs "$osm"
	osm=
}

# the_diags NS NAME: what the diags in NS see, into $work/NAME.
the_diags() {
	local ns=$1 out=$work/$2
	{
		remote "$ns" "$at" sminfo | sed "s/^/sminfo: /"
		remote "$ns" "$at" saquery | grep -c "^NodeRecord" | sed "s/^/noderecords: /"
		remote "$ns" "$at" ibnetdiscover | grep -c "^Ca" | sed "s/^/cas: /"
		remote "$ns" "$at" ibroute -G 0x200000 | grep -c "^0x" | sed "s/^/routes: /"
		remote "$ns" "$at" perfquery | grep "PortXmitPkts" | sed "s/^/perfquery: /"
	} > "$out" 2>&1
	expect "$2: sminfo (opensm's SM)" "$out" "^sminfo: sminfo: sm lid [1-9].*SMINFO_MASTER"
	expect "$2: saquery (opensm's SA)" "$out" "^noderecords: 6$"
	expect "$2: ibnetdiscover" "$out" "^cas: 4$"
	expect "$2: ibroute" "$out" "^routes: [1-9]"
	expect "$2: perfquery" "$out" "^perfquery: PortXmitPkts:\.*[1-9]"
}

# --- opensm in B, the diags in A and B, over each address family -----------------------------
check_family() {
	local name=$1 addr=$2
	serve a "$addr" || return
	if start_opensm b; then
		the_diags b "$name-b"
		the_diags a "$name-a"
	fi
	stop_opensm
	stop_server
}
check_family ipv4 "$NETNS_A4:0"
[ -z "$NETNS_A6" ] || check_family ipv6 "[$NETNS_A6]:0"

# --- every address of the host: its loopback, both families, and each global one ----------------
host_addrs="127.0.0.1:0 [::1]:0"
for a in $(ip -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4 }'); do
	case $a in
	*:*) host_addrs="$host_addrs [$a]:0" ;;
	*) host_addrs="$host_addrs $a:0" ;;
	esac
done
for addr in $host_addrs; do
	serve host "$addr" || continue
	remote host "$at" ibstat > "$work/lo.out" 2>&1
	expect "ibstat over $addr" "$work/lo.out" "CA 'sim0'"
	stop_server
done

# --- the key: another one, or none ------------------------------------------------------------
serve a "$NETNS_A4:0"
KEY=$work/other remote b "$at" ibstat > "$work/bad.out" 2>&1 && fail "a client with another key got through"
expect "another key: the client is told" "$work/bad.out" \
	"the server refused the handshake: the client does not know the fabric's key"
expect "another key: the server says so" "$work/serve.err" \
	"client at $NETNS_B4:[0-9]* refused: the peer (the client) does not know the fabric's key"
env -u UMAD_SIM_FABRIC_KEY LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim \
	UMAD_SIM_FABRIC="tcp:$at" ip netns exec "$NETNS_B" ibstat > "$work/nokey.out" 2>&1 &&
	fail "a client without a key got through"
expect "no key: the client is told" "$work/nokey.out" "needs its key: set UMAD_SIM_FABRIC_KEY"

# --- 64 clients at once -------------------------------------------------------------------------
for i in $(seq 1 64); do
	remote b "$at" smpquery -D nodeinfo 0,1 > "$work/c$i" 2>&1 &
done
wait $(jobs -p | grep -vx "$server")
ok=0
for i in $(seq 1 64); do grep -q "^PortGuid" "$work/c$i" && ok=$((ok + 1)); done
[ "$ok" = 64 ] || { fail "64 clients at once over TCP: $ok answered"; head -5 "$work/c1"; }
stop_server

# --- a client that vanishes while its PathRecord table comes -------------------------------------
sh "$top_srcdir/scripts/gen-fattree" 36 2 > "$work/ft.net"
serve a "$NETNS_A4:0" -t "$work/ft.net" --sm builtin
remote b "$at" saquery -p > "$work/paths.whole" 2>&1
whole=$(grep -c "^PathRecord" "$work/paths.whole")
[ "$whole" -gt 100000 ] || fail "saquery -p over TCP: $whole PathRecords"
for delay in 0.05 0.1 0.2 0.4; do
	remote b "$at" saquery -p > /dev/null 2>&1 &
	sleep "$delay"
	# saquery itself, and the shell and timeout it runs under.
	kill -9 $(procs_tree $!) 2>/dev/null
	wait $! 2>/dev/null
done
kill -0 "$server" 2>/dev/null || fail "the server died after clients vanished mid-table"
remote b "$at" saquery -p > "$work/paths.after" 2>&1
after=$(grep -c "^PathRecord" "$work/paths.after")
[ "$after" = "$whole" ] || fail "saquery -p after the vanished clients: $after PathRecords, not $whole"
# What the server held for them is let go: it is back near the size it had serving one.
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$server/status" 2>/dev/null)
[ -n "$rss" ] && [ "$rss" -lt 1048576 ] || fail "the server holds ${rss:-?} kB after the vanished clients"
stop_server

[ "$status" -eq 0 ] && echo "PASS: a fabric over TCP between two namespaces"
exit "$status"
