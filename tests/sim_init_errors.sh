#!/bin/bash
# A backend that cannot be used, seen by Debian's unmodified tools: ibstat
# and smpdump print why umad_init() failed with %m, which must be the error
# the library reported, never "Success" (errno left at 0).  Cases: an
# unknown UMAD_BACKEND, the sim module missing or not a module, and the sim
# backend refusing to start (unknown UMAD_SIM_HOST, a bad or missing
# topology), each line of its reason saying it is libumad's; and what it
# tells once, as it starts, of a fabric its SM cannot bring up and of a
# server it cannot reach.  Skips (77) without infiniband-diags.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibstat smpdump"
. "$(dirname "$0")/sim_env.sh"

# refused NAME REASON [VAR=VALUE...]: each tool, run with the variables on the
# sim backend, fails and says "can't init UMAD library: REASON" ("" : the
# reason the library gave in its "failed to start: REASON" line).
refused() {
	local name=$1 reason=$2 tool said want
	shift 2
	for tool in "ibstat" "ibstat -l" "smpdump 1 1"; do
		if env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim \
			UMAD_SIM_SM=none "$@" $tool > "$work/out" 2>&1; then
			fail "$name: $tool succeeded"
			continue
		fi
		want=$reason
		[ -n "$want" ] || want=$(sed -n "s/^libumad: backend 'sim' failed to start: //p" "$work/out")
		said=$(sed -n "s/.*can't init UMAD library: //p" "$work/out")
		if [ -z "$want" ] || [ "$said" != "$want" ]; then
			fail "$name: $tool says \"$said\" where the library's error is \"$want\":"
			sed 's/^/    /' "$work/out"
		fi
	done
}

refused "unknown backend" "No such file or directory" UMAD_BACKEND=nosuch
mkdir "$work/modules"
refused "no sim module" "No such file or directory" UMAD_MODULE_DIR="$work/modules"
echo "not an ELF object" > "$work/modules/backend-sim.so"
refused "broken sim module" "Accessing a corrupted shared library" UMAD_MODULE_DIR="$work/modules"
refused "unknown UMAD_SIM_HOST" "No such device" UMAD_SIM_HOST=nosuch
printf 'Switch 4 "S"\n[1] "H"[1]\n\nHca 1 "H"\n[1] "S"[2]\n' > "$work/bad.net"
refused "bad topology" "" UMAD_SIM_TOPOLOGY="$work/bad.net"
refused "missing topology" "" UMAD_SIM_TOPOLOGY="$work/none.net"

# Every line the library prints on stderr says who it is, "libumad: sim: ",
# the topology's "file:line: message" lines too, each as the reader wrote it.
printf 'Hca 1 "H"\n[1] "S"[1]\n\nbogus\nbogus too\n' > "$work/two.net"
sim env UMAD_SIM_TOPOLOGY="$work/two.net" ibstat -l > "$work/out" 2>&1
for want in "libumad: sim: cannot load the topology:" \
	"libumad: sim: $work/two.net:4: unrecognised line \"bogus\"" \
	"libumad: sim: $work/two.net:5: unrecognised line \"bogus too\""; do
	grep -qxF "$want" "$work/out" || fail "bad topology: no line \"$want\""
done
if grep -v '^libumad: \|^ibpanic: ' "$work/out" > "$work/stray"; then
	fail "bad topology: lines that do not say they are libumad's:"
	sed 's/^/    /' "$work/stray"
fi

# What the sim backend tells as it starts, otherwise than asked or not at all,
# and where the fabric is a server's: each line once, in the order it
# happened (the built-in SM's note before the error that came after it).
# once NAME LINE...: each LINE is a whole line of $work/out, once, in this order.
once() {
	local name=$1 line at=0 n
	shift
	for line in "$@"; do
		n=$(grep -cxF -- "$line" "$work/out")
		if [ "$n" -ne 1 ]; then
			fail "$name: \"$line\" said $n times:"
			sed 's/^/    /' "$work/out"
			continue
		fi
		n=$(grep -nxF -- "$line" "$work/out" | cut -d: -f1)
		[ "$n" -gt "$at" ] || fail "$name: \"$line\" said out of order"
		at=$n
	done
}
printf 'Hca 1 "Lonely"\n' > "$work/lonely.net"
note="libumad: sim: $work/lonely.net: the built-in SM cannot bring the fabric up, so it stays"
note="$note as it powers up: no port for the built-in SM: the fabric has no CA with a link and"
note="$note no switch (as with UMAD_SIM_SM=none)"
sim env UMAD_SIM_SM=builtin UMAD_SIM_TOPOLOGY="$work/lonely.net" ibstat -l > "$work/out" 2>&1 ||
	fail "a fabric the built-in SM cannot bring up: ibstat -l failed"
once "the built-in SM's note" "$note"
sim env UMAD_SIM_SM=builtin UMAD_SIM_TOPOLOGY="$work/lonely.net" UMAD_SIM_HOST=nosuch \
	ibstat -l > "$work/out" 2>&1 && fail "UMAD_SIM_HOST=nosuch: ibstat -l succeeded"
once "the built-in SM's note, then an unknown host" "$note" \
	"libumad: sim: UMAD_SIM_HOST=nosuch: 'nosuch' names no node of the fabric ($work/lonely.net)"
sim env UMAD_SIM_FABRIC="$work/none/socket" ibstat -l > "$work/out" 2>&1 &&
	fail "no server: ibstat -l succeeded"
once "no server" "libumad: sim: UMAD_SIM_FABRIC: cannot connect to the fabric at $work/none/socket: No such file or directory"
sim env UMAD_SIM_FABRIC="$work/none/socket" UMAD_SIM_FABRIC_SMP=both ibstat -l > "$work/out" 2>&1 &&
	fail "UMAD_SIM_FABRIC_SMP=both: ibstat -l succeeded"
once "UMAD_SIM_FABRIC_SMP=both" "libumad: sim: UMAD_SIM_FABRIC_SMP=both: 'local' or 'server'"
sim env UMAD_SIM_FABRIC=tcp:127.0.0.1:1 UMAD_SIM_FABRIC_KEY= ibstat -l > "$work/out" 2>&1 &&
	fail "a fabric over TCP without its key: ibstat -l succeeded"
once "a fabric over TCP without its key" "libumad: sim: UMAD_SIM_FABRIC: tcp:127.0.0.1:1: a fabric reached over TCP needs its key: set UMAD_SIM_FABRIC_KEY to the key file"
sim env UMAD_SIM_FABRIC=tcp:127.0.0.1 ibstat -l > "$work/out" 2>&1 &&
	fail "a TCP address without its port: ibstat -l succeeded"
once "a TCP address without its port" "libumad: sim: UMAD_SIM_FABRIC: tcp:127.0.0.1: 127.0.0.1: no port: expected HOST:PORT"

[ $status -eq 0 ] && echo "PASS: the tools print the library's reason when it cannot start"
exit $status
