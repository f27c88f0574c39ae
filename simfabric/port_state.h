/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The port state machine (logical and physical): the one way a link's state
 * changes, whether an SM's Set (the SMA), a fault (fault.c) or a cable
 * does it.  A change at one end is a change at both; each end that is a
 * switch port sets SwitchInfo:PortStateChange and owes its SM a Trap 128
 * (sim_switch.link_trap_owed), which the caller has the net send
 * (sim_net_link_trap) once the change is done.
 */
#ifndef SIMFABRIC_PORT_STATE_H
#define SIMFABRIC_PORT_STATE_H

#include "simfabric/fabric.h"

/*
 * PortInfo:PortState on a Set: NoChange, Down (the link drops and trains
 * up again to Init; a switch's port 0 goes to Init), Armed (from Init or
 * Armed), Active (from Armed or Active, and on a switch's port 0 from Init).
 * Init and the reserved values are invalid.
 */
/* Whether a Set of new_state may be taken at p now: 1, or 0 (invalid). */
int sim_port_state_valid(const struct sim_port *p, unsigned new_state);
/* Take it: 1 when the link changed state (at both ends), 0 when it did not, or -EINVAL. */
int sim_port_set_state(struct sim_port *p, unsigned new_state);

/*
 * PortInfo:PortPhysicalState on a Set: NoChange, Polling (a disabled port
 * polls again, and its link trains up to Init), Disabled (the link goes
 * down at both ends).
 */
/* Whether a Set of new_phys may be taken at p now: 1, or 0 (invalid). */
int sim_port_phys_valid(const struct sim_port *p, unsigned new_phys);
/* Take it: 1 when the link changed state, 0 when it did not, or -EINVAL. */
int sim_port_set_phys(struct sim_port *p, unsigned new_phys);

/* Plug (connect != 0) a cable between p and to, or pull the one at p. */
void sim_port_cable(struct sim_port *p, int connect, struct sim_port *to);

/*
 * A fault takes the link at p down (fail != 0: both ends lose it, and it
 * stays down) or lets a link that is down train up again (to Init, as a
 * replugged cable); a link that is up stays as it is.
 */
void sim_port_link_fail(struct sim_port *p, int fail);

#endif /* SIMFABRIC_PORT_STATE_H */
