# umad kernel: the device files' kernel semantics, driven by real system calls
# (kernel_dev_test), and this library's kernel backend on them (kernel_dev_lib);
# kernel_dev.sh serves the host each runs on.
if ENABLE_KERNEL_FS
check_PROGRAMS += tests/kernel_dev_test tests/kernel_dev_lib
TESTS += tests/kernel_dev.sh tests/kernel_long.sh
tests_kernel_dev_test_SOURCES = tests/kernel_dev_test.c tests/kernel_dev_util.c \
	tests/kernel_dev_util.h
tests_kernel_dev_lib_SOURCES = tests/kernel_dev_lib.c tests/kernel_dev_util.c \
	tests/kernel_dev_util.h
tests_kernel_dev_lib_LDADD = libibumad.la
endif
EXTRA_DIST += tests/kernel_dev.sh tests/kernel_long.sh
