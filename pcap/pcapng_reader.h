/*
 * A reader for the capture files libumad writes (and for any pcapng or
 * classic pcap file of ERF InfiniBand records, such as ibdump's): packets
 * with their interface, time, direction, comment and packet id, which
 * libpcap does not expose.  Bad input gives "FILE: offset N: message".
 */
#ifndef LIBUMAD_PCAPNG_READER_H
#define LIBUMAD_PCAPNG_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct capture_reader;

struct capture_record {
	int iface;			/* interface id (0 in classic pcap) */
	const char *iface_name;		/* "mlx5_0:1", or "" */
	uint64_t ts_ns;			/* Unix time, nanoseconds */
	int direction;			/* 0 unknown, 1 inbound, 2 outbound */
	const uint8_t *packet;		/* the IB packet (LRH..), ERF header removed */
	size_t len;
	const char *comment;		/* "" when none */
	uint64_t packet_id;		/* 0 when none */
};

/* Open path; NULL with the reason in err (size errlen). */
struct capture_reader *capture_open(const char *path, char *err, size_t errlen);
/*
 * The next ERF InfiniBand record (others are skipped): 1, 0 at the end of
 * the file, or -1 with the reason in err.  The record stays valid until the
 * next call.
 */
int capture_next(struct capture_reader *r, struct capture_record *rec, char *err, size_t errlen);
void capture_close(struct capture_reader *r);

#endif /* LIBUMAD_PCAPNG_READER_H */
