# The umad command-line front end: capture's commands, and the shared fabric's.
if ENABLE_CAPTURE
bin_PROGRAMS += cli/umad
# The loader's view of programs and libraries (elf_file, ld_cache, lib_search):
# which libibumad.so.3 umad and its COMMAND run on, and umad doctor.
cli_umad_SOURCES = cli/umad.c cli/elf_file.c cli/elf_file.h cli/ld_cache.c cli/ld_cache.h \
	cli/lib_search.c cli/lib_search.h cli/own_library.c cli/own_library.h \
	cli/command_check.c cli/command_check.h cli/doctor.c cli/doctor.h
cli_umad_CPPFLAGS = $(AM_CPPFLAGS) -DUMAD_MODULE_DIR='"$(umadmoduledir)"'
cli_umad_LDADD = pcap/libcapture.la pcap/libcapturereader.la pcap/libcapturemeta.la libibumad.la
# umad finds its own libibumad.so.3 wherever it is installed, ldconfig or not:
# DT_RPATH (searched before LD_LIBRARY_PATH, unlike DT_RUNPATH) holding libdir
# relative to bindir as configure saw them ($ORIGIN: a DESTDIR install, a moved
# tree too); not libdir itself, which would win over the build tree's .libs
# where an older one is installed.
# In the build tree it holds none, and libtool's wrapper finds .libs.
cli_umad_LDFLAGS = -Wl,--disable-new-dtags \
	-Wl,-rpath,'$$ORIGIN/$(UMAD_LIB_FROM_BIN)'
if ENABLE_SIM
# The shared fabric's commands: fabric serve, sim, the faults.
cli_umad_SOURCES += cli/fabric_cmd.c cli/fabric_cmd.h cli/command_run.c cli/command_run.h \
	cli/run_state.c cli/run_state.h backends/runtime_dir.c backends/runtime_dir.h
cli_umad_CPPFLAGS += -DUMAD_CLI_FABRIC=1
cli_umad_LDADD += simfabric/libfabricserver.la $(GLIB_LIBS)
if ENABLE_KERNEL_FS
# umad kernel: the host's device files and sysfs through FUSE.
cli_umad_SOURCES += cli/kernel_cmd.c cli/kernel_cmd.h cli/kernel_ns.c cli/kernel_ns.h \
	cli/kfs.c cli/kfs.h cli/kfs_state.h cli/kfs_tree.c cli/kfs_tree.h \
	cli/kfs_dev.c cli/kfs_dev.h cli/kfs_query.c cli/kfs_query.h
cli_umad_CPPFLAGS += -DUMAD_CLI_KERNEL=1 $(FUSE3_CFLAGS)
cli_umad_LDADD += backends/libsysfswriter.la $(FUSE3_LIBS)
endif
endif
endif
