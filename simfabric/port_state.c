/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The port state machine: logical states Down → Init → Armed → Active as an
 * SM drives them, and the physical link going down, being disabled and
 * training up again.
 */
#include "config.h"

#include <errno.h>

#include "simfabric/port_state.h"

/*
 * SwitchInfo:PortStateChange: set when the link state machine moves a port
 * (the link coming up to Init, or going down), not when an SM arms or
 * activates a port or retrains it to the widths and speeds it enabled.
 */
static void note_change(struct sim_port *p)
{
	if (p->node->sw)
		p->node->sw->port_state_change = 1;
}

/* The link is lost at both ends; each end polls again unless disabled. */
static void link_lost(struct sim_port *p)
{
	struct sim_port *ends[2] = { p, p->peer };
	int i;

	for (i = 0; i < 2; i++) {
		struct sim_port *e = ends[i];

		if (!e)
			continue;
		e->state = PORT_STATE_DOWN;
		if (e->phys_state != PHYS_STATE_DISABLED)
			e->phys_state = PHYS_STATE_POLLING;
		e->width_active = e->speed_active = e->ext_active = e->mlnx_speed_active = 0;
		note_change(e);
	}
}

/* Try to bring the link up: both ends present, neither disabled, a rate in common. */
static void link_try_up(struct sim_port *p)
{
	struct sim_port *q = p->peer;

	if (!q || p->phys_state == PHYS_STATE_DISABLED || q->phys_state == PHYS_STATE_DISABLED ||
	    p->failed || q->failed)
		return;
	if (sim_link_train(p, q) == 0) {
		note_change(p);
		note_change(q);
	}
}

int sim_port_state_valid(const struct sim_port *p, unsigned new_state)
{
	switch (new_state) {
	case PORT_STATE_NOCHANGE:
	case PORT_STATE_DOWN:
		return 1;
	case PORT_STATE_ARMED:
		return p->state == PORT_STATE_INIT || p->state == PORT_STATE_ARMED;
	case PORT_STATE_ACTIVE:
		/*
		 * Armed waits for the neighbour; a switch's port 0 has none, so
		 * it goes Active from Init too (opensm asks that of it when it
		 * changes the port's SMSL after skipping the arming pass).
		 */
		if (p->num == 0 && p->state == PORT_STATE_INIT)
			return 1;
		return p->state == PORT_STATE_ARMED || p->state == PORT_STATE_ACTIVE;
	default:
		return 0;	/* Init cannot be set, and 5..15 are reserved */
	}
}

int sim_port_set_state(struct sim_port *p, unsigned new_state)
{
	if (!sim_port_state_valid(p, new_state))
		return -EINVAL;
	switch (new_state) {
	case PORT_STATE_NOCHANGE:
		break;
	case PORT_STATE_DOWN:
		if (p->num == 0) {
			/* A switch's management port has no link: back to Init. */
			p->state = PORT_STATE_INIT;
			break;
		}
		/* The link goes down, then trains up again to Init as hardware does. */
		if (p->phys_state == PHYS_STATE_LINKUP) {
			link_lost(p);
			link_try_up(p);
		}
		break;
	default:
		p->state = (uint8_t)new_state;
		break;
	}
	return 0;
}

int sim_port_phys_valid(const struct sim_port *p, unsigned new_phys)
{
	if (new_phys == 0)
		return 1;
	if (p->num == 0)
		return 0;	/* no physical link to change */
	return new_phys == PHYS_STATE_POLLING || new_phys == PHYS_STATE_DISABLED;
}

int sim_port_set_phys(struct sim_port *p, unsigned new_phys)
{
	if (!sim_port_phys_valid(p, new_phys))
		return -EINVAL;
	if (new_phys == PHYS_STATE_DISABLED) {
		if (p->phys_state == PHYS_STATE_LINKUP)
			link_lost(p);
		p->phys_state = PHYS_STATE_DISABLED;
		p->state = PORT_STATE_DOWN;
	} else if (new_phys == PHYS_STATE_POLLING) {
		/* A link that is up retrains: it goes down and comes up at what both ends enable now. */
		if (p->phys_state == PHYS_STATE_LINKUP)
			link_lost(p);
		if (p->phys_state != PHYS_STATE_POLLING) {
			p->phys_state = PHYS_STATE_POLLING;
			link_try_up(p);
		} else if (p->peer && p->peer->phys_state == PHYS_STATE_POLLING) {
			link_try_up(p);
		}
	}
	return 0;
}

void sim_port_cable(struct sim_port *p, int connect, struct sim_port *to)
{
	if (connect) {
		if (!p->peer && !to->peer && p->num && to->num) {
			p->peer = to;
			to->peer = p;
			link_try_up(p);
		}
	} else if (p->peer) {
		struct sim_port *q = p->peer;

		link_lost(p);
		p->peer = NULL;
		q->peer = NULL;
	}
}

void sim_port_link_fail(struct sim_port *p, int fail)
{
	p->failed = fail != 0;
	if (fail) {
		if (p->phys_state == PHYS_STATE_LINKUP)
			link_lost(p);
	} else {
		link_try_up(p);
	}
}
