#!/bin/bash
# Several programs writing one capture on libumad's simulator, with Debian's
# tools: smpquery runs one after another and ibnetdiscovers at once into one
# UMAD_CAPTURE file, a shell's programs under umad capture -w (which starts
# the file afresh), and opensm killed with SIGKILL while ibnetdiscovers
# write beside it.  Each time: tshark reads the file without an error and
# finds every program's frames (as many as the same program captured
# alone), umad capture stats pairs every request with its answer, and
# ibnetdiscover replayed from the shared file prints what it prints live.
# Skips (77) without infiniband-diags, opensm or tshark.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibnetdiscover smpquery opensm tshark"
. "$(dirname "$0")/sim_env.sh"
export OSM_CACHE_DIR="$work/cache"
mkdir "$work/cache"
umad=$top_builddir/cli/umad

# frames FILE: n becomes how many frames tshark reads; the test fails if tshark reports an error.
frames() {
	n=$(tshark -r "$1" -T fields -e frame.number 2> "$work/tshark.err" | wc -l)
	grep -v '^Running as user .* This could be dangerous.$' "$work/tshark.err" > "$work/tshark.err2"
	[ -s "$work/tshark.err2" ] && fail "tshark on $1: $(head -3 "$work/tshark.err2")"
	return 0
}
# stats_ok NAME FILE WRITERS: stats reads FILE to its end, every request answered, WRITERS writers.
stats_ok() {
	"$umad" capture stats "$2" > "$work/$1.stats" 2>&1 || fail "$1: stats: $(cat "$work/$1.stats")"
	grep -q ' 0 timeouts, 0 requests unanswered' "$work/$1.stats" ||
		fail "$1: stats: $(head -1 "$work/$1.stats")"
	if [ "$3" -gt 1 ]; then
		grep -q "from $3 writers" "$work/$1.stats" ||
			fail "$1: not $3 writers: $(grep writers "$work/$1.stats")"
	fi
}
topology() { grep -v '^# Topology file: generated'; }

# What one program captures alone: the reference counts.
UMAD_CAPTURE="$work/one-smpq.pcapng" sim smpquery -D nodeinfo 0 > /dev/null 2>&1 || fail "smpquery"
UMAD_CAPTURE="$work/one-ibnd.pcapng" sim ibnetdiscover > "$work/plain.out" 2>&1 || fail "ibnetdiscover"
frames "$work/one-smpq.pcapng"; smpq=$n
frames "$work/one-ibnd.pcapng"; ibnd=$n
[ "$smpq" -eq 2 ] || fail "smpquery alone: $smpq frames, expected 2"
[ "$ibnd" -gt 20 ] || fail "ibnetdiscover alone: only $ibnd frames"

# --- one after another: each run appends a section ----------------------------------------------------
for i in 1 2 3; do
	UMAD_CAPTURE="$work/serial.pcapng" sim smpquery -D nodeinfo 0 > /dev/null 2>&1 || fail "smpquery $i"
done
frames "$work/serial.pcapng"
[ "$n" -eq $((3 * smpq)) ] || fail "three smpquery runs: $n frames, expected $((3 * smpq))"
stats_ok serial "$work/serial.pcapng" 3

# --- four at once ------------------------------------------------------------------------------------
pids=
for i in 1 2 3 4; do
	UMAD_CAPTURE="$work/many.pcapng" sim timeout -k 5 60 ibnetdiscover > "$work/many$i.out" 2>&1 &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "ibnetdiscover at once (pid $p)"; done
frames "$work/many.pcapng"
[ "$n" -eq $((4 * ibnd)) ] || fail "four ibnetdiscovers at once: $n frames, expected $((4 * ibnd))"
stats_ok many "$work/many.pcapng" 4
for i in 1 2 3 4; do
	diff <(topology < "$work/plain.out") <(topology < "$work/many$i.out") > /dev/null ||
		fail "ibnetdiscover $i, capturing with others, printed something else"
done
# Replayed from the file the four wrote: the same topology.
LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=replay UMAD_REPLAY="$work/many.pcapng" \
	ibnetdiscover > "$work/replayed.out" 2>&1 || fail "ibnetdiscover replayed from the shared capture"
diff <(topology < "$work/plain.out") <(topology < "$work/replayed.out") > /dev/null ||
	fail "ibnetdiscover replayed from the shared capture prints something else"

# --- umad capture -w: afresh, then every process of COMMAND appends ------------------------------------
echo "an old file, replaced" > "$work/cmd.pcapng"
UMAD_CAPTURE_SHIM="$libs/libumad-capture.so" sim "$umad" capture -w "$work/cmd.pcapng" -- \
	sh -c 'smpquery -D nodeinfo 0 >/dev/null && { ibnetdiscover >/dev/null & ibnetdiscover >/dev/null & wait; }' ||
	fail "umad capture -w of a shell's programs"
frames "$work/cmd.pcapng"
[ "$n" -eq $((smpq + 2 * ibnd)) ] || fail "umad capture -w: $n frames, expected $((smpq + 2 * ibnd))"
stats_ok cmd "$work/cmd.pcapng" 3
[ "$(stat -c %a "$work/cmd.pcapng")" = 600 ] || fail "umad capture -w: file mode $(stat -c %a "$work/cmd.pcapng")"
# Run again: started afresh, not appended to.
UMAD_CAPTURE_SHIM="$libs/libumad-capture.so" sim "$umad" capture -w "$work/cmd.pcapng" -- \
	smpquery -D nodeinfo 0 > /dev/null 2>&1 || fail "umad capture -w again"
frames "$work/cmd.pcapng"
[ "$n" -eq "$smpq" ] || fail "umad capture -w again: $n frames, expected $smpq (the file afresh)"

# --- opensm killed with SIGKILL while two ibnetdiscovers write beside it -----------------------------
UMAD_CAPTURE="$work/killed.pcapng" sim timeout -k 5 120 sh -c 'echo $$ > "$1"; exec opensm -d2 -f "$2"' \
	sh "$work/osm.pid" "$work/osm.log" > /dev/null 2>&1 &
osm_job=$!
for i in $(seq 200); do
	grep -q 'SUBNET UP' "$work/osm.log" 2>/dev/null && break
	sleep 0.1
done
grep -q 'SUBNET UP' "$work/osm.log" || fail "opensm: no SUBNET UP"
pids=
for i in 1 2; do
	UMAD_CAPTURE="$work/killed.pcapng" sim timeout -k 5 60 ibnetdiscover > /dev/null 2>&1 &
	pids="$pids $!"
done
kill -KILL "$(cat "$work/osm.pid")"
for p in $pids; do wait "$p" || fail "ibnetdiscover beside opensm (pid $p)"; done
end_procs "$osm_job"
frames "$work/killed.pcapng"
opensm_frames=$(tshark -r "$work/killed.pcapng" -Y 'infiniband.mad.method == 0x02' 2>/dev/null | wc -l)
[ "$opensm_frames" -gt 0 ] || fail "opensm killed: none of its Sets in the file"
[ "$n" -gt $((2 * ibnd)) ] || fail "opensm killed: $n frames, fewer than the two ibnetdiscovers' $((2 * ibnd)) and opensm's"
"$umad" capture stats "$work/killed.pcapng" > "$work/killed.stats" 2>&1 ||
	fail "stats of the file opensm was killed writing: $(cat "$work/killed.stats")"
LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=replay UMAD_REPLAY="$work/killed.pcapng" \
	ibnetdiscover > "$work/killed-replayed.out" 2>&1 || fail "ibnetdiscover replayed from the file opensm was killed writing"

[ "$status" -eq 0 ] && echo "PASS: programs writing one capture, one after another and at once, all kept"
exit "$status"
