/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The transports to a fabric a server hosts share one client of its
 * protocol (sim_remote.c); they differ in how they attach: over its Unix
 * socket (sim_remote_transport, the fabric mapped unless asked not to) or
 * over TCP (sim_tcp_transport, sim_tcp.c, nothing mapped).  The operations
 * below are sim_transport.h's, for both.
 */
#ifndef BACKENDS_SIM_REMOTE_H
#define BACKENDS_SIM_REMOTE_H

#include "backends/sim_transport.h"

/*
 * Attach at the server params->where names (a socket path, or
 * tcp:HOST:PORT), as the transport ops (the one whose operations these
 * are); map: answer the SMA's SMPs here, on the fabric's memory, when the
 * server shares it.
 */
int sim_remote_attach(const struct sim_transport_ops *ops, int map,
		      const struct sim_transport_params *params,
		      const struct sim_transport_events *ev, struct sim_transport **out,
		      struct fp_node *nodes, unsigned *n_nodes, struct umad_err *err);
int sim_remote_start(struct sim_transport *t, int issm_watch_fd);
void sim_remote_detach(struct sim_transport *t);
int sim_remote_view(struct sim_transport *t, uint32_t host, struct fp_node *node,
		    struct fp_port *ports);
void sim_remote_check_issm(struct sim_transport *t);
int sim_remote_open(struct sim_transport *t, uint32_t host, uint32_t port);
int sim_remote_close(struct sim_transport *t, uint32_t handle);
int sim_remote_set_agent(struct sim_transport *t, uint32_t handle, uint32_t agent_id,
			 const struct umad_agent_req *req);
int sim_remote_control(struct sim_transport *t, const struct sim_fault_req *rq);
int sim_remote_send(struct sim_transport *t, struct soft_port *op, uint32_t handle,
		    const struct ib_user_mad *hdr, const struct umad_agent_req *agent,
		    uint8_t *mad, size_t mad_len, struct umad_err *err);
ssize_t sim_remote_recv(struct sim_transport *t, int portid, void *umad, size_t len);
int sim_remote_pending(struct sim_transport *t, int portid);
int sim_remote_wait(struct sim_transport *t, int portid, int timeout_ms);
void sim_remote_watch_fd(struct sim_transport *t, int portid);

#endif /* BACKENDS_SIM_REMOTE_H */
