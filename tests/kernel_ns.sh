#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The private namespace a command on a simulated host runs in
# (cli/kernel_ns.c, driven by tests/kernel_ns_try with a tmpfs for the
# host's tree), as root and, in a user namespace, as user nobody (65534,
# the id root's files show as there) and as a user with no name (54321,
# who may not give the cover root's id):
#  - inside, /dev/infiniband, /sys/class/infiniband and
#    /sys/class/infiniband_mad show the tree, and every entry of /dev and
#    /sys/class the host has is there, of the same kind (a link to the same
#    place), and usable: /dev/null, /dev/zero, a pty, /dev/shm, sysfs;
#  - outside, during and after, nothing changed: the same entries, the same
#    mount table; killed with SIGKILL, nothing of it is left;
#  - a tree the kernel will not clone from (made in another namespace) is
#    shown too, the whole of it under the first place;
#  - where the place exists (a directory of the test's), the tree covers it,
#    and where it does not, its parent's entries stay as they were;
#  - a FUSE file system mounted detached is shown, nosuid, nodev, the
#    caller's (left out, saying so, when the user may not open /dev/fuse);
#  - bad places and missing directories of the tree are refused, naming them.
# Skips (77) naming what is missing: the mount API, user namespaces (the
# parts as other users are left out, saying so, when only they are missing).
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
. "$top_srcdir/tests/procs.sh"
try=$top_builddir/tests/kernel_ns_try
# Built where the C library has the mount API's calls (configure's fsopen check).
[ -x "$try" ] || { echo "SKIP: $try not built (the C library has no fsopen: glibc 2.36)"; exit 77; }
for need in findmnt setpriv script; do
	command -v "$need" >/dev/null 2>&1 || { echo "SKIP: $need not installed"; exit 77; }
done

work=$(mktemp -d)
at_exit 'rm -rf "$work"'
chmod 755 "$work"
# As root, the test's directory is a shared mount, as / is on most hosts
# (systemd's): a mount that propagated out of the namespace would show here.
if [ "$(id -u)" = 0 ] && mount --bind "$work" "$work" 2>/dev/null; then
	at_exit 'umount -l "$work"'
	mount --make-shared "$work" || { echo "FAIL: cannot make $work a shared mount"; exit 1; }
fi
status=0
failures=0
fail() {
	echo "FAIL: $*"
	status=1
	failures=$((failures + 1))
}

me=$(id -un)
# uid_of USER: the id the test runs USER as (root's test only switches).
uid_of() {
	case "$1" in
	nobody) echo 65534 ;;
	u54321) echo 54321 ;;
	esac
}
# as USER CMD...: run CMD as the test's own user, or (root's test) as USER, without groups.
as() {
	local user=$1
	shift
	if [ "$user" != "$me" ]; then
		setpriv --reuid="$(uid_of "$user")" --regid="$(uid_of "$user")" --clear-groups "$@"
	else
		"$@"
	fi
}
# The directory each user's cases write in.
room() {
	mkdir -p "$work/$1"
	[ "$1" = "$me" ] || chown "$(uid_of "$1"):$(uid_of "$1")" "$work/$1"
	echo "$work/$1"
}

# What the tests compare: the entries of /dev and /sys/class (kind, path,
# link target) and the mounts at /, and at and under /dev, /sys and the
# test's directory (others come and go with other programs: network
# namespaces, other tests' mounts in /tmp).
entries() { find /dev /sys/class -mindepth 1 -maxdepth 1 -printf '%y %p %l\n' | LC_ALL=C sort; }
mounts() {
	findmnt -rn -o TARGET,SOURCE,FSTYPE,OPTIONS |
		awk -v w="$work" '$1 == "/" || $1 ~ "^/(dev|sys)(/|$)" || index($1, w) == 1'
}
outside() { entries > "$1.entries"; mounts > "$1.mounts"; }
# same BEFORE AFTER WHEN: nothing changed outside.
same() {
	cmp -s "$1.entries" "$2.entries" ||
		{ fail "$3: the entries of /dev or /sys/class changed outside:"; diff "$1.entries" "$2.entries"; }
	cmp -s "$1.mounts" "$2.mounts" ||
		{ fail "$3: the mount table changed outside:"; diff "$1.mounts" "$2.mounts"; }
}

outside "$work/before"
# What the entries are inside: as outside, with the tree's directories where
# they were missing.  In a user namespace, which may make no device, a
# /dev covered by a tmpfs has ptmx as a link into a copy of /dev as it was
# (.umad-host): the ptys must be found beside ptmx in its mount.
{
	cat "$work/before.entries"
	for d in /dev/infiniband /sys/class/infiniband /sys/class/infiniband_mad; do
		[ -e "$d" ] || echo "d $d "
	done
} | LC_ALL=C sort > "$work/want.root.entries"
if [ -e /dev/infiniband ] || [ ! -c /dev/ptmx ]; then
	cp "$work/want.root.entries" "$work/want.userns.entries"
else
	{ grep -v '^c /dev/ptmx $' "$work/want.root.entries"
	  echo "d /dev/.umad-host "
	  echo "l /dev/ptmx .umad-host/ptmx"
	} | LC_ALL=C sort > "$work/want.userns.entries"
fi

# The checks made inside, as the command; each failure a "FAIL: " line.
# $1: the entries wanted; $2: a file to write the namespace's identity to;
# $3: a pty may be opened (the user can outside), its name matching $4.
cat > "$work/inside.sh" <<'EOF'
bad() { echo "FAIL: inside: $*"; }
[ -f /dev/infiniband/umad0 ] && [ -f /dev/infiniband/issm0 ] ||
	bad "/dev/infiniband holds '$(ls /dev/infiniband 2>&1)'"
[ "$(cat /sys/class/infiniband/sim0/node_type 2>&1)" = "1: CA" ] ||
	bad "/sys/class/infiniband/sim0/node_type reads '$(cat /sys/class/infiniband/sim0/node_type 2>&1)'"
[ "$(cat /sys/class/infiniband/sim0/ports/1/state 2>&1)" = "4: ACTIVE" ] || bad "no port state"
[ "$(ls /sys/class/infiniband_mad 2>&1 | tr '\n' ' ')" = "abi_version umad0 " ] ||
	bad "/sys/class/infiniband_mad holds '$(ls /sys/class/infiniband_mad 2>&1)'"
[ "$(cat /sys/class/infiniband_mad/umad0/ibdev 2>&1)" = sim0 ] || bad "no umad0/ibdev"
find /dev /sys/class -mindepth 1 -maxdepth 1 -printf '%y %p %l\n' | LC_ALL=C sort > "$2.entries"
cmp -s "$1" "$2.entries" || { bad "the entries of /dev and /sys/class differ from outside's:"; diff "$1" "$2.entries"; }
covers=$(awk '$5 == "/sys/class" && / - tmpfs umad-kernel-ns /' /proc/self/mountinfo | wc -l)
[ "$covers" -le 1 ] || bad "$covers tmpfs covers at /sys/class, where one is to hold both directories"
echo x > /dev/null || bad "cannot write /dev/null"
[ "$(head -c 5 /dev/zero | wc -c)" = 5 ] || bad "cannot read /dev/zero"
[ -c /dev/pts/ptmx ] || bad "no /dev/pts/ptmx"
if [ "$3" = yes ]; then
	tty=$(script -qec tty /dev/null 2>&1 | tr -d '\r')
	case "$tty" in
	$4) ;;
	*) bad "no pty named $4: '$tty'" ;;
	esac
fi
shm=/dev/shm/kernel_ns.$$
echo through > "$shm" && [ "$(cat "$shm")" = through ] && rm "$shm" || bad "cannot use /dev/shm"
[ "$(cat /sys/class/net/lo/address 2>&1)" = 00:00:00:00:00:00 ] || bad "cannot read /sys/class/net/lo/address"
[ "$(readlink -f /sys/class/net/lo)" = /sys/devices/virtual/net/lo ] ||
	bad "/sys/class/net/lo leads to $(readlink -f /sys/class/net/lo)"
readlink /proc/self/ns/mnt > "$2.ns"
echo "inside: done"
EOF

# A pty opens for USER outside (so it must inside).
pty_ok() { [ "$(as "$1" script -qec 'echo yes' /dev/null 2>/dev/null | tr -d '\r')" = yes ] && echo yes || echo no; }

# check_inside USER NAME [TRY-OPTIONS...]: the command's checks pass, nothing changed outside.
check_inside() {
	local user=$1 name=$2 out
	out=$(room "$user")/$name
	shift 2
	local ptys='/dev/pts/*' ns=root
	[ "$user" = root ] || ns=userns
	[ $ns = root ] || [ -e /dev/infiniband ] || ptys='/dev/.umad-host/pts/*'
	as "$user" "$try" "$@" -- sh "$work/inside.sh" "$work/want.$ns.entries" "$out" \
		"$(pty_ok "$user")" "$ptys" > "$out.log" 2>&1 || fail "$user, $name: kernel_ns_try failed"
	grep -q '^inside: done$' "$out.log" || fail "$user, $name: the checks inside did not run"
	if grep -q FAIL "$out.log"; then fail "$user, $name:"; cat "$out.log"; fi
	outside "$out.after"
	same "$work/before" "$out.after" "$user, $name, after"
	grep -v FAIL "$out.log" | sed "s/^/$user, $name: /"
}

# while_running USER: outside unchanged while the command runs; SIGKILL leaves nothing.
while_running() {
	local user=$1 out pid ns i p left held runas=()
	out=$(room "$user")/killed
	[ "$user" = "$me" ] ||
		runas=(setpriv --reuid="$(uid_of "$user")" --regid="$(uid_of "$user")" --clear-groups)
	# Started as one process (setpriv, kernel_ns_try and sh each exec the next): $! is the command.
	"${runas[@]}" "$try" -- sh -c 'readlink /proc/self/ns/mnt > "$1.ns" && touch "$1.ready" && exec sleep 600' \
		sh "$out" &
	pid=$!
	for i in $(seq 100); do
		[ -e "$out.ready" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	[ -e "$out.ready" ] || { fail "$user: the command did not start"; kill -9 $pid; wait $pid; return; }
	outside "$out.during"
	same "$work/before" "$out.during" "$user, while the command runs"
	ns=$(cat "$out.ns")
	[ "$ns" != "$(readlink /proc/self/ns/mnt)" ] || fail "$user: the command runs in the test's own namespace"
	# Held open, the namespace keeps its number while it is looked for: once
	# freed, the kernel gives the number to the next namespace made, perhaps
	# by a test running beside this one.
	exec {held}<"/proc/$pid/ns/mnt" || { fail "$user: cannot hold the command's namespace"; held=; }
	kill -9 $pid
	wait $pid 2>/dev/null
	kill -0 $pid 2>/dev/null && fail "$user: process $pid is still there after SIGKILL"
	left=
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] && left="$left ${p#/proc/}"
	done
	[ -z "$held" ] || exec {held}<&-
	[ -z "$left" ] || fail "$user: processes$left are still in the killed command's namespace $ns"
	outside "$out.after"
	same "$work/before" "$out.after" "$user, after SIGKILL"
	[ -z "$left" ] && echo "$user: killed, namespace $ns gone"
}

# on_own_places USER: the places exist (directories of the test's, holding a
# file of their own), and a parent lacking them (with entries of every kind).
on_own_places() {
	local user=$1 own=$work/$1.own bare=$work/$1.bare out was=$failures
	out=$(room "$user")/places
	mkdir -p "$own/dev/infiniband" "$own/sys/class/infiniband" "$own/sys/class/infiniband_mad"
	for d in dev/infiniband sys/class/infiniband sys/class/infiniband_mad; do echo mine > "$own/$d/hosts_own"; done
	mkdir -p "$bare/dev/sub" "$bare/sys/class/net"
	echo data > "$bare/dev/sub/file"
	echo before > "$bare/dev/plain"
	chmod 666 "$bare/dev/plain"
	ln -s sub/file "$bare/dev/link"
	mkfifo "$bare/dev/fifo"
	ln -s ../../devices/x "$bare/sys/class/net/lo"
	chmod 1775 "$bare/dev"
	find "$own" "$bare" -printf '%y %m %u %p %l\n' | LC_ALL=C sort > "$out.tree.before"
	as "$user" "$try" --root "$own" -- sh -c '
		r=$1
		[ "$(ls "$r/dev/infiniband" | tr "\n" " ")" = "issm0 umad0 " ] || echo "FAIL: $r/dev/infiniband holds $(ls "$r/dev/infiniband")"
		[ "$(cat "$r/sys/class/infiniband/sim0/node_type")" = "1: CA" ] || echo "FAIL: no node_type under $r"
		[ -e "$r/sys/class/infiniband_mad/hosts_own" ] && echo "FAIL: $r/sys/class/infiniband_mad is not covered"
		echo "own places: done"' sh "$own" > "$out.log" 2>&1 || fail "$user, own places: kernel_ns_try failed"
	as "$user" "$try" --root "$bare" -- sh -c '
		r=$1
		[ "$(ls "$r/dev/infiniband" | tr "\n" " ")" = "issm0 umad0 " ] || echo "FAIL: $r/dev/infiniband holds $(ls "$r/dev/infiniband")"
		[ "$(ls -A "$r/dev" | tr "\n" " ")" = "fifo infiniband link plain sub " ] || echo "FAIL: $r/dev holds $(ls -A "$r/dev")"
		[ "$(stat -c %a "$r/dev")" = 1775 ] || echo "FAIL: the cover of $r/dev has mode $(stat -c %a "$r/dev")"
		# The parent'"'"'s owner (root) where the namespace maps it, the caller otherwise.
		[ "$(stat -c %u "$r/dev")" = "$(id -u)" ] || echo "FAIL: the cover of $r/dev is user $(stat -c %u "$r/dev")'"'"'s"
		[ "$(cat "$r/dev/link")" = data ] || echo "FAIL: $r/dev/link does not lead to sub/file"
		[ -p "$r/dev/fifo" ] || echo "FAIL: $r/dev/fifo is no fifo"
		echo after > "$r/dev/plain" || echo "FAIL: cannot write $r/dev/plain"
		[ "$(readlink "$r/sys/class/net/lo")" = ../../devices/x ] || echo "FAIL: $r/sys/class/net/lo changed"
		[ "$(ls "$r/sys/class" | tr "\n" " ")" = "infiniband infiniband_mad net " ] || echo "FAIL: $r/sys/class holds $(ls "$r/sys/class")"
		echo "bare places: done"' sh "$bare" >> "$out.log" 2>&1 || fail "$user, bare places: kernel_ns_try failed"
	grep -q '^own places: done$' "$out.log" && grep -q '^bare places: done$' "$out.log" ||
		fail "$user, own places: the checks inside did not run"
	if grep -q FAIL "$out.log"; then fail "$user, own places:"; cat "$out.log"; fi
	# The file written inside is the host's own; nothing else changed.
	[ "$(cat "$bare/dev/plain")" = after ] || fail "$user: the write inside did not reach $bare/dev/plain"
	find "$own" "$bare" -printf '%y %m %u %p %l\n' | LC_ALL=C sort > "$out.tree.after"
	cmp -s "$out.tree.before" "$out.tree.after" ||
		{ fail "$user, own places: the test's directories changed outside:"; diff "$out.tree.before" "$out.tree.after"; }
	for d in dev/infiniband sys/class/infiniband sys/class/infiniband_mad; do
		[ "$(cat "$own/$d/hosts_own")" = mine ] || fail "$user: $own/$d/hosts_own changed"
	done
	[ $failures = $was ] && echo "$user: own and bare places covered, unchanged outside"
}

# refused USER NAME WANT TRY-ARGS...: kernel_ns_try fails saying WANT; nothing changed.
refused() {
	local user=$1 name=$2 want=$3 out
	out=$(room "$user")/refused
	shift 3
	if as "$user" "$try" "$@" -- true > "$out.log" 2>&1; then
		fail "$user, $name: accepted"
	elif ! grep -qF -- "$want" "$out.log"; then
		fail "$user, $name: the refusal does not say '$want':"; cat "$out.log"
	else
		echo "$user, $name: $(cat "$out.log")"
	fi
	outside "$out.after"
	same "$work/before" "$out.after" "$user, $name"
}

# fuse USER: a FUSE mount nobody serves, shown at a directory of the test's.
fuse() {
	local user=$1 at=$work/$1.fuse uid gid line
	uid=$(as "$user" id -u) gid=$(as "$user" id -g)
	mkdir "$at"
	line=$(as "$user" "$try" --fuse "$at" -- awk -v at="$at" '$5 == at' /proc/self/mountinfo 2>&1) ||
		{ fail "$user, fuse: kernel_ns_try failed: $line"; return; }
	case "$line" in
	*" $at "*nosuid,nodev*" - fuse kernel_ns_try "*user_id=$uid,group_id=$gid,default_permissions,allow_other*)
		echo "$user, fuse: $line" ;;
	*) fail "$user, fuse: the mount at $at is '$line'" ;;
	esac
}

# all USER: every case for USER.
all() {
	check_inside "$1" places
	check_inside "$1" elsewhere --elsewhere
	# The tree the kernel would not clone from went whole under /dev/infiniband, rel over it.
	n=$(as "$1" "$try" --elsewhere -- awk '$5 == "/dev/infiniband"' /proc/self/mountinfo | wc -l)
	[ "$n" = 2 ] || fail "$1, elsewhere: $n mounts at /dev/infiniband, not the whole tree and its part"
	while_running "$1"
	on_own_places "$1"
	refused "$1" "a directory the tree lacks" "cannot take sys/class/nothing from the tree" \
		--show sys/class/nothing /sys/class/nothing
	refused "$1" "a relative place" "rel/x: the place to show a tree at must be an absolute path" \
		--show dev/infiniband rel/x
	refused "$1" "a place that is a file" "cannot show a tree at /dev/null: not a directory" \
		--show dev/infiniband /dev/null
	refused "$1" "a place under /" "cannot show a tree at /nothing-here: it is missing, and / is not to be covered" \
		--show dev/infiniband /nothing-here
	if [ ! -c /dev/fuse ]; then
		echo "SKIP (fuse): there is no /dev/fuse"
	elif as "$1" sh -c '[ -r /dev/fuse ] && [ -w /dev/fuse ]'; then
		fuse "$1"
	else
		echo "SKIP ($1, fuse): $1 may not open /dev/fuse ($(ls -l /dev/fuse))"
	fi
}

why=$("$try" -- true 2>&1)
case $? in
0) ;;
77) echo "SKIP: $why"; exit 77 ;;
*) [ "$me" = root ] && { echo "FAIL: $why"; exit 1; }
   echo "SKIP: as $me: $why"; exit 77 ;;
esac
all "$me"
if [ "$me" = root ]; then
	for other in nobody u54321; do
		if ! as $other true 2>/dev/null; then
			echo "SKIP ($other): setpriv cannot switch to user $(uid_of $other)"
		elif ! why=$(as $other unshare --user --map-current-user true 2>&1); then
			echo "SKIP ($other): user $(uid_of $other) may not make a user namespace: $why"
		else
			all $other
		fi
	done
fi
exit $status
