/* The InfiniBand packet around a umad MAD: headers and both CRCs. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "ib_packet.h"

#define LNH_LOCAL	2	/* LRH, BTH */
#define LNH_GLOBAL	3	/* LRH, GRH, BTH */
#define GRH_NEXT_BTH	0x1b
#define OPCODE_UD_SEND_ONLY 0x64
#define QP1_QKEY	0x80010000u
#define PKEY_DEFAULT	0xffff

/* Slicing-by-8 tables: [0] is the byte-wise table, [k] advances k more bytes. */
static uint32_t crc32_table[8][256];
static uint16_t crc16_table[4][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* Reflected table-driven CRCs: CRC-32 poly 0x04C11DB7 (0xEDB88320), CRC-16 poly 0x100B (0xD008). */
static void build_tables(void)
{
	unsigned i, bit;

	for (i = 0; i < 256; i++) {
		uint32_t c32 = i;
		uint16_t c16 = (uint16_t)i;

		for (bit = 0; bit < 8; bit++) {
			c32 = c32 & 1 ? (c32 >> 1) ^ 0xedb88320u : c32 >> 1;
			c16 = c16 & 1 ? (uint16_t)((c16 >> 1) ^ 0xd008u) : (uint16_t)(c16 >> 1);
		}
		crc32_table[0][i] = c32;
		crc16_table[0][i] = c16;
	}
	for (i = 0; i < 256; i++) {
		for (bit = 1; bit < 8; bit++)
			crc32_table[bit][i] = (crc32_table[bit - 1][i] >> 8) ^
					      crc32_table[0][crc32_table[bit - 1][i] & 0xff];
		for (bit = 1; bit < 4; bit++)
			crc16_table[bit][i] = (uint16_t)((crc16_table[bit - 1][i] >> 8) ^
							 crc16_table[0][crc16_table[bit - 1][i] & 0xff]);
	}
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Eight bytes a step: the capture tap runs this on every MAD. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	const uint32_t (*t)[256] = crc32_table;

	for (; n >= 8; p += 8, n -= 8) {
		uint32_t one = crc ^ le32(p), two = le32(p + 4);

		crc = t[7][one & 0xff] ^ t[6][(one >> 8) & 0xff] ^ t[5][(one >> 16) & 0xff] ^
		      t[4][one >> 24] ^ t[3][two & 0xff] ^ t[2][(two >> 8) & 0xff] ^
		      t[1][(two >> 16) & 0xff] ^ t[0][two >> 24];
	}
	while (n--)
		crc = crc32_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* Four bytes a step (slicing-by-4 of the reflected CRC-16). */
static uint16_t crc16_update(uint16_t crc, const uint8_t *p, size_t n)
{
	const uint16_t (*t)[256] = crc16_table;

	for (; n >= 4; p += 4, n -= 4) {
		uint32_t v = crc ^ le32(p);

		crc = t[3][v & 0xff] ^ t[2][(v >> 8) & 0xff] ^ t[1][(v >> 16) & 0xff] ^
		      t[0][v >> 24];
	}
	while (n--)
		crc = crc16_table[0][(crc ^ *p++) & 0xff] ^ (uint16_t)(crc >> 8);
	return crc;
}

uint32_t ib_icrc(const uint8_t *pkt, size_t len)
{
	uint8_t masked[IB_LRH_LEN + IB_GRH_LEN + IB_BTH_LEN];
	size_t head;
	int global;

	pthread_once(&tables_once, build_tables);
	if (len < IB_LRH_LEN + IB_BTH_LEN)
		return 0;
	global = (pkt[1] & 3) == LNH_GLOBAL;
	head = IB_LRH_LEN + (global ? IB_GRH_LEN : 0) + IB_BTH_LEN;
	if (len < head)
		return 0;
	/* Only the headers hold variant fields: mask a copy of them, then run on. */
	memcpy(masked, pkt, head);
	if (global) {
		memset(masked, 0xff, IB_LRH_LEN);
		masked[IB_LRH_LEN] |= 0x0f;		/* TClass, high nibble */
		masked[IB_LRH_LEN + 1] = 0xff;		/* TClass low, FlowLabel */
		masked[IB_LRH_LEN + 2] = 0xff;
		masked[IB_LRH_LEN + 3] = 0xff;
		masked[IB_LRH_LEN + 7] = 0xff;		/* HopLmt */
	} else {
		masked[0] |= 0xf0;			/* VL */
	}
	masked[head - IB_BTH_LEN + 4] = 0xff;		/* BTH Resv8a / FECN, BECN */
	return ~crc32_update(crc32_update(0xffffffffu, masked, head), pkt + head, len - head);
}

uint16_t ib_vcrc(const uint8_t *pkt, size_t len)
{
	pthread_once(&tables_once, build_tables);
	return (uint16_t)~crc16_update(0xffff, pkt, len);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

int ib_packet_build(uint8_t *out, size_t max, const struct ib_user_mad *hdr,
		    const uint8_t *mad, size_t mad_len, const struct ib_packet_ends *ends)
{
	const ib_mad_addr_t *addr = &hdr->addr;
	int smp = mad_len > 1 && (mad[1] == 0x01 || mad[1] == 0x81);
	int global = addr->grh_present != 0;
	size_t pad = (4 - mad_len % 4) % 4;
	size_t head = IB_LRH_LEN + (global ? IB_GRH_LEN : 0) + IB_BTH_LEN + IB_DETH_LEN;
	size_t icrc_at = head + mad_len + pad;
	size_t total = icrc_at + IB_ICRC_LEN + IB_VCRC_LEN;
	uint16_t remote_lid = be16toh(addr->lid);
	uint32_t remote_qp = be32toh(addr->qpn) & 0xffffff;
	uint32_t dest_qp, src_qp, qkey, icrc;
	uint8_t *bth, *deth;
	uint16_t vcrc;

	if ((icrc_at + IB_ICRC_LEN) / 4 > 0x7ff)
		return -EINVAL;
	if (total > max)
		return -ENOSPC;

	/* LRH: SMPs travel on VL15 with SL 0. */
	out[0] = smp ? 0xf0 : 0x00;
	out[1] = (uint8_t)((smp ? 0 : (addr->sl & 0xf)) << 4 | (global ? LNH_GLOBAL : LNH_LOCAL));
	put16(out + 2, ends->outbound ? remote_lid : ends->local_lid);
	put16(out + 4, (uint16_t)((icrc_at + IB_ICRC_LEN) / 4));
	put16(out + 6, ends->outbound ? ends->local_lid : remote_lid);

	if (global) {
		uint8_t *grh = out + IB_LRH_LEN;
		uint32_t flow = be32toh(addr->flow_label) & 0xfffff;
		const uint8_t *local = ends->local_gid.raw, *remote = addr->gid;

		put32(grh, 6u << 28 | (uint32_t)addr->traffic_class << 20 | flow);
		put16(grh + 4, (uint16_t)(IB_BTH_LEN + IB_DETH_LEN + mad_len + pad + IB_ICRC_LEN));
		grh[6] = GRH_NEXT_BTH;
		grh[7] = addr->hop_limit;
		memcpy(grh + 8, ends->outbound ? local : remote, 16);
		memcpy(grh + 24, ends->outbound ? remote : local, 16);
	}

	if (ends->outbound) {
		dest_qp = remote_qp;
		src_qp = ends->local_qp;
		qkey = dest_qp == 0 ? 0 : be32toh(addr->qkey);
	} else {
		dest_qp = ends->local_qp;
		src_qp = remote_qp;
		/* The receiver's QP1 Q_Key; QP0 has none. */
		qkey = dest_qp == 0 ? 0 : QP1_QKEY;
	}

	bth = out + head - IB_DETH_LEN - IB_BTH_LEN;
	bth[0] = OPCODE_UD_SEND_ONLY;
	bth[1] = (uint8_t)(pad << 4);
	put16(bth + 2, smp ? PKEY_DEFAULT : ends->pkey);
	bth[4] = 0;
	put24(bth + 5, dest_qp);
	bth[8] = 0;
	put24(bth + 9, ends->psn & 0xffffff);

	deth = bth + IB_BTH_LEN;
	put32(deth, qkey);
	deth[4] = 0;
	put24(deth + 5, src_qp);

	memcpy(out + head, mad, mad_len);
	memset(out + head + mad_len, 0, pad);

	/* Both CRCs go on the wire least-significant byte first. */
	icrc = ib_icrc(out, icrc_at);
	out[icrc_at] = (uint8_t)icrc;
	out[icrc_at + 1] = (uint8_t)(icrc >> 8);
	out[icrc_at + 2] = (uint8_t)(icrc >> 16);
	out[icrc_at + 3] = (uint8_t)(icrc >> 24);
	vcrc = ib_vcrc(out, icrc_at + IB_ICRC_LEN);
	out[icrc_at + 4] = (uint8_t)vcrc;
	out[icrc_at + 5] = (uint8_t)(vcrc >> 8);
	return (int)total;
}
