#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# umad kernel's device files against ib_umad's semantics, through the VFS:
# `umad kernel --mount` serves one host of a small fabric (the built-in SM
# at another CA, so that the host's IsSM is its issm file's alone), and
#  - tests/kernel_dev_test MOUNT umad NODES: umad0 with open/read/write/
#    poll/ioctl (layouts, registrations, errors, blocking and O_NONBLOCK
#    reads, EINTR, close while reading, poll, timeouts, RMPP ENOSPC);
#  - tests/kernel_dev_test MOUNT issm: issm0 (IsSM, waiting, EAGAIN, EINTR),
#    on a host of its own: a held issm file stops the built-in SM and SA;
#  - tests/kernel_dev_lib MOUNT NODES: this library's kernel backend
#    (UMAD_BACKEND=kernel, UMAD_SYSFS_ROOT, UMAD_DEV_DIR) on the mount.
# Each server must stop cleanly at SIGTERM and leave no mount behind.
# Skips (77) without /dev/fuse, or without root and fusermount3.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs=""
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
if [ "$(id -u)" != 0 ] && ! command -v fusermount3 >/dev/null 2>&1; then
	echo "SKIP: not root and no fusermount3"
	exit 77
fi

server=""
mnt=$work/mnt
# At exit, once the server has ended (tests/procs.sh), its mount if it left one.
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u -z "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	fi
}
at_exit cleanup

# The fabric: the SM at SmHost (the first CA), the served host Tested; five nodes.
nodes=5
cat > "$work/fabric.net" <<'EOF'
Switch 8 "Switch1"
[1] "SmHost"[1]
[2] "Tested"[1]
[3] "Other1"[1]
[4] "Other2"[1]

Hca 1 "SmHost"
[1] "Switch1"[1]

Hca 2 "Tested"
[1] "Switch1"[2]

Hca 1 "Other1"
[1] "Switch1"[3]

Hca 1 "Other2"
[1] "Switch1"[4]
EOF

# serve: a fresh host at $mnt, ready when its umad0 is there; 0, 77 (FUSE refused) or 1.
serve() {
	mkdir -p "$mnt"
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" \
		"$umad" kernel -t "$work/fabric.net" --host Tested --mount "$mnt" \
		> "$work/server.log" 2>&1 &
	server=$!
	for _ in $(seq 1 200); do
		[ -e "$mnt/sys/class/infiniband_mad/umad0/ibdev" ] && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.05
	done
	if grep -q "cannot mount" "$work/server.log"; then
		cat "$work/server.log"
		return 77
	fi
	fail "umad kernel did not serve $mnt:"
	sed 's/^/    /' "$work/server.log"
	return 1
}

# unserve: SIGTERM; the server must end with 0 and take its mount with it.
unserve() {
	local st=0
	end_procs "$server" || st=$?
	server=""
	[ "$st" = 0 ] || { fail "umad kernel ended with status $st:"; sed 's/^/    /' "$work/server.log"; }
	if mountpoint -q "$mnt" 2>/dev/null; then
		fail "the mount stayed after umad kernel ended"
		fusermount3 -u -z "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	fi
}

# group NAME PROGRAM ARGS...: PROGRAM on a fresh host; its failures are the test's.
group() {
	local name=$1 r
	shift
	serve
	r=$?
	[ "$r" = 77 ] && { echo "SKIP: FUSE mounts are refused here"; exit 77; }
	[ "$r" = 0 ] || return
	if ! timeout 120 "$@"; then
		fail "$name"
	fi
	unserve
}

group "the umad file" "$top_builddir/tests/kernel_dev_test" "$mnt" umad "$nodes"
group "the issm file" "$top_builddir/tests/kernel_dev_test" "$mnt" issm
group "the kernel backend on the files" env UMAD_BACKEND=kernel UMAD_SYSFS_ROOT="$mnt/sys" \
	UMAD_DEV_DIR="$mnt/dev/infiniband" UMAD_MODULE_DIR="$libs" \
	"$top_builddir/tests/kernel_dev_lib" "$mnt" "$nodes"
exit $status
