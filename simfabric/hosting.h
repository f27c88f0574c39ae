/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The owner of a fabric: its model, the traffic on it (net.h), and the
 * programs attached to it.  Every policy of hosting a program lives here,
 * once, for both front ends that host programs: the sim backend's own
 * fabric in a process (backends/sim_local.c) and the fabric server for its
 * clients (fabric_server.c).
 *
 *  - Where a program attaches: the nodes it names, by default the first CA
 *    (sim_fabric_default_host); a node once only.
 *  - Which ports it opened, which agents it registered there; an agent that
 *    would take the MADs another program's agent on the same port takes is
 *    refused.  Every agent gets a hi_tid no other program's agent has, the
 *    upper TID half of its requests, as the kernel gives one.
 *  - IsSM: a port's CapabilityMask.IsSM follows the programs that hold its
 *    issm device (and the built-in SM's own port while that SM runs).  An
 *    issm device held, or an SA server (an SA agent receiving Gets)
 *    registered, makes the built-in SM step aside.  A change is trapped to
 *    the SM (Trap 144) as the SMA sends it.
 *  - A MAD that reached an attached port and no agent of the fabric took
 *    goes to the program agent the kernel's rules pick (mad_rules.h); a
 *    response goes back to the program whose request waits for it (its
 *    port, class and TID), until that request's wait is over.
 *  - The programs attached at a node learn that it changed (an SM wrote to
 *    it, a fault changed its ports).
 *
 * Not thread-safe: the owner serialises every call, and the calls back
 * (sim_attachment_ops), which come during sim_hosting_send,
 * sim_hosting_issm, sim_hosting_control and sim_hosting_tick.
 */
#ifndef SIMFABRIC_HOSTING_H
#define SIMFABRIC_HOSTING_H

#include <stddef.h>
#include <stdint.h>

#include "base/backend.h"
#include "base/errbuf.h"
#include "simfabric/fabric.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/fault.h"
#include "simfabric/net.h"

/* Requests waiting for a response from a program's agent, at most (the oldest expired go first). */
#define SIM_HOSTING_MAX_WAITING	65536u
/* Nodes one program attaches at, at most. */
#define SIM_HOSTING_MAX_HOSTS	16
/* Ports one program opens at once, at most. */
#define SIM_HOSTING_MAX_OPEN	4096

struct sim_hosting;
struct sim_attachment;

/* How the hosting reaches a program attached to it (called with the owner's serialisation held). */
struct sim_attachment_ops {
	/* A MAD for one of its agents at (host, m->port->num), m->dqpn: 1 when taken, 0 when lost. */
	int (*deliver)(void *owner, uint32_t host, const struct sim_net_msg *m);
	/* Node `host` changed. */
	void (*node_changed)(void *owner, uint32_t host);
	/*
	 * The PortInfo of port (host, port) is about to be read: the program
	 * may tell now whether it holds its issm device (sim_hosting_issm).
	 * NULL for one that tells as it changes.
	 */
	void (*before_port_read)(void *owner, uint32_t host, uint32_t port);
};

/*
 * Host a fabric (taken over: freed with the hosting), brought up by the
 * built-in SM when builtin_sm.  A fabric the built-in SM cannot bring up
 * (more ports than unicast LIDs, nowhere for an SM) stays as it powers up:
 * 0, with why left in err as a note (nothing told otherwise).  -errno with
 * why in err otherwise (the fabric then is the caller's still).
 */
int sim_hosting_new(struct sim_fabric *fabric, int builtin_sm, struct sim_hosting **out,
		    struct umad_err *err);
void sim_hosting_free(struct sim_hosting *h);

struct sim_fabric *sim_hosting_fabric(const struct sim_hosting *h);
struct sim_net *sim_hosting_net(struct sim_hosting *h);

/*
 * Attach a program at the nodes named (ids, descriptions or GUIDs; n == 0:
 * the default host).  0, or -ENOENT (a name no node answers to), -EINVAL
 * (too many, a node twice) with why in err.
 */
int sim_hosting_attach(struct sim_hosting *h, const char *const *names, unsigned n,
		       const struct sim_attachment_ops *ops, void *owner,
		       struct sim_attachment **out, struct umad_err *err);
/* The program goes: its ports, agents, issm devices and waiting requests with it. */
void sim_hosting_detach(struct sim_attachment *a);
/* A program about to go (active 0) takes no MADs and clashes with no one meanwhile. */
void sim_attachment_set_active(struct sim_attachment *a, int active);

unsigned sim_attachment_n_hosts(const struct sim_attachment *a);
struct sim_node *sim_attachment_node(const struct sim_attachment *a, uint32_t host);
/* Is (host, port) a port a program may open there (sim_host_port_valid)? */
int sim_attachment_port_valid(const struct sim_attachment *a, uint32_t host, uint32_t port);

/* Node `host` and its ports as they are now (ports[SIM_MAX_PORTS + 1]; invalid ones zeroed). */
int sim_hosting_view(struct sim_attachment *a, uint32_t host, struct fp_node *node,
		     struct fp_port *ports);

/* Open a host port: its handle (>= 0), or -EINVAL (no such port), -EMFILE, -ENOMEM. */
int sim_hosting_open(struct sim_attachment *a, uint32_t host, uint32_t port);
/* Close it: its requests' waits are over (when no other handle has its port).  0 or -EBADF. */
int sim_hosting_close(struct sim_attachment *a, uint32_t handle);
/*
 * An agent registered on a handle: its hi_tid (> 0: the upper TID half its
 * requests go with, distinct among every program's agents, given out as
 * the kernel does), or -EBADF, -EINVAL with why in err (a clash).
 */
int sim_hosting_register(struct sim_attachment *a, uint32_t handle, uint32_t agent_id,
			 const struct umad_agent_req *req, struct umad_err *err);
int sim_hosting_unregister(struct sim_attachment *a, uint32_t handle, uint32_t agent_id);

/* The program holds (held) or let go of the issm device of (host, port).  0 or -EINVAL. */
int sim_hosting_issm(struct sim_attachment *a, uint32_t host, uint32_t port, int held);

/* A send from an opened handle: the addressing of its umad header. */
struct sim_hosting_send {
	uint32_t handle;
	uint32_t sqpn, dqpn, qkey;
	uint16_t dlid, pkey_index;
	uint8_t sl;
	uint32_t wait_ms;	/* how long its sender waits for an answer; 0: it does not */
};

/*
 * Carry a message of len bytes from a handle through the fabric: mad is its
 * first MAD (MAD_SIZE bytes, zero-padded; the fabric's agents answer in
 * it), whole the message when it is longer (an RMPP class's), else NULL.
 * An answer given at once is in *reply (release it); a request an agent of
 * a program took waits wait_ms for its response.  -EBADF for a handle not
 * open.
 */
int sim_hosting_send(struct sim_attachment *a, const struct sim_hosting_send *q, uint8_t *mad,
		     const uint8_t *whole, size_t len, struct sim_net_reply *reply,
		     enum sim_net_result *result);

/* Apply a fault; the programs learn of the nodes it changed.  0 or -errno with why in err. */
int sim_hosting_control(struct sim_hosting *h, const struct sim_fault_req *rq,
			struct umad_err *err);
/*
 * Node n changed outside the hosting's sight (an SMP a client answered
 * itself): its programs learn it, and a switch whose ports changed state
 * sends its SM the Trap 128 it owes (sim_net_link_trap).
 */
void sim_hosting_node_changed(struct sim_hosting *h, struct sim_node *n);
/* Traps the SM has not repressed go again when due. */
void sim_hosting_tick(struct sim_hosting *h, uint64_t now_ns);
/* When the next of them is due (ns, sim_net_now_ns's clock), or 0: none. */
uint64_t sim_hosting_next_due(const struct sim_hosting *h);
/* Requests waiting for a program's response now. */
unsigned sim_hosting_waiting(const struct sim_hosting *h);

#endif /* SIMFABRIC_HOSTING_H */
