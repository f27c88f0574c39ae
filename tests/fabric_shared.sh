#!/bin/bash
# One fabric for many processes (umad sim, umad fabric serve), with Debian's
# unmodified opensm and infiniband-diags, each in its own process:
#  - UMAD_SIM_SM=none: opensm in the background reaches SUBNET UP; sminfo
#    (answered by opensm), saquery (opensm's SA), perfquery, ibroute,
#    ibtracert, ibqueryerrors and iblinkinfo from other processes see what it
#    set; ibping -S in one process answers ibping in another;
#  - `umad fabric link down` of an inter-switch link: opensm receives Trap
#    128, sweeps again, and ibtracert shows the new route;
#  - the built-in SM: the same tools without opensm; then opensm starts in
#    another process and becomes master;
#  - a client killed with SIGKILL leaks no agent: a new ibping -S registers;
#  - 64 client processes at once; a fault naming nothing fails with a message;
#  - umad sim exits with COMMAND's status; a second server on a live socket
#    is refused, and so is a regular file or a link at the socket's path;
#    attaching to a stopped server gives up with a message (umad fabric
#    show, ibstat);
#  - (as root, with setpriv and python3) a server of user nobody is refused
#    by root's clients: in nobody's directory by its owner, relayed through
#    a socket of root's by the peer's credentials; nobody's server refuses
#    root's process; a default /tmp/umad-fabric-UID another user made first
#    is refused by that UID's server and clients.
# Skips (77) without opensm or infiniband-diags.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm sminfo saquery perfquery ibroute ibtracert ibqueryerrors iblinkinfo ibping ibstat
smpquery ibnetdiscover"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }

# The scripts run inside `umad sim` see these; opensm keeps the LIDs it
# gave in a cache of the test's own, not in one other fabrics wrote.
export WORK=$work UMAD=$umad OSM_CACHE_DIR=$work/cache

# expect NAME FILE REGEX: FILE must have a line matching REGEX.
expect() {
	grep -q -- "$3" "$2" || { fail "$1: no line matching '$3' in:"; sed 's/^/    /' "$2" | head -30; }
}

# inside SCRIPT: run a bash script under `umad sim` on the default fabric; its output in $work/out.
inside() {
	sim timeout 300 "$umad" sim -- bash -c "$1" > "$work/out" 2>&1
}

# What the scripts share: start opensm (tests/opensm_session.sh), and report.
cat > "$work/lib.sh" <<'EOF'
set -u
say() { echo "$*"; }
. "$OPENSM_SESSION"
EOF

# --- an SM in one process, diags in others (UMAD_SIM_SM=none) ----------------------------
UMAD_SIM_SM=none inside '
. "$WORK/lib.sh"
start_opensm || exit 1
sminfo | sed "s/^/sminfo: /"
saquery | grep -c "^NodeRecord" | sed "s/^/noderecords: /"
saquery -s | grep -c "base_lid" | sed "s/^/isSM-records: /"
perfquery | grep "PortXmitPkts" | sed "s/^/perfquery: /"
# By GUID: which LIDs opensm gives depends on the order it found the ports in.
ibroute -G 0x200000 | sed "s/^/ibroute: /"
ibtracert -G 0x100001 0x100007 | sed "s/^/tracert1: /"
ibqueryerrors > "$WORK/qe" 2>&1; echo "ibqueryerrors status $?"
iblinkinfo | sed "s/^/iblinkinfo: /"
# ibping: the server at Hca3, the client at Hca1 (where opensm is too).
UMAD_SIM_HOST=Hca3 ibping -S & server=$!
sleep 0.5
ibping -c 3 -G 0x100007 | sed "s/^/ibping: /"
end_procs $server
# A link between the switches goes down: opensm gets Trap 128 and routes around it.
"$UMAD" fabric link down Switch1 7 && echo "link down: done"
for _ in $(seq 1 100); do
	ibtracert -G 0x100001 0x100007 2>/dev/null | grep -q "^\[8\]" && break
	sleep 0.1
done
ibtracert -G 0x100001 0x100007 | sed "s/^/tracert2: /"
grep "num:128" "$WORK/osm.log" | head -1 | sed "s/^/trap: /"
exit 7
'
status_sim=$?
[ "$status_sim" -eq 7 ] || fail "umad sim: exit status $status_sim, COMMAND exited with 7"
expect "sminfo (opensm's)" "$work/out" "^sminfo: sminfo: sm lid [0-9]* sm guid 0x100001, .*SMINFO_MASTER"
expect "saquery (opensm's SA)" "$work/out" "^noderecords: 6$"
expect "saquery -s" "$work/out" "^isSM-records: [1-9]"
expect "perfquery" "$work/out" "^perfquery: PortXmitPkts:\.*[1-9]"
expect "ibroute" "$work/out" "^ibroute: Unicast lids"
expect "ibtracert" "$work/out" "^tracert1: To ca .*Hca3"
expect "ibqueryerrors" "$work/out" "^ibqueryerrors status 0"
expect "iblinkinfo" "$work/out" "^iblinkinfo: .*Active"
expect "ibping across processes" "$work/out" "^ibping: 3 packets transmitted, 3 received"
expect "umad fabric link down" "$work/out" "^link down: done"
expect "opensm received Trap 128" "$work/out" "^trap: .*num:128"
expect "ibtracert after the reroute" "$work/out" "^tracert2: \[8\] -> switch port"
grep -q "^tracert1: \[7\] -> switch port" "$work/out" ||
	fail "ibtracert before the link went down: expected the route through port 7"

# --- the built-in SM, then opensm taking over -------------------------------------------
UMAD_SIM_SM=builtin inside '
. "$WORK/lib.sh"
sminfo | sed "s/^/sminfo: /"
saquery | grep -c "^NodeRecord" | sed "s/^/noderecords: /"
perfquery -x 1 1 | grep "PortXmitData" | sed "s/^/perfquery: /"
UMAD_SIM_HOST=Hca4 ibping -S & server=$!
sleep 0.5
ibping -c 2 -G 0x10000a | sed "s/^/ibping: /"
# Killed mid-life, it must leak nothing: the next server registers the same agent.
kill -9 $server
wait $server 2>/dev/null
UMAD_SIM_HOST=Hca4 ibping -S & server=$!
sleep 0.5
ibping -c 2 -G 0x10000a | sed "s/^/ibping-after-kill: /"
end_procs $server
# 64 processes at once.
for i in $(seq 1 64); do
	smpquery -D nodeinfo 0,1 > "$WORK/c$i" 2>&1 &
done
wait
ok=0
for i in $(seq 1 64); do grep -q "^PortGuid" "$WORK/c$i" && ok=$((ok + 1)); done
echo "concurrent: $ok of 64"
"$UMAD" fabric link down NoSuchNode 1 2>&1 | sed "s/^/bad-node: /"
start_opensm || exit 1
grep -q "Entering MASTER state" "$WORK/osm.log" && echo "opensm: master"
sminfo | sed "s/^/sminfo2: /"
'
[ $? -eq 0 ] || fail "umad sim (built-in SM): exit status not 0"
expect "sminfo (built-in SM)" "$work/out" "^sminfo: sminfo: sm lid [1-9].*SMINFO_MASTER"
expect "saquery (built-in SA)" "$work/out" "^noderecords: 6$"
expect "perfquery -x by LID" "$work/out" "^perfquery: PortXmitData:\.*[1-9]"
expect "ibping across processes" "$work/out" "^ibping: 2 packets transmitted, 2 received"
expect "ibping -S after a client was killed" "$work/out" \
	"^ibping-after-kill: 2 packets transmitted, 2 received"
expect "64 concurrent clients" "$work/out" "^concurrent: 64 of 64"
expect "a fault naming no node" "$work/out" "^bad-node: umad: fabric link: 'NoSuchNode' names no node"
expect "opensm after the built-in SM" "$work/out" "^opensm: master"
expect "sminfo (opensm after the built-in SM)" "$work/out" "^sminfo2: .*SMINFO_MASTER"

# --- umad fabric serve: one server per socket, and no one else's processes -------------
sock=$work/serve/socket
env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs" "$umad" fabric serve --socket "$sock" \
	2> "$work/serve.err" &
server=$!
for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.05; done
if ! sim "$umad" fabric serve --socket "$sock" 2> "$work/second.err"; then
	expect "a second server on a live socket" "$work/second.err" "already served at"
else
	fail "a second server on a live socket started"
fi
UMAD_SIM_FABRIC=$sock sim smpquery -D nodeinfo 0 > "$work/q" 2>&1
expect "a client of umad fabric serve" "$work/q" "^PortGuid"
# The same through the server, and a choice that is neither.
UMAD_SIM_FABRIC=$sock UMAD_SIM_FABRIC_SMP=server sim smpquery -D nodeinfo 0 > "$work/q" 2>&1
expect "a client sending its SMPs to the server" "$work/q" "^PortGuid"
if UMAD_SIM_FABRIC=$sock UMAD_SIM_FABRIC_SMP=both sim smpquery -D nodeinfo 0 > "$work/q" 2>&1; then
	fail "UMAD_SIM_FABRIC_SMP=both was taken"
fi
expect "UMAD_SIM_FABRIC_SMP=both" "$work/q" "UMAD_SIM_FABRIC_SMP=both: 'local' or 'server'"
# Empty is unset, as for the other variables: the default, local.
UMAD_SIM_FABRIC=$sock UMAD_SIM_FABRIC_SMP= sim smpquery -D nodeinfo 0 > "$work/q" 2>&1
expect "UMAD_SIM_FABRIC_SMP empty" "$work/q" "^PortGuid"
# A stopped server: attaching gives up within the attach timeout (5 s), with a message.
kill -STOP "$server"
start=$(date +%s)
UMAD_SIM_FABRIC=$sock sim timeout 30 ibstat > "$work/stopped.ibstat" 2>&1 &
stopped_ibstat=$!
timeout 30 "$umad" fabric --socket "$sock" show > "$work/stopped.show" 2>&1 &&
	fail "umad fabric show on a stopped server succeeded"
wait "$stopped_ibstat" && fail "ibstat on a stopped server succeeded"
took=$(( $(date +%s) - start ))
[ "$took" -lt 15 ] || fail "attaching to a stopped server took $took s, more than the 5 s timeout"
expect "umad fabric show on a stopped server" "$work/stopped.show" \
	"umad: fabric: the fabric at $sock does not answer within 5000 ms (its server stopped?)"
expect "ibstat on a stopped server" "$work/stopped.ibstat" \
	"libumad: sim: UMAD_SIM_FABRIC: the fabric at $sock does not answer within 5000 ms"
kill -CONT "$server"
end_procs "$server"
[ ! -e "$sock" ] || fail "umad fabric serve left its socket behind"
UMAD_SIM_FABRIC=$sock sim smpquery -D nodeinfo 0 > "$work/q" 2>&1 &&
	fail "a client found a fabric after its server stopped"
expect "a client without its server" "$work/q" "cannot connect to the fabric"

# A file where the socket would go is refused and left as it was; so is a symbolic link.
mkdir -m 0700 "$work/notsock"
echo "keep me" > "$work/notsock/socket"
if sim timeout 20 "$umad" fabric serve --socket "$work/notsock/socket" 2> "$work/notsock.err"; then
	fail "umad fabric serve took the place of a regular file"
fi
expect "serve --socket on a regular file" "$work/notsock.err" "is not a socket: refused"
grep -qx "keep me" "$work/notsock/socket" ||
	fail "umad fabric serve --socket FILE changed or removed FILE"
rm "$work/notsock/socket"
ln -s "$work/notsock/target" "$work/notsock/socket"
echo "keep me" > "$work/notsock/target"
sim timeout 20 "$umad" fabric serve --socket "$work/notsock/socket" 2> "$work/notsock.err" &&
	fail "umad fabric serve took the place of a symbolic link"
[ -L "$work/notsock/socket" ] && grep -qx "keep me" "$work/notsock/target" ||
	fail "umad fabric serve --socket LINK changed the link or what it leads to"

# A fabric the built-in SM cannot bring up (one HCA, no link): served as it
# powers up, and the owner is told why, as the in-process backend tells it.
printf 'Hca 1 "Lonely"\n' > "$work/lonely.net"
sim "$umad" sim --sm builtin -t "$work/lonely.net" -- true > "$work/q" 2>&1 ||
	fail "umad sim on a fabric the built-in SM cannot bring up"
expect "a fabric the built-in SM cannot bring up" "$work/q" \
	"the built-in SM cannot bring the fabric up, so it stays as it powers up: no port for the built-in SM"

# --private: the fabric in the server's memory alone; its clients are answered all the same.
sim "$umad" sim --private -- smpquery -D nodeinfo 0 > "$work/q" 2>&1
expect "a client of umad sim --private" "$work/q" "^PortGuid"

# --- another user's server ---------------------------------------------------------------
# Run as root: user nobody serves a fabric, in a directory of nobody's, and
# relays connections to it from a socket anyone may reach.  root's clients
# must refuse it before they send or map anything: by the directory's owner,
# and, where the socket and its directory are root's but the process behind
# it is nobody's, by the peer's credentials (SO_PEERCRED).
# A prefix, not a function: "${as_nobody[@]}" CMD & leaves $! the process of CMD itself.
as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups
	env LD_LIBRARY_PATH="$libs" UMAD_MODULE_DIR="$libs")
# What runs as nobody in the background is ended however this script ends
# (tests/procs.sh finds it by its environment); so is its directory removed.
cred=
at_exit 'rm -rf "$cred"'
# nobody_server: a fabric served by nobody at $cred/d/socket, in a new
# directory nobody owns ($cred); $server is its process.
nobody_server() {
	cred=$(mktemp -d /tmp/umad-cred.XXXXXX)
	chown 65534:65534 "$cred"
	"${as_nobody[@]}" "$umad" fabric serve --socket "$cred/d/socket" 2> "$work/cred.err" &
	server=$!
	for _ in $(seq 1 100); do [ -S "$cred/d/socket" ] && break; sleep 0.05; done
}
# A python3 that nobody can run (root's own may live where nobody cannot go).
relay_python=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	for py in /usr/bin/python3 "$(command -v python3)"; do
		if [ -x "$py" ] && "${as_nobody[@]}" "$py" -c 'import array, socket, threading' 2>/dev/null; then
			relay_python=$py
			break
		fi
	done
fi
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "note: the checks against another user's server need root and setpriv; not run"
elif [ -z "$relay_python" ]; then
	echo "note: the relay of another user's server needs python3; those checks not run"
else
	nobody_server
	[ -S "$cred/d/socket" ] || fail "nobody's server did not start: $(cat "$work/cred.err")"
	# The relay: accepts anyone, passes datagrams and descriptors both ways.
	cat > "$cred/relay.py" <<'RELAY'
import array, os, socket, sys, threading
listen_at, target = sys.argv[1], sys.argv[2]
server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
server.bind(listen_at)
os.chmod(listen_at, 0o777)
server.listen(8)
def pump(src, dst):
    while True:
        try:
            data, anc, flags, _ = src.recvmsg(65536, socket.CMSG_SPACE(16))
        except OSError:
            break
        fds = array.array("i")
        for level, kind, raw in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(raw[:len(raw) - len(raw) % fds.itemsize])
        if not data and not fds:
            break
        try:
            dst.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)] if fds else [])
        except OSError:
            break
        for fd in fds:
            os.close(fd)
    for end in (src, dst):
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
while True:
    client, _ = server.accept()
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    upstream.connect(target)
    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
RELAY
	chmod 0644 "$cred/relay.py"
	"${as_nobody[@]}" "$relay_python" "$cred/relay.py" "$cred/relay" "$cred/d/socket" \
		2> "$work/relay.err" &
	relay=$!
	for _ in $(seq 1 100); do [ -S "$cred/relay" ] && break; sleep 0.05; done
	[ -S "$cred/relay" ] || fail "the relay did not start: $(cat "$work/relay.err")"

	# The socket in nobody's directory: refused by the directory's owner.
	UMAD_SIM_FABRIC=$cred/relay sim smpquery -D nodeinfo 0 > "$work/q" 2>&1 &&
		fail "root's client joined a fabric in a directory of nobody's"
	expect "a socket in another user's directory" "$work/q" \
		"$cred, the directory of $cred/relay, belongs to user 65534 (nobody), not to this one (0 (root)): refused"

	# The same socket moved into a directory of root's and given to root: only
	# the process behind it is nobody's, and SO_PEERCRED refuses it.
	mkdir -m 0700 "$work/root-dir"
	mv "$cred/relay" "$work/root-dir/socket"
	chown 0:0 "$work/root-dir/socket"
	UMAD_SIM_FABRIC=$work/root-dir/socket sim smpquery -D nodeinfo 0 > "$work/q" 2>&1 &&
		fail "root's client joined a fabric served by nobody (through a relay)"
	expect "a server of another user (SO_PEERCRED)" "$work/q" \
		"the fabric at $work/root-dir/socket is served by user 65534 (nobody) (process [0-9]*), not by this one (0 (root)): refused"
	"$umad" fabric --socket "$work/root-dir/socket" show > "$work/q" 2>&1 &&
		fail "umad fabric show showed a fabric served by nobody"
	expect "umad fabric show, a server of another user" "$work/q" \
		"is served by user 65534 (nobody)"
	end_procs "$relay"

	# Without the relay, nobody's server refuses root's process in turn.
	cat > "$work/knock.py" <<'KNOCK'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
print(s.recv(4096)[12:].decode(errors="replace"))
KNOCK
	"$relay_python" "$work/knock.py" "$cred/d/socket" > "$work/q" 2>&1
	expect "the server refuses another user's process" "$work/q" \
		"serves its owner's processes only"
	end_procs "$server"
	rm -rf "$cred"

	# The default socket without XDG_RUNTIME_DIR, /tmp/umad-fabric-UID, made
	# first by nobody (open to all, a link to nobody's server in it): user
	# 65533's server and clients refuse it.
	victim=/tmp/umad-fabric-65533
	rm -rf "$victim"
	mkdir -m 0755 "$victim"
	chown 65534:65534 "$victim"
	as_victim() {
		setpriv --reuid=65533 --regid=65533 --clear-groups \
			env -u XDG_RUNTIME_DIR -u UMAD_SIM_FABRIC LD_LIBRARY_PATH="$libs" \
			UMAD_MODULE_DIR="$libs" "$@"
	}
	as_victim timeout -k "$UMAD_TEST_GRACE" 20 "$umad" fabric serve > "$work/q" 2>&1 &&
		fail "a server started in a default directory another user made"
	expect "serve in another user's default directory" "$work/q" \
		"$victim, the directory of $victim/socket, belongs to user 65534 (nobody), not to this one (65533): refused"
	nobody_server
	"${as_nobody[@]}" chmod 0777 "$cred/d/socket"
	"${as_nobody[@]}" ln "$cred/d/socket" "$victim/socket" ||
		fail "nobody could not plant its socket"
	as_victim timeout -k "$UMAD_TEST_GRACE" 20 "$umad" fabric show > "$work/q" 2>&1 &&
		fail "a client used a default socket in a directory another user made"
	expect "a client of another user's default directory" "$work/q" \
		"$victim, the directory of $victim/socket, belongs to user 65534 (nobody), not to this one (65533): refused"
	end_procs "$server"
	rm -rf "$victim" "$cred"
fi
exit $status
