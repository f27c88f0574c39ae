# shellcheck shell=bash
# Sourced by the benchmarks: wall time of one command and the median of a column.

# us CMD...: the wall time of CMD in microseconds (its output discarded).
us() {
	local start end
	start=$(date +%s%N)
	"$@" > /dev/null 2>&1
	end=$(date +%s%N)
	echo $(( (end - start) / 1000 ))
}

# ms CMD...: the same in milliseconds.
ms() { echo $(( $(us "$@") / 1000 )); }

# median_ci < FILE: the median of one number per line and a 95 % confidence
# interval for it ("median low high"), from order statistics: it assumes
# nothing about the distribution, which on a noisy machine is lopsided.
median_ci() {
	sort -g | awk '{ a[NR] = $1 } END {
		n = NR; h = 1.96 * sqrt(n) / 2
		lo = int(n / 2 - h); hi = int(n / 2 + 1 + h + 0.999)
		if (lo < 1) lo = 1
		if (hi > n) hi = n
		print a[int((n + 1) / 2)], a[lo], a[hi] }'
}

# median < FILE: the median of one number per line.
median() { median_ci | cut -d' ' -f1; }

# now_us: the wall clock in microseconds, without starting a process.
now_us() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		echo "${EPOCHREALTIME//[!0-9]/}"
	else
		echo $(( $(date +%s%N) / 1000 ))
	fi
}

# run_limited SECONDS OUT ERR CMD...: CMD with its output in OUT and its
# errors in ERR, stopped after SECONDS (TERM, then KILL 10 s later).  Sets
# elapsed_ms to its wall time and returns its status, 124 or 137 when it ran
# out of time (timeout(1)'s).  CMD runs in the background while the shell
# waits for it, so that the caller's INT and TERM traps run at once; they
# find its pid in limited_pid.
run_limited() {
	local limit=$1 out=$2 err=$3 start status=0
	shift 3
	start=$(now_us)
	timeout -k 10 "$limit" "$@" > "$out" 2> "$err" &
	limited_pid=$!
	wait "$limited_pid" || status=$?
	limited_pid=
	# shellcheck disable=SC2034 # for the caller
	elapsed_ms=$(( ($(now_us) - start) / 1000 ))
	return "$status"
}
