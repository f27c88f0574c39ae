/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The InfiniBand packet around a umad MAD: headers and both CRCs. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "crc.h"
#include "ib_packet.h"

/* ICRC: CRC-32, poly 0x04C11DB7; VCRC: CRC-16, poly 0x100B; both reflected. */
static struct crc_reflected icrc_engine, vcrc_engine;
static pthread_once_t engines_once = PTHREAD_ONCE_INIT;

static void init_engines(void)
{
	crc_reflected_init(&icrc_engine, 0x04c11db7u, 32);
	crc_reflected_init(&vcrc_engine, 0x100bu, 16);
}

/*
 * The length of the headers that hold the ICRC's variant fields, and
 * whether there is a GRH; 0 for a packet too short to have them.
 */
static size_t variant_head(const uint8_t *pkt, size_t len, int *global)
{
	size_t head;

	if (len < IB_LRH_LEN + IB_BTH_LEN)
		return 0;
	*global = (pkt[LRH_OFF_SL_LNH] & LRH_LNH_MASK) == LRH_LNH_GLOBAL;
	head = IB_LRH_LEN + (*global ? IB_GRH_LEN : 0) + IB_BTH_LEN;
	return len < head ? 0 : head;
}

/* The variant fields of headers of length head set to ones, as the ICRC counts them. */
static void mask_variant(uint8_t *hdrs, size_t head, int global)
{
	if (global) {
		uint8_t *grh = hdrs + IB_LRH_LEN;

		memset(hdrs, 0xff, IB_LRH_LEN);
		grh[GRH_OFF_VER_TC_FLOW] |= 0x0f;	/* TClass, high nibble */
		memset(grh + GRH_OFF_VER_TC_FLOW + 1, 0xff, 3);	/* TClass low, FlowLabel */
		grh[GRH_OFF_HOP_LIMIT] = 0xff;
	} else {
		hdrs[LRH_OFF_VL] |= 0xf0;		/* VL */
	}
	hdrs[head - IB_BTH_LEN + BTH_OFF_RESV8A] = 0xff;	/* FECN, BECN, Resv */
}

uint32_t ib_icrc(const uint8_t *pkt, size_t len)
{
	uint8_t masked[IB_LRH_LEN + IB_GRH_LEN + IB_BTH_LEN];
	int global;
	size_t head = variant_head(pkt, len, &global);

	pthread_once(&engines_once, init_engines);
	if (!head)
		return 0;
	/* Only the headers hold variant fields: mask a copy of them, then run on. */
	memcpy(masked, pkt, head);
	mask_variant(masked, head, global);
	return ~crc_reflected_update(&icrc_engine,
				     crc_reflected_update(&icrc_engine, 0xffffffffu, masked, head),
				     pkt + head, len - head);
}

/* The same, on a packet it may write to: masked in place for a while, so one pass does. */
static uint32_t icrc_in_place(uint8_t *pkt, size_t len)
{
	uint8_t saved[IB_LRH_LEN + IB_GRH_LEN + IB_BTH_LEN];
	int global;
	size_t head = variant_head(pkt, len, &global);
	uint32_t icrc;

	pthread_once(&engines_once, init_engines);
	if (!head)
		return 0;
	memcpy(saved, pkt, head);
	mask_variant(pkt, head, global);
	icrc = ~crc_reflected_update(&icrc_engine, 0xffffffffu, pkt, len);
	memcpy(pkt, saved, head);
	return icrc;
}

uint16_t ib_vcrc(const uint8_t *pkt, size_t len)
{
	pthread_once(&engines_once, init_engines);
	return (uint16_t)~crc_reflected_update(&vcrc_engine, 0xffff, pkt, len);
}

int ib_packet_build(uint8_t *out, size_t max, const struct ib_user_mad *hdr,
		    const uint8_t *mad, size_t mad_len, const struct ib_packet_ends *ends)
{
	const ib_mad_addr_t *addr = &hdr->addr;
	int smp = mad_len > MAD_OFF_CLASS && mad_class_is_smp(mad_class(mad));
	int global = addr->grh_present != 0;
	size_t pad = (IB_WORD_LEN - mad_len % IB_WORD_LEN) % IB_WORD_LEN;
	size_t head = IB_LRH_LEN + (global ? IB_GRH_LEN : 0) + IB_BTH_LEN + IB_DETH_LEN;
	size_t icrc_at = head + mad_len + pad;
	size_t total = ib_packet_len(global, mad_len);
	uint16_t remote_lid = be16toh(addr->lid);
	uint32_t remote_qp = be32toh(addr->qpn) & IB_QPN_MASK;
	uint32_t dest_qp, src_qp, qkey, icrc;
	uint8_t *bth, *deth;
	uint16_t vcrc;

	if ((icrc_at + IB_ICRC_LEN) / IB_WORD_LEN > LRH_PKTLEN_MAX)
		return -EINVAL;
	if (total > max)
		return -ENOSPC;

	/* LRH: SMPs travel on VL15 with SL 0. */
	out[LRH_OFF_VL] = smp ? LRH_VL_SMP << LRH_VL_SHIFT : 0;
	out[LRH_OFF_SL_LNH] = (uint8_t)((smp ? 0 : (addr->sl & LRH_SL_MASK)) << LRH_SL_SHIFT |
					(global ? LRH_LNH_GLOBAL : LRH_LNH_LOCAL));
	put_be16(out + LRH_OFF_DLID, ends->outbound ? remote_lid : ends->local_lid);
	put_be16(out + LRH_OFF_PKTLEN, (uint16_t)((icrc_at + IB_ICRC_LEN) / IB_WORD_LEN));
	put_be16(out + LRH_OFF_SLID, ends->outbound ? ends->local_lid : remote_lid);

	if (global) {
		uint8_t *grh = out + IB_LRH_LEN;
		uint32_t flow = be32toh(addr->flow_label) & GRH_FLOW_LABEL_MASK;
		const uint8_t *local = ends->local_gid.raw, *remote = addr->gid;

		put_be32(grh + GRH_OFF_VER_TC_FLOW, (uint32_t)GRH_IP_VERSION << GRH_VERSION_SHIFT |
			 (uint32_t)addr->traffic_class << GRH_TCLASS_SHIFT | flow);
		put_be16(grh + GRH_OFF_PAYLEN,
			 (uint16_t)(IB_BTH_LEN + IB_DETH_LEN + mad_len + pad + IB_ICRC_LEN));
		grh[GRH_OFF_NEXT_HDR] = GRH_NEXT_HDR_BTH;
		grh[GRH_OFF_HOP_LIMIT] = addr->hop_limit;
		memcpy(grh + GRH_OFF_SGID, ends->outbound ? local : remote, sizeof(union umad_gid));
		memcpy(grh + GRH_OFF_DGID, ends->outbound ? remote : local, sizeof(union umad_gid));
	}

	if (ends->outbound) {
		dest_qp = remote_qp;
		src_qp = ends->local_qp;
		qkey = dest_qp == QP0_SMI ? 0 : be32toh(addr->qkey);
	} else {
		dest_qp = ends->local_qp;
		src_qp = remote_qp;
		/* The receiver's QP1 Q_Key; QP0 has none. */
		qkey = dest_qp == QP0_SMI ? 0 : UMAD_QKEY;
	}

	bth = out + head - IB_DETH_LEN - IB_BTH_LEN;
	bth[BTH_OFF_OPCODE] = BTH_OPCODE_UD_SEND_ONLY;
	bth[BTH_OFF_PAD] = (uint8_t)(pad << BTH_PAD_SHIFT);
	put_be16(bth + BTH_OFF_PKEY, smp ? PKEY_DEFAULT : ends->pkey);
	bth[BTH_OFF_RESV8A] = 0;
	put_be24(bth + BTH_OFF_DEST_QP, dest_qp);
	bth[BTH_OFF_ACKREQ] = 0;
	put_be24(bth + BTH_OFF_PSN, ends->psn & BTH_PSN_MASK);

	deth = bth + IB_BTH_LEN;
	put_be32(deth + DETH_OFF_QKEY, qkey);
	deth[DETH_OFF_RESV] = 0;
	put_be24(deth + DETH_OFF_SRC_QP, src_qp);

	memcpy(out + head, mad, mad_len);
	memset(out + head + mad_len, 0, pad);

	/* Both CRCs go on the wire least-significant byte first. */
	icrc = icrc_in_place(out, icrc_at);
	out[icrc_at] = (uint8_t)icrc;
	out[icrc_at + 1] = (uint8_t)(icrc >> 8);
	out[icrc_at + 2] = (uint8_t)(icrc >> 16);
	out[icrc_at + 3] = (uint8_t)(icrc >> 24);
	vcrc = ib_vcrc(out, icrc_at + IB_ICRC_LEN);
	out[icrc_at + 4] = (uint8_t)vcrc;
	out[icrc_at + 5] = (uint8_t)(vcrc >> 8);
	return (int)total;
}
