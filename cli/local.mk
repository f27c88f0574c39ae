# The umad command-line front end: its commands are capture's.
if ENABLE_CAPTURE
bin_PROGRAMS += cli/umad
cli_umad_SOURCES = cli/umad.c
cli_umad_CPPFLAGS = $(AM_CPPFLAGS) -DUMAD_MODULE_DIR='"$(umadmoduledir)"'
cli_umad_LDADD = pcap/libcapturereader.la pcap/libcapturemeta.la libibumad.la
endif
