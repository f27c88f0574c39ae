#!/bin/bash
# A backend that cannot be used, seen by Debian's unmodified tools: ibstat
# and smpdump print why umad_init() failed with %m, which must be the error
# the library reported, never "Success" (errno left at 0).  Cases: an
# unknown UMAD_BACKEND, the sim module missing or not a module, and the sim
# backend refusing to start (unknown UMAD_SIM_HOST, a bad or missing
# topology), each line of its reason saying it is libumad's.  Skips (77)
# without infiniband-diags.
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
refused "unknown UMAD_SIM_HOST" "" UMAD_SIM_HOST=nosuch
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

[ $status -eq 0 ] && echo "PASS: the tools print the library's reason when it cannot start"
exit $status
