/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What a capture file says about each MAD besides its packet: the
 * direction (the Enhanced Packet's epb_flags) and the umad metadata (its
 * comment: one line of key=value fields, doc/capture-format.md gives the
 * grammar).  The tap writes them, replay and "umad capture stats" read
 * them, all through this one struct, formatter and parser.  libc only, no
 * allocation: the tap formats on its writer thread, per MAD.
 */
#ifndef LIBUMAD_CAPTURE_META_H
#define LIBUMAD_CAPTURE_META_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/errbuf.h"

/* The direction bits (0-1) of epb_flags. */
enum pcapng_direction {
	PCAPNG_DIR_UNKNOWN = 0,
	PCAPNG_DIR_INBOUND = 1,		/* umad_recv, or a send that timed out */
	PCAPNG_DIR_OUTBOUND = 2,	/* umad_send */
};
#define PCAPNG_DIR_MASK		0x3

/* The comment's keys, in the order the formatter writes them. */
enum capture_meta_key {
	CAPTURE_META_AGENT,
	CAPTURE_META_STATUS,
	CAPTURE_META_TIMEOUT_MS,
	CAPTURE_META_RETRIES,
	CAPTURE_META_QPN,
	CAPTURE_META_QKEY,
	CAPTURE_META_LID,
	CAPTURE_META_SL,
	CAPTURE_META_PATH_BITS,
	CAPTURE_META_PKEY_INDEX,
	CAPTURE_META_GRH,
	CAPTURE_META_LENGTH,
	CAPTURE_META_TIMEOUT,
	CAPTURE_META_SEGMENT,
	CAPTURE_META_KEYS
};

#define CAPTURE_META_BIT(key)	(1u << (key))
/* The keys the tap writes on every MAD: all those before timeout. */
#define CAPTURE_META_ALWAYS	(CAPTURE_META_BIT(CAPTURE_META_TIMEOUT) - 1)

/*
 * Every value is a uint32_t in host order, so that two structs filled
 * field by field compare with memcmp (the tap caches its comments so).
 */
struct capture_meta {
	uint32_t have;			/* CAPTURE_META_BIT() of each key present */
	uint32_t agent;			/* the umad header's agent id */
	uint32_t status;		/* its status, an errno (ETIMEDOUT for a timeout) */
	uint32_t timeout_ms;		/* the send's timeout */
	uint32_t retries;		/* the send's retries */
	uint32_t qpn;			/* the umad address: remote QP, */
	uint32_t qkey;			/* Q_Key, */
	uint32_t lid;			/* LID, */
	uint32_t sl;			/* SL, */
	uint32_t path_bits;		/* path bits, */
	uint32_t pkey_index;		/* P_Key index */
	uint32_t grh;			/* and whether it has a GRH */
	uint32_t length;		/* the MAD's length as umad saw it */
	uint32_t timeout;		/* 1: a send that came back unanswered */
	uint32_t segment, segments;	/* segment N of M of an RMPP message, from 1 */
};

/* Room for any comment the formatter writes, every key at its largest value. */
#define CAPTURE_META_MAX	256

static inline int capture_meta_has(const struct capture_meta *m, enum capture_meta_key key)
{
	return (m->have & CAPTURE_META_BIT(key)) != 0;
}

/*
 * Write the keys of m that it has, in enum order, into out (size bytes,
 * NUL-terminated).  Returns the length, or -ENOSPC (out then empty) when
 * size is smaller than CAPTURE_META_MAX and the line does not fit.
 */
int capture_meta_format(const struct capture_meta *m, char *out, size_t size);

/*
 * Read a comment: keys in any order, unknown keys (a later version's)
 * ignored.  0, or -EINVAL with why in err (a field that is not key=value,
 * a value out of its key's range or not in its form, a key given twice);
 * m then holds the keys read before the fault.
 */
int capture_meta_parse(const char *text, struct capture_meta *m, struct umad_err *err);

#endif /* LIBUMAD_CAPTURE_META_H */
