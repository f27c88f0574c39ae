# shellcheck shell=bash
# Sourced by the scripts tests run under `umad sim` (found at $OPENSM_SESSION,
# which the test exports): Debian's opensm on the fabric, in the background.
#
# start_opensm [OPENSM-OPTION...]: starts opensm ($osm: its pid) with its log
# in $WORK/osm.log (-d2: flushed line by line, so that SUBNET UP shows as it
# happens), its output in $WORK/osm.out and its cache in $OSM_CACHE_DIR (by
# default $WORK/osm-cache: never the machine's).  Returns once SUBNET UP is
# logged; after 30 s without, says so on stderr with opensm's last words and
# returns 1.
# stop_opensm: ends it (TERM, then KILL: opensm may hang in its own exit).
# The script gets tests/procs.sh too: what it starts ends when it exits.
. "${OPENSM_SESSION%/*}/procs.sh"

start_opensm() {
	export OSM_CACHE_DIR=${OSM_CACHE_DIR:-$WORK/osm-cache}
	mkdir -p "$OSM_CACHE_DIR"
	rm -f "$WORK/osm.log"
	opensm -d2 "$@" -f "$WORK/osm.log" > "$WORK/osm.out" 2>&1 &
	osm=$!
	for _ in $(seq 1 300); do
		grep -q 'SUBNET UP' "$WORK/osm.log" 2>/dev/null && return 0
		sleep 0.1
	done
	{
		echo "opensm: no SUBNET UP"
		sed 's/^/opensm: /' "$WORK/osm.out"
		tail -5 "$WORK/osm.log" 2>/dev/null | sed 's/^/opensm log: /'
	} >&2
	return 1
}

stop_opensm() {
	end_procs "$osm"
}
