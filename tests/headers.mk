# Public headers: compile-time layout checks (native; i386 from the script)
# and the value-by-value comparison with rdma-core's installed headers.
check_PROGRAMS += tests/layout_check
TESTS += tests/layout_check tests/header_compat.sh
tests_layout_check_SOURCES = tests/layout_check.c
EXTRA_DIST += tests/header_compat.sh

# The wire format spelled once (base/mad_wire.h): no bare offsets or protocol numbers elsewhere.
TESTS += tests/wire_vocabulary.sh
EXTRA_DIST += tests/wire_vocabulary.sh

# The includes follow the layers (doc/design.md): no arrow up, no module circle.
TESTS += tests/layers.sh
EXTRA_DIST += tests/layers.sh

# No function longer than 120 lines.
TESTS += tests/function_length.sh
EXTRA_DIST += tests/function_length.sh

# One way to tell why in the backends and simfabric (doc/design.md, "Errors"): a struct
# umad_err down, printed only at a boundary.
TESTS += tests/errors_one_way.sh
EXTRA_DIST += tests/errors_one_way.sh

# The attribute and record layouts (base/mad_layout.h) and their accessors.
check_PROGRAMS += tests/test_mad_layout
TESTS += tests/test_mad_layout
tests_test_mad_layout_SOURCES = tests/test_mad_layout.c
tests_test_mad_layout_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_mad_layout_LDADD = $(CMOCKA_LIBS)

# The one way reasons are told (base/errbuf.h): set, prefix, lines counted, NULL, printed.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_errbuf
TESTS += tests/test_errbuf
tests_test_errbuf_SOURCES = tests/test_errbuf.c base/errbuf.h
tests_test_errbuf_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_errbuf_LDADD = $(CMOCKA_LIBS)
endif
