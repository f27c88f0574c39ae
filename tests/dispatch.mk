# Backend selection and the module loader, on the template backend
# (backends/loopback.c, built as .libs/backend-loopback.so) and
# variants of it in directories of their own (see tests/loopback_backend.c):
# tests/ (with a hook for the capture tests), tests/wrong-abi/ and
# tests/no-recv/ (modules the loader must refuse).
check_LTLIBRARIES += tests/backend-loopback.la tests/wrong-abi/backend-loopback.la \
	tests/no-recv/backend-loopback.la
test_module_ldflags = -module -avoid-version -shared -rpath /nowhere
tests_backend_loopback_la_SOURCES = tests/loopback_backend.c
tests_backend_loopback_la_LDFLAGS = $(test_module_ldflags)
tests_wrong_abi_backend_loopback_la_SOURCES = tests/loopback_backend.c
tests_wrong_abi_backend_loopback_la_CPPFLAGS = $(AM_CPPFLAGS) -DLOOPBACK_WRONG_ABI
tests_wrong_abi_backend_loopback_la_LDFLAGS = $(test_module_ldflags)
tests_no_recv_backend_loopback_la_SOURCES = tests/loopback_backend.c
tests_no_recv_backend_loopback_la_CPPFLAGS = $(AM_CPPFLAGS) -DLOOPBACK_NO_RECV
tests_no_recv_backend_loopback_la_LDFLAGS = $(test_module_ldflags)

if HAVE_CMOCKA
check_PROGRAMS += tests/test_dispatch
TESTS += tests/test_dispatch
tests_test_dispatch_SOURCES = tests/test_dispatch.c tests/child.c tests/child.h
tests_test_dispatch_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DTEMPLATE_MODULE_DIR='"$(abs_top_builddir)/.libs"' \
	-DWRONG_ABI_MODULE_DIR='"$(abs_top_builddir)/tests/wrong-abi/.libs"' \
	-DNO_RECV_MODULE_DIR='"$(abs_top_builddir)/tests/no-recv/.libs"'
tests_test_dispatch_LDADD = libibumad.la $(CMOCKA_LIBS)
tests_test_dispatch_DEPENDENCIES = libibumad.la backend-loopback.la \
	tests/wrong-abi/backend-loopback.la tests/no-recv/backend-loopback.la
endif
