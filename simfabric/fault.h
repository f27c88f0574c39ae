/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Faults steered from outside: links and nodes going down and coming back,
 * packet drops per link (seeded, so a run repeats), delays per link, error
 * counters raised, traps sent.  The in-process API (infiniband/umad_sim.h),
 * the shared fabric's server (umad fabric) and scenario files drive these,
 * each through one request (struct sim_fault_req, sim_fault_apply).  A link
 * or node going down or up makes its switches send Trap 128 to their SM, as
 * hardware does.  Every function returns 0 or -errno; the fabric lock is
 * held.
 */
#ifndef SIMFABRIC_FAULT_H
#define SIMFABRIC_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/umad_sim.h>

#include "simfabric/fabric.h"
#include "simfabric/net.h"

/*
 * One fault as asked for, whoever asks (the in-process API, the shared
 * fabric's server, a scenario step): which operation, where, and the
 * operation's own arguments; the others are ignored.
 */
enum sim_fault_op {
	SIM_FAULT_LINK = 1,	/* up */
	SIM_FAULT_NODE,		/* up; port ignored */
	SIM_FAULT_DROP,		/* rate, seed */
	SIM_FAULT_DELAY,	/* delay_ns */
	SIM_FAULT_COUNTER,	/* counter, count */
	SIM_FAULT_TRAP,		/* trap */
	SIM_FAULT_N_OPS
};

struct sim_fault_req {
	enum sim_fault_op op;
	const char *node;	/* node id, NodeDescription or 0xGUID */
	unsigned port;		/* 1..N; 0 (a switch's own) for counter and trap only */
	int up;			/* link, node: nonzero up, 0 down */
	double rate;		/* drop: 0 (stop) to 1 */
	uint64_t seed;		/* drop: the generator's seed (0: its default) */
	uint64_t delay_ns;	/* delay: 0 ends it; applied in whole microseconds, rounded up;
				 * at most UMAD_SIM_MAX_DELAY_US (umad_sim.h) */
	const char *counter;	/* counter: its PortCounters name (sim_pma_counter_by_name) */
	uint64_t count;		/* counter: how much it rises */
	unsigned trap;		/* trap: TRAP_* of mad_wire.h */
};

/*
 * Where a request lands, and whether it can: the node (-EINVAL without a
 * name, -ENOENT when the fabric has none of that name), the op, the port
 * (-EINVAL beyond the node's ports, or 0 where the op or the node does not
 * allow it), a cable for link (-ENOTCONN), and the op's arguments as far
 * as the fabric's state does not matter (-EINVAL: rate, a delay over
 * UMAD_SIM_MAX_DELAY_US, counter name, a trap the node may not send).  Changes nothing.  0 with *n and, but for
 * node, *p set (either may be NULL); or -errno with, when msg is not NULL,
 * what is wrong in msg (at most max bytes, NUL-terminated, no op prefix;
 * empty on success).
 */
int sim_fault_target(const struct sim_fabric *f, const struct sim_fault_req *rq,
		     struct sim_node **n, struct sim_port **p, char *msg, size_t max);

/*
 * Carry out a request on net's fabric, the fabric lock held: sim_fault_target,
 * then the sim_fault_*() below for its op.  0, -EINVAL for a NULL net,
 * fabric or request, what sim_fault_target said (msg as there), or what
 * the fault call returned (msg then empty: strerror tells as much).
 */
int sim_fault_apply(struct sim_net *net, const struct sim_fault_req *rq, char *msg, size_t max);

/*
 * Whether a fault of this kind can change what a device shows of its ports
 * (state, rate: its sysfs tree): links and nodes going down or up, and a
 * Trap 128, after which the built-in SM resweeps; drops, delays and
 * counters cannot.
 */
static inline int sim_fault_changes_ports(enum sim_fault_op op)
{
	return op == SIM_FAULT_LINK || op == SIM_FAULT_NODE || op == SIM_FAULT_TRAP;
}

/*
 * A delay as the fault calls and the wire count it: whole microseconds,
 * rounded up, at most UINT32_MAX (so that one beyond the limit stays one).
 */
unsigned sim_fault_delay_us(uint64_t delay_ns);

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
 * delay; -EINVAL over UMAD_SIM_MAX_DELAY_US).  A MAD is as late as the sum of the delays of the ports it
 * leaves on its way, there and back; the net measures it (sim_net_msg's
 * delay_ns) and the owner delivers it that much later.
 */
int sim_fault_delay(struct sim_port *p, unsigned delay_us);
/*
 * Raise error counter `counter` (its PortCounters name, as the PMA names
 * it) of port p by n; LocalLinkIntegrityErrors and
 * ExcessiveBufferOverrunErrors also send Trap 129 and 130.
 */
int sim_fault_counter(struct sim_net *net, struct sim_port *p, const char *counter, uint64_t n);
/* Send trap `number` (128-131, 144, 145) from port p with the details it carries. */
int sim_fault_trap(struct sim_net *net, struct sim_port *p, unsigned number);

/*
 * The delays the MAD this thread carries has met so far (net.c starts and
 * reads it; the model's lock keeps one trip at a time in a process).
 * Thread-local rather than in the model or the net: the processes sharing
 * a fabric each carry their own MADs.
 */
extern _Thread_local uint64_t sim_trip_delay_ns;

/*
 * A packet leaving through a port with a fault: its delay goes on the
 * trip's meter, and with drops the next draw decides whether it is lost.
 */
static inline int sim_link_fault_drops(struct sim_link_fault *lf)
{
	uint64_t x = lf->rng;

	sim_trip_delay_ns += lf->delay_ns;
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
