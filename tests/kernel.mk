# The kernel backend on fake sysfs trees: parsing and selection rules.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_kernel
TESTS += tests/test_kernel
tests_test_kernel_SOURCES = tests/test_kernel.c
tests_test_kernel_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_kernel_LDADD = libumad/libumad-core.la backends/libsysfswriter.la $(CMOCKA_LIBS)
endif
