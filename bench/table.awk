# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The table bench/fabric-vs-ibsim.sh and bench/kernel-vs-ibsim.sh print at
# the end, from their rows: one line each, tab-separated:
#   FABRIC  MEASUREMENT  SHARED  IN-PROCESS  IBSIM  REF  TARGET
# A figure is a number, optionally followed by a note mark ("812 [4]"), or
# text saying why there is none ("failed [2]", "not run [3]"), or "-" where
# the measurement has no such side.  REF names the column the ratio divides
# by (in-process or ibsim, "-" for none), or is NAME=FIGURE: a figure of
# another row to divide by, the ratio shown "/NAME".  TARGET is "-" or
# "OURS|ratio OP NUMBER" (OURS: "shared" or -v ours) with OP one of < <= > >=.
# The ratio and the met? column are computed here, from the figures alone:
# met? is "yes" or "no", "-" with no target, and "unknown" when the figure
# the target compares with is missing.  A missing figure of our own (the
# shared fabric's) fails its target.
# -v ours=NAME names the first column of figures (default "shared"): its
# heading, and the word a target on its figure starts with.
# Usage: awk [-v ours=NAME] -f table.awk ROWS

BEGIN { FS = "\t"; if (ours == "") ours = "shared" }

function numeric(cell) { return cell ~ /^[0-9]+(\.[0-9]+)?( \[[0-9]+\])?$/ }
function value(cell) { split(cell, part, " "); return part[1] + 0 }
function check(x, op, limit) {
	if (op == "<") return x < limit
	if (op == "<=") return x <= limit
	if (op == ">") return x > limit
	if (op == ">=") return x >= limit
	return -1
}

NF != 7 { printf "table.awk: line %d: %d fields, expected 7\n", NR, NF > "/dev/stderr"; bad = 1; next }
{
	n++
	fabric[n] = $1
	cell[n, 1] = $2; cell[n, 2] = $3; cell[n, 3] = $4; cell[n, 4] = $5
	ref = $6 == "in-process" ? $4 : $6 == "ibsim" ? $5 : ""
	ref_name = $6 == "in-process" ? "in-proc" : $6
	if ((eq = index($6, "=")) > 1) {
		ref_name = substr($6, 1, eq - 1)
		ref = substr($6, eq + 1)
	}
	have_ratio = $6 != "-" && numeric($3) && numeric(ref) && value(ref) != 0
	ratio = have_ratio ? value($3) / value(ref) : 0
	cell[n, 5] = have_ratio ? sprintf("%.2f /%s", ratio, ref_name) : "-"
	cell[n, 6] = $7
	if ($7 == "-")
		met = "-"
	else if (split($7, t, " ") != 3 || (t[1] != ours && t[1] != "ratio") ||
		 check(0, t[2], 0) < 0 || t[3] !~ /^[0-9]+(\.[0-9]+)?$/) {
		printf "table.awk: line %d: bad target \"%s\"\n", NR, $7 > "/dev/stderr"
		bad = 1
		met = "?"
	} else if (!numeric($3))
		met = "no"
	else if (t[1] == ours)
		met = check(value($3), t[2], t[3] + 0) ? "yes" : "no"
	else if (!have_ratio)
		met = "unknown"
	else
		met = check(ratio, t[2], t[3] + 0) ? "yes" : "no"
	cell[n, 7] = met
}

END {
	split("measurement|" ours "|in-process|ibsim|ratio|target|met?", head, "|")
	for (c = 1; c <= 7; c++)
		width[c] = length(head[c])
	for (r = 1; r <= n; r++)
		for (c = 1; c <= 7; c++)
			if (length(cell[r, c]) > width[c])
				width[c] = length(cell[r, c])
	for (r = 1; r <= n; r++) {
		if (r == 1 || fabric[r] != fabric[r - 1]) {
			printf "%s%s\n", r == 1 ? "" : "\n", fabric[r]
			line = "  "
			for (c = 1; c <= 7; c++)
				line = line sprintf("%-*s  ", width[c], head[c])
			sub(/ +$/, "", line)
			print line
		}
		line = "  "
		for (c = 1; c <= 7; c++)
			line = line sprintf("%-*s  ", width[c], cell[r, c])
		sub(/ +$/, "", line)
		print line
	}
	exit bad
}
