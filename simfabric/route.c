/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Routing: LID-routed packets follow the switches' linear forwarding
 * tables; directed-route SMPs follow their initial path out and their
 * return path back, with the hop pointer handled as the spec's C14-9 and
 * C14-13 rules say, including LID-routed parts at either end (DrSLID and
 * DrDLID not permissive).  A link that is down loses the packet.
 */
#include "config.h"

#include "base/mad_wire.h"
#include "simfabric/route.h"

/* The port whose LID range addresses (node, port): port 0 for a switch. */
static const struct sim_port *addressed_port(const struct sim_node *n, unsigned port)
{
	return n->type == NODE_TYPE_SWITCH ? &n->ports[0] : &n->ports[port];
}

static int lid_in_range(const struct sim_port *p, uint16_t lid)
{
	return p->lid && lid >= p->lid && (unsigned)lid < p->lid + (1u << p->lmc);
}

int sim_route_hop(struct sim_node **node, unsigned *port, unsigned egress)
{
	struct sim_node *n = *node;
	struct sim_port *out;

	if (egress == 0 || egress > n->num_ports)
		return -1;
	out = &n->ports[egress];
	if (!sim_port_link_up(out))
		return -1;
	if (out->fault && sim_link_fault_drops(out->fault))
		return -1;	/* lost on the wire, as the fault API asked */
	/* Counted as the PMA counts them: packets, and data in 4-byte words. */
	out->xmit_pkts++;
	out->xmit_data += SIM_MAD_PACKET_WORDS;
	out->peer->rcv_pkts++;
	out->peer->rcv_data += SIM_MAD_PACKET_WORDS;
	*node = out->peer->node;
	*port = out->peer->num;
	return 0;
}

int sim_route_lid(struct sim_fabric *f, struct sim_node *node, unsigned port, uint16_t dlid,
		  struct sim_hop_end *end)
{
	unsigned at = port, hops;

	(void)f;
	if (dlid == LID_PERMISSIVE) {
		/* The permissive LID is consumed by the first node that sees it. */
		if (node->type != NODE_TYPE_SWITCH && sim_route_hop(&node, &at, port) < 0)
			return -1;
		end->node = node;
		end->port = at;
		return 0;
	}
	for (hops = 0; hops <= UMAD_SMP_MAX_HOPS; hops++) {
		unsigned egress;

		if (lid_in_range(addressed_port(node, at), dlid)) {
			end->node = node;
			end->port = at;
			return 0;
		}
		if (node->type == NODE_TYPE_SWITCH) {
			if (dlid > node->sw->lft_top)
				return -1;
			egress = sim_switch_lft_get(node->sw, dlid);
			if (egress == SIM_LFT_NO_ROUTE || egress == 0)
				return -1;
		} else {
			if (hops > 0)
				return -1;	/* end nodes do not forward */
			egress = port;
		}
		if (sim_route_hop(&node, &at, egress) < 0)
			return -1;
	}
	return -1;	/* a forwarding loop */
}

/*
 * Where a directed part ends, a LID-routed part may follow (lid not
 * permissive): from a switch, or from the originator itself when there were
 * no hops.  *end is where the packet arrives; 0 or -1 when it is lost.
 */
static int lid_routed_end(struct sim_fabric *f, struct sim_node *node, unsigned port,
			  uint8_t hop_cnt, uint16_t lid, struct sim_hop_end *end)
{
	if (lid != LID_PERMISSIVE) {
		if (node->type != NODE_TYPE_SWITCH && hop_cnt)
			return -1;
		return sim_route_lid(f, node, port, lid, end);
	}
	end->node = node;
	end->port = port;
	return 0;
}

int sim_dr_outgoing(struct sim_fabric *f, struct sim_port *from, uint16_t dlid, uint8_t *mad,
		    struct sim_hop_end *end, struct sim_hop_end *dr_end)
{
	uint8_t hop_cnt = mad[SMP_OFF_HOP_CNT];
	uint8_t *hop_ptr = &mad[SMP_OFF_HOP_PTR];
	const uint8_t *initial = mad + SMP_OFF_INITIAL_PATH;
	uint8_t *ret = mad + SMP_OFF_RETURN_PATH;
	uint16_t dr_slid = get_be16(mad + SMP_OFF_DR_SLID);
	uint16_t dr_dlid = get_be16(mad + SMP_OFF_DR_DLID);
	struct sim_node *node = from->node;
	unsigned port = from->num;
	struct sim_hop_end e;

	/* C14-6: at most 63 hops; a request travels with D = 0 and starts at hop 0. */
	if (hop_cnt >= UMAD_SMP_MAX_HOPS || (mad_status(mad) & UMAD_SMP_DIRECTION) || *hop_ptr != 0)
		return -1;
	if (dr_slid != LID_PERMISSIVE) {
		/* The first part is LID-routed to where the directed part starts. */
		if (sim_route_lid(f, node, port, dlid, &e) < 0)
			return -1;
		node = e.node;
		port = e.port;
	}
	if (hop_cnt == 0) {
		*hop_ptr = 1;
	} else {
		unsigned egress = initial[1];

		/* C14-9:1: an end node sends out of the port it was asked to. */
		if (node->type != NODE_TYPE_SWITCH && (dr_slid != LID_PERMISSIVE || egress != port))
			return -1;
		*hop_ptr = 1;
		if (sim_route_hop(&node, &port, egress) < 0)
			return -1;
		/* C14-9:2: intermediate hops are switches; each records where it came in. */
		while (*hop_ptr < hop_cnt) {
			if (node->type != NODE_TYPE_SWITCH)
				return -1;
			ret[*hop_ptr] = (uint8_t)port;
			(*hop_ptr)++;
			if (sim_route_hop(&node, &port, initial[*hop_ptr]) < 0)
				return -1;
		}
		/* C14-9:3: the end of the directed part. */
		ret[*hop_ptr] = (uint8_t)port;
		(*hop_ptr)++;
	}
	dr_end->node = node;
	dr_end->port = port;
	/* The last part is LID-routed if DrDLID says so. */
	return lid_routed_end(f, node, port, hop_cnt, dr_dlid, end);
}

int sim_dr_return(struct sim_fabric *f, const struct sim_hop_end *responder,
		  const struct sim_hop_end *dr_end, uint8_t *mad, struct sim_hop_end *end)
{
	uint8_t hop_cnt = mad[SMP_OFF_HOP_CNT];
	uint8_t *hop_ptr = &mad[SMP_OFF_HOP_PTR];
	const uint8_t *ret = mad + SMP_OFF_RETURN_PATH;
	uint16_t dr_slid = get_be16(mad + SMP_OFF_DR_SLID);
	uint16_t dr_dlid = get_be16(mad + SMP_OFF_DR_DLID);
	struct sim_node *node = responder->node;
	unsigned port = responder->port;
	struct sim_hop_end e;

	if (dr_dlid != LID_PERMISSIVE) {
		/* Back over the LID-routed tail to the end of the directed part (the
		 * tail's source LID: a switch's, or the originator's own for zero hops). */
		uint16_t lid = addressed_port(dr_end->node, dr_end->port)->lid;

		if (!lid || sim_route_lid(f, node, port, lid, &e) < 0 || e.node != dr_end->node)
			return -1;
		node = e.node;
		port = e.port;
	}
	if (*hop_ptr != hop_cnt + 1)
		return -1;
	/* C14-13:1 and :2: back along the return path, switches only in between. */
	while (*hop_ptr > 1) {
		if (*hop_ptr <= hop_cnt && node->type != NODE_TYPE_SWITCH)
			return -1;
		(*hop_ptr)--;
		if (sim_route_hop(&node, &port, ret[*hop_ptr]) < 0)
			return -1;
	}
	/* C14-13:3: the start of the directed part; the rest is LID-routed if DrSLID says so. */
	*hop_ptr = 0;
	return lid_routed_end(f, node, port, hop_cnt, dr_slid, end);
}

int sim_smp_round_trip(struct sim_fabric *f, struct sim_port *from, uint16_t dlid, uint8_t *mad,
		       uint16_t *resp_slid, const struct sim_sma_hooks *hooks)
{
	struct sim_hop_end dst, back;
	uint16_t host_lid;

	if (mad_class(mad) == UMAD_CLASS_SUBN_DIRECTED_ROUTE) {
		struct sim_hop_end dr_end;

		if (sim_dr_outgoing(f, from, dlid, mad, &dst, &dr_end) < 0 ||
		    !sim_sma_process(f, dst.node, dst.port, mad, hooks) ||
		    sim_dr_return(f, &dst, &dr_end, mad, &back) < 0 || back.node != from->node)
			return 0;
		*resp_slid = LID_PERMISSIVE;
		return 1;
	}
	if (sim_route_lid(f, from->node, from->num, dlid, &dst) < 0 ||
	    !sim_sma_process(f, dst.node, dst.port, mad, hooks))
		return 0;
	host_lid = addressed_port(from->node, from->num)->lid;
	if (!host_lid || sim_route_lid(f, dst.node, dst.port, host_lid, &back) < 0 ||
	    back.node != from->node)
		return 0;
	*resp_slid = addressed_port(dst.node, dst.port)->lid;
	return 1;
}

int sim_route_walk(const struct sim_fabric *f, struct sim_node *node, unsigned port,
		   uint16_t dlid,
		   void (*visit)(void *arg, const struct sim_port *out, const struct sim_port *in),
		   void *arg, struct sim_hop_end *end)
{
	unsigned at = port;
	int hops;

	(void)f;
	if (dlid == 0 || dlid >= LID_MCAST_START)
		return -1;
	for (hops = 0; hops <= UMAD_SMP_MAX_HOPS; hops++) {
		const struct sim_port *out;
		unsigned egress;

		if (lid_in_range(addressed_port(node, at), dlid)) {
			end->node = node;
			end->port = at;
			return hops;
		}
		if (node->type == NODE_TYPE_SWITCH) {
			if (dlid > node->sw->lft_top)
				return -1;
			egress = sim_switch_lft_get(node->sw, dlid);
		} else {
			if (hops > 0)
				return -1;	/* end nodes do not forward */
			egress = port;
		}
		if (egress == 0 || egress > node->num_ports)
			return -1;
		out = &node->ports[egress];
		if (!sim_port_link_up(out))
			return -1;
		if (visit)
			visit(arg, out, out->peer);
		node = out->peer->node;
		at = out->peer->num;
	}
	return -1;	/* a forwarding loop */
}
