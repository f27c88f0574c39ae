/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * One fault as asked for, whoever asks: libumad-sim's calls (through the
 * control table of base/sim_control.h), `umad fabric` and scenario
 * lines (parsed by sim_fault_parse), the shared fabric's server (decoded
 * from FP_CONTROL by sim_fault_decode).  A value: its names are held in
 * it, so it is copied, kept and sent as it is.  Nothing but the C library
 * here, so that libumad-sim may build one; what reads, writes, checks and
 * applies requests is in simfabric/fault.h.
 */
#ifndef UMAD_BASE_FAULT_REQ_H
#define UMAD_BASE_FAULT_REQ_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* The kinds of fault; their names, arguments and rules are the table of fault.c. */
enum sim_fault_op {
	SIM_FAULT_LINK = 1,	/* up */
	SIM_FAULT_NODE,		/* up; port ignored */
	SIM_FAULT_DROP,		/* rate, seed */
	SIM_FAULT_DELAY,	/* delay_ns */
	SIM_FAULT_COUNTER,	/* counter, count */
	SIM_FAULT_TRAP,		/* trap */
	SIM_FAULT_N_OPS
};

#define SIM_FAULT_NODE_MAX	255	/* bytes of a node's name: the longest node id */
#define SIM_FAULT_COUNTER_MAX	63	/* bytes of a counter's name */
#define SIM_FAULT_MAX_DELAY_US	60000000u	/* a minute: the longest delay, every way's */

/* The fields an op does not use are ignored (zero them: what parses a request does). */
struct sim_fault_req {
	enum sim_fault_op op;
	char node[SIM_FAULT_NODE_MAX + 1];	/* node id, NodeDescription or 0xGUID; "": none */
	unsigned port;		/* 1..N; 0 (a switch's own) for counter and trap only */
	int up;			/* link, node: nonzero up, 0 down */
	double rate;		/* drop: 0 (stop) to 1 */
	uint64_t seed;		/* drop: the generator's seed (0: its default) */
	uint64_t delay_ns;	/* delay: 0 ends it; applied in whole microseconds, rounded up */
	char counter[SIM_FAULT_COUNTER_MAX + 1];	/* counter: its PortCounters name */
	uint64_t count;		/* counter: how much it rises */
	unsigned trap;		/* trap: TRAP_* of mad_wire.h */
};

/*
 * The bytes of a request (what FP_CONTROL carries): little-endian, so that
 * they mean the same on any host, then the names NUL-terminated, nothing
 * after.  Between SIM_FAULT_WIRE_MIN and SIM_FAULT_WIRE_MAX bytes.
 */
#define SIM_FAULT_WIRE_VERSION	1
#define SIM_FAULT_WIRE_OFF_VERSION	0	/* u8 */
#define SIM_FAULT_WIRE_OFF_UP		1	/* u8, 0 or 1; then a zero u16 */
#define SIM_FAULT_WIRE_OFF_PAD		2
#define SIM_FAULT_WIRE_OFF_OP		4	/* u32 */
#define SIM_FAULT_WIRE_OFF_PORT		8	/* u32 */
#define SIM_FAULT_WIRE_OFF_TRAP		12	/* u32 */
#define SIM_FAULT_WIRE_OFF_RATE		16	/* u64, the double's IEEE 754 bits */
#define SIM_FAULT_WIRE_OFF_SEED		24	/* u64 */
#define SIM_FAULT_WIRE_OFF_DELAY	32	/* u64 */
#define SIM_FAULT_WIRE_OFF_COUNT	40	/* u64 */
#define SIM_FAULT_WIRE_FIXED		48	/* then node, NUL; counter, NUL */
#define SIM_FAULT_WIRE_MIN	(SIM_FAULT_WIRE_FIXED + 2)
#define SIM_FAULT_WIRE_MAX	(SIM_FAULT_WIRE_FIXED + SIM_FAULT_NODE_MAX + 1 + SIM_FAULT_COUNTER_MAX + 1)

/*
 * The names of a request, given by a caller of the C API (either may be
 * NULL: none): 0, or -ENOENT for a node name longer than any node has,
 * -EINVAL for a counter name longer than any counter has (what the fabric
 * would answer to either).
 */
static inline int sim_fault_req_names(struct sim_fault_req *rq, const char *node,
				      const char *counter)
{
	if (node && strlen(node) >= sizeof(rq->node))
		return -ENOENT;
	if (counter && strlen(counter) >= sizeof(rq->counter))
		return -EINVAL;
	strcpy(rq->node, node ? node : "");
	strcpy(rq->counter, counter ? counter : "");
	return 0;
}

#endif /* UMAD_BASE_FAULT_REQ_H */
