# The umad command-line front end: one table of commands (cli/cmd_table.h),
# each row present in a build that has what it needs: capture's commands,
# the shared fabric's, umad kernel's, and doctor in every build with umad.
if BUILD_UMAD
bin_PROGRAMS += cli/umad
# The loader's view of programs and libraries (elf_file, ld_cache, lib_search):
# which libibumad.so.3 umad and its COMMAND run on, and umad doctor.
cli_umad_SOURCES = cli/umad.c cli/cmd_table.c cli/cmd_table.h \
	cli/elf_file.c cli/elf_file.h cli/ld_cache.c cli/ld_cache.h \
	cli/lib_search.c cli/lib_search.h cli/own_library.c cli/own_library.h \
	cli/command_check.c cli/command_check.h cli/doctor.c cli/doctor.h
nodist_cli_umad_SOURCES = cli/umad_abi.h
cli_umad_CPPFLAGS = $(AM_CPPFLAGS) -DUMAD_MODULE_DIR='"$(umadmoduledir)"' $(GLIB_CFLAGS)
# The command table's options are GOption's: glib, in every build with umad.
cli_umad_LDADD = libibumad.la $(GLIB_LIBS)
# umad finds its own libibumad.so.3 wherever it is installed, ldconfig or not:
# DT_RPATH (searched before LD_LIBRARY_PATH, unlike DT_RUNPATH) holding libdir
# relative to bindir as configure saw them ($ORIGIN: a DESTDIR install, a moved
# tree too); not libdir itself, which would win over the build tree's .libs
# where an older one is installed.
# In the build tree it holds none, and libtool's wrapper finds .libs.
cli_umad_LDFLAGS = -Wl,--disable-new-dtags \
	-Wl,-rpath,'$$ORIGIN/$(UMAD_LIB_FROM_BIN)'
if ENABLE_CAPTURE
# umad capture: a command's MADs to pcapng, and what a capture holds.
cli_umad_SOURCES += cli/capture_cmd.c cli/capture_cmd.h
cli_umad_CPPFLAGS += -DUMAD_CLI_CAPTURE=1
cli_umad_LDADD += pcap/libcapture.la pcap/libcapturereader.la pcap/libcapturemeta.la
endif
if ENABLE_SIM
# The shared fabric's commands: fabric serve, sim, the faults.
cli_umad_SOURCES += cli/fabric_cmd.c cli/fabric_cmd.h cli/command_run.c cli/command_run.h \
	cli/run_state.c cli/run_state.h backends/runtime_dir.c backends/runtime_dir.h
cli_umad_CPPFLAGS += -DUMAD_CLI_FABRIC=1
cli_umad_LDADD += simfabric/libfabricserver.la
if ENABLE_KERNEL_FS
# umad kernel: the host's device files and sysfs through FUSE.
cli_umad_SOURCES += cli/kernel_cmd.c cli/kernel_cmd.h cli/kernel_ns.c cli/kernel_ns.h \
	cli/kfs.c cli/kfs.h cli/kfs_state.h cli/kfs_tree.c cli/kfs_tree.h \
	cli/kfs_dev.c cli/kfs_dev.h cli/kfs_query.c cli/kfs_query.h
cli_umad_CPPFLAGS += -DUMAD_CLI_KERNEL=1 $(FUSE3_CFLAGS)
cli_umad_LDADD += backends/libsysfswriter.la $(FUSE3_LIBS)
endif
endif

# umad --version: the libibumad ABI umad speaks, the SONAME the library was
# linked with (libibumad.la's dlname) and the symbol versions of its version
# script, as they are (not copies to keep in step).
UMAD_ABI_MAP = $(top_srcdir)/libumad/libibumad.map
cli/umad_abi.h: $(UMAD_ABI_MAP) libibumad.la
	$(AM_V_GEN)$(MKDIR_P) cli && { \
	  echo '/* Made by make from libibumad.la and libumad/libibumad.map: what umad --version names. */'; \
	  sed -n "s/^dlname='\(.*\)'/#define UMAD_ABI_SONAME \"\1\"/p" libibumad.la; \
	  sed -n 's/^\(IBUMAD_[0-9.]*\) *{.*/#define UMAD_ABI_OLDEST "\1"/p' $(UMAD_ABI_MAP) | sed 1q; \
	  sed -n 's/^\(IBUMAD_[0-9.]*\) *{.*/#define UMAD_ABI_NEWEST "\1"/p' $(UMAD_ABI_MAP) | sed '$$!d'; \
	} > $@-t && mv $@-t $@
# Made before umad.c is compiled (automake's dependencies know of it only after).
cli/umad-umad.$(OBJEXT): cli/umad_abi.h
CLEANFILES += cli/umad_abi.h
endif
