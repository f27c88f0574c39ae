/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * SA MCMemberRecord: component mask bits, join states, scopes, the record
 * layout and its packed-field helpers, as rdma-core's <infiniband/umad_sa_mcm.h>.
 */
#ifndef _UMAD_SA_MCM_H
#define _UMAD_SA_MCM_H

#include <infiniband/umad_types.h>
#include <infiniband/umad_sa.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	UMAD_SA_MCM_COMP_MASK_MGID		= (1ULL << 0),
	UMAD_SA_MCM_COMP_MASK_PORT_GID		= (1ULL << 1),
	UMAD_SA_MCM_COMP_MASK_QKEY		= (1ULL << 2),
	UMAD_SA_MCM_COMP_MASK_MLID		= (1ULL << 3),
	UMAD_SA_MCM_COMP_MASK_MTU_SEL		= (1ULL << 4),
	UMAD_SA_MCM_COMP_MASK_MTU		= (1ULL << 5),
	UMAD_SA_MCM_COMP_MASK_TCLASS		= (1ULL << 6),
	UMAD_SA_MCM_COMP_MASK_PKEY		= (1ULL << 7),
	UMAD_SA_MCM_COMP_MASK_RATE_SEL		= (1ULL << 8),
	UMAD_SA_MCM_COMP_MASK_RATE		= (1ULL << 9),
	UMAD_SA_MCM_COMP_MASK_LIFE_TIME_SEL	= (1ULL << 10),
	UMAD_SA_MCM_COMP_MASK_LIFE_TIME		= (1ULL << 11),
	UMAD_SA_MCM_COMP_MASK_SL		= (1ULL << 12),
	UMAD_SA_MCM_COMP_MASK_FLOW_LABEL	= (1ULL << 13),
	UMAD_SA_MCM_COMP_MASK_HOP_LIMIT		= (1ULL << 14),
	UMAD_SA_MCM_COMP_MASK_SCOPE		= (1ULL << 15),
	UMAD_SA_MCM_COMP_MASK_JOIN_STATE	= (1ULL << 16),
	UMAD_SA_MCM_COMP_MASK_PROXY_JOIN	= (1ULL << 17)
};

enum {
	UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER		= (1 << 0),
	UMAD_SA_MCM_JOIN_STATE_NON_MEMBER		= (1 << 1),
	UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER	= (1 << 2),
	UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_FULL_MEMBER	= (1 << 3)
};

enum {
	UMAD_SA_MCM_ADDR_SCOPE_LINK_LOCAL	= 0x2,
	UMAD_SA_MCM_ADDR_SCOPE_SITE_LOCAL	= 0x5,
	UMAD_SA_MCM_ADDR_SCOPE_ORG_LOCAL	= 0x8,
	UMAD_SA_MCM_ADDR_SCOPE_GLOBAL		= 0xE,
};

/* MCMemberRecord (56 bytes with the padding that keeps SA records 8-byte multiples). */
struct umad_sa_mcmember_record {
	uint8_t mgid[16];
	uint8_t portgid[16];
	__be32 qkey;
	__be16 mlid;
	uint8_t mtu;		/* selector:2, MTU:6 */
	uint8_t tclass;
	__be16 pkey;
	uint8_t rate;		/* selector:2, rate:6 */
	uint8_t pkt_life;	/* selector:2, lifetime:6 */
	__be32 sl_flow_hop;	/* SL:4, FlowLabel:20, HopLimit:8 */
	uint8_t scope_state;	/* Scope:4, JoinState:4 */
	uint8_t proxy_join;	/* ProxyJoin:1, set by the SA */
	uint8_t reserved[2];
	uint8_t pad[4];
};

static inline void umad_sa_mcm_get_sl_flow_hop(__be32 sl_flow_hop, uint8_t *const p_sl,
					       uint32_t *const p_flow_lbl,
					       uint8_t *const p_hop)
{
	uint32_t v = ntohl(sl_flow_hop);

	if (p_hop)
		*p_hop = (uint8_t)(v & 0xff);
	if (p_flow_lbl)
		*p_flow_lbl = (v >> 8) & 0xfffff;
	if (p_sl)
		*p_sl = (uint8_t)(v >> 28);
}

static inline __be32 umad_sa_mcm_set_sl_flow_hop(uint8_t sl, uint32_t flow_label,
						 uint8_t hop_limit)
{
	return htonl(((uint32_t)sl << 28) | ((flow_label & 0xfffff) << 8) | hop_limit);
}

static inline void umad_sa_mcm_get_scope_state(const uint8_t scope_state,
					       uint8_t *const p_scope,
					       uint8_t *const p_state)
{
	if (p_state)
		*p_state = scope_state & 0x0f;
	if (p_scope)
		*p_scope = (scope_state >> 4) & 0x0f;
}

static inline uint8_t umad_sa_mcm_set_scope_state(const uint8_t scope, const uint8_t state)
{
	return (uint8_t)((scope << 4) | state);
}

/* Change the join state, keeping the scope. */
static inline void umad_sa_mcm_set_join_state(struct umad_sa_mcmember_record *p_mc_rec,
					      const uint8_t state)
{
	p_mc_rec->scope_state = (uint8_t)((p_mc_rec->scope_state & 0xf0) | (state & 0x0f));
}

static inline int umad_sa_mcm_get_proxy_join(struct umad_sa_mcmember_record *p_mc_rec)
{
	return (p_mc_rec->proxy_join & 0x80) == 0x80;
}

#ifdef __cplusplus
}
#endif

#endif /* _UMAD_SA_MCM_H */
