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
 * A port's state moved by the link state machine (the link coming up to
 * Init, or going down), not an SM arming or activating it or retraining
 * it to the widths and speeds it enabled: its switch sets
 * SwitchInfo:PortStateChange and owes its SM a Trap 128, which the net
 * sends (sim_net_link_trap) once the change that caused it is done.
 */
static void note_change(struct sim_port *p)
{
	if (p->node->sw) {
		p->node->sw->port_state_change = 1;
		p->node->sw->link_trap_owed = 1;
	}
}

/* The link is lost at both ends; each end polls again unless disabled.  1: it was up. */
static int link_lost(struct sim_port *p)
{
	struct sim_port *ends[2] = { p, p->peer };
	int i;

	if (p->phys_state != PHYS_STATE_LINKUP)
		return 0;
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
	return 1;
}

/*
 * Bring a link that is down up: both ends present, neither disabled nor
 * failed, a rate in common.  1 when it came up.
 */
static int link_try_up(struct sim_port *p)
{
	struct sim_port *q = p->peer;

	if (!q || sim_port_link_up(p) || p->phys_state == PHYS_STATE_DISABLED ||
	    q->phys_state == PHYS_STATE_DISABLED || p->failed || q->failed)
		return 0;
	if (sim_link_train(p, q) < 0)
		return 0;
	note_change(p);
	note_change(q);
	return 1;
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
	int changed = 0;

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
		if (link_lost(p)) {
			link_try_up(p);
			changed = 1;
		}
		break;
	default:
		p->state = (uint8_t)new_state;
		break;
	}
	return changed;
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
	int changed = 0;

	if (!sim_port_phys_valid(p, new_phys))
		return -EINVAL;
	if (new_phys == PHYS_STATE_DISABLED) {
		changed = link_lost(p);
		p->phys_state = PHYS_STATE_DISABLED;
		p->state = PORT_STATE_DOWN;
	} else if (new_phys == PHYS_STATE_POLLING) {
		/* A link that is up retrains: it goes down and comes up at what both ends enable now. */
		if (p->phys_state == PHYS_STATE_LINKUP)
			changed = link_lost(p);
		if (p->phys_state != PHYS_STATE_POLLING) {
			p->phys_state = PHYS_STATE_POLLING;
			changed |= link_try_up(p);
		} else if (p->peer && p->peer->phys_state == PHYS_STATE_POLLING) {
			changed |= link_try_up(p);
		}
	}
	return changed;
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
	if (fail)
		link_lost(p);
	else
		link_try_up(p);
}
