#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# UMAD_SIM_SYSFS against another user on the same machine: user nobody
# (65534, through setpriv) plants symbolic links to a root-only file at the
# names the sim backend writes (node_desc.tmp, node_desc, the issm device
# node), then root runs ibstat on the sim backend with its tree there:
#  - in a tree nobody owns;
#  - in a directory nobody owns under a sticky, world-writable root (/tmp's
#    kind, which is accepted);
#  - at a tree root that is itself nobody's link.
# Each time ibstat must fail with a refusal naming the directory, the
# root-only file must keep its content and nothing may be created where a
# link leads.  A tree of root's own is written.
# Skips (77) when not root or without setpriv.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibstat setpriv"
. "$(dirname "$0")/sim_env.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root, to run a second user (65534) with setpriv"; exit 77; }

other=65534
# as_other CMD...: run CMD as user nobody, with no supplementary groups.
as_other() {
	setpriv --reuid=$other --regid=$other --clear-groups "$@"
}
as_other true || { echo "SKIP: setpriv cannot switch to user $other"; exit 77; }

chmod 755 "$work"
secret=$work/secret
echo "root's own secret" > "$secret"
chmod 600 "$secret"
created=$work/created	# where a link planted at a device node leads: must never appear

# plant DIR: as nobody, the links in DIR/sys/class/infiniband/sim0 and DIR/dev/infiniband.
plant() {
	as_other sh -c '
		set -e
		mkdir -p "$1/sys/class/infiniband/sim0" "$1/dev/infiniband"
		ln -s "$2" "$1/sys/class/infiniband/sim0/node_desc.tmp"
		ln -s "$2" "$1/sys/class/infiniband/sim0/node_desc"
		ln -s "$3" "$1/dev/infiniband/issm0"' sh "$1" "$secret" "$created" ||
		fail "nobody could not plant the links in $1"
}

# refused NAME TREE WHERE: ibstat as root with its tree at TREE must fail, saying
# it refuses WHERE, and leave the secret and the link targets alone.
refused() {
	local bad=0
	if sim env UMAD_SIM_SYSFS="$2" ibstat > "$work/out" 2>&1; then
		fail "$1: ibstat wrote its tree at $2"; bad=1
	fi
	grep -qF "refusing the fake sysfs tree at $3:" "$work/out" ||
		{ fail "$1: no refusal naming $3 in:"; sed 's/^/    /' "$work/out"; bad=1; }
	if [ "$(cat "$secret")" != "root's own secret" ]; then
		fail "$1: the root-only file now holds '$(cat "$secret")'"; bad=1
		echo "root's own secret" > "$secret"	# for the next case
	fi
	if [ -e "$created" ]; then
		fail "$1: a file was created where nobody's link led"; bad=1
		rm -f "$created"
	fi
	[ $bad -eq 0 ] && echo "ok: $1: $(grep -o 'refusing.*' "$work/out" | head -1)"
}

# 1. A tree nobody owns.
mkdir "$work/nobodys" && chown $other:$other "$work/nobodys"
plant "$work/nobodys/tree"
refused "a tree nobody owns" "$work/nobodys/tree" "$work/nobodys/tree"
grep -q "belongs to user $other" "$work/out" || fail "the refusal does not name the owner"

# 2. Root's sticky, world-writable directory, as /tmp is, with nobody's sys in it.
mkdir "$work/sticky" && chmod 1777 "$work/sticky"
plant "$work/sticky"
refused "nobody's directory in a sticky tree" "$work/sticky" "$work/sticky/sys"

# 3. The tree's root a link nobody made to a directory of root's.
mkdir "$work/sticky2" "$work/roots" && chmod 1777 "$work/sticky2"
as_other ln -s "$work/roots" "$work/sticky2/tree" || fail "nobody could not make the link"
refused "a tree root that is nobody's link" "$work/sticky2/tree" "$work/sticky2/tree"
[ -e "$work/roots/sys" ] && fail "the tree was written where nobody's link led"

# A tree of root's own is written, and ibstat reads it.
if sim env UMAD_SIM_SYSFS="$work/own" ibstat > "$work/out" 2>&1; then
	[ "$(cat "$work/own/sys/class/infiniband/sim0/node_desc" 2>/dev/null)" = Hca1 ] ||
		fail "root's own tree: node_desc is not Hca1"
else
	fail "ibstat with root's own tree failed:"
	cat "$work/out"
fi

[ $status -eq 0 ] && echo "PASS: another user's links and directories are refused"
exit $status
