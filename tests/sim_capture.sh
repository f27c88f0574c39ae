#!/bin/bash
# Captures on libumad's own simulator (UMAD_BACKEND=sim, UMAD_CAPTURE) of
# Debian's ibnetdiscover, opensm -o and smpquery -D, read by stock tshark:
# every frame decodes with the right names and no expert "malformed", the
# frame count is the number of MADs the tool sent and received (counted
# apart from the tap, by the LD_PRELOAD shim at the API, or known: smpquery
# sends one), and the p2p_dir and attribute filters select the right frames.
# Then ibnetdiscover replayed from its capture prints the same output.
# Skips (77) without infiniband-diags, opensm or tshark.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibnetdiscover smpquery opensm tshark"
. "$(dirname "$0")/sim_env.sh"
# opensm keeps its cache here, not in /var/cache/opensm.
export OSM_CACHE_DIR="$work/cache"
mkdir "$work/cache"

# count_frames FILE FILTER: how many frames of the capture tshark's display filter selects.
count_frames() { tshark -r "$1" -Y "$2" 2>/dev/null | wc -l; }

# check NAME FILE SENT RECEIVED: the capture decodes fully and has exactly these frames.
check() {
	local name=$1 cap=$2 sent=$3 received=$4 frames out in malformed
	tshark -r "$cap" -T fields -e frame.p2p_dir -e _ws.col.Info > "$work/$name.frames" 2>"$work/err" ||
		{ fail "$name: tshark cannot read the capture"; cat "$work/err"; return; }
	frames=$(wc -l < "$work/$name.frames")
	out=$(count_frames "$cap" 'frame.p2p_dir == 0')
	in=$(count_frames "$cap" 'frame.p2p_dir == 1')
	malformed=$(tshark -r "$cap" -q -z expert 2>/dev/null | grep -ci 'malformed')
	echo "$name: $frames frames ($out sent, $in received), $malformed malformed"
	[ "$frames" -eq $((sent + received)) ] || fail "$name: $frames frames, expected $sent + $received"
	[ "$out" -eq "$sent" ] || fail "$name: frame.p2p_dir == 0 selects $out frames, expected $sent"
	[ "$in" -eq "$received" ] || fail "$name: frame.p2p_dir == 1 selects $in frames, expected $received"
	[ "$malformed" -eq 0 ] || fail "$name: tshark's expert info reports malformed frames"
	grep -v -q 'Subn\(Get\|Set\|GetResp\)(' "$work/$name.frames" &&
		{ fail "$name: frames without an SMP name:"; grep -v 'Subn\(Get\|Set\|GetResp\)(' "$work/$name.frames" | head -5; }
}

# --- ibnetdiscover: the in-library tap, and the shim at the API counting apart -------------------------
UMAD_CAPTURE_SHIM="$libs/libumad-capture.so" UMAD_CAPTURE="$work/ibnd.pcapng" \
	sim "$top_builddir/cli/umad" capture -w "$work/shim.pcapng" -- ibnetdiscover > "$work/ibnd.out" 2>&1 ||
	fail "ibnetdiscover"
sim ibnetdiscover > "$work/plain.out" 2>&1
[ "$(stat -c %a "$work/ibnd.pcapng")" = 600 ] || fail "capture file mode"
sent=$(count_frames "$work/shim.pcapng" 'frame.p2p_dir == 0')
received=$(count_frames "$work/shim.pcapng" 'frame.p2p_dir == 1')
[ "$sent" -gt 20 ] || fail "ibnetdiscover: the shim saw only $sent sends"
"$top_builddir/cli/umad" capture stats "$work/ibnd.pcapng" > "$work/stats"
grep -q ' 0 timeouts, 0 requests unanswered' "$work/stats" || fail "ibnetdiscover: unanswered requests"
check ibnetdiscover "$work/ibnd.pcapng" "$sent" "$received"
nodes=$(grep -c '^\(Switch\|Ca\)' "$work/plain.out")
[ "$(grep -c '^0.*SubnGet(NodeInfo)' "$work/ibnetdiscover.frames")" -ge "$nodes" ] ||
	fail "ibnetdiscover: fewer SubnGet(NodeInfo) than nodes"
[ "$(count_frames "$work/ibnd.pcapng" 'infiniband.mad.attributeid == 0x0011')" -eq \
	"$(grep -c '(NodeInfo)' "$work/ibnetdiscover.frames")" ] ||
	fail "ibnetdiscover: the attributeid filter does not select the NodeInfo frames"
[ "$(count_frames "$work/ibnd.pcapng" 'infiniband.mad.attributeid == 0x0015 && frame.p2p_dir == 1')" -eq \
	"$(grep -c '^1.*SubnGetResp(PortInfo)' "$work/ibnetdiscover.frames")" ] ||
	fail "ibnetdiscover: attribute and direction filters disagree"
# Replayed from its own capture, with no fabric: the same output.
LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=replay UMAD_REPLAY="$work/ibnd.pcapng" \
	ibnetdiscover > "$work/replayed.out" 2>&1 || fail "ibnetdiscover under replay"
diff <(grep -v '^# Topology file: generated' "$work/plain.out") \
	<(grep -v '^# Topology file: generated' "$work/replayed.out") > /dev/null ||
	fail "ibnetdiscover replayed from its capture prints something else"
replay() {
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=replay UMAD_REPLAY="$1" "${@:2}"
}
# From a pipe (a compressed capture: UMAD_REPLAY=<(zcat ...)), which cannot
# seek: the same output, and stats reads it too.
replay <(cat "$work/ibnd.pcapng") ibnetdiscover > "$work/piped.out" 2>&1 ||
	fail "ibnetdiscover under replay from a pipe: $(head -3 "$work/piped.out")"
diff <(grep -v '^# Topology file: generated' "$work/plain.out") \
	<(grep -v '^# Topology file: generated' "$work/piped.out") > /dev/null ||
	fail "ibnetdiscover replayed from a pipe prints something else"
"$top_builddir/cli/umad" capture stats <(cat "$work/ibnd.pcapng") > "$work/piped.stats" ||
	fail "stats from a pipe"
[ "$(head -1 "$work/piped.stats" | cut -d: -f2-)" = "$(head -1 "$work/stats" | cut -d: -f2-)" ] ||
	fail "stats from a pipe: $(head -1 "$work/piped.stats")"
# Classic pcap, as ibdump and editcap -F pcap write it (no interface names, no
# directions): replayed all the same.
editcap -F pcap "$work/ibnd.pcapng" "$work/ibnd.pcap" || fail "editcap -F pcap"
replay "$work/ibnd.pcap" ibnetdiscover > "$work/classic.out" 2>&1 || fail "ibnetdiscover under replay of classic pcap"
diff <(grep -v '^# Topology file: generated' "$work/plain.out") \
	<(grep -v '^# Topology file: generated' "$work/classic.out") ||
	fail "ibnetdiscover replayed from classic pcap prints something else"
"$top_builddir/cli/umad" capture stats "$work/ibnd.pcap" > "$work/classic.stats" ||
	fail "stats of classic pcap"
[ "$(sed -n 's/.*(\([0-9]*\) sent, \([0-9]*\) received).*/\1 \2/p' "$work/classic.stats")" = \
  "$(sed -n 's/.*(\([0-9]*\) sent, \([0-9]*\) received).*/\1 \2/p' "$work/stats")" ] ||
	fail "stats of classic pcap count other directions: $(head -1 "$work/classic.stats")"
# Cut in the middle of a block: the MADs before the cut answer, with a warning;
# stats prints its figures and the warning, and fails.
head -c $(( $(stat -c %s "$work/ibnd.pcapng") / 2 + 37 )) "$work/ibnd.pcapng" > "$work/cut.pcapng"
replay "$work/cut.pcapng" smpquery -D nodeinfo 0 > "$work/cut.out" 2> "$work/cut.err" ||
	fail "smpquery under replay of a cut capture: $(cat "$work/cut.err")"
grep -q '^PortGuid:' "$work/cut.out" || fail "smpquery under replay of a cut capture printed no NodeInfo"
grep -q 'cut.pcapng: offset [0-9]*: truncated block.*: answering from the [0-9]* MADs before it' \
	"$work/cut.err" || fail "no warning for the cut capture: $(cat "$work/cut.err")"
if "$top_builddir/cli/umad" capture stats "$work/cut.pcapng" > "$work/cut.stats" 2> "$work/cut.stats.err"; then
	fail "stats of a cut capture exits 0"
fi
grep -q 'MADs (' "$work/cut.stats" && grep -q 'truncated block' "$work/cut.stats.err" ||
	fail "stats of a cut capture: $(cat "$work/cut.stats" "$work/cut.stats.err")"
# refused NAME FILE MESSAGE: replay and stats refuse FILE, saying MESSAGE.
refused() {
	if replay "$2" smpquery -D nodeinfo 0 > /dev/null 2> "$work/refused.err"; then
		fail "replay of $1 succeeded"
	fi
	grep -q "$3" "$work/refused.err" || fail "replay of $1: $(cat "$work/refused.err")"
	if "$top_builddir/cli/umad" capture stats "$2" > /dev/null 2> "$work/refused.err"; then
		fail "stats of $1 exits 0"
	fi
	grep -q "$3" "$work/refused.err" || fail "stats of $1: $(cat "$work/refused.err")"
}
# No InfiniBand interface at all.
editcap -T ether "$work/ibnd.pcapng" "$work/ether.pcapng" || fail "editcap -T ether"
refused "an Ethernet capture" "$work/ether.pcapng" \
	'ether.pcapng: no InfiniBand (ERF) interface: link type 1 (Ethernet)'
# Only the section header (what a program that opens no port would leave).
head -c "$(od -An -tu4 -j4 -N4 "$work/ibnd.pcapng" | tr -d ' ')" "$work/ibnd.pcapng" > "$work/shb.pcapng"
refused "a section header alone" "$work/shb.pcapng" 'shb.pcapng: no interface block, so no packet'

# --- smpquery -D: one request, one answer ------------------------------------------------------------
UMAD_CAPTURE="$work/smpq.pcapng" sim smpquery -D nodeinfo 0,1,7 > /dev/null 2>&1 || fail "smpquery"
check smpquery "$work/smpq.pcapng" 1 1
grep -q '^0.*SubnGet(NodeInfo)' "$work/smpquery.frames" || fail "smpquery: no SubnGet(NodeInfo)"
grep -q '^1.*SubnGetResp(NodeInfo)' "$work/smpquery.frames" || fail "smpquery: no SubnGetResp(NodeInfo)"

# --- opensm -o: Sets as well as Gets, and SUBNET UP with the capture on --------------------------------
UMAD_CAPTURE_SHIM="$libs/libumad-capture.so" UMAD_CAPTURE="$work/osm.pcapng" \
	sim timeout 120 "$top_builddir/cli/umad" capture -w "$work/osm-shim.pcapng" -- \
	opensm -o -f "$work/osm.log" > /dev/null 2>&1
grep -q 'SUBNET UP' "$work/osm.log" || fail "opensm -o under capture: no SUBNET UP"
sent=$(count_frames "$work/osm-shim.pcapng" 'frame.p2p_dir == 0')
received=$(count_frames "$work/osm-shim.pcapng" 'frame.p2p_dir == 1')
check opensm "$work/osm.pcapng" "$sent" "$received"
for name in "SubnSet(PortInfo)" "SubnGetResp(PortInfo)" "SubnGet(NodeInfo)" \
	"SubnSet(LinearForwardingTable)" "SubnSet(SwitchInfo)"; do
	grep -qF "$name" "$work/opensm.frames" || fail "opensm: no $name frame"
done

[ "$status" -eq 0 ] && echo "PASS: captures on the simulator decode fully in tshark"
exit "$status"
