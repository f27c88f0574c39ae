#!/bin/sh
# The includes follow the layers (doc/design.md), lowest first:
#   0  include/infiniband/  the public headers, as an install puts them
#   1  base/                the ground floor: wire vocabulary, field layouts,
#                           backend contract, error type, MAD rules, control ABI
#   2  simfabric/, pcap/    the fabric model and its hosting; capture
#   3  backends/            kernel, sim, replay, loopback
#   4  libumad/             the API, dispatch, strings, dump
#   5  cli/                 the umad command
# Every include is resolved as the compiler does (the including file's own
# folder, then -I$(top_srcdir), then -I$(top_srcdir)/include), bare names and
# <infiniband/...> alike.  A file includes headers of its own folder or of a
# lower layer, never of a higher one nor of a sibling on its own layer
# (simfabric and pcap know nothing of each other), and no modules include
# each other round a circle (a module is x.c with x.h, and x_internal.h, its
# private header).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top_srcdir" || exit 1
status=0

layer_of() {
	case "$1" in
	include/infiniband/*) echo 0 ;;
	base/*) echo 1 ;;
	simfabric/* | pcap/*) echo 2 ;;
	backends/*) echo 3 ;;
	libumad/*) echo 4 ;;
	cli/*) echo 5 ;;
	*) echo "" ;;
	esac
}

module_of() {
	m=${1%.*}
	echo "${m%_internal}"
}

files=$(ls base/*.[ch] include/infiniband/*.h simfabric/*.[ch] pcap/*.[ch] \
	backends/*.[ch] libumad/*.[ch] cli/*.[ch] 2>/dev/null)
[ -n "$files" ] || { echo "FAIL: no sources found under $top_srcdir"; exit 1; }

edges=""
checked=0
for f in $files; do
	from=$(layer_of "$f")
	dir=${f%/*}
	# One line per include: q NAME for "NAME", a NAME for <NAME>.
	includes=$(sed -n -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/q \1/p' \
		-e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/a \1/p' "$f")
	set -- $includes
	while [ $# -ge 2 ]; do
		kind=$1 inc=$2
		shift 2
		[ "$inc" = config.h ] && continue	# configure's, in every layer
		to_file=""
		if [ "$kind" = q ] && [ -f "$dir/$inc" ]; then
			to_file=$dir/$inc
		elif [ "$kind" = q ] && [ -f "$inc" ]; then
			to_file=$inc
		elif [ -f "include/$inc" ]; then
			to_file=include/$inc
		fi
		[ -n "$to_file" ] || continue	# the system's headers
		to_file=$(realpath -m --relative-to=. "$to_file")
		to=$(layer_of "$to_file")
		if [ -z "$to" ]; then
			echo "FAIL: $f includes $inc ($to_file), which is in no layer"
			status=1
			continue
		fi
		checked=$((checked + 1))
		if [ "${to_file%/*}" = "$dir" ]; then
			m=$(module_of "$f"); i=$(module_of "$to_file")
			[ "$m" != "$i" ] && edges="$edges $m $i"
			continue
		fi
		if [ "$to" -gt "$from" ]; then
			echo "FAIL: $f (layer $from) includes $inc, $to_file (layer $to): an arrow up"
			status=1
		elif [ "$to" -eq "$from" ]; then
			echo "FAIL: $f includes $inc, $to_file: a sibling on its own layer ($from)"
			status=1
		fi
		m=$(module_of "$f"); i=$(module_of "$to_file")
		edges="$edges $m $i"
	done
done

# tsort names the modules of a circle on stderr.
loops=$(printf '%s\n' $edges | tsort 2>&1 >/dev/null)
if [ -n "$loops" ]; then
	echo "FAIL: modules that include each other round a circle:"
	printf '%s\n' "$loops"
	status=1
fi
[ "$status" -eq 0 ] && echo "PASS: all $checked includes of the project follow the layers, and no module circle"
exit "$status"
