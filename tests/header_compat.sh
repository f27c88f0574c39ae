#!/bin/sh
# Header compatibility with rdma-core: every constant, enum value, struct
# size and member offset that Debian's <infiniband/umad*.h> (libibumad-dev)
# declares must have the same value in ours.  The identifiers are extracted
# from the reference headers, a C program printing each value is generated,
# compiled once against the reference headers and once against ours, and
# the two outputs are compared.  Also: all our headers compile as C++ and
# as C99 (warnings as errors, included as system headers like the reference).
# Exits 77 (skip) when the reference headers are not installed.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
CC=${CC:-cc}
CXX=${CXX:-c++}
ref=${RDMA_INCLUDE:-/usr/include}

if [ ! -f "$ref/infiniband/umad.h" ]; then
	echo "SKIP: rdma-core headers not found in $ref (install libibumad-dev)"
	exit 77
fi

# Deliberate differences from the reference (Debian's rdma-core 44 headers):
# rdma-core HEAD raised these limits, and so do we.
ALLOWED="UMAD_MAX_DEVICES UMAD_MAX_PORTS"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
headers="umad.h umad_types.h umad_sm.h umad_sa.h umad_cm.h umad_sa_mcm.h umad_str.h"

# Constants: enum members (NAME = ...) and object-like macros with a value.
# The ioctl numbers need the library's private request structs: excluded.
for h in $headers; do
	sed -n -e 's/^[[:space:]]*\(UMAD_[A-Z0-9_]*\)[[:space:]]*=.*/num \1/p' \
		-e 's/^#define[[:space:]]\{1,\}\([A-Z][A-Z0-9_]*\)[[:space:]]\{1,\}".*/str \1/p' \
		-e 's/^#define[[:space:]]\{1,\}\([A-Z][A-Z0-9_]*\)[[:space:]]\{1,\}[^"[:space:]].*/num \1/p' \
		"$ref/infiniband/$h"
done | grep -v -e '^num _' -e 'IB_USER_MAD_REGISTER_AGENT' -e 'IB_USER_MAD_UNREGISTER_AGENT' \
	-e 'IB_USER_MAD_ENABLE_PKEY' | sort -u > "$work/constants"

# Structs and unions with their members (anonymous unions' members belong
# to the enclosing struct; a named inner struct counts as one member).
for h in $headers; do
	awk '
	/^(typedef )?(struct|union) [a-z_0-9]+ *\{/ {
		kind = $0; sub(/^typedef /, "", kind); split(kind, w, " ")
		name = w[1] " " w[2]; depth = 1; print "type " name; next
	}
	depth == 0 { next }
	/\{/ { depth++; inner[depth] = ""; next }
	/^[[:space:]]*\}[^;]*;/ {
		if (depth == 1) { depth = 0; next }
		m = $0; gsub(/[};[:space:]]/, "", m)
		if (m != "" && depth == 2) print "member " name " " m
		depth--; next
	}
	depth == 1 && /;/ {
		line = $0; sub(/\/\*.*/, "", line); sub(/\[.*/, "", line); sub(/;.*/, "", line)
		sub(/__attribute__.*/, "", line)
		n = split(line, t, /[[:space:]*]+/); m = t[n]
		if (m != "") print "member " name " " m
	}' "$ref/infiniband/$h"
done | sort -u > "$work/layouts"

{
	for h in $headers; do echo "#include <infiniband/$h>"; done
	echo '#include <stdio.h>'
	echo '#include <stddef.h>'
	echo '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"'
	echo 'int main(void) {'
	# printf, not echo: dash's echo would expand the \n meant for the C source.
	while read -r kind name; do
		case $kind in
		num) printf '\tprintf("%%s = %%lld\\n", "%s", (long long)(%s));\n' "$name" "$name" ;;
		str) printf '\tprintf("%%s = \\"%%s\\"\\n", "%s", %s);\n' "$name" "$name" ;;
		esac
	done < "$work/constants"
	while read -r kind a b c; do
		case $kind in
		type)
			printf '\tprintf("sizeof(%%s) = %%zu, alignof = %%zu\\n", "%s", sizeof(%s), _Alignof(%s));\n' \
				"$a $b" "$a $b" "$a $b" ;;
		member)
			printf '\tprintf("offsetof(%%s, %%s) = %%zu, size %%zu\\n", "%s", "%s", offsetof(%s, %s), sizeof(((%s *)0)->%s));\n' \
				"$a $b" "$c" "$a $b" "$c" "$a $b" "$c" ;;
		esac
	done < "$work/layouts"
	echo '	return 0;'
	echo '}'
} > "$work/values.c"

n_const=$(wc -l < "$work/constants")
n_layout=$(wc -l < "$work/layouts")
status=0
for abi in "" -m32; do
	if [ -n "$abi" ] && ! echo 'int main(void){return 0;}' | $CC -m32 -x c -o "$work/m32" - 2>/dev/null; then
		echo "SKIP: $CC cannot build i386 programs; i386 layouts not compared"
		continue
	fi
	$CC $abi -std=gnu11 -Wall -Werror -o "$work/ref$abi" "$work/values.c" -I"$ref" || exit 1
	$CC $abi -std=gnu11 -Wall -Werror -o "$work/ours$abi" "$work/values.c" -isystem "$top_srcdir/include" || exit 1
	"$work/ref$abi" > "$work/ref$abi.out"
	"$work/ours$abi" > "$work/ours$abi.out"
	pattern=$(echo "$ALLOWED" | sed 's/ /\\|/g')
	grep -v "^\\($pattern\\) = " "$work/ref$abi.out" > "$work/ref$abi.cmp"
	grep -v "^\\($pattern\\) = " "$work/ours$abi.out" > "$work/ours$abi.cmp"
	if diff -u "$work/ref$abi.cmp" "$work/ours$abi.cmp"; then
		echo "PASS${abi:+ ($abi)}: $n_const constants and $n_layout types/members identical"
	else
		echo "FAIL${abi:+ ($abi)}: values differ (- rdma-core, + ours)"
		status=1
	fi
done
grep "^\\(UMAD_MAX_DEVICES\\|UMAD_MAX_PORTS\\) = " "$work/ours.out" | tr '\n' ' '
echo "(allowed: raised as in rdma-core HEAD)"

# Every header on its own and all together, as C++ and C99, warnings as errors.
for h in $headers; do
	printf '#include <infiniband/%s>\nint main(void) { return 0; }\n' "$h" > "$work/one.c"
	cp "$work/one.c" "$work/one.cpp"
	$CC -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -isystem "$top_srcdir/include" "$work/one.c" ||
		{ echo "FAIL: $h alone does not compile as C99"; status=1; }
	if command -v "$CXX" >/dev/null 2>&1; then
		$CXX -Wall -Wextra -Werror -fsyntax-only -I"$top_srcdir/include" "$work/one.cpp" ||
			{ echo "FAIL: $h does not compile as C++"; status=1; }
	fi
done
[ "$status" -eq 0 ] && echo "PASS: each header compiles alone as C99 and C++"

# The compile-time layout assertions for i386 (make check builds them natively).
if [ -f "$work/m32" ]; then
	if $CC -m32 -std=gnu11 -Wall -Werror -fsyntax-only -I"$top_srcdir/include" \
		"$top_srcdir/tests/layout_check.c"; then
		echo "PASS: tests/layout_check.c assertions hold for i386"
	else
		echo "FAIL: i386 layouts"
		status=1
	fi
fi
exit "$status"
