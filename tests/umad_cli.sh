#!/bin/bash
# umad's command table against umad(1), and its one parser, in any build
# with umad (sim or capture, or both):
#  - every command umad --help lists (and every subcommand COMMAND --help
#    lists) has its entry in umad(1)'s SYNOPSIS, or is under its parent's
#    (fabric's show, the faults); every SYNOPSIS entry is a command (of
#    this build: capture, sim, fabric and kernel may be left out);
#  - every option COMMAND --help gives is in that entry, and in umad(1)
#    by its long name; every option of an entry is one of its commands';
#  - umad --version names the project's version and the ABI (the SONAME
#    and the newest symbol version of libumad/libibumad.map);
#  - each option with a value takes it as --opt=V, --opt V, -oV and -o V;
#    a missing value, an unknown option and an unknown command are told as
#    "umad: COMMAND: ..." with exit status 2; "--" ends the options.
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
umad=$top_builddir/cli/umad
man1=$top_srcdir/doc/umad.1
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
export LD_LIBRARY_PATH=$top_builddir/.libs UMAD_MODULE_DIR=$top_builddir/.libs
work=$(mktemp -d)
[ -n "${UMAD_CLI_KEEP:-}" ] && echo "work: $work"
trap '[ -n "${UMAD_CLI_KEEP:-}" ] || rm -rf "$work"' EXIT
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

# --- what the table says --------------------------------------------------------------

"$umad" --help > "$work/root" 2> "$work/err" || fail "umad --help: exit $?"
[ -s "$work/err" ] && fail "umad --help wrote to stderr: $(cat "$work/err")"
# The commands of a --help: umad's "commands:", GOption's description "Commands:".
commands_of() { sed -n '/^[Cc]ommands:$/,/^$/p' "$1" | awk 'NR > 1 && NF { print $1 }'; }
# A command's options from its --help: "short long value" lines ("-" for none).
options_of() {
	sed -n '/^Options:$/,/^$/p' "$1" | sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}--\([a-z][a-z-]*\)\(=[^ ]*\)\{0,1\} .*/\1 \2 \3/p' |
		awk '{ if (NF == 1) print "-", $1, "-"; else if (NF == 2 && $1 ~ /,$/) print substr($1, 2, 1), $2, "-";
		       else if (NF == 2) print "-", $1, "v"; else print substr($1, 2, 1), $2, "v" }' |
		grep -v ' help '
}

paths=()
for c in $(commands_of "$work/root"); do
	paths+=("$c")
	"$umad" "$c" --help > "$work/help.$c" 2> "$work/err" || fail "umad $c --help: exit $?"
	[ -s "$work/err" ] && fail "umad $c --help wrote to stderr: $(cat "$work/err")"
	for s in $(commands_of "$work/help.$c"); do
		paths+=("$c $s")
		"$umad" "$c" "$s" --help > "$work/help.$c.$s" 2> "$work/err" ||
			fail "umad $c $s --help: exit $?"
	done
done
[ ${#paths[@]} -ge 2 ] || fail "umad --help lists no commands: $(cat "$work/root")"
help_file() { echo "$work/help.${1// /.}"; }

# --- what umad(1) says ----------------------------------------------------------------

# The SYNOPSIS as entries: "PATH<TAB>option option ..." (PATH: the command words after umad).
sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man1" | sed 's/\\-/-/g' |
	awk '
	function flush() { if (started) print path "\t" opts; started = 0 }
	/^\.br$/ || /^\.SH DESCRIPTION/ { flush(); next }
	/^\.B umad( |$)/ {
		flush(); started = 1; path = ""; opts = ""
		n = split($0, w, " ")
		for (i = 3; i <= n && w[i] ~ /^[a-z]+$/; i++) path = path (path == "" ? "" : " ") w[i]
	}
	started {
		line = " " $0
		while (match(line, /[ [(|"]--?[a-z][a-z-]*/)) {
			opts = opts " " substr(line, RSTART + 1, RLENGTH - 1)
			line = substr(line, RSTART + RLENGTH)
		}
	}' > "$work/synopsis"
[ -s "$work/synopsis" ] || fail "no SYNOPSIS entries read from $man1"
entry_opts() { awk -F '\t' -v p="$1" '$1 == p { print $2 }' "$work/synopsis" | tr ' ' '\n' | grep -v '^$'; }
has_entry() { awk -F '\t' -v p="$1" '$1 == p { found = 1 } END { exit !found }' "$work/synopsis"; }
# The entry a command is told under: its own, else its parent's.
owner() {
	if has_entry "$1"; then echo "$1"; elif [ "${1% *}" != "$1" ] && has_entry "${1% *}"; then
		echo "${1% *}"; else echo "?"; fi
}

for p in "${paths[@]}"; do
	case $p in *" "*) ;; *) has_entry "$p" || fail "umad(1)'s SYNOPSIS has no entry for umad $p" ;; esac
	o=$(owner "$p")
	[ "$o" = "?" ] && { fail "umad(1)'s SYNOPSIS tells umad $p nowhere"; continue; }
	while read -r short long _; do
		[ -n "$long" ] || continue
		entry_opts "$o" | grep -qxF -e "--$long" -e "-$short" ||
			fail "umad $p --$long: not in umad(1)'s SYNOPSIS of umad $o"
		grep -qF -- "\\-\\-${long//-/\\-}" "$man1" || fail "umad $p --$long: umad(1) never names it"
	done < <(options_of "$(help_file "$p")")
done
# Every entry is a command, and every option of it one of its commands' (a
# command a build may leave out is told in umad(1) all the same: not here).
optional="capture sim fabric kernel"
while IFS=$'\t' read -r e _; do
	[ -z "$e" ] && continue
	case " $optional " in
	*" ${e%% *} "*) commands_of "$work/root" | grep -qxF "${e%% *}" || continue ;;
	esac
	printf '%s\n' "${paths[@]}" | grep -qxF "$e" || fail "umad(1)'s SYNOPSIS has umad $e: no such command"
	: > "$work/given"
	for p in "${paths[@]}"; do
		[ "$(owner "$p")" = "$e" ] &&
			options_of "$(help_file "$p")" | awk '{ if ($1 != "-") print "-" $1; print "--" $2 }' >> "$work/given"
	done
	for opt in $(entry_opts "$e"); do
		grep -qxF -- "$opt" "$work/given" || fail "umad(1)'s SYNOPSIS of umad $e has $opt: umad $e takes none"
	done
done < <(grep -v '^	' "$work/synopsis")
# umad's own: --help and --version, both in the SYNOPSIS.
for opt in --help --version; do
	entry_opts "" | grep -qxF -- "$opt" || fail "umad(1)'s SYNOPSIS has no umad $opt"
done

# --- --version --------------------------------------------------------------------------

"$umad" --version > "$work/version" 2>&1 || fail "umad --version: exit $?"
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
newest=$(sed -n 's/^\(IBUMAD_[0-9.]*\) *{.*/\1/p' "$top_srcdir/libumad/libibumad.map" | tail -n 1)
grep -qF " $version" "$work/version" || fail "umad --version does not say $version: $(cat "$work/version")"
grep -qF "libibumad.so.3" "$work/version" || fail "umad --version names no SONAME: $(cat "$work/version")"
grep -qF "$newest" "$work/version" || fail "umad --version does not name $newest: $(cat "$work/version")"

# --- one parser: the forms of a value, and the usage errors -------------------------------

for p in "${paths[@]}"; do
	read -ra words <<< "$p"
	while read -r short long value; do
		[ "$value" = v ] || continue
		forms=("--$long=x" "--$long x")
		[ "$short" != - ] && forms+=("-${short}x" "-$short x")
		for form in "${forms[@]}"; do
			read -ra f <<< "$form"
			"$umad" "${words[@]}" "${f[@]}" --help > "$work/out" 2>&1
			rc=$?
			[ $rc = 0 ] && grep -q '^Usage:' "$work/out" ||
				fail "umad $p $form --help: exit $rc: $(head -3 "$work/out")"
		done
		"$umad" "${words[@]}" "--$long" > "$work/out" 2>&1
		rc=$?
		[ $rc = 2 ] && grep -qxF "umad: $p: missing argument for --$long" "$work/out" ||
			fail "umad $p --$long (no value): exit $rc: $(head -3 "$work/out")"
	done < <(options_of "$(help_file "$p")")
	"$umad" "${words[@]}" --no-such-option > "$work/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -qxF "umad: $p: unknown option --no-such-option" "$work/out" ||
		fail "umad $p --no-such-option: exit $rc: $(head -3 "$work/out")"
done
"$umad" no-such-command > "$work/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "^umad: unknown command 'no-such-command'" "$work/out" ||
	fail "umad no-such-command: exit $rc: $(cat "$work/out")"
"$umad" > "$work/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -qx "umad: missing command" "$work/out" || fail "umad alone: exit $rc: $(cat "$work/out")"
# "--" ends doctor's options as it does any command's: it is not COMMAND.
"$umad" doctor -- true > "$work/out" 2>&1
grep -qx "COMMAND true:" "$work/out" || fail "umad doctor -- true: not about true: $(head -3 "$work/out")"
if printf '%s\n' "${paths[@]}" | grep -qx fabric; then
	"$umad" fabric no-such-command > "$work/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -qxF "umad: fabric: unknown command 'no-such-command'" "$work/out" ||
		fail "umad fabric no-such-command: exit $rc: $(cat "$work/out")"
fi
exit $status
