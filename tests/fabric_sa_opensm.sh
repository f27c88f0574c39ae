#!/bin/bash
# opensm's SA across processes: on a shared fabric (umad sim, UMAD_SIM_SM=none)
# opensm runs in one process and saquery asks it, from others, for every
# record type saquery knows, as tables and as single records.  Each answer
# saquery received must be what opensm sent, at the same length and byte for
# byte after the SA header, compared from both programs' captures
# (tests/capture_messages); a table of one record is the case that arrived
# padded to 256 bytes with a header no kernel delivers.  Run on the default
# fabric and on a fat tree whose tables span several RMPP segments.
# Skips (77) without opensm or saquery.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm saquery"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
messages=$top_builddir/tests/capture_messages
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
[ -x "$messages" ] || { echo "FAIL: $messages not built"; exit 1; }

# The queries: a name for the capture, then saquery's arguments.  LIDs are
# filled in from what opensm gave (@SM: its port's, @OTHER: another CA's).
# opensm answers PKeyTableRecords to a trusted requester only: its default
# SM_Key, 1.
queries='
nr
nr-one NR @OTHER
cpi -c
pir PIR
pir-one PIR @OTHER
pir-sm -s
sl2vl SL2VL
pktr --smkey 1 PKTR
pktr-one --smkey 1 PKTR @OTHER
vlar VLAR
iir IIR
lr LR
lr-x -x
sr SR
pr PR
pr-one -p --src-to-dst @SM:@OTHER
mcmr MCMR
groups -g
members -m
lftr LFTR
mftr MFTR
gir GIR
gir-one GIR @OTHER
swir SWIR
smir SMIR
smir-one SMIR @SM
cas -D
names -N
'

cat > "$work/queries.sh" <<'EOF'
set -u
# What it starts ends with it: TERM, then KILL (opensm may hang in its exit).
. "$UMAD_TEST_PROCS"
rm -f "$WORK/osm.log"
UMAD_CAPTURE=$WORK/opensm.pcapng opensm -d2 -f "$WORK/osm.log" > "$WORK/osm.out" 2>&1 &
osm=$!
for _ in $(seq 1 300); do
	grep -q "SUBNET UP" "$WORK/osm.log" 2>/dev/null && break
	sleep 0.1
done
grep -q "SUBNET UP" "$WORK/osm.log" 2>/dev/null || { echo "opensm: no SUBNET UP"; exit 1; }
sm=$(saquery -s 2>/dev/null | sed -n 's/^[[:space:]]*base_lid\.*\([0-9]*\)$/\1/p' | head -n 1)
other=$(saquery NR 2>/dev/null | awk -v sm="$sm" '
	$1 ~ /^lid\./ { l = $1; sub(/^lid\.*/, "", l) }
	/node_type\.*Channel Adapter/ && l != sm { print l; exit }')
[ -n "$sm" ] || { echo "no SM LID from saquery -s"; exit 1; }
[ -n "$other" ] || other=$sm
echo "sm=$sm other=$other"
echo "$QUERIES" | while read -r name args; do
	[ -n "$name" ] || continue
	args=${args//@SM/$sm}
	args=${args//@OTHER/$other}
	# shellcheck disable=SC2086
	UMAD_CAPTURE=$WORK/q-$name.pcapng saquery $args > "$WORK/q-$name.out" 2>&1
	echo "query $name status $?"
done
end_procs $osm
EOF

# check FABRIC-LABEL NODES: compare every answer saquery received with what
# opensm sent; the single-record queries print one record, the node table NODES.
check() {
	local label=$1 nodes=$2 name args n
	"$messages" "$work/opensm.pcapng" > "$work/opensm.msgs" ||
		{ fail "$label: opensm's capture unreadable"; return; }
	while read -r name args; do
		[ -n "$name" ] || continue
		if ! grep -q "^query $name status 0$" "$work/out"; then
			fail "$label: saquery $args failed:"
			sed 's/^/    /' "$work/q-$name.out" | head -10
			continue
		fi
		"$messages" "$work/q-$name.pcapng" > "$work/q-$name.msgs" ||
			{ fail "$label: $name: capture unreadable"; continue; }
		# What saquery received from the SA (Get and GetTable responses), each
		# looked up among opensm's sends: the same TID, length and bytes.
		n=$(awk -v label="$label" -v args="$args" '
			NR == FNR { if ($1 == "out") sent[substr($0, 5)] = 1; next }
			$1 == "in" && $3 == "0x03" && ($4 == "0x81" || $4 == "0x92") {
				answers++
				if (!(substr($0, 4) in sent)) {
					print "FAIL: " label ": saquery " args " received TID " $2 \
						" (" $6 " bytes) not as opensm sent it" > "/dev/stderr"
					bad++
				}
			}
			END { print bad ? -1 : answers + 0 }' "$work/opensm.msgs" "$work/q-$name.msgs")
		case $n in
		-1) status=1 ;;
		0) fail "$label: saquery $args received no SA answer" ;;
		*) echo "$label: $name: $n answer(s) as opensm sent them" ;;
		esac
	done <<< "$queries"
	n=$(grep -c "^SMInfoRecord dump" "$work/q-smir.out")
	[ "$n" -eq 1 ] || fail "$label: saquery SMIR printed $n SMInfoRecords, opensm is the one SM"
	n=$(grep -c "^PathRecord dump" "$work/q-pr-one.out")
	[ "$n" -eq 1 ] || fail "$label: saquery -p --src-to-dst printed $n PathRecords, not 1"
	n=$(grep -c "^NodeRecord dump" "$work/q-nr.out")
	[ "$n" -eq "$nodes" ] || fail "$label: saquery printed $n NodeRecords, not $nodes"
	n=$(grep -c "^NodeRecord dump" "$work/q-nr-one.out")
	[ "$n" -eq 1 ] || fail "$label: saquery NR LID printed $n NodeRecords, not 1"
}

# opensm keeps the LIDs it gave in its cache: one of the test's own.
export WORK=$work QUERIES=$queries OSM_CACHE_DIR=$work/cache
UMAD_SIM_SM=none
sim timeout 300 "$umad" sim -- bash "$work/queries.sh" > "$work/out" 2>&1
grep -q "^sm=" "$work/out" || { fail "default fabric: no SUBNET UP"; cat "$work/out"; }
check "default fabric" 6

"$top_srcdir/scripts/gen-fattree" 8 > "$work/fattree.net"
rm -rf "$work"/q-* "$work/opensm.pcapng" "$work/cache"
sim timeout 300 "$umad" sim -t "$work/fattree.net" -- bash "$work/queries.sh" > "$work/out" 2>&1
grep -q "^sm=" "$work/out" || { fail "fat tree: no SUBNET UP"; cat "$work/out"; }
check "fat tree" "$(grep -c '^\(Switch\|Hca\)' "$work/fattree.net")"
# The fat tree's node table spans several segments: the comparison covered joined messages.
awk '$6 > 256' "$work/q-nr.msgs" | grep -q . || fail "fat tree: the node table fit one MAD"
exit $status
