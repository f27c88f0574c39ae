#!/bin/bash
# Replies far longer than a socket's buffer, through `umad fabric serve`,
# reach their clients whole (they used to get the client dropped, or leave
# it waiting for ever):
#  - on a fat tree of 4,176 nodes (scripts/gen-fattree 24 3): `umad fabric
#    show --json` (23 MB) and `umad fabric dump` list every node; saquery's
#    NodeRecords and `saquery -p --slid 1` (the built-in SA, UMAD_SIM_FABRIC)
#    print what the same queries print on the fabric in process;
#  - on 1,344 nodes (gen-fattree 16 3): `saquery -p`, every PathRecord,
#    1,806,336 of them in one RMPP table of 115 MB (past the old 32 MiB
#    limit of a message), prints what it prints in process.
# Skips (77) without saquery.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="saquery"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }

# The servers run until the test ends (tests/procs.sh ends them).
# serve NAME FILE: a server of FILE at $work/NAME/socket, the built-in SM up.
serve() {
	LD_LIBRARY_PATH="$libs" "$umad" fabric serve -t "$2" --socket "$work/$1/socket" \
		--sm builtin > "$work/$1.log" 2>&1 &
	for _ in $(seq 1 600); do
		[ -S "$work/$1/socket" ] && return 0
		sleep 0.1
	done
	fail "$1: the server did not start:"
	sed 's/^/    /' "$work/$1.log"
	return 1
}

# through NAME CMD...: CMD on the fabric served at NAME; in_process FILE CMD...: on FILE in process.
through() {
	local name=$1
	shift
	sim env UMAD_SIM_FABRIC="$work/$name/socket" timeout -k "$UMAD_TEST_GRACE" 120 "$@"
}
in_process() {
	local file=$1
	shift
	UMAD_SIM_SM=builtin sim env UMAD_SIM_TOPOLOGY="$file" timeout -k "$UMAD_TEST_GRACE" 120 "$@"
}

# same WHAT A B: the two outputs are the same, and not empty.
same() {
	if [ ! -s "$2" ]; then
		fail "$1: no output"
	elif ! cmp -s "$2" "$3"; then
		fail "$1: through the server and in process differ: $(wc -c < "$2") and $(wc -c < "$3") bytes"
	fi
}

# --- 4,176 nodes --------------------------------------------------------------------------
"$top_srcdir/scripts/gen-fattree" 24 3 > "$work/big.net"
nodes=$(grep -c -E '^(Switch|Hca)' "$work/big.net")
[ "$nodes" -ge 4000 ] || fail "the fabric has $nodes nodes, not 4,000 or more"
serve big "$work/big.net" || exit 1

if LD_LIBRARY_PATH="$libs" timeout 120 "$umad" fabric --socket "$work/big/socket" show --json \
	> "$work/show.json" 2> "$work/show.err"; then
	if command -v python3 > /dev/null 2>&1; then
		got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["nodes"]), d["summary"]["nodes"])' "$work/show.json" 2>&1)
		[ "$got" = "$nodes $nodes" ] || fail "show --json: nodes and summary '$got', expected $nodes"
	else
		got=$(grep -o '"num_ports"' "$work/show.json" | wc -l)
		[ "$got" -eq "$nodes" ] || fail "show --json: $got nodes, expected $nodes"
	fi
else
	fail "show --json: $(cat "$work/show.err")"
fi

if LD_LIBRARY_PATH="$libs" timeout 120 "$umad" fabric --socket "$work/big/socket" dump \
	> "$work/dump" 2> "$work/dump.err"; then
	got=$(grep -c -E '^(Switch|Ca)	' "$work/dump")
	[ "$got" -eq "$nodes" ] || fail "dump: $got nodes, expected $nodes"
else
	fail "dump: $(cat "$work/dump.err")"
fi

through big saquery > "$work/nr.server" 2> "$work/nr.err" || fail "saquery: $(cat "$work/nr.err")"
in_process "$work/big.net" saquery > "$work/nr.local" 2>&1
same "saquery" "$work/nr.server" "$work/nr.local"
got=$(grep -c '^NodeRecord dump' "$work/nr.server")
[ "$got" -eq "$nodes" ] || fail "saquery: $got NodeRecords, expected $nodes"

through big saquery -p --slid 1 > "$work/pr.server" 2> "$work/pr.err" ||
	fail "saquery -p --slid 1: $(cat "$work/pr.err")"
in_process "$work/big.net" saquery -p --slid 1 > "$work/pr.local" 2>&1
same "saquery -p --slid 1" "$work/pr.server" "$work/pr.local"
got=$(grep -c '^PathRecord dump' "$work/pr.server")
[ "$got" -eq "$nodes" ] || fail "saquery -p --slid 1: $got PathRecords, expected $nodes"

# --- every PathRecord of 1,344 nodes: 115 MB in one table -------------------------------------
"$top_srcdir/scripts/gen-fattree" 16 3 > "$work/mid.net"
nodes=$(grep -c -E '^(Switch|Hca)' "$work/mid.net")
serve mid "$work/mid.net" || exit 1
# Kept as a count and a checksum: the text is a gigabyte.
count_and_sum() {
	awk -v count="$1.count" '/^PathRecord dump/ { n++ } { print } END { print n + 0 > count }' |
		md5sum > "$1.sum"
}
through mid saquery -p 2> "$work/all.err" | count_and_sum "$work/all.server"
in_process "$work/mid.net" saquery -p 2>&1 | count_and_sum "$work/all.local"
got=$(cat "$work/all.server.count")
[ "$got" -eq $((nodes * nodes)) ] ||
	fail "saquery -p: $got PathRecords through the server, expected $((nodes * nodes)): $(cat "$work/all.err")"
[ "$(cat "$work/all.local.count")" -eq $((nodes * nodes)) ] ||
	fail "saquery -p in process: $(cat "$work/all.local.count") PathRecords"
cmp -s "$work/all.server.sum" "$work/all.local.sum" ||
	fail "saquery -p: the output through the server and in process differ"

# The servers said nothing of trouble.
for name in big mid; do
	if grep -v '^umad: fabric serve: serving' "$work/$name.log" | grep -q .; then
		fail "$name: the server complained:"
		sed 's/^/    /' "$work/$name.log"
	fi
done
exit $status
