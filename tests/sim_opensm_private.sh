#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# opensm's state stays with its run:
#  - two umad sim runs at once, each on a fabric of its own (other GUIDs),
#    each with opensm as COMMAND and no -f: both bring their subnet up, each
#    logging and caching in its own run's directory (its guid2lid holds its
#    own fabric's GUIDs, none of the other's);
#  - the machine's /var/cache/opensm and /var/log/opensm.log are as they
#    were: absent, or the same files with the same bytes and times;
#  - unset, OSM_CACHE_DIR, OSM_TMP_DIR and TMPDIR point into the run's
#    directory (ours, 0700), which is gone at the end; with --keep-state
#    the tools' directory stays, named on stderr;
#  - opensm run by a script of COMMAND's (sh -c 'opensm ...') logs there too;
#  - what the user sets is kept: OSM_CACHE_DIR, TMPDIR, opensm's -f;
#  - umad kernel the same (skipped where umad kernel cannot run here).
# Skips (77) without opensm.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm timeout"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
export LD_LIBRARY_PATH=$libs UMAD_MODULE_DIR=$libs
unset OSM_CACHE_DIR OSM_TMP_DIR TMPDIR
base=$work/run
mkdir -m 700 "$base"
export XDG_RUNTIME_DIR=$base

# fabric FILE GUID-PREFIX: a switch and two CAs, the GUIDs PREFIX (14 hex digits) and 2 more.
fabric() {
	local p=$2
	cat > "$1" <<EOF
switchguid=0x${p}01
Switch	4 "S-${p}01"
[1]	"H-${p}10"[1](${p}10)
[2]	"H-${p}11"[1](${p}11)

caguid=0x${p}10
Ca	1 "H-${p}10"
[1](${p}10) 	"S-${p}01"[1]

caguid=0x${p}11
Ca	1 "H-${p}11"
[1](${p}11) 	"S-${p}01"[2]
EOF
}
fabric "$work/a.topo" 0002c90300aaaa
fabric "$work/b.topo" 0002c90300bbbb

# The machine's opensm files as they are: each path, absent or its files' sums and times.
host_files() {
	local f
	for f in /var/cache/opensm /var/log/opensm.log; do
		if [ -e "$f" ]; then
			find "$f" -exec stat -c '%n %s %Y' {} + | sort
			find "$f" -type f -exec sha256sum {} + | sort
		else
			echo "$f absent"
		fi
	done
}
host_files > "$work/host.before"

# kept_dir ERR: the tools' directory a --keep-state run named on stderr.
kept_dir() {
	sed -n "s/^umad: [a-z]*: the tools' state (opensm's cache and log) is kept in //p" "$1"
}

# --- two runs at once, opensm without -f --------------------------------------------
for f in a b; do
	"$umad" sim -t "$work/$f.topo" --sm none --keep-state -- opensm -d2 \
		> "$work/osm_$f.out" 2> "$work/sim_$f.err" &
	eval "pid_$f=\$!"
done
for f in a b; do
	up=""
	for _ in $(seq 600); do
		d=$(kept_dir "$work/sim_$f.err")
		[ -n "$d" ] && grep -q 'SUBNET UP' "$d/log/opensm.log" 2>/dev/null && { up=$d; break; }
		sleep 0.1
	done
	eval "dir_$f=\$up"
	[ -n "$up" ] || fail "run $f: no SUBNET UP in its own log: $(cat "$work/sim_$f.err" "$work/osm_$f.out")"
done
# Both up at once: only now are they ended.
end_procs "$pid_a" "$pid_b"
for f in a b; do
	eval "d=\$dir_$f"
	[ -n "$d" ] || continue
	[ "$(stat -c '%u %a' "$d")" = "$(id -u) 700" ] || fail "run $f: $d is not ours and 0700"
	[ -s "$d/cache/guid2lid" ] || fail "run $f: no guid2lid in its own cache $d/cache"
	[ "$f" = a ] && mine=aaaa other=bbbb || mine=bbbb other=aaaa
	grep -q "0x0002c90300${mine}10" "$d/cache/guid2lid" ||
		fail "run $f: its guid2lid lacks its own CA: $(cat "$d/cache/guid2lid")"
	grep -q "0x0002c90300${other}" "$d/cache/guid2lid" &&
		fail "run $f: its guid2lid holds the other fabric's GUIDs: $(cat "$d/cache/guid2lid")"
done
[ -n "$dir_a" ] && [ "$dir_a" = "$dir_b" ] && fail "the two runs kept their state in one directory"
ls "$base" | grep -q '^umad-sim\.' && fail "the runs left their run directories: $(ls "$base")"
rm -rf "$base"/umad-state.*

# --- opensm run by a script of COMMAND's ------------------------------------------------
timeout 120 "$umad" sim -t "$work/a.topo" --sm none --keep-state -- sh -c 'opensm -o > /dev/null' \
	2> "$work/err" || fail "umad sim -- sh -c 'opensm -o': exit $?: $(cat "$work/err")"
d=$(kept_dir "$work/err")
[ -n "$d" ] && grep -q 'SUBNET UP' "$d/log/opensm.log" 2>/dev/null ||
	fail "opensm run by a script: no SUBNET UP in the run's log: $(cat "$work/err")"

# --- the variables, and the directory gone at the end ----------------------------------
# shellcheck disable=SC2016
show='echo "$OSM_CACHE_DIR $OSM_TMP_DIR $TMPDIR"'
timeout 60 "$umad" sim -t "$work/a.topo" --sm none -- sh -c "$show"' > "$0"
	stat -c "%u %a" "$OSM_CACHE_DIR" "$OSM_TMP_DIR" "$TMPDIR" "${TMPDIR%/state/tmp}" >> "$0"' \
	"$work/vars" 2> "$work/err" || fail "umad sim -- sh: exit $?: $(cat "$work/err")"
read -r cache tmp tmpdir < "$work/vars"
case $cache:$tmp:$tmpdir in
"$base"/umad-sim.*/state/cache:"$base"/umad-sim.*/state/log:"$base"/umad-sim.*/state/tmp) ;;
*) fail "OSM_CACHE_DIR, OSM_TMP_DIR, TMPDIR not in the run's directory: $(cat "$work/vars")" ;;
esac
[ "$(sed 1d "$work/vars" | sort -u)" = "$(id -u) 700" ] ||
	fail "the run's directories are not ours and 0700: $(cat "$work/vars")"
[ -e "${tmpdir%/state/tmp}" ] && fail "the run's directory is left after the run: ${tmpdir%/state/tmp}"

mkdir -m 700 "$work/mycache" "$work/mytmp"
OSM_CACHE_DIR=$work/mycache TMPDIR=$work/mytmp timeout 60 "$umad" sim -t "$work/a.topo" --sm none \
	-- sh -c "$show" > "$work/vars" 2> "$work/err" || fail "umad sim -- sh: exit $?: $(cat "$work/err")"
read -r cache tmp tmpdir < "$work/vars"
[ "$cache" = "$work/mycache" ] && [ "$tmpdir" = "$work/mytmp" ] ||
	fail "the user's OSM_CACHE_DIR and TMPDIR were not kept: $(cat "$work/vars")"
case $tmp in "$work"/mytmp/umad-sim.*/state/log|"$base"/umad-sim.*/state/log) ;;
*) fail "OSM_TMP_DIR not in the run's directory: $tmp" ;; esac

# opensm with the user's cache and log: both used, none of ours.
OSM_CACHE_DIR=$work/mycache timeout 120 "$umad" sim -t "$work/a.topo" --sm none --keep-state \
	-- opensm -o -f "$work/my.log" > "$work/osm.out" 2> "$work/err" ||
	fail "opensm -o -f: exit $?: $(cat "$work/err")"
grep -q 'SUBNET UP' "$work/my.log" 2>/dev/null || fail "opensm -f: no SUBNET UP in the user's log"
grep -q "0x0002c90300aaaa10" "$work/mycache/guid2lid" 2>/dev/null ||
	fail "opensm did not cache in the user's OSM_CACHE_DIR"
d=$(kept_dir "$work/err")
[ -n "$d" ] && [ ! -e "$d/log/opensm.log" ] && [ ! -e "$d/cache/guid2lid" ] ||
	fail "with the user's -f and OSM_CACHE_DIR, opensm still wrote in the run's ($d)"

# --- umad kernel ----------------------------------------------------------------------
if timeout 60 "$umad" kernel -- true > "$work/out" 2>&1; then
	# opensm frees a request once its answer is in, even while the write() that sent it has
	# yet to return; ASan checks write()'s buffer after the call, and so reports opensm's
	# race when the answer comes through the files that fast (as tests/kernel_diff.sh says).
	asan=${ASAN_OPTIONS:-}
	if [ -n "${UMAD_SANITIZERS:-}" ]; then
		echo "interceptor_via_fun:osm_vendor_send" > "$work/asan.supp"
		asan="$asan:suppressions=$work/asan.supp"
	fi
	ASAN_OPTIONS=$asan timeout 120 "$umad" kernel -t "$work/b.topo" --sm none --keep-state -- opensm -o \
		> "$work/osm.out" 2> "$work/err" || fail "umad kernel -- opensm -o: exit $?: $(cat "$work/err")"
	d=$(kept_dir "$work/err")
	[ -n "$d" ] && grep -q 'SUBNET UP' "$d/log/opensm.log" 2>/dev/null ||
		fail "umad kernel: no SUBNET UP in the run's log: $(cat "$work/err")"
	grep -q "0x0002c90300bbbb10" "$d/cache/guid2lid" 2>/dev/null ||
		fail "umad kernel: opensm did not cache in the run's directory"
	ls "$base" | grep -q '^umad-kernel\.' && fail "umad kernel left its run directory: $(ls "$base")"
else
	echo "SKIP (part): umad kernel cannot run here: $(tail -1 "$work/out")"
fi

# Whatever else may write them, none of this test's fabrics is in them.
grep -rqs -i "2c90300aaaa\|2c90300bbbb" /var/cache/opensm /var/log/opensm.log &&
	fail "the machine's opensm files name this test's fabrics' GUIDs"
host_files > "$work/host.after"
diff "$work/host.before" "$work/host.after" > "$work/host.diff" ||
	fail "the machine's opensm files changed: $(cat "$work/host.diff")"
exit $status
