#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# bench/table.awk, the table of bench/fabric-vs-ibsim.sh: the ratio and the
# met? column come from the figures (each operator, a figure with a note
# mark, a missing figure on either side, no target), rows group under their
# fabric, and malformed rows are errors.  Needs no simulator: runs in make check.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
table=${top_srcdir:-$(dirname "$0")/..}/bench/table.awk
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

t=$'\t'
cat > "$work/rows" <<EOF
fabric A${t}load, ms${t}45${t}-${t}180${t}ibsim${t}shared < 2000
fabric A${t}load again, ms${t}2000${t}-${t}180${t}ibsim${t}shared < 2000
fabric A${t}rate/s${t}99999${t}5${t}7${t}ibsim${t}shared >= 100000
fabric A${t}rate again/s${t}100000${t}5${t}7${t}ibsim${t}shared >= 100000
fabric A${t}discover, ms${t}30 [2]${t}20${t}160${t}in-process${t}ratio <= 1.5
fabric A${t}discover again, ms${t}31${t}20${t}160${t}in-process${t}ratio <= 1.5
fabric A${t}sweep, ms${t}failed [1]${t}20${t}300${t}ibsim${t}ratio < 1
fabric B${t}sweep B, ms${t}300${t}20${t}300${t}ibsim${t}ratio < 1
fabric B${t}sweep again, ms${t}299${t}20${t}300${t}ibsim${t}ratio > 0.99
fabric B${t}cpu, ms${t}5${t}-${t}not run [3]${t}ibsim${t}ratio <= 0.1
fabric B${t}cpu again, ms${t}5${t}-${t}0${t}ibsim${t}ratio <= 0.1
fabric B${t}memory, MB${t}12.5${t}-${t}50${t}ibsim${t}-
EOF
awk -f "$table" "$work/rows" > "$work/got" || fail "table.awk failed on good rows"

# met? and ratio of each row, by its measurement (the widths are checked below).
met() { grep "^  $1  " "$work/got" | awk '{ print $NF }'; }
ratio() { grep "^  $1  " "$work/got" | grep -o '[0-9.]* /[a-z-]*'; }
check() {	# MEASUREMENT RATIO MET
	[ "$(ratio "$1")" = "$2" ] || fail "$1: ratio '$(ratio "$1")', expected '$2'"
	[ "$(met "$1")" = "$3" ] || fail "$1: met '$(met "$1")', expected '$3'"
}
check "load, ms" "0.25 /ibsim" yes
check "load again, ms" "11.11 /ibsim" no		# < is strict
check "rate/s" "14285.57 /ibsim" no
check "rate again/s" "14285.71 /ibsim" yes		# >= takes the bound
check "discover, ms" "1.50 /in-proc" yes		# "30 [2]" is 30, a note beside it
check "discover again, ms" "1.55 /in-proc" no
check "sweep, ms" "" no					# ours failed: the target is not met
check "sweep B, ms" "1.00 /ibsim" no			# < is strict
check "sweep again, ms" "1.00 /ibsim" yes		# 0.997 > 0.99: compared unrounded
check "cpu, ms" "" unknown				# nothing to compare with
check "cpu again, ms" "" unknown			# nor with a zero
check "memory, MB" "0.25 /ibsim" -			# no target
line=$(grep "^  sweep, ms  " "$work/got")
case $line in
*"failed [1]"*"ratio < 1"*) ;;
*) fail "the missing figure or the target is not shown as it came: $line" ;;
esac

# Groups: a heading per fabric, in order, each with the column names.
[ "$(grep -c '^fabric [AB]$' "$work/got")" -eq 2 ] || fail "expected a heading per fabric"
[ "$(grep -c '^  measurement  *shared  *in-process  *ibsim  *ratio  *target  *met?$' "$work/got")" -eq 2 ] ||
	fail "expected the column names under each heading"
# Columns line up: met? starts at the same place on every line.
cols=$(awk '/^  / { print length($0) - length($NF) }' "$work/got" | sort -u | wc -l)
[ "$cols" -eq 1 ] || fail "the columns do not line up"

# Malformed rows are errors, not a table that looks right.
printf 'f\tm\t1\t2\t3\tibsim\n' > "$work/short"
awk -f "$table" "$work/short" > /dev/null 2>&1 && fail "a row of 6 fields was accepted"
printf 'f\tm\t1\t2\t3\tibsim\tshared about 5\n' > "$work/badtarget"
awk -f "$table" "$work/badtarget" > /dev/null 2>&1 && fail "a target with an unknown operator was accepted"
printf 'f\tm\t1\t2\t3\tibsim\tnobody < 5\n' > "$work/badsubject"
awk -f "$table" "$work/badsubject" > /dev/null 2>&1 && fail "a target on an unknown figure was accepted"

# Another name for the first column (bench/kernel-vs-ibsim.sh's "files"):
# its heading, and targets on its figure by that name; "shared" is then no subject.
printf 'f\trate/s\t50000\t-\t20000\tibsim\tratio >= 2\nf\tstart, ms\t40\t-\t-\t-\tfiles < 50\n' \
	> "$work/files"
awk -v ours=files -f "$table" "$work/files" > "$work/files.got" || fail "-v ours=files: good rows refused"
grep -q '^  measurement  *files  *in-process  *ibsim  *ratio  *target  *met?$' "$work/files.got" ||
	fail "-v ours=files: the first column is not headed files"
[ "$(grep '^  rate/s  ' "$work/files.got" | awk '{ print $NF }')" = yes ] ||
	fail "-v ours=files: 50000 against 20000 does not meet ratio >= 2"
[ "$(grep '^  start, ms  ' "$work/files.got" | awk '{ print $NF }')" = yes ] ||
	fail "-v ours=files: 40 does not meet files < 50"
printf 'f\tm\t1\t2\t3\tibsim\tshared < 5\n' > "$work/shared"
awk -v ours=files -f "$table" "$work/shared" > /dev/null 2>&1 &&
	fail "-v ours=files: a target on shared was accepted"

# A figure of another row to divide by (REF NAME=FIGURE, kernel-vs-ibsim.sh's
# floor): the ratio to it, shown by its name, and "unknown" when it is missing.
printf '%s\n' "f${t}per MAD, us${t}26${t}-${t}70${t}floor=20${t}ratio <= 1.3" \
	"f${t}per MAD again, us${t}27${t}-${t}70${t}floor=20.00${t}ratio <= 1.3" \
	"f${t}per MAD, no floor${t}26${t}-${t}70${t}floor=failed [2]${t}ratio <= 1.3" > "$work/floor"
awk -v ours=files -f "$table" "$work/floor" > "$work/floor.got" || fail "REF NAME=FIGURE: good rows refused"
floor_check() {	# MEASUREMENT RATIO MET
	local line
	line=$(grep "^  $1  " "$work/floor.got")
	[ "$(printf '%s' "$line" | grep -o '[0-9.]* /[a-z-]*')" = "$2" ] ||
		fail "REF NAME=FIGURE, $1: '$line', expected the ratio '$2'"
	[ "$(printf '%s' "$line" | awk '{ print $NF }')" = "$3" ] ||
		fail "REF NAME=FIGURE, $1: '$line', expected met? '$3'"
}
floor_check "per MAD, us" "1.30 /floor" yes
floor_check "per MAD again, us" "1.35 /floor" no
floor_check "per MAD, no floor" "" unknown
# fabric-vs-ibsim.sh's "1 client=FIGURE": a NAME of words and digits, shown whole.
printf '%s\n' "f${t}16 clients${t}30000${t}-${t}-${t}1 client=60000 [4]${t}ratio >= 1" \
	"f${t}16 clients again${t}60000${t}-${t}-${t}1 client=60000${t}ratio >= 1" > "$work/own"
awk -f "$table" "$work/own" > "$work/own.got" || fail "REF NAME=FIGURE, NAME with a space: good rows refused"
grep -q '^  16 clients  .*  0\.50 /1 client  *ratio >= 1  *no$' "$work/own.got" ||
	fail "REF '1 client=60000 [4]': expected '0.50 /1 client' and no: $(grep '^  16 clients  ' "$work/own.got")"
grep -q '^  16 clients again  .*  1\.00 /1 client  *ratio >= 1  *yes$' "$work/own.got" ||
	fail "REF '1 client=60000': expected '1.00 /1 client' and yes: $(grep '^  16 clients again' "$work/own.got")"

[ "$status" -ne 0 ] || echo "ok: bench/table.awk: ratios, met? and layout from the figures"
[ "$status" -eq 0 ] || cat "$work/got"
exit "$status"
