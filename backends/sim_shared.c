/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The sim backend as a client of a shared fabric (sim_shared.h). */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "backends/sim_shared.h"
#include "libumad/mad_wire.h"
#include "simfabric/fabric_client.h"
#include "simfabric/net.h"

static struct {
	struct fabric_client c;
	int connected;
	struct sim_shared_events ev;
	pthread_t thread;
	int thread_running;
	int stop_fd;
	unsigned n_hosts;
} shared = { .stop_fd = -1 };

int sim_shared_connect(const char *path, const char *const *names, unsigned n_names,
		       struct fp_node *nodes, unsigned *n_nodes)
{
	char err[512];
	int r = fabric_client_connect(&shared.c, path, names, n_names, 1, nodes, n_nodes, err,
				      sizeof(err));

	if (r < 0) {
		fprintf(stderr, "libumad: sim: UMAD_SIM_FABRIC: %s\n", err);
		return r;
	}
	shared.connected = 1;
	shared.n_hosts = *n_nodes;
	return 0;
}

/* An FP_RC reply's value, or -EIO for anything else; the lock is released. */
static int rc_of(int32_t rc)
{
	int r = shared.c.reply.type == FP_RC ? rc : -EIO;

	fabric_client_done(&shared.c);
	return r;
}

int sim_shared_get_ca(uint32_t host, struct fp_node *node, struct fp_port *ports)
{
	struct fp_host q = { .host = host };
	const struct fp_node *n;
	int32_t rc;
	size_t want;
	int r = fabric_client_request(&shared.c, FP_GET_CA, &q, sizeof(q), NULL, 0, &rc);

	if (r < 0)
		return r;
	if (shared.c.reply.type != FP_CA)
		return rc_of(rc);
	n = (const struct fp_node *)shared.c.reply.buf;
	want = sizeof(*n) + ((size_t)n->num_ports + 1) * sizeof(*ports);
	if (n->num_ports > SIM_MAX_PORTS || shared.c.reply.len != want) {
		fabric_client_done(&shared.c);
		return -EIO;
	}
	*node = *n;
	node->desc[sizeof(node->desc) - 1] = '\0';
	node->name[sizeof(node->name) - 1] = '\0';
	memset(ports, 0, (SIM_MAX_PORTS + 1) * sizeof(*ports));
	memcpy(ports, n + 1, ((size_t)n->num_ports + 1) * sizeof(*ports));
	fabric_client_done(&shared.c);
	return 0;
}

int sim_shared_open(uint32_t host, uint32_t port)
{
	struct fp_host q = { .host = host, .port = port };

	return fabric_client_call(&shared.c, FP_OPEN, &q, sizeof(q));
}

int sim_shared_close(uint32_t handle)
{
	struct fp_handle q = { .handle = handle };

	return fabric_client_call(&shared.c, FP_CLOSE, &q, sizeof(q));
}

int sim_shared_register(uint32_t handle, uint32_t agent_id, const struct umad_agent_req *req,
			int add)
{
	struct fp_register q = { .handle = handle, .agent_id = agent_id };

	if (req)
		q.req = *req;
	return fabric_client_call(&shared.c, add ? FP_REGISTER : FP_UNREGISTER, &q, sizeof(q));
}

int sim_shared_issm(uint32_t host, uint32_t port, int held)
{
	struct fp_issm q = { .host = host, .port = port, .held = held != 0 };

	return fabric_client_call(&shared.c, FP_ISSM, &q, sizeof(q));
}

int sim_shared_control(const struct fp_control *ctl)
{
	return fabric_client_call(&shared.c, FP_CONTROL, ctl, sizeof(*ctl));
}

/* The umad header of a MAD that came through the fabric, from the addressing the server saw. */
static void header_of(struct ib_user_mad *hdr, const struct fp_addr *a)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->addr.qpn = htobe32(a->sqpn);
	hdr->addr.qkey = htobe32(a->qkey);
	hdr->addr.lid = htobe16(a->slid);
	hdr->addr.sl = a->sl;
	hdr->addr.pkey_index = a->pkey_index;
}

int sim_shared_deliver(struct soft_port *op, const struct ib_user_mad *hdr,
		       const struct umad_agent_req *agent, uint8_t *mad, size_t mad_len)
{
	const uint8_t *whole = (const uint8_t *)hdr + MAD_RULES_HDR_SIZE;
	struct fp_send q = {
		.handle = (uint32_t)((uintptr_t)op->data - 1),
		.sqpn = agent->qpn,
		.dqpn = be32toh(hdr->addr.qpn) & IB_QPN_MASK,
		.qkey = be32toh(hdr->addr.qkey),
		.dlid = be16toh(hdr->addr.lid),
		.pkey_index = hdr->addr.pkey_index,
		.sl = hdr->addr.sl,
		.wait_ms = hdr->timeout_ms * (hdr->retries + 1u),
	};
	const struct fp_result *res;
	int32_t rc;
	int r;

	/*
	 * The lock stays held until the send's answer or timeout is queued: an
	 * answer an agent elsewhere sends, which the events thread hands over
	 * under the same lock, then finds the request waiting for it.
	 */
	r = fabric_client_request(&shared.c, FP_SEND, &q, sizeof(q), mad_len > MAD_SIZE ? whole : mad,
				  mad_len > MAD_SIZE ? mad_len : MAD_SIZE, &rc);
	if (r < 0)
		return r;
	if (shared.c.reply.type != FP_RESULT)
		return rc_of(rc);
	res = (const struct fp_result *)shared.c.reply.buf;
	if (res->result == SIM_NET_ANSWERED && hdr->timeout_ms &&
	    shared.c.reply.len >= sizeof(*res) + MAD_HDR_SIZE) {
		struct ib_user_mad reply;

		header_of(&reply, &res->addr);
		reply.agent_id = hdr->agent_id;
		reply.addr.pkey_index = hdr->addr.pkey_index;
		r = soft_port_answer_at(op, hdr, mad, &reply, agent, (const uint8_t *)(res + 1),
					shared.c.reply.len - sizeof(*res),
					res->delay_ns ? mad_queue_now_ns() + res->delay_ns : 0);
	} else {
		r = soft_port_no_answer(op, hdr, mad);
	}
	fabric_client_done(&shared.c);
	return r;
}

/* --- events --------------------------------------------------------------------------- */

static int handle_event(const struct fp_reader *in)
{
	if (in->type == FP_DELIVER) {
		const struct fp_deliver *d = (const struct fp_deliver *)in->buf;
		struct ib_user_mad hdr;

		if (d->host >= shared.n_hosts || d->port > SIM_MAX_PORTS)
			return -EPROTO;
		header_of(&hdr, &d->addr);
		pthread_mutex_lock(&shared.c.lock);
		shared.ev.deliver(d->host, d->port, d->qpn, &hdr, (const uint8_t *)(d + 1),
				  in->len - sizeof(*d),
				  d->delay_ns ? mad_queue_now_ns() + d->delay_ns : 0);
		pthread_mutex_unlock(&shared.c.lock);
		return 0;
	}
	if (in->type == FP_NODE_CHANGED) {
		const struct fp_host *h = (const struct fp_host *)in->buf;

		if (h->host >= shared.n_hosts)
			return -EPROTO;
		if (shared.ev.node_changed)
			shared.ev.node_changed(h->host);
		return 0;
	}
	return -EPROTO;
}

static void *events_main(void *arg)
{
	struct pollfd pfd[3] = {
		{ .fd = shared.c.event_fd, .events = POLLIN },
		{ .fd = shared.stop_fd, .events = POLLIN },
		{ .fd = shared.ev.watch_fd, .events = POLLIN },
	};
	struct fp_reader in;
	int r = 0;

	(void)arg;
	fp_reader_init(&in);
	while (r >= 0) {
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[2].revents & POLLIN)
			shared.ev.watch_ready();
		else if (pfd[2].revents)
			pfd[2].fd = -1;	/* the watch ended: poll ignores it from now on */
		if (!pfd[0].revents)
			continue;
		while ((r = fp_recv_message(shared.c.event_fd, &in, MSG_DONTWAIT)) == 1)
			r = handle_event(&in);
	}
	if (r < 0) {
		/* The server went away (or spoke nonsense): calls fail, waits end. */
		pthread_mutex_lock(&shared.c.lock);
		shared.c.broken = 1;
		pthread_mutex_unlock(&shared.c.lock);
		fprintf(stderr, "libumad: sim: the shared fabric went away (%s)\n", strerror(-r));
		soft_port_fail_all(-EIO);
	}
	fp_reader_free(&in);
	return NULL;
}

int sim_shared_start(const struct sim_shared_events *ev)
{
	int r;

	shared.ev = *ev;
	shared.stop_fd = eventfd(0, EFD_CLOEXEC);
	if (shared.stop_fd < 0)
		return -errno;
	r = pthread_create(&shared.thread, NULL, events_main, NULL);
	if (r) {
		close(shared.stop_fd);
		shared.stop_fd = -1;
		return -r;
	}
	shared.thread_running = 1;
	return 0;
}

void sim_shared_disconnect(void)
{
	if (shared.thread_running) {
		uint64_t one = 1;
		ssize_t n = write(shared.stop_fd, &one, sizeof(one));

		(void)n;
		pthread_join(shared.thread, NULL);
		shared.thread_running = 0;
	}
	if (shared.stop_fd >= 0)
		close(shared.stop_fd);
	shared.stop_fd = -1;
	if (shared.connected)
		fabric_client_close(&shared.c);
	shared.connected = 0;
}
