#!/bin/sh
# What README's "Reporting a problem" asks for can be had: the section is
# there and names the version commands, the topology, a capture and its
# stats; the version commands it names answer this build's version; and
# configure names no bug-report address (there is no public tracker yet).
# Needs pkg-config for the installed-version check (skipped alone without it).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

section=$(sed -n '/^## Reporting a problem$/,/^## /p' "$top_srcdir/README.md")
[ -n "$section" ] || fail "README.md has no \"## Reporting a problem\" section"
for named in 'pkg-config --modversion libibumad' './configure --version' 'UMAD_SIM_TOPOLOGY' \
	'umad capture -w' 'UMAD_CAPTURE=' 'umad capture stats'; do
	printf '%s\n' "$section" | grep -qF -- "$named" ||
		fail "README's \"Reporting a problem\" does not name '$named'"
done

# The version configure was given, and what the named commands answer.
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$version" ] || fail "no PACKAGE_VERSION in $top_builddir/config.h"
said=$("$top_srcdir/configure" --version | sed -n '1s/.* //p')
[ "$said" = "$version" ] || fail "./configure --version says '$said', the build is '$version'"
if command -v pkg-config > /dev/null 2>&1; then
	said=$(PKG_CONFIG_PATH="$top_builddir/libumad" pkg-config --modversion libibumad)
	[ "$said" = "$version" ] ||
		fail "pkg-config --modversion libibumad says '$said', the build is '$version'"
else
	echo "SKIP (part): pkg-config not installed"
fi

# No bug-report argument, so no address to write to.
grep -q '^AC_INIT(\[[^]]*\], \[[^]]*\])$' "$top_srcdir/configure.ac" ||
	fail "AC_INIT in configure.ac has more than the package name and version: $(grep '^AC_INIT' "$top_srcdir/configure.ac")"
"$top_srcdir/configure" --help | grep -q 'Report bugs to <' &&
	fail "configure --help names a bug-report address"

[ $status -eq 0 ] && echo "PASS: what README asks a problem report for can be had"
exit $status
