#!/bin/bash
# Debian's unmodified opensm and infiniband-diags, loading our libibumad.so.3
# through LD_LIBRARY_PATH, on the simulated fabric (UMAD_BACKEND=sim, no
# ibsim running):
#  - opensm -o reaches SUBNET UP on the default fabric, on ibsim's example
#    files and on a 2-level fat tree of 648 HCAs;
#  - ibnetdiscover lists every node, port and link of each file: compared,
#    normalised by node description, with the file itself and with what
#    ibsim + umad2sim make Debian's ibnetdiscover print for the same file;
#    iblinkinfo prints every line as under ibsim;
#  - ibstat, ibaddr, smpquery -D (nodeinfo, portinfo, nodedesc, switchinfo),
#    iblinkinfo, ibswitches and ibhosts print the fabric's values;
#  - UMAD_SIM_HOST, topology errors, and the fake sysfs tree read back by the
#    kernel backend.
# Skips (77) without opensm or infiniband-diags; the ibsim comparison is
# skipped alone without ibsim-utils/libumad2sim0.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
examples=/usr/share/doc/ibsim-utils/net-examples
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
needs="opensm ibnetdiscover ibstat smpquery iblinkinfo"
. "$(dirname "$0")/sim_env.sh"

# The tools must really load our library, not Debian's.
loaded=$(LD_LIBRARY_PATH="$libs" ldd "$(command -v ibnetdiscover)" | awk '/libibumad.so.3/ { print $3 }')
[ "$loaded" -ef "$libs/libibumad.so.3" ] || fail "ibnetdiscover loads $loaded, not $libs/libibumad.so.3"

# expect NAME FILE REGEX: FILE must have a line matching REGEX.
expect() {
	grep -q -- "$3" "$2" || { fail "$1: no line matching '$3' in:"; sed 's/^/    /' "$2" | head -40; }
}

# normalise FILE [rates]: the nodes ("TYPE desc ports") and links ("desc[p] desc[p]",
# each once, ends in order) of an ibsim net file or of ibnetdiscover's output, named
# by node description (the node id when there is none).  With "rates", each link
# also carries the rate ibnetdiscover printed for it.
normalise() {
	awk -v rates="${2:-}" '
	function quoted(s, n,   i, out) {	# the n-th quoted string of s
		for (i = 1; i <= n; i++) {
			if (!match(s, /"[^"]*"/))
				return ""
			out = substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		}
		return out
	}
	function header(s) { return s ~ /^[ \t]*(Switch|Hca|Ca|Rt)[ \t]/ }
	NR == FNR {
		if (header($0)) {
			id = quoted($0, 1)
			d = quoted($0, 2)
			desc[id] = d != "" ? d : id
		}
		next
	}
	header($0) {
		type = $1 == "Hca" ? "Ca" : $1
		node = desc[quoted($0, 1)]
		print "node " type " \"" node "\" " $2
		next
	}
	/^[ \t]*\[/ && node != "" {
		match($0, /^[ \t]*\[[0-9]+\]/)
		lp = substr($0, RSTART, RLENGTH); gsub(/[ \t]/, "", lp)
		rest = substr($0, RSTART + RLENGTH)
		rid = quoted(rest, 1)
		match(rest, /"[^"]*"\[[0-9]+\]/)
		rp = substr(rest, RSTART, RLENGTH); sub(/^"[^"]*"/, "", rp)
		a = "\"" node "\"" lp
		b = "\"" desc[rid] "\"" rp
		rate = ""
		if (rates != "" && match($0, /[0-9]+x[A-Z0-9]+[ \t]*$/))
			rate = " " substr($0, RSTART, RLENGTH)
		print "link " (a < b ? a " " b : b " " a) rate
		next
	}
	/^[ \t]*$/ { node = "" }
	' "$1" "$1" | sort -u
}

# --- the fabrics -------------------------------------------------------------------
"$top_srcdir/scripts/gen-fattree" 36 > "$work/ft36.net" || fail "gen-fattree"
grep -q . "$work/ft36.net" || fail "gen-fattree wrote nothing"
printf '%s\n' \
	'# The embedded default fabric, as a file, for the comparisons' \
	'Switch 8 "Switch1"' '[1] "Hca1"[1]' '[2] "Hca2"[1]' '[7] "Switch2"[7]' '[8] "Switch2"[8]' '' \
	'Switch 8 "Switch2"' '[1] "Hca3"[1]' '[2] "Hca4"[1]' '[7] "Switch1"[7]' '[8] "Switch1"[8]' '' \
	'Hca 2 "Hca1"' '[1] "Switch1"[1]' '' 'Hca 2 "Hca2"' '[1] "Switch1"[2]' '' \
	'Hca 2 "Hca3"' '[1] "Switch2"[1]' '' 'Hca 2 "Hca4"' '[1] "Switch2"[2]' > "$work/default.net"
nets="$work/default.net"
for f in net net.1 net.2sw2path net.2sw2path4hca net.2sw2path4hca2port; do
	[ -f "$examples/$f" ] && nets="$nets $examples/$f"
done
nets="$nets $work/ft36.net"

# --- ibnetdiscover: every node, port and link, against the file -------------------
sim ibnetdiscover > "$work/default.ibnd" 2> "$work/err" || { fail "ibnetdiscover on the default fabric"; cat "$work/err"; }
normalise "$work/default.ibnd" > "$work/a"
normalise "$work/default.net" | grep '^link' > "$work/b"
diff <(grep '^link' "$work/a") "$work/b" > /dev/null ||
	{ fail "ibnetdiscover on the embedded default fabric differs from it"; diff <(grep '^link' "$work/a") "$work/b"; }
[ "$(grep -c '^link' "$work/a")" -eq 6 ] || fail "the default fabric should show 6 links"

for net in $nets; do
	name=$(basename "$net")
	UMAD_SIM_TOPOLOGY="$net" sim ibnetdiscover > "$work/$name.ibnd" 2> "$work/err" ||
		{ fail "ibnetdiscover on $name"; cat "$work/err"; continue; }
	normalise "$work/$name.ibnd" > "$work/ours"
	# Every link of the file; the nodes, except that a node with no link is unreachable.
	normalise "$net" | grep '^link' > "$work/want"
	if ! diff <(grep '^link' "$work/ours") "$work/want" > "$work/diff"; then
		fail "ibnetdiscover on $name: links differ from the file"
		head -20 "$work/diff"
	fi
	nodes=$(grep -c '^node' "$work/ours")
	links=$(grep -c '^link' "$work/ours")
	ports=$(grep -c '^\[' "$work/$name.ibnd")
	echo "ok: ibnetdiscover on $name: $nodes nodes, $ports ports, $links links, as in the file"
done
[ "$(grep -c '^\[' "$work/ft36.net.ibnd")" -eq 2592 ] || fail "ft36: expected 2592 port lines"

# --- the same against ibsim + umad2sim (Debian's library, ibsim's fabric) --------------
if command -v ibsim > /dev/null 2>&1 && [ -f "$umad2sim" ]; then
	. "$top_srcdir/scripts/ibsim-session.sh"
	for net in $nets; do
		name=$(basename "$net")
		[ -f "$work/$name.ibnd" ] || continue
		(
			mkdir "$work/ibsim" || exit 1
			# ibsim and its console end with this subshell: TERM, then KILL.
			ibsim_keep_trap=1
			trap 'end_procs ${sim:-} ${ibsim_console_holder:-}; rm -rf "$work/ibsim"' EXIT
			start_ibsim "$net" "$work/ibsim" || exit 1
			[ "$name" = ft36.net ] && sleep 2
			LD_PRELOAD="$umad2sim" ibnetdiscover > "$work/$name.theirs" 2> "$work/$name.theirs.err" &&
			LD_PRELOAD="$umad2sim" iblinkinfo > "$work/$name.theirs.links" 2>> "$work/$name.theirs.err"
		) || { fail "ibnetdiscover under ibsim on $name"; cat "$work/$name.theirs.err"; continue; }
		# iblinkinfo: every port's line the same, down ports and "Could be" hints included.
		UMAD_SIM_TOPOLOGY="$net" sim iblinkinfo > "$work/$name.links" 2>&1
		if diff <(grep -v ibwarn "$work/$name.links" | sort) \
			<(grep -v ibwarn "$work/$name.theirs.links" | sort) > "$work/diff"; then
			echo "ok: iblinkinfo on $name: every line as under ibsim"
		else
			fail "iblinkinfo on $name differs from ibsim's (ours <, ibsim >)"
			head -20 "$work/diff"
		fi
		if diff <(normalise "$work/$name.ibnd" rates) <(normalise "$work/$name.theirs" rates) > "$work/diff"; then
			echo "ok: ibnetdiscover on $name: the same nodes, links and rates as under ibsim"
		else
			fail "ibnetdiscover on $name differs from ibsim's (ours <, ibsim >)"
			head -20 "$work/diff"
		fi
		# GUIDs follow ibsim's scheme: the same node GUIDs in both.
		diff <(grep -o '^\(Switch\|Ca\).*"[SH]-[0-9a-f]*"' "$work/$name.ibnd" | sort) \
			<(grep -o '^\(Switch\|Ca\).*"[SH]-[0-9a-f]*"' "$work/$name.theirs" | sort) > /dev/null ||
			fail "$name: node GUIDs differ from ibsim's"
	done
else
	echo "SKIP (part): ibsim-utils/libumad2sim0 not installed: no comparison with ibsim"
fi

# --- opensm -o: one sweep to SUBNET UP ----------------------------------------------------
for net in default $nets; do
	name=$(basename "$net")
	rm -rf "$work/cache" && mkdir "$work/cache"
	log=$work/osm-$name.log
	if [ "$net" = default ]; then topo=; else topo=$net; fi
	# A private cache: opensm reads its neighbour list from it.
	OSM_CACHE_DIR="$work/cache" UMAD_SIM_TOPOLOGY="$topo" \
		sim timeout 300 opensm -o -f "$log" > "$work/osm.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q 'SUBNET UP' "$log"; then
		fail "opensm -o on $name (exit $rc): no SUBNET UP"
		grep -i 'err\|subnet' "$log" | head -10
		cat "$work/osm.out"
		continue
	fi
	errs=$(grep -c ' ERR ' "$log")
	[ "$errs" -eq 0 ] || { fail "opensm on $name logged $errs errors"; grep ' ERR ' "$log" | head -5; }
	# It gave a LID to every switch and every cabled CA port (its cache lists them), all different.
	[ "$net" = default ] && ibnd=$work/default.ibnd || ibnd=$work/$name.ibnd
	want=$(awk '/^Switch/ { n++; ca = 0 } /^Ca/ { ca = 1 } /^\[/ && ca { n++ } /^$/ { ca = 0 } END { print n }' "$ibnd")
	lids=$(awk 'NF == 3 { print $2 }' "$work/cache/guid2lid" 2>/dev/null | sort -u | grep -vc '^0x0000$')
	[ "$lids" -eq "$want" ] || fail "opensm on $name assigned $lids distinct LIDs, expected $want"
	echo "ok: opensm -o on $name: SUBNET UP, $lids LIDs, $errs errors"
done
# opensm claims IsSM through the issm file itself (ERR 5431 if it could not).
grep -q 'ERR 5431' "$work/osm-default.log" && fail "opensm could not open the issm device"
grep -q 'Setting IS_SM on port 0x0000000000100001' "$work/osm-default.log" ||
	fail "opensm did not set IsSM on the host port"

# --- the diags' values on the default fabric ------------------------------------------------
run() {	# run NAME CMD...: output in $work/out
	local name=$1
	shift
	if ! sim "$@" > "$work/out" 2> "$work/err"; then
		fail "$name exited non-zero"
		cat "$work/err"
	fi
}
run ibstat ibstat
expect ibstat "$work/out" "^CA 'sim0'"
expect ibstat "$work/out" "Number of ports: 2"
expect ibstat "$work/out" "Node GUID: 0x0000000000100000"
expect ibstat "$work/out" "Port GUID: 0x0000000000100001"
expect ibstat "$work/out" "State: Initializing"
expect ibstat "$work/out" "Physical state: LinkUp"
expect ibstat "$work/out" "Rate: 10"
expect ibstat "$work/out" "Link layer: InfiniBand"
# Port 2 of the host is not cabled.
awk '/Port 2:/ { p = 1 } p && /State:/ { print; exit }' "$work/out" | grep -q 'Down' ||
	fail "ibstat: port 2 should be Down"
run "ibstat -l" ibstat -l
[ "$(cat "$work/out")" = sim0 ] || fail "ibstat -l: '$(cat "$work/out")'"
run "ibstat -p" ibstat -p
[ "$(tr '\n' ' ' < "$work/out")" = "0x0000000000100001 0x0000000000100002 " ] ||
	fail "ibstat -p: $(cat "$work/out")"

run ibaddr ibaddr
expect ibaddr "$work/out" "^GID fe80::10:1 LID start 0x0 end 0x0"

run "smpquery nodeinfo" smpquery -D nodeinfo 0,1,7
expect nodeinfo "$work/out" "^NodeType:\.*Switch"
expect nodeinfo "$work/out" "^NumPorts:\.*8"
expect nodeinfo "$work/out" "^Guid:\.*0x0000000000200001"
expect nodeinfo "$work/out" "^LocalPort:\.*7"
run "smpquery nodeinfo (CA)" smpquery -D nodeinfo 0,1,8,2
expect "nodeinfo (CA)" "$work/out" "^NodeType:\.*Channel Adapter"
expect "nodeinfo (CA)" "$work/out" "^PortGuid:\.*0x000000000010000a"
run "smpquery nodedesc" smpquery -D nodedesc 0,1,7,1
expect nodedesc "$work/out" "Node Description:\.*Hca3$"
run "smpquery portinfo" smpquery -D portinfo 0,1 7
expect portinfo "$work/out" "^LinkWidthActive:\.*4X"
expect portinfo "$work/out" "^LinkState:\.*Initialize"
expect portinfo "$work/out" "^PhysLinkState:\.*LinkUp"
expect portinfo "$work/out" "^LinkSpeedActive:\.*2.5 Gbps"
run "smpquery portinfo (down)" smpquery -D portinfo 0,1 4
expect "portinfo (down)" "$work/out" "^LinkState:\.*Down"
expect "portinfo (down)" "$work/out" "^PhysLinkState:\.*Polling"
run "smpquery switchinfo" smpquery -D switchinfo 0,1
expect switchinfo "$work/out" "^LinearFdbCap:\.*49152"
expect switchinfo "$work/out" "^McastFdbCap:\.*1024"
# A path into nothing times out, as on hardware.
if sim smpquery -D nodeinfo 0,1,3 > "$work/out" 2>&1; then
	fail "smpquery over an uncabled port succeeded"
fi

run iblinkinfo iblinkinfo
[ "$(grep -c '==( 4X' "$work/out")" -eq 12 ] || fail "iblinkinfo: expected 12 active port lines (6 links, both ends)"
[ "$(grep -c 'Down/ Polling' "$work/out")" -eq 8 ] || fail "iblinkinfo: expected 8 switch ports down"
run ibswitches ibswitches
[ "$(wc -l < "$work/out")" -eq 2 ] || fail "ibswitches: expected 2 lines"
expect ibswitches "$work/out" '0x0000000000200000 ports 8 "Switch1"'
expect ibswitches "$work/out" '0x0000000000200001 ports 8 "Switch2"'
run ibhosts ibhosts
[ "$(wc -l < "$work/out")" -eq 4 ] || fail "ibhosts: expected 4 lines"
expect ibhosts "$work/out" '0x0000000000100009 ports 2 "Hca4"'

# --- choosing the host, and bad input ----------------------------------------------------------
UMAD_SIM_HOST=Hca3 run "ibstat (Hca3)" ibstat
expect "UMAD_SIM_HOST=Hca3" "$work/out" "Node GUID: 0x0000000000100006"
UMAD_SIM_HOST=0x100009 run "ibstat (by GUID)" ibstat
expect "UMAD_SIM_HOST=0x100009" "$work/out" "Node GUID: 0x0000000000100009"
UMAD_SIM_HOST=Hca3 run "smpquery from Hca3" smpquery -D nodeinfo 0,1
expect "smpquery from Hca3" "$work/out" "^Guid:\.*0x0000000000200001"
if UMAD_SIM_HOST=nosuch sim ibstat > "$work/out" 2>&1; then
	fail "an unknown UMAD_SIM_HOST was accepted"
fi
expect "unknown host" "$work/out" "nosuch"
printf 'Switch 4 "S"\n[1] "H"[1]\n\nHca 1 "H"\n[1] "S"[2]\n' > "$work/bad.net"
if UMAD_SIM_TOPOLOGY="$work/bad.net" sim ibstat > "$work/out" 2>&1; then
	fail "a topology with an asymmetric link was accepted"
fi
expect "bad topology" "$work/out" "$work/bad.net:5: asymmetric link"
if UMAD_SIM_TOPOLOGY="$work/none.net" sim ibstat > "$work/out" 2>&1; then
	fail "a missing topology file was accepted"
fi
expect "missing topology" "$work/out" "$work/none.net"

# --- the fake sysfs tree, read back by the kernel backend ---------------------------------------
UMAD_SIM_SYSFS="$work/fake" run "ibstat (sysfs)" ibstat
cp "$work/out" "$work/sim.ibstat"
[ -f "$work/fake/sys/class/infiniband/sim0/ports/1/state" ] || fail "no fake sysfs tree in $work/fake"
[ "$(cat "$work/fake/sys/class/infiniband/sim0/ports/1/state" 2>/dev/null)" = "2: INIT" ] ||
	fail "fake sysfs: port 1 state"
[ "$(cat "$work/fake/sys/class/infiniband/sim0/node_guid" 2>/dev/null)" = "0000:0000:0010:0000" ] ||
	fail "fake sysfs: node_guid"
LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=kernel \
	UMAD_SYSFS_ROOT="$work/fake/sys" UMAD_DEV_DIR="$work/fake/dev/infiniband" \
	ibstat > "$work/kernel.ibstat" 2>&1 || fail "ibstat on the kernel backend over the fake sysfs"
diff "$work/sim.ibstat" "$work/kernel.ibstat" > /dev/null ||
	{ fail "the kernel backend reads the fake sysfs differently"; diff "$work/sim.ibstat" "$work/kernel.ibstat"; }

[ $status -eq 0 ] && echo "PASS: opensm and infiniband-diags on the simulated fabric"
exit $status
