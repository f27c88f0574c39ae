/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend as a client of a shared fabric (UMAD_SIM_FABRIC=PATH,
 * served by `umad fabric serve` or `umad sim`): the fabric lives in the
 * server's memory, which this process maps to answer the SMPs a node's SMA
 * answers itself (unless UMAD_SIM_FABRIC_SMP=server, the server keeps its
 * memory private, or the address is taken here: then the server answers
 * them too); it keeps its ports, agents and queues (soft_port.h) and asks
 * the server for everything else.  A thread reads the event
 * channel: MADs for this process's agents, and notices of changed nodes.
 *
 * Once the server is gone every call fails with -EIO, and ports waiting
 * for MADs stop waiting: their receive fails with -EIO.
 */
#ifndef BACKENDS_SIM_SHARED_H
#define BACKENDS_SIM_SHARED_H

#include <stdint.h>

#include "backends/soft_port.h"
#include "simfabric/fabric_proto.h"
#include "libumad/base/fault_req.h"

struct sim_shared_events {
	/* A MAD for an agent at host port (host, port): the kernel's receive rules decide which. */
	void (*deliver)(uint32_t host, uint32_t port, uint32_t qpn, const struct ib_user_mad *hdr,
			const uint8_t *mad, size_t len, uint64_t due_ns);
	/* An SM changed a node the process is attached at. */
	void (*node_changed)(uint32_t host);
	/* watch_fd (>= 0) became readable. */
	void (*watch_ready)(void);
	int watch_fd;
};

/* Connect and attach at the nodes named (none: the fabric's first CA). 0 or -errno, said on stderr. */
int sim_shared_connect(const char *path, const char *const *names, unsigned n_names,
		       struct fp_node *nodes, unsigned *n_nodes);
/* Start reading events; 0 or -errno. */
int sim_shared_start(const struct sim_shared_events *ev);
/* Stop the events thread and disconnect. */
void sim_shared_disconnect(void);

/* The node and its ports (SIM_MAX_PORTS + 1 of them) as they are now. */
int sim_shared_get_ca(uint32_t host, struct fp_node *node, struct fp_port *ports);
/* A port opened at the server: its handle, or -errno. */
int sim_shared_open(uint32_t host, uint32_t port);
int sim_shared_close(uint32_t handle);
/* Mirror an agent (add) or its removal at the server, which routes MADs by it. */
int sim_shared_register(uint32_t handle, uint32_t agent_id, const struct umad_agent_req *req,
			int add);
/* The issm device of a host port is held open, or no longer. */
int sim_shared_issm(uint32_t host, uint32_t port, int held);
/* A fault (libumad-sim's), carried out by the server. */
int sim_shared_control(const struct sim_fault_req *rq);

/*
 * soft_port's deliver for a port opened at the server (op->data holds
 * handle + 1).  An SMP request the SMA answers is carried here when the
 * fabric is mapped; otherwise it may be posted without waiting for its
 * reply; the backend's recv, pending, wait and watch_fd below read the
 * replies first, so the program sees what it would have seen had each send
 * waited.
 */
int sim_shared_deliver(struct soft_port *op, const struct ib_user_mad *hdr,
		       const struct umad_agent_req *agent, uint8_t *mad, size_t mad_len);

ssize_t sim_shared_recv(int portid, void *umad, size_t len);
int sim_shared_pending(int portid);
int sim_shared_wait(int portid, int timeout_ms);
void sim_shared_watch_fd(int portid);
#endif /* BACKENDS_SIM_SHARED_H */
