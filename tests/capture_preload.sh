#!/bin/bash
# The LD_PRELOAD shim on a stack that is not ours: Debian's ibnetdiscover and
# libibumad under ibsim + umad2sim.  The capture must decode in tshark frame
# by frame, with every request answered, and the tool's output must not
# change because it is being captured.  Skips (77) without those packages.
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

work=$(mktemp -d)
export IBSIM_SOCKNAME="umadtest$$"
# ibsim reads console commands on stdin and spins at EOF: keep it open with a fifo.
mkfifo "$work/console"
sleep 120 > "$work/console" &
holder=$!
ibsim -s "$net" < "$work/console" > "$work/ibsim.log" 2>&1 &
sim=$!
trap 'kill $sim $holder 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
sleep 1

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
[ "$status" -eq 0 ] && echo "PASS: ibnetdiscover on Debian's libibumad under ibsim, captured by the shim"
exit "$status"
