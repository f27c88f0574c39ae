#!/bin/sh
# One way to tell why something failed, in the backends and simfabric
# (libumad/base/errbuf.h; doc/design.md, "Errors"): a function that can
# fail takes a struct umad_err *, and only a boundary prints.  This looks
# for the other ways that were there before:
#   - a caller's character buffer for the reason (char *err, size_t
#     err_size), or a list of them (char **errors);
#   - a line written to stderr (fprintf, fputs, perror, IBWARN) other than
#     through umad_err_print;
#   - umad_err_print anywhere but at the boundaries named below.
# The kernel backend's IBWARN lines keep rdma-core's libibumad's format and
# way, and the capture code (pcap/) is not looked at here.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top_srcdir" || exit 1
status=0

sources=$(ls backends/*.[ch] simfabric/*.[ch] 2>/dev/null | grep -v '^backends/kernel\.c$')
[ -n "$sources" ] || { echo "FAIL: no sources found under $top_srcdir"; exit 1; }

# Where printing is the thing to do: FILE:FUNCTION, and why.
boundaries='
backends/sim.c:sim_init		the backend starts
backends/sim.c:carry		the program sends (a reason its error cannot carry)
backends/sim.c:ev_node_changed	the fabric changed a node (nobody to return to)
backends/sim.c:control_apply	a libumad-sim fault done, its tree not rewritten
backends/soft_port.c:resender_start	the resending thread cannot start (once; sends go on, unresent)
backends/sim_local.c:local_send	the once-a-process hint, after the lock is let go
backends/sim_remote.c:events_main	the server went away (seen by the events thread)
backends/replay.c:replay_init	the backend starts
backends/replay.c:replay_fini	the requests never answered, at the end
backends/replay.c:answer	a capture changed under the backend, once the lock is let go
simfabric/fabric_server.c:complain	the server'"'"'s log (stderr without one)
'

found=$(grep -nE '(\bchar[[:space:]]*\*[[:space:]]*err\b|\bsize_t[[:space:]]+err_size\b|\bchar[[:space:]]*\*\*[[:space:]]*errors\b)' \
	$sources)
if [ -n "$found" ]; then
	echo "FAIL: a reason told into a caller's buffer (take a struct umad_err *):"
	printf "%s\n" "$found"
	status=1
fi

# Every line that prints, as FILE:FUNCTION:LINE: TEXT (comments left out).
printing=$(awk '
	/^[a-zA-Z_].*\(/ && !/;[[:space:]]*$/ {
		s = $0; sub(/\(.*/, "", s); n = split(s, w, /[^a-zA-Z0-9_]+/); cand = w[n]
	}
	/^\{/ { fn = cand }
	/^[[:space:]]*(\/\*|\*)/ { next }
	/(^|[^a-zA-Z0-9_])(stderr|perror|IBWARN|umad_err_print)([^a-zA-Z0-9_]|$)/ { print FILENAME ":" fn ":" FNR ": " $0 }
' $sources)
allowed=$(printf "%s\n" "$boundaries" | awk 'NF { print $1 }')
stray=$(printf "%s\n" "$printing" | while IFS= read -r line; do
	[ -n "$line" ] || continue
	where=$(printf "%s\n" "$line" | cut -d: -f1,2)
	printf "%s\n" "$allowed" | grep -qxF "$where" || printf "%s\n" "$line"
done)
if [ -n "$stray" ]; then
	echo "FAIL: printed below a boundary (leave why in a struct umad_err for the caller):"
	printf "%s\n" "$stray"
	status=1
fi
# A boundary listed here that no longer prints is a list gone stale.
for where in $allowed; do
	printf "%s\n" "$printing" | cut -d: -f1,2 | grep -qxF "$where" ||
		{ echo "FAIL: $where is listed as a boundary but prints nothing"; status=1; }
done

[ $status -eq 0 ] && echo "PASS: backends and simfabric tell why one way, printed at their boundaries"
exit $status
