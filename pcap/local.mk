# Capture: IB packet synthesis, the pcapng writer and the in-library tap.
# libc only, so the tap lives in libibumad.so.3 itself and works with every
# backend.
noinst_LTLIBRARIES += pcap/libcapture.la
pcap_libcapture_la_SOURCES = \
	pcap/ib_packet.c pcap/ib_packet.h \
	pcap/pcapng_writer.c pcap/pcapng_writer.h \
	pcap/capture_tap.c pcap/capture_tap.h
