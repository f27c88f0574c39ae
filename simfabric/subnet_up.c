/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Bringing the subnet up as an SM would, in one step (subnet_up.h says
 * what is chosen).  Three parts:
 *  - the sweep: which ports an SM at sm_port reaches, their LIDs (worked
 *    out completely before anything changes, so that running out of LIDs
 *    leaves the fabric as it was), then their values and states;
 *  - unicast routing: hop counts between all switches at once, with one
 *    bit per source switch in a breadth-first search run for every switch
 *    together, then each switch's LFT, balanced over equal-cost ports;
 *  - multicast routing: one tree per group.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mad_wire.h"
#include "simfabric/arena.h"
#include "simfabric/subnet_up.h"

/* The values an SM writes (doc/sim-subnet.md). */
#define SUBNET_TIMEOUT		18	/* 4.096 us * 2^18: about 1 s */
#define HOQ_LIFE_INNER		18	/* switch ports toward switches */
#define HOQ_LIFE_LEAF		16	/* switch ports toward end nodes */
#define VL_STALL_COUNT		7
#define PHY_ERRORS_THRESHOLD	8
#define OVERRUN_THRESHOLD	8
#define VLARB_WEIGHT		64	/* in 64-byte units: one 4 KiB packet per turn */
/* PortInfo's partition enforcement bits on switch ports to end nodes. */
#define PARTITION_ENFORCE_IN_OUT	(PORT_ENFORCE_INBOUND | PORT_ENFORCE_OUTBOUND)
#define LMC_MAX			((1u << MAD_FIELD_BITS(PI_LMC)) - 1)

#define HOPS_UNREACHABLE	0xff

uint16_t sim_subnet_port_lid(const struct sim_port *p)
{
	return p->node->type == NODE_TYPE_SWITCH ? p->node->ports[0].lid : p->lid;
}

/* The port the node's SMInfo names (its GUID), when the node runs the master SM. */
struct sim_port *sim_subnet_master(const struct sim_fabric *f)
{
	size_t i;
	unsigned p;

	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		if (n->sminfo.state != SM_STATE_MASTER)
			continue;
		if (n->type == NODE_TYPE_SWITCH) {
			if (n->ports[0].capmask & PORT_CAP_IS_SM)
				return &n->ports[0];
			continue;
		}
		for (p = 1; p <= n->num_ports; p++)
			if (n->ports[p].guid == n->sminfo.guid && (n->ports[p].capmask & PORT_CAP_IS_SM))
				return &n->ports[p];
	}
	return NULL;
}

/* --- every port of the fabric by one index ------------------------------------- */

struct port_index {
	size_t *base;		/* per node: index of its port 0 */
	size_t n_ports;
};

static int port_index_init(const struct sim_fabric *f, struct port_index *pi)
{
	size_t i;

	pi->base = malloc((f->n_nodes + 1) * sizeof(*pi->base));
	if (!pi->base)
		return -ENOMEM;
	pi->n_ports = 0;
	for (i = 0; i < f->n_nodes; i++) {
		pi->base[i] = pi->n_ports;
		pi->n_ports += f->nodes[i]->num_ports + 1u;
	}
	pi->base[f->n_nodes] = pi->n_ports;
	return 0;
}

static size_t port_id(const struct port_index *pi, const struct sim_port *p)
{
	return pi->base[p->node->index] + p->num;
}

/* A link data can use: up, and Active at both ends. */
static int link_active(const struct sim_port *p)
{
	return sim_port_link_up(p) && p->state == PORT_STATE_ACTIVE &&
	       p->peer->state == PORT_STATE_ACTIVE;
}

/* --- the sweep ------------------------------------------------------------------ */

struct sweep {
	struct sim_fabric *f;
	struct port_index pi;
	uint8_t *reached;	/* per port: an SM at the SM port reaches it */
	uint16_t *lid;		/* per port: the LID it is to have (management ports) */
	uint8_t *lmc;
	uint8_t *used;		/* per unicast LID: taken */
	uint16_t cursor[LMC_MAX + 1];	/* per LMC: below it no free aligned block */
};

/*
 * Mark what an SM at sm_port reaches over links that are up: every port of
 * a switch it reaches, and of an end node only the port it came in by (end
 * nodes do not forward).
 */
static int sweep_reach(struct sweep *s, struct sim_port *sm_port)
{
	struct sim_fabric *f = s->f;
	struct sim_node **queue = malloc(f->n_nodes * sizeof(*queue));
	uint8_t *queued = calloc(f->n_nodes, 1);
	size_t head = 0, tail = 0;
	unsigned p;

	if (!queue || !queued) {
		free(queue);
		free(queued);
		return -ENOMEM;
	}
	if (sm_port->node->type == NODE_TYPE_SWITCH) {
		queue[tail++] = sm_port->node;
		queued[sm_port->node->index] = 1;
	} else {
		s->reached[port_id(&s->pi, sm_port)] = 1;
		if (sim_port_link_up(sm_port)) {
			struct sim_port *far = sm_port->peer;

			if (far->node->type == NODE_TYPE_SWITCH) {
				queue[tail++] = far->node;
				queued[far->node->index] = 1;
			} else {
				s->reached[port_id(&s->pi, far)] = 1;
			}
		}
	}
	while (head < tail) {
		struct sim_node *n = queue[head++];

		s->reached[port_id(&s->pi, &n->ports[0])] = 1;
		for (p = 1; p <= n->num_ports; p++) {
			struct sim_port *port = &n->ports[p], *far = port->peer;

			if (!sim_port_link_up(port))
				continue;
			s->reached[port_id(&s->pi, port)] = 1;
			if (far->node->type != NODE_TYPE_SWITCH)
				s->reached[port_id(&s->pi, far)] = 1;
			else if (!queued[far->node->index]) {
				queued[far->node->index] = 1;
				queue[tail++] = far->node;
			}
		}
	}
	free(queue);
	free(queued);
	return 0;
}

static int lids_free(const struct sweep *s, unsigned lid, unsigned lmc)
{
	unsigned l;

	if (!lid || lid + (1u << lmc) > LID_MCAST_START)
		return 0;
	for (l = lid; l < lid + (1u << lmc); l++)
		if (s->used[l])
			return 0;
	return 1;
}

static void take_lids(struct sweep *s, unsigned lid, unsigned lmc)
{
	memset(s->used + lid, 1, 1u << lmc);
}

/* The lowest free block of 2^lmc LIDs aligned to its size, or 0. */
static unsigned alloc_lids(struct sweep *s, unsigned lmc)
{
	unsigned size = 1u << lmc, lid = s->cursor[lmc];

	if (!lid)
		lid = size;	/* LID 0 is no LID: the first block starts at its size */
	for (; lid + size <= LID_MCAST_START; lid += size) {
		if (lids_free(s, lid, lmc)) {
			s->cursor[lmc] = (uint16_t)lid;
			take_lids(s, lid, lmc);
			return lid;
		}
	}
	s->cursor[lmc] = LID_MCAST_START;
	return 0;
}

/* The ports that carry LIDs: a switch's port 0, every port of an end node. */
static unsigned first_lid_port(const struct sim_node *n)
{
	return n->type == NODE_TYPE_SWITCH ? 0 : 1;
}

static unsigned last_lid_port(const struct sim_node *n)
{
	return n->type == NODE_TYPE_SWITCH ? 0 : n->num_ports;
}

/* The LMC given to ports the file gives no LID (fresh) or that have none yet (resweep). */
static unsigned subnet_lmc(const struct sim_fabric *f, int fresh, int wanted)
{
	unsigned lmc = 0, num;
	size_t i;

	if (wanted >= 0)
		return (unsigned)wanted;
	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		if (n->type == NODE_TYPE_SWITCH)
			continue;
		for (num = first_lid_port(n); num <= last_lid_port(n); num++) {
			struct sim_port *p = &n->ports[num];

			if (p->file_lid && p->file_lmc > lmc)
				lmc = p->file_lmc;
			if (!fresh && p->lid && p->lmc > lmc)
				lmc = p->lmc;
		}
	}
	return lmc;
}

/*
 * Work out every port's LID.  Fresh: the file's LIDs, then the lowest free
 * ones in file order; resweep: the LIDs ports have, then the file's where
 * free, then the lowest free ones.  Nothing in the fabric changes here.
 */
static int sweep_lids(struct sweep *s, int fresh, unsigned lmc_default, struct umad_err *err)
{
	struct sim_fabric *f = s->f;
	size_t i, needed = 0;
	unsigned num;

	/* Reserved first: what ports keep, then what the file promises (even to ports not reached). */
	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		for (num = first_lid_port(n); num <= last_lid_port(n); num++) {
			struct sim_port *p = &n->ports[num];
			size_t id = port_id(&s->pi, p);

			if (!fresh && p->lid && lids_free(s, p->lid, p->lmc)) {
				s->lid[id] = p->lid;
				s->lmc[id] = p->lmc;
				take_lids(s, p->lid, p->lmc);
			}
		}
	}
	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		for (num = first_lid_port(n); num <= last_lid_port(n); num++) {
			struct sim_port *p = &n->ports[num];
			size_t id = port_id(&s->pi, p);

			if (!s->lid[id] && p->file_lid && lids_free(s, p->file_lid, p->file_lmc)) {
				take_lids(s, p->file_lid, p->file_lmc);
				if (s->reached[id]) {
					s->lid[id] = p->file_lid;
					s->lmc[id] = p->file_lmc;
				}
			}
		}
	}
	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		for (num = first_lid_port(n); num <= last_lid_port(n); num++) {
			struct sim_port *p = &n->ports[num];
			size_t id = port_id(&s->pi, p);
			unsigned lmc = n->type == NODE_TYPE_SWITCH ? 0 : lmc_default;

			if (s->lid[id] || !s->reached[id])
				continue;
			/* Keeping its file LID failed only when another port holds it: a new one. */
			s->lid[id] = (uint16_t)alloc_lids(s, lmc);
			s->lmc[id] = (uint8_t)lmc;
			if (!s->lid[id])
				needed++;
		}
	}
	if (needed)
		return umad_err_set(err, -ENOSPC,
				    "%zu more ports need LIDs than the unicast range (1..%u) holds at LMC %u",
				    needed, LID_MCAST_START - 1, lmc_default);
	return 0;
}

/* SLtoVL: SL i on data VL i, modulo the data VLs OperationalVLs allows (1, 2, 4, 8 or 15). */
static unsigned data_vls(uint8_t op_vls)
{
	return op_vls >= 5 ? 15 : op_vls ? 1u << (op_vls - 1) : 1;
}

static int set_vl_tables(struct sim_port *p, int with_vlarb)
{
	unsigned vls = data_vls(p->op_vls), sl, i, low;
	uint64_t sl2vl = 0;

	for (sl = 0; sl < SL2VL_SLS; sl++)
		sl2vl = sim_sl2vl_with(sl2vl, sl, sl % vls);
	sim_port_sl2vl_set_all(p, sl2vl);
	if (!with_vlarb)
		return 0;
	if (!p->vlarb) {
		p->vlarb = sim_mem_calloc(p, 4, sizeof(*p->vlarb));
		if (!p->vlarb)
			return -ENOMEM;
	} else {
		memset(p->vlarb, 0, 4 * sizeof(*p->vlarb));
	}
	/* Low-priority blocks 1 and 2 hold entries 0-63; the port uses the first vl_arb_low_cap. */
	low = vls < p->vl_arb_low_cap ? vls : p->vl_arb_low_cap;
	for (i = 0; i < low; i++) {
		p->vlarb[i / VL_ARB_PER_BLOCK][i % VL_ARB_PER_BLOCK][SIM_VLARB_VL] = (uint8_t)i;
		p->vlarb[i / VL_ARB_PER_BLOCK][i % VL_ARB_PER_BLOCK][SIM_VLARB_WEIGHT] = VLARB_WEIGHT;
	}
	p->vl_high_limit = 0;
	return 0;
}

/* The capabilities a port announces: a switch's are its port 0's. */
static uint32_t port_capmask(const struct sim_port *p)
{
	return p->node->type == NODE_TYPE_SWITCH ? p->node->ports[0].capmask : p->capmask;
}

/*
 * Every width and speed a port supports enabled, as opensm enables them by
 * default (FDR10 too, where MlnxExtPortInfo has it); extended speeds only on
 * a link whose two ends both have them.
 * The link keeps its active rate until it next trains (sma.c).
 */
static void enable_rates(struct sim_port *p, int up)
{
	p->width_enabled = p->width_supported;
	p->speed_enabled = p->speed_supported;
	p->mlnx_speed_enabled = p->mlnx_speed_supported;	/* FDR10 (opensm's fdr10 1) */
	if (p->num && up && (port_capmask(p) & PORT_CAP_IS_EXT_SPEEDS) &&
	    (port_capmask(p->peer) & PORT_CAP_IS_EXT_SPEEDS))
		p->ext_enabled = p->ext_supported;
}

/* The values an SM leaves in a port it reached (subnet_up.h). */
static int configure_port(struct sim_port *p, uint16_t sm_lid, const struct sim_subnet_options *opt,
			  int fresh)
{
	struct sim_node *n = p->node;
	struct sim_port *far = p->peer;
	int up = sim_port_link_up(p);

	if (p->num == 0 || up)
		p->state = PORT_STATE_ACTIVE;
	if (n->type != NODE_TYPE_SWITCH || p->num == 0) {
		p->m_key = 0;
		p->m_key_protect = 0;
		p->m_key_lease = 0;
		p->sm_lid = sm_lid;
		p->sm_sl = opt->sm_sl;
	}
	enable_rates(p, up);
	p->subnet_timeout = SUBNET_TIMEOUT;
	p->client_reregister = 0;
	p->local_phy_errors = PHY_ERRORS_THRESHOLD;
	p->overrun_errors = OVERRUN_THRESHOLD;
	if (up) {
		p->neighbor_mtu = p->mtu_cap < far->mtu_cap ? p->mtu_cap : far->mtu_cap;
		p->op_vls = p->vl_cap < far->vl_cap ? p->vl_cap : far->vl_cap;
	} else {
		p->op_vls = p->vl_cap;
	}
	if (n->type == NODE_TYPE_SWITCH && p->num) {
		int to_end_node = up && far->node->type != NODE_TYPE_SWITCH;

		p->hoq_life = to_end_node ? HOQ_LIFE_LEAF : HOQ_LIFE_INNER;
		p->vl_stall = VL_STALL_COUNT;
		p->partition_enforcement = to_end_node ? PARTITION_ENFORCE_IN_OUT : 0;
	}
	if (fresh) {
		/* The default P_Key table (sim_port_pkey). */
		sim_mem_free(p->pkeys);
		p->pkeys = NULL;
	}
	/* A base port 0 carries no data: no VL arbitration of its own. */
	return set_vl_tables(p, opt->vl_arb && (p->num || n->sw->enhanced_port0));
}

/*
 * Did an earlier sweep of this SM configure the port?  A port with a link
 * is Active once configured; a switch's base port 0 is Active from
 * power-on, and knows the SM's LID once configured.
 */
static int configured_before(const struct sim_port *p, uint16_t sm_lid)
{
	return p->state == PORT_STATE_ACTIVE && (p->num != 0 || p->sm_lid == sm_lid);
}

static int sweep_apply(struct sweep *s, struct sim_port *sm_port, int fresh,
		       const struct sim_subnet_options *opt)
{
	struct sim_fabric *f = s->f;
	struct sim_port *sm_mgmt = sm_port->node->type == NODE_TYPE_SWITCH ?
				   &sm_port->node->ports[0] : sm_port;
	uint16_t sm_lid;
	size_t i;
	unsigned num;
	int r;

	/* LIDs first: the index routing and the SMA use follows them. */
	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		for (num = first_lid_port(n); num <= last_lid_port(n); num++) {
			struct sim_port *p = &n->ports[num];
			size_t id = port_id(&s->pi, p);
			uint16_t old_lid = p->lid;
			uint8_t old_lmc = p->lmc;

			if (!s->reached[id] && !fresh)
				continue;	/* a resweep leaves what it does not reach alone */
			if (p->lid == s->lid[id] && p->lmc == s->lmc[id])
				continue;
			p->lid = s->lid[id];
			p->lmc = s->lmc[id];
			r = sim_fabric_lid_changed(f, p, old_lid, old_lmc);
			if (r < 0)
				return r;
		}
	}
	sm_lid = sm_mgmt->lid;
	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		for (num = 0; num <= n->num_ports; num++) {
			struct sim_port *p = &n->ports[num];

			if (!s->reached[port_id(&s->pi, p)])
				continue;
			/* A resweep configures what is new to it. */
			if (!fresh && configured_before(p, sm_lid))
				continue;
			r = configure_port(p, sm_lid, opt, fresh);
			if (r < 0)
				return r;
		}
		if (n->sw && s->reached[port_id(&s->pi, &n->ports[0])])
			n->sw->port_state_change = 0;
		if (fresh && n->sminfo.state == SM_STATE_MASTER && n != sm_port->node) {
			/* One master: an SM brought up elsewhere before is not in charge any more. */
			n->sminfo.state = SM_STATE_NOT_ACTIVE;
		}
	}
	if (fresh) {
		struct sim_sminfo *sm = &sm_port->node->sminfo;

		sm_mgmt->capmask |= PORT_CAP_IS_SM;
		sm->guid = sm_mgmt->guid;
		sm->sm_key = 0;
		sm->act_count = 0;
		sm->priority = opt->sm_priority;
		sm->state = SM_STATE_MASTER;
	}
	return 0;
}

static int sweep(struct sim_fabric *f, struct sim_port *sm_port, int fresh,
		 const struct sim_subnet_options *opt, struct umad_err *err)
{
	struct sweep s = { .f = f };
	int r;

	r = port_index_init(f, &s.pi);
	if (r < 0)
		return r;
	s.reached = calloc(s.pi.n_ports, 1);
	s.lid = calloc(s.pi.n_ports, sizeof(*s.lid));
	s.lmc = calloc(s.pi.n_ports, 1);
	s.used = calloc(LID_MCAST_START, 1);
	r = -ENOMEM;
	if (s.reached && s.lid && s.lmc && s.used)
		r = sweep_reach(&s, sm_port);
	if (r == 0)
		r = sweep_lids(&s, fresh, subnet_lmc(f, fresh, opt->lmc), err);
	if (r == 0)
		r = sweep_apply(&s, sm_port, fresh, opt);
	if (r == -ENOMEM)
		umad_err_set(err, r, "out of memory");
	free(s.pi.base);
	free(s.reached);
	free(s.lid);
	free(s.lmc);
	free(s.used);
	return r;
}

/* --- the switches as a graph ------------------------------------------------------ */

struct sw_link {
	uint8_t port;		/* the port of this switch */
	uint32_t to;		/* the switch at the other end */
};

struct sw_graph {
	size_t n;			/* switches */
	struct sim_node **sw;		/* in file order */
	uint32_t *of_node;		/* node index -> switch index (UINT32_MAX: not a switch) */
	uint32_t *link_start;		/* links of switch i: links[link_start[i] .. link_start[i+1]) */
	struct sw_link *links;		/* Active links to switches, in port order */
	uint32_t *nbr_start;		/* distinct neighbouring switches, for the hop counts */
	uint32_t *nbrs;
};

static void graph_free(struct sw_graph *g)
{
	free(g->sw);
	free(g->of_node);
	free(g->link_start);
	free(g->links);
	free(g->nbr_start);
	free(g->nbrs);
}

static int graph_build(const struct sim_fabric *f, struct sw_graph *g)
{
	size_t i, n_links = 0, k;
	unsigned p;
	uint32_t *last_seen = NULL;

	memset(g, 0, sizeof(*g));
	g->sw = malloc((f->n_switches + 1) * sizeof(*g->sw));
	g->of_node = malloc((f->n_nodes + 1) * sizeof(*g->of_node));
	g->link_start = malloc((f->n_switches + 1) * sizeof(*g->link_start));
	g->nbr_start = malloc((f->n_switches + 1) * sizeof(*g->nbr_start));
	if (!g->sw || !g->of_node || !g->link_start || !g->nbr_start)
		goto nomem;
	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		g->of_node[i] = UINT32_MAX;
		if (n->type != NODE_TYPE_SWITCH)
			continue;
		g->of_node[i] = (uint32_t)g->n;
		g->sw[g->n++] = n;
		for (p = 1; p <= n->num_ports; p++)
			if (link_active(&n->ports[p]) && n->ports[p].peer->node->type == NODE_TYPE_SWITCH)
				n_links++;
	}
	g->links = malloc((n_links + 1) * sizeof(*g->links));
	g->nbrs = malloc((n_links + 1) * sizeof(*g->nbrs));
	last_seen = malloc((g->n + 1) * sizeof(*last_seen));
	if (!g->links || !g->nbrs || !last_seen)
		goto nomem;
	for (i = 0; i < g->n; i++)
		last_seen[i] = UINT32_MAX;
	n_links = 0;
	k = 0;
	for (i = 0; i < g->n; i++) {
		struct sim_node *n = g->sw[i];

		g->link_start[i] = (uint32_t)n_links;
		g->nbr_start[i] = (uint32_t)k;
		for (p = 1; p <= n->num_ports; p++) {
			struct sim_port *port = &n->ports[p];
			uint32_t to;

			if (!link_active(port) || port->peer->node->type != NODE_TYPE_SWITCH)
				continue;
			to = g->of_node[port->peer->node->index];
			g->links[n_links].port = (uint8_t)p;
			g->links[n_links++].to = to;
			/* Parallel links: one neighbour for the hop counts. */
			if (last_seen[to] != i) {
				last_seen[to] = (uint32_t)i;
				g->nbrs[k++] = to;
			}
		}
	}
	g->link_start[g->n] = (uint32_t)n_links;
	g->nbr_start[g->n] = (uint32_t)k;
	free(last_seen);
	return 0;
nomem:
	free(last_seen);
	graph_free(g);
	return -ENOMEM;
}

/*
 * Hops between every two switches (HOPS_UNREACHABLE: none, or 255 and more),
 * row by row: hops[a * n + b].  A breadth-first search from every switch at
 * once: bit b of a switch's frontier word says that switch b is at the
 * current distance from it, and a switch's next frontier is the union of its
 * neighbours' frontiers less what it has seen.
 */
static uint8_t *hop_matrix(const struct sw_graph *g)
{
	size_t n = g->n, words = (n + 63) / 64, v, w;
	uint8_t *hops = malloc(n * n + 1);
	uint64_t *seen = calloc(n * words + 1, sizeof(uint64_t));
	uint64_t *front = calloc(n * words + 1, sizeof(uint64_t));
	uint64_t *next = calloc(n * words + 1, sizeof(uint64_t));
	uint8_t *active = calloc(n + 1, 1), *next_active = calloc(n + 1, 1);
	unsigned level;

	if (!hops || !seen || !front || !next || !active || !next_active) {
		free(hops);
		hops = NULL;
		goto out;
	}
	memset(hops, HOPS_UNREACHABLE, n * n);
	for (v = 0; v < n; v++) {
		seen[v * words + v / 64] = front[v * words + v / 64] = 1ull << (v % 64);
		hops[v * n + v] = 0;
		active[v] = 1;
	}
	for (level = 1; level < HOPS_UNREACHABLE; level++) {
		int any = 0;

		for (v = 0; v < n; v++) {
			uint64_t *nx = next + v * words, *sv = seen + v * words;
			uint32_t k;
			int got = 0;

			memset(nx, 0, words * sizeof(*nx));
			next_active[v] = 0;
			for (k = g->nbr_start[v]; k < g->nbr_start[v + 1]; k++) {
				const uint64_t *fu = front + (size_t)g->nbrs[k] * words;

				if (!active[g->nbrs[k]])
					continue;
				for (w = 0; w < words; w++)
					nx[w] |= fu[w];
				got = 1;
			}
			if (!got)
				continue;
			for (w = 0; w < words; w++) {
				uint64_t fresh = nx[w] & ~sv[w];

				nx[w] = fresh;
				sv[w] |= fresh;
				while (fresh) {
					unsigned b = (unsigned)__builtin_ctzll(fresh);

					hops[v * n + w * 64 + b] = (uint8_t)level;
					fresh &= fresh - 1;
					got = 2;
				}
			}
			if (got == 2) {
				next_active[v] = 1;
				any = 1;
			}
		}
		{
			uint64_t *t = front;
			uint8_t *ta = active;

			front = next;
			next = t;
			active = next_active;
			next_active = ta;
		}
		if (!any)
			break;
	}
out:
	free(seen);
	free(front);
	free(next);
	free(active);
	free(next_active);
	return hops;
}

/* --- unicast routing -------------------------------------------------------------- */

/* One LID behind a switch: the port that switch sends it out of. */
struct dest {
	uint16_t lid;
	uint8_t port;
};

struct dests {
	uint32_t *start;	/* LIDs behind switch t: list[start[t] .. start[t+1]) */
	struct dest *list;
	unsigned top;		/* the highest LID any port has */
};

/*
 * Where each LID leaves the switch fabric: a switch's own LIDs at its port
 * 0, an end port's at the switch port its Active link goes to.  LIDs of end
 * ports with no such link are behind no switch: no route.
 */
static int dests_build(const struct sim_fabric *f, const struct sw_graph *g, struct dests *d)
{
	size_t i, total = 0;
	unsigned num, pass;
	uint32_t *fill = NULL;

	d->top = 0;
	d->start = calloc(g->n + 1, sizeof(*d->start));
	d->list = NULL;
	if (!d->start)
		return -ENOMEM;
	/* Two passes: count per switch, then fill. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < f->n_nodes; i++) {
			struct sim_node *n = f->nodes[i];

			for (num = first_lid_port(n); num <= last_lid_port(n); num++) {
				struct sim_port *p = &n->ports[num];
				unsigned count = 1u << p->lmc, l;
				uint32_t t;
				uint8_t egress;

				/* An SM may have set anything: only unicast LIDs count. */
				if (!p->lid || p->lid >= LID_MCAST_START)
					continue;
				if (p->lid + count > LID_MCAST_START)
					count = LID_MCAST_START - p->lid;
				if (pass == 0 && p->lid + count - 1 > d->top)
					d->top = p->lid + count - 1;
				if (n->type == NODE_TYPE_SWITCH) {
					t = g->of_node[n->index];
					egress = 0;
				} else if (link_active(p) && p->peer->node->type == NODE_TYPE_SWITCH) {
					t = g->of_node[p->peer->node->index];
					egress = p->peer->num;
				} else {
					continue;
				}
				if (pass == 0) {
					d->start[t] += count;
					total += count;
					continue;
				}
				for (l = 0; l < count; l++) {
					d->list[fill[t]].lid = (uint16_t)(p->lid + l);
					d->list[fill[t]++].port = egress;
				}
			}
		}
		if (pass == 0) {
			uint32_t sum = 0, c;

			for (i = 0; i <= g->n; i++) {
				c = i < g->n ? d->start[i] : 0;
				d->start[i] = sum;
				sum += c;
			}
			d->list = malloc((total + 1) * sizeof(*d->list));
			fill = malloc((g->n + 1) * sizeof(*fill));
			if (!d->list || !fill) {
				free(fill);
				free(d->list);
				free(d->start);
				return -ENOMEM;
			}
			memcpy(fill, d->start, (g->n + 1) * sizeof(*fill));
		}
	}
	free(fill);
	return 0;
}

/* Where filling a set of candidate ports stands: the load being filled, and the next port. */
struct fill {
	uint32_t level;
	unsigned k;
};

static void fill_start(struct fill *st, const uint8_t *cand, unsigned c, const uint32_t *load)
{
	unsigned k;

	st->level = UINT32_MAX;
	st->k = 0;
	for (k = 0; k < c; k++)
		if (load[cand[k]] < st->level)
			st->level = load[cand[k]];
}

/*
 * Send the n LIDs out of the c candidate ports (in port order), each to the
 * one with the fewest LIDs so far, the first among equals: filled level by
 * level, which picks as that rule does LID after LID.  The state carries
 * over to the next call with the same candidates.
 */
static void spread(uint8_t *lft, const struct dest *d, size_t n, const uint8_t *cand, unsigned c,
		   uint32_t *load, struct fill *st)
{
	size_t i = 0;

	while (i < n) {
		for (; st->k < c && i < n; st->k++) {
			if (load[cand[st->k]] != st->level)
				continue;
			lft[d[i++].lid] = cand[st->k];
			load[cand[st->k]]++;
		}
		if (st->k == c) {
			st->k = 0;
			st->level++;
		}
	}
}

/*
 * Working space for routing one switch after another.  The destination
 * switches are put in classes by which neighbours are one hop nearer to
 * them (a bit per neighbour); all LIDs behind the switches of a class have
 * the same candidate ports and are spread over them together, class after
 * class in the order of their first switch.
 */
struct route_work {
	size_t words;			/* mask words per destination switch */
	const uint8_t **rows;		/* hop rows of the neighbours */
	uint32_t *nbr_of;		/* switch index -> neighbour number, for this switch */
	uint64_t *mask;			/* per destination switch */
	uint8_t *planes;		/* up to 64 neighbours: 8 bytes per destination switch */
	uint32_t *slot, slots;		/* hash of masks -> class + 1 */
	uint32_t *used;			/* the slot of each class */
	uint32_t *first, *last, *next;	/* the switches of each class, in order */
	uint8_t *cand;
	uint32_t *load;			/* LIDs per port of this switch so far */
};

static void route_work_free(struct route_work *w)
{
	free(w->rows);
	free(w->nbr_of);
	free(w->mask);
	free(w->planes);
	free(w->slot);
	free(w->used);
	free(w->first);
	free(w->last);
	free(w->next);
	free(w->cand);
	free(w->load);
}

static int route_work_init(struct route_work *w, const struct sw_graph *g)
{
	size_t s, most = 1;

	memset(w, 0, sizeof(*w));
	for (s = 0; s < g->n; s++)
		if (g->nbr_start[s + 1] - g->nbr_start[s] > most)
			most = g->nbr_start[s + 1] - g->nbr_start[s];
	w->words = (most + 63) / 64;
	for (w->slots = 16; w->slots < 2 * g->n; w->slots *= 2)
		;
	w->rows = malloc(most * sizeof(*w->rows));
	w->nbr_of = malloc(g->n * sizeof(*w->nbr_of));
	w->mask = malloc(g->n * w->words * sizeof(*w->mask));
	w->planes = malloc(8 * g->n);
	w->slot = calloc(w->slots, sizeof(*w->slot));
	w->used = malloc(g->n * sizeof(*w->used));
	w->first = malloc(g->n * sizeof(*w->first));
	w->last = malloc(g->n * sizeof(*w->last));
	w->next = malloc(g->n * sizeof(*w->next));
	w->cand = malloc(SIM_MAX_PORTS + 1);
	w->load = malloc((SIM_MAX_PORTS + 1) * sizeof(*w->load));
	if (!w->rows || !w->nbr_of || !w->mask || !w->planes || !w->slot || !w->used || !w->first || !w->last || !w->next ||
	    !w->cand || !w->load) {
		route_work_free(w);
		return -ENOMEM;
	}
	return 0;
}

static uint32_t mask_hash(const uint64_t *m, size_t words)
{
	uint64_t h = 0;
	size_t i;

	for (i = 0; i < words; i++)
		h = (h ^ m[i]) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32);
}

/* The class of destination switch t (a new one if its mask is new); n_classes grows. */
static uint32_t class_of(struct route_work *w, size_t t, uint32_t *n_classes)
{
	const uint64_t *m = w->mask + t * w->words;
	uint32_t h = mask_hash(m, w->words) & (w->slots - 1), c;

	for (; w->slot[h]; h = (h + 1) & (w->slots - 1)) {
		const uint64_t *key;

		c = w->slot[h] - 1;
		key = w->mask + (size_t)w->first[c] * w->words;
		if (w->words == 1 ? *key == *m : !memcmp(key, m, w->words * sizeof(*m))) {
			w->next[w->last[c]] = (uint32_t)t;
			w->last[c] = (uint32_t)t;
			w->next[t] = UINT32_MAX;
			return c;
		}
	}
	c = (*n_classes)++;
	w->slot[h] = c + 1;
	w->used[c] = h;
	w->first[c] = w->last[c] = (uint32_t)t;
	w->next[t] = UINT32_MAX;
	return c;
}

/* 16 bytes at once (GCC and clang vector extensions; plain code where there is no SIMD). */
typedef uint8_t bytes16 __attribute__((vector_size(16)));

/*
 * Set `bit` in plane[t] where the neighbour's hops to t (r) are one less
 * than ours (row): the innermost loop of routing, run switches x neighbours
 * x switches times.
 */
static void mark_nearer(uint8_t *plane, const uint8_t *r, const uint8_t *row, size_t n,
			uint8_t bit)
{
	size_t t;

	for (t = 0; t + 16 <= n; t += 16) {
		bytes16 a, b, p;

		memcpy(&a, r + t, 16);
		memcpy(&b, row + t, 16);
		memcpy(&p, plane + t, 16);
		p |= (bytes16)(a + 1 == b) & bit;
		memcpy(plane + t, &p, 16);
	}
	for (; t < n; t++)
		plane[t] |= (uint8_t)(r[t] + 1) == row[t] ? bit : 0;
}

static int route_switch(const struct sw_graph *g, const struct dests *d, const uint8_t *hops,
			size_t s, struct route_work *w)
{
	struct sim_switch *sw = g->sw[s]->sw;
	const uint8_t *row = hops + s * g->n;
	uint32_t first = g->link_start[s], deg = g->link_start[s + 1] - first, k;
	uint32_t nn = g->nbr_start[s + 1] - g->nbr_start[s], j, n_classes = 0, c;
	uint32_t len = (d->top + LFT_PER_BLOCK) / LFT_PER_BLOCK * LFT_PER_BLOCK;
	size_t t, i;

	/* The table exactly as long as LinearFDBTop needs (one allocated whole is cut down). */
	if (sw->lft_len != len) {
		uint8_t *lft = sim_switch_lft_room(sw, len);

		if (!lft)
			return -ENOMEM;
		sw->lft = lft;
		sw->lft_len = len;
	}
	memset(sw->lft, SIM_LFT_NO_ROUTE, len);
	sw->lft_top = (uint16_t)d->top;
	memset(w->load, 0, (SIM_MAX_PORTS + 1) * sizeof(*w->load));

	/* Bit j of t's mask: neighbour j is one hop nearer to t than this switch. */
	for (j = 0; j < nn; j++)
		w->nbr_of[g->nbrs[g->nbr_start[s] + j]] = j;
	if (w->words == 1) {
		/* Up to 64 neighbours: a byte per 8 of them, which the compiler vectorises. */
		unsigned planes = (nn + 7) / 8, q;

		memset(w->planes, 0, (size_t)planes * g->n);
		for (j = 0; j < nn; j++) {
			const uint8_t *r = hops + (size_t)g->nbrs[g->nbr_start[s] + j] * g->n;
			mark_nearer(w->planes + (size_t)(j / 8) * g->n, r, row, g->n,
				    (uint8_t)(1u << (j % 8)));
		}
		for (t = 0; t < g->n; t++) {
			uint64_t m = 0;

			for (q = 0; q < planes; q++)
				m |= (uint64_t)w->planes[(size_t)q * g->n + t] << (8 * q);
			w->mask[t] = m;
		}
	} else {
		memset(w->mask, 0, g->n * w->words * sizeof(*w->mask));
		for (j = 0; j < nn; j++) {
			const uint8_t *r = hops + (size_t)g->nbrs[g->nbr_start[s] + j] * g->n;
			uint64_t *m = w->mask + j / 64;

			for (t = 0; t < g->n; t++)
				m[t * w->words] |= (uint64_t)(r[t] + 1u == row[t]) << (j % 64);
		}
	}
	for (t = 0; t < g->n; t++) {
		const struct dest *dl = d->list + d->start[t];
		size_t n_dl = d->start[t + 1] - d->start[t];

		if (!n_dl || row[t] == HOPS_UNREACHABLE)
			continue;
		if (t == s) {
			for (i = 0; i < n_dl; i++)
				sw->lft[dl[i].lid] = dl[i].port;
			continue;
		}
		class_of(w, t, &n_classes);
	}
	for (c = 0; c < n_classes; c++) {
		const uint64_t *m = w->mask + (size_t)w->first[c] * w->words;
		unsigned n_cand = 0;
		struct fill st;

		/* The candidates in port order: parallel links to one neighbour all count. */
		for (k = 0; k < deg; k++) {
			j = w->nbr_of[g->links[first + k].to];
			if (m[j / 64] >> (j % 64) & 1)
				w->cand[n_cand++] = g->links[first + k].port;
		}
		if (!n_cand)
			continue;
		fill_start(&st, w->cand, n_cand, w->load);
		for (t = w->first[c]; t != UINT32_MAX; t = w->next[t])
			spread(sw->lft, d->list + d->start[t], d->start[t + 1] - d->start[t], w->cand,
			       n_cand, w->load, &st);
	}
	/* Empty slots for the next switch: only those this one used. */
	for (c = 0; c < n_classes; c++)
		w->slot[w->used[c]] = 0;
	return 0;
}

static int route_unicast(struct sim_fabric *f)
{
	struct sw_graph g;
	struct dests d = { 0 };
	struct route_work w;
	uint8_t *hops = NULL;
	size_t s;
	int r;

	if (!f->n_switches)
		return 0;
	r = graph_build(f, &g);
	if (r < 0)
		return r;
	r = dests_build(f, &g, &d);
	if (r < 0)
		goto out_graph;
	r = route_work_init(&w, &g);
	if (r < 0)
		goto out_dests;
	hops = hop_matrix(&g);
	r = -ENOMEM;
	for (s = 0; hops && s < g.n; s++) {
		r = route_switch(&g, &d, hops, s, &w);
		if (r < 0)
			break;
	}
	free(hops);
	route_work_free(&w);
out_dests:
	free(d.start);
	free(d.list);
out_graph:
	graph_free(&g);
	return r;
}

/* --- the entry points -------------------------------------------------------------- */

int sim_subnet_bring_up_with(struct sim_fabric *f, struct sim_port *sm_port,
			     const struct sim_subnet_options *opt, struct umad_err *err)
{
	static const struct sim_subnet_options defaults = { .lmc = -1 };
	int r;

	if (!opt)
		opt = &defaults;
	if (sm_port->node->type == NODE_TYPE_SWITCH ? sm_port->num != 0 : sm_port->num == 0)
		return umad_err_set(err, -EINVAL,
				    "the SM port must be a CA or router port, or a switch's port 0");
	if (opt->lmc > (int)LMC_MAX || opt->sm_sl > mad_field_max(PI_MASTER_SM_SL) ||
	    opt->sm_priority > mad_field_max(SMI_PRIORITY))
		return umad_err_set(err, -EINVAL, "LMC 0..%u, SM SL and priority 0..%u", LMC_MAX,
				    (unsigned)mad_field_max(PI_MASTER_SM_SL));
	r = sweep(f, sm_port, 1, opt, err);
	if (r == 0 && (r = route_unicast(f)) == -ENOMEM)
		umad_err_set(err, r, "out of memory");
	return r;
}

int sim_subnet_bring_up(struct sim_fabric *f, struct sim_port *sm_port, struct umad_err *err)
{
	return sim_subnet_bring_up_with(f, sm_port, NULL, err);
}

int sim_subnet_reroute(struct sim_fabric *f)
{
	struct sim_port *sm = sim_subnet_master(f);
	int r = 0;

	if (sm) {
		struct sim_subnet_options opt = {
			.lmc = -1,
			.sm_sl = sm->node->type == NODE_TYPE_SWITCH ? sm->node->ports[0].sm_sl : sm->sm_sl,
			.sm_priority = sm->node->sminfo.priority,
		};

		r = sweep(f, sm, 0, &opt, NULL);
	}
	if (r == 0)
		r = route_unicast(f);
	return r;
}

/* --- multicast ------------------------------------------------------------------------ */

/* A port in a switch's MFT port mask. */
static void mask_add(uint16_t *mask, unsigned port)
{
	mask[port / 16] |= (uint16_t)(1u << (port % 16));
}

/* Write each switch's entry for mlid (NULL masks: clear it everywhere). */
static int mcast_write(struct sim_fabric *f, const struct sw_graph *g, uint16_t mlid,
		       uint16_t (*masks)[SIM_MFT_POSITIONS])
{
	unsigned entry = mlid - LID_MCAST_START;
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		struct sim_switch *sw = f->nodes[i]->sw;
		const uint16_t *mask;
		unsigned w, any = 0;

		if (!sw)
			continue;
		mask = masks ? masks[g->of_node[i]] : NULL;
		for (w = 0; mask && w < SIM_MFT_POSITIONS; w++)
			any |= mask[w];
		if (!any) {
			if (sw->mft)
				memset(sw->mft[entry], 0, sizeof(sw->mft[entry]));
			continue;
		}
		if (!sw->mft) {
			sw->mft = sim_mem_calloc(sw, SIM_MFT_CAP, sizeof(*sw->mft));
			if (!sw->mft)
				return -ENOMEM;
		}
		memcpy(sw->mft[entry], mask, sizeof(sw->mft[entry]));
		if (sw->mft_top < mlid)
			sw->mft_top = mlid;
	}
	return 0;
}

int sim_subnet_route_mcast(struct sim_fabric *f, uint16_t mlid, struct sim_port *const *members,
			   size_t n)
{
	struct sw_graph g;
	uint32_t *attach = NULL, *parent = NULL, *queue = NULL, root = UINT32_MAX;
	uint16_t (*masks)[SIM_MFT_POSITIONS] = NULL;
	uint8_t *in_tree = NULL, *up_port = NULL;
	size_t i, head = 0, tail = 0;
	int r;

	if (mlid < LID_MCAST_START || mlid >= LID_MCAST_START + SIM_MFT_CAP)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct sim_port *m = members[i];

		if ((m->node->type == NODE_TYPE_SWITCH) != (m->num == 0))
			return -EINVAL;
	}
	if (!n)
		return mcast_write(f, NULL, mlid, NULL);
	r = graph_build(f, &g);
	if (r < 0)
		return r;
	r = -ENOMEM;
	attach = malloc(n * sizeof(*attach));
	parent = malloc((g.n + 1) * sizeof(*parent));
	up_port = malloc(g.n + 1);
	queue = malloc((g.n + 1) * sizeof(*queue));
	in_tree = calloc(g.n + 1, 1);
	masks = calloc(g.n + 1, sizeof(*masks));
	if (!attach || !parent || !up_port || !queue || !in_tree || !masks)
		goto out;
	/* The switch each member hangs off. */
	r = -ENETUNREACH;
	for (i = 0; i < n; i++) {
		const struct sim_port *m = members[i];

		if (m->node->type == NODE_TYPE_SWITCH)
			attach[i] = g.of_node[m->node->index];
		else if (link_active(m) && m->peer->node->type == NODE_TYPE_SWITCH)
			attach[i] = g.of_node[m->peer->node->index];
		else
			goto out;
		if (attach[i] < root)
			root = attach[i];
	}
	/*
	 * Shortest-path tree from the root, links taken in port order: v's
	 * parent, and up_port[v] the port of v that leads to it.
	 */
	queue[tail++] = root;
	in_tree[root] = 1;
	while (head < tail) {
		uint32_t v = queue[head++], k;

		for (k = g.link_start[v]; k < g.link_start[v + 1]; k++) {
			uint32_t to = g.links[k].to;

			if (in_tree[to])
				continue;
			in_tree[to] = 1;
			parent[to] = v;
			up_port[to] = g.sw[v]->ports[g.links[k].port].peer->num;
			queue[tail++] = to;
		}
	}
	for (i = 0; i < n; i++)
		if (!in_tree[attach[i]])
			goto out;
	/* Each member's branch, up to where the tree already reaches. */
	memset(in_tree, 0, g.n);
	in_tree[root] = 1;
	for (i = 0; i < n; i++) {
		const struct sim_port *m = members[i];
		uint32_t v = attach[i];

		mask_add(masks[v], m->node->type == NODE_TYPE_SWITCH ? 0 : m->peer->num);
		while (!in_tree[v]) {
			in_tree[v] = 1;
			mask_add(masks[v], up_port[v]);
			mask_add(masks[parent[v]], g.sw[v]->ports[up_port[v]].peer->num);
			v = parent[v];
		}
	}
	r = mcast_write(f, &g, mlid, masks);
out:
	free(attach);
	free(parent);
	free(up_port);
	free(queue);
	free(in_tree);
	free(masks);
	graph_free(&g);
	return r;
}

/* Where the built-in SM sits: the first CA port with a live link, else a switch's port 0. */
struct sim_port *sim_subnet_sm_site(const struct sim_fabric *f)
{
	size_t i;
	unsigned p;

	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		if (n->type != NODE_TYPE_CA)
			continue;
		for (p = 1; p <= n->num_ports; p++)
			if (sim_port_link_up(&n->ports[p]))
				return &n->ports[p];
	}
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->type == NODE_TYPE_SWITCH)
			return &f->nodes[i]->ports[0];
	return NULL;
}
