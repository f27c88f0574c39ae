#!/bin/bash
# The kernel's TID rewriting wherever this project stands in for the kernel
# (tests/tid_probe.c says what each run checks):
# - two agents see distinct, kernel-style upper TID halves: in a process's
#   own fabric, on a shared fabric (and across two processes there), and
#   through umad kernel's device files; the capture records requests' TIDs
#   as rewritten;
# - 1,000 SMPs outstanding at once are each answered once;
# - a multicast re-registration storm ends: on the process's own fabric
#   (built-in SA), on a shared fabric with the built-in SM, with opensm, and
#   through the device files.
# Skips (77) the opensm run without opensm, the device files without FUSE.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs=""
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
probe=$top_builddir/tests/tid_probe
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
[ -x "$probe" ] || { echo "FAIL: $probe not built"; exit 1; }
export LD_LIBRARY_PATH=$libs UMAD_MODULE_DIR=$libs

# run NAME COMMAND...: run, keep the output in $work/NAME, fail with it when it fails.
run() {
	local name=$1
	shift
	if ! "$@" > "$work/$name" 2>&1; then
		fail "$name: $(tail -5 "$work/$name")"
		return 1
	fi
	echo "$name: $(tail -1 "$work/$name")"
}

# The process's own fabric (the built-in SM and SA).
own() { UMAD_BACKEND=sim UMAD_SIM_SM=builtin "$@"; }
run own-agents own "$probe" agents
run own-outstanding own "$probe" outstanding 1000
run own-storm own "$probe" storm 64

# The capture records requests with their TIDs as they went on the wire.
if command -v tshark > /dev/null; then
	if run own-capture own env UMAD_CAPTURE="$work/tid.pcapng" "$probe" agents; then
		set -- $(awk '/^hi_tid/ { print $2, $3 }' "$work/own-capture")
		tshark -r "$work/tid.pcapng" -T fields -e infiniband.mad.method \
			-e infiniband.mad.transactionid > "$work/tids" 2> "$work/tshark.err"
		for hi in "$1" "$2"; do
			want=$(printf '0x%08x00000055' "$hi")
			[ "$(grep -c "^0x01	$want\$" "$work/tids")" = 1 ] ||
				fail "capture: no request with TID $want: $(cat "$work/tids" "$work/tshark.err")"
		done
	fi
else
	echo "skip: tshark is not installed: the capture's TIDs are not checked"
fi

# A shared fabric with the built-in SM: two processes at once; their four
# agents' hi_tids all differ.
cat > "$work/two.sh" <<'EOF'
"$PROBE" agents > "$WORK/agents.1" 2>&1 & a=$!
"$PROBE" agents > "$WORK/agents.2" 2>&1 & b=$!
wait $a && wait $b && "$PROBE" outstanding 1000 && "$PROBE" storm 64
EOF
if run shared env PROBE="$probe" WORK="$work" "$umad" sim -- bash "$work/two.sh"; then
	his=$(cat "$work/agents.1" "$work/agents.2" | awk '/^hi_tid/ { print $2; print $3 }')
	[ "$(echo "$his" | sort -u | wc -l)" = 4 ] ||
		fail "shared fabric: two processes' agents share a hi_tid: $(echo $his)"
fi

# opensm's SA on a shared fabric: its errors carry the rewritten TIDs.
if command -v opensm > /dev/null; then
	cat > "$work/osm.sh" <<-'EOF'
	. "$OPENSM_SESSION"
	start_opensm || exit 1
	"$PROBE" agents && "$PROBE" outstanding 1000 && "$PROBE" storm 64
	r=$?
	stop_opensm
	exit $r
	EOF
	run opensm env PROBE="$probe" WORK="$work" "$umad" sim --sm none -- bash "$work/osm.sh"
else
	echo "skip: opensm is not installed: the storm against opensm's SA is left out"
fi

# The device files of umad kernel, through this library's kernel backend.
if "$umad" kernel --help 2>&1 | grep -q -- '--mount'; then
	if [ -e /dev/fuse ] && { [ "$(id -u)" = 0 ] || unshare -Urm true 2>/dev/null; }; then
		run kernel env PROBE="$probe" "$umad" kernel -- sh -c \
			'export UMAD_BACKEND=kernel; "$PROBE" agents && "$PROBE" outstanding 1000 &&
			 "$PROBE" storm 64'
	else
		echo "skip: no /dev/fuse or namespaces: the device files are left out"
	fi
else
	echo "skip: umad kernel is not built (--disable-kernel-fs)"
fi
exit $status
