#!/bin/sh
# Differential test against rdma-core's libibumad (Debian's libibumad3).
#
# tests/diff/probe.c is compiled twice, unchanged: against rdma-core's
# installed headers and against ours.  Then, for each fixture below, inside a
# private mount namespace with a tmpfs over /sys/class and /dev holding a fake
# sysfs/devfs tree, each probe binary runs once with rdma-core's library and
# once with ours, and the outputs must be identical.  Debian's ibstat is
# compared the same way on fixtures A, B and C.  Lines of functions that one
# library lacks are ignored; so are the deliberate differences listed in
# ALLOWED_QUIRKS.  The functions rdma-core 44 lacks are checked against the
# results the reference documents for rdma-core HEAD (EXPECTED below).
#
# Needs root, unshare(1), Debian's library and tests/sysfs_tree (built by
# make check); exits 77 (skip) without them.
# Environment: top_srcdir, top_builddir (set by make check); CC (default cc);
# RDMA_LIBIBUMAD: path of the reference library (default: found below);
# DIFF_FIXTURES: space-separated subset of fixtures to run;
# DIFF_KEEP=1: keep the work directory and print its name.

set -u

# Deliberate differences of our library, excluded from the comparison.
# Each name is a "[quirk:NAME]" tag the probe puts on the line concerned.
#   recv-eagain-length: after EAGAIN rdma-core overwrites *length from the
#       stale length field of the caller's buffer (dead "n == -EWOULDBLOCK"
#       test); we leave *length unchanged except for ENOSPC.
#   recv-error-length: the same stale overwrite for every other read error
#       (EBADF here).
#   close-bad-fd: umad_close_port() on a descriptor that is not open returns
#       -EBADF; rdma-core returns 0 whatever close() said.
#   open-cloexec: ports are opened with O_CLOEXEC; rdma-core does not.
#   open-stale-errno: errno after a successful umad_open_port() is not
#       specified; rdma-core leaves ENOTTY from its ENABLE_PKEY probe.
#   errno-on-error: where rdma-core reports an error without setting errno
#       (umad_poll()'s timeout, arguments umad_register_oui(),
#       umad_register2() and umad_sort_ca_device_list() refuse themselves),
#       errno holds the error.
# (doc/differences.md lists each of these.)
ALLOWED_QUIRKS="recv-eagain-length recv-error-length close-bad-fd open-cloexec open-stale-errno errno-on-error"

# ---------------------------------------------------------------------------
# Inner part: runs inside "unshare -m" for one fixture.
# ---------------------------------------------------------------------------

# The fixtures are written by tests/sysfs_tree (the fake sysfs writer the sim
# backend, the C tests and the example use) on this namespace's /sys/class
# and /dev; its "put" and "rm" make the deliberately odd contents.
tree() {
	"$sysfs_tree" / "$@" || exit 1
}

# mkca NAME NODE_TYPE GUID: a device with every file rdma-core reads (and board_id).
mkca() {
	tree ca "$1" "$2" "$3"
}

# mkport CA N STATE PHYS_STATE LINK_LAYER PORT_GUID [CAP_MASK [LID [NPKEYS]]]
# (LINK_LAYER none: no file; P_Keys 0xffff, 0x8001, then zeros)
mkport() {
	if [ "$5" = Ethernet ]; then
		rate="25 Gb/sec (1X EDR)"
	else
		rate="100 Gb/sec (4X EDR)"
	fi
	ll=$5
	[ "$ll" = none ] && ll=
	tree port "$1" "$2" "$3" "$4" "$ll" "$6" "${7:-0x2651e84a}" "${8:-0x$2}" "${9:-4}" "$rate"
}

# mkumad ID CA PORT: class/infiniband_mad/umadID and issmID, and the device files.
mkumad() {
	tree umad "$1" "$2" "$3"
}

mkabi() {
	tree abi "$1"
}

# Port states and physical states, as numbers (the writer adds the kernel's names).
ACTIVE=4
INIT=2
DOWN=1
LINKUP=5
POLLING=2
DISABLED=3
IB=InfiniBand
CA=1
SWITCH=2
ROUTER=3
RNIC=4

build_fixture() {
	case $1 in
	A)	# mlx5_0 {p1 DOWN/Polling, p2 ACTIVE}, mlx5_1 Ethernet ACTIVE,
		# mlx5_2 INIT/LinkUp, rxe0 an RNIC (node type 4); umad ids with a gap.
		mkabi 5
		mkca mlx5_0 $CA "0c42:a103:0065:1230"
		mkport mlx5_0 1 "$DOWN" "$POLLING" $IB "0c42:a103:0065:1231"
		mkport mlx5_0 2 "$ACTIVE" "$LINKUP" $IB "0c42:a103:0065:1232" "" 0x11
		mkca mlx5_1 $CA "0c42:a103:0065:1240"
		mkport mlx5_1 1 "$ACTIVE" "$LINKUP" Ethernet "0e42:a1ff:fe65:1240" 0x00010000 0x0 1
		mkca mlx5_2 $CA "0c42:a103:0065:1250"
		mkport mlx5_2 1 "$INIT" "$LINKUP" $IB "0c42:a103:0065:1251" "" 0x21
		mkca rxe0 $RNIC "0211:22ff:fe33:4455"
		mkport rxe0 1 "$ACTIVE" "$LINKUP" Ethernet "0211:22ff:fe33:4455" 0x00010000 0x0 1
		mkumad 0 mlx5_0 1
		mkumad 1 mlx5_0 2
		mkumad 2 mlx5_1 1
		mkumad 5 mlx5_2 1
		;;
	B)	# A planarized port: two planes share a port GUID; the GSI plane has IsSMDisabled.
		mkabi 5
		mkca mlx5_0 $CA "0c42:a103:0070:0000"
		mkport mlx5_0 1 "$ACTIVE" "$LINKUP" $IB "0c42:a103:0070:0001" 0x2651e84a 0x7
		mkca mlx5_1 $CA "0c42:a103:0070:0010"
		mkport mlx5_1 1 "$ACTIVE" "$LINKUP" $IB "0c42:a103:0070:0001" 0x2651ec4a 0x7
		mkumad 0 mlx5_0 1
		mkumad 1 mlx5_1 1
		;;
	C)	# A switch: port 0 only.
		mkabi 5
		mkca sw0 $SWITCH "7cfe:9003:00a0:b0c0"
		mkport sw0 0 "$ACTIVE" "$LINKUP" $IB "7cfe:9003:00a0:b0c0" 0x4a 0x3
		mkumad 0 sw0 0
		;;
	D)	# No InfiniBand class at all (no ib_core, no ib_umad).
		;;
	E)	# Empty device class.
		tree class
		mkabi 5
		;;
	F1)	# A CA with a port numbered 10 (rdma-core: the whole CA is unusable), and a normal one.
		mkabi 5
		mkca big0 $CA "0002:c903:0000:1000"
		mkport big0 1 "$ACTIVE" "$LINKUP" $IB "0002:c903:0000:1001"
		mkport big0 10 "$ACTIVE" "$LINKUP" $IB "0002:c903:0000:100a"
		mkca mlx4_0 $CA "0002:c903:0000:2000"
		mkport mlx4_0 1 "$DOWN" "$DISABLED" $IB "0002:c903:0000:2001"
		mkport mlx4_0 2 "$DOWN" "$POLLING" $IB "0002:c903:0000:2002"
		mkumad 0 big0 1
		mkumad 1 big0 10
		mkumad 2 mlx4_0 1
		mkumad 3 mlx4_0 2
		tree rm dev umad3	# opening mlx4_0:2 fails (-EIO, errno ENOENT)
		;;
	F2)	# Names of 20 characters and more, a router whose ports are all disabled,
		# a node type in hex, a bad GUID, over-long strings.  (No 19-character
		# name: rdma-core 44 gives results that depend on earlier calls for
		# those, apparently stale memory, with port 0.)
		mkabi 5
		mkca abcdefghijklmnopqrstuvwxyz $CA "0002:c903:0000:3000"
		mkport abcdefghijklmnopqrstuvwxyz 1 "$ACTIVE" "$LINKUP" $IB "0002:c903:0000:3001"
		mkca abcdefghijklmnopqrst $CA "0002:c903:0000:4000"
		mkport abcdefghijklmnopqrst 1 "$ACTIVE" "$LINKUP" $IB "0002:c903:0000:4001"
		mkca router0 $ROUTER "0002:c903:0000:5000"
		mkport router0 1 "$DOWN" "$DISABLED" $IB "0002:c903:0000:5001"
		mkport router0 2 "$DOWN" "$DISABLED" $IB "0002:c903:0000:5002"
		mkca weird0 $CA "0002:c903:0000:6000"
		tree put ca weird0 node_type "0x1"
		mkport weird0 3 "$DOWN" "$LINKUP" $IB "0002:c903:0000:6003"
		mkumad 0 abcdefghijklmnopqrstuvwxyz 1
		mkumad 1 abcdefghijklmnopqrst 1
		mkumad 2 router0 1
		mkumad 3 weird0 3
		mkca badguid0 $CA "0002:c903:0000:7000"
		tree put ca badguid0 node_guid "0002:c903:0000"
		tree put ca badguid0 sys_image_guid "0002:c903:0000"
		mkport badguid0 1 "$ACTIVE" "$LINKUP" $IB "0002:c903:0000:7001"
		mkca longstr0 $CA "0002:c903:0000:8000"
		tree put ca longstr0 fw_ver "1234567890123456789012345"
		tree put ca longstr0 hca_type "123456789012345678901234567890123456789012345"
		tree put ca longstr0 hw_rev "12345678901234567890"
		mkport longstr0 1 "$ACTIVE" "$LINKUP" $IB "0002:c903:0000:8001"
		tree put port longstr0 1 link_layer "InfiniBand-and-more-than-20"
		mkport longstr0 2 "$ACTIVE" "$LINKUP" "IB" "0002:c903:0000:8002"
		tree put port longstr0 2 state "4"
		tree put port longstr0 2 lid "26"
		mkumad 4 longstr0 1
		mkumad 5 longstr0 2
		;;
	G1)	# Optional files missing: fw_ver, hw_rev, hca_type, link_layer.
		mkabi 5
		mkca mlx5_0 $CA "0c42:a103:0080:0000"
		mkport mlx5_0 1 "$ACTIVE" "$LINKUP" none "0c42:a103:0080:0001" "" 0x9
		tree rm ca mlx5_0 fw_ver
		tree rm ca mlx5_0 hw_rev
		tree rm ca mlx5_0 hca_type
		mkumad 0 mlx5_0 1
		;;
	G2)	# A mandatory file missing (rate) on one port of mlx5_0; mlx5_1 is fine.
		mkabi 5
		mkca mlx5_0 $CA "0c42:a103:0090:0000"
		mkport mlx5_0 1 "$ACTIVE" "$LINKUP" $IB "0c42:a103:0090:0001"
		mkport mlx5_0 2 "$ACTIVE" "$LINKUP" $IB "0c42:a103:0090:0002"
		tree rm port mlx5_0 2 rate
		mkca mlx5_1 $CA "0c42:a103:0091:0000"
		mkport mlx5_1 1 "$INIT" "$LINKUP" $IB "0c42:a103:0091:0001"
		mkumad 0 mlx5_0 1
		mkumad 1 mlx5_0 2
		mkumad 2 mlx5_1 1
		;;
	G3)	# An empty pkeys directory on mlx5_0's only port; mlx5_1 has one P_Key.
		mkabi 5
		mkca mlx5_0 $CA "0c42:a103:00a0:0000"
		mkport mlx5_0 1 "$ACTIVE" "$LINKUP" $IB "0c42:a103:00a0:0001" "" 0x3 0
		mkca mlx5_1 $CA "0c42:a103:00a1:0000"
		mkport mlx5_1 1 "$ACTIVE" "$LINKUP" $IB "0c42:a103:00a1:0001" "" 0x4 1
		tree put port mlx5_1 1 pkeys/foo "0x1234"	# not an index: ignored
		mkumad 0 mlx5_0 1
		mkumad 1 mlx5_1 1
		;;
	H5|H6|HX)	# abi_version 5, 6, or missing (ib_umad not loaded).
		case $1 in
		H5) mkabi 5 ;;
		H6) mkabi 6 ;;
		esac
		mkca mlx5_0 $CA "0c42:a103:00b0:0000"
		mkport mlx5_0 1 "$ACTIVE" "$LINKUP" $IB "0c42:a103:00b0:0001"
		mkumad 0 mlx5_0 1
		;;
	*)
		echo "unknown fixture $1" >&2
		return 1
		;;
	esac
}

# The ibstat command lines compared on a fixture (one per line).
ibstat_cases() {
	case $1 in
	A) printf '%s\n' "" "-l" "-p" "-s" "mlx5_0" "mlx5_0 2" "mlx5_0 1" "mlx5_1" "-p mlx5_0" "nosuch" ;;
	B) printf '%s\n' "" "-l" "-p" "-s" "mlx5_0 2" "mlx5_1 1" ;;
	C) printf '%s\n' "" "-l" "-p" "-s" "mlx5_0 2" "sw0 0" "sw0" ;;
	esac
}

inner() {
	fixture=$1 out=$2
	mount -t tmpfs -o mode=755 difftest /sys/class || exit 1
	mount -t tmpfs -o mode=755 difftest /dev || exit 1
	mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 || exit 1
	ln -s /proc/self/fd /dev/fd
	build_fixture "$fixture" || exit 1
	mkdir -p "$out"
	(cd /sys/class && find . | sort) > "$out/tree"

	# Which library each side really loads.
	"$work/probe-ours" --which > "$out/which.rdma" 2>&1
	LD_LIBRARY_PATH=$ours_dir "$work/probe-ours" --which > "$out/which.ours" 2>&1
	LD_LIBRARY_PATH=$ours_dir LD_DEBUG=libs "$work/probe-rdma" --which > "$out/ld_debug.ours" 2>&1

	for bin in rdma ours; do
		timeout 120 "$work/probe-$bin" > "$out/probe.$bin.rdma" 2>&1
		echo "exit=$?" >> "$out/probe.$bin.rdma"
		LD_LIBRARY_PATH=$ours_dir timeout 120 "$work/probe-$bin" > "$out/probe.$bin.ours" 2>&1
		echo "exit=$?" >> "$out/probe.$bin.ours"
	done
	if [ "$fixture" = A ]; then
		"$work/probe-rdma" --strings > "$out/strings.rdma.rdma" 2>&1
		LD_LIBRARY_PATH=$ours_dir "$work/probe-rdma" --strings > "$out/strings.rdma.ours" 2>&1
	fi

	if [ -n "$ibstat" ]; then
		n=0
		ibstat_cases "$fixture" | while IFS= read -r args; do
			n=$((n + 1))
			printf '%s\n' "$args" > "$out/ibstat.$n.args"
			# shellcheck disable=SC2086 # the arguments are split on purpose
			timeout 60 "$ibstat" $args > "$out/ibstat.$n.rdma" 2>&1
			echo "exit=$?" >> "$out/ibstat.$n.rdma"
			# shellcheck disable=SC2086
			LD_LIBRARY_PATH=$ours_dir timeout 60 "$ibstat" $args > "$out/ibstat.$n.ours" 2>&1
			echo "exit=$?" >> "$out/ibstat.$n.ours"
		done
		LD_LIBRARY_PATH=$ours_dir LD_DEBUG=libs "$ibstat" -l > "$out/ld_debug.ibstat" 2>&1
	fi
	exit 0
}

if [ "${1:-}" = --inner ]; then
	work=$2 ours_dir=$3 ibstat=$4
	inner "$5" "$6"
fi

# ---------------------------------------------------------------------------
# Outer part.
# ---------------------------------------------------------------------------

skip() {
	echo "SKIP: $*"
	exit 77
}

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
CC=${CC:-cc}
ours_dir=$top_builddir/.libs
ours_lib=$ours_dir/libibumad.so.3

if [ -z "${RDMA_LIBIBUMAD:-}" ]; then
	multiarch=$($CC -print-multiarch 2>/dev/null)
	for d in ${multiarch:+/usr/lib/$multiarch /lib/$multiarch} /usr/lib64 /usr/lib /lib64 /lib; do
		if [ -e "$d/libibumad.so.3" ]; then
			RDMA_LIBIBUMAD=$d/libibumad.so.3
			break
		fi
	done
fi
if [ -z "${RDMA_LIBIBUMAD:-}" ] || [ ! -e "$RDMA_LIBIBUMAD" ]; then
	skip "rdma-core's libibumad.so.3 is not installed"
fi
[ -e /usr/include/infiniband/umad.h ] || skip "rdma-core's umad.h is not installed"
[ -e "$ours_lib" ] || skip "$ours_lib is not built"
sysfs_tree=$top_builddir/tests/sysfs_tree
[ -x "$sysfs_tree" ] || skip "$sysfs_tree is not built"
export sysfs_tree
[ "$(id -u)" = 0 ] || skip "needs root (mount namespaces and tmpfs mounts)"
command -v unshare > /dev/null 2>&1 || skip "unshare(1) is not available"
unshare -m sh -c 'mount -t tmpfs difftest /sys/class' > /dev/null 2>&1 ||
	skip "cannot mount a tmpfs over /sys/class in a private mount namespace"
ibstat=$(command -v ibstat 2> /dev/null || true)
[ -z "$ibstat" ] && [ -x /usr/sbin/ibstat ] && ibstat=/usr/sbin/ibstat

work=$(mktemp -d "${TMPDIR:-/tmp}/umad-diff.XXXXXX") || exit 99
if [ "${DIFF_KEEP:-0}" = 1 ]; then
	echo "work directory: $work"
else
	trap 'rm -rf "$work"' EXIT
fi

# The probe, unchanged, against rdma-core's headers and against ours.  Each is
# linked with the library of its headers, so that the symbol versions recorded
# come from that library.
probe_src=$top_srcdir/tests/diff/probe.c
cflags="-std=gnu11 -O1 -g -Wall -Wextra -Werror"
# shellcheck disable=SC2086
$CC $cflags -o "$work/probe-rdma" "$probe_src" "$RDMA_LIBIBUMAD" -ldl ||
	{ echo "FAIL: the probe does not compile against rdma-core's headers"; exit 99; }
# shellcheck disable=SC2086
if ! $CC $cflags -I"$top_srcdir/include" -o "$work/probe-ours" "$probe_src" "$ours_lib" -ldl; then
	echo "FAIL: the probe (written for rdma-core's API) does not compile against our headers"
	exit 1
fi

passed=0
failed=0
failures=

pass() {
	passed=$((passed + 1))
}

fail() {
	failed=$((failed + 1))
	failures="$failures
  $1"
	echo "FAIL: $1"
}

# normalize FILE OTHER: FILE without pids, without lines of functions either
# output lacks (nor what the probe printed between begin(F) and end(F) for
# such a function), and without allowed quirks.
normalize() {
	absent=$(cat "$1" "$2" | sed -n 's/^absent(\([a-z0-9_]*\))$/\1/p' | sort -u)
	sed -e 's/^\([a-z]*\): \[[0-9]*\] /\1: [PID] /' "$1" | awk -v absent="$absent" -v quirks="$ALLOWED_QUIRKS" '
		BEGIN {
			n = split(absent, a, "\n"); for (i = 1; i <= n; i++) if (a[i] != "") skipf[a[i]] = 1
			n = split(quirks, q, " "); for (i = 1; i <= n; i++) skipq["[quirk:" q[i] "]"] = 1
		}
		/^absent\(/ { next }
		/^begin\(/ { f = $0; sub(/^begin\(/, "", f); sub(/\).*/, "", f); if (f in skipf) { skipping = f; next } }
		skipping != "" { if ($0 == "end(" skipping ")") skipping = ""; next }
		{
			f = $0; sub(/\(.*/, "", f)
			if (f in skipf) next
			for (t in skipq) if (index($0, t)) next
			print
		}'
}

# compare NAME EXPECTED GOT: one comparison.
compare() {
	normalize "$2" "$3" > "$work/cmp.a"
	normalize "$3" "$2" > "$work/cmp.b"
	if diff -u --label "$2" --label "$3" "$work/cmp.a" "$work/cmp.b" > "$work/cmp.diff"; then
		pass
	else
		fail "$1 ($(grep -c '^[-+][^-+]' "$work/cmp.diff") differing lines)"
		head -n "${DIFF_LINES:-200}" "$work/cmp.diff"
	fi
}

# expect FIXTURE FILE PREFIX...: our library must print a line starting with
# each PREFIX (rdma-core 44 lacks the function; the values are those the
# reference records for HEAD).
expect() {
	fx=$1 file=$2
	shift 2
	for line in "$@"; do
		if awk -v p="$line" 'index($0, p) == 1 { found = 1 } END { exit !found }' "$file"; then
			pass
		else
			fail "$fx: expected line missing: $line"
			grep -F -- "$(printf '%s' "$line" | sed 's/ .*//')" "$file" | head -n 5 | sed 's/^/    got: /'
		fi
	done
}

fixtures=${DIFF_FIXTURES:-A B C D E F1 F2 G1 G2 G3 H5 H6 HX}
for fx in $fixtures; do
	out=$work/out/$fx
	if ! unshare -m sh "$0" --inner "$work" "$ours_dir" "$ibstat" "$fx" "$out"; then
		fail "$fx: could not build the fixture"
		continue
	fi

	# Ours must really be the library loaded.
	if grep -qxF "$RDMA_LIBIBUMAD" "$out/which.rdma" ||
	   [ "$(readlink -f "$(cat "$out/which.rdma")")" = "$(readlink -f "$RDMA_LIBIBUMAD")" ]; then
		pass
	else
		fail "$fx: the reference run did not load $RDMA_LIBIBUMAD: $(cat "$out/which.rdma")"
	fi
	case $(cat "$out/which.ours") in
	"$ours_dir"/*) pass ;;
	*) fail "$fx: our run loaded $(cat "$out/which.ours"), not $ours_lib" ;;
	esac
	if grep -q "calling init: $ours_dir/libibumad.so.3" "$out/ld_debug.ours"; then
		pass
	else
		fail "$fx: LD_DEBUG=libs does not show $ours_lib initialised"
	fi

	for bin in rdma ours; do
		compare "$fx: probe built with $bin headers: rdma-core vs ours" \
			"$out/probe.$bin.rdma" "$out/probe.$bin.ours"
	done
	# The same library must behave the same whichever headers the caller used.
	compare "$fx: rdma-core library: probe with rdma-core headers vs with ours" \
		"$out/probe.rdma.rdma" "$out/probe.ours.rdma"
	compare "$fx: our library: probe with rdma-core headers vs with ours" \
		"$out/probe.rdma.ours" "$out/probe.ours.ours"

	[ -f "$out/strings.rdma.rdma" ] &&
		compare "$fx: umad_str.h tables" "$out/strings.rdma.rdma" "$out/strings.rdma.ours"

	for args in "$out"/ibstat.*.args; do
		[ -f "$args" ] || continue
		base=${args%.args}
		compare "$fx: ibstat $(cat "$args")" "$base.rdma" "$base.ours"
	done
	if [ -f "$out/ld_debug.ibstat" ]; then
		if grep -q "calling init: $ours_dir/libibumad.so.3" "$out/ld_debug.ibstat"; then
			pass
		else
			fail "$fx: LD_DEBUG=libs does not show ibstat using $ours_lib"
		fi
	fi

	# Functions rdma-core 44 lacks: the results recorded for HEAD (reference 3.2, 3.3).
	p=$out/probe.ours.ours
	case $fx in
	A)
		expect "$fx" "$p" \
			'umad_get_smi_gsi_pairs(max=192) ret=3' \
			'umad_get_smi_gsi_pairs(max=192) [0] smi="mlx5_0":0 gsi="mlx5_0":0' \
			'umad_get_smi_gsi_pairs(max=192) [1] smi="mlx5_1":0 gsi="mlx5_1":0' \
			'umad_get_smi_gsi_pairs(max=192) [2] smi="mlx5_2":0 gsi="mlx5_2":0' \
			'umad_get_smi_gsi_pair_by_ca_name(NULL,1,pair,0) smi="mlx5_1":1 gsi="mlx5_1":1' \
			'umad_get_smi_gsi_pair_by_ca_name(NULL,0,pair,0) smi="mlx5_0":2 gsi="mlx5_0":2' \
			'umad_open_smi_port(NULL,0) ret=fd+0 path=/dev/infiniband/umad1' \
			'umad_open_smi_port(NULL,1) ret=fd+0 path=/dev/infiniband/umad5' \
			'umad_open_smi_port("mlx5_1",0) ret=fd+0 path=/dev/infiniband/umad2' \
			'umad_open_smi_port("nosuch",0) ret=-19(-ENODEV)'
		;;
	B)
		expect "$fx" "$p" \
			'umad_get_smi_gsi_pairs(max=192) ret=1' \
			'umad_get_smi_gsi_pairs(max=192) [0] smi="mlx5_0":0 gsi="mlx5_1":0' \
			'umad_get_smi_gsi_pair_by_ca_name(NULL,0,pair,0) smi="mlx5_0":1 gsi="mlx5_1":1' \
			'umad_get_smi_gsi_pair_by_ca_name(NULL,0,pair,1) smi="mlx5_0":1 gsi="mlx5_1":1' \
			'umad_get_smi_gsi_pair_by_ca_name("mlx5_1",0,pair,0) smi="mlx5_0":1 gsi="mlx5_1":1' \
			'umad_open_smi_port("mlx5_1",0) ret=-19(-ENODEV)' \
			'umad_open_smi_port("mlx5_1",1) ret=fd+0 path=/dev/infiniband/umad1' \
			'umad_open_smi_port(NULL,0) ret=fd+0 path=/dev/infiniband/umad0'
		;;
	C)
		expect "$fx" "$p" \
			'umad_open_smi_port(NULL,0) ret=fd+0 path=/dev/infiniband/umad0' \
			'umad_open_smi_port(NULL,1) ret=fd+0 path=/dev/infiniband/umad0'
		;;
	D)
		expect "$fx" "$p" \
			'umad_get_smi_gsi_pairs(max=192) ret=0' \
			'umad_get_smi_gsi_pair_by_ca_name(NULL,0,pair,0) ret=0' \
			'umad_get_smi_gsi_pair_by_ca_name(NULL,0,pair,0) smi="":0 gsi="":0'
		;;
	esac
done

echo "$passed passed, $failed failed"
if [ "$failed" -gt 0 ]; then
	echo "Failed comparisons:$failures"
	exit 1
fi
exit 0
