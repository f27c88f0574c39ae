/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A reader for the capture files libumad writes (and for any pcapng or
 * classic pcap file of ERF InfiniBand records, such as ibdump's): packets
 * with their interface, time, direction, comment and packet id, which
 * libpcap does not expose.  Bad input gives "FILE: offset N: message".
 * Not thread-safe: one reader is used by one thread at a time.
 */
#ifndef LIBUMAD_PCAPNG_READER_H
#define LIBUMAD_PCAPNG_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture_meta.h"

struct capture_reader;

struct capture_record {
	int iface;			/* interface id (0 in classic pcap) */
	const char *iface_name;		/* "mlx5_0:1", or "" */
	uint64_t ts_ns;			/* Unix time, nanoseconds */
	enum pcapng_direction direction;	/* as epb_flags says; UNKNOWN without them */
	const uint8_t *packet;		/* the IB packet (LRH..), ERF header removed */
	size_t len;
	const char *comment;		/* "" when none */
	uint64_t packet_id;		/* 0 when none */
	uint64_t packet_at;		/* the file offset the packet starts at */
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

/*
 * A descriptor of the file being read (its own, the caller closes it), to
 * read records' packets again later at their packet_at with pread(2):
 * >= 0, -ESPIPE for a stream (a pipe), whose bytes cannot be read twice,
 * or -errno.
 */
int capture_reopen(const struct capture_reader *r);

/*
 * The link type of an interface (or of a classic pcap file) that is not
 * ERF and whose packets capture_next() therefore skipped, or -1 when every
 * interface seen so far was ERF: a file with no MAD can say why.
 */
int capture_other_linktype(const struct capture_reader *r);
/* "Ethernet" and the like for messages, or NULL for a link type without a name here. */
const char *capture_linktype_name(int linktype);

/*
 * The MAD of a record's packet (after the LRH, a GRH if the LRH says so,
 * the BTH and the DETH; the ICRC and VCRC left off): its bytes, *mad_len
 * of them, or NULL when the packet is too short to hold a MAD header.
 */
const uint8_t *capture_mad(const struct capture_record *rec, size_t *mad_len);

/*
 * The record's direction, PCAPNG_DIR_INBOUND or OUTBOUND.  When the file does not
 * say (classic pcap, as ibdump and editcap write it), a request is taken as
 * sent by the capturing host and a response as received, which is what a
 * capture taken on the host's own port shows.
 */
enum pcapng_direction capture_direction(const struct capture_record *rec);

#endif /* LIBUMAD_PCAPNG_READER_H */
