# Which libibumad.so.3 umad and its COMMAND run on (issue 36): the ELF reader
# and the loader's search (cmocka), and an install without ldconfig with
# programs of every kind under umad sim and umad doctor (tests/cli_lib.sh).
if ENABLE_CAPTURE
if HAVE_CMOCKA
check_PROGRAMS += tests/test_elf_file
TESTS += tests/test_elf_file
tests_test_elf_file_SOURCES = tests/test_elf_file.c cli/elf_file.c cli/elf_file.h \
	cli/ld_cache.c cli/ld_cache.h cli/lib_search.c cli/lib_search.h
tests_test_elf_file_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DTEST_LIBIBUMAD='"$(abs_top_builddir)/.libs/libibumad.so.3"'
tests_test_elf_file_LDADD = $(CMOCKA_LIBS)
endif
if ENABLE_SIM
TESTS += tests/cli_lib.sh
endif
endif
EXTRA_DIST += tests/cli_lib.sh tests/cli_lib_probe.c tests/cli_lib_static.c
