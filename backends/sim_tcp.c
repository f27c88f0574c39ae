/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend's transport to a fabric a server hosts on another host,
 * reached over TCP (sim_transport.h; UMAD_SIM_FABRIC=tcp:HOST:PORT, the key
 * UMAD_SIM_FABRIC_KEY names).  It speaks the server's protocol as
 * sim_remote.c does, over two connections that each begin with the key's
 * handshake (simfabric/fabric_client.c, fabric_auth.h); it maps nothing and
 * has no mailbox, so every MAD is a request on the connection, in the
 * order sent.  An SMP request is posted there as sim_remote.c posts it to
 * a mailbox: its reply is read when the program looks for it; any other's
 * answer or timeout is queued before the next goes.
 */
#include "config.h"

#include "backends/sim_remote.h"

static int tcp_attach(const struct sim_transport_params *params,
		      const struct sim_transport_events *ev, struct sim_transport **out,
		      struct fp_node *nodes, unsigned *n_nodes, struct umad_err *err)
{
	return sim_remote_attach(&sim_tcp_transport, 0, params, ev, out, nodes, n_nodes, err);
}

const struct sim_transport_ops sim_tcp_transport = {
	.name = "tcp",
	.attach = tcp_attach,
	.start = sim_remote_start,
	.detach = sim_remote_detach,
	.view = sim_remote_view,
	.check_issm = sim_remote_check_issm,
	.open = sim_remote_open,
	.close = sim_remote_close,
	.set_agent = sim_remote_set_agent,
	.control = sim_remote_control,
	.send = sim_remote_send,
	.recv = sim_remote_recv,
	.pending = sim_remote_pending,
	.wait = sim_remote_wait,
	.watch_fd = sim_remote_watch_fd,
};
