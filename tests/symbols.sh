#!/bin/sh
# The exported interface of our libibumad.so.3 against rdma-core's:
#   - every versioned symbol rdma-core 44 (Debian) defines, same name and
#     version node, as the default version (name@@NODE);
#   - plus exactly umad_open_smi_port@@IBUMAD_1.3,
#     umad_get_smi_gsi_pairs@@IBUMAD_1.4 and
#     umad_get_smi_gsi_pair_by_ca_name@@IBUMAD_1.4, and nothing else;
#   - version nodes IBUMAD_1.0 ... IBUMAD_1.4, each inheriting the previous;
#   - SONAME libibumad.so.3, and libc as the only NEEDED library.
# Exits 77 (skip) when rdma-core's library or readelf is missing.
# Environment: top_builddir (set by make check); RDMA_LIBIBUMAD overrides the
# path of the reference library.

set -u

: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
ours=$top_builddir/.libs/libibumad.so.3
READELF=${READELF:-readelf}

command -v "$READELF" > /dev/null 2>&1 || { echo "SKIP: readelf not found"; exit 77; }
if [ -z "${RDMA_LIBIBUMAD:-}" ]; then
	multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null)
	for d in ${multiarch:+/usr/lib/$multiarch /lib/$multiarch} /usr/lib64 /usr/lib /lib64 /lib; do
		if [ -e "$d/libibumad.so.3" ]; then
			RDMA_LIBIBUMAD=$d/libibumad.so.3
			break
		fi
	done
fi
if [ -z "${RDMA_LIBIBUMAD:-}" ] || [ ! -e "$RDMA_LIBIBUMAD" ]; then
	echo "SKIP: rdma-core's libibumad.so.3 is not installed"
	exit 77
fi
if [ ! -e "$ours" ]; then
	echo "FAIL: $ours is not built"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/umad-symbols.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0

fail() {
	echo "FAIL: $*"
	status=1
}

# defined_symbols LIB: "name@@VERSION" (or name@VERSION, or bare name) of every
# defined dynamic symbol, the version-node symbols (ABS) excluded.
defined_symbols() {
	LC_ALL=C "$READELF" --dyn-syms -W "$1" | awk '
		$1 ~ /^[0-9]+:$/ && $7 != "UND" && $5 != "LOCAL" {
			name = $8
			# readelf appends " (N)" version indices on some versions.
			if ($7 == "ABS" && name ~ /^IBUMAD_/) next
			print name
		}' | sort -u
}

defined_symbols "$RDMA_LIBIBUMAD" > "$tmp/rdma"
defined_symbols "$ours" > "$tmp/ours"
if [ ! -s "$tmp/rdma" ]; then
	fail "no symbols read from $RDMA_LIBIBUMAD"
	exit 1
fi

cat "$tmp/rdma" - <<EOF | sort -u > "$tmp/expected"
umad_open_smi_port@@IBUMAD_1.3
umad_get_smi_gsi_pairs@@IBUMAD_1.4
umad_get_smi_gsi_pair_by_ca_name@@IBUMAD_1.4
EOF

if ! diff -u --label expected --label "$ours" "$tmp/expected" "$tmp/ours" > "$tmp/diff"; then
	fail "exported symbols differ (- missing, + not expected):"
	grep '^[-+][^-+]' "$tmp/diff"
fi
echo "checked $(wc -l < "$tmp/expected") exported symbols"

# Version nodes and their inheritance: IBUMAD_1.N has IBUMAD_1.(N-1) as parent.
LC_ALL=C "$READELF" -V -W "$ours" | awk '
	/Version definition section/ { in_def = 1; next }
	/Version (needs|symbols) section/ { in_def = 0 }
	in_def && /Name: / {
		for (i = 1; i <= NF; i++) if ($i == "Name:") name = $(i + 1)
		if ($0 ~ /Flags: BASE/) { print "BASE " name; next }
		print "NODE " name
		next
	}
	in_def && /Parent 1: / {
		for (i = 1; i <= NF; i++) if ($i == "Parent" && $(i + 1) == "1:") print "PARENT " name " " $(i + 2)
	}' > "$tmp/versions"
cat > "$tmp/versions.expected" <<EOF
BASE libibumad.so.3
NODE IBUMAD_1.0
NODE IBUMAD_1.1
PARENT IBUMAD_1.1 IBUMAD_1.0
NODE IBUMAD_1.2
PARENT IBUMAD_1.2 IBUMAD_1.1
NODE IBUMAD_1.3
PARENT IBUMAD_1.3 IBUMAD_1.2
NODE IBUMAD_1.4
PARENT IBUMAD_1.4 IBUMAD_1.3
EOF
if ! diff -u --label expected --label "$ours" "$tmp/versions.expected" "$tmp/versions"; then
	fail "version definitions differ"
fi

# SONAME and NEEDED.
soname=$(LC_ALL=C "$READELF" -d -W "$ours" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = libibumad.so.3 ] || fail "SONAME is '$soname', expected libibumad.so.3"
needed=$(LC_ALL=C "$READELF" -d -W "$ours" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | tr '\n' ' ')
# A sanitizer build links the sanitizers' runtimes too.
[ -n "${UMAD_SANITIZERS:-}" ] && needed=$(echo "$needed" | sed 's/lib[a-z]*san\.so\.[0-9]* //g')
[ "$needed" = "libc.so.6 " ] || fail "NEEDED is '$needed', expected libc.so.6 only"

[ "$status" = 0 ] && echo "PASS: symbols, versions, SONAME and NEEDED match"
exit $status
