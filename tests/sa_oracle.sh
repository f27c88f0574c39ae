#!/bin/bash
# The built-in SA's answers to the requests osmtest's flows depend on,
# against opensm's: tests/sa_probe sends the same fixed sequence (of
# MultiPathRecord GetMultis, ServiceRecord Sets, Gets and Deletes,
# VLArbitrationTableRecord and P_KeyTableRecord queries) from the default
# fabric's first host three times: to the built-in SA in the process, to
# the built-in SA of a shared fabric (umad sim --sm builtin) and to opensm
# on a shared fabric (umad sim --sm none).  Every answer must have opensm's
# status and number of records, and, where no LID is in them (services),
# the same records byte for byte.  opensm's answers must include both
# successes and refusals, so that the comparison covers both.
# Skips (77) without opensm.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
probe=$top_builddir/tests/sa_probe
for built in "$umad" "$probe"; do
	[ -x "$built" ] || { echo "FAIL: $built not built"; exit 1; }
done

# A request a line: what to compare (count: the status line; records: the
# records too), then sa_probe's arguments.  @GID is the host's own port
# (Hca1), 0x100004 another CA's port GUID, 0x100000 a node GUID (no port's),
# 0x999999 nobody's.  MPR data: 15 bytes of constraints (NumbPath in the
# sixth), SGIDCount, DGIDCount, 7 reserved bytes, the GIDs.
K=0b000000000000000000000000000000
C=000000000000000000000000000000
R=00000000000000
H2=fe800000000000000000000000100004
requests="
count 0x14 0x3a 0x180000 $C 01 01 $R @GID @GID
count 0x14 0x3a 0x180000 $C 02 02 $R @GID @GID @GID @GID
count 0x14 0x3a 0x180040 0000000000 03 000000000000000000 02 02 $R @GID @GID @GID @GID
count 0x14 0x3a 0x180000 $C 01 02 $R @GID @GID $H2
count 0x14 0x3a 0x180000 $C 01 01 $R @GID fe800000000000ff0000000000100004
count 0x14 0x3a 0x180000 $C 01 01 $R @GID fe800000000000000000000000999999
count 0x14 0x3a 0x180000 $C 01 01 $R @GID fec00000000000000000000000100004
count 0x14 0x3a 0x180000 $C 01 01 $R @GID ff12401bffff000000000000ffffffff
count 0x14 0x3a 0x180000 $C 01 01 $R ff12401bffff000000000000ffffffff @GID
count 0x14 0x3a 0x180000 $C 03 01 $R @GID @GID
count 0x14 0x3a 0x100000 $C 00 01 $R @GID
count 0x14 0x3a 0x180000 $C 00 01 $R @GID
count 0x14 0x3a 0x180000 $C 01 00 $R @GID
count 0x14 0x3a 0x000000 $C 00 00 $R
count 0x12 0x3a 0x180000 $C 01 01 $R @GID @GID
count 0x01 0x3a 0x180000 $C 01 01 $R @GID @GID
count 0x01 0x36 0x7 @LID 00 01
count 0x01 0x36 0x7 @LID 00 04
count 0x01 0x36 0x7 @LID 01 02
count 0x01 0x36 0x7 @LID 02 03
count 0x01 0x36 0x7 @LID 00 05
count 0x01 0x36 0x7 @LID 03 01
count 0x01 0x36 0x7 @LID ff 00
count 0x01 0x36 0x7 @LID 01 05
count 0x01 0x36 0x3 @LID 00 01
count 0x12 0x36 0x3 @LID 00 01
count 0x12 0x33 0x1 @LID
records 0x02 0x31 0x77 0000000011111111 00000000000080fe @GUID ffff0000 ffffffff $K 6161
records 0x02 0x31 0x77 0000000022222222 fec0000000000000 @GUID ffff0000 ffffffff $K 6262
records 0x02 0x31 0x77 0000000033333333 fe800000000000ff @GUID ffff0000 ffffffff $K 6363
records 0x02 0x31 0x77 0000000044444444 ff12401bffff0000 00000000ffffffff ffff0000 ffffffff $K 6464
records 0x02 0x31 0x77 0000000055555555 fe80000000000000 0000000000100004 ffff0000 ffffffff $K 6565
records 0x02 0x31 0x73 0000000066666666 fe80000000000000 @GUID 00000000 ffffffff $K 6666
records 0x02 0x31 0x77 0000000077777777 fe80000000000000 0000000000999999 ffff0000 ffffffff $K 6767
records 0x02 0x31 0x77 0000000077777777 fe80000000000000 0000000000100000 ffff0000 ffffffff $K 6767
records 0x02 0x31 0x77 0000000077777777 00000000000080fe 0000000000999999 ffff0000 ffffffff $K 6767
records 0x02 0x31 0x77 0000000077777777 fec0000000000000 0000000000999999 ffff0000 ffffffff $K 6767
records 0x01 0x31 0x3 0000000011111111 fe80000000000000 @GUID
records 0x01 0x31 0x3 0000000011111111 00000000000080fe @GUID
records 0x12 0x31 0x1 0000000055555555
records 0x12 0x31 0x40 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000063630000
records 0x15 0x31 0x3 0000000011111111 00000000000080fe @GUID
records 0x15 0x31 0x40 0000000011111111 00000000000080fe @GUID ffff0000 ffffffff 00000000000000000000000000000000 6161
records 0x15 0x31 0x40 0000000011111111 00000000000080fe @GUID ffff0000 ffffffff 00000000000000000000000000000000 6161
records 0x15 0x31 0x23 0000000022222222 fec0000000000000 @GUID ffff0000 ffffffff $K
records 0x01 0x31 0x1 0000000022222222
"

# One sa_probe sends them all (an SA of the process's own keeps what they register).
cat > "$work/probes.sh" <<'EOF'
set -u
if [ "${WITH_OPENSM:-0}" = 1 ]; then
	. "$OPENSM_SESSION"
	start_opensm || exit 1
fi
"$PROBE" - <<< "$REQUESTS"
echo "sa_probe exit $?"
[ "${WITH_OPENSM:-0}" = 1 ] && stop_opensm
exit 0
EOF

export WORK=$work PROBE=$probe REQUESTS=$requests
UMAD_SIM_SM=builtin sim timeout 300 bash "$work/probes.sh" > "$work/own.out" 2>&1 ||
	fail "built-in SA, own fabric: exit status $?"
sim timeout 300 "$umad" sim --sm builtin -- bash "$work/probes.sh" > "$work/shared.out" 2>&1 ||
	fail "built-in SA, shared fabric: exit status $?"
OSM_CACHE_DIR=$work/osm-cache WITH_OPENSM=1 \
	sim timeout 300 "$umad" sim --sm none -- bash "$work/probes.sh" > "$work/opensm.out" 2>&1 ||
	fail "opensm: exit status $?"

n=$(grep -c '^> ' "$work/opensm.out")
[ "$n" -eq "$(grep -c '^\(count\|records\) ' <<< "$requests")" ] ||
	fail "opensm: $n of the requests answered"
grep -q '^status 0x0000 ' "$work/opensm.out" || fail "opensm accepted nothing"
grep -q '^status 0x0[1-9a-f]00 ' "$work/opensm.out" || fail "opensm refused nothing"
grep -q '^sa_probe exit 0$' "$work/opensm.out" || fail "opensm left a request unanswered"
for sa in own shared; do
	if ! diff -u "$work/opensm.out" "$work/$sa.out" > "$work/$sa.diff"; then
		fail "built-in SA ($sa fabric) answers otherwise than opensm:"
		head -60 "$work/$sa.diff"
	else
		echo "built-in SA ($sa fabric): $n answers as opensm's"
	fi
done
exit $status
