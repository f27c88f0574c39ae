#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# umad_send()'s retries as the kernel's MAD layer makes them, on every path a
# MAD takes (tests/retry_probe.c): 1,000 requests to Hca3 (64 outstanding at a
# time), whose port drops 30 % of what leaves it (the answers), are answered about 70 % of the time
# with no retry, 91 % with one and 99 % with three (1 - 0.3^(retries+1),
# within five standard deviations), each completing exactly once (answer or
# timeout, nothing late), from one thread and from four at once:
#  - in the process's own fabric (SMPs and PMA requests);
#  - on a shared fabric: SMPs answered in the client on the mapped fabric,
#    SMPs sent to the server (UMAD_SIM_FABRIC_SMP=server), PMA requests on
#    the connection;
#  - over TCP (a server listening on the loopback, with a key);
#  - through umad kernel's device files, this library's kernel backend on them;
# and in a capture every resend is an outbound request: a request that
# timed out went out retries + 1 times with its TID.
# Skips (77) the device files without FUSE, the capture without tshark.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs=""
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
probe=$top_builddir/tests/retry_probe
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
[ -x "$probe" ] || { echo "FAIL: $probe not built"; exit 1; }
export LD_LIBRARY_PATH=$libs UMAD_MODULE_DIR=$libs

N=1000
TIMEOUT=100
DROP="Hca3 1 0.3"
HCA3_LID=5		# the built-in SM's LID for Hca3 on the default fabric

# within NAME RETRIES OUTPUT: the answers of OUTPUT's first line within the binomial bounds.
within() {
	local name=$1 r=$2 answered
	answered=$(awk '/^answered/ { print $2 }' "$3")
	if [ -z "$answered" ]; then
		fail "$name: no result: $(tail -3 "$3")"
		return 1
	fi
	if ! awk -v n=$N -v r="$r" -v a="$answered" 'BEGIN {
		p = 1 - 0.3 ^ (r + 1); sd = sqrt(n * p * (1 - p)); m = 5 * sd < 3 ? 3 : 5 * sd
		exit !(a >= n * p - m && a <= n * p + m) }'; then
		fail "$name: $answered of $N answered with $r retries; expected about" \
			"$(awk -v n=$N -v r="$r" 'BEGIN { printf "%d", n * (1 - 0.3 ^ (r + 1)) }')"
		return 1
	fi
	echo "$name: $answered of $N answered"
}

# probe_all PREFIX COMMAND...: the probe under COMMAND for each kind, retries and threads.
# (Every run's drop generator starts again from its seed.)
probe_all() {
	local prefix=$1 kind r threads out
	shift
	for kind in smp pma; do
		for r in 0 1 3; do
			for threads in 1 4; do
				out=$work/$prefix-$kind-$r-$threads
				if ! "$@" "$probe" ${DROP_ARGS:+--drop $DROP 7} --threads "$threads" \
				     "$kind" "$N" "$TIMEOUT" "$r" "$HCA3_LID" > "$out" 2>&1; then
					fail "$prefix $kind retries $r threads $threads: $(grep -v '^timeout' "$out" | tail -3)"
					continue
				fi
				within "$prefix $kind retries $r threads $threads" "$r" "$out"
			done
		done
	done
}

# The process's own fabric.
DROP_ARGS=1 probe_all own env UMAD_BACKEND=sim UMAD_SIM_SM=builtin

# The capture: a request that timed out is there retries + 1 times, as sent.
if command -v tshark > /dev/null; then
	out=$work/capture
	if UMAD_BACKEND=sim UMAD_SIM_SM=builtin UMAD_CAPTURE="$work/retries.pcapng" \
		"$probe" --drop $DROP 7 smp "$N" "$TIMEOUT" 3 "$HCA3_LID" > "$out" 2>&1; then
		tshark -r "$work/retries.pcapng" -Y 'infiniband.mad.method == 0x01 && frame.packet_flags_direction == 2' -T fields \
			-e infiniband.mad.transactionid > "$work/requests" 2> "$work/tshark.err"
		timed_out=$(grep -c '^timeout' "$out")
		bad=0
		for low in $(awk '/^timeout/ { print $2 }' "$out"); do
			n=$(grep -ci "${low#0x}\$" "$work/requests")
			[ "$n" = 4 ] || { bad=1; fail "capture: timed-out request $low went out $n times, not 4"; }
		done
		sent=$(wc -l < "$work/requests")
		answered=$(awk '/^answered/ { print $2 }' "$out")
		# Each answered request went out once or more; each timed out one, four times.
		[ "$sent" -ge $((answered + 4 * timed_out)) ] && [ "$sent" -le $((4 * N)) ] ||
			fail "capture: $sent requests for $answered answered and $timed_out timed out"
		[ "$bad" = 0 ] && echo "capture: $sent requests on the wire, $timed_out timed out after 4 each"
	else
		fail "capture run: $(tail -3 "$out")"
	fi
else
	echo "skip: tshark is not installed: the capture of resends is not checked"
fi

# A shared fabric: the SMA in the client, then the server answering SMPs.
cat > "$work/shared.sh" <<'EOF'
. "$UMAD_TEST_PROCS"
. "$SCRIPT"
DROP_ARGS=1 probe_all "$PREFIX"
exit $status
EOF
# What probe_all and within need, for the scripts under umad sim.
declare -f probe_all within fail > "$work/lib.sh"
cat >> "$work/lib.sh" <<EOF
probe=$probe N=$N TIMEOUT=$TIMEOUT DROP="$DROP" HCA3_LID=$HCA3_LID work=$work status=0
EOF
for smp in local server; do
	env SCRIPT="$work/lib.sh" PREFIX="shared-$smp" UMAD_SIM_FABRIC_SMP=$smp \
		"$umad" sim -- bash "$work/shared.sh" > "$work/shared-$smp.out" 2>&1 || status=1
	cat "$work/shared-$smp.out"
done

# Over TCP on the loopback, with a key.
(umask 077; head -c 32 /dev/urandom | base64 > "$work/key")
mkdir -m 700 "$work/tcp"
"$umad" fabric serve --socket "$work/tcp/socket" --listen 127.0.0.1:0 --key-file "$work/key" \
	2> "$work/serve.err" &
server=$!
tcp_listening "$server" "$work/serve.err"
if [ -n "$at" ]; then
	DROP_ARGS=1 probe_all tcp env UMAD_BACKEND=sim UMAD_SIM_FABRIC="tcp:$at" \
		UMAD_SIM_FABRIC_KEY="$work/key"
else
	fail "the TCP server did not listen: $(cat "$work/serve.err")"
fi
end_procs "$server"

# umad kernel's device files: the drop set from outside, the probe on the kernel backend.
if "$umad" kernel --help 2>&1 | grep -q -- '--mount'; then
	if [ -e /dev/fuse ] && { [ "$(id -u)" = 0 ] || unshare -Urm true 2>/dev/null; }; then
		mkdir -m 700 "$work/dev"
		"$umad" fabric serve --socket "$work/dev/socket" 2> "$work/serve-dev.err" &
		server=$!
		for i in $(seq 300); do
			[ -S "$work/dev/socket" ] && break
			sleep 0.05
		done
		if "$umad" fabric --socket "$work/dev/socket" drop $DROP seed=7 > "$work/drop.out" 2>&1; then
			probe_all kernel "$umad" kernel --fabric "$work/dev/socket" --host Hca1 -- \
				env UMAD_BACKEND=kernel
		else
			fail "umad fabric drop: $(cat "$work/drop.out" "$work/serve-dev.err")"
		fi
		end_procs "$server"
	else
		echo "skip: no /dev/fuse or namespaces: the device files are left out"
	fi
else
	echo "skip: umad kernel is not built (--disable-kernel-fs)"
fi
exit $status
