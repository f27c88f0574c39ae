# Benchmarks print figures; they are never part of make check.
EXTRA_DIST += bench/capture-overhead.sh scripts/gen-fattree scripts/ibsim-session.sh
.PHONY: bench
bench: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/capture-overhead.sh 36 7
