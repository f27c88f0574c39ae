/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The port state machine (logical and physical), as the SMA applies an SM's Sets. */
#ifndef SIMFABRIC_PORT_STATE_H
#define SIMFABRIC_PORT_STATE_H

#include "simfabric/fabric.h"

/*
 * PortInfo:PortState on a Set: NoChange, Down (the link drops and trains
 * up again to Init; a switch's port 0 goes to Init), Armed (from Init or
 * Armed), Active (from Armed or Active, and on a switch's port 0 from Init).
 * Init and the reserved values are invalid.  0 or -EINVAL.
 */
int sim_port_state_valid(const struct sim_port *p, unsigned new_state);
int sim_port_set_state(struct sim_port *p, unsigned new_state);

/* PortInfo:PortPhysicalState on a Set: NoChange, Polling (re-enable), Disabled. */
int sim_port_phys_valid(const struct sim_port *p, unsigned new_phys);
int sim_port_set_phys(struct sim_port *p, unsigned new_phys);

/* Plug (connect != 0) a cable between p and to, or pull the one at p. */
void sim_port_cable(struct sim_port *p, int connect, struct sim_port *to);

/*
 * A fault takes the link at p down (fail != 0: both ends lose it, and it
 * stays down) or lets it train up again (to Init, as a replugged cable).
 */
void sim_port_link_fail(struct sim_port *p, int fail);

#endif /* SIMFABRIC_PORT_STATE_H */
