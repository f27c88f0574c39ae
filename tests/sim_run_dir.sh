#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The run directory of umad sim (and umad kernel) after kill -9:
#  - it is XDG_RUNTIME_DIR/umad-sim.PID.XXXXXX, the run's PID in its name,
#    mode 0700 and ours;
#  - umad sim killed with SIGKILL leaves it; the next run leaves it too while
#    COMMAND, which holds its lock, still runs, and removes it once COMMAND
#    is gone;
#  - what the next run finds there and is not a dead run's of ours stays:
#    a directory named after a live process, another user's (as root), a
#    symbolic link (and what it points to), a file; one of ours named after
#    a dead process, whose lock nobody holds, goes;
#  - umad kernel's (umad-kernel.PID.XXXXXX), once killed, is reclaimed by
#    the next umad kernel (skipped where umad kernel cannot run here).
set -u
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
needs="timeout"
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
export LD_LIBRARY_PATH=$libs UMAD_MODULE_DIR=$libs UMAD_SIM_SM=none
base=$work/run
mkdir -m 700 "$base"
export XDG_RUNTIME_DIR=$base

# wait_for COMMAND...: up to 30 s for COMMAND to succeed; 1 if it never does.
wait_for() {
	for _ in $(seq 300); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# run_dir PREFIX PID: the run directory of PID in $base, if there is one.
run_dir() {
	local d
	for d in "$base/$1.$2".*; do
		[ -d "$d" ] && echo "$d" && return 0
	done
	return 1
}

# --- kill -9 of umad sim, with COMMAND living on ---------------------------------
"$umad" sim -- sh -c 'echo $$ > "$0"; exec sleep 600' "$work/cmd.pid" 2> "$work/sim.err" &
sim_pid=$!
wait_for test -s "$work/cmd.pid" || fail "umad sim -- sh: COMMAND never started: $(cat "$work/sim.err")"
cmd_pid=$(cat "$work/cmd.pid")
if dir=$(run_dir umad-sim "$sim_pid"); then
	[ "$(stat -c '%u %a' "$dir")" = "$(id -u) 700" ] ||
		fail "$dir is not ours and 0700: $(stat -c '%U %a' "$dir")"
else
	fail "no $base/umad-sim.$sim_pid.* while umad sim runs: $(ls -la "$base")"
fi
kill -9 "$sim_pid"
wait "$sim_pid" 2>/dev/null
[ -d "$dir" ] || fail "kill -9 of umad sim: its directory is gone already (nothing to reclaim)"
timeout 60 "$umad" sim -- true > "$work/out" 2>&1 || fail "umad sim -- true: exit $?: $(cat "$work/out")"
[ -d "$dir" ] || fail "the next run removed $dir while its COMMAND ($cmd_pid) still ran"
end_procs "$cmd_pid"
timeout 60 "$umad" sim -- true > "$work/out" 2>&1 || fail "umad sim -- true: exit $?: $(cat "$work/out")"
[ -e "$dir" ] && fail "kill -9 of umad sim: the next run did not reclaim $dir"
ls "$base" | grep -q '^umad-sim\.' && fail "umad sim -- true left its directory: $(ls "$base")"

# --- what a run finds: only a dead run's of ours goes ----------------------------
sh -c 'exit 0' &
dead=$!
wait "$dead"
mkdir -m 700 "$base/umad-sim.$dead.stale1" "$base/umad-sim.$$.alive1"
echo x > "$base/umad-sim.$dead.stale1/left"
mkdir -m 700 "$work/target"
echo keep > "$work/target/file"
ln -s "$work/target" "$base/umad-sim.$dead.link1"
echo x > "$base/umad-sim.$dead.file1"
kept="$base/umad-sim.$$.alive1 $base/umad-sim.$dead.link1 $base/umad-sim.$dead.file1"
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then
	mkdir -m 700 "$base/umad-sim.$dead.other1"
	chown nobody "$base/umad-sim.$dead.other1"
	kept="$kept $base/umad-sim.$dead.other1"
else
	echo "SKIP (part): not root: no directory of another user's to leave alone"
fi
timeout 60 "$umad" sim -- true > "$work/out" 2>&1 || fail "umad sim -- true: exit $?: $(cat "$work/out")"
[ -e "$base/umad-sim.$dead.stale1" ] && fail "a dead run's directory of ours was not reclaimed"
for k in $kept; do
	[ -e "$k" ] || [ -L "$k" ] || fail "the sweep removed $k, not a dead run's of ours"
done
[ "$(cat "$work/target/file")" = keep ] || fail "the sweep went through a symbolic link"

# --- umad kernel's, killed: reclaimed by the next one --------------------------------
if timeout 60 "$umad" kernel -- true > "$work/out" 2>&1; then
	"$umad" kernel -- sleep 600 2> "$work/kernel.err" &
	kernel_pid=$!
	wait_for run_dir umad-kernel "$kernel_pid" > /dev/null ||
		fail "no $base/umad-kernel.$kernel_pid.* while umad kernel runs: $(cat "$work/kernel.err")"
	kdir=$(run_dir umad-kernel "$kernel_pid")
	# The run and its COMMAND, at once: nothing holds the lock after this.
	kill -9 $(procs_tree "$kernel_pid")
	wait "$kernel_pid" 2>/dev/null
	[ -d "$kdir" ] || fail "kill -9 of umad kernel: its directory is gone already"
	timeout 60 "$umad" kernel -- true > "$work/out" 2>&1 ||
		fail "umad kernel -- true: exit $?: $(cat "$work/out")"
	[ -e "$kdir" ] && fail "kill -9 of umad kernel: the next run did not reclaim $kdir"
else
	echo "SKIP (part): umad kernel cannot run here: $(tail -1 "$work/out")"
fi
exit $status
