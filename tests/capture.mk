# Capture format: packet synthesis, pcapng files read by libpcap and tshark.
if HAVE_CMOCKA
if HAVE_LIBPCAP
check_PROGRAMS += tests/test_capture_format
TESTS += tests/test_capture_format
tests_test_capture_format_SOURCES = tests/test_capture_format.c tests/child.c tests/child.h
tests_test_capture_format_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(PCAP_CFLAGS) \
	-DUMAD_CLI='"$(abs_top_builddir)/cli/umad"'
tests_test_capture_format_LDADD = pcap/libcapture.la pcap/libcapturereader.la pcap/libcapturemeta.la $(PCAP_LIBS) $(CMOCKA_LIBS)
endif
endif

# The tap through the public API on the loopback module (see dispatch.mk).
if HAVE_CMOCKA
if HAVE_LIBPCAP
check_PROGRAMS += tests/test_capture_tap
TESTS += tests/test_capture_tap
tests_test_capture_tap_SOURCES = tests/test_capture_tap.c tests/child.c tests/child.h \
	tests/capture_writers.h
tests_test_capture_tap_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(PCAP_CFLAGS) \
	-DTEST_MODULE_DIR='"$(abs_top_builddir)/tests/.libs"' \
	-DREPLAY_MODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_capture_tap_LDADD = libibumad.la pcap/libcapturereader.la pcap/libcapturemeta.la $(PCAP_LIBS) $(CMOCKA_LIBS) -lpthread
tests_test_capture_tap_DEPENDENCIES = libibumad.la tests/backend-loopback.la backend-replay.la
endif
endif

# Many processes writing one UMAD_CAPTURE file (the loopback module).
if HAVE_CMOCKA
if HAVE_LIBPCAP
check_PROGRAMS += tests/test_capture_shared
TESTS += tests/test_capture_shared
tests_test_capture_shared_SOURCES = tests/test_capture_shared.c tests/capture_writers.h
tests_test_capture_shared_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(PCAP_CFLAGS) \
	-DTEST_MODULE_DIR='"$(abs_top_builddir)/tests/.libs"'
tests_test_capture_shared_LDADD = libibumad.la pcap/libcapturereader.la pcap/libcapturemeta.la $(PCAP_LIBS) $(CMOCKA_LIBS)
tests_test_capture_shared_DEPENDENCIES = libibumad.la tests/backend-loopback.la
endif
endif

# The LD_PRELOAD shim on Debian's libibumad under ibsim + umad2sim.
if ENABLE_CAPTURE
TESTS += tests/ibsim_capture_replay.sh
endif
EXTRA_DIST += tests/ibsim_capture_replay.sh

# The capture comment: struct, formatter and parser (libc only).
if HAVE_CMOCKA
if ENABLE_CAPTURE
check_PROGRAMS += tests/test_capture_meta
TESTS += tests/test_capture_meta
tests_test_capture_meta_SOURCES = tests/test_capture_meta.c
tests_test_capture_meta_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_capture_meta_LDADD = pcap/libcapturemeta.la $(CMOCKA_LIBS)
endif
endif
