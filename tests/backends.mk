# The user-space umad ports the sim and replay backends share: the kernel's
# registration and send rules, and the exactly-once completion of sends.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_mad_rules
TESTS += tests/test_mad_rules
tests_test_mad_rules_SOURCES = tests/test_mad_rules.c backends/mad_rules.c backends/mad_rules.h
tests_test_mad_rules_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_mad_rules_LDADD = $(CMOCKA_LIBS)
endif
