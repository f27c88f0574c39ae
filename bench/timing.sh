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
