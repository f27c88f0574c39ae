# Benchmarks print figures; they are never part of make check.
EXTRA_DIST += bench/capture-overhead.sh bench/sim-vs-ibsim.sh bench/timing.sh bench/dr_rtt.c bench/replay-vs-sim.sh scripts/gen-fattree scripts/ibsim-session.sh
.PHONY: bench
bench: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/sim-vs-ibsim.sh 36 7
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/capture-overhead.sh 36 201
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/replay-vs-sim.sh 36 3 5
