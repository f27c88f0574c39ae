#!/bin/sh
# One way to tell why something failed, in the backends, simfabric and the
# capture code (base/errbuf.h; doc/design.md, "Errors"): a function
# that can fail takes a struct umad_err *, and only a boundary prints.
# This looks for the other ways that were there before:
#   - a caller's character buffer for the reason, whatever it is called:
#     char *err, size_t errlen (pcap/ had it), char *why, size_t size
#     (sysfs_writer.c's open_to_others had it), size_t err_size, or a list
#     of them (char **errors);
#   - a reason kept in a static buffer and handed out (static __thread char
#     why[64], as topology.c's quoted_problem has): shared by every caller,
#     overwritten by the next;
#   - a line written to stderr (fprintf, fputs, perror, IBWARN) other than
#     through umad_err_print;
#   - umad_err_print anywhere but at the boundaries named below.
# The kernel backend's IBWARN lines keep rdma-core's libibumad's format and
# way.  Text builders that take a buffer for what they make (a name, a
# value, a path) are no reason and are not looked at.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top_srcdir" || exit 1
status=0

sources=$(ls backends/*.[ch] simfabric/*.[ch] pcap/*.[ch] 2>/dev/null | grep -v '^backends/kernel\.c$')
[ -n "$sources" ] || { echo "FAIL: no sources found under $top_srcdir"; exit 1; }
for need in pcap/pcapng_reader.c backends/replay.c backends/sysfs_writer.c; do
	printf "%s\n" "$sources" | grep -qxF "$need" || { echo "FAIL: $need is not looked at"; status=1; }
done

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
pcap/capture_preload.c:resolve	the LD_PRELOAD shim finds no libibumad below it: it has no caller to tell
pcap/capture_tap.c:start	UMAD_CAPTURE cannot start: the program never asked for a capture, so none of its calls can fail for it
pcap/capture_tap.c:restart_in_child	a forked child'"'"'s capture cannot start (the same)
pcap/capture_tap.c:open_file	the writer thread cannot create the file (nobody to return to)
pcap/capture_tap.c:note_write_error	the writer thread cannot write (nobody to return to; once)
'

# Not yet one way, each FILE:FUNCTION with who changes it and why it waits:
# listed so that the check stays on for everything else, and failing once
# it is fixed (the entry is then stale and goes).
pending='
'

# Every function's name for FILE:FUNCTION: the last word before "(" on a
# line that starts a declaration, taken when its body opens at "{" (a
# signature's own lines count as the function's).
fn_awk='
	/^[a-zA-Z_].*\(/ && !/;[[:space:]]*$/ {
		s = $0; sub(/\(.*/, "", s); n = split(s, w, /[^a-zA-Z0-9_]+/); cand = w[n]
	}
	/^\{/ { fn = cand }
	/^\}/ { fn = "" }
'
# A reason in a caller's buffer or a static one, as FILE:FUNCTION:LINE: TEXT.
# A parameter list broken after "," is read joined to its next line.
buffers=$(awk "$fn_awk"'
	FNR == 1 { held = ""; held_at = 0 }
	/^[[:space:]]*(\/\*|\*)/ { next }
	{
		line = held != "" ? held " " $0 : $0
		at = held != "" ? held_at : FNR
		held = ""
		if (line ~ /,[[:space:]]*$/) { held = line; held_at = at; next }
		here = fn
		if (here == "") {
			# A declaration or a signature: the name before its "(".
			s = line; sub(/\(.*/, "", s); n = split(s, w, /[^a-zA-Z0-9_]+/); here = w[n]
		}
		if (line ~ /(^|[^a-zA-Z0-9_])char[[:space:]]*\*[[:space:]]*err([^a-zA-Z0-9_]|$)/ ||
		    line ~ /(^|[^a-zA-Z0-9_])size_t[[:space:]]+err_size([^a-zA-Z0-9_]|$)/ ||
		    line ~ /(^|[^a-zA-Z0-9_])char[[:space:]]*\*\*[[:space:]]*errors([^a-zA-Z0-9_]|$)/ ||
		    (line ~ /(^|[^a-zA-Z0-9_])char[[:space:]]*\*[[:space:]]*(err|error|errbuf|errmsg|why|reason|msg)[a-zA-Z0-9_]*[[:space:]]*,[[:space:]]*size_t[[:space:]]/ &&
		     line !~ /const[[:space:]]+char[[:space:]]*\*[[:space:]]*(err|error|errbuf|errmsg|why|reason|msg)[a-zA-Z0-9_]*[[:space:]]*,/) ||
		    line ~ /(^|[^a-zA-Z0-9_])static[[:space:]]+((__thread|_Thread_local|thread_local)[[:space:]]+)?char[[:space:]]+(err|error|errbuf|errmsg|why|reason|msg)[a-zA-Z0-9_]*[[:space:]]*\[/ ||
		    line ~ /(^|[^a-zA-Z0-9_])(__thread|_Thread_local|thread_local)[[:space:]]+(static[[:space:]]+)?char[[:space:]]+(err|error|errbuf|errmsg|why|reason|msg)[a-zA-Z0-9_]*[[:space:]]*\[/)
			print FILENAME ":" here ":" at ": " line
	}
' $sources)

# Every line that prints, as FILE:FUNCTION:LINE: TEXT (comments left out).
printing=$(awk "$fn_awk"'
	/^[[:space:]]*(\/\*|\*)/ { next }
	/(^|[^a-zA-Z0-9_])(stderr|perror|IBWARN|umad_err_print)([^a-zA-Z0-9_]|$)/ { print FILENAME ":" fn ":" FNR ": " $0 }
' $sources)

allowed=$(printf "%s\n" "$boundaries" | awk 'NF { print $1 }')
waiting=$(printf "%s\n" "$pending" | awk 'NF { print $1 }')
# The lines of $1 whose FILE:FUNCTION is in none of the lists after it.
unlisted() {
	found=$1
	shift
	printf "%s\n" "$found" | while IFS= read -r line; do
		[ -n "$line" ] || continue
		where=$(printf "%s\n" "$line" | cut -d: -f1,2)
		printf "%s\n" "$@" | grep -qxF "$where" || printf "%s\n" "$line"
	done
}

stray=$(unlisted "$buffers" "$waiting")
if [ -n "$stray" ]; then
	echo "FAIL: a reason told into a caller's buffer or a static one (take a struct umad_err *):"
	printf "%s\n" "$stray"
	status=1
fi
stray=$(unlisted "$printing" "$allowed" "$waiting")
if [ -n "$stray" ]; then
	echo "FAIL: printed below a boundary (leave why in a struct umad_err for the caller):"
	printf "%s\n" "$stray"
	status=1
fi
# A boundary listed here that no longer prints is a list gone stale; so is
# a pending entry that no longer does what it waits to stop doing.
for where in $allowed; do
	printf "%s\n" "$printing" | cut -d: -f1,2 | grep -qxF "$where" ||
		{ echo "FAIL: $where is listed as a boundary but prints nothing"; status=1; }
done
for where in $waiting; do
	printf "%s\n%s\n" "$buffers" "$printing" | cut -d: -f1,2 | grep -qxF "$where" ||
		{ echo "FAIL: $where is listed as pending but is one way now: take it off"; status=1; }
done

[ $status -eq 0 ] && echo "PASS: backends, simfabric and pcap/ tell why one way, printed at their boundaries"
exit $status
