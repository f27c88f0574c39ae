# Benchmarks print figures; they are never part of make check.  Only what
# computes figures from others is checked there: the table of
# fabric-vs-ibsim.sh and kernel-vs-ibsim.sh (bench/table-check.sh: its
# ratios and verdicts) and kernel-vs-ibsim.sh's PERF=1 breakdown
# (bench/perf-where-check.sh).
EXTRA_DIST += bench/capture-overhead.sh bench/sim-vs-ibsim.sh bench/fabric-vs-ibsim.sh bench/timing.sh bench/dr_rtt.c bench/tcp_floor.c bench/replay-vs-sim.sh scripts/gen-fattree scripts/ibsim-session.sh \
	bench/table.awk bench/table-check.sh bench/report.sh bench/kernel-vs-ibsim.sh \
	bench/perf-where.awk bench/perf-where-check.sh
TESTS += bench/table-check.sh bench/perf-where-check.sh
# How long a fabric takes to load and come up (sim_topology_load, sim_subnet_bring_up).
EXTRA_PROGRAMS = bench/sim_load
CLEANFILES += bench/sim_load$(EXEEXT)
bench_sim_load_SOURCES = bench/sim_load.c
bench_sim_load_CPPFLAGS = $(AM_CPPFLAGS) $(GLIB_CFLAGS)
bench_sim_load_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS)
if ENABLE_SIM
bench_sim_load = bench/sim_load$(EXEEXT)
endif
# What the FUSE path of a MAD costs when the server does no work: the floor
# bench/kernel-vs-ibsim.sh compares umad kernel's device files with (it
# builds it with make when it runs).
EXTRA_PROGRAMS += bench/fuse_floor
CLEANFILES += bench/fuse_floor$(EXEEXT)
bench_fuse_floor_SOURCES = bench/fuse_floor.c cli/kernel_ns.c cli/kernel_ns.h
bench_fuse_floor_CPPFLAGS = $(AM_CPPFLAGS) $(FUSE3_CFLAGS)
bench_fuse_floor_LDADD = $(FUSE3_LIBS)
if ENABLE_KERNEL_FS
bench_kernel_fs = yes
bench_fuse_floor = bench/fuse_floor$(EXEEXT)
endif
.PHONY: bench
bench: all $(bench_sim_load) $(bench_fuse_floor)
	if test -n '$(bench_sim_load)'; then \
		$(SHELL) $(srcdir)/scripts/gen-fattree 36 3 > bench-fattree-36-3.net && \
		./$(bench_sim_load) bench-fattree-36-3.net 5; \
		status=$$?; rm -f bench-fattree-36-3.net; test $$status -eq 0; \
	fi
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/sim-vs-ibsim.sh 36 7
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/capture-overhead.sh 36 201
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/replay-vs-sim.sh 36 3 5
# The shared fabric against in-process and ibsim, one table: 648 HCAs (5
# runs), 11,664 (1 run) and 54,000 (1 run; ibsim's opensm left out there).
	if test -x cli/umad$(EXEEXT) && test -f .libs/backend-sim.so; then \
		top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
			$(SHELL) $(srcdir)/bench/fabric-vs-ibsim.sh 36 2 5  36 3 3  60 3 1; \
	fi
# The device files of umad kernel against ibsim and in-process, on the
# 11,664-HCA fat tree (KERNEL_BENCH_TREE="36 2" for a quick one; PERF=1 adds
# where the time goes).
	if test -n '$(bench_kernel_fs)' && test -x cli/umad$(EXEEXT) && test -f .libs/backend-sim.so; then \
		top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
			$(SHELL) $(srcdir)/bench/kernel-vs-ibsim.sh; \
	fi
