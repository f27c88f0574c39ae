/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Synthesis of the InfiniBand wire packet around a MAD seen at the umad
 * layer (LRH, optional GRH, BTH, DETH, MAD, ICRC, VCRC), so that capture
 * files decode in stock Wireshark as ibdump's captures do.
 */
#ifndef LIBUMAD_IB_PACKET_H
#define LIBUMAD_IB_PACKET_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/umad.h>

#include "base/mad_wire.h"

/* Largest packet: headers + one MAD + CRCs. */
#define IB_MAD_PACKET_MAX (IB_LRH_LEN + IB_GRH_LEN + IB_BTH_LEN + IB_DETH_LEN + MAD_SIZE + \
			   IB_ICRC_LEN + IB_VCRC_LEN)

/* What the packet needs besides the umad header: the capturing port's side. */
struct ib_packet_ends {
	int outbound;			/* 1: umad_send, 0: umad_recv */
	uint16_t local_lid;		/* base LID | path bits; LID_PERMISSIVE when not assigned */
	uint8_t local_qp;		/* the agent's QP: QP0_SMI or QP1_GSI */
	uint16_t pkey;			/* P_Key value at hdr->addr.pkey_index (GMPs) */
	union umad_gid local_gid;	/* for the GRH, when hdr->addr.grh_present */
	uint32_t psn;			/* any; a per-port counter reads best */
};

/* The length of the packet ib_packet_build() makes for mad_len bytes, with or without a GRH. */
static inline size_t ib_packet_len(int grh, size_t mad_len)
{
	return IB_LRH_LEN + (grh ? IB_GRH_LEN : 0) + IB_BTH_LEN + IB_DETH_LEN +
	       ((mad_len + IB_WORD_LEN - 1) & ~(size_t)(IB_WORD_LEN - 1)) + IB_ICRC_LEN + IB_VCRC_LEN;
}

/*
 * Write the packet carrying mad (mad_len bytes, MAD_SIZE for one MAD) into out.
 * Returns its length, or -ENOSPC if max is too small, -EINVAL for a MAD
 * that does not fit one packet (PktLen has 11 bits).
 */
int ib_packet_build(uint8_t *out, size_t max, const struct ib_user_mad *hdr,
		    const uint8_t *mad, size_t mad_len, const struct ib_packet_ends *ends);

/*
 * Does a message longer than one MAD travel as RMPP segments?  Only in the
 * classes the kernel segments (mad_class_is_rmpp) and with the RMPP
 * header's Active flag: anything else is one MAD, its first MAD_SIZE bytes
 * (the kernel accepts nothing longer).
 */
static inline int ib_is_rmpp_message(const uint8_t *mad, size_t mad_len)
{
	return mad_len > RMPP_OFF_FLAGS && mad_class_is_rmpp(mad_class(mad)) &&
	       (mad[RMPP_OFF_FLAGS] & UMAD_RMPP_FLAG_ACTIVE);
}

/* IBA 7.8.1: CRC-32 over LRH..payload with the variant fields set to ones. */
uint32_t ib_icrc(const uint8_t *pkt, size_t len);
/* IBA 7.8.2: CRC-16 (0x100B) over LRH..ICRC. */
uint16_t ib_vcrc(const uint8_t *pkt, size_t len);

#endif /* LIBUMAD_IB_PACKET_H */
