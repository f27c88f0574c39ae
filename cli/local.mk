# The umad command-line front end: capture's commands, and the shared fabric's.
if ENABLE_CAPTURE
bin_PROGRAMS += cli/umad
cli_umad_SOURCES = cli/umad.c
cli_umad_CPPFLAGS = $(AM_CPPFLAGS) -DUMAD_MODULE_DIR='"$(umadmoduledir)"'
cli_umad_LDADD = pcap/libcapturereader.la pcap/libcapturemeta.la libibumad.la
if ENABLE_SIM
# The shared fabric's commands: fabric serve, sim, the faults.
cli_umad_SOURCES += cli/fabric_cmd.c cli/fabric_cmd.h
cli_umad_CPPFLAGS += -DUMAD_CLI_FABRIC=1
cli_umad_LDADD += simfabric/libfabricserver.la $(GLIB_LIBS)
endif
endif
