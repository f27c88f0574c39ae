# Capture format: packet synthesis, pcapng files read by libpcap and tshark.
if HAVE_CMOCKA
if ENABLE_PCAP
check_PROGRAMS += tests/test_capture_format
TESTS += tests/test_capture_format
tests_test_capture_format_SOURCES = tests/test_capture_format.c
tests_test_capture_format_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(PCAP_CFLAGS)
tests_test_capture_format_LDADD = pcap/libcaptureformat.la $(PCAP_LIBS) $(CMOCKA_LIBS)
endif
endif
