# Sourced by the benchmarks: wall time of one command and the median of a column.

# ms CMD...: the wall time of CMD in milliseconds (its output discarded).
ms() {
	local start end
	start=$(date +%s%N)
	"$@" > /dev/null 2>&1
	end=$(date +%s%N)
	echo $(( (end - start) / 1000000 ))
}

# median < FILE: the median of one number per line.
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
