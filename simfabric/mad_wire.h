/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Byte-level access to MADs as they travel: big-endian fields, the common
 * MAD header and the SMP layouts (LID-routed and directed-route).
 */
#ifndef SIMFABRIC_MAD_WIRE_H
#define SIMFABRIC_MAD_WIRE_H

#include <stdint.h>

#define MAD_SIZE		256

/* Common header. */
#define MAD_BASE_VERSION	0
#define MAD_CLASS		1
#define MAD_CLASS_VERSION	2
#define MAD_METHOD		3
#define MAD_STATUS		4	/* 16 bits; DR SMPs: D bit + 15-bit status */
#define MAD_HOP_PTR		6	/* DR SMPs */
#define MAD_HOP_CNT		7	/* DR SMPs */
#define MAD_TID			8
#define MAD_ATTR_ID		16
#define MAD_ATTR_MOD		20

/* SMP fields. */
#define SMP_MKEY		24
#define SMP_DR_SLID		32
#define SMP_DR_DLID		34
#define SMP_DATA		64
#define SMP_DATA_SIZE		64
#define SMP_INITIAL_PATH	128
#define SMP_RETURN_PATH		192
#define SMP_MAX_HOPS		64

#define MGMT_CLASS_SUBN_LID	0x01
#define MGMT_CLASS_SUBN_DR	0x81
#define MGMT_CLASS_PERF		0x04

#define METHOD_GET		0x01
#define METHOD_SET		0x02
#define METHOD_GET_RESP		0x81
#define METHOD_TRAP		0x05
#define METHOD_TRAP_REPRESS	0x07
#define METHOD_RESP_BIT		0x80

/* MAD status codes (bits 4:2 of the status field). */
#define MAD_STATUS_BAD_VERSION		0x0004
#define MAD_STATUS_METHOD_UNSUPPORTED	0x0008
#define MAD_STATUS_ATTR_UNSUPPORTED	0x000c
#define MAD_STATUS_INVALID_FIELD	0x001c

#define DR_DIRECTION_BIT	0x8000	/* in the status word of a DR SMP */
#define LID_PERMISSIVE		0xffff

/* SMP attributes. */
#define ATTR_NODE_DESC		0x0010
#define ATTR_NODE_INFO		0x0011
#define ATTR_SWITCH_INFO	0x0012
#define ATTR_GUID_INFO		0x0014
#define ATTR_PORT_INFO		0x0015
#define ATTR_PKEY_TABLE		0x0016
#define ATTR_SL2VL_TABLE	0x0017
#define ATTR_VL_ARB_TABLE	0x0018
#define ATTR_LINEAR_FT		0x0019
#define ATTR_RANDOM_FT		0x001a
#define ATTR_MCAST_FT		0x001b
#define ATTR_SM_INFO		0x0020
#define ATTR_VENDOR_DIAG	0x0030
#define ATTR_LED_INFO		0x0031

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t mad_attr_id(const uint8_t *mad)
{
	return get_be16(mad + MAD_ATTR_ID);
}

static inline uint32_t mad_attr_mod(const uint8_t *mad)
{
	return get_be32(mad + MAD_ATTR_MOD);
}

#endif /* SIMFABRIC_MAD_WIRE_H */
