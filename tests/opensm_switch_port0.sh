#!/bin/bash
# A switch's port 0 under opensm, as on ibsim and real switches: opensm
# with dfsssp on a 3x3 torus sets some switches' port 0 Active straight
# from Initialize (it skips the arming pass for a base port 0 whose SMSL
# it did not change, then changes it); every such Set is taken, so its log
# has no ERR 3111 (an error status), and after one sweep every switch's
# port 0 reads Active, those it never wrote too.
# Skips (77) without opensm or infiniband-diags.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="opensm smpquery ibswitches"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }

"$top_srcdir/scripts/gen-torus" 3 3 > "$work/torus.net"
cat > "$work/sweep.sh" <<'EOF'
set -u
opensm -o -d2 -R dfsssp -f "$WORK/osm.log" > "$WORK/osm.out" 2>&1
echo "opensm exit $?"
for lid in $(ibswitches | sed -n 's/.* lid \([0-9]*\) lmc .*/\1/p'); do
	echo "switch $lid $(smpquery portinfo "$lid" 0 | sed -n 's/^LinkState:\.*//p')"
done
EOF
# opensm keeps the LIDs it gave in its cache: one of the test's own.
export WORK=$work OSM_CACHE_DIR=$work/cache
sim timeout 300 "$umad" sim -t "$work/torus.net" -- bash "$work/sweep.sh" > "$work/out" 2>&1
if ! grep -q "SUBNET UP" "$work/osm.log" 2>/dev/null; then
	fail "opensm -R dfsssp: no SUBNET UP"
	cat "$work/out" "$work/osm.out"
fi
grep -q 'dfsssp tables configured on all switches' "$work/osm.log" ||
	fail "opensm did not route with dfsssp"
if grep -q 'ERR 3111' "$work/osm.log"; then
	fail "opensm got error statuses:"
	grep -A2 'ERR 3111' "$work/osm.log" | head -12
fi
n=$(grep -c '^switch ' "$work/out")
[ "$n" -eq 9 ] || { fail "read port 0 of $n switches, not 9"; cat "$work/out"; }
if grep '^switch ' "$work/out" | grep -v ' Active$'; then
	fail "a switch's port 0 is not Active after SUBNET UP"
fi
[ $status -eq 0 ] && echo "PASS: dfsssp: no error status, every switch's port 0 Active"
exit $status
