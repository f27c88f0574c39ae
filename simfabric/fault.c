/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Faults steered from outside (fault.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libumad/mad_wire.h"
#include "simfabric/arena.h"
#include "simfabric/describe.h"
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

_Thread_local uint64_t sim_trip_delay_ns;

/* The port's fault record, made on first need; NULL on ENOMEM. */
static struct sim_link_fault *port_fault(struct sim_port *p)
{
	if (!p->fault)
		p->fault = sim_mem_calloc(p, 1, sizeof(*p->fault));
	return p->fault;
}

/* A record with neither drops nor a delay goes: the route's per-hop test stays one pointer. */
static void port_fault_tidy(struct sim_port *p)
{
	if (p->fault && !p->fault->drop_threshold && !p->fault->delay_ns) {
		sim_mem_free(p->fault);
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

int sim_fault_delay(struct sim_port *p, unsigned delay_us)
{
	struct sim_link_fault *lf;

	if (p->num == 0 || p->num > p->node->num_ports)
		return -EINVAL;	/* a switch's own port leads to no link */
	if (delay_us > UMAD_SIM_MAX_DELAY_US)
		return -EINVAL;
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

/* The details trap `number` from port p carries: 0, or -EINVAL for a trap p may not send. */
static int trap_details(struct sim_port *p, unsigned number, uint8_t *details)
{
	struct sim_port *m = sim_mgmt_port(p->node, p->num);

	memset(details, 0, NOTICE_DETAILS_SIZE);
	switch (number) {
	case TRAP_LINK_STATE_CHANGE:
		if (p->node->type != NODE_TYPE_SWITCH)
			return -EINVAL;	/* only switches send it */
		put_be16(details + TRAP128_OFF_LID, m->lid);
		return 0;
	case TRAP_LINK_INTEGRITY:
	case TRAP_BUFFER_OVERRUN:
	case TRAP_FLOW_CONTROL:
		put_be16(details + TRAP129_OFF_LID, m->lid);
		details[TRAP129_OFF_PORT] = (uint8_t)p->num;
		return 0;
	case TRAP_CAPABILITY_CHANGE:
		sim_net_trap144_details(p, details);
		return 0;
	case TRAP_SYS_IMAGE_GUID:
		put_be16(details + TRAP145_OFF_LID, m->lid);
		put_be64(details + TRAP145_OFF_SYS_GUID, p->node->sys_guid);
		return 0;
	default:
		return -EINVAL;
	}
}

int sim_fault_trap(struct sim_net *net, struct sim_port *p, unsigned number)
{
	uint8_t details[NOTICE_DETAILS_SIZE];
	int r = trap_details(p, number, details);

	if (r < 0)
		return r;
	return sim_net_trap(net, p->node, p->num, number, details);
}

/* --- one request, whoever asks ---------------------------------------------------------- */

unsigned sim_fault_delay_us(uint64_t delay_ns)
{
	if (delay_ns > (uint64_t)UINT32_MAX * 1000u)
		return UINT32_MAX;
	return (unsigned)((delay_ns + 999u) / 1000u);
}

/* Why a request fails, for whoever shows it; nothing when msg is NULL. */
static int refuse(char *msg, size_t max, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(char *msg, size_t max, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && max) {
		va_start(ap, fmt);
		vsnprintf(msg, max, fmt, ap);
		va_end(ap);
	}
	return err;
}

/*
 * A name from outside, fit for a message: control characters as '?', and
 * no more than NAME_SHOWN of it.
 */
#define NAME_SHOWN	41	/* as scenario.c shows the words of a file */
struct shown_name {
	char s[NAME_SHOWN + sizeof("...")];
};

static const char *show_name(const char *name, struct shown_name *out)
{
	size_t i;

	for (i = 0; name[i] && i < NAME_SHOWN; i++)
		out->s[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	if (name[i])
		memcpy(out->s + i, "...", sizeof("..."));
	else
		out->s[i] = '\0';
	return out->s;
}

/* Port 0 is a switch's own: it has no link, so only counters and traps may name it. */
static int op_takes_port0(enum sim_fault_op op)
{
	return op == SIM_FAULT_COUNTER || op == SIM_FAULT_TRAP;
}

int sim_fault_target(const struct sim_fabric *f, const struct sim_fault_req *rq,
		     struct sim_node **np, struct sim_port **pp, char *msg, size_t max)
{
	uint8_t scratch[NOTICE_DETAILS_SIZE];
	struct shown_name name;
	struct sim_node *n;
	struct sim_port *p;

	if (msg && max)
		msg[0] = '\0';
	if (!f || !rq)
		return -EINVAL;
	if (!rq->node)
		return refuse(msg, max, -EINVAL, "no node named");
	n = sim_fabric_find(f, rq->node);
	if (!n)
		return refuse(msg, max, -ENOENT, "'%s' names no node of the fabric",
			      show_name(rq->node, &name));
	if (rq->op < SIM_FAULT_LINK || rq->op >= SIM_FAULT_N_OPS)
		return refuse(msg, max, -EINVAL, "unknown fault operation %d", (int)rq->op);
	if (np)
		*np = n;
	if (rq->op == SIM_FAULT_NODE)
		return 0;
	show_name(rq->node, &name);
	if (rq->port > n->num_ports)
		return refuse(msg, max, -EINVAL, "\"%s\" has ports 1..%u, no port %u", name.s,
			      n->num_ports, rq->port);
	if (rq->port == 0 && n->type != NODE_TYPE_SWITCH)
		return refuse(msg, max, -EINVAL, "port 0 is a switch's own, and \"%s\" is a %s",
			      name.s, sim_node_type_name(n->type));
	if (rq->port == 0 && !op_takes_port0(rq->op))
		return refuse(msg, max, -EINVAL, "port 0 of \"%s\" is the switch's own, with no link",
			      name.s);
	p = &n->ports[rq->port];
	switch (rq->op) {
	case SIM_FAULT_LINK:
		if (!p->peer)
			return refuse(msg, max, -ENOTCONN, "port %u of \"%s\" has no cable", rq->port,
				      name.s);
		break;
	case SIM_FAULT_DROP:
		if (!(rq->rate >= 0.0 && rq->rate <= 1.0))
			return refuse(msg, max, -EINVAL, "rate %g out of range 0..1", rq->rate);
		break;
	case SIM_FAULT_DELAY:
		if (rq->delay_ns > (uint64_t)UMAD_SIM_MAX_DELAY_US * 1000u)
			return refuse(msg, max, -EINVAL,
				      "a delay of %" PRIu64 " %s is longer than a minute (at most %u microseconds)",
				      rq->delay_ns % 1000u ? rq->delay_ns : rq->delay_ns / 1000u,
				      rq->delay_ns % 1000u ? "ns" : "microseconds", UMAD_SIM_MAX_DELAY_US);
		break;
	case SIM_FAULT_COUNTER:
		if (!rq->counter)
			return refuse(msg, max, -EINVAL, "no counter named");
		if (sim_pma_counter_by_name(rq->counter) < 0)
			return refuse(msg, max, -EINVAL,
				      "unknown counter \"%s\" (PortCounters names, e.g. SymbolErrorCounter)",
				      show_name(rq->counter, &name));
		break;
	case SIM_FAULT_TRAP:
		/* Made and thrown away: the one list of the traps a port may send. */
		if (trap_details(p, rq->trap, scratch) < 0) {
			if (rq->trap == TRAP_LINK_STATE_CHANGE)
				return refuse(msg, max, -EINVAL,
					      "only switches send trap %u, and \"%s\" is a %s", rq->trap,
					      name.s, sim_node_type_name(n->type));
			return refuse(msg, max, -EINVAL, "no trap %u (128-131, 144 or 145)", rq->trap);
		}
		break;
	default:
		break;
	}
	if (pp)
		*pp = p;
	return 0;
}

int sim_fault_apply(struct sim_net *net, const struct sim_fault_req *rq, char *msg, size_t max)
{
	struct sim_node *n = NULL;
	struct sim_port *p = NULL;
	int r;

	if (msg && max)
		msg[0] = '\0';
	if (!net || !net->f || !rq)
		return -EINVAL;
	r = sim_fault_target(net->f, rq, &n, &p, msg, max);
	if (r < 0)
		return r;
	switch (rq->op) {
	case SIM_FAULT_LINK:	return sim_fault_link(net, p, rq->up);
	case SIM_FAULT_NODE:	return sim_fault_node(net, n, rq->up);
	case SIM_FAULT_DROP:	return sim_fault_drop(p, rq->rate, rq->seed);
	case SIM_FAULT_DELAY:	return sim_fault_delay(p, sim_fault_delay_us(rq->delay_ns));
	case SIM_FAULT_COUNTER:	return sim_fault_counter(net, p, rq->counter, rq->count);
	case SIM_FAULT_TRAP:	return sim_fault_trap(net, p, rq->trap);
	default:		return -EINVAL;	/* sim_fault_target refused it already */
	}
}
