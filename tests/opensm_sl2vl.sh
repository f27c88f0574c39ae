#!/bin/bash
# SL-to-VL tables per input and output port, as opensm's torus-2QoS
# programs them: on a 3x3 torus (scripts/gen-torus) opensm -Q -R torus-2QoS
# sets a table for every (input, output) pair of every switch and one per
# CA port; each must read back (smpquery -D sl2vl, by the directed route
# opensm used) as opensm wrote it, the last Set of each pair taken from
# opensm's capture as tshark decodes it.  Tables differ by input port there,
# so a fabric keeping one table per output port fails.
# Skips (77) without opensm, infiniband-diags or tshark.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm smpquery ibswitches tshark"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }

"$top_srcdir/scripts/gen-torus" 3 3 > "$work/torus.net"
cat > "$work/program.sh" <<'EOF'
set -u
# The seed: T0-0, its x+ neighbour T1-0 and its y+ neighbour T0-1, by GUID.
guid() { ibswitches | sed -n "s/^Switch[[:space:]]*: \(0x[0-9a-f]*\) .*\"$1\".*/\1/p"; }
{
	echo "torus 3 3 1"
	echo "xp_link $(guid T0-0) $(guid T1-0)"
	echo "yp_link $(guid T0-0) $(guid T0-1)"
} > "$WORK/torus-2QoS.conf"
UMAD_CAPTURE=$WORK/osm.pcapng opensm -o -d2 -Q -R torus-2QoS \
	--torus_config "$WORK/torus-2QoS.conf" -f "$WORK/osm.log" > "$WORK/osm.out" 2>&1
echo "opensm exit $?"
# opensm's SLtoVLMappingTable Sets: hop count, initial path, modifier, the VLs of
# the even SLs, of the odd ones.
LD_PRELOAD= tshark -r "$WORK/osm.pcapng" \
	-Y 'infiniband.mad.method == 0x02 && infiniband.mad.attributeid == 0x0017' \
	-T fields -E separator=' ' -e infiniband.smpdirected.hopcount \
	-e infiniband.smpdirected.initialpath -e infiniband.mad.attributemodifier \
	-e infiniband.sltovlmappingtable.sltovlhighbits \
	-e infiniband.sltovlmappingtable.sltovllowbits > "$WORK/sets.raw" 2> "$WORK/tshark.err"
# Each as: path in out VL0 .. VL15, the path as smpquery -D takes it.
awk '
function hex(s,   v, i) {
	sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
	return v
}
NF != 5 { print "malformed: " $0; next }
{
	hops = hex($1); path = "0"
	for (i = 1; i <= hops; i++)
		path = path "," hex(substr($2, 2 * i + 1, 2))
	mod = hex($3)
	n = split($4, even, ","); m = split($5, odd, ",")
	if (n != 8 || m != 8) { print "malformed: " $0; next }
	line = path " " int(mod / 256) % 256 " " mod % 256
	for (i = 1; i <= 8; i++)
		line = line " " hex(even[i]) " " hex(odd[i])
	print line
}' "$WORK/sets.raw" > "$WORK/sets"
# The port each path reaches, by GUID (a switch's is the switch's).
for path in $(awk '{ print $1 }' "$WORK/sets" | sort -u); do
	echo "$path $(smpquery -D nodeinfo "$path" | sed -n 's/^PortGuid:\.*//p')"
done > "$WORK/guids"
# What each node holds for every output port opensm wrote: path out in VL0 .. VL15.
awk '{ print $1, $3 }' "$WORK/sets" | sort -u | while read -r path out; do
	smpquery -D sl2vl "$path" "$out" |
		sed -n "s/^ports: in *\([0-9]*\), out *[0-9]*: |/$path $out \1 /p" | tr -d '|'
done > "$WORK/readback"
EOF
export WORK=$work OSM_CACHE_DIR=$work/cache
sim timeout 300 "$umad" sim -t "$work/torus.net" -- bash "$work/program.sh" > "$work/out" 2>&1
if ! grep -q "torus-2QoS tables configured on all switches" "$work/osm.log" 2>/dev/null; then
	fail "opensm -R torus-2QoS did not route the torus"
	cat "$work/out" "$work/osm.out"
	grep -i 'err\|torus' "$work/osm.log" 2>/dev/null | head -10
	exit 1
fi
grep -q '^malformed' "$work/sets" && { fail "tshark's fields:"; grep '^malformed' "$work/sets" | head -3; }

# The last table opensm wrote to each (node, input, output), next to what the node holds.
compare=$(awk '
FILENAME == ARGV[1] { guid[$1] = $2; next }
FILENAME == ARGV[2] {
	key = guid[$1] " " $2 " " $3
	t = ""; for (i = 4; i <= NF; i++) t = t " " $i
	want[key] = t; path_of[key] = $1
	next
}
{
	key = guid[$1] " " $3 " " $2
	if (!(key in want))
		next
	t = ""; for (i = 4; i <= NF; i++) t = t " " $i
	seen[key] = 1
	if (t != want[key]) {
		print "FAIL: " path_of[key] " in " $3 " out " $2 ": wrote" want[key] ", reads" t
		bad++
	}
}
END {
	for (k in want) {
		n++
		if (!(k in seen)) { print "FAIL: " k ": not read back"; bad++ }
		split(k, f, " ")
		if (f[3] != 0) { out_of[f[1] " " f[3]] = out_of[f[1] " " f[3]] "|" want[k] }
	}
	# Tables that differ between input ports to one output port.
	for (o in out_of) { c = split(out_of[o], ts, "|"); delete u
		for (i = 2; i <= c; i++) u[ts[i]] = 1
		d = 0; for (x in u) d++
		if (d > 1) apart++ }
	printf "pairs %d wrong %d apart %d\n", n, bad, apart
}' "$work/guids" "$work/sets" "$work/readback")
echo "$compare" | grep '^FAIL' | head -10
summary=$(echo "$compare" | tail -n 1)
read -r _ pairs _ wrong _ apart <<< "$summary"
# 9 switches of 5 ports: 6 input ports (0 too) to each of 5 output ports; 9 CA ports.
[ "$pairs" -eq $((9 * 6 * 5 + 9)) ] || fail "opensm programmed $pairs tables, expected 279 ($summary)"
[ "$wrong" -eq 0 ] || fail "$wrong of $pairs SL2VL tables read back other than written"
[ "$apart" -gt 0 ] || fail "no output port got different tables per input port: nothing was tested"
[ $status -eq 0 ] && echo "PASS: torus-2QoS: $pairs SL2VL tables read back as written ($apart output ports with tables per input port)"
exit $status
