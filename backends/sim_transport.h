/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * How the sim backend (sim.c, the device surface: devices, ports, fake
 * sysfs, issm files) reaches the fabric its devices sit on.  A transport
 * is chosen once, when the backend starts, and is the only thing that
 * differs between a fabric of the process's own and a server's:
 *
 *   sim_local   (sim_local.c)   the process hosts the fabric itself
 *                               (simfabric/hosting.h).  A send is carried
 *                               under the transport's lock, its answer or
 *                               timeout queued before the lock is let go.
 *   sim_remote  (sim_remote.c)  a server hosts it (UMAD_SIM_FABRIC; the
 *                               protocol is simfabric/fabric_proto.h), on
 *                               this host (its Unix socket) or another
 *                               (tcp:HOST:PORT, nothing mapped).  Its
 *                               paths for a MAD, and the order they keep,
 *                               are described at the top of sim_remote.c.
 *
 * Handles: what open() returns names an opened port to the transport; the
 * backend keeps it in the soft port's data (handle + 1), where send() finds
 * it.  Every operation returns 0 (or a count, a handle) or -errno; one that
 * can fail for a reason the program could not otherwise learn (attach,
 * send) leaves it in a struct umad_err, which the device surface prints
 * where the program called it (base/errbuf.h).  A transport prints
 * nothing itself, but for what no call of the program's is there to
 * return: a hint given once, after the transport's lock is let go, and the
 * server going away, seen by the events thread.
 */
#ifndef BACKENDS_SIM_TRANSPORT_H
#define BACKENDS_SIM_TRANSPORT_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/soft_port.h"
#include "base/backend.h"
#include "base/errbuf.h"
#include "base/fault_req.h"
#include "base/mad_wire.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/hosting.h"

#define SIM_TRANSPORT_MAX_HOSTS	16

/* What a transport tells the device surface (called from any thread; none with the surface's lock). */
struct sim_transport_events {
	void *owner;
	/* A MAD for an agent at a host port (the kernel's receive rules pick which): 1 taken, 0 lost. */
	int (*deliver)(void *owner, uint32_t host, uint32_t port, uint32_t qpn,
		       const struct ib_user_mad *hdr, const uint8_t *mad, size_t len,
		       uint64_t due_ns);
	/* Node `host` changed (an SM wrote to it, a fault changed its ports). */
	void (*node_changed)(void *owner, uint32_t host);
	/* Is the issm device of a host port held open now? */
	int (*issm_held)(void *owner, uint32_t host, uint32_t port);
	/* Readable when an issm device may have been opened or closed (-1: none). */
	int issm_watch_fd;
};

/* Where to attach, as the user asked. */
struct sim_transport_params {
	const char *where;		/* a topology file (NULL: the default fabric), or a server */
	const char *const *names;	/* UMAD_SIM_HOST's items; none: the first CA */
	unsigned n_names;
	const char *names_text;		/* UMAD_SIM_HOST itself, for messages */
	int builtin_sm;			/* UMAD_SIM_SM=builtin (a fabric of the process's own) */
};

struct sim_transport;

struct sim_transport_ops {
	const char *name;
	/*
	 * Attach at the nodes asked for: nodes[SIM_TRANSPORT_MAX_HOSTS] gets
	 * what each shows, *n_nodes how many.  Events start with start().
	 * 0, with a note in err to tell when the fabric came up otherwise than
	 * asked (its built-in SM could not bring it up); or -errno with why in
	 * err (after that note, when there is one).
	 */
	int (*attach)(const struct sim_transport_params *params,
		      const struct sim_transport_events *ev, struct sim_transport **out,
		      struct fp_node *nodes, unsigned *n_nodes, struct umad_err *err);
	/* The surface is ready for events (its issm watch made): they may come from now on. */
	int (*start)(struct sim_transport *t, int issm_watch_fd);
	void (*detach)(struct sim_transport *t);

	/* Node `host` and its ports now (ports[SIM_MAX_PORTS + 1]), IsSM brought up to date first. */
	int (*view)(struct sim_transport *t, uint32_t host, struct fp_node *node,
		    struct fp_port *ports);
	/* Tell the fabric which issm devices are held now (an agent was registered, a watch fired). */
	void (*check_issm)(struct sim_transport *t);
	int (*open)(struct sim_transport *t, uint32_t host, uint32_t port);
	int (*close)(struct sim_transport *t, uint32_t handle);
	/*
	 * An agent registered: its hi_tid (> 0, the fabric's, sim_hosting_register).
	 * req NULL: the agent goes (0).  Or -errno.
	 */
	int (*set_agent)(struct sim_transport *t, uint32_t handle, uint32_t agent_id,
			 const struct umad_agent_req *req);
	int (*control)(struct sim_transport *t, const struct sim_fault_req *rq);

	/*
	 * A checked send (soft_port_send): its answer or its timeout is queued
	 * on the port.  0, or -errno with why in err when the program cannot
	 * tell it from the error alone (the fabric's shared memory broken).
	 */
	int (*send)(struct sim_transport *t, struct soft_port *op, uint32_t handle,
		    const struct ib_user_mad *hdr, const struct umad_agent_req *agent,
		    uint8_t *mad, size_t mad_len, struct umad_err *err);
	/* recv, pending, wait and watch_fd of the backend contract, on an opened port. */
	ssize_t (*recv)(struct sim_transport *t, int portid, void *umad, size_t len);
	int (*pending)(struct sim_transport *t, int portid);
	int (*wait)(struct sim_transport *t, int portid, int timeout_ms);
	void (*watch_fd)(struct sim_transport *t, int portid);
};

/* The addressing of a checked send (soft_port_send's hdr and agent) from handle. */
static inline void sim_transport_send_addr(struct sim_hosting_send *q, uint32_t handle,
					   const struct ib_user_mad *hdr,
					   const struct umad_agent_req *agent)
{
	*q = (struct sim_hosting_send){
		.handle = handle,
		.sqpn = agent->qpn,
		.dqpn = be32toh(hdr->addr.qpn) & IB_QPN_MASK,
		.qkey = be32toh(hdr->addr.qkey),
		.dlid = be16toh(hdr->addr.lid),
		.pkey_index = hdr->addr.pkey_index,
		.sl = hdr->addr.sl,
		.wait_ms = hdr->timeout_ms * (hdr->retries + 1u),
	};
}

extern const struct sim_transport_ops sim_local_transport;
extern const struct sim_transport_ops sim_remote_transport;

/* The first member of every transport: its operations. */
struct sim_transport {
	const struct sim_transport_ops *ops;
};

#endif /* BACKENDS_SIM_TRANSPORT_H */
