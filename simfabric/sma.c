/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The SMA: SubnGet/SubnSet of the subnet management attributes, answered
 * from the model as hardware answers them, with the spec's MAD status for
 * what is not supported and M_Key protection per level.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/mad_wire.h"
#include "simfabric/arena.h"
#include "simfabric/attr_table.h"
#include "simfabric/identity.h"
#include "simfabric/mlnx.h"
#include "simfabric/port_state.h"
#include "simfabric/sma.h"

/* How a request is answered: with data, with a status, or not at all. */
enum sma_result {
	SMA_REPLY = 0,
	SMA_SILENT = -1,
};

struct sma_request {
	struct sim_fabric *f;
	struct sim_node *node;
	unsigned in_port;
	int set;
	int hide_m_key;
	uint32_t mod;
	uint8_t *data;		/* the SMP data, answered in place */
	const struct sim_sma_hooks *hooks;
};

static void node_changed(struct sma_request *r)
{
	if (r->hooks && r->hooks->node_changed)
		r->hooks->node_changed(r->hooks->arg, r->node);
}

/* --- NodeDescription, NodeInfo ----------------------------------------------- */

static int node_desc(void *request)
{
	struct sma_request *r = request;

	memset(r->data, 0, SMP_DATA_SIZE);
	memcpy(MAD_AT(r->data, ND_STRING), r->node->desc, strnlen(r->node->desc, SIM_DESC_LEN));
	return SMA_REPLY;
}

void sim_encode_node_info(const struct sim_node *n, unsigned local_port, uint8_t *restrict d)
{
	uint64_t port_guid = n->type == NODE_TYPE_SWITCH ? n->node_guid : n->ports[local_port].guid;

	memset(d, 0, SMP_DATA_SIZE);
	mad_set(d, NI_BASE_VERSION, UMAD_BASE_VERSION);
	mad_set(d, NI_CLASS_VERSION, SMP_CLASS_VERSION);
	mad_set(d, NI_NODE_TYPE, n->type);
	mad_set(d, NI_NUM_PORTS, n->num_ports);
	mad_set(d, NI_SYS_IMAGE_GUID, n->sys_guid);
	mad_set(d, NI_NODE_GUID, n->node_guid);
	mad_set(d, NI_PORT_GUID, port_guid);
	mad_set(d, NI_PARTITION_CAP, n->partition_cap);
	mad_set(d, NI_DEVICE_ID, n->device_id);
	mad_set(d, NI_REVISION, n->revision);
	mad_set(d, NI_LOCAL_PORT_NUM, local_port);
	mad_set(d, NI_VENDOR_ID, n->vendor_id);
}

static int node_info(void *request)
{
	struct sma_request *r = request;

	sim_encode_node_info(r->node, r->in_port, r->data);
	return SMA_REPLY;
}

/* --- PortInfo ------------------------------------------------------------------ */

void sim_encode_port_info(const struct sim_node *n, const struct sim_port *p, unsigned local_port,
			  int hide_m_key, uint8_t *restrict d)
{
	/* A switch is one management entity: its addressing lives in port 0. */
	const struct sim_port *m = n->type == NODE_TYPE_SWITCH ? &n->ports[0] : p;
	/*
	 * A port without a link shows what it would train to: its widest
	 * enabled width and slowest enabled speed (as hardware and ibsim do).
	 */
	uint8_t speeds = p->speed_enabled & p->speed_supported;
	uint8_t width_active = p->width_active ? p->width_active
					       : sim_widest_width(p->width_enabled & p->width_supported);
	uint8_t speed_active = p->width_active ? p->speed_active : (uint8_t)(speeds & -speeds);

	memset(d, 0, SMP_DATA_SIZE);
	mad_set(d, PI_M_KEY, hide_m_key ? 0 : m->m_key);
	mad_set(d, PI_GID_PREFIX, m->gid_prefix);
	mad_set(d, PI_LID, m->lid);
	mad_set(d, PI_MASTER_SM_LID, m->sm_lid);
	mad_set(d, PI_CAPABILITY_MASK, p->capmask);
	mad_set(d, PI_DIAG_CODE, p->diag_code);
	mad_set(d, PI_M_KEY_LEASE_PERIOD, m->m_key_lease);
	mad_set(d, PI_LOCAL_PORT_NUM, local_port);
	mad_set(d, PI_LINK_WIDTH_ENABLED, p->width_enabled);
	mad_set(d, PI_LINK_WIDTH_SUPPORTED, p->width_supported);
	mad_set(d, PI_LINK_WIDTH_ACTIVE, width_active);
	mad_set(d, PI_LINK_SPEED_SUPPORTED, p->speed_supported);
	mad_set(d, PI_PORT_STATE, p->state);
	mad_set(d, PI_PORT_PHYS_STATE, p->phys_state);
	mad_set(d, PI_LINK_DOWN_DEFAULT_STATE, p->link_down_default);
	mad_set(d, PI_M_KEY_PROTECT_BITS, m->m_key_protect);
	mad_set(d, PI_LMC, m->lmc);
	mad_set(d, PI_LINK_SPEED_ACTIVE, speed_active);
	mad_set(d, PI_LINK_SPEED_ENABLED, p->speed_enabled);
	mad_set(d, PI_NEIGHBOR_MTU, p->neighbor_mtu);
	mad_set(d, PI_MASTER_SM_SL, m->sm_sl);
	mad_set(d, PI_VL_CAP, p->vl_cap);
	mad_set(d, PI_VL_HIGH_LIMIT, p->vl_high_limit);
	mad_set(d, PI_VL_ARB_HIGH_CAP, p->vl_arb_high_cap);
	mad_set(d, PI_VL_ARB_LOW_CAP, p->vl_arb_low_cap);
	mad_set(d, PI_INIT_TYPE_REPLY, p->init_type_reply);
	mad_set(d, PI_MTU_CAP, p->mtu_cap);
	mad_set(d, PI_VL_STALL_COUNT, p->vl_stall);
	mad_set(d, PI_HOQ_LIFE, p->hoq_life);
	mad_set(d, PI_OPERATIONAL_VLS, p->op_vls);
	mad_set(d, PI_PARTITION_ENFORCEMENT, p->partition_enforcement);
	mad_set(d, PI_M_KEY_VIOLATIONS, m->m_key_violations);
	mad_set(d, PI_P_KEY_VIOLATIONS, p->p_key_violations);
	mad_set(d, PI_Q_KEY_VIOLATIONS, p->q_key_violations);
	mad_set(d, PI_GUID_CAP, p->guid_cap);
	mad_set(d, PI_CLIENT_REREGISTER, p->client_reregister);
	mad_set(d, PI_MCAST_PKEY_TRAP_SUPPRESSION, p->mcast_pkey_trap_suppress);
	mad_set(d, PI_SUBNET_TIMEOUT, p->subnet_timeout);
	mad_set(d, PI_RESP_TIME_VALUE, p->resp_time_value);
	mad_set(d, PI_LOCAL_PHY_ERRORS, p->local_phy_errors);
	mad_set(d, PI_OVERRUN_ERRORS, p->overrun_errors);
	mad_set(d, PI_MAX_CREDIT_HINT, p->max_credit_hint);
	mad_set(d, PI_LINK_ROUND_TRIP_LATENCY, p->link_round_trip_latency);
	mad_set(d, PI_CAPABILITY_MASK2, p->capmask2);
	mad_set(d, PI_LINK_SPEED_EXT_ACTIVE, p->ext_active);
	mad_set(d, PI_LINK_SPEED_EXT_SUPPORTED, p->ext_supported);
	mad_set(d, PI_LINK_SPEED_EXT_ENABLED, p->ext_enabled);
}

/* The port a modifier names: switches any of 0..N; end ports 0 means the arrival port. */
static struct sim_port *port_from_modifier(struct sma_request *r, unsigned num)
{
	if (r->node->type != NODE_TYPE_SWITCH && num == 0)
		num = r->in_port;
	if (num > r->node->num_ports || (r->node->type != NODE_TYPE_SWITCH && num == 0))
		return NULL;
	return &r->node->ports[num];
}

/* The rate fields of a Set, 0 where it leaves them as they are. */
struct rates_asked {
	uint8_t width, speed, ext;
};

static struct rates_asked rates_asked(const uint8_t *d)
{
	return (struct rates_asked){
		.width = (uint8_t)mad_get(d, PI_LINK_WIDTH_ENABLED),
		.speed = (uint8_t)mad_get(d, PI_LINK_SPEED_ENABLED),
		.ext = (uint8_t)mad_get(d, PI_LINK_SPEED_EXT_ENABLED),
	};
}

/* LinkSpeedExtEnabled's two special values: every supported speed, or none. */
static int ext_special(uint8_t ext)
{
	return ext == PORT_LINK_SPEED_EXT_DISABLED || ext == PORT_LINK_SPEED_EXT_ENABLED_SUPPORTED;
}

/* Validate every field of a PortInfo Set before changing anything. */
static int port_info_set_valid(const struct sim_port *p, const uint8_t *d)
{
	struct rates_asked want = rates_asked(d);
	uint8_t mtu = (uint8_t)mad_get(d, PI_NEIGHBOR_MTU);
	uint8_t vls = (uint8_t)mad_get(d, PI_OPERATIONAL_VLS);

	if (want.width && want.width != PORT_LINK_WIDTH_ENABLED_SUPPORTED &&
	    (want.width & ~p->width_supported))
		return 0;
	if (want.speed && want.speed != PORT_LINK_SPEED_ENABLED_SUPPORTED &&
	    (want.speed & ~p->speed_supported))
		return 0;
	if (want.ext && !ext_special(want.ext) && (want.ext & ~p->ext_supported))
		return 0;
	if (mtu && mtu > p->mtu_cap)
		return 0;
	if (vls && vls > p->vl_cap)
		return 0;
	if (mad_get(d, PI_LINK_DOWN_DEFAULT_STATE) > PHYS_STATE_POLLING)
		return 0;
	return sim_port_state_valid(p, (uint8_t)mad_get(d, PI_PORT_STATE)) &&
	       sim_port_phys_valid(p, (uint8_t)mad_get(d, PI_PORT_PHYS_STATE));
}

/*
 * CapabilityMask and CapabilityMask2 are read-only to an SM: a Set leaves
 * them as they are, so it never sends Trap 144 (a change made on the node
 * does: sim_net_capmask_changed()).  1 when the link changed state (at
 * both ends), else 0.
 */
static int port_info_apply(struct sma_request *r, struct sim_port *p, const uint8_t *d)
{
	struct rates_asked want = rates_asked(d);
	uint8_t link_down_default = (uint8_t)mad_get(d, PI_LINK_DOWN_DEFAULT_STATE);
	uint8_t mtu = (uint8_t)mad_get(d, PI_NEIGHBOR_MTU);
	uint8_t vls = (uint8_t)mad_get(d, PI_OPERATIONAL_VLS);
	int link_changed = 0;

	/* Addressing: end ports, and a switch through its port 0 only. */
	if (r->node->type != NODE_TYPE_SWITCH || p->num == 0) {
		uint16_t old_lid = p->lid;
		uint8_t old_lmc = p->lmc;

		p->m_key = mad_get(d, PI_M_KEY);
		p->gid_prefix = mad_get(d, PI_GID_PREFIX);
		p->lid = (uint16_t)mad_get(d, PI_LID);
		p->sm_lid = (uint16_t)mad_get(d, PI_MASTER_SM_LID);
		p->m_key_lease = (uint16_t)mad_get(d, PI_M_KEY_LEASE_PERIOD);
		p->m_key_protect = (uint8_t)mad_get(d, PI_M_KEY_PROTECT_BITS);
		p->lmc = r->node->type == NODE_TYPE_SWITCH ? 0 : (uint8_t)mad_get(d, PI_LMC);
		p->sm_sl = (uint8_t)mad_get(d, PI_MASTER_SM_SL);
		p->m_key_violations = (uint16_t)mad_get(d, PI_M_KEY_VIOLATIONS);
		/* Out of memory for the LID index: the port keeps the LID it can be found by. */
		if ((p->lid != old_lid || p->lmc != old_lmc) &&
		    sim_fabric_lid_changed(r->f, p, old_lid, old_lmc) < 0) {
			p->lid = old_lid;
			p->lmc = old_lmc;
		}
	}
	/*
	 * Enabled widths and speeds take effect when the link next trains (it
	 * goes down and up: a fault, PortPhysicalState Disabled then Polling),
	 * as on hardware; the link keeps running at its active rate meanwhile.
	 */
	if (want.width)
		p->width_enabled = want.width == PORT_LINK_WIDTH_ENABLED_SUPPORTED ? p->width_supported
										   : want.width;
	if (want.speed)
		p->speed_enabled = want.speed == PORT_LINK_SPEED_ENABLED_SUPPORTED ? p->speed_supported
										   : want.speed;
	if (want.ext == PORT_LINK_SPEED_EXT_ENABLED_SUPPORTED)
		p->ext_enabled = p->ext_supported;
	else if (want.ext == PORT_LINK_SPEED_EXT_DISABLED)
		p->ext_enabled = 0;
	else if (want.ext)
		p->ext_enabled = want.ext;
	if (link_down_default)
		p->link_down_default = link_down_default;
	if (mtu)
		p->neighbor_mtu = mtu;
	p->vl_high_limit = (uint8_t)mad_get(d, PI_VL_HIGH_LIMIT);
	p->vl_stall = (uint8_t)mad_get(d, PI_VL_STALL_COUNT);
	p->hoq_life = (uint8_t)mad_get(d, PI_HOQ_LIFE);
	if (vls)
		p->op_vls = vls;
	p->partition_enforcement = (uint8_t)mad_get(d, PI_PARTITION_ENFORCEMENT);
	p->p_key_violations = (uint16_t)mad_get(d, PI_P_KEY_VIOLATIONS);
	p->q_key_violations = (uint16_t)mad_get(d, PI_Q_KEY_VIOLATIONS);
	p->subnet_timeout = (uint8_t)mad_get(d, PI_SUBNET_TIMEOUT);
	p->mcast_pkey_trap_suppress = (uint8_t)mad_get(d, PI_MCAST_PKEY_TRAP_SUPPRESSION);
	/* ClientReregister asks the clients to re-register; it reads back as 0. */
	p->client_reregister = 0;
	if (r->node->type != NODE_TYPE_SWITCH)
		p->resp_time_value = (uint8_t)mad_get(d, PI_RESP_TIME_VALUE);
	link_changed |= sim_port_set_phys(p, (uint8_t)mad_get(d, PI_PORT_PHYS_STATE)) > 0;
	link_changed |= sim_port_set_state(p, (uint8_t)mad_get(d, PI_PORT_STATE)) > 0;
	return link_changed;
}

static int port_info(void *request)
{
	struct sma_request *r = request;
	/* A Set may say the SM knows extended speeds; this SMA handles them either way. */
	uint32_t mod = r->mod & ~(r->set ? PI_MOD_SM_SUPPORTS_EXT_SPEEDS : 0);
	struct sim_port *p = mod > SMP_MOD_PORT_MASK ? NULL : port_from_modifier(r, mod);
	int link_changed;

	if (!p)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		if (!port_info_set_valid(p, r->data)) {
			/* Answer with the unchanged attribute and the status. */
			sim_encode_port_info(r->node, p, r->in_port, r->hide_m_key, r->data);
			return UMAD_STATUS_INVALID_ATTR_VALUE;
		}
		link_changed = port_info_apply(r, p, r->data);
		node_changed(r);
		/* A link that changed state changed its other end too, and that node. */
		if (link_changed && p->peer && p->peer->node != r->node && r->hooks &&
		    r->hooks->node_changed)
			r->hooks->node_changed(r->hooks->arg, p->peer->node);
	}
	if (r->hooks && r->hooks->before_port_read)
		r->hooks->before_port_read(r->hooks->arg, p);
	sim_encode_port_info(r->node, p, r->in_port, r->hide_m_key, r->data);
	return SMA_REPLY;
}

/* --- SwitchInfo, forwarding tables ------------------------------------------- */

void sim_encode_switch_info(const struct sim_switch *sw, uint8_t *restrict d)
{
	memset(d, 0, SMP_DATA_SIZE);
	mad_set(d, SI_LINEAR_FDB_CAP, SIM_LFT_CAP);
	mad_set(d, SI_MCAST_FDB_CAP, SIM_MFT_CAP);
	mad_set(d, SI_LINEAR_FDB_TOP, sw->lft_top);
	mad_set(d, SI_DEFAULT_PORT, sw->default_port);
	mad_set(d, SI_DEFAULT_MCAST_PRIMARY_PORT, sw->default_mcast_primary);
	mad_set(d, SI_DEFAULT_MCAST_NOT_PRIMARY_PORT, sw->default_mcast_not_primary);
	mad_set(d, SI_LIFE_TIME_VALUE, sw->life_time_value);
	mad_set(d, SI_PORT_STATE_CHANGE, sw->port_state_change);
	mad_set(d, SI_LIDS_PER_PORT, sw->lids_per_port);
	mad_set(d, SI_PARTITION_ENFORCEMENT_CAP, sw->partition_enforcement_cap);
	mad_set(d, SI_ENHANCED_PORT0, sw->enhanced_port0);
	mad_set(d, SI_MCAST_FDB_TOP, sw->mft_top);
}

static int switch_info(void *request)
{
	struct sma_request *r = request;
	struct sim_switch *sw = r->node->sw;
	uint8_t *d = r->data;

	if (r->set) {
		uint16_t lft_top = (uint16_t)mad_get(d, SI_LINEAR_FDB_TOP);
		uint16_t mft_top = (uint16_t)mad_get(d, SI_MCAST_FDB_TOP);

		if (lft_top >= SIM_LFT_CAP ||
		    (mft_top && (mft_top < LID_MCAST_START ||
				 mft_top >= LID_MCAST_START + SIM_MFT_CAP)))
			return UMAD_STATUS_INVALID_ATTR_VALUE;
		sw->lft_top = lft_top;
		sw->default_port = (uint8_t)mad_get(d, SI_DEFAULT_PORT);
		sw->default_mcast_primary = (uint8_t)mad_get(d, SI_DEFAULT_MCAST_PRIMARY_PORT);
		sw->default_mcast_not_primary = (uint8_t)mad_get(d, SI_DEFAULT_MCAST_NOT_PRIMARY_PORT);
		sw->life_time_value = (uint8_t)mad_get(d, SI_LIFE_TIME_VALUE);
		if (mad_get(d, SI_PORT_STATE_CHANGE))
			sw->port_state_change = 0;	/* written as 1 to clear it */
		sw->mft_top = mft_top;
		node_changed(r);
	}
	sim_encode_switch_info(sw, d);
	return SMA_REPLY;
}

static int linear_ft(void *request)
{
	struct sma_request *r = request;
	struct sim_switch *sw = r->node->sw;
	size_t first = (size_t)r->mod * LFT_PER_BLOCK;
	uint8_t *ports = MAD_AT(r->data, LFT_PORT0);

	if (r->mod >= SIM_LFT_CAP / LFT_PER_BLOCK)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	/* A block is the ports of 64 LIDs, a byte each: copied as they are. */
	if (r->set) {
		/* The table grows to the highest block an SM writes. */
		if (sim_switch_lft_reserve(sw, first + LFT_PER_BLOCK) < 0)
			return SMA_SILENT;	/* out of memory: as a lost packet */
		memcpy(sw->lft + first, ports, LFT_PER_BLOCK);
		node_changed(r);
	}
	if (first + LFT_PER_BLOCK <= sim_switch_lft_len(sw))
		memcpy(ports, sw->lft + first, LFT_PER_BLOCK);
	else
		memset(ports, SIM_LFT_NO_ROUTE, LFT_PER_BLOCK);
	return SMA_REPLY;
}

static int mcast_ft(void *request)
{
	struct sma_request *r = request;
	struct sim_switch *sw = r->node->sw;
	unsigned block = r->mod & MFT_MOD_BLOCK_MASK, position = r->mod >> MFT_MOD_POSITION_SHIFT;
	unsigned i;

	if (block >= SIM_MFT_CAP / MFT_PER_BLOCK ||
	    position > r->node->num_ports / MFT_PORTS_PER_MASK || (r->mod & MFT_MOD_RESERVED_MASK))
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set && !sw->mft) {
		sw->mft = sim_mem_calloc(sw, SIM_MFT_CAP, sizeof(*sw->mft));
		if (!sw->mft)
			return SMA_SILENT;	/* out of memory: as a lost packet */
	}
	for (i = 0; i < MFT_PER_BLOCK; i++) {
		unsigned entry = block * MFT_PER_BLOCK + i;
		uint16_t mask = sw->mft ? sw->mft[entry][position] : 0;

		if (r->set)
			mask = sw->mft[entry][position] = (uint16_t)mad_get_elem(r->data, MFT_PORT_MASK0, i);
		mad_set_elem(r->data, MFT_PORT_MASK0, i, mask);
	}
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

/* --- GUIDInfo, P_KeyTable, SLtoVL, VLArbitration ------------------------------ */

static int guid_info(void *request)
{
	struct sma_request *r = request;
	/* Switches have GUIDs at port 0; end ports at the port asked through. */
	struct sim_port *p = sim_mgmt_port(r->node, r->in_port);
	unsigned i;

	if (r->mod >= SIM_GUID_CAP / GUID_INFO_PER_BLOCK)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set && !p->alias_guids) {
		p->alias_guids = sim_mem_calloc(p, SIM_GUID_CAP, sizeof(*p->alias_guids));
		if (!p->alias_guids)
			return SMA_SILENT;	/* out of memory: as a lost packet */
	}
	for (i = 0; i < GUID_INFO_PER_BLOCK; i++) {
		/* GUID 0 is the port GUID: read-only. */
		if (r->set && i > 0)
			p->alias_guids[i] = mad_get_elem(r->data, GI_GUID0, i);
		mad_set_elem(r->data, GI_GUID0, i, sim_port_guid_at(p, i));
	}
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

static int pkey_table(void *request)
{
	struct sma_request *r = request;
	unsigned block = r->mod & SMP_MOD_PKEY_BLOCK_MASK, num = r->mod >> SMP_MOD_PKEY_PORT_SHIFT, i;
	struct sim_port *p;

	if (r->node->type != NODE_TYPE_SWITCH)
		num = r->in_port;
	p = num <= r->node->num_ports ? &r->node->ports[num] : NULL;
	if (!p || (r->node->type != NODE_TYPE_SWITCH && num == 0) ||
	    block >= SIM_PKEY_TABLE_SIZE / PKEY_TABLE_PER_BLOCK)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set && !p->pkeys) {
		p->pkeys = sim_mem_calloc(p, SIM_PKEY_TABLE_SIZE, sizeof(*p->pkeys));
		if (!p->pkeys)
			return SMA_SILENT;	/* out of memory: as a lost packet */
		p->pkeys[0] = PKEY_DEFAULT;
	}
	for (i = 0; i < PKEY_TABLE_PER_BLOCK; i++) {
		unsigned index = block * PKEY_TABLE_PER_BLOCK + i;

		if (r->set)
			p->pkeys[index] = (uint16_t)mad_get_elem(r->data, PKT_P_KEY0, i);
		mad_set_elem(r->data, PKT_P_KEY0, i, sim_port_pkey(p, index));
	}
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

/*
 * A switch keeps a table per input and output port, as the modifier names
 * them (input port in bits 15:8, output port in 7:0); an end port one, the
 * modifier's ports reserved.  The bits above, which name every input or
 * output port at once, are for switches that announce
 * OptimizedSLtoVLMappingProgramming in SwitchInfo, which ours do not.
 */
static int sl2vl_table(void *request)
{
	struct sma_request *r = request;
	unsigned out = r->mod & SMP_MOD_SL2VL_PORT_MASK;
	unsigned in = (r->mod >> SMP_MOD_SL2VL_IN_SHIFT) & SMP_MOD_SL2VL_PORT_MASK;
	struct sim_port *p;

	if (r->node->type != NODE_TYPE_SWITCH) {
		out = r->in_port;
		in = 0;
	}
	if (out > r->node->num_ports || in > r->node->num_ports ||
	    (r->mod >> SMP_MOD_SL2VL_RESERVED_SHIFT))
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	p = &r->node->ports[out];
	if (r->set && sim_port_sl2vl_set(p, in, mad_get(r->data, SL2VL_TABLE)) < 0)
		return SMA_SILENT;	/* out of memory: as a lost packet */
	memset(r->data, 0, SMP_DATA_SIZE);
	mad_set(r->data, SL2VL_TABLE, sim_port_sl2vl(p, in));
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

static int vl_arb_table(void *request)
{
	struct sma_request *r = request;
	unsigned block = r->mod >> SMP_MOD_VL_ARB_BLOCK_SHIFT, num = r->mod & SMP_MOD_VL_ARB_PORT_MASK;
	unsigned i;
	struct sim_port *p;

	if (r->node->type != NODE_TYPE_SWITCH)
		num = r->in_port;
	if (block < 1 || block > VL_ARB_BLOCKS || num > r->node->num_ports)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	p = &r->node->ports[num];
	if (r->set && !p->vlarb) {
		p->vlarb = sim_mem_calloc(p, VL_ARB_BLOCKS, sizeof(*p->vlarb));
		if (!p->vlarb)
			return SMA_SILENT;	/* out of memory: as a lost packet */
	}
	for (i = 0; i < VL_ARB_PER_BLOCK; i++) {
		uint8_t *entry = p->vlarb ? p->vlarb[block - 1][i] : NULL;
		uint8_t *e = r->data + i * VL_ARB_ENTRY_SIZE;

		if (r->set) {
			entry[SIM_VLARB_VL] = (uint8_t)mad_get(e, VLA_VL0);
			entry[SIM_VLARB_WEIGHT] = (uint8_t)mad_get(e, VLA_WEIGHT0);
		}
		mad_set(e, VLA_RESERVED0, 0);
		mad_set(e, VLA_VL0, entry ? entry[SIM_VLARB_VL] : 0);
		mad_set(e, VLA_WEIGHT0, entry ? entry[SIM_VLARB_WEIGHT] : 0);
	}
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

/* --- SMInfo, LedInfo ---------------------------------------------------------- */

static int sm_info(void *request)
{
	struct sma_request *r = request;
	struct sim_sminfo *s = &r->node->sminfo;
	struct sim_port *p = sim_mgmt_port(r->node, r->in_port);

	/* Only a port running an SM has SMInfo; elsewhere it is not supported. */
	if (!(p->capmask & PORT_CAP_IS_SM))
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	memset(r->data, 0, SMP_DATA_SIZE);
	mad_set(r->data, SMI_GUID, s->guid);
	mad_set(r->data, SMI_SM_KEY, r->hide_m_key ? 0 : s->sm_key);
	mad_set(r->data, SMI_ACT_COUNT, s->act_count);
	mad_set(r->data, SMI_PRIORITY, s->priority);
	mad_set(r->data, SMI_SM_STATE, s->state);
	return SMA_REPLY;
}

static int led_info(void *request)
{
	struct sma_request *r = request;
	struct sim_port *p = port_from_modifier(r, r->mod);

	if (!p)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		p->led = (uint8_t)mad_get(r->data, LED_MASK);
		node_changed(r);
	}
	memset(r->data, 0, SMP_DATA_SIZE);
	mad_set(r->data, LED_MASK, p->led);
	return SMA_REPLY;
}

/* --- PortInfoExtended ------------------------------------------------------------ */

/*
 * The FEC modes a port of each speed supports, all enabled: FDR's
 * Firecode, EDR's RS-FEC (528,514) and its low-latency form, HDR's and
 * NDR's RS-FEC (544,514) beside those; no FEC at every speed.
 */
#define FEC_BIT(mode)	(1u << (mode))
#define FEC_FDR_MODES	(FEC_BIT(FEC_MODE_NONE) | FEC_BIT(FEC_MODE_FIRECODE))
#define FEC_EDR_MODES	(FEC_BIT(FEC_MODE_NONE) | FEC_BIT(FEC_MODE_RS_528_514) | \
			 FEC_BIT(FEC_MODE_LOW_LATENCY_RS))
#define FEC_HDR_MODES	(FEC_EDR_MODES | FEC_BIT(FEC_MODE_RS_544_514))

/* Each extended speed's fields, and the modes a port of that speed supports. */
static const struct {
	uint8_t speed;		/* LINK_SPEED_EXT_* */
	mad_field_t supported, enabled;
	unsigned modes;
} fec_by_speed[] = {
	{ LINK_SPEED_EXT_FDR, PIE_FDR_FEC_MODE_SUPPORTED, PIE_FDR_FEC_MODE_ENABLED, FEC_FDR_MODES },
	{ LINK_SPEED_EXT_EDR, PIE_EDR_FEC_MODE_SUPPORTED, PIE_EDR_FEC_MODE_ENABLED, FEC_EDR_MODES },
	{ LINK_SPEED_EXT_HDR, PIE_HDR_FEC_MODE_SUPPORTED, PIE_HDR_FEC_MODE_ENABLED, FEC_HDR_MODES },
	{ LINK_SPEED_EXT_NDR, PIE_NDR_FEC_MODE_SUPPORTED, PIE_NDR_FEC_MODE_ENABLED, FEC_HDR_MODES },
};

/* The FEC mode a link that trained at this speed runs (what each speed's SM default is). */
static unsigned fec_mode_active(const struct sim_port *p)
{
	if (!sim_port_link_up(p))
		return FEC_MODE_NONE;
	switch (p->ext_active) {
	case LINK_SPEED_EXT_NDR:
	case LINK_SPEED_EXT_HDR: return FEC_MODE_RS_544_514;
	case LINK_SPEED_EXT_EDR: return FEC_MODE_RS_528_514;
	case LINK_SPEED_EXT_FDR: return FEC_MODE_FIRECODE;
	default: return FEC_MODE_NONE;
	}
}

/*
 * PortInfoExtended: the port as PortInfo's modifier names it, on nodes
 * whose CapabilityMask2 says they have it (HDR and later); elsewhere not
 * supported, as older hardware answers.
 */
static int port_info_ext(void *request)
{
	struct sma_request *r = request;
	struct sim_port *p = r->mod > SMP_MOD_PORT_MASK ? NULL : port_from_modifier(r, r->mod);
	uint8_t *d = r->data;
	size_t i;

	if (!(sim_mgmt_port(r->node, r->in_port)->capmask2 & PORT_CAP2_IS_PORT_INFO_EXT))
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	if (!p)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	memset(d, 0, SMP_DATA_SIZE);
	mad_set(d, PIE_CAPABILITY_MASK, PIE_CAP_IS_FEC_MODE_SUPPORTED);
	mad_set(d, PIE_FEC_MODE_ACTIVE, fec_mode_active(p));
	for (i = 0; i < SIM_ATTR_N(fec_by_speed); i++) {
		if (!(p->ext_supported & fec_by_speed[i].speed))
			continue;
		mad_set(d, fec_by_speed[i].supported, fec_by_speed[i].modes);
		mad_set(d, fec_by_speed[i].enabled, fec_by_speed[i].modes);
	}
	return SMA_REPLY;
}

/* --- vendor attributes ----------------------------------------------------------- */

/* MlnxExtPortInfo (Mellanox nodes only: the table's row): the port as PortInfo's modifier names it. */
static int mlnx_ext_port_info(void *request)
{
	struct sma_request *r = request;
	struct sim_port *p = port_from_modifier(r, r->mod);

	if (!p || r->mod > SMP_MOD_PORT_MASK)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		if (sim_mlnx_ext_port_info_set(p, r->data) < 0) {
			sim_encode_mlnx_ext_port_info(p, r->data);
			return UMAD_STATUS_INVALID_ATTR_VALUE;
		}
		node_changed(r);
	}
	sim_encode_mlnx_ext_port_info(p, r->data);
	return SMA_REPLY;
}

/* --- the table ------------------------------------------------------------------ */

SIM_ATTR_FIELD_LIST(node_desc_fields, NODE_DESC);
SIM_ATTR_FIELD_LIST(node_info_fields, NODE_INFO);
SIM_ATTR_FIELD_LIST(switch_info_fields, SWITCH_INFO);
SIM_ATTR_FIELD_LIST(guid_info_fields, GUID_INFO);
SIM_ATTR_FIELD_LIST(port_info_fields, PORT_INFO);
SIM_ATTR_FIELD_LIST(pkey_table_fields, PKEY_TABLE);
SIM_ATTR_FIELD_LIST(sl2vl_table_fields, SL2VL_TABLE);
SIM_ATTR_FIELD_LIST(vl_arb_table_fields, VL_ARB_TABLE);
SIM_ATTR_FIELD_LIST(lft_block_fields, LFT_BLOCK);
SIM_ATTR_FIELD_LIST(mft_block_fields, MFT_BLOCK);
SIM_ATTR_FIELD_LIST(sm_info_fields, SM_INFO);
SIM_ATTR_FIELD_LIST(led_info_fields, LED_INFO);
SIM_ATTR_FIELD_LIST(port_info_ext_fields, PORT_INFO_EXTENDED);
SIM_ATTR_FIELD_LIST(mlnx_ext_port_info_fields, MLNX_EXT_PORT_INFO);

/* What the SMA answers; the most asked first (discovery walks NodeInfo and PortInfo). */
static const struct sim_attr sma_attrs[] = {
	{ UMAD_SM_ATTR_NODE_INFO, 0, "NodeInfo", SIM_ATTR_FIELDS(node_info_fields), NULL,
	  node_info, NULL },
	{ UMAD_SM_ATTR_PORT_INFO, 1, "PortInfo", SIM_ATTR_FIELDS(port_info_fields), NULL,
	  port_info, NULL },
	{ UMAD_SM_ATTR_NODE_DESC, 0, "NodeDescription", SIM_ATTR_FIELDS(node_desc_fields), NULL,
	  node_desc, NULL },
	{ UMAD_SM_ATTR_SWITCH_INFO, 1, "SwitchInfo", SIM_ATTR_FIELDS(switch_info_fields),
	  sim_attr_at_switches, switch_info, NULL },
	{ UMAD_SM_ATTR_LINEAR_FT, 1, "LinearForwardingTable", SIM_ATTR_FIELDS(lft_block_fields),
	  sim_attr_at_switches, linear_ft, NULL },
	{ UMAD_SM_ATTR_MCAST_FT, 1, "MulticastForwardingTable", SIM_ATTR_FIELDS(mft_block_fields),
	  sim_attr_at_switches, mcast_ft, NULL },
	{ UMAD_SM_ATTR_GUID_INFO, 1, "GUIDInfo", SIM_ATTR_FIELDS(guid_info_fields), NULL,
	  guid_info, NULL },
	{ UMAD_SM_ATTR_PKEY_TABLE, 1, "P_KeyTable", SIM_ATTR_FIELDS(pkey_table_fields), NULL,
	  pkey_table, NULL },
	{ UMAD_SM_ATTR_SLVL_TABLE, 1, "SLtoVLMappingTable", SIM_ATTR_FIELDS(sl2vl_table_fields),
	  NULL, sl2vl_table, NULL },
	{ UMAD_SM_ATTR_VL_ARB_TABLE, 1, "VLArbitrationTable", SIM_ATTR_FIELDS(vl_arb_table_fields),
	  NULL, vl_arb_table, NULL },
	{ UMAD_SM_ATTR_SM_INFO, 0, "SMInfo", SIM_ATTR_FIELDS(sm_info_fields), NULL, sm_info, NULL },
	{ UMAD_SM_ATTR_LED_INFO, 1, "LedInfo", SIM_ATTR_FIELDS(led_info_fields), NULL, led_info, NULL },
	{ UMAD_SM_ATTR_PORT_INFO_EXT, 0, "PortInfoExtended", SIM_ATTR_FIELDS(port_info_ext_fields),
	  NULL, port_info_ext, NULL },
	{ UMAD_SM_ATTR_MLNX_EXT_PORT_INFO, 1, "MlnxExtPortInfo",
	  SIM_ATTR_FIELDS(mlnx_ext_port_info_fields), sim_node_is_mellanox, mlnx_ext_port_info,
	  NULL },
};

const struct sim_attr *sim_sma_attrs(size_t *n)
{
	*n = SIM_ATTR_N(sma_attrs);
	return sma_attrs;
}

/* A Get or Set through the table: what the row says first, then its handler. */
static int answer(struct sma_request *r, uint16_t attr_id)
{
	const struct sim_attr *a = sim_attr_take(sma_attrs, SIM_ATTR_N(sma_attrs), attr_id, r->node,
						 r->set);

	return a ? a->answer(r) : UMAD_STATUS_ATTR_NOT_SUPPORTED;
}

/* --- dispatch ------------------------------------------------------------------ */

/*
 * M_Key check (spec 14.2.4): passes when the port's key is 0 or matches.
 * On a mismatch Gets still work at protection levels 0 and 1 (level 1
 * hides the key); everything else is dropped and counted.
 */
static int m_key_check(struct sma_request *r, const uint8_t *mad)
{
	struct sim_port *m = sim_mgmt_port(r->node, r->in_port);
	uint64_t key = get_be64(mad + SMP_OFF_MKEY);

	if (!m->m_key || key == m->m_key)
		return 0;
	if (!r->set && m->m_key_protect <= 1) {
		r->hide_m_key = m->m_key_protect == 1;
		return 0;
	}
	if (m->m_key_violations < UINT16_MAX)
		m->m_key_violations++;
	return -1;
}

static void set_status(uint8_t *mad, uint16_t status)
{
	uint16_t word = mad_status(mad);

	/* Keep the direction bit of a DR SMP. */
	if (mad_class(mad) == UMAD_CLASS_SUBN_DIRECTED_ROUTE)
		status = (uint16_t)((word & UMAD_SMP_DIRECTION) | (status & ~UMAD_SMP_DIRECTION));
	put_be16(mad + MAD_OFF_STATUS, status);
}

int sim_sma_process(struct sim_fabric *f, struct sim_node *node, unsigned in_port, uint8_t *mad,
		    const struct sim_sma_hooks *hooks)
{
	struct sma_request r = {
		.f = f, .node = node, .in_port = in_port, .hooks = hooks,
		.mod = mad_attr_mod(mad), .data = mad + SMP_OFF_DATA,
	};
	uint8_t method = mad_method(mad);
	int status;

	if (mad_method_is_response(method) || method == UMAD_METHOD_TRAP_REPRESS)
		return 0;
	if (!mad_class_is_smp(mad_class(mad)))
		return 0;
	r.set = method == UMAD_METHOD_SET;
	if ((method == UMAD_METHOD_GET || method == UMAD_METHOD_SET) && m_key_check(&r, mad) < 0)
		return 0;

	if (mad[MAD_OFF_BASE_VERSION] != UMAD_BASE_VERSION ||
	    mad[MAD_OFF_CLASS_VERSION] != SMP_CLASS_VERSION) {
		status = UMAD_STATUS_BAD_VERSION;
	} else if (method != UMAD_METHOD_GET && method != UMAD_METHOD_SET) {
		status = UMAD_STATUS_METHOD_NOT_SUPPORTED;
	} else {
		status = answer(&r, mad_attr_id(mad));
	}
	if (status == SMA_SILENT)
		return 0;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
	set_status(mad, (uint16_t)status);
	if (mad_class(mad) == UMAD_CLASS_SUBN_DIRECTED_ROUTE)
		put_be16(mad + MAD_OFF_STATUS, (uint16_t)(mad_status(mad) | UMAD_SMP_DIRECTION));
	return 1;
}
