# The kernel backend on fake sysfs trees: parsing and selection rules.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_kernel
TESTS += tests/test_kernel
tests_test_kernel_SOURCES = tests/test_kernel.c
tests_test_kernel_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_kernel_LDADD = libumad/libumad-core.la backends/libsysfswriter.la $(CMOCKA_LIBS)
endif

# The private namespace a command on a simulated host runs in (cli/kernel_ns.c),
# driven with a tmpfs for the host's tree, as root and as another user.
if HAVE_MOUNT_API
check_PROGRAMS += tests/kernel_ns_try
endif
tests_kernel_ns_try_SOURCES = tests/kernel_ns_try.c cli/kernel_ns.c cli/kernel_ns.h
TESTS += tests/kernel_ns.sh
EXTRA_DIST += tests/kernel_ns.sh
