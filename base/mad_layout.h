/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The bodies of attributes and SA records, one table each, in the wire
 * vocabulary (with mad_wire.h, which names the headers around them).
 *
 * A field is where its bits start and how many there are, packed in one
 * mad_field_t; bits are counted from the top bit of the body's first byte,
 * as the IBA's layout tables count them.  mad_get() and mad_set() read and
 * write a field big-endian; a field wider than 64 bits (a GID, a string, a
 * bit map) is reached by its bytes: MAD_AT() and MAD_FIELD_SIZE().
 *
 * Each attribute is one list, in wire order, reserved bits included:
 *   #define NAME_FIELDS(F)  F(FIELD, byte, first bit in that byte, bits) ...
 * MAD_LAYOUT() turns a list into an enum of its fields (their mad_field_t
 * values) and of their positions (FIELD_INDEX, NAME_N_FIELDS).  The same
 * list is the SA's component table for a record (a ComponentMask bit is a
 * field's position), so the encoders, the decoders and the matcher read
 * one description; tests/test_mad_layout.c checks every list covers its
 * body without gaps or overlaps.  A table of like entries (P_Keys, LFT
 * ports, counters) names its first entry: mad_field_elem() is the i-th.
 *
 * Never installed; libc only.
 */
#ifndef UMAD_BASE_MAD_LAYOUT_H
#define UMAD_BASE_MAD_LAYOUT_H

#include <stdint.h>
#include <string.h>

#include "base/mad_wire.h"

/* --- fields ------------------------------------------------------------------------ */

typedef uint32_t mad_field_t;

#define MAD_FIELD_WIDTH_BITS	11	/* up to 1024 bits: NodeDescription, ServiceName */
#define MAD_FIELD(byte, bit, bits) \
	((mad_field_t)((((byte) * 8u + (bit)) << MAD_FIELD_WIDTH_BITS) | (bits)))
/* As constant expressions, for tables and enums. */
#define MAD_FIELD_START(f)	((f) >> MAD_FIELD_WIDTH_BITS)
#define MAD_FIELD_BITS(f)	((f) & ((1u << MAD_FIELD_WIDTH_BITS) - 1))
#define MAD_FIELD_BYTE(f)	(MAD_FIELD_START(f) / 8)
#define MAD_FIELD_SIZE(f)	(MAD_FIELD_BITS(f) / 8)	/* bytes, of a byte-aligned field */
/* The first byte of a field in a body p (const or not). */
#define MAD_AT(p, f)		((p) + MAD_FIELD_BYTE(f))
/* The same field `bytes` further on: one entry of a table of structured entries. */
#define MAD_FIELD_AT(f, bytes)	((mad_field_t)((f) + ((mad_field_t)(bytes) * 8u << MAD_FIELD_WIDTH_BITS)))
/* The first bit after the field. */
#define MAD_FIELD_END(f)	(MAD_FIELD_START(f) + MAD_FIELD_BITS(f))

/*
 * The accessors are always inlined: with a constant field, as the encoders
 * and decoders pass, they fold to the byte accesses one would write by
 * hand, which a call would not.
 */
#define MAD_FIELD_INLINE	static inline __attribute__((always_inline))

/* Entry i of a table of like entries whose entry 0 is f. */
MAD_FIELD_INLINE mad_field_t mad_field_elem(mad_field_t f, unsigned i)
{
	return f + ((mad_field_t)(i * MAD_FIELD_BITS(f)) << MAD_FIELD_WIDTH_BITS);
}

/* The largest value a field of up to 64 bits holds. */
MAD_FIELD_INLINE uint64_t mad_field_max(mad_field_t f)
{
	return MAD_FIELD_BITS(f) >= 64 ? UINT64_MAX : (UINT64_C(1) << MAD_FIELD_BITS(f)) - 1;
}

/* Read a field of up to 64 bits (one that is not byte-aligned spans at most 8 bytes). */
MAD_FIELD_INLINE uint64_t mad_get(const uint8_t *p, mad_field_t f)
{
	unsigned start = MAD_FIELD_START(f), bits = MAD_FIELD_BITS(f), first, last, low, i;
	uint64_t v = 0;

	if ((start | bits) % 8 == 0) {
		const uint8_t *q = p + start / 8;

		switch (bits) {
		case 8: return *q;
		case 16: return get_be16(q);
		case 24: return get_be24(q);
		case 32: return get_be32(q);
		case 64: return get_be64(q);
		default: break;
		}
	}
	first = start / 8;
	last = (start + bits - 1) / 8;
	low = -(start + bits) % 8;
	if (first == last)
		return (uint64_t)(p[first] >> low) & mad_field_max(f);
	for (i = first; i <= last; i++)
		v = v << 8 | p[i];
	return (v >> low) & mad_field_max(f);
}

/* Write a field of up to 64 bits, v cut to its width; the bits around it stay. */
MAD_FIELD_INLINE void mad_set(uint8_t *p, mad_field_t f, uint64_t v)
{
	unsigned start = MAD_FIELD_START(f), bits = MAD_FIELD_BITS(f), first, last, low, i;
	uint64_t mask;

	if ((start | bits) % 8 == 0) {
		uint8_t *q = p + start / 8;

		switch (bits) {
		case 8: *q = (uint8_t)v; return;
		case 16: put_be16(q, (uint16_t)v); return;
		case 24: put_be24(q, (uint32_t)v); return;
		case 32: put_be32(q, (uint32_t)v); return;
		case 64: put_be64(q, v); return;
		default: break;
		}
	}
	first = start / 8;
	last = (start + bits - 1) / 8;
	low = -(start + bits) % 8;
	if (first == last) {
		uint8_t in = (uint8_t)(mad_field_max(f) << low);

		p[first] = (uint8_t)((p[first] & ~in) | ((v << low) & in));
		return;
	}
	mask = mad_field_max(f) << low;
	v <<= low;
	for (i = last + 1; i-- > first; mask >>= 8, v >>= 8)
		p[i] = (uint8_t)((p[i] & ~mask) | (v & mask));
}

/*
 * Entry i of a table of like entries whose entry 0 is f, read and written.
 * The same as mad_get/mad_set of mad_field_elem(f, i), quicker in a loop:
 * with f constant, only the entry's place is worked out at run time.
 */
MAD_FIELD_INLINE uint64_t mad_get_elem(const uint8_t *p, mad_field_t f, unsigned i)
{
	unsigned start = MAD_FIELD_START(f), bits = MAD_FIELD_BITS(f);

	if ((start | bits) % 8 == 0)
		return mad_get(p + i * (bits / 8), f);
	if (start % 8 == 0 && 8 % bits == 0) {
		/* Entries packed within bytes (SL-to-VL's 4 bits): entry i's byte and bits. */
		unsigned bit = i * bits;

		return (uint64_t)(p[start / 8 + bit / 8] >> (8 - bits - bit % 8)) & mad_field_max(f);
	}
	return mad_get(p, mad_field_elem(f, i));
}

MAD_FIELD_INLINE void mad_set_elem(uint8_t *p, mad_field_t f, unsigned i, uint64_t v)
{
	unsigned start = MAD_FIELD_START(f), bits = MAD_FIELD_BITS(f);

	if ((start | bits) % 8 == 0) {
		mad_set(p + i * (bits / 8), f, v);
	} else if (start % 8 == 0 && 8 % bits == 0) {
		/* Entries packed within bytes (SL-to-VL's 4 bits): entry i's byte and bits. */
		unsigned bit = i * bits, low = 8 - bits - bit % 8;
		uint8_t in = (uint8_t)(mad_field_max(f) << low), *b = p + start / 8 + bit / 8;

		*b = (uint8_t)((*b & ~in) | ((v << low) & in));
	} else {
		mad_set(p, mad_field_elem(f, i), v);
	}
}

/* Does a field hold the same bits in two bodies (of any width)? */
static inline int mad_field_equal(const uint8_t *a, const uint8_t *b, mad_field_t f)
{
	if (MAD_FIELD_START(f) % 8 == 0 && MAD_FIELD_BITS(f) % 8 == 0)
		return !memcmp(MAD_AT(a, f), MAD_AT(b, f), MAD_FIELD_SIZE(f));
	return mad_get(a, f) == mad_get(b, f);
}

/* Copy a byte-aligned field whole (a GID, a string, a table). */
static inline void mad_field_copy(uint8_t *to, const uint8_t *from, mad_field_t f)
{
	memcpy(MAD_AT(to, f), MAD_AT(from, f), MAD_FIELD_SIZE(f));
}

/* An attribute's list as enums: its fields, and their positions in the list. */
#define MAD_FIELD_ENUM(name, byte, bit, bits)	name = MAD_FIELD(byte, bit, bits),
#define MAD_FIELD_INDEX(name, byte, bit, bits)	name##_INDEX,
#define MAD_FIELD_ITEM(name, byte, bit, bits)	name,
#define MAD_LAYOUT(NAME) \
	enum { NAME##_FIELDS(MAD_FIELD_ENUM) }; \
	enum { NAME##_FIELDS(MAD_FIELD_INDEX) NAME##_N_FIELDS }

/* --- subnet management attributes (SMP data) ------------------------------------------- */

/* NodeDescription: a string, NUL-padded. */
#define NODE_DESC_FIELDS(F) \
	F(ND_STRING,			 0, 0, 512)
MAD_LAYOUT(NODE_DESC);

/* NodeInfo. */
#define NODE_INFO_FIELDS(F) \
	F(NI_BASE_VERSION,		 0, 0, 8) \
	F(NI_CLASS_VERSION,		 1, 0, 8) \
	F(NI_NODE_TYPE,			 2, 0, 8)	/* enum node_type */ \
	F(NI_NUM_PORTS,			 3, 0, 8) \
	F(NI_SYS_IMAGE_GUID,		 4, 0, 64) \
	F(NI_NODE_GUID,			12, 0, 64) \
	F(NI_PORT_GUID,			20, 0, 64) \
	F(NI_PARTITION_CAP,		28, 0, 16) \
	F(NI_DEVICE_ID,			30, 0, 16) \
	F(NI_REVISION,			32, 0, 32) \
	F(NI_LOCAL_PORT_NUM,		36, 0, 8) \
	F(NI_VENDOR_ID,			37, 0, 24)
MAD_LAYOUT(NODE_INFO);

/* PortInfo. */
#define PORT_INFO_FIELDS(F) \
	F(PI_M_KEY,			 0, 0, 64) \
	F(PI_GID_PREFIX,		 8, 0, 64) \
	F(PI_LID,			16, 0, 16) \
	F(PI_MASTER_SM_LID,		18, 0, 16) \
	F(PI_CAPABILITY_MASK,		20, 0, 32)	/* PORT_CAP_* */ \
	F(PI_DIAG_CODE,			24, 0, 16) \
	F(PI_M_KEY_LEASE_PERIOD,	26, 0, 16) \
	F(PI_LOCAL_PORT_NUM,		28, 0, 8) \
	F(PI_LINK_WIDTH_ENABLED,	29, 0, 8)	/* LINK_WIDTH_* */ \
	F(PI_LINK_WIDTH_SUPPORTED,	30, 0, 8) \
	F(PI_LINK_WIDTH_ACTIVE,		31, 0, 8) \
	F(PI_LINK_SPEED_SUPPORTED,	32, 0, 4)	/* LINK_SPEED_* */ \
	F(PI_PORT_STATE,		32, 4, 4)	/* enum port_state */ \
	F(PI_PORT_PHYS_STATE,		33, 0, 4)	/* enum port_phys_state */ \
	F(PI_LINK_DOWN_DEFAULT_STATE,	33, 4, 4) \
	F(PI_M_KEY_PROTECT_BITS,	34, 0, 2) \
	F(PI_RESERVED_34,		34, 2, 3) \
	F(PI_LMC,			34, 5, 3) \
	F(PI_LINK_SPEED_ACTIVE,		35, 0, 4) \
	F(PI_LINK_SPEED_ENABLED,	35, 4, 4) \
	F(PI_NEIGHBOR_MTU,		36, 0, 4)	/* enum sa_mtu */ \
	F(PI_MASTER_SM_SL,		36, 4, 4) \
	F(PI_VL_CAP,			37, 0, 4) \
	F(PI_INIT_TYPE,			37, 4, 4) \
	F(PI_VL_HIGH_LIMIT,		38, 0, 8) \
	F(PI_VL_ARB_HIGH_CAP,		39, 0, 8) \
	F(PI_VL_ARB_LOW_CAP,		40, 0, 8) \
	F(PI_INIT_TYPE_REPLY,		41, 0, 4) \
	F(PI_MTU_CAP,			41, 4, 4) \
	F(PI_VL_STALL_COUNT,		42, 0, 3) \
	F(PI_HOQ_LIFE,			42, 3, 5) \
	F(PI_OPERATIONAL_VLS,		43, 0, 4) \
	F(PI_PARTITION_ENFORCEMENT_INBOUND, 43, 4, 1) \
	F(PI_PARTITION_ENFORCEMENT_OUTBOUND, 43, 5, 1) \
	F(PI_FILTER_RAW_INBOUND,	43, 6, 1) \
	F(PI_FILTER_RAW_OUTBOUND,	43, 7, 1) \
	F(PI_M_KEY_VIOLATIONS,		44, 0, 16) \
	F(PI_P_KEY_VIOLATIONS,		46, 0, 16) \
	F(PI_Q_KEY_VIOLATIONS,		48, 0, 16) \
	F(PI_GUID_CAP,			50, 0, 8) \
	F(PI_CLIENT_REREGISTER,		51, 0, 1) \
	F(PI_MCAST_PKEY_TRAP_SUPPRESSION, 51, 1, 2) \
	F(PI_SUBNET_TIMEOUT,		51, 3, 5) \
	F(PI_RESERVED_52,		52, 0, 3) \
	F(PI_RESP_TIME_VALUE,		52, 3, 5) \
	F(PI_LOCAL_PHY_ERRORS,		53, 0, 4) \
	F(PI_OVERRUN_ERRORS,		53, 4, 4) \
	F(PI_MAX_CREDIT_HINT,		54, 0, 16) \
	F(PI_RESERVED_56,		56, 0, 8) \
	F(PI_LINK_ROUND_TRIP_LATENCY,	57, 0, 24) \
	F(PI_CAPABILITY_MASK2,		60, 0, 16) \
	F(PI_LINK_SPEED_EXT_ACTIVE,	62, 0, 4)	/* LINK_SPEED_EXT_* */ \
	F(PI_LINK_SPEED_EXT_SUPPORTED,	62, 4, 4) \
	F(PI_RESERVED_63,		63, 0, 3) \
	F(PI_LINK_SPEED_EXT_ENABLED,	63, 3, 5)
MAD_LAYOUT(PORT_INFO);

/* The four enforcement bits as one nibble (the model keeps them so), and each bit in it. */
#define PI_PARTITION_ENFORCEMENT \
	MAD_FIELD(MAD_FIELD_BYTE(PI_PARTITION_ENFORCEMENT_INBOUND), \
		  MAD_FIELD_START(PI_PARTITION_ENFORCEMENT_INBOUND) % 8, 4)
#define PORT_ENFORCE_INBOUND		(1u << 3)
#define PORT_ENFORCE_OUTBOUND		(1u << 2)
#define PORT_FILTER_RAW_INBOUND		(1u << 1)
#define PORT_FILTER_RAW_OUTBOUND	(1u << 0)

/* PortInfo values that mean something besides a number. */
#define PORT_LINK_WIDTH_ENABLED_SUPPORTED	0xff	/* a Set enables every supported width */
#define PORT_LINK_SPEED_ENABLED_SUPPORTED	0xf	/* ...every supported speed */
#define PORT_LINK_SPEED_EXT_DISABLED		0x1e	/* a Set turns extended speeds off */
#define PORT_LINK_SPEED_EXT_ENABLED_SUPPORTED	0x1f	/* ...enables every supported one */

/* LinkWidth* bits: 1x, 4x, 8x, 12x, 2x. */
#define LINK_WIDTH_1X		0x01
#define LINK_WIDTH_4X		0x02
#define LINK_WIDTH_8X		0x04
#define LINK_WIDTH_12X		0x08
#define LINK_WIDTH_2X		0x10
/* LinkSpeed* bits: SDR, DDR, QDR; LinkSpeedExt* bits: FDR, EDR, HDR, NDR. */
#define LINK_SPEED_SDR		0x1
#define LINK_SPEED_DDR		0x2
#define LINK_SPEED_QDR		0x4
#define LINK_SPEED_EXT_FDR	0x1
#define LINK_SPEED_EXT_EDR	0x2
#define LINK_SPEED_EXT_HDR	0x4
#define LINK_SPEED_EXT_NDR	0x8

/* PortInfo:CapabilityMask bits. */
#define PORT_CAP_IS_SM			0x00000002u
#define PORT_CAP_IS_NOTICE		0x00000004u
#define PORT_CAP_IS_TRAP		0x00000008u
#define PORT_CAP_IS_SL_MAPPING		0x00000040u
#define PORT_CAP_IS_SM_DISABLED		0x00000400u	/* bit 10 on CAs; LedInfo on switches */
#define PORT_CAP_IS_LED_INFO		PORT_CAP_IS_SM_DISABLED
#define PORT_CAP_IS_SYS_IMAGE_GUID	0x00000800u
#define PORT_CAP_IS_EXT_SPEEDS		0x00004000u
#define PORT_CAP_HAS_CAP_MASK2		0x00008000u
#define PORT_CAP_IS_CM			0x00010000u
#define PORT_CAP_IS_VENDOR_CLASS	0x00080000u
#define PORT_CAP_IS_CAPMASK_NOTICE	0x00400000u
#define PORT_CAP_IS_CLIENT_REREG	0x02000000u

/* PortInfo:CapabilityMask2 bits (valid when CapabilityMask has PORT_CAP_HAS_CAP_MASK2). */
#define PORT_CAP2_IS_PORT_INFO_EXT	0x0002u
#define PORT_CAP2_IS_LINK_WIDTH_2X	0x0010u
#define PORT_CAP2_IS_LINK_SPEED_HDR	0x0020u
#define PORT_CAP2_IS_LINK_SPEED_NDR	0x0400u

/* PortInfo's modifier bit 31 on a Set: the SM knows LinkSpeedExt*. */
#define PI_MOD_SM_SUPPORTS_EXT_SPEEDS	0x80000000u

/* SwitchInfo. */
#define SWITCH_INFO_FIELDS(F) \
	F(SI_LINEAR_FDB_CAP,		 0, 0, 16) \
	F(SI_RANDOM_FDB_CAP,		 2, 0, 16) \
	F(SI_MCAST_FDB_CAP,		 4, 0, 16) \
	F(SI_LINEAR_FDB_TOP,		 6, 0, 16) \
	F(SI_DEFAULT_PORT,		 8, 0, 8) \
	F(SI_DEFAULT_MCAST_PRIMARY_PORT, 9, 0, 8) \
	F(SI_DEFAULT_MCAST_NOT_PRIMARY_PORT, 10, 0, 8) \
	F(SI_LIFE_TIME_VALUE,		11, 0, 5) \
	F(SI_PORT_STATE_CHANGE,		11, 5, 1)	/* written as 1 to clear it */ \
	F(SI_OPTIMIZED_SL2VL_PROGRAMMING, 11, 6, 2) \
	F(SI_LIDS_PER_PORT,		12, 0, 16) \
	F(SI_PARTITION_ENFORCEMENT_CAP,	14, 0, 16) \
	F(SI_INBOUND_ENFORCEMENT_CAP,	16, 0, 1) \
	F(SI_OUTBOUND_ENFORCEMENT_CAP,	16, 1, 1) \
	F(SI_FILTER_RAW_INBOUND_CAP,	16, 2, 1) \
	F(SI_FILTER_RAW_OUTBOUND_CAP,	16, 3, 1) \
	F(SI_ENHANCED_PORT0,		16, 4, 1) \
	F(SI_RESERVED_16,		16, 5, 11) \
	F(SI_MCAST_FDB_TOP,		18, 0, 16)
MAD_LAYOUT(SWITCH_INFO);

/* GUIDInfo: a block of eight GUIDs (entry 0 of block 0 is the port GUID). */
#define GUID_INFO_FIELDS(F) \
	F(GI_GUID0,  0, 0, 64) F(GI_GUID1,  8, 0, 64) F(GI_GUID2, 16, 0, 64) F(GI_GUID3, 24, 0, 64) \
	F(GI_GUID4, 32, 0, 64) F(GI_GUID5, 40, 0, 64) F(GI_GUID6, 48, 0, 64) F(GI_GUID7, 56, 0, 64)
MAD_LAYOUT(GUID_INFO);
#define GUID_INFO_PER_BLOCK	GUID_INFO_N_FIELDS

/* P_KeyTable: a block of 32 P_Keys. */
#define PKEY_TABLE_FIELDS(F) \
	F(PKT_P_KEY0,			 0, 0, 16)	/* entry 0; 32 of them */
MAD_LAYOUT(PKEY_TABLE);
#define PKEY_TABLE_PER_BLOCK	32

/* SLtoVLMappingTable: the VL of each of the 16 SLs. */
#define SL2VL_TABLE_FIELDS(F) \
	F(SL2VL_VL_OF_SL0,		 0, 0, 4)	/* SL 0; 16 of them */
MAD_LAYOUT(SL2VL_TABLE);
#define SL2VL_SLS		16
/* The whole table as one word: SL 0's VL in its top bits. */
#define SL2VL_TABLE		MAD_FIELD(0, 0, SL2VL_SLS * MAD_FIELD_BITS(SL2VL_VL_OF_SL0))

/* VLArbitrationTable: a block of 32 (VL, weight) entries. */
#define VL_ARB_TABLE_FIELDS(F) \
	F(VLA_RESERVED0,		 0, 0, 4) \
	F(VLA_VL0,			 0, 4, 4) \
	F(VLA_WEIGHT0,			 1, 0, 8)	/* entry 0; 32 of them, 2 bytes each */
MAD_LAYOUT(VL_ARB_TABLE);
#define VL_ARB_PER_BLOCK	32
#define VL_ARB_ENTRY_SIZE	2
#define VL_ARB_BLOCKS		4	/* low 0-31, low 32-63, high 0-31, high 32-63 */

/* LinearForwardingTable: the port of each of 64 LIDs; MulticastForwardingTable: 32 port masks. */
#define LFT_BLOCK_FIELDS(F) \
	F(LFT_PORT0,			 0, 0, 8)	/* LID 64 * block; 64 of them */
MAD_LAYOUT(LFT_BLOCK);
#define MFT_BLOCK_FIELDS(F) \
	F(MFT_PORT_MASK0,		 0, 0, 16)	/* MLID 32 * block; 32 of them */
MAD_LAYOUT(MFT_BLOCK);
#define LFT_PER_BLOCK		64
#define MFT_PER_BLOCK		32
#define MFT_PORTS_PER_MASK	16
/* MulticastForwardingTable's modifier: PortMask position in the top 4 bits, block number low. */
#define MFT_MOD_POSITION_SHIFT	28
#define MFT_MOD_BLOCK_MASK	0x1ffu
#define MFT_MOD_RESERVED_MASK	0x0ffffe00u

/* SMInfo. */
#define SM_INFO_FIELDS(F) \
	F(SMI_GUID,			 0, 0, 64) \
	F(SMI_SM_KEY,			 8, 0, 64) \
	F(SMI_ACT_COUNT,		16, 0, 32) \
	F(SMI_PRIORITY,			20, 0, 4) \
	F(SMI_SM_STATE,			20, 4, 4)	/* enum sm_state */
MAD_LAYOUT(SM_INFO);

/* LedInfo. */
#define LED_INFO_FIELDS(F) \
	F(LED_MASK,			 0, 0, 1) \
	F(LED_RESERVED,			 0, 1, 31)
MAD_LAYOUT(LED_INFO);

/*
 * PortInfoExtended (UMAD_SM_ATTR_PORT_INFO_EXT); the modifier is the port,
 * as PortInfo's.  A port has it when PortInfo:CapabilityMask2 says so
 * (PORT_CAP2_IS_PORT_INFO_EXT).  FECModeActive is a FEC_MODE_* value; each
 * speed's Supported and Enabled are masks of them (bit n: FEC mode n).
 */
#define PORT_INFO_EXTENDED_FIELDS(F) \
	F(PIE_CAPABILITY_MASK,		 0, 0, 32) \
	F(PIE_FEC_MODE_ACTIVE,		 4, 0, 16) \
	F(PIE_FDR_FEC_MODE_SUPPORTED,	 6, 0, 16) \
	F(PIE_FDR_FEC_MODE_ENABLED,	 8, 0, 16) \
	F(PIE_EDR_FEC_MODE_SUPPORTED,	10, 0, 16) \
	F(PIE_EDR_FEC_MODE_ENABLED,	12, 0, 16) \
	F(PIE_HDR_FEC_MODE_SUPPORTED,	14, 0, 16) \
	F(PIE_HDR_FEC_MODE_ENABLED,	16, 0, 16) \
	F(PIE_NDR_FEC_MODE_SUPPORTED,	18, 0, 16) \
	F(PIE_NDR_FEC_MODE_ENABLED,	20, 0, 16) \
	F(PIE_RESERVED_22,		22, 0, 336)
MAD_LAYOUT(PORT_INFO_EXTENDED);
/* PortInfoExtended:CapabilityMask: the FEC mode fields mean something. */
#define PIE_CAP_IS_FEC_MODE_SUPPORTED	0x00000001u
/* FEC modes (FECModeActive's values; bit n of the Supported and Enabled masks). */
#define FEC_MODE_NONE			0
#define FEC_MODE_FIRECODE		1
#define FEC_MODE_RS_528_514		2
#define FEC_MODE_LOW_LATENCY_RS		3
#define FEC_MODE_RS_544_514		4

/*
 * MlnxExtPortInfo (UMAD_SM_ATTR_MLNX_EXT_PORT_INFO), a vendor attribute of
 * Mellanox nodes; the modifier is the port, as PortInfo's.  Each field is
 * the low byte of a 32-bit word; the speeds are MLNX_LINK_SPEED_* bits.
 */
#define MLNX_EXT_PORT_INFO_FIELDS(F) \
	F(MEPI_RESERVED_0,		 0, 0, 24) \
	F(MEPI_STATE_CHANGE_ENABLE,	 3, 0, 8) \
	F(MEPI_RESERVED_4,		 4, 0, 24) \
	F(MEPI_LINK_SPEED_SUPPORTED,	 7, 0, 8) \
	F(MEPI_RESERVED_8,		 8, 0, 24) \
	F(MEPI_LINK_SPEED_ENABLED,	11, 0, 8) \
	F(MEPI_RESERVED_12,		12, 0, 24) \
	F(MEPI_LINK_SPEED_ACTIVE,	15, 0, 8) \
	F(MEPI_RESERVED_16,		16, 0, 384)
MAD_LAYOUT(MLNX_EXT_PORT_INFO);
/* MlnxExtPortInfo's LinkSpeed bits: FDR10 (10.3125 Gb/s a lane, 64b/66b). */
#define MLNX_LINK_SPEED_FDR10	0x01

/*
 * GeneralInfo of Mellanox's vendor class (MLNX_VS_ATTR_GENERAL_INFO), from
 * MLNX_VS_OFF_DATA: the hardware, the firmware (its version in bytes, and
 * again in 32-bit words for versions that do not fit them) and the
 * software, as vendstat -N reads them.
 */
#define MLNX_GENERAL_INFO_FIELDS(F) \
	F(MGI_HW_REVISION,		 0, 0, 16) \
	F(MGI_HW_DEVICE_ID,		 2, 0, 16) \
	F(MGI_HW_RESERVED_4,		 4, 0, 192) \
	F(MGI_HW_UPTIME,		28, 0, 32) \
	F(MGI_FW_RESERVED_32,		32, 0, 8) \
	F(MGI_FW_MAJOR,			33, 0, 8) \
	F(MGI_FW_MINOR,			34, 0, 8) \
	F(MGI_FW_SUB_MINOR,		35, 0, 8) \
	F(MGI_FW_BUILD_ID,		36, 0, 32) \
	F(MGI_FW_MONTH,			40, 0, 8) \
	F(MGI_FW_DAY,			41, 0, 8) \
	F(MGI_FW_YEAR,			42, 0, 16) \
	F(MGI_FW_RESERVED_44,		44, 0, 16) \
	F(MGI_FW_HOUR,			46, 0, 16) \
	F(MGI_FW_PSID,			48, 0, 128) \
	F(MGI_FW_INI_FILE_VERSION,	64, 0, 32) \
	F(MGI_FW_EXT_MAJOR,		68, 0, 32) \
	F(MGI_FW_EXT_MINOR,		72, 0, 32) \
	F(MGI_FW_EXT_SUB_MINOR,		76, 0, 32) \
	F(MGI_FW_EXT_RESERVED,		80, 0, 128) \
	F(MGI_SW_RESERVED_96,		96, 0, 8) \
	F(MGI_SW_MAJOR,			97, 0, 8) \
	F(MGI_SW_MINOR,			98, 0, 8) \
	F(MGI_SW_SUB_MINOR,		99, 0, 8) \
	F(MGI_SW_RESERVED_100,		100, 0, 224)
MAD_LAYOUT(MLNX_GENERAL_INFO);

/* The modifiers of the table attributes: which block, and of which port. */
#define SMP_MOD_PKEY_BLOCK_MASK		0xffffu	/* P_KeyTable: port << 16 | block */
#define SMP_MOD_PKEY_PORT_SHIFT		16
#define SMP_MOD_SL2VL_PORT_MASK		0xffu	/* SLtoVL: in << 8 | out */
#define SMP_MOD_SL2VL_IN_SHIFT		8
#define SMP_MOD_SL2VL_RESERVED_SHIFT	16
#define SMP_MOD_VL_ARB_PORT_MASK	0xffffu	/* VLArbitration: block << 16 | port */
#define SMP_MOD_VL_ARB_BLOCK_SHIFT	16
#define SMP_MOD_PORT_MASK		0xffu	/* PortInfo, LedInfo: the port number */

/* --- Notice (traps, reports) ------------------------------------------------------------ */

#define NOTICE_FIELDS(F) \
	F(NTC_IS_GENERIC,		 0, 0, 1) \
	F(NTC_TYPE,			 0, 1, 7)	/* NOTICE_TYPE_* */ \
	F(NTC_PRODUCER_TYPE,		 1, 0, 24)	/* generic; VendorID otherwise */ \
	F(NTC_TRAP_NUMBER,		 4, 0, 16)	/* generic; DeviceID otherwise */ \
	F(NTC_ISSUER_LID,		 6, 0, 16) \
	F(NTC_TOGGLE,			 8, 0, 1) \
	F(NTC_COUNT,			 8, 1, 15) \
	F(NTC_DATA_DETAILS,		10, 0, 432) \
	F(NTC_ISSUER_GID,		64, 0, 128)
MAD_LAYOUT(NOTICE);
#define NOTICE_DETAILS_SIZE	MAD_FIELD_SIZE(NTC_DATA_DETAILS)
/* Where the traps' DataDetails put the LID, the port and the news (byte offsets in them). */
#define TRAP64_OFF_GID		6	/* the SA's traps 64-67: a port or group in or out */
#define TRAP128_OFF_LID		0
#define TRAP129_OFF_LID		2
#define TRAP129_OFF_PORT	4
#define TRAP144_OFF_LID		2
#define TRAP144_OFF_LOCAL_CHANGES 5	/* OtherLocalChanges: bit 0 (NodeDescription, rates...) */
#define TRAP144_OFF_CAPMASK	6
#define TRAP144_OFF_CHANGE_FLAGS 10	/* 16 bits: which other local change, when bit 0 says so */
#define TRAP144_OFF_CAPMASK2	12
#define TRAP145_OFF_LID		2
#define TRAP145_OFF_SYS_GUID	6

/* --- ClassPortInfo (every GMP class) ------------------------------------------------------ */

#define CLASS_PORT_INFO_FIELDS(F) \
	F(CPI_BASE_VERSION,		 0, 0, 8) \
	F(CPI_CLASS_VERSION,		 1, 0, 8) \
	F(CPI_CAPABILITY_MASK,		 2, 0, 16) \
	F(CPI_CAPABILITY_MASK2,		 4, 0, 27) \
	F(CPI_RESP_TIME_VALUE,		 7, 3, 5) \
	F(CPI_REDIRECT_GID,		 8, 0, 128) \
	F(CPI_REDIRECT_TC,		24, 0, 8) \
	F(CPI_REDIRECT_SL,		25, 0, 4) \
	F(CPI_REDIRECT_FL,		25, 4, 20) \
	F(CPI_REDIRECT_LID,		28, 0, 16) \
	F(CPI_REDIRECT_P_KEY,		30, 0, 16) \
	F(CPI_RESERVED_32,		32, 0, 8) \
	F(CPI_REDIRECT_QP,		33, 0, 24) \
	F(CPI_REDIRECT_Q_KEY,		36, 0, 32) \
	F(CPI_TRAP_GID,			40, 0, 128) \
	F(CPI_TRAP_TC,			56, 0, 8) \
	F(CPI_TRAP_SL,			57, 0, 4) \
	F(CPI_TRAP_FL,			57, 4, 20) \
	F(CPI_TRAP_LID,			60, 0, 16) \
	F(CPI_TRAP_P_KEY,		62, 0, 16) \
	F(CPI_TRAP_HL,			64, 0, 8) \
	F(CPI_TRAP_QP,			65, 0, 24) \
	F(CPI_TRAP_Q_KEY,		68, 0, 32)
MAD_LAYOUT(CLASS_PORT_INFO);
/* ClassPortInfo:CapabilityMask bits every class shares, and SA ones umad_sa.h lacks. */
#define CPI_CAP_IS_TRAP_SUP			(1u << 0)
#define CPI_CAP_IS_GET_SET_NOTICE_SUP		(1u << 1)
#define SA_CAP_MASK2_IS_SEND_ONLY_FULL_MEMBER_SUP	(1u << 12)
#define SA_CAP_MASK2_IS_LINK_WIDTH_2X_SUP		(1u << 13)
#define SA_CAP_MASK2_IS_LINK_SPEED_HDR_SUP		(1u << 15)

/* --- subnet administration: records -------------------------------------------------------- */

/*
 * A record that carries an attribute names it as one field; its
 * components are the record's own fields before it, then the attribute's
 * fields (SA_COMP_IN below).
 */
#define SA_COMP(index)		(UINT64_C(1) << (index))
#define SA_COMP_IN(carrier, field)	SA_COMP(carrier##_INDEX + field##_INDEX)

#define NODE_RECORD_FIELDS(F) \
	F(NR_LID,			 0, 0, 16) \
	F(NR_RESERVED,			 2, 0, 16) \
	F(NR_NODE_INFO,			 4, 0, 320)	/* NodeInfo */ \
	F(NR_NODE_DESC,			44, 0, 512)	/* NodeDescription */
MAD_LAYOUT(NODE_RECORD);
#define SA_NR_COMP_LID		SA_COMP(NR_LID_INDEX)
#define SA_NR_COMP_NODE_TYPE	SA_COMP_IN(NR_NODE_INFO, NI_NODE_TYPE)
#define SA_NR_COMP_NODE_GUID	SA_COMP_IN(NR_NODE_INFO, NI_NODE_GUID)
#define SA_NR_COMP_PORT_GUID	SA_COMP_IN(NR_NODE_INFO, NI_PORT_GUID)
#define SA_NR_COMP_NODE_DESC	SA_COMP(NR_NODE_INFO_INDEX + NODE_INFO_N_FIELDS)

#define PORT_INFO_RECORD_FIELDS(F) \
	F(PIR_LID,			 0, 0, 16)	/* EndportLID */ \
	F(PIR_PORT_NUM,			 2, 0, 8) \
	F(PIR_OPTIONS,			 3, 0, 8) \
	F(PIR_PORT_INFO,		 4, 0, 512)	/* PortInfo */
MAD_LAYOUT(PORT_INFO_RECORD);
#define SA_PIR_COMP_LID		SA_COMP(PIR_LID_INDEX)
#define SA_PIR_COMP_PORT_NUM	SA_COMP(PIR_PORT_NUM_INDEX)
#define SA_PIR_COMP_CAP_MASK	SA_COMP_IN(PIR_PORT_INFO, PI_CAPABILITY_MASK)

#define SWITCH_INFO_RECORD_FIELDS(F) \
	F(SWIR_LID,			 0, 0, 16) \
	F(SWIR_RESERVED,		 2, 0, 16) \
	F(SWIR_SWITCH_INFO,		 4, 0, 160)	/* SwitchInfo */
MAD_LAYOUT(SWITCH_INFO_RECORD);

#define SM_INFO_RECORD_FIELDS(F) \
	F(SMIR_LID,			 0, 0, 16) \
	F(SMIR_RESERVED,		 2, 0, 16) \
	F(SMIR_SM_INFO,			 4, 0, 168)	/* SMInfo */
MAD_LAYOUT(SM_INFO_RECORD);

#define LINK_RECORD_FIELDS(F) \
	F(LR_FROM_LID,			 0, 0, 16) \
	F(LR_FROM_PORT,			 2, 0, 8) \
	F(LR_TO_PORT,			 3, 0, 8) \
	F(LR_TO_LID,			 4, 0, 16)
MAD_LAYOUT(LINK_RECORD);
#define SA_LR_COMP_FROM_LID	SA_COMP(LR_FROM_LID_INDEX)
#define SA_LR_COMP_FROM_PORT	SA_COMP(LR_FROM_PORT_INDEX)
#define SA_LR_COMP_TO_PORT	SA_COMP(LR_TO_PORT_INDEX)
#define SA_LR_COMP_TO_LID	SA_COMP(LR_TO_LID_INDEX)

#define GUID_INFO_RECORD_FIELDS(F) \
	F(GIR_LID,			 0, 0, 16) \
	F(GIR_BLOCK_NUM,		 2, 0, 8) \
	F(GIR_RESERVED_3,		 3, 0, 8) \
	F(GIR_RESERVED_4,		 4, 0, 32) \
	F(GIR_GUID_INFO,		 8, 0, 512)	/* GUIDInfo */
MAD_LAYOUT(GUID_INFO_RECORD);

/* The records of tables: the table itself is not a component the SA matches on. */
#define PKEY_TABLE_RECORD_FIELDS(F) \
	F(PKTR_LID,			 0, 0, 16) \
	F(PKTR_BLOCK_NUM,		 2, 0, 16) \
	F(PKTR_PORT_NUM,		 4, 0, 8) \
	F(PKTR_RESERVED,		 5, 0, 24) \
	F(PKTR_P_KEY_TABLE,		 8, 0, 512)	/* P_KeyTable */
MAD_LAYOUT(PKEY_TABLE_RECORD);

#define SL2VL_RECORD_FIELDS(F) \
	F(SL2VLR_LID,			 0, 0, 16) \
	F(SL2VLR_IN_PORT,		 2, 0, 8) \
	F(SL2VLR_OUT_PORT,		 3, 0, 8) \
	F(SL2VLR_RESERVED,		 4, 0, 32) \
	F(SL2VLR_TABLE,			 8, 0, 64)	/* SLtoVLMappingTable */
MAD_LAYOUT(SL2VL_RECORD);

#define VL_ARB_RECORD_FIELDS(F) \
	F(VLAR_LID,			 0, 0, 16) \
	F(VLAR_OUT_PORT,		 2, 0, 8) \
	F(VLAR_BLOCK_NUM,		 3, 0, 8) \
	F(VLAR_RESERVED,		 4, 0, 32) \
	F(VLAR_TABLE,			 8, 0, 512)	/* VLArbitrationTable */
MAD_LAYOUT(VL_ARB_RECORD);
#define SA_VLAR_COMP_OUT_PORT	SA_COMP(VLAR_OUT_PORT_INDEX)

#define LFT_RECORD_FIELDS(F) \
	F(LFTR_LID,			 0, 0, 16) \
	F(LFTR_BLOCK_NUM,		 2, 0, 16) \
	F(LFTR_RESERVED,		 4, 0, 32) \
	F(LFTR_TABLE,			 8, 0, 512)	/* LinearForwardingTable */
MAD_LAYOUT(LFT_RECORD);

#define MFT_RECORD_FIELDS(F) \
	F(MFTR_LID,			 0, 0, 16) \
	F(MFTR_POSITION,		 2, 0, 4) \
	F(MFTR_RESERVED_2,		 2, 4, 3) \
	F(MFTR_BLOCK_NUM,		 2, 7, 9) \
	F(MFTR_RESERVED_4,		 4, 0, 32) \
	F(MFTR_TABLE,			 8, 0, 512)	/* MulticastForwardingTable */
MAD_LAYOUT(MFT_RECORD);

#define PATH_RECORD_FIELDS(F) \
	F(PR_SERVICE_ID_HIGH,		 0, 0, 32) \
	F(PR_SERVICE_ID_LOW,		 4, 0, 32) \
	F(PR_DGID,			 8, 0, 128) \
	F(PR_SGID,			24, 0, 128) \
	F(PR_DLID,			40, 0, 16) \
	F(PR_SLID,			42, 0, 16) \
	F(PR_RAW_TRAFFIC,		44, 0, 1) \
	F(PR_RESERVED_44,		44, 1, 3) \
	F(PR_FLOW_LABEL,		44, 4, 20) \
	F(PR_HOP_LIMIT,			47, 0, 8) \
	F(PR_TCLASS,			48, 0, 8) \
	F(PR_REVERSIBLE,		49, 0, 1) \
	F(PR_NUMB_PATH,			49, 1, 7) \
	F(PR_P_KEY,			50, 0, 16) \
	F(PR_QOS_CLASS,			52, 0, 12) \
	F(PR_SL,			53, 4, 4) \
	F(PR_MTU_SELECTOR,		54, 0, 2) \
	F(PR_MTU,			54, 2, 6)	/* enum sa_mtu */ \
	F(PR_RATE_SELECTOR,		55, 0, 2) \
	F(PR_RATE,			55, 2, 6)	/* enum sa_rate */ \
	F(PR_PKT_LIFE_SELECTOR,		56, 0, 2) \
	F(PR_PKT_LIFE,			56, 2, 6) \
	F(PR_PREFERENCE,		57, 0, 8) \
	F(PR_RESERVED_58,		58, 0, 48)
MAD_LAYOUT(PATH_RECORD);
/* ServiceID is two components, its halves; SA_PR_COMP_SERVICE_ID asks for both. */
#define PR_SERVICE_ID		MAD_FIELD(0, 0, 64)
#define SA_PR_COMP_SERVICE_ID	(SA_COMP(PR_SERVICE_ID_HIGH_INDEX) | SA_COMP(PR_SERVICE_ID_LOW_INDEX))
#define SA_PR_COMP_DGID		SA_COMP(PR_DGID_INDEX)
#define SA_PR_COMP_SGID		SA_COMP(PR_SGID_INDEX)
#define SA_PR_COMP_DLID		SA_COMP(PR_DLID_INDEX)
#define SA_PR_COMP_SLID		SA_COMP(PR_SLID_INDEX)
#define SA_PR_COMP_RAW_TRAFFIC	SA_COMP(PR_RAW_TRAFFIC_INDEX)
#define SA_PR_COMP_FLOW_LABEL	SA_COMP(PR_FLOW_LABEL_INDEX)
#define SA_PR_COMP_HOP_LIMIT	SA_COMP(PR_HOP_LIMIT_INDEX)
#define SA_PR_COMP_TCLASS	SA_COMP(PR_TCLASS_INDEX)
#define SA_PR_COMP_REVERSIBLE	SA_COMP(PR_REVERSIBLE_INDEX)
#define SA_PR_COMP_NUMB_PATH	SA_COMP(PR_NUMB_PATH_INDEX)
#define SA_PR_COMP_PKEY		SA_COMP(PR_P_KEY_INDEX)
#define SA_PR_COMP_QOS_CLASS	SA_COMP(PR_QOS_CLASS_INDEX)
#define SA_PR_COMP_SL		SA_COMP(PR_SL_INDEX)
#define SA_PR_COMP_MTU_SEL	SA_COMP(PR_MTU_SELECTOR_INDEX)
#define SA_PR_COMP_MTU		SA_COMP(PR_MTU_INDEX)
#define SA_PR_COMP_RATE_SEL	SA_COMP(PR_RATE_SELECTOR_INDEX)
#define SA_PR_COMP_RATE		SA_COMP(PR_RATE_INDEX)
#define SA_PR_COMP_PKT_LIFE_SEL	SA_COMP(PR_PKT_LIFE_SELECTOR_INDEX)
#define SA_PR_COMP_PKT_LIFE	SA_COMP(PR_PKT_LIFE_INDEX)

/* MCMemberRecord (umad_sa_mcm.h names its ComponentMask bits; the layout test checks them). */
#define MCMEMBER_RECORD_FIELDS(F) \
	F(MCR_MGID,			 0, 0, 128) \
	F(MCR_PORT_GID,			16, 0, 128) \
	F(MCR_Q_KEY,			32, 0, 32) \
	F(MCR_MLID,			36, 0, 16) \
	F(MCR_MTU_SELECTOR,		38, 0, 2) \
	F(MCR_MTU,			38, 2, 6) \
	F(MCR_TCLASS,			39, 0, 8) \
	F(MCR_P_KEY,			40, 0, 16) \
	F(MCR_RATE_SELECTOR,		42, 0, 2) \
	F(MCR_RATE,			42, 2, 6) \
	F(MCR_PKT_LIFE_SELECTOR,	43, 0, 2) \
	F(MCR_PKT_LIFE,			43, 2, 6) \
	F(MCR_SL,			44, 0, 4) \
	F(MCR_FLOW_LABEL,		44, 4, 20) \
	F(MCR_HOP_LIMIT,		47, 0, 8) \
	F(MCR_SCOPE,			48, 0, 4) \
	F(MCR_JOIN_STATE,		48, 4, 4) \
	F(MCR_PROXY_JOIN,		49, 0, 1) \
	F(MCR_RESERVED_49,		49, 1, 23)
MAD_LAYOUT(MCMEMBER_RECORD);

/* Multicast GIDs: ff, flags:4 scope:4, a signature, then the rest. */
#define MGID_FIELDS(F) \
	F(MGID_PREFIX,			 0, 0, 8)	/* MGID_PREFIX_BYTE */ \
	F(MGID_FLAGS,			 1, 0, 4)	/* MGID_FLAG_* */ \
	F(MGID_SCOPE,			 1, 4, 4) \
	F(MGID_SIGNATURE,		 2, 0, 16) \
	F(MGID_SA_PREFIX,		 4, 0, 64)	/* MGIDs the SA makes: the subnet prefix */ \
	F(MGID_SA_COUNTER,		12, 0, 32)	/* ...and a number */
MAD_LAYOUT(MGID);
#define MGID_PREFIX_BYTE		0xff
#define MGID_FLAG_TRANSIENT		0x1	/* in MGID_FLAGS: T, not a well-known group */
#define MGID_SIGNATURE_IPV4		0x401b
#define MGID_SIGNATURE_IPV6		0x601b
#define MGID_SIGNATURE_SA		0xa01b	/* MGIDs the SA makes up */

/* IPoIB's MGIDs (both signatures): the partition's P_Key after the header. */
#define IPOIB_MGID_FIELDS(F) \
	F(IPOIB_MGID_HEADER,		 0, 0, 32)	/* MGID_PREFIX to MGID_SIGNATURE */ \
	F(IPOIB_MGID_P_KEY,		 4, 0, 16) \
	F(IPOIB_MGID_GROUP,		 6, 0, 80)
MAD_LAYOUT(IPOIB_MGID);

/* A GID: the subnet prefix and the port's GUID. */
#define GID_FIELDS(F) \
	F(GID_PREFIX,			 0, 0, 64) \
	F(GID_GUID,			 8, 0, 64)
MAD_LAYOUT(GID);
#define GID_SIZE		(MAD_FIELD_END(GID_GUID) / 8)

/*
 * MultiPathRecord, the query of a SubnAdmGetMulti: the PathRecord's
 * constraints, then SGIDCount source GIDs and DGIDCount destination GIDs
 * from MPR_GIDS on (as many as the request's segments hold).  The answer
 * is PathRecords.
 */
#define MULTI_PATH_RECORD_FIELDS(F) \
	F(MPR_RAW_TRAFFIC,		 0, 0, 1) \
	F(MPR_RESERVED_0,		 0, 1, 3) \
	F(MPR_FLOW_LABEL,		 0, 4, 20) \
	F(MPR_HOP_LIMIT,		 3, 0, 8) \
	F(MPR_TCLASS,			 4, 0, 8) \
	F(MPR_REVERSIBLE,		 5, 0, 1) \
	F(MPR_NUMB_PATH,		 5, 1, 7) \
	F(MPR_P_KEY,			 6, 0, 16) \
	F(MPR_QOS_CLASS,		 8, 0, 12) \
	F(MPR_SL,			 9, 4, 4) \
	F(MPR_MTU_SELECTOR,		10, 0, 2) \
	F(MPR_MTU,			10, 2, 6) \
	F(MPR_RATE_SELECTOR,		11, 0, 2) \
	F(MPR_RATE,			11, 2, 6) \
	F(MPR_PKT_LIFE_SELECTOR,	12, 0, 2) \
	F(MPR_PKT_LIFE,			12, 2, 6) \
	F(MPR_SERVICE_ID_8MSB,		13, 0, 8) \
	F(MPR_INDEPENDENCE,		14, 0, 2) \
	F(MPR_RESERVED_14,		14, 2, 6) \
	F(MPR_SGID_COUNT,		15, 0, 8) \
	F(MPR_DGID_COUNT,		16, 0, 8) \
	F(MPR_SERVICE_ID_56LSB,		17, 0, 56) \
	F(MPR_GIDS,			24, 0, 128)	/* the first GID; the others follow */
MAD_LAYOUT(MULTI_PATH_RECORD);
#define SA_MPR_COMP_SGID_COUNT	SA_COMP(MPR_SGID_COUNT_INDEX)
#define SA_MPR_COMP_DGID_COUNT	SA_COMP(MPR_DGID_COUNT_INDEX)
#define SA_MPR_COMP_NUMB_PATH	SA_COMP(MPR_NUMB_PATH_INDEX)
#define SA_MPR_COMP_SERVICE_ID	(SA_COMP(MPR_SERVICE_ID_8MSB_INDEX) | \
				 SA_COMP(MPR_SERVICE_ID_56LSB_INDEX))

#define SERVICE_RECORD_FIELDS(F) \
	F(SR_ID,			 0, 0, 64) \
	F(SR_GID,			 8, 0, 128) \
	F(SR_P_KEY,			24, 0, 16) \
	F(SR_RESERVED,			26, 0, 16) \
	F(SR_LEASE,			28, 0, 32) \
	F(SR_KEY,			32, 0, 128) \
	F(SR_NAME,			48, 0, 512) \
	F(SR_DATA8_0, 112, 0, 8) F(SR_DATA8_1, 113, 0, 8) F(SR_DATA8_2, 114, 0, 8) \
	F(SR_DATA8_3, 115, 0, 8) F(SR_DATA8_4, 116, 0, 8) F(SR_DATA8_5, 117, 0, 8) \
	F(SR_DATA8_6, 118, 0, 8) F(SR_DATA8_7, 119, 0, 8) F(SR_DATA8_8, 120, 0, 8) \
	F(SR_DATA8_9, 121, 0, 8) F(SR_DATA8_10, 122, 0, 8) F(SR_DATA8_11, 123, 0, 8) \
	F(SR_DATA8_12, 124, 0, 8) F(SR_DATA8_13, 125, 0, 8) F(SR_DATA8_14, 126, 0, 8) \
	F(SR_DATA8_15, 127, 0, 8) \
	F(SR_DATA16_0, 128, 0, 16) F(SR_DATA16_1, 130, 0, 16) F(SR_DATA16_2, 132, 0, 16) \
	F(SR_DATA16_3, 134, 0, 16) F(SR_DATA16_4, 136, 0, 16) F(SR_DATA16_5, 138, 0, 16) \
	F(SR_DATA16_6, 140, 0, 16) F(SR_DATA16_7, 142, 0, 16) \
	F(SR_DATA32_0, 144, 0, 32) F(SR_DATA32_1, 148, 0, 32) F(SR_DATA32_2, 152, 0, 32) \
	F(SR_DATA32_3, 156, 0, 32) \
	F(SR_DATA64_0, 160, 0, 64) F(SR_DATA64_1, 168, 0, 64)
MAD_LAYOUT(SERVICE_RECORD);
#define SA_SR_COMP_ID		SA_COMP(SR_ID_INDEX)
#define SA_SR_COMP_GID		SA_COMP(SR_GID_INDEX)
#define SA_SR_COMP_PKEY		SA_COMP(SR_P_KEY_INDEX)
#define SA_SR_COMP_LEASE	SA_COMP(SR_LEASE_INDEX)
#define SA_SR_COMP_KEY		SA_COMP(SR_KEY_INDEX)
#define SA_SR_COMP_NAME		SA_COMP(SR_NAME_INDEX)

#define INFORM_INFO_FIELDS(F) \
	F(II_GID,			 0, 0, 128) \
	F(II_LID_RANGE_BEGIN,		16, 0, 16)	/* SA_INFORM_ANY: from anyone */ \
	F(II_LID_RANGE_END,		18, 0, 16) \
	F(II_RESERVED_20,		20, 0, 16) \
	F(II_IS_GENERIC,		22, 0, 8) \
	F(II_SUBSCRIBE,			23, 0, 8) \
	F(II_TYPE,			24, 0, 16) \
	F(II_TRAP_NUMBER,		26, 0, 16)	/* DeviceID for vendor notices */ \
	F(II_QPN,			28, 0, 24) \
	F(II_RESERVED_31,		31, 0, 3) \
	F(II_RESP_TIME_VALUE,		31, 3, 5) \
	F(II_RESERVED_32,		32, 0, 8) \
	F(II_PRODUCER_TYPE,		33, 0, 24)	/* VendorID for vendor notices */
MAD_LAYOUT(INFORM_INFO);

#define INFORM_INFO_RECORD_FIELDS(F) \
	F(IIR_SUBSCRIBER_GID,		 0, 0, 128) \
	F(IIR_ENUM,			16, 0, 16) \
	F(IIR_RESERVED,			18, 0, 48) \
	F(IIR_INFORM_INFO,		24, 0, 288)	/* InformInfo */
MAD_LAYOUT(INFORM_INFO_RECORD);
#define SA_IIR_COMP_SUBSCRIBER_GID	SA_COMP(IIR_SUBSCRIBER_GID_INDEX)

/* --- performance management (PerfMgt data) -------------------------------------------------- */

/* What most PMA attributes start with. */
#define PMA_HEAD_FIELDS(F) \
	F(PMA_OP_CODE,			 0, 0, 8) \
	F(PMA_PORT_SELECT,		 1, 0, 8)	/* PMA_PORT_SELECT_ALL: every port */ \
	F(PMA_COUNTER_SELECT,		 2, 0, 16)
MAD_LAYOUT(PMA_HEAD);

/*
 * PortExtendedSpeedsCounters: its own CounterSelect (64 bits, one per
 * counter, in order), then error counters of the extended-speed link layer:
 * sync headers, unknown blocks, per-lane error detection and FEC blocks.
 */
#define PORT_EXT_SPEEDS_COUNTERS_FIELDS(F) \
	F(PESC_PORT_SELECT,		 1, 0, 8) \
	F(PESC_COUNTER_SELECT,		 8, 0, 64)
MAD_LAYOUT(PORT_EXT_SPEEDS_COUNTERS);

/* The attributes below follow PMA_HEAD (PortCounters' OpCode byte is reserved). */
#define PORT_COUNTERS_FIELDS(F) \
	F(PC_SYMBOL_ERRORS,		 4, 0, 16) \
	F(PC_LINK_ERROR_RECOVERY,	 6, 0, 8) \
	F(PC_LINK_DOWNED,		 7, 0, 8) \
	F(PC_RCV_ERRORS,		 8, 0, 16) \
	F(PC_RCV_REMOTE_PHYS_ERRORS,	10, 0, 16) \
	F(PC_RCV_SWITCH_RELAY_ERRORS,	12, 0, 16) \
	F(PC_XMIT_DISCARDS,		14, 0, 16) \
	F(PC_XMIT_CONSTRAINT_ERRORS,	16, 0, 8) \
	F(PC_RCV_CONSTRAINT_ERRORS,	17, 0, 8) \
	F(PC_COUNTER_SELECT2,		18, 0, 8) \
	F(PC_LOCAL_LINK_INTEGRITY_ERRORS, 19, 0, 4) \
	F(PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS, 19, 4, 4) \
	F(PC_QP1_DROPPED,		20, 0, 16) \
	F(PC_VL15_DROPPED,		22, 0, 16) \
	F(PC_XMIT_DATA,			24, 0, 32) \
	F(PC_RCV_DATA,			28, 0, 32) \
	F(PC_XMIT_PKTS,			32, 0, 32) \
	F(PC_RCV_PKTS,			36, 0, 32) \
	F(PC_XMIT_WAIT,			40, 0, 32)
MAD_LAYOUT(PORT_COUNTERS);

#define PORT_COUNTERS_EXT_FIELDS(F) \
	F(PCE_COUNTER_SELECT2,		 4, 0, 32) \
	F(PCE_XMIT_DATA,		 8, 0, 64) \
	F(PCE_RCV_DATA,			16, 0, 64) \
	F(PCE_XMIT_PKTS,		24, 0, 64) \
	F(PCE_RCV_PKTS,			32, 0, 64) \
	F(PCE_UNICAST_XMIT_PKTS,	40, 0, 64) \
	F(PCE_UNICAST_RCV_PKTS,		48, 0, 64) \
	F(PCE_MULTICAST_XMIT_PKTS,	56, 0, 64) \
	F(PCE_MULTICAST_RCV_PKTS,	64, 0, 64) \
	F(PCE_SYMBOL_ERRORS,		72, 0, 64) \
	F(PCE_LINK_ERROR_RECOVERY,	80, 0, 64) \
	F(PCE_LINK_DOWNED,		88, 0, 64) \
	F(PCE_RCV_ERRORS,		96, 0, 64) \
	F(PCE_RCV_REMOTE_PHYS_ERRORS,	104, 0, 64) \
	F(PCE_RCV_SWITCH_RELAY_ERRORS,	112, 0, 64) \
	F(PCE_XMIT_DISCARDS,		120, 0, 64) \
	F(PCE_XMIT_CONSTRAINT_ERRORS,	128, 0, 64) \
	F(PCE_RCV_CONSTRAINT_ERRORS,	136, 0, 64) \
	F(PCE_LOCAL_LINK_INTEGRITY_ERRORS, 144, 0, 64) \
	F(PCE_EXCESSIVE_BUFFER_OVERRUN_ERRORS, 152, 0, 64) \
	F(PCE_VL15_DROPPED,		160, 0, 64) \
	F(PCE_XMIT_WAIT,		168, 0, 64) \
	F(PCE_QP1_DROPPED,		176, 0, 64)
MAD_LAYOUT(PORT_COUNTERS_EXT);

#define PORT_RCV_ERROR_DETAILS_FIELDS(F) \
	F(PRED_LOCAL_PHYSICAL_ERRORS,	 4, 0, 16) \
	F(PRED_MALFORMED_PACKET_ERRORS,	 6, 0, 16) \
	F(PRED_BUFFER_OVERRUN_ERRORS,	 8, 0, 16) \
	F(PRED_DLID_MAPPING_ERRORS,	10, 0, 16) \
	F(PRED_VL_MAPPING_ERRORS,	12, 0, 16) \
	F(PRED_LOOPING_ERRORS,		14, 0, 16)
MAD_LAYOUT(PORT_RCV_ERROR_DETAILS);

#define PORT_XMIT_DISCARD_DETAILS_FIELDS(F) \
	F(PXDD_INACTIVE_DISCARDS,	 4, 0, 16) \
	F(PXDD_NEIGHBOR_MTU_DISCARDS,	 6, 0, 16) \
	F(PXDD_SW_LIFETIME_LIMIT_DISCARDS, 8, 0, 16) \
	F(PXDD_SW_HOQ_LIFETIME_LIMIT_DISCARDS, 10, 0, 16)
MAD_LAYOUT(PORT_XMIT_DISCARD_DETAILS);

#define PORT_OP_RCV_COUNTERS_FIELDS(F) \
	F(PORC_OP_RCV_PKTS,		 4, 0, 32) \
	F(PORC_OP_RCV_DATA,		 8, 0, 32)
MAD_LAYOUT(PORT_OP_RCV_COUNTERS);

#define PORT_FLOW_CTL_COUNTERS_FIELDS(F) \
	F(PFCC_XMIT_FLOW_PKTS,		 4, 0, 32) \
	F(PFCC_RCV_FLOW_PKTS,		 8, 0, 32)
MAD_LAYOUT(PORT_FLOW_CTL_COUNTERS);

/* The per-VL and per-SL counters: entry 0 (VL 0, SL 0) of 16 after the head. */
#define PORT_VL_SL_COUNTERS_FIELDS(F) \
	F(PVL_OP_PACKETS0,		 4, 0, 16)	/* PortVLOpPackets */
MAD_LAYOUT(PORT_VL_SL_COUNTERS);
#define PVL_OP_DATA0		MAD_FIELD(4, 0, 32)	/* PortVLOpData */
#define PVL_XMIT_WAIT0		MAD_FIELD(4, 0, 16)	/* PortVLXmitWaitCounters */
#define PSL_XMIT_DATA0		MAD_FIELD(4, 0, 32)	/* PortXmitDataSL */
#define PSL_RCV_DATA0		MAD_FIELD(4, 0, 32)	/* PortRcvDataSL */

/* PortSamplesControl: OpCode and PortSelect as PMA_HEAD, then these. */
#define PORT_SAMPLES_CONTROL_FIELDS(F) \
	F(PSC_TICK,			 2, 0, 8) \
	F(PSC_RESERVED_3,		 3, 0, 5) \
	F(PSC_COUNTER_WIDTH,		 3, 5, 3)	/* PSC_COUNTER_WIDTH_32 */ \
	F(PSC_RESERVED_4,		 4, 0, 2) \
	F(PSC_COUNTER_MASK0,		 4, 2, 3)	/* CounterMask0..9 */ \
	F(PSC_COUNTER_MASKS_1_9,	 4, 5, 27) \
	F(PSC_RESERVED_8,		 8, 0, 1) \
	F(PSC_COUNTER_MASK10,		 8, 1, 3)	/* CounterMask10..14 */ \
	F(PSC_COUNTER_MASKS_11_14,	 8, 4, 12) \
	F(PSC_SAMPLE_MECHANISMS,	10, 0, 8) \
	F(PSC_RESERVED_11,		11, 0, 6) \
	F(PSC_SAMPLE_STATUS,		11, 6, 2)	/* PMA_SAMPLE_STATUS_* */ \
	F(PSC_OPTION_MASK,		12, 0, 64) \
	F(PSC_VENDOR_MASK,		20, 0, 64) \
	F(PSC_SAMPLE_START,		28, 0, 32) \
	F(PSC_SAMPLE_INTERVAL,		32, 0, 32) \
	F(PSC_TAG,			36, 0, 16) \
	F(PSC_COUNTER_SELECT0,		38, 0, 16)	/* CounterSelect0..14 */ \
	F(PSC_COUNTER_SELECTS_1_14,	40, 0, 224) \
	F(PSC_RESERVED_68,		68, 0, 32) \
	F(PSC_SAMPLES_ONLY_OPTION_MASK,	72, 0, 64)
MAD_LAYOUT(PORT_SAMPLES_CONTROL);
#define PSC_COUNTER_WIDTH_32	4	/* the sample counters are 32 bits wide */
#define PSC_MASK_PORT		1	/* CounterMask: counts the selected port's events */
#define PSC_MASKS_IN_FIRST_RUN	10	/* CounterMask0..9 from PSC_COUNTER_MASK0, then 10.. */

#define PORT_SAMPLES_RESULT_FIELDS(F) \
	F(PSR_TAG,			 0, 0, 16) \
	F(PSR_RESERVED_2,		 2, 0, 14) \
	F(PSR_SAMPLE_STATUS,		 3, 6, 2) \
	F(PSR_COUNTER0,			 4, 0, 32)	/* Counter0..14 */ \
	F(PSR_COUNTERS_1_14,		 8, 0, 448)
MAD_LAYOUT(PORT_SAMPLES_RESULT);

/* ClassPortInfo:CapabilityMask bits of the PMA, and CapabilityMask2's. */
#define PMA_CAP_ALL_PORT_SELECT		(1u << 8)	/* PortSelect 0xFF: all ports */
#define PMA_CAP_EXT_WIDTH		(1u << 9)	/* PortCountersExtended, unicast/multicast too */
#define PMA_CAP_EXT_WIDTH_NOIETF	(1u << 10)	/* PortCountersExtended without them */
#define PMA_CAP_SAMPLES_ONLY		(1u << 11)
#define PMA_CAP_XMIT_WAIT		(1u << 12)	/* PortCounters:PortXmitWait */
#define PMA_CAP_QP1_DROPPED		(1u << 15)	/* PortCounters:QP1Dropped */
#define PMA_CAP2_ADDL_PORT_COUNTERS_EXT	(1u << 1)	/* PortCountersExtended error counters */

/* --- congestion control (CC data; CongestionLog's starts earlier: CC_OFF_LOG_DATA) ---------- */

#define CONGESTION_INFO_FIELDS(F) \
	F(CCI_CONGESTION_INFO,		 0, 0, 16) \
	F(CCI_CONTROL_TABLE_CAP,	 2, 0, 8)
MAD_LAYOUT(CONGESTION_INFO);

#define CONGESTION_KEY_INFO_FIELDS(F) \
	F(CCK_CC_KEY,			 0, 0, 64) \
	F(CCK_PROTECT_BIT,		 8, 0, 1) \
	F(CCK_RESERVED,			 8, 1, 15) \
	F(CCK_LEASE_PERIOD,		10, 0, 16) \
	F(CCK_VIOLATIONS,		12, 0, 16)	/* written as 0 to clear it */
MAD_LAYOUT(CONGESTION_KEY_INFO);

/* CongestionLog: its head, then a switch's or a CA's, each with its events. */
#define CONGESTION_LOG_FIELDS(F) \
	F(CCL_LOG_TYPE,			 0, 0, 8)	/* enum cc_log_type */ \
	F(CCL_CONGESTION_FLAGS,		 1, 0, 8)	/* CC_LOG_FLAG_* */
MAD_LAYOUT(CONGESTION_LOG);
/* A switch's log, and its first event (of CC_LOG_SWITCH_EVENTS). */
#define CONGESTION_LOG_SWITCH_FIELDS(F) \
	F(CCLS_LOG_EVENTS_COUNTER,	 2, 0, 16) \
	F(CCLS_CURRENT_TIME_STAMP,	 4, 0, 32) \
	F(CCLS_PORT_MAP,		 8, 0, 256) \
	F(CCLS_EVENTS,			40, 0, 1440)
MAD_LAYOUT(CONGESTION_LOG_SWITCH);
#define CONGESTION_LOG_SWITCH_EVENT_FIELDS(F) \
	F(CCLSE_SLID,			40, 0, 16) \
	F(CCLSE_DLID,			42, 0, 16) \
	F(CCLSE_SL,			44, 0, 4) \
	F(CCLSE_RESERVED,		44, 4, 28) \
	F(CCLSE_TIMESTAMP,		48, 0, 32)
MAD_LAYOUT(CONGESTION_LOG_SWITCH_EVENT);
#define CC_LOG_SWITCH_EVENT_SIZE	12
#define CC_LOG_SWITCH_EVENTS		15

/* A CA's log, and its first event (of CC_LOG_CA_EVENTS). */
#define CONGESTION_LOG_CA_FIELDS(F) \
	F(CCLC_THRESHOLD_EVENT_COUNTER,	 2, 0, 16) \
	F(CCLC_THRESHOLD_EVENT_MAP,	 4, 0, 16) \
	F(CCLC_RESERVED,		 6, 0, 16) \
	F(CCLC_CURRENT_TIME_STAMP,	 8, 0, 32) \
	F(CCLC_EVENTS,			12, 0, 1664)
MAD_LAYOUT(CONGESTION_LOG_CA);
#define CONGESTION_LOG_CA_EVENT_FIELDS(F) \
	F(CCLCE_LOCAL_QP,		12, 0, 24) \
	F(CCLCE_SL,			15, 0, 4) \
	F(CCLCE_SERVICE_TYPE,		15, 4, 4) \
	F(CCLCE_REMOTE_QP,		16, 0, 24) \
	F(CCLCE_RESERVED,		19, 0, 8) \
	F(CCLCE_LOCAL_LID,		20, 0, 16) \
	F(CCLCE_REMOTE_LID,		22, 0, 16) \
	F(CCLCE_TIMESTAMP,		24, 0, 32)
MAD_LAYOUT(CONGESTION_LOG_CA_EVENT);
#define CC_LOG_CA_EVENT_SIZE		16
#define CC_LOG_CA_EVENTS		13

#define SWITCH_CONGESTION_SETTING_FIELDS(F) \
	F(SCS_CONTROL_MAP,		 0, 0, 32)	/* enum cc_switch_control */ \
	F(SCS_VICTIM_MASK,		 4, 0, 256) \
	F(SCS_CREDIT_MASK,		36, 0, 256) \
	F(SCS_THRESHOLD,		68, 0, 4) \
	F(SCS_RESERVED_68,		68, 4, 4) \
	F(SCS_PACKET_SIZE,		69, 0, 8) \
	F(SCS_CS_THRESHOLD,		70, 0, 4) \
	F(SCS_RESERVED_70,		70, 4, 12) \
	F(SCS_CS_RETURN_DELAY,		72, 0, 16) \
	F(SCS_MARKING_RATE,		74, 0, 16)
MAD_LAYOUT(SWITCH_CONGESTION_SETTING);

/* SwitchPortCongestionSetting: the first of CC_PORT_SETTING_PER_BLOCK elements. */
#define SWITCH_PORT_CONGESTION_SETTING_FIELDS(F) \
	F(SPCS_VALID,			 0, 0, 1) \
	F(SPCS_CONTROL_TYPE,		 0, 1, 1) \
	F(SPCS_RESERVED,		 0, 2, 2) \
	F(SPCS_THRESHOLD,		 0, 4, 4) \
	F(SPCS_PACKET_SIZE,		 1, 0, 8) \
	F(SPCS_MARKING_RATE,		 2, 0, 16)
MAD_LAYOUT(SWITCH_PORT_CONGESTION_SETTING);
#define CC_PORT_SETTING_PER_BLOCK	48	/* IBA 1.3; 1.2.1 had 32 */
#define CC_PORT_SETTING_SIZE		4

/* CACongestionSetting, then its entry for SL 0 (CC_CA_ENTRIES of them, one per SL). */
#define CA_CONGESTION_SETTING_FIELDS(F) \
	F(CACS_PORT_CONTROL,		 0, 0, 16) \
	F(CACS_CONTROL_MAP,		 2, 0, 16)	/* a bit per SL whose entry a Set changes */ \
	F(CACS_ENTRIES,			 4, 0, 1024)
MAD_LAYOUT(CA_CONGESTION_SETTING);
#define CA_CONGESTION_ENTRY_FIELDS(F) \
	F(CACSE_CCTI_TIMER,		 4, 0, 16) \
	F(CACSE_CCTI_INCREASE,		 6, 0, 8) \
	F(CACSE_TRIGGER_THRESHOLD,	 7, 0, 8) \
	F(CACSE_CCTI_MIN,		 8, 0, 8) \
	F(CACSE_RESERVED,		 9, 0, 24)
MAD_LAYOUT(CA_CONGESTION_ENTRY);
#define CC_CA_ENTRY_SIZE		8
#define CC_CA_ENTRIES			16
#define CACS_PORT_CONTROL_SL_BASED	0x0001	/* Port_Control: SL- (not port-) based */

/* CongestionControlTable: CCTI_Limit and a block of 64 entries. */
#define CONGESTION_CONTROL_TABLE_FIELDS(F) \
	F(CCT_CCTI_LIMIT,		 0, 0, 16) \
	F(CCT_RESERVED,			 2, 0, 16) \
	F(CCT_ENTRY0,			 4, 0, 16)	/* CCT_Shift:2 CCT_Multiplier:14; 64 of them */
MAD_LAYOUT(CONGESTION_CONTROL_TABLE);
#define CC_CCT_PER_BLOCK		64

#define CC_TIMESTAMP_FIELDS(F) \
	F(CCTS_TIMESTAMP,		 0, 0, 32)
MAD_LAYOUT(CC_TIMESTAMP);

#endif /* UMAD_BASE_MAD_LAYOUT_H */
