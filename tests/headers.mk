# Public headers: compile-time layout checks (native; i386 from the script)
# and the value-by-value comparison with rdma-core's installed headers.
check_PROGRAMS += tests/layout_check
TESTS += tests/layout_check tests/header_compat.sh
tests_layout_check_SOURCES = tests/layout_check.c
EXTRA_DIST += tests/header_compat.sh

# The wire format spelled once (libumad/mad_wire.h): no bare offsets or protocol numbers elsewhere.
TESTS += tests/wire_vocabulary.sh
EXTRA_DIST += tests/wire_vocabulary.sh
