/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A reader for the capture files libumad writes (and for any pcapng or
 * classic pcap file of ERF InfiniBand records, such as ibdump's): packets
 * with their interface, time, direction, comment and packet id, which
 * libpcap does not expose.  Bad input gives "FILE: offset N: message"
 * ("FILE: offset N: packet K: message" in a packet; see capture_next).
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
	/*
	 * The pcapng section (from 1; 0 in classic pcap), and whose it is: one
	 * process writing with others has several sections, each with its
	 * interfaces numbered as in the others, and the same comment in their
	 * section headers (pcapng_writer.h).  writer is a hash of that comment
	 * with CAPTURE_WRITER_NAMED set, or the section's number for a section
	 * without one: records of one writer share it, so interface ids and
	 * TIDs are to be compared between records of the same writer only.
	 */
	unsigned long section;
	uint64_t writer;
};

#define CAPTURE_WRITER_NAMED	(1ull << 63)

/* Open path; NULL with the reason in err ("FILE: ..."). */
struct capture_reader *capture_open(const char *path, struct umad_err *err);
/*
 * The next ERF InfiniBand record (packets of other link types and ERF
 * InfiniBand link-layer records are skipped): 1, 0 at the end of the file,
 * or -errno with the reason in err: -EBADMSG for a file that contradicts
 * itself, -ENOMEM.  The record stays valid until the next call.
 * A file that contradicts itself is refused where it does: "FILE: offset
 * N: " (the block or record), "packet K: " (as tshark numbers frames) for a
 * packet, then what is wrong.  Refused are, besides blocks cut short or
 * whose lengths disagree: a pcapng version other than 1.0 (or 1.2), a
 * classic pcap version other than 2; a packet on an interface no block
 * described before it; a packet longer than its original length or than
 * its interface's snap length, or cut shorter than its original length (a
 * MAD needs all of it); an option that runs past its block; an ERF record
 * of a type other than InfiniBand, whose record length is not the captured
 * length, whose wire length disagrees with what follows its header, or whose
 * packet is shorter than the length its LRH gives.
 */
int capture_next(struct capture_reader *r, struct capture_record *rec, struct umad_err *err);
void capture_close(struct capture_reader *r);

/*
 * A descriptor of the file being read (its own, the caller closes it), to
 * read records' packets again later at their packet_at with pread(2):
 * >= 0, -ESPIPE for a stream (a pipe), whose bytes cannot be read twice,
 * or -errno.
 */
int capture_reopen(const struct capture_reader *r);

/*
 * Once capture_next() has returned 0: 1 when no record it gave held a MAD
 * (capture_mad), with why as "FILE: message" in why (umad_err_set): only a
 * section header, no InfiniBand (ERF) interface, no packet, or packets none
 * of which is a MAD (and what they are); 0 when the file held MADs.
 */
int capture_why_no_mad(const struct capture_reader *r, struct umad_err *why);
/* How many packets read so far carried no MAD (other link types, link records, other IB traffic). */
unsigned long capture_not_mads(const struct capture_reader *r);
/* "Ethernet" and the like for messages, or NULL for a link type without a name here. */
const char *capture_linktype_name(int linktype);

/*
 * The MAD of a record's packet (after the LRH, a GRH if the LRH says so,
 * the BTH and the DETH; the ICRC and VCRC left off): its bytes, *mad_len
 * of them, or NULL when the packet is not a UD SEND to or from QP0 or QP1
 * (other InfiniBand traffic, as ibdump captures it) or is too short to
 * hold a MAD header.
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
