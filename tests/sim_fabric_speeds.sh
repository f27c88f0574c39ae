#!/bin/bash
# Fabrics in the form real clusters print them (tests/fabrics/*.topo, or the
# files in $SPEED_FABRICS: ibnetdiscover's output of HDR, NDR, EDR and FDR
# fabrics of vendor 0x2c9, 41-, 65- and 81-port switches, split 2X ports)
# come back out of Debian's tools as the cluster printed them:
# - ibnetdiscover, run where the file was discovered from, prints the file
#   back (its date aside) and nothing on stderr;
# - iblinkinfo shows every link of the file at its width and lane speed, all
#   Active, with no "Could be" and nothing on stderr;
# - ibstat shows each CA port's rate (lanes times the lane's Gb/s);
# - perfquery -T reads PortExtendedSpeedsCounters where the link runs one;
# - smpquery reads PortInfoExtended's FEC mode at the host where its link
#   runs HDR or NDR, and finds no PortInfoExtended on older ports;
# - opensm brings the fabric up at the same widths and speeds as the
#   built-in SM.
# Skips (77) without the diags or opensm.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="ibnetdiscover iblinkinfo ibstat smpquery opensm"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
fabrics=${SPEED_FABRICS:-$(ls "$top_srcdir"/tests/fabrics/*.topo)}

# The lane speed iblinkinfo prints for a speed word, and its Gb/s in sysfs.
lane_speed() {
	case $1 in
	SDR) echo 2.5 ;; DDR) echo 5.0 ;; QDR) echo 10.0 ;; FDR10) echo 10.3125 ;;
	FDR) echo 14.0625 ;; EDR) echo 25.78125 ;; HDR) echo 53.125 ;; NDR) echo 106.25 ;;
	*) echo "?" ;;
	esac
}
lane_gbps() {
	case $1 in
	SDR) echo 2.5 ;; DDR) echo 5 ;; QDR|FDR10) echo 10 ;; FDR) echo 14 ;;
	EDR) echo 25 ;; HDR) echo 50 ;; NDR) echo 100 ;; *) echo 0 ;;
	esac
}

# Every switch port line of a topology file as "GUID PORT WIDTH SPEED", sorted.
file_links() {
	awk '/^switchguid=/ { sub(/^switchguid=/, ""); sub(/\(.*/, ""); sw = $0 }
	     /^Switch/ { in_sw = 1; next }
	     /^(Ca|Rt)/ { in_sw = 0 }
	     in_sw && /^\[/ { port = $1; gsub(/[][]/, "", port); rate = $NF
			      w = rate; sub(/x.*/, "", w); s = rate; sub(/^[0-9]+x/, "", s)
			      print sw, port, w "X", s }' "$1" |
	while read -r guid port width speed; do
		echo "$guid $port $width $(lane_speed "$speed")"
	done | sort
}

# The switch ports iblinkinfo shows linked, as "GUID PORT WIDTH SPEED STATE", sorted.
shown_links() {
	awk '/^Switch: / { sw = $2; next }
	     /^CA: / { sw = ""; next }
	     sw != "" && /==\( *[0-9]+X / {
		s = $0; sub(/.*==\( */, "", s); split(s, f, " ")
		port = $0; sub(/\[.*/, "", port); n = split(port, pf, " ")
		state = f[4]; sub(/\/.*/, "", state)
		print sw, pf[n], f[1], f[2], state }' "$1" | sort
}

for topo in $fabrics; do
	name=$(basename "$topo")
	from=$(sed -n 's/^# Initiated from node \([0-9a-f]*\) .*/\1/p' "$topo")
	[ -n "$from" ] || { fail "$name: no 'Initiated from node' line"; continue; }
	host=H-$from
	expected=$work/$name.links
	file_links "$topo" > "$expected"
	[ -s "$expected" ] || { fail "$name: no links read from the file"; continue; }

	# The built-in SM: ibnetdiscover and iblinkinfo.
	UMAD_SIM_TOPOLOGY=$topo UMAD_SIM_HOST=$host UMAD_SIM_SM=builtin \
		sim ibnetdiscover > "$work/disc.out" 2> "$work/disc.err" ||
		fail "$name: ibnetdiscover failed: $(head -3 "$work/disc.err")"
	if ! diff <(grep -v '^# Topology file: generated on' "$topo") \
		  <(grep -v '^# Topology file: generated on' "$work/disc.out") > "$work/disc.diff"; then
		fail "$name: ibnetdiscover does not print the file back:"
		head -20 "$work/disc.diff"
	fi
	[ -s "$work/disc.err" ] && fail "$name: ibnetdiscover printed errors: $(head -3 "$work/disc.err")"

	UMAD_SIM_TOPOLOGY=$topo UMAD_SIM_HOST=$host UMAD_SIM_SM=builtin \
		sim iblinkinfo > "$work/builtin.info" 2> "$work/builtin.err" ||
		fail "$name: iblinkinfo failed: $(head -3 "$work/builtin.err")"
	[ -s "$work/builtin.err" ] && fail "$name: iblinkinfo printed errors: $(head -3 "$work/builtin.err")"
	grep -q 'Could be' "$work/builtin.info" &&
		fail "$name: iblinkinfo sees links below what they support: $(grep -m2 'Could be' "$work/builtin.info")"
	shown_links "$work/builtin.info" > "$work/builtin.links"
	grep -v ' Active$' "$work/builtin.links" | sed 's/^/  not Active: /' | head -5 |
		grep . && fail "$name: links not Active under the built-in SM"
	if ! diff "$expected" <(awk '{ print $1, $2, $3, $4 }' "$work/builtin.links") > "$work/links.diff"; then
		fail "$name: iblinkinfo's widths and speeds differ from the file (< file, > iblinkinfo):"
		head -20 "$work/links.diff"
	fi

	# ibstat's rate on every CA port of the file, at its own host.
	awk '/^caguid=/ { g = $0; sub(/^caguid=0x/, "", g) }
	     /^Ca/ { in_ca = 1; next }
	     /^(Switch|Rt)/ { in_ca = 0 }
	     in_ca && /^\[/ { port = $1; sub(/\].*/, "", port); sub(/\[/, "", port); print g, port, $NF }' \
		"$topo" | while read -r guid port rate; do
		lanes=${rate%%x*}
		want=$(awk -v l="$lanes" -v g="$(lane_gbps "${rate#*x}")" 'BEGIN { print l * g }')
		got=$(UMAD_SIM_TOPOLOGY=$topo UMAD_SIM_HOST=0x$guid UMAD_SIM_SM=builtin sim ibstat |
		      awk -v p="$port" '/Port [0-9]+:/ { n = $2; sub(/:/, "", n) } /Rate:/ && n == p { print $2 }')
		[ "$got" = "$want" ] || echo "FAIL: $name: ibstat at 0x$guid port $port: Rate $got, want $want ($rate)"
	done > "$work/ibstat.fail"
	[ -s "$work/ibstat.fail" ] && { cat "$work/ibstat.fail"; status=1; }

	# The PMA's PortExtendedSpeedsCounters on a port that runs an extended speed.
	if grep -q 'x[FEHN]DR$' "$topo"; then
		UMAD_SIM_TOPOLOGY=$topo UMAD_SIM_HOST=$host UMAD_SIM_SM=builtin \
			sim perfquery -T > "$work/pesc.out" 2>&1 &&
			grep -q '^SyncHeaderErrorCounter:\.*0$' "$work/pesc.out" ||
			fail "$name: perfquery -T: $(head -3 "$work/pesc.out")"
	fi

	# PortInfoExtended at the host's port: its FEC mode where the link runs HDR or NDR;
	# on older ports smpquery finds CapabilityMask2 without it, as on such hardware.
	UMAD_SIM_TOPOLOGY=$topo UMAD_SIM_HOST=$host UMAD_SIM_SM=builtin \
		sim smpquery -D portinfoextended 0 > "$work/pie.out" 2>&1
	pie=$?
	if grep -q "^\[[0-9]*\](${from})[^#]*# .* [0-9]x[HN]DR$" "$topo"; then
		[ $pie -eq 0 ] && grep -q '^CapMask:\.*0x00000001$' "$work/pie.out" &&
			grep -q '^FECModeActive:\.*4$' "$work/pie.out" ||
			fail "$name: smpquery portinfoextended at an HDR/NDR port: $(head -4 "$work/pie.out")"
	elif [ $pie -eq 0 ] || ! grep -q 'port info extended not supported' "$work/pie.out"; then
		fail "$name: smpquery portinfoextended below HDR: $(head -3 "$work/pie.out")"
	fi

	# opensm on the same fabric, shared with iblinkinfo in a second process.
	cat > "$work/osm.sh" <<-'EOF'
	set -u
	. "$OPENSM_SESSION"
	start_opensm || exit 1
	iblinkinfo > "$WORK/opensm.info" 2> "$WORK/opensm.err"
	stop_opensm
	EOF
	WORK=$work LD_LIBRARY_PATH=$libs UMAD_MODULE_DIR=$libs \
		"$umad" sim --sm none -t "$topo" --host "$host" -- bash "$work/osm.sh" > "$work/osm.run" 2>&1 ||
		fail "$name: umad sim with opensm failed: $(head -3 "$work/osm.run")"
	[ -s "$work/osm.run" ] && fail "$name: with opensm: $(head -3 "$work/osm.run")"
	[ -s "$work/opensm.err" ] && fail "$name: iblinkinfo under opensm printed errors: $(head -3 "$work/opensm.err")"
	shown_links "$work/opensm.info" > "$work/opensm.links"
	if ! diff "$work/builtin.links" "$work/opensm.links" > "$work/sm.diff"; then
		fail "$name: opensm and the built-in SM leave different links (< built-in, > opensm):"
		head -20 "$work/sm.diff"
	fi
	echo "$name: $(wc -l < "$expected") links checked"
done
exit $status
