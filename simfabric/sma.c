/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The SMA: SubnGet/SubnSet of the subnet management attributes, answered
 * from the model as hardware answers them, with the spec's MAD status for
 * what is not supported and M_Key protection per level.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libumad/mad_wire.h"
#include "simfabric/arena.h"
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

static int node_desc(struct sma_request *r)
{
	if (r->set)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	memset(r->data, 0, SMP_DATA_SIZE);
	memcpy(r->data, r->node->desc, strnlen(r->node->desc, SIM_DESC_LEN));
	return SMA_REPLY;
}

void sim_encode_node_info(const struct sim_node *n, unsigned local_port, uint8_t *d)
{
	uint64_t port_guid = n->type == NODE_TYPE_SWITCH ? n->node_guid : n->ports[local_port].guid;

	memset(d, 0, SMP_DATA_SIZE);
	d[0] = UMAD_BASE_VERSION;
	d[1] = SMP_CLASS_VERSION;
	d[2] = (uint8_t)n->type;
	d[3] = n->num_ports;
	put_be64(d + 4, n->sys_guid);
	put_be64(d + 12, n->node_guid);
	put_be64(d + 20, port_guid);
	put_be16(d + 28, n->partition_cap);
	put_be16(d + 30, n->device_id);
	put_be32(d + 32, n->revision);
	d[36] = (uint8_t)local_port;
	d[37] = (uint8_t)(n->vendor_id >> 16);
	d[38] = (uint8_t)(n->vendor_id >> 8);
	d[39] = (uint8_t)n->vendor_id;
}

static int node_info(struct sma_request *r)
{
	if (r->set)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	sim_encode_node_info(r->node, r->in_port, r->data);
	return SMA_REPLY;
}

/* --- PortInfo ------------------------------------------------------------------ */

void sim_encode_port_info(const struct sim_node *n, const struct sim_port *p, unsigned local_port,
			  int hide_m_key, uint8_t *d)
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
	put_be64(d + 0, hide_m_key ? 0 : m->m_key);
	put_be64(d + 8, m->gid_prefix);
	put_be16(d + 16, m->lid);
	put_be16(d + 18, m->sm_lid);
	put_be32(d + 20, p->capmask);
	put_be16(d + 24, p->diag_code);
	put_be16(d + 26, m->m_key_lease);
	d[28] = (uint8_t)local_port;
	d[29] = p->width_enabled;
	d[30] = p->width_supported;
	d[31] = width_active;
	d[32] = (uint8_t)(p->speed_supported << 4 | p->state);
	d[33] = (uint8_t)(p->phys_state << 4 | p->link_down_default);
	d[34] = (uint8_t)(m->m_key_protect << 6 | m->lmc);
	d[35] = (uint8_t)(speed_active << 4 | p->speed_enabled);
	d[36] = (uint8_t)(p->neighbor_mtu << 4 | m->sm_sl);
	d[37] = (uint8_t)(p->vl_cap << 4);
	d[38] = p->vl_high_limit;
	d[39] = p->vl_arb_high_cap;
	d[40] = p->vl_arb_low_cap;
	d[41] = (uint8_t)(p->init_type_reply << 4 | p->mtu_cap);
	d[42] = (uint8_t)(p->vl_stall << 5 | p->hoq_life);
	d[43] = (uint8_t)(p->op_vls << 4 | p->partition_enforcement);
	put_be16(d + 44, m->m_key_violations);
	put_be16(d + 46, p->p_key_violations);
	put_be16(d + 48, p->q_key_violations);
	d[50] = p->guid_cap;
	d[51] = (uint8_t)(p->client_reregister << 7 | p->mcast_pkey_trap_suppress << 5 |
			  p->subnet_timeout);
	d[52] = p->resp_time_value;
	d[53] = (uint8_t)(p->local_phy_errors << 4 | p->overrun_errors);
	put_be16(d + 54, p->max_credit_hint);
	put_be32(d + 56, p->link_round_trip_latency & 0xffffff);
	put_be16(d + 60, p->capmask2);
	d[62] = (uint8_t)(p->ext_active << 4 | p->ext_supported);
	d[63] = p->ext_enabled & 0x1f;
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

/* Validate every field of a PortInfo Set before changing anything. */
static int port_info_set_valid(const struct sim_port *p, const uint8_t *d)
{
	uint8_t width = d[29], speed = d[35] & 0xf, ext = d[63] & 0x1f;
	uint8_t mtu = d[36] >> 4, vls = d[43] >> 4, link_down_default = d[33] & 0xf;

	if (width && width != 0xff && (width & ~p->width_supported))
		return 0;
	if (speed && speed != 0xf && (speed & ~p->speed_supported))
		return 0;
	if (ext && ext != 0x1e && ext != 0x1f && (ext & ~p->ext_supported))
		return 0;
	if (mtu && mtu > p->mtu_cap)
		return 0;
	if (vls && vls > p->vl_cap)
		return 0;
	if (link_down_default > PHYS_STATE_POLLING)
		return 0;
	return sim_port_state_valid(p, d[32] & 0xf) && sim_port_phys_valid(p, d[33] >> 4);
}

/*
 * CapabilityMask and CapabilityMask2 are read-only to an SM: a Set leaves
 * them as they are, so it never sends Trap 144 (a change made on the node
 * does: sim_net_capmask_changed()).
 */
static void port_info_apply(struct sma_request *r, struct sim_port *p, const uint8_t *d)
{
	uint8_t width = d[29], speed = d[35] & 0xf, ext = d[63] & 0x1f;
	int rates_changed = 0;

	/* Addressing: end ports, and a switch through its port 0 only. */
	if (r->node->type != NODE_TYPE_SWITCH || p->num == 0) {
		uint16_t old_lid = p->lid;
		uint8_t old_lmc = p->lmc;

		p->m_key = get_be64(d + 0);
		p->gid_prefix = get_be64(d + 8);
		p->lid = get_be16(d + 16);
		p->sm_lid = get_be16(d + 18);
		p->m_key_lease = get_be16(d + 26);
		p->m_key_protect = d[34] >> 6;
		p->lmc = r->node->type == NODE_TYPE_SWITCH ? 0 : d[34] & 7;
		p->sm_sl = d[36] & 0xf;
		p->m_key_violations = get_be16(d + 44);
		/* Out of memory for the LID index: the port keeps the LID it can be found by. */
		if ((p->lid != old_lid || p->lmc != old_lmc) &&
		    sim_fabric_lid_changed(r->f, p, old_lid, old_lmc) < 0) {
			p->lid = old_lid;
			p->lmc = old_lmc;
		}
	}
	if (width) {
		uint8_t v = width == 0xff ? p->width_supported : width;

		rates_changed |= v != p->width_enabled;
		p->width_enabled = v;
	}
	if (speed) {
		uint8_t v = speed == 0xf ? p->speed_supported : speed;

		rates_changed |= v != p->speed_enabled;
		p->speed_enabled = v;
	}
	if (ext) {
		uint8_t v = ext >= 0x1e ? p->ext_supported : ext;

		rates_changed |= v != p->ext_enabled;
		p->ext_enabled = v;
	}
	if (d[33] & 0xf)
		p->link_down_default = d[33] & 0xf;
	if (d[36] >> 4)
		p->neighbor_mtu = d[36] >> 4;
	p->vl_high_limit = d[38];
	p->vl_stall = d[42] >> 5;
	p->hoq_life = d[42] & 0x1f;
	if (d[43] >> 4)
		p->op_vls = d[43] >> 4;
	p->partition_enforcement = d[43] & 0xf;
	p->p_key_violations = get_be16(d + 46);
	p->q_key_violations = get_be16(d + 48);
	p->subnet_timeout = d[51] & 0x1f;
	p->mcast_pkey_trap_suppress = (d[51] >> 5) & 3;
	/* ClientReregister asks the clients to re-register; it reads back as 0. */
	p->client_reregister = 0;
	if (r->node->type != NODE_TYPE_SWITCH)
		p->resp_time_value = d[52] & 0x1f;
	if (rates_changed)
		sim_port_retrain(p);
	sim_port_set_phys(p, d[33] >> 4);
	sim_port_set_state(p, d[32] & 0xf);
}

static int port_info(struct sma_request *r)
{
	struct sim_port *p = port_from_modifier(r, r->mod);

	if (!p || r->mod > 0xff)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		if (!port_info_set_valid(p, r->data)) {
			/* Answer with the unchanged attribute and the status. */
			sim_encode_port_info(r->node, p, r->in_port, r->hide_m_key, r->data);
			return UMAD_STATUS_INVALID_ATTR_VALUE;
		}
		port_info_apply(r, p, r->data);
		node_changed(r);
	}
	if (r->hooks && r->hooks->before_port_read)
		r->hooks->before_port_read(r->hooks->arg, p);
	sim_encode_port_info(r->node, p, r->in_port, r->hide_m_key, r->data);
	return SMA_REPLY;
}

/* --- SwitchInfo, forwarding tables ------------------------------------------- */

void sim_encode_switch_info(const struct sim_switch *sw, uint8_t *d)
{
	memset(d, 0, SMP_DATA_SIZE);
	put_be16(d + 0, SIM_LFT_CAP);
	put_be16(d + 4, SIM_MFT_CAP);
	put_be16(d + 6, sw->lft_top);
	d[8] = sw->default_port;
	d[9] = sw->default_mcast_primary;
	d[10] = sw->default_mcast_not_primary;
	d[11] = (uint8_t)(sw->life_time_value << 3 | sw->port_state_change << 2);
	put_be16(d + 12, sw->lids_per_port);
	put_be16(d + 14, sw->partition_enforcement_cap);
	d[16] = (uint8_t)(sw->enhanced_port0 << 3);
	put_be16(d + 18, sw->mft_top);
}

static int switch_info(struct sma_request *r)
{
	struct sim_switch *sw = r->node->sw;
	uint8_t *d = r->data;

	if (!sw)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	if (r->set) {
		uint16_t lft_top = get_be16(d + 6), mft_top = get_be16(d + 18);

		if (lft_top >= SIM_LFT_CAP ||
		    (mft_top && (mft_top < LID_MCAST_START ||
				 mft_top >= LID_MCAST_START + SIM_MFT_CAP)))
			return UMAD_STATUS_INVALID_ATTR_VALUE;
		sw->lft_top = lft_top;
		sw->default_port = d[8];
		sw->default_mcast_primary = d[9];
		sw->default_mcast_not_primary = d[10];
		sw->life_time_value = d[11] >> 3;
		if (d[11] & 0x04)
			sw->port_state_change = 0;	/* written as 1 to clear it */
		sw->mft_top = mft_top;
		node_changed(r);
	}
	sim_encode_switch_info(sw, d);
	return SMA_REPLY;
}

static int linear_ft(struct sma_request *r)
{
	struct sim_switch *sw = r->node->sw;
	size_t first = (size_t)r->mod * SMP_DATA_SIZE;

	if (!sw)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	if (r->mod >= SIM_LFT_CAP / SMP_DATA_SIZE)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		/* The table grows to the highest block an SM writes. */
		if (sim_switch_lft_reserve(sw, first + SMP_DATA_SIZE) < 0)
			return SMA_SILENT;	/* out of memory: as a lost packet */
		memcpy(sw->lft + first, r->data, SMP_DATA_SIZE);
		node_changed(r);
	}
	if (first + SMP_DATA_SIZE <= sim_switch_lft_len(sw))
		memcpy(r->data, sw->lft + first, SMP_DATA_SIZE);
	else
		memset(r->data, SIM_LFT_NO_ROUTE, SMP_DATA_SIZE);
	return SMA_REPLY;
}

static int mcast_ft(struct sma_request *r)
{
	struct sim_switch *sw = r->node->sw;
	unsigned block = r->mod & 0x1ff, position = r->mod >> 28, i;

	if (!sw)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	if (block >= SIM_MFT_CAP / 32 || position > r->node->num_ports / 16 ||
	    (r->mod & 0x0ffffe00))
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set && !sw->mft) {
		sw->mft = sim_mem_calloc(sw, SIM_MFT_CAP, sizeof(*sw->mft));
		if (!sw->mft)
			return SMA_SILENT;	/* out of memory: as a lost packet */
	}
	for (i = 0; i < 32; i++) {
		uint16_t mask = sw->mft ? sw->mft[block * 32 + i][position] : 0;

		if (r->set)
			mask = sw->mft[block * 32 + i][position] = get_be16(r->data + 2 * i);
		put_be16(r->data + 2 * i, mask);
	}
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

/* --- GUIDInfo, P_KeyTable, SLtoVL, VLArbitration ------------------------------ */

static int guid_info(struct sma_request *r)
{
	/* Switches have GUIDs at port 0; end ports at the port asked through. */
	struct sim_port *p = sim_mgmt_port(r->node, r->in_port);
	unsigned i;

	if (r->mod >= SIM_GUID_CAP / 8)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set && !p->alias_guids) {
		p->alias_guids = sim_mem_calloc(p, SIM_GUID_CAP, sizeof(*p->alias_guids));
		if (!p->alias_guids)
			return SMA_SILENT;	/* out of memory: as a lost packet */
	}
	for (i = 0; i < 8; i++) {
		/* GUID 0 is the port GUID: read-only. */
		if (r->set && i > 0)
			p->alias_guids[i] = get_be64(r->data + 8 * i);
		put_be64(r->data + 8 * i, sim_port_guid_at(p, i));
	}
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

static int pkey_table(struct sma_request *r)
{
	unsigned block = r->mod & 0xffff, num = r->mod >> 16, i;
	struct sim_port *p;

	if (r->node->type != NODE_TYPE_SWITCH)
		num = r->in_port;
	p = num <= r->node->num_ports ? &r->node->ports[num] : NULL;
	if (!p || (r->node->type != NODE_TYPE_SWITCH && num == 0) ||
	    block >= SIM_PKEY_TABLE_SIZE / 32)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set && !p->pkeys) {
		p->pkeys = sim_mem_calloc(p, SIM_PKEY_TABLE_SIZE, sizeof(*p->pkeys));
		if (!p->pkeys)
			return SMA_SILENT;	/* out of memory: as a lost packet */
		p->pkeys[0] = PKEY_DEFAULT;
	}
	for (i = 0; i < 32; i++) {
		if (r->set)
			p->pkeys[block * 32 + i] = get_be16(r->data + 2 * i);
		put_be16(r->data + 2 * i, sim_port_pkey(p, block * 32 + i));
	}
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

static int sl2vl_table(struct sma_request *r)
{
	unsigned out = r->mod & 0xff, in = (r->mod >> 8) & 0xff, sl;
	struct sim_port *p;

	if (r->node->type != NODE_TYPE_SWITCH) {
		out = r->in_port;
		in = 0;
	}
	if (out > r->node->num_ports || in > r->node->num_ports || (r->mod >> 16))
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	/* One table per output port: the input port is accepted but not told apart. */
	p = &r->node->ports[out];
	for (sl = 0; sl < 16; sl += 2) {
		if (r->set) {
			p->sl2vl[sl] = r->data[sl / 2] >> 4;
			p->sl2vl[sl + 1] = r->data[sl / 2] & 0xf;
		}
		r->data[sl / 2] = (uint8_t)(p->sl2vl[sl] << 4 | p->sl2vl[sl + 1]);
	}
	memset(r->data + 8, 0, SMP_DATA_SIZE - 8);
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

static int vl_arb_table(struct sma_request *r)
{
	unsigned block = r->mod >> 16, num = r->mod & 0xffff, i;
	struct sim_port *p;

	if (r->node->type != NODE_TYPE_SWITCH)
		num = r->in_port;
	if (block < 1 || block > 4 || num > r->node->num_ports)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	p = &r->node->ports[num];
	if (r->set && !p->vlarb) {
		p->vlarb = sim_mem_calloc(p, 4, sizeof(*p->vlarb));
		if (!p->vlarb)
			return SMA_SILENT;	/* out of memory: as a lost packet */
	}
	for (i = 0; i < 32; i++) {
		uint8_t *entry = p->vlarb ? p->vlarb[block - 1][i] : NULL;

		if (r->set) {
			entry[0] = r->data[2 * i] & 0xf;
			entry[1] = r->data[2 * i + 1];
		}
		r->data[2 * i] = entry ? entry[0] : 0;
		r->data[2 * i + 1] = entry ? entry[1] : 0;
	}
	if (r->set)
		node_changed(r);
	return SMA_REPLY;
}

/* --- SMInfo, LedInfo ---------------------------------------------------------- */

static int sm_info(struct sma_request *r)
{
	struct sim_sminfo *s = &r->node->sminfo;
	struct sim_port *p = sim_mgmt_port(r->node, r->in_port);

	/* Only a port running an SM has SMInfo; elsewhere it is not supported. */
	if (!(p->capmask & SIM_CAP_IS_SM))
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	if (r->set)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	memset(r->data, 0, SMP_DATA_SIZE);
	put_be64(r->data + 0, s->guid);
	put_be64(r->data + 8, r->hide_m_key ? 0 : s->sm_key);
	put_be32(r->data + 16, s->act_count);
	r->data[20] = (uint8_t)(s->priority << 4 | s->state);
	return SMA_REPLY;
}

static int led_info(struct sma_request *r)
{
	struct sim_port *p = port_from_modifier(r, r->mod);

	if (!p)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		p->led = r->data[0] >> 7;
		node_changed(r);
	}
	memset(r->data, 0, SMP_DATA_SIZE);
	r->data[0] = (uint8_t)(p->led << 7);
	return SMA_REPLY;
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
	if (m->m_key_violations < 0xffff)
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
		switch (mad_attr_id(mad)) {
		case UMAD_SM_ATTR_NODE_DESC: status = node_desc(&r); break;
		case UMAD_SM_ATTR_NODE_INFO: status = node_info(&r); break;
		case UMAD_SM_ATTR_SWITCH_INFO: status = switch_info(&r); break;
		case UMAD_SM_ATTR_GUID_INFO: status = guid_info(&r); break;
		case UMAD_SM_ATTR_PORT_INFO: status = port_info(&r); break;
		case UMAD_SM_ATTR_PKEY_TABLE: status = pkey_table(&r); break;
		case UMAD_SM_ATTR_SLVL_TABLE: status = sl2vl_table(&r); break;
		case UMAD_SM_ATTR_VL_ARB_TABLE: status = vl_arb_table(&r); break;
		case UMAD_SM_ATTR_LINEAR_FT: status = linear_ft(&r); break;
		case UMAD_SM_ATTR_MCAST_FT: status = mcast_ft(&r); break;
		case UMAD_SM_ATTR_SM_INFO: status = sm_info(&r); break;
		case UMAD_SM_ATTR_LED_INFO: status = led_info(&r); break;
		default: status = UMAD_STATUS_ATTR_NOT_SUPPORTED; break;
		}
	}
	if (status == SMA_SILENT)
		return 0;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
	set_status(mad, (uint16_t)status);
	if (mad_class(mad) == UMAD_CLASS_SUBN_DIRECTED_ROUTE)
		mad[MAD_OFF_STATUS] |= UMAD_SMP_DIRECTION >> 8;
	return 1;
}
