#!/bin/sh
# No function of the library, its backends, the simulator, the capture code or
# the command is longer than MAX lines (120): a longer one does more than one
# thing.  The code's style puts a function's opening brace alone at the start
# of a line and its closing one at the start of another, so a body is what
# lies between; a definition that opens its body elsewhere would slip past
# the count, and is refused as well.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top_srcdir" || exit 1
max=${MAX:-120}
files=$(ls base/*.[ch] include/infiniband/*.h simfabric/*.[ch] pcap/*.[ch] \
	backends/*.[ch] libumad/*.[ch] cli/*.[ch] 2>/dev/null)
[ -n "$files" ] || { echo "FAIL: no sources found under $top_srcdir"; exit 1; }

# shellcheck disable=SC2086
report=$(awk -v max="$max" '
	FNR == 1 { if (start) print "FAIL: " prevfile ":" start ": a body that never closes"; start = 0 }
	{ prevfile = FILENAME }
	/^[A-Za-z_].*\)[[:space:]]*\{[[:space:]]*$/ && !/^(struct|union|enum)[[:space:]]/ {
		print "FAIL: " FILENAME ":" FNR ": a function whose body opens at the end of its line (not counted): " $0
	}
	/^\{/ { start = FNR; name = header; bodies++; next }
	/^\}/ && start {
		n = FNR - start - 1
		if (n > max) print "FAIL: " FILENAME ":" start ": " n " lines, over " max ": " name
		if (n > longest) { longest = n; where = FILENAME ":" start }
		start = 0
	}
	/^[A-Za-z_].*\(/ { header = $0 }
	END { print "bodies " bodies " longest " longest " at " where }
' $files)
echo "$report" | grep '^FAIL' && exit 1
set -- $(echo "$report" | tail -n 1)
[ "${2:-0}" -gt 0 ] || { echo "FAIL: no function bodies found: the count is broken"; exit 1; }
echo "PASS: $2 functions, none over $max lines (the longest, $4 lines, at $6)"
