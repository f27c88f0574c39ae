# Sourced by the tests that run tools on UMAD_BACKEND=sim: skips (77) when a
# tool in $needs is missing, fails when the sim backend is not built, and
# gives $libs, a private $work directory (removed at exit), fail() and sim(),
# and tests/procs.sh's end_procs, at_exit and timeout -k: what the test
# starts ends with it.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/procs.sh"
top_builddir=$(cd "${top_builddir:-.}" && pwd)
libs=$top_builddir/.libs
for need in $needs; do
	command -v "$need" >/dev/null 2>&1 || { echo "SKIP: $need not installed"; exit 77; }
done
[ -f "$libs/backend-sim.so" ] || { echo "FAIL: $libs/backend-sim.so not built"; exit 1; }

# For the scripts a test runs under umad sim: start_opensm, stop_opensm; end_procs and the rest.
export OPENSM_SESSION=$top_srcdir/tests/opensm_session.sh
export UMAD_TEST_PROCS=$top_srcdir/tests/procs.sh

work=$(mktemp -d)
at_exit 'rm -rf "$work"'
status=0
# fail MESSAGE: report a failed check and go on; the test fails at the end.
fail() {
	echo "FAIL: $*"
	status=1
}

# tcp_listening PID ERRFILE: wait until the umad fabric serve --listen running as PID says
# where it listens (ERRFILE is its stderr); $at is that HOST:PORT then.  1 (at empty) when it
# ended first, or said nothing within 15 s.
tcp_listening() {
	local _
	at=
	for _ in $(seq 300); do
		at=$(sed -n 's/.*UMAD_SIM_FABRIC=tcp:\([^ ]*\) .*/\1/p' "$2")
		[ -n "$at" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# Run a command on the simulated fabric (UMAD_SIM_TOPOLOGY and the like may be given before it).
# The fabric starts as ibsim's does, with no SM (UMAD_SIM_SM=none), so that
# outputs compare with ibsim's; the built-in SM's tests ask for it.
sim() {
	LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" UMAD_BACKEND=sim \
		UMAD_SIM_SM="${UMAD_SIM_SM:-none}" "$@"
}

# Wireshark's programs never load libumad: in a sanitizer build, which
# preloads the sanitizers' runtimes into every program a test runs, they
# run without them (editcap's p11-kit hangs at exit under them).
tshark() { LD_PRELOAD= command tshark "$@"; }
editcap() { LD_PRELOAD= command editcap "$@"; }

# stage_install: this build installed (make install-exec) under the DESTDIR
# $top_builddir/tests/stage, which make check makes once before any test
# runs (tests/local.mk: libtool's relinking during an install would break the
# tests running beside it); a test run by hand without it installs under
# $work/stage, as a make of its own.  Sets $stage, $umad, $library, $module
# (backend-sim.so) and $libdir (where libibumad.so.3 is, links resolved).
# Exits 1 when any is missing.
stage_install() {
	stage=$top_builddir/tests/stage
	if [ ! -e "$top_builddir/tests/stage.stamp" ]; then
		stage=$work/stage
		if ! (cd "$top_builddir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
			"${MAKE:-make}" -s install-exec DESTDIR="$stage") > "$work/install.log" 2>&1; then
			echo "FAIL: make install-exec DESTDIR=$stage:"
			sed 's/^/    /' "$work/install.log"
			exit 1
		fi
	fi
	umad=$(find "$stage" -path '*/bin/umad' -type f | head -n 1)
	library=$(find "$stage" -name libibumad.so.3 | head -n 1)
	module=$(find "$stage" -name backend-sim.so | head -n 1)
	[ -n "$umad" ] || { echo "FAIL: no umad installed under $stage"; exit 1; }
	[ -n "$library" ] || { echo "FAIL: no libibumad.so.3 installed under $stage"; exit 1; }
	[ -n "$module" ] || { echo "FAIL: no backend-sim.so installed under $stage"; exit 1; }
	libdir=$(cd "$(dirname "$library")" && pwd -P)
}
