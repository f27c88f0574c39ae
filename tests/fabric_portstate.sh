#!/bin/bash
# A switch port disabled and enabled again by an SMP, as `ibportstate LID
# PORT disable` and `enable` send them, tells the SM as hardware does: the
# switch, and the one at the other end of the cable, send Trap 128.  Under
# Debian's unmodified opensm that never sweeps by itself (-s 0), only the
# traps can tell it, on a shared fabric (umad sim) of two CAs behind two
# switches joined by one cable:
#
#   Hca1[1]-[1]Switch1[3]-[3]Switch2[1]-[1]Hca2
#
#  - disable Switch1 port 3: both ends go Down (Disabled at Switch1, Polling
#    at Switch2); opensm logs the trap, and the route between the CAs is
#    gone (ibping by LID loses its packets, the SA has no PathRecord);
#  - enable it: both ends train up, opensm, told by the trap again, brings
#    them Active, and ibping and the PathRecord work again.
# Run with the SMPs carried by each client on the shared memory (the
# default) and by the server (UMAD_SIM_FABRIC_SMP=server): the trap takes
# a different way from each.  Then the same under the built-in SM.
# Skips (77) without opensm or infiniband-diags.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm ibportstate ibping saquery smpquery"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }

cat > "$work/line.net" <<'EOF'
Switch 4 "Switch1"
[1] "Hca1"[1]
[3] "Switch2"[3]

Switch 4 "Switch2"
[1] "Hca2"[1]
[3] "Switch1"[3]

Hca 1 "Hca1"
[1] "Switch1"[1]

Hca 1 "Hca2"
[1] "Switch2"[1]
EOF

# Run inside `umad sim` (attached at Hca1): says what it saw, a line per check.
cat > "$work/portstate.sh" <<'EOF'
set -u
# What it starts ends with it: TERM, then KILL (opensm may hang in its exit).
. "$UMAD_TEST_PROCS"
say() { echo "$*"; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds, or the time is up (status 1).
wait_for() {
	local tenths=$(($1 * 10))
	shift
	for _ in $(seq 1 "$tenths"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# port_is NODE PORT STATE/PHYS: umad fabric show has the port so.
port_is() {
	"$UMAD" fabric show "$1" | grep -q "^  \[$2\] $3"
}
lid_at() {
	smpquery -D portinfo "$1" "$2" | sed -n 's/^Lid:\.*//p'
}
ping_hca2() {
	ibping -c 2 -t 200 -L "$hca2" 2>&1 | grep "packets transmitted"
}
path_record() {
	saquery -p --src-to-dst "$hca1:$hca2" 2>&1 | grep -c "^PathRecord dump"
}
has_path() { [ "$(path_record)" -ge 1 ]; }
no_path() { [ "$(path_record)" -eq 0 ]; }
both_active() { port_is Switch1 3 Active/LinkUp && port_is Switch2 3 Active/LinkUp; }

if [ "$SM" = opensm ]; then
	rm -f "$WORK/osm.log"
	# -s 0: no sweeps of its own; -d2: the log flushed line by line.
	opensm -s 0 -d2 -f "$WORK/osm.log" > "$WORK/osm.out" 2>&1 &
	osm=$!
	if ! wait_for 30 grep -q "SUBNET UP" "$WORK/osm.log"; then
		say "opensm: no SUBNET UP"
		sed "s/^/opensm: /" "$WORK/osm.out"
		exit 1
	fi
fi
hca1=$(lid_at 0 1)
sw1=$(lid_at 0,1 0)
hca2=$(lid_at 0,1,3,1 1)
say "lids: hca1=$hca1 sw1=$sw1 hca2=$hca2"
UMAD_SIM_HOST=Hca2 ibping -S & server=$!
sleep 0.5
say "ping before: $(ping_hca2)"
say "paths before: $(path_record)"

ibportstate "$sw1" 3 disable > "$WORK/disable.out" 2>&1
say "disable: status $?"
port_is Switch1 3 Down/Disabled && say "disabled: Switch1 Down/Disabled"
port_is Switch2 3 Down/Polling && say "disabled: Switch2 Down/Polling"
# The SM, told, sweeps: Hca2 is gone from its subnet.
if [ "$SM" = opensm ]; then
	wait_for 20 no_path
fi
say "ping disabled: $(ping_hca2)"
say "paths disabled: $(path_record)"

ibportstate "$sw1" 3 enable > "$WORK/enable.out" 2>&1
say "enable: status $?"
wait_for 30 both_active && say "enabled: both ends Active"
"$UMAD" fabric show Switch1 | sed "s/^/show: /"
wait_for 20 has_path
say "ping enabled: $(ping_hca2)"
say "paths enabled: $(path_record)"
end_procs $server
if [ "$SM" = opensm ]; then
	say "traps from Switch1: $(grep -c "num:128 (Link state change) Producer:2 (Switch) from LID:$sw1 " "$WORK/osm.log")"
	end_procs $osm
fi
exit 0
EOF

export WORK=$work UMAD=$umad
# run LABEL SM [VAR=VALUE...]: the script under umad sim; checks what it said.
run() {
	local label=$1 sm=$2 out=$work/out
	shift 2
	rm -rf "$work/cache"
	# opensm keeps the LIDs it gave in a cache of the test's own.
	(
		[ $# -eq 0 ] || export "$@"
		export SM=$sm OSM_CACHE_DIR=$work/cache
		UMAD_SIM_SM=$([ "$sm" = opensm ] && echo none || echo builtin)
		sim timeout 300 "$umad" sim -t "$work/line.net" -- bash "$work/portstate.sh"
	) > "$out" 2>&1
	[ $? -eq 0 ] || { fail "$label: the script failed:"; sed 's/^/    /' "$out" | tail -30; return; }
	expect "$label: ibping before" "^ping before: 2 packets transmitted, 2 received"
	expect "$label: a PathRecord before" "^paths before: 1$"
	expect "$label: ibportstate disable" "^disable: status 0$"
	expect "$label: the disabled end" "^disabled: Switch1 Down/Disabled$"
	expect "$label: the other end" "^disabled: Switch2 Down/Polling$"
	expect "$label: ibping over the disabled link" \
		"^ping disabled: 2 packets transmitted, 0 received"
	expect "$label: ibportstate enable" "^enable: status 0$"
	expect "$label: both ends Active again" "^enabled: both ends Active$"
	expect "$label: ibping after enable" "^ping enabled: 2 packets transmitted, 2 received"
	expect "$label: a PathRecord after enable" "^paths enabled: 1$"
	if [ "$sm" = opensm ]; then
		# Told by the trap, opensm took Hca2 out of its subnet.
		expect "$label: no PathRecord while disabled" "^paths disabled: 0$"
		# Once for the disable, once for the enable (more if one was sent again).
		n=$(sed -n 's/^traps from Switch1: //p' "$out")
		[ "${n:-0}" -ge 2 ] ||
			{ fail "$label: opensm logged ${n:-0} Trap 128 from Switch1, not 2 or more"; }
	fi
}
# expect NAME REGEX: the script's output has a line matching REGEX.
expect() {
	grep -q -- "$2" "$work/out" || { fail "$1: no line matching '$2' in:"; sed 's/^/    /' "$work/out" | head -40; }
}

run "SMPs on the shared memory" opensm
run "SMPs through the server" opensm UMAD_SIM_FABRIC_SMP=server
run "the built-in SM" builtin
exit $status
