#!/bin/bash
# The umad command against what its usage and umad(1) say:
#  - every option umad sim and umad fabric serve take is in the usage's
#    line for that command and in umad(1)'s SYNOPSIS for it;
#  - dot takes a NODE, as show does, in the usage and the SYNOPSIS;
#  - a fabric command line that does not parse prints "usage:" and exits 2;
#  - numbers are decimal (a leading zero is not octal), a seed also 0x hex;
#  - a fault is written as a scenario line's command (seed=N, a delay with
#    a unit) and refused with the parser's message, exit status 2;
#  - a traffic counter (PortXmitData) is refused as one, and every error
#    counter umad --help lists is one the fabric raises;
#  - umad sim at a node the fabric lacks (--host, UMAD_SIM_HOST) says so,
#    naming the fabric, and does not run COMMAND;
#  - fabric serve stops on SIGHUP as on SIGTERM, with status 0;
#  - the man pages render without a warning (when groff is installed).
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="timeout"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
man1=$top_srcdir/doc/umad.1
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
export LD_LIBRARY_PATH=$libs UMAD_MODULE_DIR=$libs

"$umad" --help > "$work/usage" 2> "$work/err" || fail "umad --help: exit $?"
[ -s "$work/err" ] && fail "umad --help wrote to stderr: $(cat "$work/err")"

# The usage's lines for a command: from its "umad CMD" line to the next "umad" line.
usage_of() {
	awk -v cmd="umad $1 " '
		/^ *(usage: )?umad / { on = index($0, cmd) > 0 }
		/^$/ { on = 0 }
		on' "$work/usage"
}
# umad(1)'s SYNOPSIS entry for a command: from ".B umad CMD" to the next ".br".
synopsis_of() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man1" |
		awk -v cmd=".B umad $1" '$0 == cmd { on = 1 } on && /^\.br$/ { on = 0 } on' |
		sed 's/\\-/-/g'
}

printf 'Switch 2 "S1"\n[1] "H1"[1]\n\nHca 1 "H1"\n[1] "S1"[1]\n' > "$work/small.net"
mkdir -m 700 "$work/run"
# Every option each command takes: it runs with it, and both texts name it.
for option in -t --topology --socket --host --sm --private --keep-state; do
	case $option in
	-t|--topology) args=("$option" "$work/small.net") ;;
	--socket) args=(--socket "$work/run/s-sim") ;;
	--host) args=(--host H1 -t "$work/small.net") ;;
	--sm) args=(--sm none) ;;
	--private) args=(--private) ;;
	--keep-state) args=(--keep-state) ;;
	esac
	# What --keep-state keeps goes in $work/run, not the user's runtime directory.
	XDG_RUNTIME_DIR=$work/run timeout 60 "$umad" sim "${args[@]}" -- true > "$work/out" 2>&1 ||
		fail "umad sim ${args[*]}: exit $?: $(cat "$work/out")"
	if [ "$option" = --topology ]; then	# -t's long name, told in the DESCRIPTION
		grep -q -- '^\.BR \\-\\-topology ,$' "$man1" || fail "umad(1) does not name --topology"
		continue
	fi
	usage_of sim | grep -q -- "\[$option[] ]" ||
		fail "the usage of umad sim does not name $option: $(usage_of sim)"
	synopsis_of sim | grep -Eq -- "^\.RB \[ $option( \])?\$" ||
		fail "umad(1)'s SYNOPSIS of umad sim does not name $option"
done
for option in -t --socket --sm --private; do
	usage_of "fabric serve" | grep -q -- "\[$option[] ]" ||
		fail "the usage of umad fabric serve does not name $option"
	synopsis_of "fabric serve" | grep -Eq -- "^\.RB \[ $option( \])?\$" ||
		fail "umad(1)'s SYNOPSIS of umad fabric serve does not name $option"
done
"$umad" fabric serve --host H1 > "$work/out" 2>&1
[ $? = 2 ] || fail "umad fabric serve --host: not a usage error: $(cat "$work/out")"
usage_of fabric | grep -q "dot \[NODE\]" || fail "the usage has no 'dot [NODE]': $(usage_of fabric)"
sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man1" | grep -q 'dot " \[\\fINODE\\fP\]' ||
	fail "umad(1)'s SYNOPSIS has no dot [NODE]"

"$umad" fabric bogus > "$work/out" 2>&1
rc=$?
[ $rc = 2 ] || fail "umad fabric bogus: exit $rc, not 2"
grep -q '^usage: umad fabric serve ' "$work/out" || fail "umad fabric bogus: no usage: $(cat "$work/out")"

# Numbers against a running fabric: Switch1 has 8 ports, so port 010 is 10, none.
socket=$work/run/s
"$umad" fabric serve --socket "$socket" 2> "$work/serve.err" &
server=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
f() { timeout 30 "$umad" fabric --socket "$socket" "$@"; }
f link down Switch1 010 > "$work/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "link down Switch1 010: exit $rc, not 1 (port 10 is none): $(cat "$work/out")"
f show Switch1 | grep -q '^  \[8\] Active/' || fail "port 010 took port 8 down: $(f show Switch1)"
f trap Switch1 0 0x80 > "$work/out" 2>&1
rc=$?
[ $rc = 2 ] || fail "trap Switch1 0 0x80: exit $rc, not 2 (a trap number is decimal)"
f drop Switch1 1 0.5 0x10 > "$work/out" 2>&1 || fail "drop with a 0x seed: exit $?: $(cat "$work/out")"
f drop Switch1 1 0 > "$work/out" 2>&1 || fail "drop 0: exit $?: $(cat "$work/out")"
# A fault is a scenario line's command: its spellings, and the parser's messages.
f drop Switch1 1 0.5 seed=7 > "$work/out" 2>&1 || fail "drop with seed=7: exit $?: $(cat "$work/out")"
f delay Switch1 1 3ms > "$work/out" 2>&1 || fail "delay 3ms: exit $?: $(cat "$work/out")"
f delay Switch1 1 0 > "$work/out" 2>&1 || fail "delay 0: exit $?: $(cat "$work/out")"
f drop Switch1 1 0 > "$work/out" 2>&1 || fail "drop 0: exit $?: $(cat "$work/out")"
f drop Switch1 1 1.5 > "$work/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -qx 'umad: fabric drop: rate 1.5 out of range 0..1' "$work/out" ||
	fail "drop rate 1.5: exit $rc: $(cat "$work/out")"
f link down Switch1 > "$work/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -qx 'umad: fabric link: missing arguments (link up|down NODE PORT)' "$work/out" ||
	fail "link down without a port: exit $rc: $(cat "$work/out")"
f counter Hca1 1 PortXmitData 5 > "$work/out" 2>&1
rc=$?
want="umad: fabric counter: PortXmitData counts the traffic through the port, and cannot be raised:"
want="$want COUNTER is an error counter, e.g. SymbolErrorCounter (umad --help lists them)"
[ $rc = 2 ] && grep -qxF "$want" "$work/out" || fail "counter PortXmitData: exit $rc: $(cat "$work/out")"
f counter Hca1 1 Bogus 5 > "$work/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q '^umad: fabric counter: unknown counter "Bogus": COUNTER is an error counter' \
	"$work/out" || fail "counter Bogus: exit $rc: $(cat "$work/out")"
# The list umad --help gives: every name on it raises that counter, and no traffic counter is on it.
sed -n '/^ *COUNTER: an error counter/,/^  [a-z]/p' "$work/usage" | sed '1d;$d' | tr -s ' ,' '\n\n' |
	grep -v '^$' > "$work/counters"
[ "$(wc -l < "$work/counters")" -ge 14 ] || fail "umad --help lists no error counters: $(cat "$work/usage")"
grep -E 'Data|Pkts' "$work/counters" && fail "umad --help lists traffic counters as error counters"
while read -r counter; do
	f counter Hca1 1 "$counter" 1 > "$work/out" 2>&1 ||
		fail "counter $counter (umad --help lists it): exit $?: $(cat "$work/out")"
done < "$work/counters"
f dot Hca1 > "$work/dot" || fail "dot Hca1: exit $?"
grep -q '"Switch1' "$work/dot" && ! grep -q '"Hca3' "$work/dot" ||
	fail "dot Hca1 is not Hca1 and its neighbour: $(cat "$work/dot")"
kill -HUP $server
wait $server
rc=$?
[ $rc = 0 ] || fail "fabric serve after SIGHUP: exit $rc: $(cat "$work/serve.err")"

# umad sim at a node the fabric lacks: said before COMMAND runs, naming the fabric.
for how in "--host Nope" "UMAD_SIM_HOST=H1,Nope"; do
	case $how in
	--host*) timeout 60 "$umad" sim --host Nope -t "$work/small.net" -- touch "$work/ran" \
			> "$work/out" 2>&1 ;;
	*) UMAD_SIM_HOST=H1,Nope timeout 60 "$umad" sim -t "$work/small.net" -- touch "$work/ran" \
			> "$work/out" 2>&1 ;;
	esac
	rc=$?
	want="umad: sim: $how: 'Nope' names no node of $work/small.net"
	[ $rc = 1 ] && grep -qxF "$want" "$work/out" || fail "umad sim $how: exit $rc: $(cat "$work/out")"
	[ -e "$work/ran" ] && fail "umad sim $how ran COMMAND"
	rm -f "$work/ran"
done

if command -v groff > /dev/null 2>&1; then
	for page in "$top_srcdir/doc/umad.1" "$top_srcdir/doc/libumad.7"; do
		groff -man -ww -z "$page" > "$work/out" 2>&1 || fail "groff $page: exit $?"
		[ -s "$work/out" ] && fail "groff warns about $page: $(cat "$work/out")"
	done
else
	echo "SKIP (part): groff not installed: the man pages are not checked"
fi
exit $status
