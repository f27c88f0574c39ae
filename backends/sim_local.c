/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend's transport to a fabric of the process's own
 * (sim_transport.h): the process hosts it (simfabric/hosting.h) and every
 * call is carried under one lock.  A send is answered by the fabric's
 * agents at once, handed to an agent of the process (the hosting routes
 * it), or lost; its answer, or its timeout, is queued before the lock is
 * let go, so that an answer another thread's agent sends under the same
 * lock finds the request waiting for it.  The fabric calls back while the
 * lock is held: a MAD for the process's agents is handed over at once, a
 * PortInfo about to be read asks whether an issm device is held; the nodes
 * that changed are told after the lock is let go (the device surface then
 * reads them through this transport).
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backends/sim_transport.h"
#include "base/errbuf.h"
#include "base/mad_rules.h"
#include "base/mad_wire.h"
#include "simfabric/hosting.h"
#include "simfabric/topology.h"

struct sim_local {
	struct sim_transport base;
	pthread_mutex_t lock;
	struct sim_hosting *hosting;
	struct sim_net *net;		/* the hosting's */
	struct sim_attachment *att;
	struct sim_transport_events ev;
	uint32_t changed;		/* hosts (bit h) changed, to tell once the lock is let go */
	int hinted;			/* the own-fabric hint was given */
	struct umad_err hint;		/* and its text, told once the lock is let go */
};

static struct sim_local *local_of(struct sim_transport *t)
{
	return (struct sim_local *)t;
}

/* The umad header of a MAD that arrived through the fabric. */
static void received_header(struct ib_user_mad *hdr, const struct sim_net_msg *m)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->addr.qpn = htobe32(m->sqpn);
	hdr->addr.qkey = htobe32(m->qkey);
	hdr->addr.lid = htobe16(m->slid);
	hdr->addr.sl = m->sl;
	hdr->addr.pkey_index = sim_port_pkey_index(m->port, m->pkey);
}

/* --- the hosting's calls (lock held) ---------------------------------------------------- */

static int att_deliver(void *owner, uint32_t host, const struct sim_net_msg *m)
{
	struct sim_local *l = owner;
	struct ib_user_mad hdr;

	received_header(&hdr, m);
	return l->ev.deliver(l->ev.owner, host, m->port->num, m->dqpn, &hdr, m->data, m->len,
			     m->delay_ns ? mad_queue_now_ns() + m->delay_ns : 0);
}

static void att_node_changed(void *owner, uint32_t host)
{
	struct sim_local *l = owner;

	l->changed |= 1u << host;
}

/* Let the lock go, then tell the changes the call made. */
static inline void unlock(struct sim_local *l)
{
	uint32_t changed = l->changed, h;

	if (changed)
		l->changed = 0;
	pthread_mutex_unlock(&l->lock);
	for (h = 0; changed; h++, changed >>= 1)
		if ((changed & 1) && l->ev.node_changed)
			l->ev.node_changed(l->ev.owner, h);
}

static void att_before_port_read(void *owner, uint32_t host, uint32_t port)
{
	struct sim_local *l = owner;

	sim_hosting_issm(l->att, host, port, l->ev.issm_held(l->ev.owner, host, port));
}

static const struct sim_attachment_ops attachment_ops = {
	.deliver = att_deliver,
	.node_changed = att_node_changed,
	.before_port_read = att_before_port_read,
};

/* Every host port's issm device, as held now.  Lock held. */
static void check_all_issm(struct sim_local *l)
{
	uint32_t h, p;

	for (h = 0; h < sim_attachment_n_hosts(l->att); h++)
		for (p = 0; p <= SIM_MAX_PORTS; p++)
			if (sim_attachment_port_valid(l->att, h, p))
				att_before_port_read(l, h, p);
}

/* --- attaching ------------------------------------------------------------------------- */

/*
 * Load the fabric, host it and attach where the user asked: 0, with a note
 * in err when the built-in SM did not bring the fabric up, or -errno with
 * why in err (after that note).
 */
static int host_and_attach(const struct sim_transport_params *params, struct sim_local *l,
			   struct umad_err *err)
{
	const char *name = params->where ? params->where : "the default fabric";
	struct umad_err hosted = UMAD_ERR_INIT, note = UMAD_ERR_INIT;
	struct sim_fabric *fabric;
	int r;

	if (params->where)
		fabric = sim_topology_load(params->where, err);
	else
		fabric = sim_topology_parse(sim_default_topology, "<default fabric>", err);
	if (!fabric)
		return umad_err_prefix(err, -EINVAL, "cannot load the topology:\n");
	r = sim_hosting_new(fabric, params->builtin_sm, &l->hosting, &hosted);
	if (r < 0) {
		sim_fabric_free(fabric);
		return umad_err_set(err, r, "%s: %s", name,
				    hosted.count ? umad_err_text(&hosted) : strerror(-r));
	}
	/* A note of the hosting's (the SM stays away) is told whatever comes next. */
	if (hosted.count)
		umad_err_set(&note, 0, "%s: %s (as with UMAD_SIM_SM=none)", name,
			     umad_err_text(&hosted));
	umad_err_clear(&hosted);
	l->net = sim_hosting_net(l->hosting);
	r = sim_hosting_attach(l->hosting, params->names, params->n_names, &attachment_ops, l,
			       &l->att, &hosted);
	if (r < 0) {
		sim_hosting_free(l->hosting);
		umad_err_set(err, r, "UMAD_SIM_HOST=%s: %s (%s)",
			     params->names_text ? params->names_text : "", umad_err_text(&hosted),
			     name);
		return note.count ? umad_err_prefix(err, r, "%s\n", umad_err_text(&note)) : r;
	}
	if (err && note.count)
		*err = note;
	return 0;
}

static int local_attach(const struct sim_transport_params *params,
			const struct sim_transport_events *ev, struct sim_transport **out,
			struct fp_node *nodes, unsigned *n_nodes, struct umad_err *err)
{
	struct sim_local *l = calloc(1, sizeof(*l));
	unsigned i;
	int r;

	if (!l)
		return -ENOMEM;
	l->base.ops = &sim_local_transport;
	l->ev = *ev;
	pthread_mutex_init(&l->lock, NULL);
	r = host_and_attach(params, l, err);
	if (r < 0) {
		pthread_mutex_destroy(&l->lock);
		free(l);
		return r;
	}
	*n_nodes = sim_attachment_n_hosts(l->att);
	for (i = 0; i < *n_nodes; i++)
		fp_node_fill(&nodes[i], sim_attachment_node(l->att, i));
	*out = &l->base;
	return 0;
}

static int local_start(struct sim_transport *t, int issm_watch_fd)
{
	(void)t;
	(void)issm_watch_fd;	/* looked at when a PortInfo is read: no thread of its own */
	return 0;
}

static void local_detach(struct sim_transport *t)
{
	struct sim_local *l = local_of(t);

	sim_hosting_free(l->hosting);	/* the attachment with it */
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* --- the devices ------------------------------------------------------------------------ */

static int local_view(struct sim_transport *t, uint32_t host, struct fp_node *node,
		      struct fp_port *ports)
{
	struct sim_local *l = local_of(t);
	int r;

	pthread_mutex_lock(&l->lock);
	check_all_issm(l);
	r = sim_hosting_view(l->att, host, node, ports);
	unlock(l);
	return r;
}

static void local_check_issm(struct sim_transport *t)
{
	struct sim_local *l = local_of(t);

	pthread_mutex_lock(&l->lock);
	check_all_issm(l);
	unlock(l);
}

static int local_open(struct sim_transport *t, uint32_t host, uint32_t port)
{
	struct sim_local *l = local_of(t);
	int r;

	pthread_mutex_lock(&l->lock);
	r = sim_hosting_open(l->att, host, port);
	unlock(l);
	return r;
}

static int local_close(struct sim_transport *t, uint32_t handle)
{
	struct sim_local *l = local_of(t);
	int r;

	pthread_mutex_lock(&l->lock);
	r = sim_hosting_close(l->att, handle);
	unlock(l);
	return r;
}

static int local_set_agent(struct sim_transport *t, uint32_t handle, uint32_t agent_id,
			   const struct umad_agent_req *req)
{
	struct sim_local *l = local_of(t);
	int r;

	pthread_mutex_lock(&l->lock);
	r = req ? sim_hosting_register(l->att, handle, agent_id, req, NULL)
		: sim_hosting_unregister(l->att, handle, agent_id);
	unlock(l);
	return r;
}

static int local_control(struct sim_transport *t, const struct sim_fault_req *rq)
{
	struct sim_local *l = local_of(t);
	int r;

	pthread_mutex_lock(&l->lock);
	r = sim_hosting_control(l->hosting, rq, NULL);
	unlock(l);
	return r;
}

/* --- sending ---------------------------------------------------------------------------- */

/*
 * Does the fabric answer this class itself at the node a request went to
 * (the PMA and the congestion control agent at every node, the built-in
 * SA while it runs)?  Then a request lost there was that agent's refusal.
 */
static int fabric_answers_class(struct sim_local *l, uint8_t mgmt_class)
{
	return mgmt_class == UMAD_CLASS_PERF_MGMT || mgmt_class == UMAD_CLASS_CONG_MGMT ||
	       (mgmt_class == UMAD_CLASS_SUBN_ADM && l->net->sm_active);
}

/*
 * A request that will time out because it reached a port where nothing of
 * this process takes its class: the taker may be another process, which
 * has a fabric of its own.  Said once per process: 1 when it is to be
 * said now (l->hint, once the lock is let go).  Lock held.
 */
static int hint_own_fabric(struct sim_local *l, const uint8_t *mad, uint16_t dlid,
			   uint32_t dqpn, uint64_t lost_before)
{
	if (l->hinted || l->net->lost_no_taker == lost_before ||
	    dqpn != QP1_GSI || mad_method_is_response(mad_method(mad)) ||
	    fabric_answers_class(l, mad_class(mad)))
		return 0;
	l->hinted = 1;
	umad_err_set(&l->hint, 0, "nothing in this process takes the MAD sent to LID %u "
		     "(class 0x%02x), so it will time out: each process has its own copy of the "
		     "fabric.  Processes share one under `umad sim -- CMD`, or with `umad fabric "
		     "serve` and UMAD_SIM_FABRIC=SOCKET.", dlid, mad_class(mad));
	return 1;
}

/* Carry a checked send through the fabric; its answer or its timeout goes on the port's queue. */
static int local_send(struct sim_transport *t, struct soft_port *op, uint32_t handle,
		      const struct ib_user_mad *hdr, const struct umad_agent_req *agent,
		      uint8_t *mad, size_t mad_len, struct umad_err *err)
{
	struct sim_local *l = local_of(t);
	const uint8_t *whole = (const uint8_t *)hdr + MAD_RULES_HDR_SIZE;
	uint8_t request[MAD_HDR_SIZE];	/* its header as it went out: the fabric answers in mad */
	struct sim_hosting_send q;
	struct sim_net_reply reply;
	enum sim_net_result result;
	uint64_t lost_before;
	int r, hint = 0;

	(void)err;	/* its errors say all; the hint is no error, told below */
	sim_transport_send_addr(&q, handle, hdr, agent);
	pthread_mutex_lock(&l->lock);
	lost_before = l->net->lost_no_taker;
	memcpy(request, mad, sizeof(request));
	r = sim_hosting_send(l->att, &q, mad, mad_len > MAD_SIZE ? whole : NULL,
			     mad_rules_send_len(agent, mad, mad_len), &reply, &result);
	if (r < 0) {
		unlock(l);
		return r;
	}
	/*
	 * The kernel matches answers to waiting sends only: a send without a
	 * timeout, or a response, completes with no answer.
	 */
	if (result == SIM_NET_ANSWERED && hdr->timeout_ms) {
		struct ib_user_mad answer;

		received_header(&answer, &reply.msg);
		answer.agent_id = hdr->agent_id;
		answer.addr.pkey_index = hdr->addr.pkey_index;
		r = soft_port_answer_at(op, hdr, request, &answer, agent, reply.msg.data,
					reply.msg.len,
					reply.msg.delay_ns ? mad_queue_now_ns() + reply.msg.delay_ns
							   : 0, 0);
	} else {
		if (result == SIM_NET_LOST && hdr->timeout_ms)
			hint = hint_own_fabric(l, mad, q.dlid, q.dqpn, lost_before);
		r = soft_port_no_answer(op, hdr, mad, 0);
	}
	unlock(l);
	if (hint)
		umad_err_print("sim", &l->hint);	/* set once, never again: no lock needed */
	sim_net_reply_release(&reply);
	return r;
}

static ssize_t local_recv(struct sim_transport *t, int portid, void *umad, size_t len)
{
	(void)t;
	return soft_port_recv(portid, umad, len);
}

static int local_pending(struct sim_transport *t, int portid)
{
	(void)t;
	return soft_port_pending(portid);
}

static int local_wait(struct sim_transport *t, int portid, int timeout_ms)
{
	(void)t;
	return soft_port_wait(portid, timeout_ms);
}

static void local_watch_fd(struct sim_transport *t, int portid)
{
	(void)t;
	soft_port_watch_fd(portid);
}

const struct sim_transport_ops sim_local_transport = {
	.name = "local",
	.attach = local_attach,
	.start = local_start,
	.detach = local_detach,
	.view = local_view,
	.check_issm = local_check_issm,
	.open = local_open,
	.close = local_close,
	.set_agent = local_set_agent,
	.control = local_control,
	.send = local_send,
	.recv = local_recv,
	.pending = local_pending,
	.wait = local_wait,
	.watch_fd = local_watch_fd,
};
