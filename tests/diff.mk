# Comparison with rdma-core's libibumad (Debian's libibumad3), when installed:
# the exported symbols, and a differential run of tests/diff/probe.c on fake
# sysfs trees in a private mount namespace (needs root; skips otherwise).
TESTS += tests/symbols.sh tests/diff/run.sh
EXTRA_DIST += tests/symbols.sh tests/diff/run.sh tests/diff/probe.c
# run.sh compiles the probe itself (once per header set), with this compiler.
AM_TESTS_ENVIRONMENT += CC='$(CC)'; export CC;
# The fake sysfs writer for scripts: run.sh writes its fixtures with it.
check_PROGRAMS += tests/sysfs_tree
tests_sysfs_tree_SOURCES = tests/sysfs_tree.c
tests_sysfs_tree_LDADD = backends/libsysfswriter.la
