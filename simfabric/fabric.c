/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The fabric model: nodes, ports, cables, and the LID index routing uses. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/link_speed.h"
#include "simfabric/arena.h"
#include "simfabric/fabric.h"

#define LID_INDEX_SIZE LID_MCAST_START	/* unicast LIDs */

struct sim_fabric *sim_fabric_new_in(struct sim_arena *arena)
{
	struct sim_fabric *f = arena ? sim_arena_alloc(arena, sizeof(*f)) : calloc(1, sizeof(*f));

	/*
	 * The LID index (some 440 KB) comes with the first LID an SM sets; in
	 * an arena it comes now (pages untouched take no memory), so that
	 * the fabric's root object never changes once loaded and every
	 * process can check it was not written over (sim_arena_set_root).
	 */
	if (f && arena) {
		f->by_lid = sim_arena_alloc(arena, LID_INDEX_SIZE * sizeof(*f->by_lid));
		f->port_of_lid = sim_arena_alloc(arena, LID_INDEX_SIZE);
		if (!f->by_lid || !f->port_of_lid)
			return NULL;
	}
	return f;
}

struct sim_fabric *sim_fabric_new(void)
{
	return sim_fabric_new_in(NULL);
}

_Thread_local uint64_t sim_trip_delay_ns;

static void free_node(struct sim_node *n)
{
	unsigned i;

	for (i = 0; n->ports && i <= n->num_ports; i++) {
		sim_mem_free(n->ports[i].vlarb);
		sim_mem_free(n->ports[i].sl2vl_in);
		sim_mem_free(n->ports[i].fault);
		sim_mem_free(n->ports[i].pkeys);
		sim_mem_free(n->ports[i].alias_guids);
		sim_mem_free(n->ports[i].pma_zero);
		sim_mem_free(n->ports[i].pma_errors);
		sim_mem_free(n->ports[i].pma_samples);
	}
	if (n->sw) {
		sim_mem_free(n->sw->lft);
		sim_mem_free(n->sw->mft);
		sim_mem_free(n->sw);
	}
	sim_mem_free(n->ports);
	sim_mem_free(n->cc);
	sim_mem_free(n->name);
	sim_mem_free(n);
}

void sim_fabric_free(struct sim_fabric *f)
{
	size_t i;

	/* A fabric in an arena goes with it, whole. */
	if (!f || sim_mem_shared(f))
		return;
	for (i = 0; i < f->n_nodes; i++)
		free_node(f->nodes[i]);
	sim_mem_free(f->nodes);
	sim_mem_free(f->by_lid);
	sim_mem_free(f->port_of_lid);
	sim_mem_free(f);
}

static void default_port(struct sim_node *n, struct sim_port *p, unsigned num)
{
	unsigned sl;

	p->node = n;
	p->num = (uint8_t)num;
	/* Supported as ibsim's ports (iblinkinfo's "Could be" hints read them); 1X or 4X SDR enabled. */
	p->width_supported = SIM_WIDTHS_SUPPORTED;
	p->width_enabled = LINK_WIDTH_1X | LINK_WIDTH_4X;
	p->speed_supported = SIM_SPEEDS_SUPPORTED;
	p->speed_enabled = LINK_SPEED_SDR;
	p->state = PORT_STATE_DOWN;
	p->phys_state = PHYS_STATE_POLLING;
	p->link_down_default = PHYS_STATE_POLLING;
	p->mtu_cap = 5;			/* 4096 */
	p->neighbor_mtu = 5;
	p->vl_cap = 4;			/* VL0-7 */
	p->op_vls = 4;
	p->vl_arb_high_cap = 8;
	p->vl_arb_low_cap = 8;
	p->hoq_life = 19;
	p->vl_stall = 7;
	p->guid_cap = SIM_GUID_CAP;
	p->subnet_timeout = 18;
	p->resp_time_value = 20;
	p->max_credit_hint = 0;
	p->gid_prefix = GID_PREFIX_LINK_LOCAL;
	for (sl = 0; sl < SL2VL_SLS; sl++)
		p->sl2vl = sim_sl2vl_with(p->sl2vl, sl, sl % 8);
	if (n->type == NODE_TYPE_CA)
		p->capmask = PORT_CAP_IS_NOTICE | PORT_CAP_IS_TRAP | PORT_CAP_IS_SL_MAPPING |
			     PORT_CAP_IS_SYS_IMAGE_GUID | PORT_CAP_IS_CM | PORT_CAP_IS_VENDOR_CLASS |
			     PORT_CAP_IS_CAPMASK_NOTICE | PORT_CAP_IS_CLIENT_REREG;
	else if (num == 0)
		p->capmask = PORT_CAP_IS_NOTICE | PORT_CAP_IS_TRAP | PORT_CAP_IS_SL_MAPPING |
			     PORT_CAP_IS_SYS_IMAGE_GUID | PORT_CAP_IS_VENDOR_CLASS |
			     PORT_CAP_IS_CAPMASK_NOTICE | PORT_CAP_IS_CLIENT_REREG;
	if (n->type == NODE_TYPE_SWITCH && num == 0) {
		/*
		 * Base port 0: no physical link of its own; always up as far as
		 * SMPs go, and Active from power-on, as ibsim has it and as
		 * opensm counts it (it need not activate it, and often does not).
		 */
		p->state = PORT_STATE_ACTIVE;
		p->phys_state = PHYS_STATE_LINKUP;
		p->width_active = LINK_WIDTH_4X;
		p->speed_active = LINK_SPEED_SDR;
	}
}

void sim_switch_set_enhanced_port0(struct sim_node *n)
{
	n->sw->enhanced_port0 = 1;
	/* A port of its own, which an SM arms and activates as any other. */
	n->ports[0].state = PORT_STATE_INIT;
}

struct sim_node *sim_fabric_add_node(struct sim_fabric *f, enum node_type type,
				     const char *name, unsigned num_ports)
{
	struct sim_node *n;
	unsigned i;

	if (num_ports < 1 || num_ports > SIM_MAX_PORTS)
		return NULL;
	if (f->n_nodes == f->cap_nodes) {
		size_t cap = f->cap_nodes ? f->cap_nodes * 2 : 64;
		struct sim_node **grown = sim_mem_realloc(f, f->nodes, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		f->nodes = grown;
		f->cap_nodes = cap;
	}
	n = sim_mem_calloc(f, 1, sizeof(*n));
	if (!n)
		return NULL;
	n->type = type;
	n->name = sim_mem_strdup(f, name);
	n->num_ports = (uint8_t)num_ports;
	n->ports = sim_mem_calloc(f, num_ports + 1, sizeof(*n->ports));
	n->partition_cap = SIM_PKEY_TABLE_SIZE;
	if (type == NODE_TYPE_SWITCH) {
		/* The forwarding tables are allocated when an SM first writes them. */
		n->sw = sim_mem_calloc(f, 1, sizeof(*n->sw));
		if (!n->sw) {
			free_node(n);
			return NULL;
		}
		n->sw->default_port = 0;
		n->sw->default_mcast_primary = 0xff;
		n->sw->default_mcast_not_primary = 0xff;
		n->sw->life_time_value = 18;
		n->sw->lids_per_port = 0;
		n->sw->partition_enforcement_cap = 32;
	}
	if (!n->name || !n->ports) {
		free_node(n);
		return NULL;
	}
	snprintf(n->desc, sizeof(n->desc), "%s", name);
	for (i = 0; i <= num_ports; i++)
		default_port(n, &n->ports[i], i);
	n->index = f->n_nodes;
	f->nodes[f->n_nodes++] = n;
	if (type == NODE_TYPE_SWITCH)
		f->n_switches++;
	else if (type == NODE_TYPE_CA)
		f->n_cas++;
	else
		f->n_routers++;
	return n;
}

int sim_port_sl2vl_set(struct sim_port *out, unsigned in, uint64_t table)
{
	unsigned i, n = out->node->num_ports;

	if (!out->sl2vl_in) {
		/* One table for all while every input port has the same (as opensm without QoS). */
		if (out->node->type != NODE_TYPE_SWITCH || table == out->sl2vl) {
			out->sl2vl = table;
			return 0;
		}
		out->sl2vl_in = sim_mem_calloc(out, n + 1, sizeof(*out->sl2vl_in));
		if (!out->sl2vl_in)
			return -ENOMEM;
		for (i = 0; i <= n; i++)
			out->sl2vl_in[i] = out->sl2vl;
	}
	out->sl2vl_in[in] = table;
	return 0;
}

void sim_port_sl2vl_set_all(struct sim_port *out, uint64_t table)
{
	unsigned i;

	out->sl2vl = table;
	for (i = 0; out->sl2vl_in && i <= out->node->num_ports; i++)
		out->sl2vl_in[i] = table;
}

static uint8_t highest_bit(uint8_t v)
{
	uint8_t b = 0x80;

	while (b && !(v & b))
		b >>= 1;
	return b;
}

/* Widest common width: 12x > 8x > 4x > 2x > 1x (bit order is not width order). */
uint8_t sim_widest_width(uint8_t common)
{
	static const uint8_t order[] = { LINK_WIDTH_12X, LINK_WIDTH_8X, LINK_WIDTH_4X, LINK_WIDTH_2X,
					 LINK_WIDTH_1X };
	size_t i;

	for (i = 0; i < sizeof(order); i++)
		if (common & order[i])
			return order[i];
	return 0;
}

/* What one port's supported rates add to CapabilityMask (*cap) and CapabilityMask2 (*cap2). */
static void port_link_caps(const struct sim_port *p, uint32_t *cap, uint16_t *cap2)
{
	if (p->ext_supported)
		*cap |= PORT_CAP_IS_EXT_SPEEDS;
	if (p->width_supported & LINK_WIDTH_2X)
		*cap2 |= PORT_CAP2_IS_LINK_WIDTH_2X;
	if (p->ext_supported & LINK_SPEED_EXT_HDR)
		*cap2 |= PORT_CAP2_IS_LINK_SPEED_HDR;
	if (p->ext_supported & LINK_SPEED_EXT_NDR)
		*cap2 |= PORT_CAP2_IS_LINK_SPEED_NDR;
	/* PortInfoExtended came with HDR: its FEC modes (sma.c). */
	if (sim_port_has_port_info_ext(p))
		*cap2 |= PORT_CAP2_IS_PORT_INFO_EXT;
}

static void set_link_caps(struct sim_port *p, uint32_t cap, uint16_t cap2)
{
	const uint32_t link_bits = PORT_CAP_IS_EXT_SPEEDS | PORT_CAP_HAS_CAP_MASK2;
	const uint16_t link_bits2 = PORT_CAP2_IS_LINK_WIDTH_2X | PORT_CAP2_IS_LINK_SPEED_HDR |
				    PORT_CAP2_IS_LINK_SPEED_NDR | PORT_CAP2_IS_PORT_INFO_EXT;

	p->capmask2 = (uint16_t)((p->capmask2 & ~link_bits2) | cap2);
	p->capmask = (p->capmask & ~link_bits) | cap | (p->capmask2 ? PORT_CAP_HAS_CAP_MASK2 : 0);
}

void sim_node_link_caps(struct sim_node *n)
{
	uint32_t cap = 0;
	uint16_t cap2 = 0;
	unsigned i;

	if (n->type == NODE_TYPE_SWITCH) {
		for (i = 1; i <= n->num_ports; i++)
			port_link_caps(&n->ports[i], &cap, &cap2);
		set_link_caps(&n->ports[0], cap, cap2);
		return;
	}
	for (i = 1; i <= n->num_ports; i++) {
		cap = 0;
		cap2 = 0;
		port_link_caps(&n->ports[i], &cap, &cap2);
		set_link_caps(&n->ports[i], cap, cap2);
	}
}

int sim_link_train(struct sim_port *a, struct sim_port *b)
{
	uint8_t width = sim_widest_width(a->width_enabled & a->width_supported &
				   b->width_enabled & b->width_supported);
	uint8_t speed = highest_bit(a->speed_enabled & a->speed_supported &
				    b->speed_enabled & b->speed_supported);
	uint8_t ext = highest_bit(a->ext_enabled & a->ext_supported & b->ext_enabled &
				  b->ext_supported);

	if (!width || (!speed && !ext))
		return -ERANGE;
	a->width_active = b->width_active = width;
	a->speed_active = b->speed_active = speed ? speed : LINK_SPEED_SDR;
	a->ext_active = b->ext_active = ext;
	/* FDR10 (MlnxExtPortInfo) where both ends enable it and QDR, and no extended speed. */
	a->mlnx_speed_active = b->mlnx_speed_active =
		!ext && speed == LINK_SPEED_QDR
			? a->mlnx_speed_enabled & a->mlnx_speed_supported & b->mlnx_speed_enabled &
			  b->mlnx_speed_supported & MLNX_LINK_SPEED_FDR10
			: 0;
	a->phys_state = b->phys_state = PHYS_STATE_LINKUP;
	a->state = b->state = PORT_STATE_INIT;
	a->neighbor_mtu = b->neighbor_mtu = a->mtu_cap < b->mtu_cap ? a->mtu_cap : b->mtu_cap;
	return 0;
}

int sim_fabric_link(struct sim_port *a, struct sim_port *b)
{
	int r;

	if (!a->num || !b->num || a == b)
		return -EINVAL;
	if (a->peer == b && b->peer == a)
		return 0;
	if (a->peer || b->peer)
		return -EBUSY;
	r = sim_link_train(a, b);
	if (r < 0)
		return r;
	a->peer = b;
	b->peer = a;
	return 0;
}

static int parse_guid(const char *s, uint64_t *guid)
{
	char *end;

	if (strncmp(s, "0x", 2) && strncmp(s, "0X", 2))
		return -1;
	*guid = strtoull(s, &end, 16);
	return *end ? -1 : 0;
}

struct sim_node *sim_fabric_find(const struct sim_fabric *f, const char *name_or_guid)
{
	uint64_t guid;
	int by_guid = parse_guid(name_or_guid, &guid) == 0;
	size_t i;
	unsigned p;

	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		if (!strcmp(n->name, name_or_guid) || !strcmp(n->desc, name_or_guid))
			return n;
		if (!by_guid)
			continue;
		if (n->node_guid == guid)
			return n;
		for (p = 1; p <= n->num_ports; p++)
			if (n->ports[p].guid == guid)
				return n;
	}
	return NULL;
}

struct sim_node *sim_fabric_default_host(const struct sim_fabric *f)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->type == NODE_TYPE_CA)
			return f->nodes[i];
	return f->nodes[0];
}

struct sim_node *sim_fabric_node_by_lid(const struct sim_fabric *f, uint16_t lid,
					uint8_t *port_num)
{
	if (!lid || lid >= LID_INDEX_SIZE || !f->by_lid)
		return NULL;
	if (port_num)
		*port_num = f->port_of_lid[lid];
	return f->by_lid[lid];
}

int sim_fabric_lid_changed(struct sim_fabric *f, struct sim_port *p, uint16_t old_lid,
			   uint8_t old_lmc)
{
	unsigned i, count;

	if (!f->by_lid) {
		f->by_lid = sim_mem_calloc(f, LID_INDEX_SIZE, sizeof(*f->by_lid));
		f->port_of_lid = sim_mem_calloc(f, LID_INDEX_SIZE, 1);
		if (!f->by_lid || !f->port_of_lid) {
			sim_mem_free(f->by_lid);
			sim_mem_free(f->port_of_lid);
			f->by_lid = NULL;
			f->port_of_lid = NULL;
			return -ENOMEM;
		}
	}
	if (old_lid && old_lid < LID_INDEX_SIZE) {
		count = 1u << old_lmc;
		for (i = 0; i < count && old_lid + i < LID_INDEX_SIZE; i++) {
			if (f->by_lid[old_lid + i] == p->node &&
			    f->port_of_lid[old_lid + i] == p->num) {
				f->by_lid[old_lid + i] = NULL;
				f->port_of_lid[old_lid + i] = 0;
			}
		}
	}
	if (p->lid && p->lid < LID_INDEX_SIZE) {
		count = 1u << p->lmc;
		for (i = 0; i < count && p->lid + i < LID_INDEX_SIZE; i++) {
			f->by_lid[p->lid + i] = p->node;
			f->port_of_lid[p->lid + i] = p->num;
		}
	}
	return 0;
}

uint8_t *sim_switch_lft_room(struct sim_switch *sw, uint32_t len)
{
	/*
	 * In an arena the whole table is taken at once (its untouched pages
	 * cost nothing), where growing block by block would leave every
	 * smaller copy behind.
	 */
	if (sim_mem_shared(sw))
		return sw->lft ? sw->lft : sim_mem_calloc(sw, SIM_LFT_CAP, 1);
	return realloc(sw->lft, len);
}

int sim_switch_lft_reserve(struct sim_switch *sw, uint32_t entries)
{
	uint32_t len = (entries + LFT_PER_BLOCK - 1) / LFT_PER_BLOCK * LFT_PER_BLOCK;
	uint32_t have = sim_switch_lft_len(sw);
	uint8_t *grown;

	if (entries > SIM_LFT_CAP)
		return -EINVAL;
	if (len <= have)
		return 0;
	grown = sim_switch_lft_room(sw, len);
	if (!grown)
		return -ENOMEM;
	memset(grown + have, SIM_LFT_NO_ROUTE, len - have);
	sw->lft = grown;
	sw->lft_len = len;
	return 0;
}

unsigned sim_width_lanes(uint8_t width)
{
	return link_width_lanes(width);
}

unsigned sim_port_rate_x10(const struct sim_port *p)
{
	return link_width_lanes(p->width_active) * link_lane_rate_x10(p->speed_active, p->ext_active);
}

const char *sim_width_name(uint8_t width_active)
{
	return link_width_name(width_active);
}

const char *sim_speed_name(const struct sim_port *p)
{
	return link_speed_name(p->speed_active, p->ext_active, p->mlnx_speed_active);
}
