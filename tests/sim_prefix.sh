#!/bin/bash
# umad sim installed in a prefix the loader does not search: COMMAND must run
# on the libibumad.so.3 installed beside this umad, not on another one the
# loader finds (Debian's libibumad3 has no sim backend: ibstat would print
# nothing).  The build is installed (make install-exec) under a temporary
# DESTDIR; the installed umad is started through the dynamic loader with
# --library-path on the staged library directory, which stands for the
# RUNPATH of a real install and reaches umad alone, not its children.  This
# test sets no LD_LIBRARY_PATH.  Skips (77) without ibstat or readelf.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibstat readelf"
. "$(dirname "$0")/sim_env.sh"
unset LD_LIBRARY_PATH

stage_install
loader=$(readelf -l "$umad" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
[ -x "$loader" ] || { echo "SKIP: no dynamic loader named in $umad"; exit 77; }

# installed_umad ARGS...: the installed umad, finding its library as a RUNPATH would.
installed_umad() {
	UMAD_MODULE_DIR=$(dirname "$module") "$loader" --library-path "$libdir" "$umad" "$@"
}

installed_umad sim -- ibstat > "$work/out" 2>&1 || fail "umad sim -- ibstat exited with $?"
grep -q "^CA 'sim0'" "$work/out" ||
	{ fail "umad sim -- ibstat did not show the simulated CA:"; sed 's/^/    /' "$work/out"; }

# The library's directory goes first; what the caller had stays after it.
installed_umad sim -- sh -c 'echo "$LD_LIBRARY_PATH"' > "$work/out" 2>&1
[ "$(cat "$work/out")" = "$libdir" ] ||
	fail "COMMAND's LD_LIBRARY_PATH is '$(cat "$work/out")', expected '$libdir'"
mkdir "$work/other"
LD_LIBRARY_PATH=$work/other installed_umad sim -- sh -c 'echo "$LD_LIBRARY_PATH"' \
	> "$work/out" 2>&1
[ "$(cat "$work/out")" = "$libdir:$work/other" ] ||
	fail "COMMAND's LD_LIBRARY_PATH is '$(cat "$work/out")', expected '$libdir:$work/other'"

[ $status -eq 0 ] && echo "PASS: umad sim runs COMMAND on the library installed beside it"
exit $status
