#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The key handshake of a fabric over TCP between two hosts: two network
# namespaces joined by a veth pair (tests/netns_pair.sh), tcp_auth_peer
# serving in one and connecting from the other, over IPv4 and IPv6.  With
# the server's key the client gets through (and the server sees it come
# from the other namespace's address); with another key it is refused, the
# server saying the client does not know the key and the client told so.
# Skips (77) when not root or without network namespaces.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
peer=$top_builddir/tests/tcp_auth_peer
[ -x "$peer" ] || { echo "FAIL: $peer not built"; exit 1; }

. "$top_srcdir/tests/procs.sh"
work=$(mktemp -d)
at_exit 'rm -rf "$work"'
. "$top_srcdir/tests/netns_pair.sh"
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

(umask 077; head -c 32 /dev/urandom | base64 > "$work/key"; head -c 32 /dev/urandom | base64 > "$work/other")
netns_pair_up

# check_at CLIENT_ADDR SERVER_HOST:PORT: one good client, one with the wrong key.
check_at() {
	local client=$1 at=$2 out=$work/serve.out err=$work/serve.err i
	: > "$out"
	# It ends once it has served the two (or after 60 s, when a client never came).
	in_a timeout -k "$UMAD_TEST_GRACE" 60 "$peer" serve "$at" "$work/key" 2 > "$out" 2> "$err" &
	local pid=$!
	for i in $(seq 100); do
		grep -q '^listening' "$out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	grep -qxF "listening $at" "$out" || { fail "$at: the server did not listen: $(cat "$err")"; return; }
	if in_b "$peer" connect "$at" "$work/key" > "$work/good.out" 2> "$work/good.err"; then
		grep -q '^authenticated$' "$work/good.out" || fail "$at: the client said: $(cat "$work/good.out")"
	else
		fail "$at: the client with the key was refused: $(cat "$work/good.err")"
	fi
	if in_b "$peer" connect "$at" "$work/other" > "$work/bad.out" 2> "$work/bad.err"; then
		fail "$at: a client with another key got through"
	fi
	grep -q "the server refused the handshake: the client does not know the fabric's key" "$work/bad.err" ||
		fail "$at: the refused client was not told why: $(cat "$work/bad.err")"
	wait "$pid" && fail "$at: the server says every client got through"
	# Seen coming from the other namespace's address: the link was crossed.
	grep -qF "authenticated $client:" "$out" ||
		fail "$at: the server did not see the good client from $client: $(cat "$out")"
	grep -F "refused $client:" "$err" | grep -qF "the peer (the client) does not know the fabric's key" ||
		fail "$at: the server did not say why it refused: $(cat "$err")"
}

check_at "$NETNS_B4" "$NETNS_A4:7070"
if [ -n "$NETNS_A6" ]; then
	check_at "[$NETNS_B6]" "[$NETNS_A6]:7070"
else
	echo "note: no IPv6 in the namespaces; IPv4 alone tested"
fi
exit $status
