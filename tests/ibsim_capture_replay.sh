#!/bin/bash
# Capture on a stack that is not ours, then replay on ours:
# 1. Debian's ibnetdiscover and libibumad under ibsim + umad2sim, captured by
#    the LD_PRELOAD shim through "umad capture": the output must not change,
#    every frame must decode in tshark, requests and responses pair up, and
#    "umad capture stats" agrees;
# 2. the same ibnetdiscover on our library with UMAD_BACKEND=replay of that
#    capture (no simulator running) must print the same topology; a request
#    the capture lacks times out; a foreign file gets a clear error.
# Skips (77) without ibsim-utils, libumad2sim0, infiniband-diags or tshark.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
top_builddir=${top_builddir:-.}
shim=$top_builddir/.libs/libumad-capture.so
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
for need in ibsim ibnetdiscover tshark; do
	command -v "$need" >/dev/null 2>&1 || { echo "SKIP: $need not installed"; exit 77; }
done
[ -f "$umad2sim" ] && [ -f "$net" ] || { echo "SKIP: ibsim-utils/libumad2sim0 not installed"; exit 77; }
[ -f "$shim" ] || { echo "FAIL: $shim not built"; exit 1; }

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/procs.sh"
work=$(mktemp -d)
at_exit 'rm -rf "$work"'
# ibsim and its console end with the test's other processes (tests/procs.sh).
ibsim_keep_trap=1
. "$top_srcdir/scripts/ibsim-session.sh"
start_ibsim "$net" "$work" || exit 1

LD_PRELOAD="$umad2sim" ibnetdiscover > "$work/plain.out" 2>"$work/plain.err" ||
	{ echo "FAIL: ibnetdiscover under ibsim"; cat "$work/plain.err"; exit 1; }
# Through the front end: umad capture -w FILE -- CMD (the shim from the build tree).
UMAD_CAPTURE_SHIM="$shim" LD_PRELOAD="$umad2sim" \
	"$top_builddir/cli/umad" capture -w "$work/cap.pcapng" -- \
	ibnetdiscover > "$work/captured.out" 2>"$work/captured.err" ||
	{ echo "FAIL: ibnetdiscover with the shim"; cat "$work/captured.err"; exit 1; }

status=0
# The "generated on" line carries the time of the run.
if ! diff <(grep -v '^# Topology file: generated' "$work/plain.out") \
	<(grep -v '^# Topology file: generated' "$work/captured.out") >/dev/null 2>&1; then
	grep -v '^# Topology file: generated' "$work/plain.out" > "$work/a"
	grep -v '^# Topology file: generated' "$work/captured.out" > "$work/b"
	diff -u "$work/a" "$work/b" || { echo "FAIL: the output changed under capture"; status=1; }
fi
mode=$(stat -c %a "$work/cap.pcapng")
[ "$mode" = 600 ] || { echo "FAIL: capture file mode $mode, expected 600"; status=1; }

tshark -r "$work/cap.pcapng" -T fields -e frame.p2p_dir -e _ws.col.Info 2>/dev/null > "$work/frames"
frames=$(wc -l < "$work/frames")
gets=$(grep -c '^0.*SubnGet(' "$work/frames")
resps=$(grep -c '^1.*SubnGetResp(' "$work/frames")
bad=$(grep -v -c 'SubnGet(\|SubnGetResp(' "$work/frames")
malformed=$(grep -c -i 'malformed' "$work/frames")
echo "$frames frames: $gets SubnGet sent, $resps SubnGetResp received, $bad other, $malformed malformed"
[ "$frames" -gt 20 ] || { echo "FAIL: too few frames"; status=1; }
[ "$gets" -eq "$resps" ] || { echo "FAIL: requests and responses do not pair up"; status=1; }
[ "$bad" -eq 0 ] && [ "$malformed" -eq 0 ] || { echo "FAIL: undecoded frames"; status=1; }
for attr in NodeInfo PortInfo NodeDescription SwitchInfo; do
	grep -q "SubnGetResp($attr)" "$work/frames" || { echo "FAIL: no SubnGetResp($attr)"; status=1; }
done
# umad capture stats: the same numbers, every request answered.
"$top_builddir/cli/umad" capture stats "$work/cap.pcapng" > "$work/stats" ||
	{ echo "FAIL: umad capture stats"; status=1; }
cat "$work/stats"
grep -q ": $frames MADs ($gets sent, $resps received), 0 timeouts, 0 requests unanswered" \
	"$work/stats" || { echo "FAIL: stats disagree with tshark"; status=1; }
grep -q "round trip ($gets answered requests): p50" "$work/stats" ||
	{ echo "FAIL: no latency percentiles"; status=1; }

# --- opensm -o and perfquery, captured the same way ------------------------
if command -v opensm >/dev/null 2>&1 && command -v perfquery >/dev/null 2>&1; then
	OSM_CACHE_DIR="$work/cache" UMAD_CAPTURE_SHIM="$shim" LD_PRELOAD="$umad2sim" timeout 60 \
		"$top_builddir/cli/umad" capture -w "$work/osm.pcapng" -- \
		opensm -o -f "$work/osm.log" > /dev/null 2>&1
	grep -q "SUBNET UP" "$work/osm.log" ||
		{ echo "FAIL: opensm -o did not bring the subnet up under capture"; status=1; }
	tshark -r "$work/osm.pcapng" -T fields -e _ws.col.Info 2>/dev/null > "$work/osm.frames"
	for name in "SubnSet(PortInfo)" "SubnGetResp(PortInfo)" "SubnGet(NodeInfo)" \
		"SubnSet(LinearForwardingTable)"; do
		grep -qF "$name" "$work/osm.frames" ||
			{ echo "FAIL: no $name in the opensm capture"; status=1; }
	done
	grep -qi malformed "$work/osm.frames" && { echo "FAIL: malformed opensm frames"; status=1; }
	echo "opensm -o: $(wc -l < "$work/osm.frames") frames captured"
	UMAD_CAPTURE_SHIM="$shim" LD_PRELOAD="$umad2sim" "$top_builddir/cli/umad" capture \
		-w "$work/perf.pcapng" -- perfquery > "$work/perf.out" 2>&1 ||
		{ echo "FAIL: perfquery after opensm"; cat "$work/perf.out"; status=1; }
	[ "$(tshark -r "$work/perf.pcapng" -T fields -e _ws.col.Info 2>/dev/null |
		grep -c 'PERF (PortCounters)')" -eq 2 ] ||
		{ echo "FAIL: perfquery's PortCounters request and answer not in the capture"; status=1; }
fi

# --- replay, with the simulator gone -----------------------------------------
end_procs $sim $ibsim_console_holder
replay() {
	UMAD_BACKEND=replay UMAD_REPLAY="$1" UMAD_MODULE_DIR="$top_builddir/.libs" \
		LD_LIBRARY_PATH="$top_builddir/.libs" timeout 60 "${@:2}"
}
replay "$work/cap.pcapng" ibnetdiscover > "$work/replayed.out" 2>"$work/replayed.err" ||
	{ echo "FAIL: ibnetdiscover under replay"; cat "$work/replayed.err"; status=1; }
grep -v '^# Topology file: generated' "$work/replayed.out" > "$work/c"
grep -v '^# Topology file: generated' "$work/plain.out" > "$work/a"
if diff -u "$work/a" "$work/c"; then
	echo "PASS: ibnetdiscover replayed from its capture prints the same topology"
else
	echo "FAIL: the replayed topology differs"
	status=1
fi
# A DR path the capture never saw: three retries time out, and at umad debug 1 (-dd) it is reported.
start=$(date +%s)
if replay "$work/cap.pcapng" smpquery -dd -t 200 -D nodeinfo 0,1,1,1,1,1 > /dev/null 2>"$work/miss.err"; then
	echo "FAIL: a request missing from the capture was answered"
	status=1
fi
grep -q "had no recorded answer" "$work/miss.err" ||
	{ echo "FAIL: no report of the unanswered request"; cat "$work/miss.err"; status=1; }
grep -q "timeout after" "$work/miss.err" ||
	{ echo "FAIL: the missing request did not time out"; status=1; }
[ $(( $(date +%s) - start )) -lt 30 ] || { echo "FAIL: the timeout took too long"; status=1; }
# A file that is not a capture, and a truncated one: clear errors, no crash
# (the tool exits with its own error status, 255 for smpquery, not a signal).
printf 'not a capture\n' > "$work/foreign"
replay "$work/foreign" smpquery -D nodeinfo 0 > /dev/null 2>"$work/foreign.err"
rc=$?
grep -q "foreign: offset 0: not a pcap or pcapng file" "$work/foreign.err" && { [ "$rc" -ne 0 ] && { [ "$rc" -lt 128 ] || [ "$rc" -eq 255 ]; }; } ||
	{ echo "FAIL: foreign file (exit $rc)"; cat "$work/foreign.err"; status=1; }
# Cut before its first whole MAD: nothing to answer from.
head -c 200 "$work/cap.pcapng" > "$work/cut.pcapng"
replay "$work/cut.pcapng" smpquery -D nodeinfo 0 > /dev/null 2>"$work/cut.err"
rc=$?
grep -q "cut.pcapng: offset [0-9]*: truncated" "$work/cut.err" && { [ "$rc" -ne 0 ] && { [ "$rc" -lt 128 ] || [ "$rc" -eq 255 ]; }; } ||
	{ echo "FAIL: truncated file (exit $rc)"; cat "$work/cut.err"; status=1; }

[ "$status" -eq 0 ] && echo "PASS: captured under ibsim by the shim, replayed without it"
exit "$status"
