#!/bin/bash
# osmtest (Debian's opensm package) against the built-in SA alone, no
# opensm: flow c builds the inventory file from the SA's records, then
# a (all validations: MultiPathRecord GetMulti among them), v (the
# inventory), s (service registration, its ServiceGID rule, leases,
# deletion), e (event forwarding), f (a flood of queries), m (multicast)
# and q (VLArbitrationTableRecords and SL-to-VL tables of every port) must
# each exit 0 and print their PASS line.  Every one of them passes against
# opensm on these fabrics.  Run in-process (UMAD_SIM_SM=builtin, each
# osmtest on its own copy of the fabric) and shared (umad sim --sm builtin,
# one fabric and SA for all), on the default fabric, tests/fabrics/*.topo,
# a fat tree and a torus (OSMTEST_SA_TOPOLOGIES="FILE..." runs on those
# instead), the two ways at once.  From the captures: flow a got
# PathRecords in a GetMultiResp, flow q VLArbitrationTableRecords.  And
# flow v fails with another fabric's inventory, so that the checks can
# fail.  (With an LMC above 0 flows a and v fail against opensm too.)
# Skips (77) without osmtest.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="osmtest"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
messages=$top_builddir/tests/capture_messages
for built in "$umad" "$messages"; do
	[ -x "$built" ] || { echo "FAIL: $built not built"; exit 1; }
done

# The flows, as osmtest names them in its verdict.
flows='c Create Inventory
a All Validations
v Validate Inventory
s Services Registration
e Event Forwarding
f Stress SA
m Multicast
q QoS: VLArb and SLtoVL'

# Run by the test under the fabric: each flow of $FLOWS in $DIR, one after
# the other, each captured; a line per flow with its exit status.
cat > "$work/flows.sh" <<'EOF'
set -u
. "$UMAD_TEST_PROCS"
cd "$DIR" || exit 1
for flow in $FLOWS; do
	UMAD_CAPTURE=$DIR/$flow.pcapng timeout 300 osmtest -f "$flow" -i "$DIR/inv.dat" \
		-l "$DIR/osm-$flow.log" > "$DIR/out-$flow" 2>&1
	echo "flow $flow status $?"
done
EOF

# check LABEL DIR: every flow passed (status and verdict), and did what it is for.
check() {
	local label=$1 dir=$2 flow name n
	while read -r flow name; do
		if ! grep -q "^flow $flow status 0$" "$dir/status"; then
			fail "$label: osmtest -f $flow: $(grep "^flow $flow " "$dir/status" || echo 'not run')"
			grep -h 'ERR\|FAIL' "$dir/osm-$flow.log" "$dir/out-$flow" 2>/dev/null |
				grep -v 'EXPECTED\|Expecting' | head -8 | sed 's/^/    /'
			continue
		fi
		grep -qxF "OSMTEST: TEST \"$name\" PASS" "$dir/out-$flow" ||
			fail "$label: osmtest -f $flow exited 0 without its PASS line"
	done <<< "$flows"
	n=$(grep -c '^DEFINE_NODE' "$dir/inv.dat" 2>/dev/null)
	[ "${n:-0}" -gt 1 ] || fail "$label: the inventory holds ${n:-no} nodes"
	grep -q '^DEFINE_PATH' "$dir/inv.dat" 2>/dev/null || fail "$label: the inventory holds no paths"
	# What osmtest received (TID class method attribute length): PathRecords in a
	# GetMultiResp, VLArbitrationTableRecords in GetResps.
	"$messages" "$dir/a.pcapng" > "$dir/a.msgs" 2>&1 || fail "$label: flow a's capture unreadable"
	awk '$1 == "in" && $3 == "0x03" && $4 == "0x94" && $5 == "0x0035" && $6 > 56' \
		"$dir/a.msgs" | grep -q . || fail "$label: flow a got no PathRecords from a GetMulti"
	"$messages" "$dir/q.pcapng" > "$dir/q.msgs" 2>&1 || fail "$label: flow q's capture unreadable"
	n=$(awk '$1 == "in" && $3 == "0x03" && $4 == "0x81" && $5 == "0x0036"' "$dir/q.msgs" | wc -l)
	[ "$n" -gt 0 ] || fail "$label: flow q got no VLArbitrationTableRecords"
	echo "$label: osmtest's flows passed ($n VLArbitrationTableRecords)"
}

# run LABEL FILE: the flows in-process and shared on FILE ("" for the default
# fabric), both at once (osmtest mostly waits: for answers, leases, timeouts).
run() {
	local label=$1 file=$2 order
	order=$(cut -d' ' -f1 <<< "$flows")
	mkdir -p "$work/$label.in-process" "$work/$label.shared"
	UMAD_SIM_SM=builtin UMAD_SIM_TOPOLOGY=$file DIR=$work/$label.in-process FLOWS=$order \
		sim timeout 900 bash "$work/flows.sh" > "$work/$label.in-process/status" 2>&1 &
	DIR=$work/$label.shared FLOWS=$order \
		sim timeout 900 "$umad" sim ${file:+-t "$file"} --sm builtin -- \
		bash "$work/flows.sh" > "$work/$label.shared/status" 2>&1 &
	wait
	check "$label, in-process" "$work/$label.in-process"
	check "$label, shared" "$work/$label.shared"
}

export UMAD_TEST_PROCS
if [ -n "${OSMTEST_SA_TOPOLOGIES:-}" ]; then
	for file in $OSMTEST_SA_TOPOLOGIES; do
		run "$(basename "$file")" "$file"
	done
	exit $status
fi

run default ""
for file in "$top_srcdir"/tests/fabrics/*.topo; do
	run "$(basename "$file" .topo)" "$file"
done
"$top_srcdir/scripts/gen-fattree" 8 > "$work/fattree.net"
run fattree "$work/fattree.net"
"$top_srcdir/scripts/gen-torus" 3 3 > "$work/torus.net"
run torus "$work/torus.net"

# The default fabric's inventory is not the fat tree's: flow v says so.
mkdir -p "$work/other"
cp "$work/default.in-process/inv.dat" "$work/other/inv.dat"
UMAD_SIM_SM=builtin UMAD_SIM_TOPOLOGY=$work/fattree.net DIR=$work/other FLOWS=v \
	sim timeout 300 bash "$work/flows.sh" > "$work/other/status" 2>&1
if grep -q '^flow v status 0$' "$work/other/status" ||
	! grep -q '^flow v status' "$work/other/status"; then
	fail "flow v passed (or did not run) with another fabric's inventory"
	cat "$work/other/status"
fi
grep -qF 'OSMTEST: TEST "Validate Inventory" FAIL' "$work/other/out-v" ||
	fail "flow v with another fabric's inventory: no FAIL verdict"
exit $status
