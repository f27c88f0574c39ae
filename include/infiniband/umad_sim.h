/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libumad-sim: faults on the simulated fabric this process runs on
 * (UMAD_BACKEND=sim), for tests: its own, or the shared fabric it is
 * attached at (UMAD_SIM_FABRIC), where every process attached there sees
 * them.  Link with -lumad-sim.  Not part of libibumad.so.3, whose symbols
 * stay rdma-core's.
 *
 * Nodes are named as UMAD_SIM_HOST names them: the topology's node id, the
 * NodeDescription or the node GUID.  Ports are numbered as in the topology
 * (1..N; port 0 is a switch's own port).  Every call returns 0 or a
 * negative errno: -ENODEV when the process does not run on the sim backend,
 * -ENOENT for an unknown node, -EINVAL for a port or value out of range,
 * -ENOTCONN for a port without a cable, -EIO when a shared fabric's server
 * is gone.
 */
#ifndef UMAD_SIM_H
#define UMAD_SIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Take the link at a port down (both ends, until it is brought up again) or up. */
int umad_sim_link_down(const char *node, unsigned port);
int umad_sim_link_up(const char *node, unsigned port);

/* Every link of a node at once: as if it lost power, or got it back. */
int umad_sim_node_down(const char *node);
int umad_sim_node_up(const char *node);

/*
 * Drop packets leaving a port with probability rate (0 to 1; 0 stops the
 * drops), drawn from a generator seeded with seed: the same seed drops the
 * same packets of the same traffic.
 */
int umad_sim_drop_rate(const char *node, unsigned port, double rate, uint64_t seed);

/*
 * The longest delay a port may have, in microseconds: a minute.  The same
 * for umad_sim_delay, `umad fabric delay` and the delay of a scenario file;
 * a longer one is refused (-EINVAL).
 */
#define UMAD_SIM_MAX_DELAY_US 60000000u

/*
 * Delay every packet leaving a port by delay_us microseconds, at most
 * UMAD_SIM_MAX_DELAY_US (0 removes the delay).  Each direction of a link
 * is its own: the delay is on the port's outgoing side.  A MAD arrives as
 * late as the sum of the delays of the ports it leaves on its way, request
 * and answer.  A request unanswered for its timeout is resent meanwhile,
 * and the answer to any of its sends completes it; an answer later than
 * the last one's timeout (timeout_ms * (retries + 1) after the send) is
 * lost and the send times out, as on hardware.
 */
int umad_sim_delay(const char *node, unsigned port, unsigned delay_us);

/*
 * Raise an error counter of a port by count: the PortCounters field as
 * perfquery names it without spaces (SymbolErrorCounter, LinkDownedCounter,
 * PortRcvErrors, LocalLinkIntegrityErrors, ...).
 */
int umad_sim_add_errors(const char *node, unsigned port, const char *counter, uint64_t count);

/* Send an SMA trap (128-131, 144, 145) from a port to its SM. */
int umad_sim_send_trap(const char *node, unsigned port, unsigned trap_number);

#ifdef __cplusplus
}
#endif

#endif /* UMAD_SIM_H */
