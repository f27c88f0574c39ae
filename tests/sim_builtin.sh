#!/bin/bash
# Debian's unmodified infiniband-diags and opensm on the simulated fabric as
# the built-in SM leaves it (UMAD_SIM_SM=builtin, the default), one process
# each, on the default fabric, an ibsim example and a generated fat tree:
#  - LIDs, Active ports and the SM: ibstat, sminfo, ibnetdiscover's LIDs;
#  - LID-routed SMPs: smpquery, ibaddr, ibroute, dump_lfts, ibtracert,
#    ibportstate (query, disable, enable), ibidsverify -R;
#  - the PMA: perfquery (local, by LID, -x, -r) with the process's own MADs
#    counted; ibqueryerrors clean, and failing on errors injected through
#    libumad-sim;
#  - the SA: saquery's node records, PathRecords by LID and GUID, the
#    multicast groups; congestion control: ibccquery;
#  - on each of ibsim's example files and a fat tree too: the SA's records, LIDs
#    everywhere, sminfo, perfquery, smpquery, ibroute, ibtracert, a PathRecord;
#  - opensm -o on the default: SUBNET UP, master.
# Skips (77) without opensm or infiniband-diags.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm ibnetdiscover ibstat smpquery perfquery saquery sminfo ibroute ibtracert ibaddr
ibportstate ibqueryerrors ibccquery dump_lfts ibidsverify"
. "$(dirname "$0")/sim_env.sh"
export UMAD_SIM_SM=builtin
examples=/usr/share/doc/ibsim-utils/net-examples

# expect NAME FILE REGEX: FILE must have a line matching REGEX.
expect() {
	grep -q -- "$3" "$2" || { fail "$1: no line matching '$3' in:"; sed 's/^/    /' "$2" | head -30; }
}

# run NAME COMMAND...: on the fabric; its output in $work/out; a failure is reported.
run() {
	local name=$1
	shift
	if ! sim timeout 60 "$@" > "$work/out" 2>&1; then
		fail "$name: exit status $?"
		sed 's/^/    /' "$work/out" | head -30
		return 1
	fi
}

# lid_of NODE: the base LID of a node's port 1 (port 0 for a switch), as ibaddr at it sees it.
lid_of() {
	UMAD_SIM_HOST=$1 sim ibaddr 2>/dev/null | sed -n 's/.*LID start 0x\([0-9a-f]*\).*/\1/p' |
		{ read -r hex && printf '%d\n' "0x$hex"; }
}

# lid_of_first_ca TOPOLOGY: the LID of the port the process attaches at (the file's first CA).
lid_of_first_ca() {
	UMAD_SIM_TOPOLOGY=$1 sim ibaddr 2>/dev/null | sed -n 's/.*LID start 0x\([0-9a-f]*\).*/\1/p' |
		{ read -r hex && printf '%d\n' "0x$hex"; }
}

# --- the default fabric -----------------------------------------------------------------
run "ibstat" ibstat
expect "ibstat" "$work/out" "State: Active"
expect "ibstat" "$work/out" "Base lid: [1-9]"
expect "ibstat" "$work/out" "SM lid: [1-9]"

lid1=$(lid_of Hca1)
lid3=$(lid_of Hca3)
sw2=$(lid_of Switch2)
[ -n "$lid1" ] && [ -n "$lid3" ] && [ -n "$sw2" ] && [ "$lid1" != "$lid3" ] ||
	fail "LIDs: Hca1 '$lid1', Hca3 '$lid3', Switch2 '$sw2'"
echo "ok: LIDs Hca1 $lid1, Hca3 $lid3, Switch2 $sw2"

run "sminfo" sminfo
expect "sminfo" "$work/out" "SMINFO_MASTER"
expect "sminfo" "$work/out" "sm lid $lid1 "

run "ibnetdiscover" ibnetdiscover
expect "ibnetdiscover" "$work/out" "lid $lid3 "
if grep -q '# lid 0 ' "$work/out"; then
	fail "ibnetdiscover: a connected port without a LID"
fi

# LID-routed SMPs.
run "smpquery nodeinfo by LID" smpquery nodeinfo "$lid3"
expect "smpquery nodeinfo" "$work/out" "^Guid:.*0x0000000000100006"
run "smpquery portinfo by LID" smpquery portinfo "$lid3" 1
expect "smpquery portinfo" "$work/out" "LinkState:.*Active"
run "ibaddr by LID" ibaddr "$lid3"
expect "ibaddr" "$work/out" "LID start 0x$(printf '%x' "$lid3")"
run "ibroute" ibroute "$sw2"
expect "ibroute" "$work/out" "^0x$(printf '%04x' "$lid3") 001 "
expect "ibroute" "$work/out" "valid lids dumped"
run "dump_lfts" dump_lfts
expect "dump_lfts" "$work/out" "Unicast lids"
run "ibtracert" ibtracert "$lid1" "$lid3"
expect "ibtracert" "$work/out" "To ca.*Hca3"
expect "ibtracert" "$work/out" "switch.*Switch2"
# ibidsverify is silent on a fabric without duplicate GUIDs or LIDs.
run "ibidsverify -R" ibidsverify -R
if [ -s "$work/out" ]; then fail "ibidsverify -R:"; sed 's/^/    /' "$work/out"; fi

# ibportstate by LID: query, then take Hca2's switch port down and up again.
run "ibportstate query" ibportstate "$lid3" 1
expect "ibportstate query" "$work/out" "LinkState:.*Active"
run "ibportstate disable" ibportstate "$(lid_of Switch1)" 2 disable
expect "ibportstate disable" "$work/out" "PhysLinkState:.*Disabled"
run "ibportstate enable" ibportstate "$(lid_of Switch1)" 2 enable
expect "ibportstate enable" "$work/out" "PhysLinkState:.*\(LinkUp\|Polling\)"

# The PMA: local, by LID, extended, reset; the process's own MADs in its port's counters.
run "perfquery" perfquery
expect "perfquery" "$work/out" "PortXmitPkts:"
run "perfquery by LID" perfquery "$lid3" 1
expect "perfquery by LID" "$work/out" "PortRcvPkts:"
run "perfquery -x" perfquery -x "$lid3" 1
expect "perfquery -x" "$work/out" "PortUnicastXmitPkts:"
run "perfquery -r" perfquery -r "$lid3" 1
run "perfquery after -r" perfquery "$lid3" 1
pkts=$(sed -n 's/^PortRcvPkts:\.*\([0-9]*\)/\1/p' "$work/out")
[ -n "$pkts" ] && [ "$pkts" -le 4 ] || fail "perfquery -r: PortRcvPkts $pkts afterwards"
# The switch port facing the host counts what this perfquery sent it (ClassPortInfo, PortCounters).
run "perfquery (own MADs)" perfquery -x "$(lid_of Switch1)" 1
pkts=$(sed -n 's/^PortRcvPkts:\.*\([0-9]*\)/\1/p' "$work/out")
[ -n "$pkts" ] && [ "$pkts" -ge 2 ] || fail "perfquery: the process's own MADs not counted ($pkts)"

# ibqueryerrors: a clean fabric passes; an error injected through the API is found.
run "ibqueryerrors clean" ibqueryerrors
if grep -q "Errors for" "$work/out"; then fail "ibqueryerrors on a clean fabric:"; cat "$work/out"; fi
LD_PRELOAD="$top_builddir/tests/.libs/inject_errors.so${LD_PRELOAD:+:$LD_PRELOAD}" \
	UMAD_TEST_INJECT="Hca3 1 SymbolErrorCounter 7" sim timeout 60 ibqueryerrors > "$work/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "ibqueryerrors exited 0 with an injected error"
expect "ibqueryerrors injected" "$work/out" "SymbolErrorCounter.*7"

# The SA.
run "saquery" saquery
n=$(grep -c "NodeRecord dump" "$work/out")
[ "$n" -eq 6 ] || fail "saquery: $n node records, expected 6 (2 switches, 4 connected HCA ports)"
run "saquery PathRecord by LID" saquery -p --src-to-dst "$lid1:$lid3"
expect "saquery PR" "$work/out" "dlid\.*$lid3\$"
run "saquery PathRecord by GUID" saquery -p --sgid-to-dgid \
	"fe80::10:1-fe80::10:7"
expect "saquery PR by GUID" "$work/out" "PathRecord dump"
run "saquery -g" saquery -g
expect "saquery -g" "$work/out" "ff12:401b:ffff::ffff:ffff"
run "saquery -s" saquery -s
expect "saquery -s" "$work/out" "PortInfoRecord dump"

# Congestion control.
run "ibccquery" ibccquery CongestionInfo "$sw2"
expect "ibccquery" "$work/out" "CongestionInfo"

# --- other fabrics: ibsim's example, a fat tree -------------------------------------------
for topo in "$examples"/net* "fattree"; do
	if [ "$topo" = fattree ]; then
		"$top_srcdir/scripts/gen-fattree" 8 > "$work/ft.net"
		topo=$work/ft.net
	fi
	[ -f "$topo" ] || continue
	UMAD_SIM_TOPOLOGY=$topo run "saquery on $topo" saquery
	nodes=$(grep -c "NodeRecord dump" "$work/out")
	UMAD_SIM_TOPOLOGY=$topo run "ibnetdiscover on $topo" ibnetdiscover
	if grep -q '# lid 0 ' "$work/out"; then fail "$topo: a connected port without a LID"; fi
	UMAD_SIM_TOPOLOGY=$topo run "ibqueryerrors on $topo" ibqueryerrors
	# LIDs to aim at: the last CA port and the last switch discovery lists.
	UMAD_SIM_TOPOLOGY=$topo run "ibnetdiscover -p on $topo" ibnetdiscover -p
	ca=$(awk '$1 == "CA" { lid = $2 } END { print lid }' "$work/out")
	sw=$(awk '$1 == "SW" { lid = $2 } END { print lid }' "$work/out")
	[ -n "$ca" ] && [ -n "$sw" ] || { fail "$topo: no CA or switch LID in ibnetdiscover -p"; continue; }
	UMAD_SIM_TOPOLOGY=$topo run "sminfo on $topo" sminfo
	expect "sminfo on $topo" "$work/out" "SMINFO_MASTER"
	UMAD_SIM_TOPOLOGY=$topo run "perfquery on $topo" perfquery -x "$ca" 1
	expect "perfquery on $topo" "$work/out" "PortXmitData:"
	UMAD_SIM_TOPOLOGY=$topo run "smpquery on $topo" smpquery nodeinfo "$ca"
	UMAD_SIM_TOPOLOGY=$topo run "ibroute on $topo" ibroute "$sw"
	expect "ibroute on $topo" "$work/out" "valid lids dumped"
	UMAD_SIM_TOPOLOGY=$topo run "ibtracert on $topo" ibtracert "$(lid_of_first_ca "$topo")" "$ca"
	expect "ibtracert on $topo" "$work/out" "^To ca"
	UMAD_SIM_TOPOLOGY=$topo run "saquery PR on $topo" saquery -p --src-to-dst \
		"$(lid_of_first_ca "$topo"):$ca"
	expect "saquery PR on $topo" "$work/out" "dlid\.*$ca\$"
	echo "ok: $topo: $nodes node records, every port with a LID; sminfo, perfquery, smpquery," \
		"ibroute, ibtracert and a PathRecord to LID $ca"
done

# --- opensm on the built-in SM's fabric: it takes over -----------------------------------
OSM_CACHE_DIR="$work/cache" sim timeout 120 opensm -o -f "$work/osm.log" -d 0 \
	> "$work/osm.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "opensm -o on the built-in SM's fabric: exit $rc"
expect "opensm -o" "$work/osm.log" "SUBNET UP"
expect "opensm -o" "$work/osm.log" "Entering MASTER state"

exit $status
