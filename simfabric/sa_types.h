/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The types the SA's interface (sa.h) and its files' shared state
 * (sa_common.h) both name: what the SA asks of its owner, and who sent a
 * request.
 */
#ifndef SIMFABRIC_SA_TYPES_H
#define SIMFABRIC_SA_TYPES_H

#include <stddef.h>
#include <stdint.h>

struct sim_port;

/* What the SA asks of its owner (all optional). */
struct sim_sa_hooks {
	/*
	 * A multicast group's membership changed: the owner reprograms the MFTs
	 * for mlid.  members: every member port whatever its join state, n of
	 * them; n == 0 when the group is gone or has no member left.
	 */
	void (*mcast_changed)(void *arg, uint16_t mlid, struct sim_port *const *members, size_t n);
	/* Send a Report (a whole MAD, MAD_SIZE bytes: SA class, method Report,
	 * attribute Notice) to a subscriber at (lid, qpn). */
	void (*send_report)(void *arg, uint16_t lid, uint32_t qpn, const uint8_t *mad);
	void *arg;
};

/* Who sent a request: the port (NULL: found by lid), its LID, QP and P_Key. */
struct sim_sa_requester {
	struct sim_port *port;
	uint16_t lid;
	uint32_t qpn;
	uint16_t pkey;
};

#endif /* SIMFABRIC_SA_TYPES_H */
