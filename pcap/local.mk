# Capture format: IB packet synthesis and the pcapng writer (libc only, so
# that the capture tap can live in libibumad.so.3 itself).
noinst_LTLIBRARIES += pcap/libcaptureformat.la
pcap_libcaptureformat_la_SOURCES = \
	pcap/ib_packet.c pcap/ib_packet.h \
	pcap/pcapng_writer.c pcap/pcapng_writer.h
