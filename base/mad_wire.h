/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The wire format in one place, for every file that reads or writes MADs
 * and the packets around them (the simulated fabric, the capture tap,
 * replay, the CLI): the public umad headers name classes, methods,
 * attributes, status codes and the MAD, SMP and RMPP layouts; this header
 * adds what they leave out (header offsets as names, the packet headers
 * LRH/GRH/BTH/DETH, RMPP types, the class predicates) and one set of
 * endian-explicit accessors.  Never installed; libc only.
 *
 * Offsets are byte offsets from the start of the MAD (MAD_*, SMP_*, RMPP_*,
 * SA_*) or of the header named (LRH_*, GRH_*, BTH_*, DETH_*).  The get_be*
 * accessors return host-order values read from big-endian bytes; put_be*
 * write them back.  The attributes and records inside the MADs are laid out
 * in mad_layout.h, their fields and the bits of their values named there.
 */
#ifndef UMAD_BASE_MAD_WIRE_H
#define UMAD_BASE_MAD_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/umad_types.h>
#include <infiniband/umad_sm.h>
#include <infiniband/umad_sa.h>

/* One MAD on an InfiniBand port; longer messages are RMPP segments of this size. */
#define MAD_SIZE		sizeof(struct umad_packet)
#define MAD_HDR_SIZE		sizeof(struct umad_hdr)

/* The common MAD header. */
#define MAD_OFF_BASE_VERSION	offsetof(struct umad_hdr, base_version)
#define MAD_OFF_CLASS		offsetof(struct umad_hdr, mgmt_class)
#define MAD_OFF_CLASS_VERSION	offsetof(struct umad_hdr, class_version)
#define MAD_OFF_METHOD		offsetof(struct umad_hdr, method)
#define MAD_OFF_STATUS		offsetof(struct umad_hdr, status)
#define MAD_OFF_TID		offsetof(struct umad_hdr, tid)
#define MAD_OFF_ATTR_ID		offsetof(struct umad_hdr, attr_id)
#define MAD_OFF_ATTR_MOD	offsetof(struct umad_hdr, attr_mod)
/* The low 32 bits of the TID: the kernel puts the agent id in the high ones. */
#define MAD_OFF_TID_LOW		(MAD_OFF_TID + 4)
#define MAD_TID_SIZE		sizeof(((struct umad_hdr *)0)->tid)

/* SMPs (both routings share the header; the DR fields are zero in LID-routed ones). */
#define SMP_OFF_HOP_PTR		offsetof(struct umad_smp, hop_ptr)
#define SMP_OFF_HOP_CNT		offsetof(struct umad_smp, hop_cnt)
#define SMP_OFF_MKEY		offsetof(struct umad_smp, mkey)
#define SMP_OFF_DR_SLID		offsetof(struct umad_smp, dr_slid)
#define SMP_OFF_DR_DLID		offsetof(struct umad_smp, dr_dlid)
#define SMP_OFF_DATA		offsetof(struct umad_smp, data)
#define SMP_OFF_INITIAL_PATH	offsetof(struct umad_smp, initial_path)
#define SMP_OFF_RETURN_PATH	offsetof(struct umad_smp, return_path)
#define SMP_DATA_SIZE		UMAD_LEN_SMP_DATA
/* Both SMP classes are at version 1. */
#define SMP_CLASS_VERSION	1

/* The RMPP header, after the common header in the classes that segment. */
#define RMPP_OFF_VERSION	offsetof(struct umad_rmpp_packet, rmpp_hdr.rmpp_version)
#define RMPP_OFF_TYPE		offsetof(struct umad_rmpp_packet, rmpp_hdr.rmpp_type)
#define RMPP_OFF_FLAGS		offsetof(struct umad_rmpp_packet, rmpp_hdr.rmpp_rtime_flags)
#define RMPP_OFF_STATUS		offsetof(struct umad_rmpp_packet, rmpp_hdr.rmpp_status)
#define RMPP_OFF_SEG_NUM	offsetof(struct umad_rmpp_packet, rmpp_hdr.seg_num)
#define RMPP_OFF_PAYLEN		offsetof(struct umad_rmpp_packet, rmpp_hdr.paylen_newwin)
#define RMPP_HDR_END		offsetof(struct umad_rmpp_packet, data)

enum {
	RMPP_TYPE_DATA		= 1,
	RMPP_TYPE_ACK		= 2,
	RMPP_TYPE_STOP		= 3,
	RMPP_TYPE_ABORT		= 4,
};

/* RMPP flags besides UMAD_RMPP_FLAG_ACTIVE; RRespTime is in the top five bits. */
enum {
	RMPP_FLAG_FIRST		= 1 << 1,
	RMPP_FLAG_LAST		= 1 << 2,
	RMPP_FLAGS_MASK		= 0x07,
};

/* Bytes every RMPP segment repeats: SA (MAD + RMPP + SA header), vendor range 2 (+ OUI), others. */
#define SA_HDR_END		offsetof(struct umad_sa_packet, data)
#define VENDOR_HDR_END		offsetof(struct umad_vendor_packet, data)
#define VENDOR_OFF_OUI		offsetof(struct umad_vendor_packet, oui)
#define SA_OFF_SM_KEY		offsetof(struct umad_sa_packet, sm_key)

/* M_Key and SM_Key are 64 bits wherever they appear. */
#define MAD_KEY_SIZE		sizeof(((struct umad_smp *)0)->mkey)

/* NodeInfo:NodeType. */
enum node_type {
	NODE_TYPE_CA		= 1,
	NODE_TYPE_SWITCH	= 2,
	NODE_TYPE_ROUTER	= 3,
};

/* PortInfo:PortState (NOCHANGE only in a Set). */
enum port_state {
	PORT_STATE_NOCHANGE	= 0,
	PORT_STATE_DOWN		= 1,
	PORT_STATE_INIT		= 2,
	PORT_STATE_ARMED	= 3,
	PORT_STATE_ACTIVE	= 4,
};

/* PortInfo:PortPhysicalState. */
enum port_phys_state {
	PHYS_STATE_SLEEP	= 1,
	PHYS_STATE_POLLING	= 2,
	PHYS_STATE_DISABLED	= 3,
	PHYS_STATE_TRAINING	= 4,
	PHYS_STATE_LINKUP	= 5,
};

/* --- Performance management (class UMAD_CLASS_PERF_MGMT): attributes and fields. --- */

/* PerfMgt MADs: the common header, 40 reserved bytes, then the attribute's 192 bytes. */
#define PMA_OFF_DATA		offsetof(struct umad_dm_packet, data)
#define PMA_DATA_SIZE		UMAD_LEN_DM_DATA
#define PMA_CLASS_VERSION	1

enum {
	PMA_ATTR_PORT_SAMPLES_CONTROL			= 0x0010,
	PMA_ATTR_PORT_SAMPLES_RESULT			= 0x0011,
	PMA_ATTR_PORT_COUNTERS				= 0x0012,
	PMA_ATTR_PORT_RCV_ERROR_DETAILS			= 0x0015,
	PMA_ATTR_PORT_XMIT_DISCARD_DETAILS		= 0x0016,
	PMA_ATTR_PORT_OP_RCV_COUNTERS			= 0x0017,
	PMA_ATTR_PORT_FLOW_CTL_COUNTERS			= 0x0018,
	PMA_ATTR_PORT_VL_OP_PACKETS			= 0x0019,
	PMA_ATTR_PORT_VL_OP_DATA			= 0x001A,
	PMA_ATTR_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS	= 0x001B,
	PMA_ATTR_PORT_VL_XMIT_WAIT_COUNTERS		= 0x001C,
	PMA_ATTR_PORT_COUNTERS_EXT			= 0x001D,
	PMA_ATTR_PORT_EXT_SPEEDS_COUNTERS		= 0x001F,
	PMA_ATTR_PORT_XMIT_DATA_SL			= 0x0036,
	PMA_ATTR_PORT_RCV_DATA_SL			= 0x0037,
};

/* PortSelect that names every port. */
#define PMA_PORT_SELECT_ALL	0xff

/* PortSamplesControl:CounterSelectN values of the mandatory counters; SampleStatus. */
enum {
	PMA_SAMPLE_XMIT_DATA	= 0x0001,
	PMA_SAMPLE_RCV_DATA	= 0x0002,
	PMA_SAMPLE_XMIT_PKTS	= 0x0003,
	PMA_SAMPLE_RCV_PKTS	= 0x0004,
	PMA_SAMPLE_XMIT_WAIT	= 0x0005,
};
enum {
	PMA_SAMPLE_STATUS_DONE		= 0,
	PMA_SAMPLE_STATUS_STARTED	= 1,
	PMA_SAMPLE_STATUS_RUNNING	= 2,
};
#define PMA_SAMPLE_COUNTERS	15	/* Counter0..14 */

/* --- Subnet administration: what umad_sa.h does not name. --- */

/* The SA header after SM_Key: AttributeOffset (in 8-byte words) and ComponentMask. */
#define SA_OFF_ATTR_OFFSET	offsetof(struct umad_sa_packet, attr_offset)
#define SA_OFF_COMP_MASK	offsetof(struct umad_sa_packet, comp_mask)
#define SA_DATA_SIZE		UMAD_LEN_SA_DATA
#define SA_ATTR_OFFSET_UNIT	8
/* The SA's status codes (umad_sa.h) sit in the high byte of the MAD status. */
#define SA_STATUS_SHIFT		8

/* Records as an SA sends them, each padded to whole 8-byte words. */
#define SA_NODE_REC_SIZE		112
#define SA_PORT_INFO_REC_SIZE		72
#define SA_SLVL_REC_SIZE		16
#define SA_SWITCH_INFO_REC_SIZE		24
#define SA_LFT_REC_SIZE			72
#define SA_MFT_REC_SIZE			72
#define SA_SM_INFO_REC_SIZE		32
#define SA_LINK_REC_SIZE		8
#define SA_GUID_INFO_REC_SIZE		72
#define SA_SERVICE_REC_SIZE		176
#define SA_PKEY_TABLE_REC_SIZE		72
#define SA_PATH_REC_SIZE		64
#define SA_MULTI_PATH_REC_HEAD		24	/* before its GIDs */
#define SA_VL_ARB_REC_SIZE		72
#define SA_MCMEMBER_REC_SIZE		56
#define SA_INFORM_INFO_REC_SIZE		64
#define SA_INFORM_INFO_SIZE		36
#define SA_CLASS_PORT_INFO_SIZE		sizeof(struct umad_class_port_info)

/* PortInfoRecord queries with this modifier bit match CapabilityMask bits, not the value. */
#define SA_PIR_MOD_CAP_MASK_MATCH	(1u << 31)

/* PathRecord and MCMemberRecord encodings of MTU and rate. */
enum sa_mtu {
	SA_MTU_256	= 1,
	SA_MTU_512	= 2,
	SA_MTU_1024	= 3,
	SA_MTU_2048	= 4,
	SA_MTU_4096	= 5,
};

enum sa_rate {
	SA_RATE_2_5_GBPS	= 2,
	SA_RATE_10_GBPS		= 3,
	SA_RATE_30_GBPS		= 4,
	SA_RATE_5_GBPS		= 5,
	SA_RATE_20_GBPS		= 6,
	SA_RATE_40_GBPS		= 7,
	SA_RATE_60_GBPS		= 8,
	SA_RATE_80_GBPS		= 9,
	SA_RATE_120_GBPS	= 10,
	SA_RATE_14_GBPS		= 11,
	SA_RATE_56_GBPS		= 12,
	SA_RATE_112_GBPS	= 13,
	SA_RATE_168_GBPS	= 14,
	SA_RATE_25_GBPS		= 15,
	SA_RATE_100_GBPS	= 16,
	SA_RATE_200_GBPS	= 17,
	SA_RATE_300_GBPS	= 18,
	SA_RATE_28_GBPS		= 19,
	SA_RATE_50_GBPS		= 20,
	SA_RATE_400_GBPS	= 21,
	SA_RATE_600_GBPS	= 22,
	SA_RATE_800_GBPS	= 23,
	SA_RATE_1200_GBPS	= 24,
};

/*
 * IPoIB's broadcast group of the default partition, ff12:401b:ffff::ffff:ffff
 * (another partition's and scope's: its P_Key and scope in their places), and
 * the Q_Key opensm gives broadcast groups.
 */
#define IPOIB_BCAST_MGID_HIGH		0xff12401bffff0000ULL
#define IPOIB_BCAST_MGID_LOW		0x00000000ffffffffULL
#define IPOIB_QKEY			0x00000b1b

/* ServiceRecord:ServiceLease that never runs out. */
#define SA_SERVICE_LEASE_INFINITE	0xffffffffu

/* InformInfo wildcards (Type, TrapNumber/DeviceID, LIDRangeBegin; ProducerType/VendorID). */
#define SA_INFORM_ANY			0xffff
#define SA_INFORM_ANY_PRODUCER		0xffffff


/* --- Mellanox's vendor-specific class (range 1), which Mellanox devices answer. --- */

/*
 * After the common header an 8-byte V_Key, then the attribute data (as
 * vendstat lays it out).  The class is at version 1.
 */
#define MLNX_VS_CLASS		0x0a
#define MLNX_VS_CLASS_VERSION	1
#define MLNX_VS_OFF_V_KEY	MAD_HDR_SIZE
#define MLNX_VS_OFF_DATA	(MLNX_VS_OFF_V_KEY + MAD_KEY_SIZE)
#define MLNX_VS_DATA_SIZE	(MAD_SIZE - MLNX_VS_OFF_DATA)

enum mlnx_vs_attr {
	MLNX_VS_ATTR_CLASS_PORT_INFO	= UMAD_ATTR_CLASS_PORT_INFO,
	MLNX_VS_ATTR_GENERAL_INFO	= 0x0017,
};


/* --- Congestion control (class UMAD_CLASS_CONG_MGMT): attributes and fields. --- */

/*
 * A CC MAD: the common header, the CC_Key, 32 reserved bytes and 192 bytes
 * of attribute data; CongestionLog's data starts at the reserved bytes
 * (IBA Annex A10, as libibmad lays it out).  The class is at version 2.
 */
#define CC_CLASS_VERSION	2
#define CC_OFF_CC_KEY		MAD_HDR_SIZE
#define CC_OFF_LOG_DATA		(CC_OFF_CC_KEY + MAD_KEY_SIZE)
#define CC_OFF_DATA		(CC_OFF_LOG_DATA + 32)
#define CC_DATA_SIZE		(MAD_SIZE - CC_OFF_DATA)
#define CC_LOG_DATA_SIZE	(MAD_SIZE - CC_OFF_LOG_DATA)

enum cc_attr {
	CC_ATTR_CLASS_PORT_INFO		= UMAD_ATTR_CLASS_PORT_INFO,
	CC_ATTR_NOTICE			= UMAD_ATTR_NOTICE,
	CC_ATTR_CONGESTION_INFO		= 0x0011,
	CC_ATTR_CONGESTION_KEY_INFO	= 0x0012,
	CC_ATTR_CONGESTION_LOG		= 0x0013,
	CC_ATTR_SWITCH_CONGESTION_SETTING = 0x0014,
	CC_ATTR_SWITCH_PORT_CONGESTION_SETTING = 0x0015,
	CC_ATTR_CA_CONGESTION_SETTING	= 0x0016,
	CC_ATTR_CONGESTION_CONTROL_TABLE = 0x0017,
	CC_ATTR_TIMESTAMP		= 0x0018,
};

/* CongestionLog:LogType, and CongestionFlags bit 0 (the CC_Key lease timer runs). */
enum cc_log_type {
	CC_LOG_TYPE_SWITCH	= 1,
	CC_LOG_TYPE_CA		= 2,
};
#define CC_LOG_FLAG_LEASE_ACTIVE	0x01

/* SwitchCongestionSetting:Control_Map: which parts of a Set apply. */
enum cc_switch_control {
	CC_SWITCH_CTRL_VICTIM_MASK	= 1 << 0,
	CC_SWITCH_CTRL_CREDIT_MASK	= 1 << 1,
	CC_SWITCH_CTRL_THRESHOLD	= 1 << 2,	/* and Packet_Size */
	CC_SWITCH_CTRL_CS		= 1 << 3,	/* CS_Threshold and CS_ReturnDelay */
	CC_SWITCH_CTRL_MARKING_RATE	= 1 << 4,
};


/* --- Traps and notices (SMA traps, SA reports). --- */
/* The Notice attribute (traps and reports): 80 bytes; an SMP Trap carries the first 64. */
#define NOTICE_SIZE		80
#define NOTICE_SMP_SIZE		SMP_DATA_SIZE
/* Notice types and producers. */
enum {
	NOTICE_TYPE_URGENT	= 1,
	NOTICE_TYPE_SUBN_MGMT	= 3,
	NOTICE_TYPE_INFO	= 4,
	NOTICE_PRODUCER_CA	= 1,
	NOTICE_PRODUCER_SWITCH	= 2,
	NOTICE_PRODUCER_ROUTER	= 3,
	NOTICE_PRODUCER_CLASS_MGR = 4,
};
/* SMA traps the fabric sends. */
enum {
	TRAP_LINK_STATE_CHANGE	= 128,	/* a switch's port changed state */
	TRAP_LINK_INTEGRITY	= 129,	/* local link integrity threshold reached */
	TRAP_BUFFER_OVERRUN	= 130,	/* excessive buffer overrun threshold reached */
	TRAP_FLOW_CONTROL	= 131,	/* flow control update watchdog fired */
	TRAP_CAPABILITY_CHANGE	= 144,	/* CapabilityMask (or NodeDescription...) changed */
	TRAP_SYS_IMAGE_GUID	= 145,	/* SystemImageGUID changed */
};

/* Packet headers around a MAD on the wire (IBA 5.2, 9.2, 9.3). */
#define IB_LRH_LEN		8
#define IB_GRH_LEN		40
#define IB_BTH_LEN		12
#define IB_DETH_LEN		8
#define IB_ICRC_LEN		4
#define IB_VCRC_LEN		2
/* PktLen counts 4-byte words; a payload is padded to whole words (BTH PadCnt). */
#define IB_WORD_LEN		4

/* LRH: VL:4 LVer:4 | SL:4 rsv:2 LNH:2 | DLID:16 | rsv:5 PktLen:11 | SLID:16. */
#define LRH_OFF_VL		0
#define LRH_OFF_SL_LNH		1
#define LRH_OFF_DLID		2
#define LRH_OFF_PKTLEN		4
#define LRH_OFF_SLID		6
#define LRH_VL_SHIFT		4
#define LRH_SL_SHIFT		4
#define LRH_SL_MASK		0x0f
#define LRH_LNH_MASK		0x03
#define LRH_LNH_LOCAL		2	/* LRH, BTH */
#define LRH_LNH_GLOBAL		3	/* LRH, GRH, BTH */
#define LRH_PKTLEN_MAX		0x7ff	/* in 4-byte words */
#define LRH_VL_SMP		15	/* SMPs travel on VL15 */

/* GRH: IPVer:4 TClass:8 FlowLabel:20 | PayLen:16 NxtHdr:8 HopLmt:8 | SGID | DGID. */
#define GRH_OFF_VER_TC_FLOW	0
#define GRH_OFF_PAYLEN		4
#define GRH_OFF_NEXT_HDR	6
#define GRH_OFF_HOP_LIMIT	7
#define GRH_OFF_SGID		8
#define GRH_OFF_DGID		24
#define GRH_IP_VERSION		6
#define GRH_VERSION_SHIFT	28
#define GRH_TCLASS_SHIFT	20
#define GRH_FLOW_LABEL_MASK	0x000fffff
#define GRH_NEXT_HDR_BTH	0x1b

/* BTH: OpCode | SE M PadCnt TVer | P_Key | rsv | DestQP:24 | A rsv | PSN:24. */
#define BTH_OFF_OPCODE		0
#define BTH_OFF_PAD		1
#define BTH_OFF_PKEY		2
#define BTH_OFF_RESV8A		4
#define BTH_OFF_DEST_QP		5
#define BTH_OFF_ACKREQ		8
#define BTH_OFF_PSN		9
#define BTH_OPCODE_UD_SEND_ONLY	0x64
#define BTH_PAD_SHIFT		4
#define BTH_PSN_MASK		0x00ffffff

/* DETH: Q_Key | rsv | SrcQP:24. */
#define DETH_OFF_QKEY		0
#define DETH_OFF_RESV		4
#define DETH_OFF_SRC_QP		5

/* QP numbers are 24 bits on the wire (BTH DestQP, DETH SrcQP). */
#define IB_QPN_MASK		0x00ffffff
/* The link-local GID prefix, fe80::/64. */
#define GID_PREFIX_LINK_LOCAL	0xfe80000000000000ULL
/* Its scope, fe80::/10: the bits a link-local prefix shares with it. */
#define GID_PREFIX_LINK_LOCAL_SCOPE	0xffc0000000000000ULL

/* Queue pairs of the management agents, the permissive LID and the default P_Key. */
#define QP0_SMI			0
#define QP1_GSI			1
#define LID_PERMISSIVE		0xffff
/* Unicast LIDs lie below it, multicast LIDs from it up to the permissive LID. */
#define LID_MCAST_START		0xc000
#define PKEY_DEFAULT		0xffff
/* A P_Key's low 15 bits are the key; the top bit marks a full member. */
#define PKEY_KEY_MASK		0x7fff
#define PKEY_FULL_MEMBER	0x8000

/* The partition a P_Key names (0: the invalid key), which is the key of a limited member. */
static inline uint16_t pkey_partition(uint16_t pkey)
{
	return pkey & PKEY_KEY_MASK;
}

/* The same key held as a full member. */
static inline uint16_t pkey_as_full(uint16_t pkey)
{
	return pkey | PKEY_FULL_MEMBER;
}

/*
 * The partition rule (IBA 10.9.3), the one place it is written: two P_Keys
 * let their holders talk when they name the same partition, not the
 * invalid one, and are not both limited members.
 */
static inline int pkey_match(uint16_t a, uint16_t b)
{
	return pkey_partition(a) && pkey_partition(a) == pkey_partition(b) &&
	       ((a | b) & PKEY_FULL_MEMBER);
}

/* SMInfo:SMState. */
enum sm_state {
	SM_STATE_NOT_ACTIVE	= 0,
	SM_STATE_DISCOVERING	= 1,
	SM_STATE_STANDBY	= 2,
	SM_STATE_MASTER		= 3,
};

/* Subnet management packets: QP0, VL15, both routings. */
static inline int mad_class_is_smp(uint8_t mgmt_class)
{
	return mgmt_class == UMAD_CLASS_SUBN_LID_ROUTED ||
	       mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE;
}

/* Classes whose messages longer than one MAD travel as RMPP segments (SA, DM, BIS, vendor range 2). */
static inline int mad_class_is_rmpp(uint8_t mgmt_class)
{
	return mgmt_class == UMAD_CLASS_SUBN_ADM || mgmt_class == UMAD_CLASS_DEVICE_MGMT ||
	       mgmt_class == UMAD_CLASS_DEVICE_ADM || mgmt_class == UMAD_CLASS_BIS ||
	       (mgmt_class >= UMAD_CLASS_VENDOR_RANGE2_START &&
		mgmt_class <= UMAD_CLASS_VENDOR_RANGE2_END);
}

/* Vendor classes with an OUI in their header (and RMPP). */
static inline int mad_class_is_vendor_range2(uint8_t mgmt_class)
{
	return mgmt_class >= UMAD_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= UMAD_CLASS_VENDOR_RANGE2_END;
}

/* Header bytes every RMPP segment of a class repeats. */
static inline size_t mad_rmpp_header_len(uint8_t mgmt_class)
{
	if (mgmt_class == UMAD_CLASS_SUBN_ADM)
		return SA_HDR_END;
	if (mgmt_class >= UMAD_CLASS_VENDOR_RANGE2_START &&
	    mgmt_class <= UMAD_CLASS_VENDOR_RANGE2_END)
		return VENDOR_HDR_END;
	return RMPP_HDR_END;
}

/* BM: bit 0 of the attribute modifier marks a response. */
#define BM_ATTR_MOD_RESPONSE	1u

static inline int mad_method_is_response(uint8_t method)
{
	return (method & UMAD_METHOD_RESP_MASK) != 0;
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
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

static inline void put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
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

/* Common-header fields of a MAD (at least MAD_HDR_SIZE bytes). */
static inline uint8_t mad_class(const uint8_t *mad)
{
	return mad[MAD_OFF_CLASS];
}

static inline uint8_t mad_method(const uint8_t *mad)
{
	return mad[MAD_OFF_METHOD];
}

static inline uint16_t mad_status(const uint8_t *mad)
{
	return get_be16(mad + MAD_OFF_STATUS);
}

static inline uint64_t mad_tid(const uint8_t *mad)
{
	return get_be64(mad + MAD_OFF_TID);
}

static inline uint16_t mad_attr_id(const uint8_t *mad)
{
	return get_be16(mad + MAD_OFF_ATTR_ID);
}

static inline uint32_t mad_attr_mod(const uint8_t *mad)
{
	return get_be32(mad + MAD_OFF_ATTR_MOD);
}

#endif /* UMAD_BASE_MAD_WIRE_H */
