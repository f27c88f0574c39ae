# The user-space umad ports the sim and replay backends share: the kernel's
# registration and send rules, and the exactly-once completion of sends.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_mad_rules
TESTS += tests/test_mad_rules
tests_test_mad_rules_SOURCES = tests/test_mad_rules.c base/mad_rules.c base/mad_rules.h
tests_test_mad_rules_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_mad_rules_LDADD = $(CMOCKA_LIBS)
endif

# The receive queue: MADs arriving late among immediate ones and timeouts, readiness, claims.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_mad_queue
TESTS += tests/test_mad_queue
tests_test_mad_queue_SOURCES = tests/test_mad_queue.c backends/mad_queue.c backends/mad_queue.h
tests_test_mad_queue_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_mad_queue_LDADD = $(CMOCKA_LIBS) -lpthread
# A MAD arriving at a user-space port: the length checked before any byte is read.
check_PROGRAMS += tests/test_soft_port
TESTS += tests/test_soft_port
tests_test_soft_port_SOURCES = tests/test_soft_port.c $(soft_port_sources) \
	base/mad_rules.c base/mad_rules.h
tests_test_soft_port_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_soft_port_LDADD = $(CMOCKA_LIBS) -lpthread
endif

# The fake sysfs writer against trees someone else has been at: links, owners, modes.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_sysfs_writer
TESTS += tests/test_sysfs_writer
tests_test_sysfs_writer_SOURCES = tests/test_sysfs_writer.c
tests_test_sysfs_writer_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_sysfs_writer_LDADD = backends/libsysfswriter.la $(CMOCKA_LIBS)
endif

# 8 threads, a million timed sends, ports closed under their users: sim and replay.
if HAVE_CMOCKA
if ENABLE_SIM
if ENABLE_CAPTURE
check_PROGRAMS += tests/test_exactly_once
TESTS += tests/test_exactly_once
tests_test_exactly_once_SOURCES = tests/test_exactly_once.c tests/child.c tests/child.h
tests_test_exactly_once_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DMODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_exactly_once_LDADD = libibumad.la $(CMOCKA_LIBS) -lpthread
tests_test_exactly_once_DEPENDENCIES = libibumad.la backend-sim.la backend-replay.la
endif
endif
endif

# The replay backend's index of requests and answers.
if HAVE_CMOCKA
if ENABLE_CAPTURE
check_PROGRAMS += tests/test_replay_index
TESTS += tests/test_replay_index
tests_test_replay_index_SOURCES = tests/test_replay_index.c backends/replay_index.c \
	backends/replay_index.h
tests_test_replay_index_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_replay_index_LDADD = $(CMOCKA_LIBS)
endif
endif

# The replay backend driven directly: answers read back from a file, kept from a pipe,
# and a file changed after loading.
if HAVE_CMOCKA
if ENABLE_CAPTURE
check_PROGRAMS += tests/test_replay_backend
TESTS += tests/test_replay_backend
tests_test_replay_backend_SOURCES = tests/test_replay_backend.c backends/replay.c \
	backends/replay_index.c backends/replay_index.h $(soft_port_sources) base/mad_rules.c \
	pcap/crc.c pcap/ib_packet.c pcap/capture_file.c pcap/pcapng_writer.c
tests_test_replay_backend_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_replay_backend_LDADD = pcap/libcapturereader.la pcap/libcapturemeta.la \
	$(CMOCKA_LIBS) -lpthread
endif
endif

# Run-time directories: no base another user could change, a sweep that takes only the dead's.
if HAVE_CMOCKA
check_PROGRAMS += tests/test_runtime_dir
TESTS += tests/test_runtime_dir
tests_test_runtime_dir_SOURCES = tests/test_runtime_dir.c backends/runtime_dir.c backends/runtime_dir.h
tests_test_runtime_dir_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_runtime_dir_LDADD = $(CMOCKA_LIBS)
endif
