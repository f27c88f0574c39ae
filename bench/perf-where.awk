# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Where the machine's time went while `umad kernel ... -- PROGRAM` ran,
# from `perf script -F comm,pid,tid,time,ip,sym,dso` of a `perf record -a -g
# -e cpu-clock` of it: each sample is put in one bucket by who ran (the
# server's main thread, its other threads, the program, the command's start
# in the program's process, no one: idle, or another process) and what (the
# system call on the kernel stack, or the library of the user-space frame it
# was in), and each bucket printed as CPU time and as a share of the time
# there was: from the first sample of the server or the program to the last
# (perf's own start and end left out), times the CPUs.  User-space stacks of libraries
# built without frame pointers are cut short: only the frame a sample was in
# is read there, the whole stack in the kernel.
# Usage: awk -v hz=SAMPLE_RATE -v cpus=N -v server=PID -v program_pid=PID \
#            [-v program=COMM] -f perf-where.awk SCRIPT

BEGIN { if (program == "") program = "ibnetdiscover" }

function base(path) { sub(/.*\//, "", path); return path }

# The system call the sample is in, "" if none (a fault, an interrupt): the
# user-space frame that entered the kernel (libc's wrapper) names it, or
# else the kernel's frame above do_syscall_64.
function syscall_of(   i, s) {
	for (i = 1; i <= depth; i++)
		if (sym[i] ~ /^entry_SYSCALL/)
			break
	if (i > depth)
		return ""
	s = i < depth ? sym[i + 1] : ""
	if ((s == "" || s == "[unknown]") && i > 2)
		s = sym[i - 2]
	if (s ~ /epoll_wait/) return "epoll_wait"
	if (s ~ /writev/) return "writev"
	if (s ~ /poll/) return "poll"
	if (s ~ /read/) return "read"
	if (s ~ /write/) return "write"
	sub(/^(__x64_sys_|ksys_|do_|_+)/, "", s)
	return s
}

function bucket(   who, s, lib) {
	if (pid == 0)
		return "idle: no task on the CPU"
	if (pid == server && tid != pid)
		return "server's other threads (the sim backend's)"
	if (pid == server)
		who = "server"
	else if (pid == program_pid && comm == program)
		who = "program"
	else if (pid == program_pid)
		return "the command's start (mounts, exec)"
	else
		return "other processes (not ours: the machine is shared)"
	if (dso[1] == "[kernel.kallsyms]") {
		s = syscall_of()
		if (s == "")
			return who ": kernel, no system call (faults, interrupts)"
		if (who == "server") {
			if (s ~ /epoll_wait/) return "server: epoll_wait (waits for a request)"
			if (s == "read") return "server: read(2) of the next FUSE request"
			if (s ~ /^write/) return "server: writev(2) of a FUSE reply"
			return "server: other system calls"
		}
		if (s == "read" || s == "write" || s ~ /poll/)
			return "program: " s "(2) (FUSE requests, most on umad0)"
		return "program: other system calls"
	}
	lib = base(dso[1])
	# Samples held back while the kernel had interrupts off land on the way
	# out of the system call, in libc's wrapper.
	if (lib ~ /^libc[.-]/ && sym[1] ~ /epoll_wait/ && who == "server")
		return "server: epoll_wait (waits for a request)"
	if (lib ~ /^libc[.-]/ && sym[1] ~ /asynccancel|^(__GI_+)?(__libc_)?(read|write|writev|poll|__poll)$/)
		return who ": libc's system call wrappers"
	if (who == "server") {
		if (lib ~ /vdso/ || sym[1] ~ /clock_gettime/)
			return "server: clock_gettime"
		if (lib ~ /^libfuse/)
			return "server: libfuse"
		return "server: kfs, the sim backend, libc (and the fabric's load)"
	}
	if (lib ~ /^lib(ibnetdisc|ibmad)/ || lib == program)
		return "program: its own code (" program ", libibnetdisc, libibmad)"
	if (lib ~ /^libibumad/)
		return "program: libibumad"
	return "program: libc, the loader, other"
}

function flush(   b) {
	if (comm == "")
		return
	b = bucket()
	samples++
	at[samples] = t
	of[samples] = b
	if (pid == server || pid == program_pid) {
		if (first == "" || t < first) first = t
		if (last == "" || t > last) last = t
	}
	comm = ""
	depth = 0
}

# A sample: COMM PID/TID TIME: (a command's name may hold spaces).
/^[^ \t]/ {
	flush()
	t = $NF
	sub(/:$/, "", t)
	split($(NF - 1), id, "/")
	pid = id[1]
	tid = id[2]
	comm = $0
	sub(/[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]*$/, "", comm)
	next
}
/^[ \t]+[0-9a-f]+ / {
	depth++
	dso[depth] = $NF
	gsub(/[()]/, "", dso[depth])
	sym[depth] = $2
	next
}
/^[ \t]*$/ { flush() }

END {
	flush()
	for (i = 1; i <= samples; i++) {
		if (at[i] < first || at[i] > last)
			continue
		n[of[i]]++
		total++
		if (of[i] ~ /^program:/) program_n++
		if (of[i] ~ /^server:/) server_n++
	}
	if (total == 0) {
		print "perf-where.awk: no samples of the server or the program" > "/dev/stderr"
		exit 1
	}
	wall = (last - first) * 1000
	printf "  %.0f ms from the server's first sample to the program's last, %d samples:\n", wall, total
	for (b in n)
		printf "    %5.1f%%  %7.0f ms  %s\n", n[b] * 100000 / hz / wall / cpus, n[b] * 1000 / hz,
			b | "sort -rn"
	close("sort -rn")
	printf "  the program ran %.0f ms of the %.0f ms, the server %.0f ms (its other threads not counted).\n",
		program_n * 1000 / hz, wall, server_n * 1000 / hz
}
