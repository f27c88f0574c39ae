#!/bin/bash
# umad on its own libibumad.so.3, and COMMAND on that one or not at all
# (issue 36, point 2).  The build is installed under a temporary DESTDIR:
# a /usr/local install the loader's cache does not know (no ldconfig), with
# Debian's libibumad3 in the cache.
#   - the installed umad, started as it is (no LD_LIBRARY_PATH, no
#     --library-path), runs `umad sim -- ibstat -l` on its own library: the
#     simulated CA is listed;
#   - a copy of umad where no library is beside it runs on Debian's: every
#     command stops with a message, umad doctor says so and exits 1;
#   - small programs on libibumad.so.3 (tests/cli_lib_probe.c): plain and with
#     DT_RUNPATH at Debian's directory they run on the fabric (LD_LIBRARY_PATH
#     is searched before DT_RUNPATH); with DT_RPATH there (searched before
#     LD_LIBRARY_PATH), static, or set-user-ID (as root: owned by nobody)
#     they are refused, naming --kernel, exit status 1, and never run;
#   - umad doctor tells each of those, the step that decided, and its status.
# Skips (77) without ibstat, readelf or a C compiler, or without Debian's
# libibumad.so.3 in a default directory.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibstat readelf cc"
. "$(dirname "$0")/sim_env.sh"
unset LD_LIBRARY_PATH UMAD_MODULE_DIR

# Debian's library: a libibumad.so.3 in a default directory without libumad's note.
debian_lib=
for d in /lib/$(cc -print-multiarch 2>/dev/null) /usr/lib/$(cc -print-multiarch 2>/dev/null) \
	/lib64 /usr/lib64 /lib /usr/lib; do
	f=$d/libibumad.so.3
	[ -e "$f" ] && ! readelf -n "$f" 2>/dev/null | grep -q '^ *libumad ' &&
		{ debian_lib=$f; break; }
done
[ -n "$debian_lib" ] || { echo "SKIP: no rdma-core libibumad.so.3 (Debian's libibumad3)"; exit 77; }
debian_dir=$(dirname "$debian_lib")

stage_install
export UMAD_MODULE_DIR=$(dirname "$module")

# check_out FILE PATTERN WHAT: FILE has a line matching PATTERN (grep -E), or fail saying WHAT.
check_out() {
	grep -qE -- "$2" "$1" || { fail "$3; the output:"; sed 's/^/    /' "$1"; }
}
# refused NAME PROGRAM PATTERN: umad sim refuses PROGRAM with status 1, never runs it,
# names --kernel and says PATTERN.
refused() {
	"$umad" sim -- "$2" > "$work/$1.out" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "$1: umad sim exited with $rc, expected 1 (refused)"
	if grep -q "ran$" "$work/$1.out"; then fail "$1: umad sim ran it"; fi
	check_out "$work/$1.out" "umad sim --kernel -- COMMAND" "$1: the refusal does not name --kernel"
	check_out "$work/$1.out" "$3" "$1: the refusal does not say '$3'"
}
# runs NAME PROGRAM: umad sim runs PROGRAM on the fabric: its CA listed, status 0.
runs() {
	"$umad" sim -- "$2" > "$work/$1.out" 2>&1 || fail "$1: umad sim exited with $?"
	check_out "$work/$1.out" "^sim0$" "$1: the simulated CA is not listed"
}

# 1. The installed umad finds its library with no help, the cache knowing only Debian's.
readelf -d "$umad" | grep -q 'RPATH.*\$ORIGIN' || fail "the installed umad has no \$ORIGIN DT_RPATH"
"$umad" sim -- ibstat -l > "$work/ibstat.out" 2>&1 || fail "umad sim -- ibstat -l exited with $?"
check_out "$work/ibstat.out" "^sim0$" "umad sim -- ibstat -l (installed, no ldconfig) lists no CA"
LD_LIBRARY_PATH=$debian_dir "$umad" sim -- ibstat -l > "$work/ibstat2.out" 2>&1 ||
	fail "umad sim -- ibstat -l with LD_LIBRARY_PATH=$debian_dir exited with $?"
check_out "$work/ibstat2.out" "^sim0$" "with LD_LIBRARY_PATH=$debian_dir, ibstat -l lists no CA"

# 2. A umad with no library beside it: the loader gives it Debian's, and it says so.
mkdir -p "$work/moved/bin"
cp "$umad" "$work/moved/bin/umad"
"$work/moved/bin/umad" sim -- ibstat -l > "$work/moved.out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "a umad on Debian's library ran umad sim (exit 0)"
check_out "$work/moved.out" "runs on $(dirname "$(readlink -f "$debian_lib")")/.*not libumad's" \
	"a umad on Debian's library did not say which library it runs on"
if grep -q "^sim0$" "$work/moved.out"; then fail "a umad on Debian's library ran ibstat"; fi
"$work/moved/bin/umad" doctor > "$work/moved-doctor.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "umad doctor on Debian's library exited with $rc, expected 1"
check_out "$work/moved-doctor.out" "not libumad's.*FAIL" "umad doctor on Debian's library said no FAIL"

# 3. Programs built each way.
cflags="-I$top_srcdir/include -L$libdir"
src=$top_srcdir/tests/cli_lib_probe.c
cc $cflags -o "$work/plain" "$src" -l:libibumad.so.3 || fail "cannot build the probe"
cc $cflags -o "$work/runpath" "$src" -l:libibumad.so.3 -Wl,--enable-new-dtags \
	-Wl,-rpath,"$debian_dir" || fail "cannot build the DT_RUNPATH probe"
cc $cflags -o "$work/rpath" "$src" -l:libibumad.so.3 -Wl,--disable-new-dtags \
	-Wl,-rpath,"$debian_dir" || fail "cannot build the DT_RPATH probe"
readelf -d "$work/runpath" | grep -q RUNPATH || fail "the DT_RUNPATH probe has no DT_RUNPATH"
readelf -d "$work/rpath" | grep -q '(RPATH)' || fail "the DT_RPATH probe has no DT_RPATH"

runs plain "$work/plain"
runs runpath "$work/runpath"
refused rpath "$work/rpath" "would load $debian_lib \(DT_RPATH of $work/rpath"
# A script is its interpreter: sh loads no libibumad.so.3, and what it runs is its own matter.
printf '#!/bin/sh\nexec "%s"\n' "$work/plain" > "$work/script"
chmod +x "$work/script"
runs script "$work/script"

if cc -static -o "$work/static" "$top_srcdir/tests/cli_lib_static.c" 2> "$work/static.cc"; then
	refused static "$work/static" "is a static program"
else
	echo "note: no static C library; the static case is not tried"
fi

if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1 &&
	! findmnt -n -o OPTIONS -T "$work" 2>/dev/null | grep -qw nosuid; then
	mkdir "$work/suid"
	chmod 755 "$work" "$work/suid"
	cp "$work/plain" "$work/suid/probe"
	chown nobody "$work/suid/probe"
	chmod 4755 "$work/suid/probe"
	refused setuid "$work/suid/probe" "is set-user-ID: the loader ignores LD_LIBRARY_PATH"
else
	echo "note: not root (or a nosuid mount): the set-user-ID case is not tried"
fi

# 4. umad doctor: the library, the step that decided, the status.
"$umad" doctor > "$work/doctor.out" 2>&1 || fail "umad doctor exited with $?"
check_out "$work/doctor.out" "runs on .*$(basename "$libdir")/libibumad.so.3" "umad doctor names no library"
check_out "$work/doctor.out" "its own: ok" "umad doctor does not say umad runs on its own library"
check_out "$work/doctor.out" "^  sim: loads" "umad doctor does not say the sim backend loads"
check_out "$work/doctor.out" "/dev/fuse: " "umad doctor says nothing of /dev/fuse"
"$umad" doctor "$work/runpath" > "$work/doctor-runpath.out" 2>&1 ||
	fail "umad doctor on the DT_RUNPATH probe exited with $?"
check_out "$work/doctor-runpath.out" "loads $debian_lib \(ld.so.cache|loads $debian_lib \(the default|loads $debian_lib \(DT_RUNPATH" \
	"umad doctor does not say the DT_RUNPATH probe loads Debian's library when run as it is"
check_out "$work/doctor-runpath.out" "loads $libdir/libibumad.so.3 \(LD_LIBRARY_PATH" \
	"umad doctor does not say the DT_RUNPATH probe loads umad's library under umad sim"
check_out "$work/doctor-runpath.out" "umad sim -- .*: runs" "umad doctor does not say it runs"
"$umad" doctor "$work/rpath" > "$work/doctor-rpath.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "umad doctor on the DT_RPATH probe exited with $rc, expected 1"
check_out "$work/doctor-rpath.out" "DT_RPATH of $work/rpath: $debian_dir" \
	"umad doctor does not show the DT_RPATH step"
check_out "$work/doctor-rpath.out" "refused: FAIL" "umad doctor does not say the DT_RPATH probe is refused"
"$umad" doctor ibstat > "$work/doctor-ibstat.out" 2>&1 || fail "umad doctor ibstat exited with $?"
check_out "$work/doctor-ibstat.out" "which is this umad's own" "umad doctor ibstat: not on umad's own library"

[ $status -eq 0 ] && echo "PASS: umad and its COMMAND run on umad's own library, or are refused saying why"
exit $status
