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

# median < FILE: the median of one number per line.
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
