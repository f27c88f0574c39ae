#!/bin/bash
# The built-in SA's MCMemberRecord rules against opensm's: tests/mcast_rules
# sends the same joins, creations and leaves (each trying one rule, then a
# burst as ibsim's mcast_storm sends it) from two hosts of a small fabric,
# three times: to the built-in SA on the process's own fabric, to the
# built-in SA of a shared fabric (umad sim), and to opensm running on a
# shared fabric (umad sim --sm none).  Every request must get the same status
# from each, and an accepted one the same answer (JoinState, the group's
# Q_Key, P_Key, MTU, rate and the rest), line for line.  opensm's own answers
# must include both acceptances and refusals, and refuse every storm join,
# so that the comparison covers what it is meant to.
# Skips (77) without opensm.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
rules=$top_builddir/tests/mcast_rules
for built in "$umad" "$rules"; do
	[ -x "$built" ] || { echo "FAIL: $built not built"; exit 1; }
done
# The default fabric's shape at 4x QDR: rates above 25 Gb/s, where the order of
# rates matters (30 Gb/s of SDR 12x carries less than 25 of EDR 1x).
cat > "$work/net" <<'EOF'
width=2
speed=4

Switch 8 "Switch1"
[1] "Hca1"[1]
[2] "Hca2"[1]
[7] "Switch2"[7]
[8] "Switch2"[8]

Switch 8 "Switch2"
[1] "Hca3"[1]
[2] "Hca4"[1]
[7] "Switch1"[7]
[8] "Switch1"[8]

Hca 2 "Hca1"
[1] "Switch1"[1]

Hca 2 "Hca2"
[1] "Switch1"[2]

Hca 2 "Hca3"
[1] "Switch2"[1]

Hca 2 "Hca4"
[1] "Switch2"[2]
EOF
export UMAD_SIM_TOPOLOGY=$work/net UMAD_SIM_HOST=Hca2,Hca3

# The built-in SA, the process's own fabric.
UMAD_SIM_SM=builtin sim timeout 120 "$rules" > "$work/own.out" 2> "$work/own.err" ||
	{ fail "built-in SA, own fabric: exit status $?"; cat "$work/own.err"; }

# The built-in SA of a shared fabric.
sim timeout 120 "$umad" sim -t "$work/net" --sm builtin -- "$rules" \
	> "$work/shared.out" 2> "$work/shared.err" ||
	{ fail "built-in SA, shared fabric: exit status $?"; cat "$work/shared.err"; }

# opensm on a shared fabric, at Hca1, with its defaults whatever /etc/opensm holds
# (an empty options file, no partitions file: the default partition); -d2: its log
# flushed, to see SUBNET UP.  The program once the subnet is up.
cat > "$work/opensm.sh" <<'EOF'
set -u
. "$OPENSM_SESSION"
: > "$WORK/opensm.conf"
UMAD_SIM_HOST=Hca1 start_opensm -F "$WORK/opensm.conf" -P "$WORK/no-partitions.conf" || exit 1
"$RULES"
rc=$?
stop_opensm
exit $rc
EOF
export WORK=$work RULES=$rules OSM_CACHE_DIR=$work/cache
sim timeout 300 "$umad" sim -t "$work/net" --sm none -- bash "$work/opensm.sh" \
	> "$work/opensm.out" 2> "$work/opensm.err" ||
	{ fail "opensm: exit status $?"; cat "$work/opensm.err"; }

# opensm's answers cover both outcomes, and refuse every one of mcast_storm's joins (its
# Q_Key is not the broadcast group's, nor are its ports all there).
grep -q ': status 0x0000' "$work/opensm.out" || fail "opensm accepted nothing"
grep -q ': status 0x0200' "$work/opensm.out" || fail "opensm refused nothing as invalid"
n=$(grep -c '^storm-.*: status 0x0200' "$work/opensm.out")
[ "$n" -eq 64 ] || fail "opensm refused $n of mcast_storm's 64 joins, not all"

for run in own shared; do
	if ! diff -u "$work/opensm.out" "$work/$run.out" > "$work/$run.diff"; then
		fail "built-in SA ($run fabric) and opensm answered differently (- opensm, + built-in):"
		grep '^[-+][a-z]' "$work/$run.diff" | head -40
	fi
done
exit $status
