# Backend selection and the module loader, with a loopback test module.
if HAVE_CMOCKA
# The loopback module under the names the loader looks for: backend-sim.so
# (working) and backend-replay.so (built for the wrong contract version).
check_LTLIBRARIES += tests/backend-sim.la tests/backend-replay.la
tests_backend_sim_la_SOURCES = tests/loopback_backend.c
tests_backend_sim_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_backend_replay_la_SOURCES = tests/loopback_backend.c
tests_backend_replay_la_CPPFLAGS = $(AM_CPPFLAGS) -DLOOPBACK_WRONG_ABI
tests_backend_replay_la_LDFLAGS = $(tests_backend_sim_la_LDFLAGS)

check_PROGRAMS += tests/test_dispatch
TESTS += tests/test_dispatch
tests_test_dispatch_SOURCES = tests/test_dispatch.c tests/child.c tests/child.h
tests_test_dispatch_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DTEST_MODULE_DIR='"$(abs_top_builddir)/tests/.libs"'
tests_test_dispatch_LDADD = libibumad.la $(CMOCKA_LIBS)
tests_test_dispatch_DEPENDENCIES = libibumad.la tests/backend-sim.la tests/backend-replay.la
endif
