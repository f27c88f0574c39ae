/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The subnet management agent every simulated node runs. */
#ifndef SIMFABRIC_SMA_H
#define SIMFABRIC_SMA_H

#include <stddef.h>
#include <stdint.h>

#include "simfabric/fabric.h"

/* What the SMA tells its owner about (all optional). */
struct sim_sma_hooks {
	/* Before a PortInfo of this port is read: the owner refreshes e.g. CapabilityMask.IsSM. */
	void (*before_port_read)(void *arg, struct sim_port *p);
	/*
	 * After a Set changed something of this node; a PortInfo Set that
	 * changed a link's state tells the node at its other end too.
	 */
	void (*node_changed)(void *arg, struct sim_node *n);
	void *arg;
};

/*
 * Process an SMP (LID-routed or directed-route) that reached `node` through
 * port `in_port` (0: a switch's own management port).  The MAD buffer
 * (MAD_SIZE bytes) is turned into the response in place.  Returns 1 when there
 * is a response to send back, 0 when the SMA stays silent (a failed M_Key
 * check, a response or TrapRepress arriving, a malformed class).
 */
int sim_sma_process(struct sim_fabric *f, struct sim_node *node, unsigned in_port, uint8_t *mad,
		    const struct sim_sma_hooks *hooks);

struct sim_attr;
/* The SMA's attribute table (attr_table.h): its n rows. */
const struct sim_attr *sim_sma_attrs(size_t *n);

/* Encoders, shared with the tests: PortInfo and NodeInfo as the wire has them. */
void sim_encode_port_info(const struct sim_node *n, const struct sim_port *p, unsigned local_port,
			  int hide_m_key, uint8_t *data);
void sim_encode_node_info(const struct sim_node *n, unsigned local_port, uint8_t *data);
/* SwitchInfo (SMP_DATA_SIZE bytes), as the SMA answers it and the SA's SwitchInfoRecord holds it. */
void sim_encode_switch_info(const struct sim_switch *sw, uint8_t *data);

#endif /* SIMFABRIC_SMA_H */
