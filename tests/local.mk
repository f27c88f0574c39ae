# Test programs and scripts; each group keeps its own fragment.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir;

include tests/dispatch.mk
include tests/headers.mk
include tests/kernel.mk
include tests/api.mk
include tests/diff.mk
include tests/capture.mk
include tests/sim.mk
include tests/backends.mk
