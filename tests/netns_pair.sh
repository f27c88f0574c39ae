# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced (by bash) by the tests that need two hosts: two network namespaces,
# A and B, joined by a veth pair, each with an IPv4 and (when the kernel has
# it) an IPv6 address on the link, and its loopback up.
#
#   netns_pair_up          make them (exit 77 with a message when it cannot)
#   in_a CMD... / in_b CMD...
#                          run CMD in A / in B (the environment goes with it)
#   NETNS_A, NETNS_B       the namespaces' names
#   NETNS_A4, NETNS_B4     their IPv4 addresses (10.231.0.1 and .2, a /24)
#   NETNS_A6, NETNS_B6     their IPv6 addresses (fd00:231::1 and ::2, a /64),
#                          empty when IPv6 is off
#   netns_pair_cleanup     what the exit does: ends what still runs in
#                          them (TERM, then KILL), then removes both (the
#                          link goes with them)
#
# Sourcing skips the test (77) when not root or when `ip netns` is missing.
# The cleanup runs at exit (tests/procs.sh's at_exit, sourced here if the
# test has not), after the processes the test started have ended.
# The names carry the shell's process id, so tests may run side by side.

declare -F at_exit >/dev/null || . "${BASH_SOURCE[0]%/*}/procs.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: two network namespaces need root"; exit 77; }
command -v ip >/dev/null 2>&1 || { echo "SKIP: ip (iproute2) is not installed"; exit 77; }
ip netns list >/dev/null 2>&1 || { echo "SKIP: ip netns is not available"; exit 77; }

NETNS_A=umad-a-$$
NETNS_B=umad-b-$$
NETNS_A4=10.231.0.1
NETNS_B4=10.231.0.2
NETNS_A6=
NETNS_B6=
netns_veth_a=uva$$
netns_veth_b=uvb$$
netns_made=

in_a() { ip netns exec "$NETNS_A" "$@"; }
in_b() { ip netns exec "$NETNS_B" "$@"; }

netns_pair_cleanup() {
	local ns
	for ns in $netns_made; do
		# Processes of this test's left in its namespace: ended by their ids.
		end_procs $(ip netns pids "$ns" 2>/dev/null)
		ip netns del "$ns" 2>/dev/null
	done
	netns_made=
}

at_exit netns_pair_cleanup

netns_pair_up() {
	local why ns i
	for ns in "$NETNS_A" "$NETNS_B"; do
		why=$(ip netns add "$ns" 2>&1) || { echo "SKIP: cannot make a network namespace: $why"; exit 77; }
		netns_made="$netns_made $ns"
	done
	why=$(ip link add "$netns_veth_a" netns "$NETNS_A" type veth peer name "$netns_veth_b" \
		netns "$NETNS_B" 2>&1) || { echo "SKIP: cannot make a veth pair: $why"; exit 77; }
	in_a ip link set lo up && in_b ip link set lo up &&
	in_a ip addr add "$NETNS_A4/24" dev "$netns_veth_a" &&
	in_b ip addr add "$NETNS_B4/24" dev "$netns_veth_b" &&
	in_a ip link set "$netns_veth_a" up && in_b ip link set "$netns_veth_b" up ||
		{ echo "FAIL: cannot set up the link between $NETNS_A and $NETNS_B"; exit 1; }
	# IPv6 without duplicate address detection, so that the addresses work at once.
	if in_a ip addr add fd00:231::1/64 dev "$netns_veth_a" nodad 2>/dev/null &&
	   in_b ip addr add fd00:231::2/64 dev "$netns_veth_b" nodad 2>/dev/null; then
		NETNS_A6=fd00:231::1
		NETNS_B6=fd00:231::2
	fi
	# The link is up when both ends say so.
	for i in $(seq 50); do
		in_a ip link show "$netns_veth_a" | grep -q 'state UP' &&
			in_b ip link show "$netns_veth_b" | grep -q 'state UP' && return 0
		sleep 0.1
	done
	echo "FAIL: the link between $NETNS_A and $NETNS_B does not come up"
	exit 1
}
