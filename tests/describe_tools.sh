#!/bin/sh
# The live fabric described (simfabric/describe.h) next to the real tools,
# on the default fabric, each of ibsim's example files and two fat trees
# (scripts/gen-fattree), as the built-in SM brings them up and with no SM:
#  - dump is what Debian's ibnetdiscover prints on UMAD_BACKEND=sim for the
#    same fabric, line for line after the header's date;
#  - dump loads back (simfabric/topology.c) into the same fabric
#    (tests/test_describe --roundtrip);
#  - JSON reads with Python's json module, and says what the fabric holds;
#  - dot is a graph Graphviz draws.
# A tool that is missing skips its part with a message; the test skips
# (77) when tests/test_describe is not built (no cmocka).
set -u
needs=
. "$(dirname "$0")/sim_env.sh"
td=$top_builddir/tests/test_describe
[ -x "$td" ] || { echo "SKIP: tests/test_describe is not built"; exit 77; }
examples=/usr/share/doc/ibsim-utils/net-examples

have() { command -v "$1" >/dev/null 2>&1 || { echo "skip: $1 is not installed: $2"; return 1; }; }
have_ibnd=0; have ibnetdiscover "no comparison with ibnetdiscover" && have_ibnd=1
have_py=0; have python3 "JSON not read back by Python" && have_py=1
have_dot=0; have dot "dot output not drawn (apt-get install graphviz)" && have_dot=1

"$top_srcdir/scripts/gen-fattree" 8 > "$work/fattree8.net"
"$top_srcdir/scripts/gen-fattree" 4 3 > "$work/fattree4x3.net"
topos="default"
for f in "$examples"/net*; do [ -f "$f" ] && topos="$topos $f"; done
[ -f "$examples/net" ] || echo "skip: ibsim's example files are not installed ($examples)"
topos="$topos $work/fattree8.net $work/fattree4x3.net"

# on TOPOLOGY SM COMMAND...: run COMMAND on that fabric (default: the built-in topology).
on() {
	topo=$1 sm=$2
	shift 2
	if [ "$topo" = default ]; then
		UMAD_SIM_SM=$sm sim "$@"
	else
		UMAD_SIM_TOPOLOGY=$topo UMAD_SIM_SM=$sm sim "$@"
	fi
}

checked=0
for topo in $topos; do
	arg=$topo
	[ "$topo" = default ] && arg=-
	name=$(basename "$topo")
	"$td" --roundtrip "$arg" > "$work/rt.out" 2>&1 ||
		{ fail "$name: the dump does not load back as the same fabric"; head -40 "$work/rt.out"; }
	for sm in builtin none; do
		mode=
		[ "$sm" = none ] && mode=none
		"$td" --print dump "$arg" $mode > "$work/ours" 2> "$work/ours.err" ||
			{ fail "$name ($sm): dump failed: $(cat "$work/ours.err")"; continue; }
		[ "$have_ibnd" = 1 ] || continue
		on "$topo" "$sm" timeout 120 ibnetdiscover > "$work/theirs" 2> "$work/theirs.err" ||
			{ fail "$name ($sm): ibnetdiscover failed: $(head -5 "$work/theirs.err")"; continue; }
		# The first three lines hold ibnetdiscover's date; from "Initiated from" on they agree.
		tail -n +4 "$work/theirs" > "$work/theirs.body"
		tail -n +4 "$work/ours" > "$work/ours.body"
		if ! cmp -s "$work/theirs.body" "$work/ours.body"; then
			fail "$name ($sm): dump differs from ibnetdiscover's output"
			diff -u "$work/theirs.body" "$work/ours.body" | head -30
		fi
		checked=$((checked + 1))
	done
	if [ "$have_py" = 1 ]; then
		"$td" --print json "$arg" > "$work/json" || fail "$name: json failed"
		python3 - "$work/json" "$work/ours" <<'EOF' || fail "$name: the JSON document is wrong"
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    d = json.load(f)
s = d["summary"]
nodes = d["nodes"]
assert len(nodes) == s["nodes"], (len(nodes), s["nodes"])
assert sum(n["type"] == "switch" for n in nodes) == s["switches"]
assert sum(n["type"] == "ca" for n in nodes) == s["cas"]
cabled = 0
for n in nodes:
    assert len(n["ports"]) == n["num_ports"] + (n["type"] == "switch"), n["id"]
    for p in n["ports"]:
        if p["peer"] is not None:
            cabled += 1
            assert p["state"] == "Active" and p["width"] and p["speed"], (n["id"], p["num"])
        assert all(isinstance(v, int) for v in p["counters"].values())
assert cabled == 2 * s["cables"], (cabled, s["cables"])
# Every node of the dump, by GUID, is in the document.
guids = {int(n["guid"], 16) for n in nodes}
with open(sys.argv[2]) as f:
    for line in f:
        if line.startswith(("switchguid=", "caguid=", "rtguid=")):
            g = int(line.split("=", 1)[1].split("(")[0], 16)
            assert g in guids, hex(g)
EOF
	fi
	if [ "$have_dot" = 1 ]; then
		"$td" --print dot "$arg" > "$work/dot" || fail "$name: dot failed"
		LD_PRELOAD= dot -Tsvg "$work/dot" > "$work/svg" 2> "$work/dot.err" ||
			fail "$name: Graphviz refuses the graph: $(head -5 "$work/dot.err")"
		grep -q '<svg' "$work/svg" || fail "$name: Graphviz drew no SVG"
	fi
done
[ "$status" -eq 0 ] && echo "PASS: dump, JSON and dot of $(echo $topos | wc -w) fabrics" \
	"($checked dumps the same as ibnetdiscover's)"
exit $status
