/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The built-in SM's work done in one step: the fabric configured as a
 * subnet manager leaves it (LIDs, LMC, forwarding tables, port values,
 * ports Active, the SM's SMInfo), so that a program sees a working subnet
 * without running an SM.  Everything is deterministic: the same file
 * gives the same LIDs and tables on every run.
 *
 * Choices (doc/sim-subnet.md compares them with opensm's):
 *  - LIDs: a port keeps the LID (and LMC) the topology file gives it
 *    (sim_port.file_lid); the others get the lowest free LIDs aligned to
 *    their LMC, in file order (nodes as the file declares them; a switch's
 *    port 0, a CA's ports in port order).  Only ports an SM at sm_port
 *    reaches over links that are up are configured.
 *  - LMC: the options' LMC for ports without a file LID, by default the
 *    largest LMC the file gives a CA or router port (0 if none).  Switches
 *    without a file LID get LMC 0.
 *  - Unicast routes: minimum hops from every switch to every LID of every
 *    port; among equal-cost ports the LID goes to the one carrying the
 *    fewest LIDs of that switch so far, the lowest port number among
 *    equals.  The LIDs behind destination switches that have the same
 *    equal-cost ports are taken together, groups in the file order of
 *    their first switch, LIDs in the file order of their ports.
 *  - Port values: Active wherever the link is up (and a switch's port 0),
 *    NeighborMTU and OperationalVLs the smaller of both ends, M_Key 0,
 *    SubnetTimeout 18, HOQLife 16 on switch ports to end nodes and 18
 *    between switches, P_Key table the default one, SL i on VL i modulo
 *    the data VLs in use.  VL arbitration tables are left as they are (as
 *    opensm leaves them without QoS) unless the options ask for them: then
 *    every data VL in the low-priority table at weight 64, the
 *    high-priority table empty, VLHighLimit 0.
 *
 * The model has no lock: the caller serialises, as for every other change.
 */
#ifndef SIMFABRIC_SUBNET_UP_H
#define SIMFABRIC_SUBNET_UP_H

#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "simfabric/fabric.h"

struct sim_subnet_options {
	int lmc;		/* 0..7 for ports the file gives no LID; -1: as the file (above) */
	uint8_t sm_sl;		/* PortInfo:MasterSMSL everywhere */
	uint8_t sm_priority;	/* SMInfo:Priority of the SM */
	uint8_t vl_arb;		/* write VL arbitration tables too (above), 256 bytes a port */
};

/*
 * Configure the whole fabric as an SM at sm_port would (sm_port: a CA or
 * router port, or a switch's port 0): LIDs, LMC, LFTs, port states Active,
 * SM LID/SL everywhere, SMInfo of the SM node MASTER, IsSM capability bit
 * on sm_port.  What an SM set before in these is replaced.  0 or -errno
 * (-ENOSPC: more LIDs needed than the unicast range holds, the fabric
 * unchanged; -EINVAL: sm_port is a switch's external port; -ENOMEM), with
 * why in err.
 */
int sim_subnet_bring_up(struct sim_fabric *f, struct sim_port *sm_port, struct umad_err *err);
/* The same with options (NULL: the defaults, all 0 but lmc -1). */
int sim_subnet_bring_up_with(struct sim_fabric *f, struct sim_port *sm_port,
			     const struct sim_subnet_options *opt, struct umad_err *err);

/*
 * Recompute the unicast LFTs (min-hop, balanced) for the current links and
 * port states, keeping LIDs: what an SM does on a resweep after a link went
 * down or came up.  When a MASTER SM brought the fabric up (see
 * sim_subnet_master), ports it now reaches that have no LID yet get one and
 * links up but not yet Active are configured as at bring-up; routes follow
 * links Active at both ends only.  Multicast tables are left alone: route
 * each group again with sim_subnet_route_mcast.  0 or -errno (-ENOSPC,
 * -ENOMEM).
 */
int sim_subnet_reroute(struct sim_fabric *f);

/*
 * Program every switch's MFT entry for mlid (>= LID_MCAST_START) so that a
 * packet sent by any of the n member ports (CA/router ports, or switch port
 * 0) reaches every other member exactly once: a spanning tree over the
 * switches that connects the members (n == 0 clears the entry on every
 * switch).  The tree is the shortest-path tree from the member's switch
 * that comes first in the file, cut to the branches that lead to members.
 * 0 or -errno: -EINVAL for an mlid outside the MFT or a member that is a
 * switch's external port, -ENETUNREACH when a member has no Active link to
 * a switch or the members' switches are not all connected (nothing is
 * changed then), -ENOMEM.
 */
int sim_subnet_route_mcast(struct sim_fabric *f, uint16_t mlid, struct sim_port *const *members,
			   size_t n);

/* The LID a port answers to (a switch's ports: port 0's), 0 if none. */
uint16_t sim_subnet_port_lid(const struct sim_port *p);

/* The port of the SM whose SMInfo says MASTER (as bring-up leaves it), or NULL. */
struct sim_port *sim_subnet_master(const struct sim_fabric *f);

/*
 * Where the built-in SM sits: the first CA port whose link is up, else the
 * first switch's port 0; NULL for a fabric with neither.
 */
struct sim_port *sim_subnet_sm_site(const struct sim_fabric *f);

#endif /* SIMFABRIC_SUBNET_UP_H */
