#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# A fair share of a TCP fabric server's handshake slots (simfabric/handshake_share.h),
# over the loopback, whose 127.0.0.0/8 gives the peers and the clients addresses of
# their own.  While peers without the key hold and renew connections (tests/tcp_keyless_peer:
# 200 from 127.0.0.2, 200 from ten other addresses, which take every slot, and 50 sending junk
# as fast as they are refused):
#  - ibstat and saquery over TCP from 127.0.0.1 are served, each within 10 s;
#  - the peers are held to their share: most of their connections are told the server is busy;
#  - the server's log says the failures once an interval (10 s) at most: one line at once, then
#    counts, never a line per connection.
# Then 32 clients at once from one address all get through (those told the server is busy try
# again).
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibstat saquery"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
peer=$top_builddir/tests/tcp_keyless_peer
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
[ -x "$peer" ] || { echo "FAIL: $peer not built"; exit 1; }

(umask 077; head -c 32 /dev/urandom | base64 > "$work/key")

LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" "$umad" fabric serve --socket "$work/sock" \
	--listen 127.0.0.1:0 --key-file "$work/key" 2> "$work/serve.err" &
server=$!
at_exit 'end_procs "$server"'
tcp_listening "$server" "$work/serve.err"
[ -n "$at" ] || { echo "FAIL: the server did not listen: $(cat "$work/serve.err")"; exit 1; }

# client CMD...: CMD over TCP, from 127.0.0.1; its output in $work/client.out, its time in $took (ms).
took=0
client() {
	local from to
	from=$(date +%s%N)
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim UMAD_SIM_FABRIC="tcp:$at" \
		UMAD_SIM_FABRIC_KEY="$work/key" timeout 30 "$@" > "$work/client.out" 2>&1
	local rc=$?
	to=$(date +%s%N)
	took=$(( (to - from) / 1000000 ))
	return $rc
}

# The peers: 16 s, long enough for the held connections' slots to time out and be renewed.
others=$(seq -s, -f '127.0.0.%g' 3 12)
"$peer" "$at" 127.0.0.2 200 16 hold > "$work/one.out" 2> "$work/one.err" &
one=$!
"$peer" "$at" "$others" 200 16 hold > "$work/ten.out" 2> "$work/ten.err" &
ten=$!
"$peer" "$at" 127.0.0.13 50 16 junk > "$work/junk.out" 2> "$work/junk.err" &
junk=$!
at_exit 'end_procs "$one" "$ten" "$junk"'
sleep 2

# Clients, one after the other, through the whole time the peers hold the slots (and past 10 s,
# when the held ones time out and are renewed).
served=0 rounds=0
start=$(date +%s)
while [ $(( $(date +%s) - start )) -lt 12 ]; do
	rounds=$((rounds + 1))
	if client ibstat; then
		grep -q "CA 'sim0'" "$work/client.out" || fail "ibstat said: $(head -3 "$work/client.out")"
		[ "$took" -le 10000 ] || fail "ibstat took $took ms while the peers held the slots"
		served=$((served + 1))
	else
		fail "ibstat was not served while the peers held the slots ($took ms): $(head -3 "$work/client.out")"
	fi
	if client saquery -s; then
		[ "$took" -le 10000 ] || fail "saquery took $took ms while the peers held the slots"
	else
		fail "saquery was not served while the peers held the slots: $(head -3 "$work/client.out")"
	fi
	sleep 1
done
[ "$served" -ge 3 ] || fail "only $served of $rounds clients were served"

wait "$one" "$ten" "$junk"
for p in one ten junk; do
	read -r _ opened _ closed _ busy < "$work/$p.out" || { fail "the $p peer said nothing: $(cat "$work/$p.err")"; continue; }
	echo "note: the $p peer opened $opened connections, $closed closed by the server, $busy told it was busy"
	# The holders are held to their share: far more of their connections were turned away than
	# the server has slots (the junk peer's fail before they need one).
	[ "$p" = junk ] || [ "${busy:-0}" -ge 100 ] || fail "the $p peer was told the server is busy $busy times only"
done
read -r _ junk_opened _ < "$work/junk.out"
[ "${junk_opened:-0}" -ge 1000 ] || fail "the junk peer opened $junk_opened connections only"

# The failures were counted, not said one by one: once the interval after the last line is over,
# a count comes.  Lines 10 s apart at least: at most 3 in the peers' 16 s and the wait for the last.
for _ in $(seq 150); do
	grep -q "more TCP handshakes failed" "$work/serve.err" &&
		[ "$(( $(date +%s) - start ))" -ge 16 ] && break
	sleep 0.1
done
sleep 1
grep "refused\|TCP handshake" "$work/serve.err" | cut -c1-400 | sed "s/^/note: log: /"
lines=$(grep -c "refused\|TCP handshake" "$work/serve.err")
[ "$lines" -le 3 ] || { fail "$lines lines in the log about failed handshakes"; head -5 "$work/serve.err"; }
counted=$(sed -n 's/.* \([0-9][0-9]*\) more TCP handshakes failed.*/\1/p' "$work/serve.err" |
	awk '{ n += $1 } END { print n + 0 }')
[ "$counted" -ge 1000 ] || { fail "the log counted $counted failed handshakes"; cat "$work/serve.err"; }
grep -q "turned away" "$work/serve.err" || fail "the log does not say connections were turned away"

# --- 32 clients at once from one address: past its share, they are told to wait, and get through
for i in $(seq 1 32); do
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim UMAD_SIM_FABRIC="tcp:$at" \
		UMAD_SIM_FABRIC_KEY="$work/key" timeout 60 ibstat > "$work/c$i" 2>&1 &
done
wait $(jobs -p | grep -vx "$server")
ok=0
for i in $(seq 1 32); do grep -q "CA 'sim0'" "$work/c$i" && ok=$((ok + 1)); done
[ "$ok" = 32 ] || { fail "32 clients at once: $ok served"; grep -hv "CA\|^ \|^$" "$work"/c* | sort | uniq -c | head -5; }
kill -0 "$server" 2>/dev/null || fail "the server is gone"

[ "$status" -eq 0 ] && echo "PASS: a fair share of the TCP handshakes"
exit "$status"
