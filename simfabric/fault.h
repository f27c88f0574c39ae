/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Faults steered from outside: links and nodes going down and coming back,
 * packet drops per link (seeded, so a run repeats), delays per link, error
 * counters raised, traps sent.  The in-process API (infiniband/umad_sim.h),
 * and later the command line and the shared fabric, drive these.  A link or node going
 * down or up makes its switches send Trap 128 to their SM, as hardware
 * does.  Every function returns 0 or -errno; the fabric lock is held.
 */
#ifndef SIMFABRIC_FAULT_H
#define SIMFABRIC_FAULT_H

#include <stdint.h>

#include "simfabric/fabric.h"
#include "simfabric/net.h"

/*
 * The port a fault names: node by id, description or GUID, port 1..N, or
 * port 0 of a switch where any_port allows it.  0, -ENOENT or -EINVAL.
 */
int sim_fault_port(struct sim_fabric *f, const char *node, unsigned port, int any_port,
		   struct sim_port **p);

/* The link at port p (1..num_ports): down (both ends lose it until up) or up. */
int sim_fault_link(struct sim_net *net, struct sim_port *p, int up);
/* Every link of a node. */
int sim_fault_node(struct sim_net *net, struct sim_node *n, int up);
/*
 * Drop packets leaving port p with probability rate (0 to 1; 0 ends the
 * drops), drawn from a generator seeded with seed.
 */
int sim_fault_drop(struct sim_port *p, double rate, uint64_t seed);
/*
 * Delay every packet leaving port p by delay_us microseconds (0 ends the
 * delay).  A MAD is as late as the sum of the delays of the ports it
 * leaves on its way, there and back; the net measures it (sim_net_msg's
 * delay_ns) and the owner delivers it that much later.
 */
int sim_fault_delay(struct sim_net *net, struct sim_port *p, unsigned delay_us);
/*
 * Raise error counter `counter` (its PortCounters name, as the PMA names
 * it) of port p by n; LocalLinkIntegrityErrors and
 * ExcessiveBufferOverrunErrors also send Trap 129 and 130.
 */
int sim_fault_counter(struct sim_net *net, struct sim_port *p, const char *counter, uint64_t n);
/* Send trap `number` (128-131, 144, 145) from port p with the details it carries. */
int sim_fault_trap(struct sim_net *net, struct sim_port *p, unsigned number);

/*
 * A packet leaving through a port with a fault: its delay goes on the
 * net's meter, and with drops the next draw decides whether it is lost.
 */
static inline int sim_link_fault_drops(struct sim_link_fault *lf)
{
	uint64_t x = lf->rng;

	if (lf->delay_ns && lf->meter)
		*lf->meter += lf->delay_ns;
	if (!lf->drop_threshold)
		return 0;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	lf->rng = x;
	if ((uint32_t)(x >> 32) >= lf->drop_threshold)
		return 0;
	lf->dropped++;
	return 1;
}

#endif /* SIMFABRIC_FAULT_H */
