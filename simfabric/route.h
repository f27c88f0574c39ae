/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Carrying MADs across the fabric: LID routing through the switches' LFTs and directed routes. */
#ifndef SIMFABRIC_ROUTE_H
#define SIMFABRIC_ROUTE_H

#include <stdint.h>

#include "simfabric/fabric.h"
#include "simfabric/sma.h"

/* Where a routed packet ends up. */
struct sim_hop_end {
	struct sim_node *node;
	unsigned port;		/* the port it arrived through (0: a switch's own port) */
};

/*
 * LID-route a packet from `node`, leaving an end node through `port` (a
 * switch forwards by its LFT), to `dlid`.  0 and *end filled when it is
 * delivered; -1 when it is lost (no route, a link down, a loop).
 */
int sim_route_lid(struct sim_fabric *f, struct sim_node *node, unsigned port, uint16_t dlid,
		  struct sim_hop_end *end);

/*
 * What one MAD's packet adds to PortXmitData/PortRcvData: its words from
 * the LRH to the ICRC (the VCRC is not counted), without a GRH.
 */
#define SIM_MAD_PACKET_WORDS \
	((IB_LRH_LEN + IB_BTH_LEN + IB_DETH_LEN + MAD_SIZE + IB_ICRC_LEN) / IB_WORD_LEN)

/*
 * One hop: send out of port `egress` of *node, counted in both ends'
 * PMA counters; 0 with *node and *port the far end, -1 when the link is down.
 */
int sim_route_hop(struct sim_node **node, unsigned *port, unsigned egress);

/*
 * Send an SMP from the host port `from` (LRH DLID `dlid` for LID-routed
 * SMPs and for the LID-routed first part of a directed route), have the
 * destination's SMA answer it, and carry the answer back.  The MAD buffer
 * (MAD_SIZE bytes) becomes the response.  Returns 1 with *resp_slid (the LID
 * the answer comes from, LID_PERMISSIVE for directed routes) when the answer
 * reaches `from`'s node, 0 when the request or its answer is lost.
 */
int sim_smp_round_trip(struct sim_fabric *f, struct sim_port *from, uint16_t dlid, uint8_t *mad,
		       uint16_t *resp_slid, const struct sim_sma_hooks *hooks);

/*
 * The directed-route walk alone (exposed for tests): the outgoing part from
 * `from`, returning where the SMP is consumed (0) or -1 when it is dropped.
 * The hop pointer and return path in `mad` are updated as on the wire.
 */
int sim_dr_outgoing(struct sim_fabric *f, struct sim_port *from, uint16_t dlid, uint8_t *mad,
		    struct sim_hop_end *end, struct sim_hop_end *dr_end);
/*
 * The return part, from the responder; dr_end is where the directed part
 * ended (the node and the port the SMP arrived by, or for zero hops the
 * port it left from).  0 and *end (where the answer is delivered) or -1.
 */
int sim_dr_return(struct sim_fabric *f, const struct sim_hop_end *responder,
		  const struct sim_hop_end *dr_end, uint8_t *mad, struct sim_hop_end *end);

/*
 * Follow the LID route a packet from `node` would take to `dlid` (port as
 * for sim_route_lid: the end port it leaves by, or a switch's port 0),
 * counting nothing: visit (when not NULL) sees each link crossed, from the
 * port it leaves by to the port it arrives at.  Returns the number of
 * links crossed (0: dlid is the sender's own) with *end where the route
 * ends, or -1 when there is none (no LFT entry, a link down, a loop).
 */
int sim_route_walk(const struct sim_fabric *f, struct sim_node *node, unsigned port,
		   uint16_t dlid,
		   void (*visit)(void *arg, const struct sim_port *out, const struct sim_port *in),
		   void *arg, struct sim_hop_end *end);

#endif /* SIMFABRIC_ROUTE_H */
