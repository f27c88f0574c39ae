#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The fake sysfs tree of a shared fabric's client (UMAD_SIM_SYSFS) follows
# the fabric while the client stays attached (ibping -S, waiting for
# pings): each change is checked against the fabric's own answer (umad
# fabric show --json for the port's state, physical state, LID, width and
# speed; PortInfo read by smpquery for the SM's LID), and read back by
# ibstat through the kernel backend (UMAD_SYSFS_ROOT):
#  - UMAD_SIM_SM=none: the tree shows the ports as they power up (Init, no
#    LID); opensm in another process brings them Active with LIDs;
#  - `umad fabric link down/up` of the client's own link: Down, then Active
#    again once opensm has swept after Trap 128;
#  - the built-in SM: the link taken down from the switch's end, and every
#    link of the node (umad fabric node down/up); the built-in SM's resweep
#    brings them back.
# Skips (77) without infiniband-diags or opensm.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibping ibstat smpquery opensm python3"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }

# What runs in the background ends at exit (tests/procs.sh): TERM, then KILL.

# sim_bg LOG [NAME=VALUE...] PROGRAM ARGS...: a program on the sim backend in
# the background, started by env so that $! is the program's own id.
sim_bg() {
	local log=$1
	shift
	env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim "$@" > "$log" 2>&1 &
}

# The polls below give up after this many tenths of a second.
patience=200

# serve SOCKET ARGS...: umad fabric serve in the background.
serve() {
	local sock=$1
	shift
	env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" "$umad" fabric serve --socket "$sock" \
		"$@" 2>> "$work/serve.err" &
	for _ in $(seq 1 $patience); do [ -S "$sock" ] && return 0; sleep 0.1; done
	fail "umad fabric serve $*: no socket at $sock"
	return 1
}

# fab ARGS...: a umad fabric command on the current fabric ($sock).
fab() {
	env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" "$umad" fabric --socket "$sock" "$@"
}

# attach HOST DIR: a client that stays at HOST with its tree in DIR (ibping -S).
attach() {
	sim_bg "$work/ibping-$1.out" UMAD_SIM_FABRIC="$sock" UMAD_SIM_HOST="$1" UMAD_SIM_SYSFS="$2" \
		ibping -S
	for _ in $(seq 1 $patience); do
		[ -s "$2/sys/class/infiniband/sim0/ports/1/state" ] && return 0
		sleep 0.1
	done
	fail "the client at $1 wrote no tree in $2"
	cat "$work/ibping-$1.out"
	return 1
}

# json HOST PORT: "STATE PHYS LID WIDTH SPEED PEER PEER_PORT" of the port, as the fabric has it.
json() {
	fab show --json "$1" > "$work/json" || return 1
	python3 - "$work/json" "$1" "$2" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
node = [n for n in doc["nodes"] if n["id"] == sys.argv[2]][0]
p = [p for p in node["ports"] if p["num"] == int(sys.argv[3])][0]
peer = p["peer"] or {"id": "-", "port": 0}
print(p["state"], p["phys_state"], p["lid"], p["width"] or "-", p["speed"] or "-",
      peer["id"], peer["port"])
EOF
}

# portinfo HOST FIELD: a field of port 1's PortInfo, read through the fabric's SMA.
portinfo() {
	UMAD_SIM_FABRIC=$sock UMAD_SIM_HOST=$1 sim smpquery -D portinfo 0 1 2>/dev/null |
		sed -n "s/^$2:\.*//p"
}

# tree DIR FILE: a file of port 1 of the tree.
tree() {
	cat "$1/sys/class/infiniband/sim0/ports/1/$2" 2>/dev/null
}

# agree NAME HOST DIR STATE: wait until the tree in DIR shows port 1 in STATE
# (DOWN, INIT, ACTIVE) and as the fabric has it; fail with both if it never does.
agree() {
	local name=$1 host=$2 dir=$3 want=$4 i fstate fphys flid fwidth fspeed _ smlid
	local state phys lid sm_lid rate ok
	for i in $(seq 1 $patience); do
		read -r fstate fphys flid fwidth fspeed _ _ < <(json "$host" 1)
		smlid=$(portinfo "$host" SMLid)
		state=$(tree "$dir" state)
		phys=$(tree "$dir" phys_state)
		lid=$(tree "$dir" lid)
		sm_lid=$(tree "$dir" sm_lid)
		rate=$(tree "$dir" rate)
		ok=1
		[ "${state#*: }" = "$want" ] || ok=0
		[ "${state#*: }" = "${fstate^^}" ] || ok=0
		[ "${phys#*: }" = "$fphys" ] || ok=0
		[ -n "$lid" ] && [ $((lid)) = "$flid" ] || ok=0
		[ -n "$sm_lid" ] && [ -n "$smlid" ] && [ $((sm_lid)) = "$smlid" ] || ok=0
		# A link that is up shows its width and speed; a down one, no rate the fabric gives.
		[ "$fwidth" = - ] || [ "${rate#*(}" = "$fwidth $fspeed)" ] || ok=0
		[ $ok = 1 ] && { echo "$name: $state, $phys, lid $lid, sm_lid $sm_lid, $rate"; return 0; }
		sleep 0.1
	done
	fail "$name: the tree at $host shows state '$state', phys_state '$phys', lid '$lid'," \
		"sm_lid '$sm_lid', rate '$rate'; wanted $want; the fabric: $fstate $fphys lid $flid" \
		"$fwidth $fspeed, SMLid $smlid"
	return 1
}

# ibstat's names of the PortInfo:PortState values the tree holds as numbers.
ibstat_state=(- Down Initializing Armed Active)

# ibstat_sees NAME DIR: ibstat, on the kernel backend reading the tree, shows what the tree has.
ibstat_sees() {
	local name=$1 dir=$2 out state phys lid sm_lid
	out=$(env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_SYSFS_ROOT="$dir/sys" \
		UMAD_DEV_DIR="$dir/dev/infiniband" ibstat sim0 1 2>&1)
	state=$(tree "$dir" state)
	phys=$(tree "$dir" phys_state)
	lid=$(tree "$dir" lid)
	sm_lid=$(tree "$dir" sm_lid)
	grep -qx "State: ${ibstat_state[${state%%:*}]}" <<< "$out" &&
		grep -qx "Physical state: ${phys#*: }" <<< "$out" &&
		grep -qx "Base lid: $((lid))" <<< "$out" &&
		grep -qx "SM lid: $((sm_lid))" <<< "$out" ||
		{ fail "$name: ibstat shows otherwise than the tree (state $state, phys_state" \
			"$phys, lid $lid, sm_lid $sm_lid):"; sed 's/^/    /' <<< "$out"; }
}

# --- no SM: the ports as they power up; opensm brings them up ----------------------------
sock=$work/none/socket
serve "$sock" --sm none || exit 1
dir=$work/hca3
attach Hca3 "$dir" || exit 1
agree "powered up" Hca3 "$dir" INIT
ibstat_sees "powered up" "$dir"

# -d2: the log flushed line by line, so that SUBNET UP shows as it happens.
sim_bg "$work/osm.out" OSM_CACHE_DIR="$work/cache" UMAD_SIM_FABRIC="$sock" UMAD_SIM_HOST=Hca1 opensm -d2 -f "$work/osm.log"
osm=$!
for _ in $(seq 1 $patience); do
	grep -q "SUBNET UP" "$work/osm.log" 2>/dev/null && break
	sleep 0.1
done
grep -q "SUBNET UP" "$work/osm.log" 2>/dev/null || { fail "opensm: no SUBNET UP"; exit 1; }
agree "opensm's sweep" Hca3 "$dir" ACTIVE
# The SM's LID in the tree is the LID of opensm's port.
read -r _ _ sm_port_lid _ < <(json Hca1 1)
[ $(($(tree "$dir" sm_lid))) = "$sm_port_lid" ] && [ "$sm_port_lid" != 0 ] ||
	fail "sm_lid $(tree "$dir" sm_lid): opensm's port (Hca1/1) has LID $sm_port_lid"
ibstat_sees "opensm's sweep" "$dir"
lid_before=$(tree "$dir" lid)

fab link down Hca3 1 || fail "umad fabric link down Hca3 1"
agree "link down" Hca3 "$dir" DOWN
ibstat_sees "link down" "$dir"
fab link up Hca3 1 || fail "umad fabric link up Hca3 1"
agree "link up, opensm's sweep" Hca3 "$dir" ACTIVE
ibstat_sees "link up" "$dir"
[ "$(tree "$dir" lid)" = "$lid_before" ] ||
	fail "link up: lid $(tree "$dir" lid), it was $lid_before (opensm keeps a port's LID)"

# opensm ends on SIGTERM while its fabric still serves.  (Ended with the server
# gone instead, its receiving thread spins on EIO, as on a removed device, and
# opensm 3.3 can deadlock in its own exit, on a lock of its own that a
# thread it ended held.)
kill -TERM "$osm"
for _ in $(seq 1 $patience); do kill -0 "$osm" 2>/dev/null || break; sleep 0.1; done
kill -0 "$osm" 2>/dev/null && fail "opensm still ran $((patience / 10)) s after SIGTERM"
end_procs "$osm"

# --- the built-in SM: from the switch's end, and the whole node ---------------------------
sock=$work/builtin/socket
serve "$sock" --sm builtin || exit 1
dir=$work/hca2
attach Hca2 "$dir" || exit 1
agree "built-in SM" Hca2 "$dir" ACTIVE
read -r _ _ _ _ _ peer peer_port < <(json Hca2 1)
[ "$peer" != - ] || { fail "Hca2 port 1 has no peer in the fabric's JSON"; exit 1; }
fab link down "$peer" "$peer_port" || fail "umad fabric link down $peer $peer_port"
agree "link down at $peer/$peer_port" Hca2 "$dir" DOWN
ibstat_sees "link down at $peer/$peer_port" "$dir"
fab link up "$peer" "$peer_port" || fail "umad fabric link up $peer $peer_port"
agree "link up at $peer/$peer_port, the built-in SM's resweep" Hca2 "$dir" ACTIVE
fab node down Hca2 || fail "umad fabric node down Hca2"
agree "node down" Hca2 "$dir" DOWN
fab node up Hca2 || fail "umad fabric node up Hca2"
agree "node up" Hca2 "$dir" ACTIVE
ibstat_sees "node up" "$dir"

# The clients were there all along.
for host in Hca3 Hca2; do
	grep -q "went away" "$work/ibping-$host.out" &&
		fail "the client at $host lost its fabric: $(cat "$work/ibping-$host.out")"
done
exit $status
