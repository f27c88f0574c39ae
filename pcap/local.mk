# Capture: IB packet synthesis, the pcapng writer and the in-library tap.
# libc only, so the tap lives in libibumad.so.3 itself and works with every
# backend.  None of it is built with --disable-capture.
if ENABLE_CAPTURE
# The packet comments' metadata: one formatter (the tap) and one parser
# (replay, the CLI), linked by whoever needs either.
noinst_LTLIBRARIES += pcap/libcapturemeta.la
pcap_libcapturemeta_la_SOURCES = pcap/capture_meta.c pcap/capture_meta.h

noinst_LTLIBRARIES += pcap/libcapture.la
pcap_libcapture_la_SOURCES = \
	pcap/crc.c pcap/crc.h \
	pcap/ib_packet.c pcap/ib_packet.h \
	pcap/capture_file.c pcap/capture_file.h \
	pcap/pcapng_writer.c pcap/pcapng_writer.h pcap/pcapng_format.h \
	pcap/capture_tap.c pcap/capture_tap.h

# libumad-capture.so: the LD_PRELOAD shim for programs on any libibumad.
pkglib_LTLIBRARIES += libumad-capture.la
libumad_capture_la_SOURCES = pcap/capture_preload.c
libumad_capture_la_LIBADD = pcap/libcapture.la pcap/libcapturemeta.la
libumad_capture_la_LDFLAGS = -module -avoid-version -shared -no-undefined \
	-Wl,--version-script=$(srcdir)/pcap/capture_preload.map
EXTRA_libumad_capture_la_DEPENDENCIES = pcap/capture_preload.map

# Reading captures (the CLI, later the replay backend).
noinst_LTLIBRARIES += pcap/libcapturereader.la
pcap_libcapturereader_la_SOURCES = pcap/pcapng_reader.c pcap/pcapng_reader.h pcap/pcapng_format.h
endif
EXTRA_DIST += pcap/capture_preload.map
