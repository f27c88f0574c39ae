/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Faults steered from outside (fault.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libumad/mad_wire.h"
#include "simfabric/fault.h"
#include "simfabric/pma.h"
#include "simfabric/port_state.h"

/* A switch whose port changed state tells its SM (Trap 128, its own LID in the details). */
static void link_state_trap(struct sim_net *net, struct sim_node *n)
{
	uint8_t details[NOTICE_DETAILS_SIZE] = { 0 };

	if (n->type != NODE_TYPE_SWITCH)
		return;
	put_be16(details + TRAP128_OFF_LID, n->ports[0].lid);
	sim_net_trap(net, n, 0, TRAP_LINK_STATE_CHANGE, details);
}

static int set_link(struct sim_port *p, int up)
{
	if (p->num == 0 || p->num > p->node->num_ports)
		return -EINVAL;
	if (!p->peer)
		return -ENOTCONN;
	if (up) {
		p->failed = 0;
		p->peer->failed = 0;
		sim_port_link_fail(p, 0);
	} else {
		sim_port_link_fail(p, 1);
	}
	return 0;
}

int sim_fault_link(struct sim_net *net, struct sim_port *p, int up)
{
	int r = set_link(p, up);

	if (r < 0)
		return r;
	link_state_trap(net, p->node);
	if (p->peer->node != p->node)
		link_state_trap(net, p->peer->node);
	return 0;
}

int sim_fault_node(struct sim_net *net, struct sim_node *n, int up)
{
	unsigned p;

	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].peer)
			set_link(&n->ports[p], up);
	/* The neighbours' switches notice; the node itself only once it is back. */
	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].peer && n->ports[p].peer->node != n)
			link_state_trap(net, n->ports[p].peer->node);
	if (up)
		link_state_trap(net, n);
	return 0;
}

/* The port's fault record, made on first need; NULL on ENOMEM. */
static struct sim_link_fault *port_fault(struct sim_port *p)
{
	if (!p->fault)
		p->fault = calloc(1, sizeof(*p->fault));
	return p->fault;
}

/* A record with neither drops nor a delay goes: the route's per-hop test stays one pointer. */
static void port_fault_tidy(struct sim_port *p)
{
	if (p->fault && !p->fault->drop_threshold && !p->fault->delay_ns) {
		free(p->fault);
		p->fault = NULL;
	}
}

int sim_fault_drop(struct sim_port *p, double rate, uint64_t seed)
{
	struct sim_link_fault *lf;

	if (!(rate >= 0.0 && rate <= 1.0))
		return -EINVAL;
	if (rate == 0.0) {
		if (p->fault)
			p->fault->drop_threshold = 0;
		port_fault_tidy(p);
		return 0;
	}
	lf = port_fault(p);
	if (!lf)
		return -ENOMEM;
	/* A threshold of 2^32 - 1 drops all but one draw in 2^32: rate 1 drops everything. */
	lf->drop_threshold = rate >= 1.0 ? UINT32_MAX : (uint32_t)(rate * 4294967296.0);
	lf->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	return 0;
}

int sim_fault_delay(struct sim_net *net, struct sim_port *p, unsigned delay_us)
{
	struct sim_link_fault *lf;

	if (p->num == 0 || p->num > p->node->num_ports)
		return -EINVAL;	/* a switch's own port leads to no link */
	if (!delay_us) {
		if (p->fault)
			p->fault->delay_ns = 0;
		port_fault_tidy(p);
		return 0;
	}
	lf = port_fault(p);
	if (!lf)
		return -ENOMEM;
	lf->delay_ns = (uint64_t)delay_us * 1000u;
	lf->meter = &net->delay_ns;
	return 0;
}

int sim_fault_counter(struct sim_net *net, struct sim_port *p, const char *counter, uint64_t n)
{
	int c = sim_pma_counter_by_name(counter);
	uint8_t details[NOTICE_DETAILS_SIZE] = { 0 };
	struct sim_port *m = sim_mgmt_port(p->node, p->num);

	int r;

	if (c < 0)
		return -EINVAL;
	r = sim_pma_counter_add(p, (enum sim_pma_counter)c, n);
	if (r < 0)
		return r;
	/* Past their thresholds these errors are trapped too (the thresholds are zero here). */
	put_be16(details + TRAP129_OFF_LID, m->lid);
	details[TRAP129_OFF_PORT] = (uint8_t)p->num;
	if (c == SIM_PMA_LOCAL_LINK_INTEGRITY_ERRORS)
		sim_net_trap(net, p->node, p->num, TRAP_LINK_INTEGRITY, details);
	else if (c == SIM_PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS)
		sim_net_trap(net, p->node, p->num, TRAP_BUFFER_OVERRUN, details);
	return 0;
}

int sim_fault_trap(struct sim_net *net, struct sim_port *p, unsigned number)
{
	uint8_t details[NOTICE_DETAILS_SIZE] = { 0 };
	struct sim_port *m = sim_mgmt_port(p->node, p->num);

	switch (number) {
	case TRAP_LINK_STATE_CHANGE:
		if (p->node->type != NODE_TYPE_SWITCH)
			return -EINVAL;	/* only switches send it */
		put_be16(details + TRAP128_OFF_LID, m->lid);
		break;
	case TRAP_LINK_INTEGRITY:
	case TRAP_BUFFER_OVERRUN:
	case TRAP_FLOW_CONTROL:
		put_be16(details + TRAP129_OFF_LID, m->lid);
		details[TRAP129_OFF_PORT] = (uint8_t)p->num;
		break;
	case TRAP_CAPABILITY_CHANGE:
		sim_net_trap144_details(p, details);
		break;
	case TRAP_SYS_IMAGE_GUID:
		put_be16(details + TRAP145_OFF_LID, m->lid);
		put_be64(details + TRAP145_OFF_SYS_GUID, p->node->sys_guid);
		break;
	default:
		return -EINVAL;
	}
	return sim_net_trap(net, p->node, p->num, number, details);
}

int sim_fault_port(struct sim_fabric *f, const char *node, unsigned port, int any_port,
		   struct sim_port **p)
{
	struct sim_node *n;

	if (!node)
		return -EINVAL;
	n = sim_fabric_find(f, node);
	if (!n)
		return -ENOENT;
	if (port > n->num_ports || (port == 0 && (!any_port || n->type != NODE_TYPE_SWITCH)))
		return -EINVAL;
	*p = &n->ports[port];
	return 0;
}
