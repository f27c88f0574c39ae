#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sixteen programs at once on one shared fabric, beside a busy loop, while
# Hca3's port drops 30 % of what leaves it (the answers): 6 send SMPs
# through the server's mailbox (UMAD_SIM_FABRIC_SMP=server), 5 PMA requests
# on the Unix connection, 5 reach the server over TCP (SMPs and PMA
# requests).  Each of their requests (tests/retry_probe.c, 3 retries, 64
# outstanding) completes exactly once -- its answer or its timeout, never
# both, never twice, nothing late -- and together about 1 - 0.3^4 of them
# are answered: not more (the drops applied to every path), and not much
# fewer (a wait lost under load would time requests out).
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs=""
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
probe=$top_builddir/tests/retry_probe
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
[ -x "$probe" ] || { echo "FAIL: $probe not built"; exit 1; }
export LD_LIBRARY_PATH=$libs UMAD_MODULE_DIR=$libs

N=300			# each program's requests
TIMEOUT=1000		# ms: long beside what a busy machine delays an answer
RETRIES=3
HCA3_LID=5		# the built-in SM's LID for Hca3 on the default fabric

(umask 077; head -c 32 /dev/urandom | base64 > "$work/key")
mkdir -m 700 "$work/s"
"$umad" fabric serve --socket "$work/s/socket" --listen 127.0.0.1:0 --key-file "$work/key" \
	2> "$work/serve.err" &
server=$!
tcp_listening "$server" "$work/serve.err"
[ -n "$at" ] || { echo "FAIL: the server did not listen: $(cat "$work/serve.err")"; exit 1; }
if ! "$umad" fabric --socket "$work/s/socket" drop Hca3 1 0.3 seed=7 > "$work/drop.out" 2>&1; then
	echo "FAIL: umad fabric drop: $(cat "$work/drop.out" "$work/serve.err")"
	exit 1
fi

# A busy loop beside, as on a CI machine running other jobs.
( while :; do :; done ) &
busy=$!

# client NAME KIND ENV...: the probe with ENV, in the background, into $work/NAME.
pids=() names=()
client() {
	local name=$1 kind=$2
	shift 2
	env UMAD_BACKEND=sim "$@" timeout 300 "$probe" --threads 2 "$kind" "$N" "$TIMEOUT" \
		"$RETRIES" "$HCA3_LID" > "$work/$name" 2>&1 &
	pids+=($!)
	names+=("$name")
}
unix="UMAD_SIM_FABRIC=$work/s/socket"
tcp="UMAD_SIM_FABRIC=tcp:$at UMAD_SIM_FABRIC_KEY=$work/key"
for i in 1 2 3 4 5 6; do client "mailbox-smp-$i" smp $unix UMAD_SIM_FABRIC_SMP=server; done
for i in 1 2 3 4 5; do client "unix-pma-$i" pma $unix; done
for i in 1 2 3; do client "tcp-smp-$i" smp $tcp; done
for i in 1 2; do client "tcp-pma-$i" pma $tcp; done

answered=0 ran=0
for i in "${!pids[@]}"; do
	name=${names[$i]}
	if ! wait "${pids[$i]}"; then
		fail "$name: not exactly once: $(grep -v '^timeout' "$work/$name" | tail -4)"
		continue
	fi
	a=$(awk '/^answered/ { print $2 }' "$work/$name")
	[ -n "$a" ] || { fail "$name: no result: $(tail -3 "$work/$name")"; continue; }
	answered=$((answered + a)) ran=$((ran + 1))
done
end_procs "$busy"
kill -0 "$server" 2>/dev/null || fail "the server died: $(tail -5 "$work/serve.err")"
end_procs "$server"

total=$((ran * N))
if [ "$ran" -gt 0 ]; then
	# Not more than the drops allow (five standard deviations), nor 3 % below it.
	if ! awk -v n="$total" -v r="$RETRIES" -v a="$answered" 'BEGIN {
		p = 1 - 0.3 ^ (r + 1); sd = sqrt(n * p * (1 - p))
		exit !(a <= n * p + 5 * sd + 3 && a >= n * (p - 0.03)) }'; then
		fail "$answered of $total answered; expected about" \
			"$(awk -v n="$total" -v r="$RETRIES" 'BEGIN { printf "%d", n * (1 - 0.3 ^ (r + 1)) }')"
	fi
	echo "$ran programs at once, each request completed once: $answered of $total answered"
fi
exit $status
