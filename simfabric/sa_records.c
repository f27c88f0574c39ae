/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The SA records that mirror the fabric as its SMAs describe it: nodes,
 * ports, switches, SMs, links, GUID and P_Key tables, SL-to-VL and VL
 * arbitration tables, linear and multicast forwarding tables.  Each type
 * is a component table (one entry per ComponentMask bit, in record order)
 * and a walk that builds every candidate record and offers it to the
 * generic matcher.  Both come from the records' lists in mad_layout.h.
 */
#include "config.h"

#include <string.h>

#include "simfabric/sa_common.h"
#include "simfabric/sma.h"

#define N_FIELDS(t)	(sizeof(t) / sizeof((t)[0]))
#define COMPONENTS(t)	(t), N_FIELDS(t)

/*
 * Every record here starts with the LID of an end port (a switch's own) as
 * component 0, which matches any LID of the port's LMC range.
 */
#define COMP_LID	SA_COMP(0)
#define REC_LID		NR_LID
#define IS_REC_LID(f)	((mad_field_t)(f) == (mad_field_t)REC_LID)
_Static_assert(IS_REC_LID(PIR_LID) && IS_REC_LID(SWIR_LID) && IS_REC_LID(SMIR_LID) &&
	       IS_REC_LID(LR_FROM_LID) && IS_REC_LID(GIR_LID) && IS_REC_LID(PKTR_LID) &&
	       IS_REC_LID(SL2VLR_LID) && IS_REC_LID(VLAR_LID) && IS_REC_LID(LFTR_LID) &&
	       IS_REC_LID(MFTR_LID) && NR_LID_INDEX == 0, "records start with their LID");

/* The components of a record that carries an attribute: its own fields, then the attribute's. */
#define IN_NODE_RECORD(name, byte, bit, bits)	MAD_FIELD_AT(name, MAD_FIELD_BYTE(NR_NODE_INFO)),
#define IN_NODE_RECORD_DESC(name, byte, bit, bits) MAD_FIELD_AT(name, MAD_FIELD_BYTE(NR_NODE_DESC)),
#define IN_PORT_INFO_RECORD(name, byte, bit, bits) MAD_FIELD_AT(name, MAD_FIELD_BYTE(PIR_PORT_INFO)),
#define IN_SWITCH_INFO_RECORD(name, byte, bit, bits) \
	MAD_FIELD_AT(name, MAD_FIELD_BYTE(SWIR_SWITCH_INFO)),
#define IN_SM_INFO_RECORD(name, byte, bit, bits)	MAD_FIELD_AT(name, MAD_FIELD_BYTE(SMIR_SM_INFO)),
#define IN_GUID_INFO_RECORD(name, byte, bit, bits) MAD_FIELD_AT(name, MAD_FIELD_BYTE(GIR_GUID_INFO)),

static void use_components(struct sa_query *q, const struct sa_components *c)
{
	q->comps = c;
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
		p = sa_port_by_lid(q->sa, (uint16_t)mad_get(q->rec, REC_LID));
		if (p)
			fn(q, p);
		return q->error;
	}
	while (!sa_done(q) && (p = sa_next_end_port(q->sa, &node, &port)))
		fn(q, p);
	return q->error;
}

/* --- NodeRecord ------------------------------------------------------------------- */

static const mad_field_t node_fields[] = {
	NR_LID, NR_RESERVED, NODE_INFO_FIELDS(IN_NODE_RECORD) NODE_DESC_FIELDS(IN_NODE_RECORD_DESC)
};
static const struct sa_components node_components = { COMPONENTS(node_fields), COMP_LID, 0, 0 };
_Static_assert(NR_NODE_DESC_INDEX == 3 &&
	       SA_NR_COMP_NODE_DESC == SA_COMP(N_FIELDS(node_fields) - 1), "NodeRecord's components");

static void node_record(struct sa_query *q, struct sim_port *p)
{
	uint8_t rec[SA_NODE_REC_SIZE] = { 0 };
	const struct sim_node *n = p->node;

	mad_set(rec, NR_LID, p->lid);
	/* NodeInfo (the encoder fills a whole SMP's data), then the description over the rest. */
	sim_encode_node_info(n, p->num, MAD_AT(rec, NR_NODE_INFO));
	memset(MAD_AT(rec, NR_NODE_DESC), 0, MAD_FIELD_SIZE(NR_NODE_DESC));
	memcpy(MAD_AT(rec, NR_NODE_DESC), n->desc, strnlen(n->desc, SIM_DESC_LEN));
	q->lmc[0] = port_lmc(p);
	sa_emit(q, rec);
}

int sa_node_records(struct sa_query *q)
{
	use_components(q, &node_components);
	return each_end_port(q, node_record);
}

/* --- PortInfoRecord ---------------------------------------------------------------- */

static const mad_field_t port_info_fields[] = {
	PIR_LID, PIR_PORT_NUM, PIR_OPTIONS, PORT_INFO_FIELDS(IN_PORT_INFO_RECORD)
};
static const struct sa_components port_info_components = {
	COMPONENTS(port_info_fields), COMP_LID, 0, SA_PIR_COMP_CAP_MASK
};
_Static_assert(PIR_PORT_INFO_INDEX == 3, "PortInfoRecord's components");

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
		mad_set(rec, PIR_LID, lid_port->lid);
		mad_set(rec, PIR_PORT_NUM, num);
		/* Only a trusted requester sees M_Keys. */
		sim_encode_port_info(n, &n->ports[num], num, !q->trusted, MAD_AT(rec, PIR_PORT_INFO));
		sa_emit(q, rec);
	}
}

int sa_port_info_records(struct sa_query *q)
{
	use_components(q, &port_info_components);
	return each_end_port(q, port_info_record);
}

/* --- SwitchInfoRecord -------------------------------------------------------------- */

static const mad_field_t switch_info_fields[] = {
	SWIR_LID, SWIR_RESERVED, SWITCH_INFO_FIELDS(IN_SWITCH_INFO_RECORD)
};
static const struct sa_components switch_info_components = {
	COMPONENTS(switch_info_fields), COMP_LID, 0, 0
};
_Static_assert(SWIR_SWITCH_INFO_INDEX == 2, "SwitchInfoRecord's components");

static void switch_info_record(struct sa_query *q, struct sim_port *p)
{
	const struct sim_switch *sw = p->node->sw;
	uint8_t rec[SA_SWITCH_INFO_REC_SIZE] = { 0 }, si[SMP_DATA_SIZE];

	if (!sw)
		return;
	mad_set(rec, SWIR_LID, p->lid);
	/* SwitchInfo, as the switch's SMA has it (the record holds the fields up to its end). */
	sim_encode_switch_info(sw, si);
	memcpy(MAD_AT(rec, SWIR_SWITCH_INFO), si, MAD_FIELD_SIZE(SWIR_SWITCH_INFO));
	q->lmc[0] = 0;
	sa_emit(q, rec);
}

int sa_switch_info_records(struct sa_query *q)
{
	use_components(q, &switch_info_components);
	return each_end_port(q, switch_info_record);
}

/* --- SMInfoRecord ------------------------------------------------------------------- */

static const mad_field_t sm_info_fields[] = {
	SMIR_LID, SMIR_RESERVED, SM_INFO_FIELDS(IN_SM_INFO_RECORD)
};
static const struct sa_components sm_info_components = { COMPONENTS(sm_info_fields), COMP_LID, 0, 0 };
_Static_assert(SMIR_SM_INFO_INDEX == 2, "SMInfoRecord's components");

static void sm_info_record(struct sa_query *q, struct sim_port *p)
{
	const struct sim_sminfo *s = &p->node->sminfo;
	uint8_t rec[SA_SM_INFO_REC_SIZE] = { 0 }, *smi = MAD_AT(rec, SMIR_SM_INFO);

	mad_set(rec, SMIR_LID, p->lid);
	mad_set(smi, SMI_GUID, s->guid ? s->guid : sa_port_guid(p));
	mad_set(smi, SMI_SM_KEY, q->trusted ? s->sm_key : 0);
	mad_set(smi, SMI_ACT_COUNT, s->act_count);
	mad_set(smi, SMI_PRIORITY, s->priority);
	mad_set(smi, SMI_SM_STATE, s->state);
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

	use_components(q, &sm_info_components);
	if (own && sa_port_known(own))
		sm_info_record(q, own);
	return each_end_port(q, other_sm_record);
}

/* --- LinkRecord ----------------------------------------------------------------------- */

static const mad_field_t link_fields[] = { LINK_RECORD_FIELDS(MAD_FIELD_ITEM) };
static const struct sa_components link_components = {
	COMPONENTS(link_fields), SA_LR_COMP_FROM_LID, SA_LR_COMP_TO_LID, 0
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
		mad_set(rec, LR_FROM_LID, lid_port->lid);
		mad_set(rec, LR_FROM_PORT, num);
		mad_set(rec, LR_TO_PORT, peer->num);
		mad_set(rec, LR_TO_LID, peer_lid->lid);
		q->lmc[0] = port_lmc(lid_port);
		q->lmc[1] = port_lmc(peer_lid);
		sa_emit(q, rec);
	}
}

int sa_link_records(struct sa_query *q)
{
	use_components(q, &link_components);
	return each_end_port(q, link_records);
}

/* --- GUIDInfoRecord --------------------------------------------------------------------- */

static const mad_field_t guid_info_fields[] = {
	GIR_LID, GIR_BLOCK_NUM, GIR_RESERVED_3, GIR_RESERVED_4, GUID_INFO_FIELDS(IN_GUID_INFO_RECORD)
};
static const struct sa_components guid_info_components = {
	COMPONENTS(guid_info_fields), COMP_LID, 0, 0
};
_Static_assert(GIR_GUID_INFO_INDEX == 4, "GUIDInfoRecord's components");

static void guid_info_records(struct sa_query *q, struct sim_port *p)
{
	unsigned cap = p->guid_cap < SIM_GUID_CAP ? p->guid_cap : SIM_GUID_CAP;
	unsigned block, i;
	uint8_t rec[SA_GUID_INFO_REC_SIZE], *gi = MAD_AT(rec, GIR_GUID_INFO);

	q->lmc[0] = port_lmc(p);
	for (block = 0; block * GUID_INFO_PER_BLOCK < cap && !sa_done(q); block++) {
		memset(rec, 0, sizeof(rec));
		mad_set(rec, GIR_LID, p->lid);
		mad_set(rec, GIR_BLOCK_NUM, block);
		for (i = 0; i < GUID_INFO_PER_BLOCK && block * GUID_INFO_PER_BLOCK + i < cap; i++) {
			unsigned index = block * GUID_INFO_PER_BLOCK + i;

			mad_set_elem(gi, GI_GUID0, i,
				index ? sim_port_guid_at(p, index) : sa_port_guid(p));
		}
		sa_emit(q, rec);
	}
}

int sa_guid_info_records(struct sa_query *q)
{
	use_components(q, &guid_info_components);
	return each_end_port(q, guid_info_records);
}

/* --- P_KeyTableRecord ----------------------------------------------------------------- */

/* The records of tables: the table itself is not a component the SA matches on. */
static const mad_field_t pkey_fields[] = { PKTR_LID, PKTR_BLOCK_NUM, PKTR_PORT_NUM, PKTR_RESERVED };
static const struct sa_components pkey_components = { COMPONENTS(pkey_fields), COMP_LID, 0, 0 };

static void pkey_blocks(struct sa_query *q, struct sim_port *lid_port, struct sim_port *p,
			unsigned entries)
{
	unsigned blocks = (entries + PKEY_TABLE_PER_BLOCK - 1) / PKEY_TABLE_PER_BLOCK, block, i;
	uint8_t rec[SA_PKEY_TABLE_REC_SIZE], *table = MAD_AT(rec, PKTR_P_KEY_TABLE);

	if (blocks > SIM_PKEY_TABLE_SIZE / PKEY_TABLE_PER_BLOCK)
		blocks = SIM_PKEY_TABLE_SIZE / PKEY_TABLE_PER_BLOCK;
	for (block = 0; block < blocks && !sa_done(q); block++) {
		memset(rec, 0, sizeof(rec));
		mad_set(rec, PKTR_LID, lid_port->lid);
		mad_set(rec, PKTR_BLOCK_NUM, block);
		mad_set(rec, PKTR_PORT_NUM, p->num);
		for (i = 0; i < PKEY_TABLE_PER_BLOCK; i++)
			mad_set_elem(table, PKT_P_KEY0, i,
				sim_port_pkey(p, block * PKEY_TABLE_PER_BLOCK + i));
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
	/* P_Key tables are for the trusted (the SA's SM_Key): opensm refuses others so. */
	if (!q->trusted)
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	use_components(q, &pkey_components);
	return each_end_port(q, pkey_records);
}

/* --- SLtoVLMappingTableRecord ----------------------------------------------------------- */

static const mad_field_t slvl_fields[] = {
	SL2VLR_LID, SL2VLR_IN_PORT, SL2VLR_OUT_PORT, SL2VLR_RESERVED
};
static const struct sa_components slvl_components = { COMPONENTS(slvl_fields), COMP_LID, 0, 0 };

static void slvl_record(struct sa_query *q, uint16_t lid, const struct sim_port *out,
			unsigned in_num, unsigned out_num)
{
	uint8_t rec[SA_SLVL_REC_SIZE] = { 0 };

	mad_set(rec, SL2VLR_LID, lid);
	mad_set(rec, SL2VLR_IN_PORT, in_num);
	mad_set(rec, SL2VLR_OUT_PORT, out_num);
	mad_set(rec, SL2VLR_TABLE, sim_port_sl2vl(out, in_num));
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
	use_components(q, &slvl_components);
	return each_end_port(q, slvl_records);
}

/* --- VLArbitrationTableRecord ------------------------------------------------------------ */

static const mad_field_t vl_arb_fields[] = {
	VLAR_LID, VLAR_OUT_PORT, VLAR_BLOCK_NUM, VLAR_RESERVED
};
static const struct sa_components vl_arb_components = { COMPONENTS(vl_arb_fields), COMP_LID, 0, 0 };

/*
 * A port's four blocks, as opensm answers them whatever the port's caps:
 * 1-2 the low-priority table, 3-4 the high (entries past a cap read 0).
 */
static void vl_arb_port(struct sa_query *q, uint16_t lid, const struct sim_port *p)
{
	unsigned block, i;
	uint8_t rec[SA_VL_ARB_REC_SIZE], *table = MAD_AT(rec, VLAR_TABLE);

	for (block = 1; block <= VL_ARB_BLOCKS && !sa_done(q); block++) {
		memset(rec, 0, sizeof(rec));
		mad_set(rec, VLAR_LID, lid);
		mad_set(rec, VLAR_OUT_PORT, p->num);
		mad_set(rec, VLAR_BLOCK_NUM, block);
		for (i = 0; i < VL_ARB_PER_BLOCK && p->vlarb; i++) {
			const uint8_t *entry = p->vlarb[block - 1][i];
			uint8_t *e = table + i * VL_ARB_ENTRY_SIZE;

			mad_set(e, VLA_VL0, entry[SIM_VLARB_VL]);
			mad_set(e, VLA_WEIGHT0, entry[SIM_VLARB_WEIGHT]);
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
		uint64_t mask = q->comp_mask;

		/*
		 * An end node's LID names one port: a query for any port number
		 * (port 0 included) is about that one, as opensm answers it.
		 */
		q->comp_mask &= ~SA_VLAR_COMP_OUT_PORT;
		vl_arb_port(q, lid_port->lid, lid_port);
		q->comp_mask = mask;
		return;
	}
	/* Every port of a switch, port 0 too (opensm answers a base port 0's blocks as well). */
	for (num = 0; num <= n->num_ports; num++)
		vl_arb_port(q, lid_port->lid, &n->ports[num]);
}

int sa_vl_arb_records(struct sa_query *q)
{
	use_components(q, &vl_arb_components);
	return each_end_port(q, vl_arb_records);
}

/* --- LinearForwardingTableRecord ----------------------------------------------------------- */

static const mad_field_t lft_fields[] = { LFTR_LID, LFTR_BLOCK_NUM, LFTR_RESERVED };
static const struct sa_components lft_components = { COMPONENTS(lft_fields), COMP_LID, 0, 0 };

static void lft_records(struct sa_query *q, struct sim_port *p)
{
	const struct sim_switch *sw = p->node->sw;
	unsigned block, i;
	uint8_t rec[SA_LFT_REC_SIZE], *table = MAD_AT(rec, LFTR_TABLE);

	/* Blocks up to LinearFDBTop, once an SM wrote the table. */
	if (!sw || !sw->lft)
		return;
	q->lmc[0] = 0;
	for (block = 0; block <= sw->lft_top / LFT_PER_BLOCK && !sa_done(q); block++) {
		memset(rec, 0, sizeof(rec));
		mad_set(rec, LFTR_LID, p->lid);
		mad_set(rec, LFTR_BLOCK_NUM, block);
		for (i = 0; i < LFT_PER_BLOCK; i++)
			mad_set_elem(table, LFT_PORT0, i,
				sim_switch_lft_get(sw, (uint16_t)(block * LFT_PER_BLOCK + i)));
		sa_emit(q, rec);
	}
}

int sa_lft_records(struct sa_query *q)
{
	use_components(q, &lft_components);
	return each_end_port(q, lft_records);
}

/* --- MulticastForwardingTableRecord ---------------------------------------------------------- */

static const mad_field_t mft_fields[] = {
	MFTR_LID, MFTR_POSITION, MFTR_RESERVED_2, MFTR_BLOCK_NUM, MFTR_RESERVED_4
};
static const struct sa_components mft_components = { COMPONENTS(mft_fields), COMP_LID, 0, 0 };

static void mft_records(struct sa_query *q, struct sim_port *p)
{
	const struct sim_switch *sw = p->node->sw;
	unsigned top, block, position, i;
	uint8_t rec[SA_MFT_REC_SIZE], *table = MAD_AT(rec, MFTR_TABLE);

	if (!sw || !sw->mft)
		return;
	/* MulticastFDBTop when the SM set one, else the whole table; blocks in use only. */
	top = sw->mft_top >= LID_MCAST_START ? sw->mft_top - LID_MCAST_START : SIM_MFT_CAP - 1;
	if (top >= SIM_MFT_CAP)
		top = SIM_MFT_CAP - 1;
	q->lmc[0] = 0;
	for (block = 0; block <= top / MFT_PER_BLOCK && !sa_done(q); block++) {
		for (position = 0; position <= p->node->num_ports / MFT_PORTS_PER_MASK; position++) {
			int used = 0;

			memset(rec, 0, sizeof(rec));
			mad_set(rec, MFTR_LID, p->lid);
			mad_set(rec, MFTR_POSITION, position);
			mad_set(rec, MFTR_BLOCK_NUM, block);
			for (i = 0; i < MFT_PER_BLOCK; i++) {
				uint16_t mask = sw->mft[block * MFT_PER_BLOCK + i][position];

				used |= mask != 0;
				mad_set_elem(table, MFT_PORT_MASK0, i, mask);
			}
			if (used)
				sa_emit(q, rec);
		}
	}
}

int sa_mft_records(struct sa_query *q)
{
	use_components(q, &mft_components);
	return each_end_port(q, mft_records);
}
