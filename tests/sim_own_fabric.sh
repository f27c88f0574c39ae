#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The hint that each process has a fabric of its own (UMAD_BACKEND=sim
# without UMAD_SIM_FABRIC): ibping to another CA, whose ibping -S would run
# in another process, times out in process and says once on stderr that a
# shared fabric (umad sim, umad fabric serve) joins processes.  No hint for
# what the fabric answers (perfquery, smpquery, saquery), for an SMP down a
# path into nothing, for a LID with no route, nor on a shared fabric
# (umad sim -- ibping, skipped alone when the umad command is not built).
# Skips (77) without infiniband-diags.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibping ibstat perfquery smpquery saquery"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
hint="each process has its own copy of the fabric"
# The built-in SM gives the LIDs and the SA that ibping -G asks.
export UMAD_SIM_SM=builtin

# hints NAME N CMD...: CMD in process must print the hint exactly N times on stderr.
hints() {
	local name=$1 want=$2 n
	shift 2
	sim "$@" > "$work/out" 2> "$work/err"
	n=$(grep -c "$hint" "$work/err")
	if [ "$n" -ne "$want" ]; then
		fail "$name: the hint printed $n times, expected $want; stderr:"
		sed 's/^/    /' "$work/err"
	else
		echo "ok: $name: the hint printed $n times"
	fi
}

# Hca3's port, where no process of ours listens.
guid=$(UMAD_SIM_HOST=Hca3 sim ibstat -p | head -1)
lid=$(UMAD_SIM_HOST=Hca3 sim ibstat | awk '/Base lid:/ { print $3; exit }')
[ -n "$guid" ] && [ -n "$lid" ] && [ "$lid" != 0 ] || fail "no GUID and LID for Hca3 ('$guid', '$lid')"

# Two pings, both lost: one hint, naming the LID.
hints "ibping -G to another CA" 1 ibping -c 2 -t 100 -G "$guid"
grep -q "LID $lid " "$work/err" || fail "the hint does not name LID $lid"
grep -q "umad sim -- CMD" "$work/err" || fail "the hint does not say how to share a fabric"
grep -q "100% packet loss" "$work/out" || fail "ibping was answered in process"

# Answered by the fabric's own agents: no hint.
hints "perfquery of another CA" 0 perfquery "$lid"
grep -q "PortXmitPkts" "$work/out" || fail "perfquery $lid was not answered"
hints "smpquery nodeinfo of another CA" 0 smpquery nodeinfo "$lid"
hints "saquery" 0 saquery -t 100
grep -q "NodeRecord" "$work/out" || fail "saquery was not answered"
# Lost, but not for want of another process: no hint.
hints "an SMP down a path into nothing" 0 smpquery -t 100 -D nodeinfo 0,1,3
hints "perfquery of a LID nothing has" 0 perfquery -t 100 999

# On a shared fabric the other process can be there: no hint for the same ping.
if [ -x "$umad" ]; then
	hints "ibping under umad sim" 0 timeout 300 "$umad" sim -- ibping -c 1 -t 100 -G "$guid"
	grep -q "100% packet loss" "$work/out" || fail "ibping under umad sim was answered"
else
	echo "SKIP (part): $umad not built: no shared fabric"
fi

[ $status -eq 0 ] && echo "PASS: the own-fabric hint, once, where it helps"
exit $status
