#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# A fabric of Mellanox nodes (vendid=0x2c9: Quantum switches of 41 ports,
# devid 0xd2f0; ConnectX-6 HCAs, devid 0x101b), written as ibnetdiscover
# prints a cluster, with FDR10 links, under Debian's unmodified tools:
#  - ibnetdiscover and iblinkinfo print no error line (they ask every such
#    node for MlnxExtPortInfo); ibnetdiscover prints every node and link of
#    the file back as the file has them, 4xFDR10 included; iblinkinfo shows
#    FDR10's rate on both ends of those links;
#  - ibstat shows the ConnectX-6's CA type (MT4123) and its firmware (the
#    generation's, or the file's fwver=), and FDR10's rate; the fake sysfs
#    tree (UMAD_SIM_SYSFS), and umad kernel's where FUSE works, hca_type,
#    fw_ver, board_id and the FDR10 rate;
#  - vendstat -N reads the device and firmware; smpquery reads NodeInfo's
#    revision (revid=) and a node of another vendor refuses MlnxExtPortInfo;
#  - opensm brings the fabric up with no error about MlnxExtPortInfo, and
#    FDR10 stays.
# Skips (77) without infiniband-diags or opensm; the umad kernel part
# without FUSE or mount namespaces.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibnetdiscover iblinkinfo ibstat smpquery vendstat opensm"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }

# expect NAME FILE REGEX: FILE must have a line matching REGEX.
expect() {
	grep -q -- "$3" "$2" || { fail "$1: no line matching '$3' in:"; sed 's/^/    /' "$2" | head -40; }
}
# no_errors NAME FILE: FILE (a tool's stderr) must be empty.
no_errors() {
	[ -s "$2" ] && { fail "$1 printed error lines:"; sed 's/^/    /' "$2" | head -20; }
}

# Two Quantum leaves, three ConnectX-6 hosts; node2's link and the
# leaves' second link run FDR10.  node3 runs the firmware the file names.
cat > "$work/cluster.topo" <<'EOF'
#
# Topology file: generated on Thu Nov 26 12:00:00 2026
#
# Initiated from node b8599f0300c0ffe0 port b8599f0300c0ffe0

vendid=0x2c9
devid=0xd2f0
sysimgguid=0xb8599f0300a1b2c0
switchguid=0xb8599f0300a1b2c0(b8599f0300a1b2c0)
Switch	41 "S-b8599f0300a1b2c0"		# "MF0;leaf1:MQM8700/U1" enhanced port 0 lid 1 lmc 0
[1]	"H-b8599f0300c0ffe0"[1](b8599f0300c0ffe0) 		# "node1 HCA-1" lid 3 4xQDR
[2]	"H-b8599f0300c0ffe8"[1](b8599f0300c0ffe8) 		# "node2 HCA-1" lid 4 4xFDR10
[39]	"S-b8599f0300a1b2d0"[39]		# "MF0;leaf2:MQM8700/U1" lid 2 4xQDR
[40]	"S-b8599f0300a1b2d0"[40]		# "MF0;leaf2:MQM8700/U1" lid 2 4xFDR10

vendid=0x2c9
devid=0xd2f0
sysimgguid=0xb8599f0300a1b2d0
switchguid=0xb8599f0300a1b2d0(b8599f0300a1b2d0)
Switch	41 "S-b8599f0300a1b2d0"		# "MF0;leaf2:MQM8700/U1" enhanced port 0 lid 2 lmc 0
[1]	"H-b8599f0300c0fff0"[1](b8599f0300c0fff0) 		# "node3 HCA-1" lid 5 4xQDR
[39]	"S-b8599f0300a1b2c0"[39]		# "MF0;leaf1:MQM8700/U1" lid 1 4xQDR
[40]	"S-b8599f0300a1b2c0"[40]		# "MF0;leaf1:MQM8700/U1" lid 1 4xFDR10

vendid=0x2c9
devid=0x101b
sysimgguid=0xb8599f0300c0ffe0
caguid=0xb8599f0300c0ffe0
Ca	1 "H-b8599f0300c0ffe0"		# "node1 HCA-1"
[1](b8599f0300c0ffe0) 	"S-b8599f0300a1b2c0"[1]		# lid 3 lmc 0 "MF0;leaf1:MQM8700/U1" lid 1 4xQDR

vendid=0x2c9
devid=0x101b
sysimgguid=0xb8599f0300c0ffe8
caguid=0xb8599f0300c0ffe8
Ca	1 "H-b8599f0300c0ffe8"		# "node2 HCA-1"
[1](b8599f0300c0ffe8) 	"S-b8599f0300a1b2c0"[2]		# lid 4 lmc 0 "MF0;leaf1:MQM8700/U1" lid 1 4xFDR10

vendid=0x2c9
devid=0x101b
revid=0x1
fwver=20.28.1002
sysimgguid=0xb8599f0300c0fff0
caguid=0xb8599f0300c0fff0
Ca	1 "H-b8599f0300c0fff0"		# "node3 HCA-1"
[1](b8599f0300c0fff0) 	"S-b8599f0300a1b2d0"[1]		# lid 5 lmc 0 "MF0;leaf2:MQM8700/U1" lid 2 4xQDR
EOF
topo=$work/cluster.topo
node2=H-b8599f0300c0ffe8
node3=H-b8599f0300c0fff0

# The records of an ibnetdiscover file (comments and revid=/fwver=, which
# it does not print, aside; blanks as one space), one per line, sorted:
# the same fabric whatever the order of discovery.
records() {
	awk '/^#/ || /^(revid|fwver)=/ { next }
	     /^$/ { if (r != "") print r; r = ""; next }
	     { gsub(/[ \t]+/, " "); r = r "|" $0 }
	     END { if (r != "") print r }' "$1" | sort
}

# The fabric as the built-in SM brings it up (the file's LIDs), but for opensm's part.
export UMAD_SIM_SM=builtin

# --- ibnetdiscover: no error line, the file back ------------------------------------------
sim "$umad" sim -t "$topo" -- ibnetdiscover > "$work/ibnd.out" 2> "$work/ibnd.err" ||
	fail "ibnetdiscover failed"
no_errors ibnetdiscover "$work/ibnd.err"
records "$topo" > "$work/want.rec"
records "$work/ibnd.out" > "$work/got.rec"
cmp -s "$work/want.rec" "$work/got.rec" ||
	{ fail "ibnetdiscover does not print the file back:"; diff "$work/want.rec" "$work/got.rec" | tr '|' '\n' | head -40; }
[ "$(grep -c '4xFDR10$' "$work/ibnd.out")" -eq 4 ] || fail "ibnetdiscover: not 4 port lines at 4xFDR10"

# --- iblinkinfo: FDR10's rate on both ends, no error line -----------------------------------
sim "$umad" sim -t "$topo" -- iblinkinfo > "$work/ibl.out" 2> "$work/ibl.err" || fail "iblinkinfo failed"
no_errors iblinkinfo "$work/ibl.err"
[ "$(grep -c '4X  10.0 Gbps (FDR10) Active/  LinkUp' "$work/ibl.out")" -eq 4 ] ||
	{ fail "iblinkinfo: FDR10 not on the 4 ends of the FDR10 links:"; grep -v Polling "$work/ibl.out"; }
grep -q 'Could be FDR10' "$work/ibl.out" && fail "iblinkinfo: a link could be FDR10"

# --- the host's identity: ibstat, sysfs -------------------------------------------------------
sim "$umad" sim -t "$topo" --host "$node2" -- ibstat > "$work/ibstat2" 2>&1 || fail "ibstat at node2"
expect "ibstat node2" "$work/ibstat2" 'CA type: MT4123$'
expect "ibstat node2" "$work/ibstat2" 'Firmware version: 20\.31\.1014$'
expect "ibstat node2" "$work/ibstat2" 'Rate: 40$'
sim "$umad" sim -t "$topo" --host "$node3" -- ibstat > "$work/ibstat3" 2>&1 || fail "ibstat at node3"
expect "ibstat node3" "$work/ibstat3" 'CA type: MT4123$'
expect "ibstat node3" "$work/ibstat3" 'Firmware version: 20\.28\.1002$'
expect "ibstat node3" "$work/ibstat3" 'Hardware version: 1$'
expect "ibstat node3" "$work/ibstat3" 'Rate: 40$'

# sysfs_files NAME DIR: the files of DIR's only device as the kernel's mlx5 writes them.
sysfs_files() {
	local dev
	dev=$(ls -d "$2"/sys/class/infiniband/*/ 2>/dev/null | head -1)
	[ -n "$dev" ] || { fail "$1: no device in $2/sys/class/infiniband"; return; }
	[ "$(cat "$dev/hca_type")" = MT4123 ] || fail "$1: hca_type $(cat "$dev/hca_type")"
	[ "$(cat "$dev/fw_ver")" = 20.31.1014 ] || fail "$1: fw_ver $(cat "$dev/fw_ver")"
	grep -qx 'MT_[0-9]\{10\}' "$dev/board_id" || fail "$1: board_id $(cat "$dev/board_id")"
	[ "$(cat "$dev/ports/1/rate")" = "40 Gb/sec (4X FDR10)" ] ||
		fail "$1: rate $(cat "$dev/ports/1/rate")"
}
mkdir "$work/tree"
UMAD_SIM_TOPOLOGY=$topo UMAD_SIM_HOST=$node2 UMAD_SIM_SYSFS=$work/tree sim ibstat > /dev/null 2>&1 ||
	fail "ibstat with UMAD_SIM_SYSFS"
sysfs_files "UMAD_SIM_SYSFS" "$work/tree"

# umad kernel's tree, where FUSE and a mount namespace are there to serve it.
if [ -c /dev/fuse ] && [ -r /dev/fuse ] && [ -w /dev/fuse ] && [ "$(id -u)" -eq 0 ] &&
   unshare -m true 2>/dev/null && "$umad" 2>&1 | grep -q 'umad kernel'; then
	mkdir "$work/mnt"
	sim "$umad" kernel -t "$topo" --host "$node2" -- sh -c \
		'mkdir -p "$0/sys/class/infiniband/d/ports/1" &&
		 for f in hca_type fw_ver board_id ports/1/rate; do
			cat /sys/class/infiniband/*/$f > "$0/sys/class/infiniband/d/$f"
		 done' "$work/mnt" > "$work/kernel.out" 2>&1 || { fail "umad kernel:"; cat "$work/kernel.out"; }
	sysfs_files "umad kernel" "$work/mnt"
else
	echo "NOTE: no FUSE or mount namespace here: umad kernel's tree is left out"
fi

# --- the vendor's attributes on the wire ---------------------------------------------------
sim "$umad" sim -t "$topo" -- sh -c 'vendstat -N 5 && smpquery nodeinfo 5' > "$work/node3" 2>&1 ||
	fail "vendstat or smpquery at node3"
expect "vendstat node3" "$work/node3" '^hw_dev_id: *0x101b$'
expect "vendstat node3" "$work/node3" '^fw_version: *20\.28\.1002$'
expect "vendstat node3" "$work/node3" '^hw_dev_rev: *0x0001$'
expect "smpquery node3" "$work/node3" '^Revision:\.*0x00000001$'
sim "$umad" sim -t "$topo" -- vendstat -N 1 > "$work/leaf1" 2>&1 || fail "vendstat at leaf1"
expect "vendstat leaf1" "$work/leaf1" '^hw_dev_id: *0xd2f0$'
expect "vendstat leaf1" "$work/leaf1" '^fw_version: *27\.'

# A node of another vendor (the same device ID) does not know MlnxExtPortInfo.
sed 's/^vendid=0x2c9$/vendid=0x1175/; s/4xFDR10$/4xQDR/' "$topo" > "$work/other.topo"
sim "$umad" sim -t "$work/other.topo" -- smpquery -d mepi -D 0 1 > "$work/other.out" 2>&1 &&
	fail "smpquery mepi answered on a node of vendor 0x1175"
expect "smpquery mepi, vendor 0x1175" "$work/other.out" 'error status 0xc;'

# --- opensm: SUBNET UP, nothing refused, FDR10 stays ------------------------------------------
UMAD_SIM_SM=none sim "$umad" sim -t "$topo" --sm none -- sh -c \
	'timeout -k "$UMAD_TEST_GRACE" 120 opensm -o -f "$0/osm.log" > /dev/null 2>&1; iblinkinfo' "$work" \
	> "$work/after.out" 2>&1 || fail "opensm, then iblinkinfo"
expect opensm "$work/osm.log" 'SUBNET UP'
grep -B1 -A1 'ERR' "$work/osm.log" | grep -q 'MLNXExtendedPortInfo' &&
	{ fail "opensm logs errors about MlnxExtPortInfo:"; grep -A1 ERR "$work/osm.log" | head; }
[ "$(grep -c '4X  10.0 Gbps (FDR10) Active/  LinkUp' "$work/after.out")" -eq 4 ] ||
	{ fail "after opensm, FDR10 is not on the 4 ends:"; grep -v Polling "$work/after.out"; }

[ "$status" -eq 0 ] && echo "PASS: a Mellanox fabric under Debian's tools"
exit "$status"
