# Unit tests of every exported function, linked statically with the whole
# library so that linker wraps can fake kernel answers (ioctl results, ENOSPC
# from read, short writes, poll errors), and of every error path's errno.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_api
TESTS += tests/test_api
tests_test_api_SOURCES = tests/test_api.c
tests_test_api_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_api_CFLAGS = $(AM_CFLAGS) -Wall -Wextra -Werror
tests_test_api_LDFLAGS = -Wl,--wrap=ioctl -Wl,--wrap=read -Wl,--wrap=write -Wl,--wrap=poll
tests_test_api_LDADD = libumad/libumad-core.la backends/libsysfswriter.la $(CMOCKA_LIBS)
if ENABLE_SIM
# A backend that loads and refuses to start: the sim backend, with bad settings.
tests_test_api_CPPFLAGS += -DSIM_MODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_api_DEPENDENCIES = libumad/libumad-core.la backends/libsysfswriter.la backend-sim.la
endif
endif

# What README's "Reporting a problem" asks for (the version, a capture and
# its stats) can be had; configure names no bug-report address.
TESTS += tests/report_info.sh
EXTRA_DIST += tests/report_info.sh
