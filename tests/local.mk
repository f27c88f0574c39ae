# Test programs and scripts; each group keeps its own fragment.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(script_sanitizer_env) $(SHELL)
# Every process a test starts carries the run's mark and the test's name
# (tests/procs.sh): one value per `make check`, the id and start time of the
# make that runs the tests (every test's parent), so that concurrent runs
# tell theirs apart; tests/nothing_left.sh looks for it last.
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	UMAD_TEST_RUN="make.$$PPID.`sed 's/.*) //' /proc/$$PPID/stat | cut -d' ' -f20`"; \
	export UMAD_TEST_RUN; UMAD_TEST_NAME='$@'; export UMAD_TEST_NAME;

if ENABLE_SANITIZERS
# Any finding stops the program; the unit tests check for leaks too.
AM_TESTS_ENVIRONMENT += \
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1; export ASAN_OPTIONS; \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1; export UBSAN_OPTIONS; \
	UMAD_SANITIZERS=yes; export UMAD_SANITIZERS;
# The scripts run programs built without sanitizers (opensm, the diags,
# tshark, the shell itself) on the instrumented library: the runtimes are
# preloaded, and those programs' own leaks, C++ allocation pairs and
# memcmp reads past the bytes that differ (mawk's) are not ours to judge;
# umad capture puts its shim before them in LD_PRELOAD.
script_sanitizer_env = env LD_PRELOAD='$(SANITIZER_PRELOAD)' \
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:alloc_dealloc_mismatch=0:strict_memcmp=0:verify_asan_link_order=0
else
script_sanitizer_env =
endif

# One staged install of this build (make install-exec under tests/stage), for
# the tests of an installed umad (stage_install in tests/sim_env.sh), made
# before any test runs: libtool relinks libumad-sim in .libs while it
# installs, which a test running beside it, or a test program linked beside
# it, would find half-made: after them, alone.
check_DATA = tests/stage.stamp
tests/stage.stamp: $(lib_LTLIBRARIES) $(pkglib_LTLIBRARIES) $(bin_PROGRAMS) $(check_PROGRAMS) \
		$(check_LTLIBRARIES)
	rm -rf tests/stage $@
	$(MAKE) $(AM_MAKEFLAGS) install-exec DESTDIR='$(abs_top_builddir)/tests/stage' > tests/stage.log 2>&1 || \
		{ cat tests/stage.log; exit 1; }
	touch $@
clean-local: clean-stage
clean-stage:
	rm -rf tests/stage tests/stage.stamp tests/stage.log
.PHONY: clean-stage

include tests/dispatch.mk
include tests/headers.mk
include tests/kernel.mk
include tests/kernel_fs.mk
include tests/kernel_dev.mk
include tests/api.mk
include tests/diff.mk
include tests/capture.mk
include tests/sim.mk
include tests/backends.mk
include tests/cli_lib.mk
include tests/umad_cli.mk
include tests/fuzz.mk

# Last, after every other test's log (under make -j too): nothing any of
# them started still runs.
TESTS += tests/nothing_left.sh
EXTRA_DIST += tests/nothing_left.sh tests/procs.sh
tests/nothing_left.log: $(TEST_LOGS:tests/nothing_left.log=)
