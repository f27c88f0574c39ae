#!/bin/bash
# What umad fabric refuses, it refuses with the limit, not with another
# reason, against a running fabric (umad sim):
#  - a delay is at most a minute (SIM_FAULT_MAX_DELAY_US), as for libumad-sim
#    and scenario files: 60000000 microseconds are taken, one more is not;
#  - a scenario naming a node longer than a node id may be is refused at its
#    FILE:LINE, with the limit.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="timeout"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
export WORK=$work UMAD=$umad

# expect NAME REGEX: the output has a line matching REGEX.
expect() {
	grep -q -- "$2" "$work/out" || { fail "$1: no line matching '$2' in:"; sed 's/^/    /' "$work/out"; }
}

printf '0 link down %s 1\n' "$(head -c 256 /dev/zero | tr '\0' n)" > "$work/long.scn"
sim timeout 120 "$umad" sim -- bash -c '
for us in 60000000 0 60000001 4294967295; do
	"$UMAD" fabric delay Switch1 1 $us 2>&1
	echo "delay $us: exit $?"
done
"$UMAD" fabric scenario "$WORK/long.scn" 2>&1
echo "scenario: exit $?"
' > "$work/out" 2>&1 || fail "umad sim: exit $?"

expect "the longest delay" "^delay 60000000: exit 0$"
expect "no delay" "^delay 0: exit 0$"
expect "a delay over a minute" "^delay 60000001: exit 2$"
expect "the delay's limit" "^umad: fabric delay: 60000001 is longer than a minute (at most 60000000 microseconds)$"
expect "a delay of 2^32-1 microseconds" "^delay 4294967295: exit 2$"
expect "a node too long" "^$work/long.scn:1: link: node \"n*\.\.\.\" is longer than 255 bytes, the longest node id$"
expect "a node too long" "^scenario: exit 1$"
grep -q "not supported" "$work/out" && fail "a node too long is reported as not supported: $(cat "$work/out")"
exit $status
