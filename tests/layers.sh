#!/bin/sh
# The includes follow the layers (doc/design.md), lowest first:
#   0  libumad/base/, libumad/infiniband/  the vocabulary, the backend contract,
#                                          the kernel's receive rules, the control ABI
#   1  simfabric/, pcap/                   the fabric model and its hosting; capture
#   2  backends/                           kernel, sim, replay, loopback
#   3  libumad/                            the API, dispatch, strings, dump
#   4  cli/                                the umad command
# A file includes headers of its own directory or of a lower layer, never of
# a higher one nor of a sibling on its own layer (simfabric and pcap know
# nothing of each other).  Within a directory, no two modules include each
# other, directly or round a longer circle (a module is x.c with x.h, and
# x_internal.h, its private header).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top_srcdir" || exit 1
status=0

layer_of() {
	case "$1" in
	libumad/base/* | libumad/infiniband/*) echo 0 ;;
	simfabric/* | pcap/*) echo 1 ;;
	backends/*) echo 2 ;;
	libumad/*) echo 3 ;;
	cli/*) echo 4 ;;
	*) echo "" ;;
	esac
}

files=$(ls libumad/base/*.[ch] libumad/infiniband/*.h simfabric/*.[ch] pcap/*.[ch] \
	backends/*.[ch] libumad/*.[ch] cli/*.[ch] 2>/dev/null)
[ -n "$files" ] || { echo "FAIL: no sources found under $top_srcdir"; exit 1; }

edges=""
for f in $files; do
	from=$(layer_of "$f")
	dir=${f%/*}
	# "dir/x.h" includes of the project; <infiniband/...> is the public floor.
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case "$inc" in
		*/*) ;;
		*) continue ;;	# config.h and the like
		esac
		to=$(layer_of "$inc")
		[ -n "$to" ] || continue
		idir=${inc%/*}
		if [ "$idir" = "$dir" ]; then
			m=$(basename "$f"); m=${m%.*}; m=${m%_internal}
			i=$(basename "$inc" .h); i=${i%_internal}
			[ "$m" != "$i" ] && edges="$edges $dir/$m $dir/$i"
			continue
		fi
		if [ "$to" -gt "$from" ]; then
			echo "FAIL: $f (layer $from) includes $inc (layer $to): an arrow up"
			status=1
		elif [ "$to" -eq "$from" ]; then
			echo "FAIL: $f includes $inc, a sibling on its own layer ($from)"
			status=1
		fi
	done
done

# tsort names the modules of a circle on stderr.
loops=$(printf '%s\n' $edges | tsort 2>&1 >/dev/null)
if [ -n "$loops" ]; then
	echo "FAIL: modules that include each other round a circle:"
	printf '%s\n' "$loops"
	status=1
fi
[ "$status" -eq 0 ] && echo "PASS: every include follows the layers, and no module circle"
exit "$status"
