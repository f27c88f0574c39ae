/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The SA records that mirror the fabric as its SMAs describe it: nodes,
 * ports, switches, SMs, links, GUID and P_Key tables, SL-to-VL and VL
 * arbitration tables, linear and multicast forwarding tables.  Each type
 * is a component table (one entry per ComponentMask bit, in record order)
 * and a walk that builds every candidate record and offers it to the
 * generic matcher.  Field offsets inside the records are the spec's.
 */
#include "config.h"

#include <string.h>

#include "simfabric/sa_internal.h"
#include "simfabric/sma.h"

#define N_FIELDS(t)	(sizeof(t) / sizeof((t)[0]))

/* Every record here starts with the LID of an end port (a switch's own) as component 0. */
#define COMP_LID	SA_NR_COMP_LID

static void use_table(struct sa_query *q, const struct sa_field *fields, unsigned n)
{
	q->fields = fields;
	q->n_fields = n;
}

static uint8_t port_lmc(const struct sim_port *p)
{
	return p->node->type == NODE_TYPE_SWITCH ? 0 : p->lmc;
}

/* Call fn for each end port the query can be about: the one with the LID it names, or all. */
static int each_end_port(struct sa_query *q, void (*fn)(struct sa_query *, struct sim_port *))
{
	struct sim_port *p;
	size_t node = 0;
	unsigned port = 0;

	if (q->comp_mask & COMP_LID) {
		p = sa_port_by_lid(q->sa, get_be16(q->rec));
		if (p)
			fn(q, p);
		return q->error;
	}
	while (!sa_done(q) && (p = sa_next_end_port(q->sa, &node, &port)))
		fn(q, p);
	return q->error;
}

/* --- NodeRecord ------------------------------------------------------------------- */

static const struct sa_field node_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_F(2, 16),			/* reserved */
	SA_F(4, 8),			/* BaseVersion */
	SA_F(5, 8),			/* ClassVersion */
	SA_F(6, 8),			/* NodeType */
	SA_F(7, 8),			/* NumPorts */
	SA_F(8, 64),			/* SystemImageGUID */
	SA_F(16, 64),			/* NodeGUID */
	SA_F(24, 64),			/* PortGUID */
	SA_F(32, 16),			/* PartitionCap */
	SA_F(34, 16),			/* DeviceID */
	SA_F(36, 32),			/* Revision */
	SA_F(40, 8),			/* LocalPortNum */
	SA_F(41, 24),			/* VendorID */
	SA_F(44, 512),			/* NodeDescription */
};

static void node_record(struct sa_query *q, struct sim_port *p)
{
	uint8_t rec[SA_NODE_REC_SIZE] = { 0 };
	const struct sim_node *n = p->node;

	put_be16(rec, p->lid);
	/* NodeInfo (40 bytes; the encoder fills a whole SMP's data), then the description. */
	sim_encode_node_info(n, p->num, rec + 4);
	memset(rec + 44, 0, SIM_DESC_LEN);
	memcpy(rec + 44, n->desc, strnlen(n->desc, SIM_DESC_LEN));
	q->lmc[0] = port_lmc(p);
	sa_emit(q, rec);
}

int sa_node_records(struct sa_query *q)
{
	use_table(q, node_fields, N_FIELDS(node_fields));
	return each_end_port(q, node_record);
}

/* --- PortInfoRecord ---------------------------------------------------------------- */

#define PI(o)	(4 + (o))	/* PortInfo follows EndportLID, PortNum, Options */

static const struct sa_field port_info_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),		/* EndportLID */
	SA_F(2, 8),				/* PortNum */
	SA_F(3, 8),				/* Options */
	SA_F(PI(0), 64),			/* M_Key */
	SA_F(PI(8), 64),			/* GIDPrefix */
	SA_F(PI(16), 16),			/* LID */
	SA_F(PI(18), 16),			/* MasterSMLID */
	SA_FM(PI(20), 32, SA_MATCH_CAP_MASK),	/* CapabilityMask */
	SA_F(PI(24), 16),			/* DiagCode */
	SA_F(PI(26), 16),			/* M_KeyLeasePeriod */
	SA_F(PI(28), 8),			/* LocalPortNum */
	SA_F(PI(29), 8),			/* LinkWidthEnabled */
	SA_F(PI(30), 8),			/* LinkWidthSupported */
	SA_F(PI(31), 8),			/* LinkWidthActive */
	SA_FB(PI(32), 0, 4),			/* LinkSpeedSupported */
	SA_FB(PI(32), 4, 4),			/* PortState */
	SA_FB(PI(33), 0, 4),			/* PortPhysicalState */
	SA_FB(PI(33), 4, 4),			/* LinkDownDefaultState */
	SA_FB(PI(34), 0, 2),			/* M_KeyProtectBits */
	SA_FB(PI(34), 2, 3),			/* reserved */
	SA_FB(PI(34), 5, 3),			/* LMC */
	SA_FB(PI(35), 0, 4),			/* LinkSpeedActive */
	SA_FB(PI(35), 4, 4),			/* LinkSpeedEnabled */
	SA_FB(PI(36), 0, 4),			/* NeighborMTU */
	SA_FB(PI(36), 4, 4),			/* MasterSMSL */
	SA_FB(PI(37), 0, 4),			/* VLCap */
	SA_FB(PI(37), 4, 4),			/* InitType */
	SA_F(PI(38), 8),			/* VLHighLimit */
	SA_F(PI(39), 8),			/* VLArbitrationHighCap */
	SA_F(PI(40), 8),			/* VLArbitrationLowCap */
	SA_FB(PI(41), 0, 4),			/* InitTypeReply */
	SA_FB(PI(41), 4, 4),			/* MTUCap */
	SA_FB(PI(42), 0, 3),			/* VLStallCount */
	SA_FB(PI(42), 3, 5),			/* HOQLife */
	SA_FB(PI(43), 0, 4),			/* OperationalVLs */
	SA_FB(PI(43), 4, 1),			/* PartitionEnforcementInbound */
	SA_FB(PI(43), 5, 1),			/* PartitionEnforcementOutbound */
	SA_FB(PI(43), 6, 1),			/* FilterRawInbound */
	SA_FB(PI(43), 7, 1),			/* FilterRawOutbound */
	SA_F(PI(44), 16),			/* M_KeyViolations */
	SA_F(PI(46), 16),			/* P_KeyViolations */
	SA_F(PI(48), 16),			/* Q_KeyViolations */
	SA_F(PI(50), 8),			/* GUIDCap */
	SA_FB(PI(51), 0, 1),			/* ClientReregister */
	SA_FB(PI(51), 1, 2),			/* MulticastPKeyTrapSuppressionEnabled */
	SA_FB(PI(51), 3, 5),			/* SubnetTimeOut */
	SA_FB(PI(52), 0, 3),			/* reserved */
	SA_FB(PI(52), 3, 5),			/* RespTimeValue */
	SA_FB(PI(53), 0, 4),			/* LocalPhyErrors */
	SA_FB(PI(53), 4, 4),			/* OverrunErrors */
	SA_F(PI(54), 16),			/* MaxCreditHint */
	SA_F(PI(56), 8),			/* reserved */
	SA_F(PI(57), 24),			/* LinkRoundTripLatency */
	SA_F(PI(60), 16),			/* CapabilityMask2 */
	SA_FB(PI(62), 0, 4),			/* LinkSpeedExtActive */
	SA_FB(PI(62), 4, 4),			/* LinkSpeedExtSupported */
	SA_FB(PI(63), 0, 3),			/* reserved */
	SA_FB(PI(63), 3, 5),			/* LinkSpeedExtEnabled */
};

static void port_info_record(struct sa_query *q, struct sim_port *lid_port)
{
	struct sim_node *n = lid_port->node;
	unsigned first = lid_port->num, last = lid_port->num, num;
	uint8_t rec[SA_PORT_INFO_REC_SIZE];

	/* A switch has a record for each of its ports, all under its LID. */
	if (n->type == NODE_TYPE_SWITCH) {
		first = 0;
		last = n->num_ports;
	}
	q->lmc[0] = port_lmc(lid_port);
	for (num = first; num <= last && !sa_done(q); num++) {
		memset(rec, 0, sizeof(rec));
		put_be16(rec, lid_port->lid);
		rec[2] = (uint8_t)num;
		/* Only a trusted requester sees M_Keys. */
		sim_encode_port_info(n, &n->ports[num], num, !q->trusted, rec + PI(0));
		sa_emit(q, rec);
	}
}

int sa_port_info_records(struct sa_query *q)
{
	use_table(q, port_info_fields, N_FIELDS(port_info_fields));
	return each_end_port(q, port_info_record);
}

/* --- SwitchInfoRecord -------------------------------------------------------------- */

static const struct sa_field switch_info_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_F(2, 16),			/* reserved */
	SA_F(4, 16),			/* LinearFDBCap */
	SA_F(6, 16),			/* RandomFDBCap */
	SA_F(8, 16),			/* MulticastFDBCap */
	SA_F(10, 16),			/* LinearFDBTop */
	SA_F(12, 8),			/* DefaultPort */
	SA_F(13, 8),			/* DefaultMulticastPrimaryPort */
	SA_F(14, 8),			/* DefaultMulticastNotPrimaryPort */
	SA_FB(15, 0, 5),		/* LifeTimeValue */
	SA_FB(15, 5, 1),		/* PortStateChange */
	SA_FB(15, 6, 2),		/* OptimizedSLtoVLMappingProgramming */
	SA_F(16, 16),			/* LIDsPerPort */
	SA_F(18, 16),			/* PartitionEnforcementCap */
	SA_FB(20, 0, 1),		/* InboundEnforcementCap */
	SA_FB(20, 1, 1),		/* OutboundEnforcementCap */
	SA_FB(20, 2, 1),		/* FilterRawInboundCap */
	SA_FB(20, 3, 1),		/* FilterRawOutboundCap */
	SA_FB(20, 4, 1),		/* EnhancedPort0 */
};

static void switch_info_record(struct sa_query *q, struct sim_port *p)
{
	const struct sim_switch *sw = p->node->sw;
	uint8_t rec[SA_SWITCH_INFO_REC_SIZE] = { 0 }, si[SMP_DATA_SIZE];

	if (!sw)
		return;
	put_be16(rec, p->lid);
	/* SwitchInfo, as the switch's SMA has it (the record holds its first 20 bytes). */
	sim_encode_switch_info(sw, si);
	memcpy(rec + 4, si, SA_SWITCH_INFO_REC_SIZE - 4);
	q->lmc[0] = 0;
	sa_emit(q, rec);
}

int sa_switch_info_records(struct sa_query *q)
{
	use_table(q, switch_info_fields, N_FIELDS(switch_info_fields));
	return each_end_port(q, switch_info_record);
}

/* --- SMInfoRecord ------------------------------------------------------------------- */

static const struct sa_field sm_info_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_F(2, 16),			/* reserved */
	SA_F(4, 64),			/* GUID */
	SA_F(12, 64),			/* SM_Key */
	SA_F(20, 32),			/* ActCount */
	SA_FB(24, 0, 4),		/* Priority */
	SA_FB(24, 4, 4),		/* SMState */
};

static void sm_info_record(struct sa_query *q, struct sim_port *p)
{
	const struct sim_sminfo *s = &p->node->sminfo;
	uint8_t rec[SA_SM_INFO_REC_SIZE] = { 0 };

	put_be16(rec, p->lid);
	put_be64(rec + 4, s->guid ? s->guid : sa_port_guid(p));
	put_be64(rec + 12, q->trusted ? s->sm_key : 0);
	put_be32(rec + 20, s->act_count);
	rec[24] = (uint8_t)(s->priority << 4 | (s->state & 0xf));
	q->lmc[0] = port_lmc(p);
	sa_emit(q, rec);
}

/* Other SMs the SA knows of: ports that say IsSM. */
static void other_sm_record(struct sa_query *q, struct sim_port *p)
{
	if (p != q->sa->sm_port && (p->capmask & PORT_CAP_IS_SM))
		sm_info_record(q, p);
}

int sa_sm_info_records(struct sa_query *q)
{
	struct sim_port *own = q->sa->sm_port;

	use_table(q, sm_info_fields, N_FIELDS(sm_info_fields));
	if (own && sa_port_known(own))
		sm_info_record(q, own);
	return each_end_port(q, other_sm_record);
}

/* --- LinkRecord ----------------------------------------------------------------------- */

static const struct sa_field link_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* FromLID */
	SA_F(2, 8),			/* FromPort */
	SA_F(3, 8),			/* ToPort */
	SA_FM(4, 16, SA_MATCH_LID2),	/* ToLID */
};

/* The links out of the node whose LID port is lid_port, to ports the SA knows. */
static void link_records(struct sa_query *q, struct sim_port *lid_port)
{
	struct sim_node *n = lid_port->node;
	unsigned first = lid_port->num, last = lid_port->num, num;
	uint8_t rec[SA_LINK_REC_SIZE] = { 0 };

	if (n->type == NODE_TYPE_SWITCH) {
		first = 1;
		last = n->num_ports;
	}
	for (num = first; num <= last && !sa_done(q); num++) {
		struct sim_port *p = &n->ports[num], *peer = p->peer, *peer_lid;

		if (!sim_port_link_up(p))
			continue;
		peer_lid = sim_mgmt_port(peer->node, peer->num);
		if (!sa_port_known(peer_lid))
			continue;
		put_be16(rec, lid_port->lid);
		rec[2] = (uint8_t)num;
		rec[3] = peer->num;
		put_be16(rec + 4, peer_lid->lid);
		q->lmc[0] = port_lmc(lid_port);
		q->lmc[1] = port_lmc(peer_lid);
		sa_emit(q, rec);
	}
}

int sa_link_records(struct sa_query *q)
{
	use_table(q, link_fields, N_FIELDS(link_fields));
	return each_end_port(q, link_records);
}

/* --- GUIDInfoRecord --------------------------------------------------------------------- */

static const struct sa_field guid_info_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_F(2, 8),			/* BlockNum */
	SA_F(3, 8),			/* reserved */
	SA_F(4, 32),			/* reserved */
	SA_F(8, 64), SA_F(16, 64), SA_F(24, 64), SA_F(32, 64),	/* GUID0-3 */
	SA_F(40, 64), SA_F(48, 64), SA_F(56, 64), SA_F(64, 64),	/* GUID4-7 */
};

static void guid_info_records(struct sa_query *q, struct sim_port *p)
{
	unsigned cap = p->guid_cap < SIM_GUID_CAP ? p->guid_cap : SIM_GUID_CAP;
	unsigned block, i;
	uint8_t rec[SA_GUID_INFO_REC_SIZE];

	q->lmc[0] = port_lmc(p);
	for (block = 0; block * 8 < cap && !sa_done(q); block++) {
		memset(rec, 0, sizeof(rec));
		put_be16(rec, p->lid);
		rec[2] = (uint8_t)block;
		for (i = 0; i < 8 && block * 8 + i < cap; i++) {
			unsigned index = block * 8 + i;

			put_be64(rec + 8 + 8 * i, index ? sim_port_guid_at(p, index) : sa_port_guid(p));
		}
		sa_emit(q, rec);
	}
}

int sa_guid_info_records(struct sa_query *q)
{
	use_table(q, guid_info_fields, N_FIELDS(guid_info_fields));
	return each_end_port(q, guid_info_records);
}

/* --- P_KeyTableRecord ----------------------------------------------------------------- */

static const struct sa_field pkey_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_F(2, 16),			/* BlockNum */
	SA_F(4, 8),			/* PortNum */
	SA_F(5, 24),			/* reserved */
};

static void pkey_blocks(struct sa_query *q, struct sim_port *lid_port, struct sim_port *p,
			unsigned entries)
{
	unsigned blocks = (entries + 31) / 32, block, i;
	uint8_t rec[SA_PKEY_TABLE_REC_SIZE];

	if (blocks > SIM_PKEY_TABLE_SIZE / 32)
		blocks = SIM_PKEY_TABLE_SIZE / 32;
	for (block = 0; block < blocks && !sa_done(q); block++) {
		memset(rec, 0, sizeof(rec));
		put_be16(rec, lid_port->lid);
		put_be16(rec + 2, (uint16_t)block);
		rec[4] = p->num;
		for (i = 0; i < 32; i++)
			put_be16(rec + 8 + 2 * i, sim_port_pkey(p, block * 32 + i));
		sa_emit(q, rec);
	}
}

static void pkey_records(struct sa_query *q, struct sim_port *lid_port)
{
	struct sim_node *n = lid_port->node;
	unsigned num;

	q->lmc[0] = port_lmc(lid_port);
	if (n->type != NODE_TYPE_SWITCH) {
		pkey_blocks(q, lid_port, lid_port, n->partition_cap);
		return;
	}
	/* A switch: port 0's table as a CA's, the external ports' as enforcement has them. */
	pkey_blocks(q, lid_port, &n->ports[0], n->partition_cap);
	for (num = 1; num <= n->num_ports; num++)
		pkey_blocks(q, lid_port, &n->ports[num], n->sw->partition_enforcement_cap);
}

int sa_pkey_table_records(struct sa_query *q)
{
	use_table(q, pkey_fields, N_FIELDS(pkey_fields));
	return each_end_port(q, pkey_records);
}

/* --- SLtoVLMappingTableRecord ----------------------------------------------------------- */

static const struct sa_field slvl_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_F(2, 8),			/* InputPortNum */
	SA_F(3, 8),			/* OutputPortNum */
	SA_F(4, 32),			/* reserved */
};

static void slvl_record(struct sa_query *q, uint16_t lid, const struct sim_port *out,
			unsigned in_num, unsigned out_num)
{
	uint8_t rec[SA_SLVL_REC_SIZE] = { 0 };
	unsigned sl;

	put_be16(rec, lid);
	rec[2] = (uint8_t)in_num;
	rec[3] = (uint8_t)out_num;
	for (sl = 0; sl < 16; sl += 2)
		rec[8 + sl / 2] = (uint8_t)(out->sl2vl[sl] << 4 | (out->sl2vl[sl + 1] & 0xf));
	sa_emit(q, rec);
}

static void slvl_records(struct sa_query *q, struct sim_port *lid_port)
{
	struct sim_node *n = lid_port->node;
	unsigned in, out;

	q->lmc[0] = port_lmc(lid_port);
	/* An end port has one table (port numbers reserved); a switch one per port pair. */
	if (n->type != NODE_TYPE_SWITCH) {
		slvl_record(q, lid_port->lid, lid_port, 0, 0);
		return;
	}
	for (out = 0; out <= n->num_ports && !sa_done(q); out++)
		for (in = 0; in <= n->num_ports && !sa_done(q); in++)
			slvl_record(q, lid_port->lid, &n->ports[out], in, out);
}

int sa_slvl_records(struct sa_query *q)
{
	use_table(q, slvl_fields, N_FIELDS(slvl_fields));
	return each_end_port(q, slvl_records);
}

/* --- VLArbitrationTableRecord ------------------------------------------------------------ */

static const struct sa_field vl_arb_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_F(2, 8),			/* OutputPortNum */
	SA_F(3, 8),			/* BlockNum */
	SA_F(4, 32),			/* reserved */
};

static void vl_arb_port(struct sa_query *q, uint16_t lid, const struct sim_port *p)
{
	/* Blocks 1-2 hold the low-priority table, 3-4 the high: as many as the caps need. */
	unsigned caps[4] = { p->vl_arb_low_cap, p->vl_arb_low_cap > 32, p->vl_arb_high_cap,
			     p->vl_arb_high_cap > 32 };
	unsigned block, i;
	uint8_t rec[SA_VL_ARB_REC_SIZE];

	for (block = 1; block <= 4 && !sa_done(q); block++) {
		if (!caps[block - 1])
			continue;
		memset(rec, 0, sizeof(rec));
		put_be16(rec, lid);
		rec[2] = p->num;
		rec[3] = (uint8_t)block;
		for (i = 0; i < 32 && p->vlarb; i++) {
			rec[8 + 2 * i] = p->vlarb[block - 1][i][0] & 0xf;
			rec[9 + 2 * i] = p->vlarb[block - 1][i][1];
		}
		sa_emit(q, rec);
	}
}

static void vl_arb_records(struct sa_query *q, struct sim_port *lid_port)
{
	struct sim_node *n = lid_port->node;
	unsigned num;

	q->lmc[0] = port_lmc(lid_port);
	if (n->type != NODE_TYPE_SWITCH) {
		vl_arb_port(q, lid_port->lid, lid_port);
		return;
	}
	/* Port 0 has data VLs only when it is an enhanced one. */
	for (num = n->sw->enhanced_port0 ? 0 : 1; num <= n->num_ports; num++)
		vl_arb_port(q, lid_port->lid, &n->ports[num]);
}

int sa_vl_arb_records(struct sa_query *q)
{
	use_table(q, vl_arb_fields, N_FIELDS(vl_arb_fields));
	return each_end_port(q, vl_arb_records);
}

/* --- LinearForwardingTableRecord ----------------------------------------------------------- */

static const struct sa_field lft_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_F(2, 16),			/* BlockNum */
	SA_F(4, 32),			/* reserved */
};

static void lft_records(struct sa_query *q, struct sim_port *p)
{
	const struct sim_switch *sw = p->node->sw;
	unsigned block, i;
	uint8_t rec[SA_LFT_REC_SIZE];

	/* Blocks up to LinearFDBTop, once an SM wrote the table. */
	if (!sw || !sw->lft)
		return;
	q->lmc[0] = 0;
	for (block = 0; block <= sw->lft_top / 64u && !sa_done(q); block++) {
		memset(rec, 0, sizeof(rec));
		put_be16(rec, p->lid);
		put_be16(rec + 2, (uint16_t)block);
		for (i = 0; i < 64; i++)
			rec[8 + i] = sim_switch_lft_get(sw, (uint16_t)(block * 64 + i));
		sa_emit(q, rec);
	}
}

int sa_lft_records(struct sa_query *q)
{
	use_table(q, lft_fields, N_FIELDS(lft_fields));
	return each_end_port(q, lft_records);
}

/* --- MulticastForwardingTableRecord ---------------------------------------------------------- */

static const struct sa_field mft_fields[] = {
	SA_FM(0, 16, SA_MATCH_LID),	/* LID */
	SA_FB(2, 0, 4),			/* Position */
	SA_FB(2, 4, 3),			/* reserved */
	SA_FB(2, 7, 9),			/* BlockNum */
	SA_F(4, 32),			/* reserved */
};

static void mft_records(struct sa_query *q, struct sim_port *p)
{
	const struct sim_switch *sw = p->node->sw;
	unsigned top, block, position, i;
	uint8_t rec[SA_MFT_REC_SIZE];

	if (!sw || !sw->mft)
		return;
	/* MulticastFDBTop when the SM set one, else the whole table; blocks in use only. */
	top = sw->mft_top >= LID_MCAST_START ? sw->mft_top - LID_MCAST_START : SIM_MFT_CAP - 1;
	if (top >= SIM_MFT_CAP)
		top = SIM_MFT_CAP - 1;
	q->lmc[0] = 0;
	for (block = 0; block <= top / 32 && !sa_done(q); block++) {
		for (position = 0; position <= p->node->num_ports / 16u; position++) {
			int used = 0;

			memset(rec, 0, sizeof(rec));
			put_be16(rec, p->lid);
			sa_put_bits(rec + 2, 0, 4, position);
			sa_put_bits(rec + 2, 7, 9, block);
			for (i = 0; i < 32; i++) {
				uint16_t mask = sw->mft[block * 32 + i][position];

				used |= mask != 0;
				put_be16(rec + 8 + 2 * i, mask);
			}
			if (used)
				sa_emit(q, rec);
		}
	}
}

int sa_mft_records(struct sa_query *q)
{
	use_table(q, mft_fields, N_FIELDS(mft_fields));
	return each_end_port(q, mft_records);
}
