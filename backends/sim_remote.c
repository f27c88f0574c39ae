/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend's transport to a fabric a server hosts (sim_transport.h;
 * UMAD_SIM_FABRIC, `umad sim`, `umad fabric serve`), on this host through
 * its Unix socket or on another over TCP (UMAD_SIM_FABRIC=tcp:HOST:PORT,
 * the key UMAD_SIM_FABRIC_KEY names): one set of operations, two ways to
 * attach (remote_attach).  A MAD takes one of three paths, all in the
 * order the program sent them:
 *
 *  - answered here: an SMP request the SMA answers, carried on the fabric's
 *    memory, mapped from the server (fabric_client_map), under the
 *    memory's lock.  The server only learns which nodes the SMP changed
 *    that clients are attached at or that owe their SM a Trap 128 (the
 *    server sends it).  Replies posted before are read first.
 *  - posted: an SMP request the SMA of a fabric not mapped here answers
 *    (UMAD_SIM_FABRIC_SMP=server, or a server without shared memory) goes
 *    to the client's mailbox without waiting, when nothing would miss its
 *    reply; the reply is read when the program looks for it (recv, wait,
 *    pending) or sends again.  Up to FP_MAILBOX_SLOTS are in flight.  A
 *    resend (retries) is never posted: what its reply completes is known
 *    only while it is carried (soft_port_is_resend).
 *  - a request on the connection: everything else, and a send whose reply
 *    someone waits for.  The connection's lock is held until the answer or
 *    the timeout is queued, so that an answer another agent sends, which
 *    the events thread hands over under the same lock, finds the request
 *    waiting for it.
 *
 * The events thread reads the event channel: MADs for the program's agents
 * (handed over at once), node changes (told at most every
 * CHANGES_INTERVAL_NS), and the issm watch of the device surface.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "backends/sim_transport.h"
#include "base/mad_rules.h"
#include "base/mad_wire.h"
#include "simfabric/arena.h"
#include "simfabric/fabric_client.h"
#include "simfabric/fabric_tcp.h"
#include "simfabric/fault.h"
#include "simfabric/net.h"
#include "simfabric/peer_wait.h"

/* Ports (by the server's handle) whose SMPs this process may answer itself. */
#define LOCAL_PORTS	1024
/*
 * Node changes are told (the sysfs tree rewritten) at most this often: a
 * flood of them leaves the events thread free to hand MADs over.
 */
#define CHANGES_INTERVAL_NS	(20 * 1000000ull)

/* A send posted without waiting (fabric_client_post): what its reply needs. */
struct posted_send {
	struct soft_port *op;		/* referenced until the reply is read */
	struct ib_user_mad hdr;
	struct umad_agent_req agent;
	uint8_t mad[MAD_SIZE];
	uint64_t sent_ns;		/* its timeout and any delay count from then */
};

struct sim_remote {
	struct sim_transport base;
	struct fabric_client c;
	/* The sends posted, by slot (under c.lock). */
	struct posted_send posted[FP_MAILBOX_SLOTS];
	/*
	 * While a thread waits on a port, or the program polls a port's
	 * descriptor itself, sends wait for their replies: a reply nobody reads
	 * would leave them waiting.  n_posted (written under c.lock, read
	 * without) counts the replies to read, and a send about to be posted;
	 * a waiter raises `waiters` before it reads n_posted, and a sender
	 * raises n_posted before it reads `waiters`, so at least one of them
	 * sees the other.
	 */
	atomic_uint n_posted;
	atomic_uint waiters;
	atomic_int watched;
	int connected;
	struct sim_transport_events ev;
	pthread_t thread;
	int thread_running;
	int stop_fd;
	unsigned n_hosts;
	/*
	 * With the fabric mapped (fabric_client_map), SMP requests the SMA
	 * answers are carried here, on the shared model under its lock: the
	 * port each opened handle sends from, and the nodes the SMP being
	 * carried changed that the server must hear of (under c.lock).
	 */
	_Atomic(struct sim_port *) local_port[LOCAL_PORTS];
	struct sim_node *changed[SIM_NET_CHANGED_MAX];
	unsigned n_changed;
	struct sim_sma_hooks local_hooks;
	int gone;			/* server_gone(r) ran (under c.lock) */
	/* IsSM as told to the server, by host port (under issm_lock). */
	pthread_mutex_t issm_lock;
	uint8_t issm_told[SIM_TRANSPORT_MAX_HOSTS][SIM_MAX_PORTS + 1];
	struct fp_node nodes[SIM_TRANSPORT_MAX_HOSTS];
};

static struct sim_remote *remote_of(struct sim_transport *t)
{
	return (struct sim_remote *)t;
}

static void posted_answer(struct fabric_client *c, void *cookie);
static void local_node_changed(void *arg, struct sim_node *n);

static void sim_remote_check_issm(struct sim_transport *t);

/*
 * Attach at the server params->where names (a socket path, or
 * tcp:HOST:PORT); map: answer the SMA's SMPs here, on the fabric's memory,
 * when the server shares it (never over TCP: nothing is mapped there).
 */
static int attach_at(int map, const struct sim_transport_params *params,
		     const struct sim_transport_events *ev, struct sim_transport **out,
		     struct fp_node *nodes, unsigned *n_nodes, struct umad_err *err)
{
	struct sim_remote *r;
	int rc;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->base.ops = &sim_remote_transport;
	r->stop_fd = -1;
	r->ev = *ev;
	r->local_hooks = (struct sim_sma_hooks){ .node_changed = local_node_changed, .arg = r };
	pthread_mutex_init(&r->issm_lock, NULL);
	rc = fabric_client_connect(&r->c, params->where, params->names, params->n_names, 1,
				   nodes, n_nodes, err);
	if (rc < 0) {
		pthread_mutex_destroy(&r->issm_lock);
		free(r);
		return umad_err_prefix(err, rc, "UMAD_SIM_FABRIC: ");
	}
	/*
	 * Without the mapping (a server without shared memory, an address taken
	 * here) all goes there; memory that is not what it should be is refused.
	 */
	if (map && !r->c.stream) {
		/* Its own: the reason of a mapping done without is nothing to tell. */
		struct umad_err why = UMAD_ERR_INIT;

		rc = fabric_client_map(&r->c, *n_nodes, &why);
		if (rc < 0 && rc != -EOPNOTSUPP && rc != -EADDRINUSE) {
			fabric_client_close(&r->c);
			pthread_mutex_destroy(&r->issm_lock);
			free(r);
			if (err)
				*err = why;
			return umad_err_prefix(err, rc, "UMAD_SIM_FABRIC: ");
		}
	}
	r->connected = 1;
	r->n_hosts = *n_nodes;
	memcpy(r->nodes, nodes, *n_nodes * sizeof(*nodes));
	r->c.on_answer = posted_answer;
	*out = &r->base;
	return 0;
}

/* An FP_RC reply's value, or -EIO for anything else; the lock is released. */
static int rc_of(struct sim_remote *r, int32_t rc)
{
	int v = r->c.reply.type == FP_RC ? rc : -EIO;

	fabric_client_done(&r->c);
	return v;
}

static int sim_remote_view(struct sim_transport *t, uint32_t host, struct fp_node *node,
		       struct fp_port *ports)
{
	struct sim_remote *r = remote_of(t);
	struct fp_host q = { .host = host };
	const struct fp_node *n;
	int32_t rc;
	size_t want;
	int v;

	sim_remote_check_issm(t);
	v = fabric_client_request(&r->c, FP_GET_CA, &q, sizeof(q), NULL, 0, &rc);
	if (v < 0)
		return v;
	if (r->c.reply.type != FP_CA)
		return rc_of(r, rc);
	n = (const struct fp_node *)r->c.reply.buf;
	want = sizeof(*n) + ((size_t)n->num_ports + 1) * sizeof(*ports);
	if (n->num_ports > SIM_MAX_PORTS || r->c.reply.len != want) {
		fabric_client_done(&r->c);
		return -EIO;
	}
	*node = *n;
	node->desc[sizeof(node->desc) - 1] = '\0';
	node->name[sizeof(node->name) - 1] = '\0';
	memset(ports, 0, (SIM_MAX_PORTS + 1) * sizeof(*ports));
	memcpy(ports, n + 1, ((size_t)n->num_ports + 1) * sizeof(*ports));
	fabric_client_done(&r->c);
	return 0;
}

static int sim_remote_open(struct sim_transport *t, uint32_t host, uint32_t port)
{
	struct sim_remote *r = remote_of(t);
	struct fp_host q = { .host = host, .port = port };
	int handle = fabric_client_call(&r->c, FP_OPEN, &q, sizeof(q));

	if (handle >= 0 && handle < LOCAL_PORTS && r->c.fabric && host < r->n_hosts &&
	    port <= r->c.hosts[host]->num_ports)
		atomic_store(&r->local_port[handle], &r->c.hosts[host]->ports[port]);
	return handle;
}

static int sim_remote_close(struct sim_transport *t, uint32_t handle)
{
	struct sim_remote *r = remote_of(t);
	struct fp_handle q = { .handle = handle };

	if (handle < LOCAL_PORTS)
		atomic_store(&r->local_port[handle], NULL);

	return fabric_client_call(&r->c, FP_CLOSE, &q, sizeof(q));
}

/* The server routes MADs by the agents; it also refuses another process's clash. */
static int sim_remote_set_agent(struct sim_transport *t, uint32_t handle, uint32_t agent_id,
			    const struct umad_agent_req *req)
{
	struct sim_remote *r = remote_of(t);
	struct fp_register q = { .handle = handle, .agent_id = agent_id };

	if (req)
		q.req = *req;
	return fabric_client_call(&r->c, req ? FP_REGISTER : FP_UNREGISTER, &q, sizeof(q));
}

/* The issm devices held now, told to the server where they changed. */
static void sim_remote_check_issm(struct sim_transport *t)
{
	struct sim_remote *r = remote_of(t);
	uint32_t h, p;

	pthread_mutex_lock(&r->issm_lock);
	for (h = 0; h < r->n_hosts; h++)
		for (p = 0; p <= SIM_MAX_PORTS; p++) {
			struct fp_issm q = { .host = h, .port = p };

			if (!sim_host_port_valid(r->nodes[h].type, r->nodes[h].num_ports, p))
				continue;
			q.held = r->ev.issm_held(r->ev.owner, h, p) != 0;
			if (q.held != r->issm_told[h][p] &&
			    fabric_client_call(&r->c, FP_ISSM, &q, sizeof(q)) == 0)
				r->issm_told[h][p] = (uint8_t)q.held;
		}
	pthread_mutex_unlock(&r->issm_lock);
}

static int sim_remote_control(struct sim_transport *t, const struct sim_fault_req *rq)
{
	struct sim_remote *r = remote_of(t);
	uint8_t buf[SIM_FAULT_WIRE_MAX];
	int len = sim_fault_encode(rq, buf, sizeof(buf));

	return len < 0 ? len : fabric_client_call(&r->c, FP_CONTROL, buf, (size_t)len);
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

/*
 * A send's answer (from addr, delay_ns late) queued for the program, its
 * delay counted from when it was sent (sent_ns; 0: now).
 */
static int queue_answer(struct soft_port *op, const struct ib_user_mad *hdr,
			const struct umad_agent_req *agent, const uint8_t *mad,
			const struct fp_addr *addr, const uint8_t *answer, size_t len,
			uint64_t delay_ns, uint64_t sent_ns)
{
	struct ib_user_mad reply;

	header_of(&reply, addr);
	reply.agent_id = hdr->agent_id;
	reply.addr.pkey_index = hdr->addr.pkey_index;
	return soft_port_answer_at(op, hdr, mad, &reply, agent, answer, len,
				   delay_ns ? (sent_ns ? sent_ns : mad_queue_now_ns()) + delay_ns : 0,
				   sent_ns);
}

/*
 * A send's reply, in r->c.reply with the lock held: its answer queued,
 * or its timeout, both counted from when it was sent (sent_ns; 0: now).
 */
static int take_result(struct sim_remote *r, struct soft_port *op, const struct ib_user_mad *hdr,
		       const struct umad_agent_req *agent, const uint8_t *mad, uint64_t sent_ns)
{
	const struct fp_result *res = (const struct fp_result *)r->c.reply.buf;

	if (r->c.reply.type == FP_RESULT && res->result == SIM_NET_ANSWERED &&
	    hdr->timeout_ms && r->c.reply.len >= sizeof(*res) + MAD_HDR_SIZE)
		return queue_answer(op, hdr, agent, mad, &res->addr, (const uint8_t *)(res + 1),
				    r->c.reply.len - sizeof(*res), res->delay_ns, sent_ns);
	return soft_port_no_answer(op, hdr, mad, sent_ns);
}

/* fabric_client's on_answer: a posted send's reply (an error from the server: as if lost). */
static void posted_answer(struct fabric_client *c, void *cookie)
{
	struct sim_remote *r = (struct sim_remote *)((char *)c - offsetof(struct sim_remote, c));
	struct posted_send *ps = cookie;

	take_result(r, ps->op, &ps->hdr, &ps->agent, ps->mad, ps->sent_ns);
	soft_port_put(ps->op);
	ps->op = NULL;
}

/* The posted sends' ports are let go: their replies will not come.  Lock held. */
static void forget_posted(struct sim_remote *r)
{
	unsigned i;

	for (i = 0; i < FP_MAILBOX_SLOTS; i++)
		if (r->posted[i].op) {
			soft_port_put(r->posted[i].op);
			r->posted[i].op = NULL;
		}
}

/*
 * The server is gone (r->c.broken): once, whoever finds it first lets
 * the posted sends go and ends every port's waits with -EIO (a receive
 * still gets what was queued before).  Lock held.
 */
static void server_gone(struct sim_remote *r)
{
	forget_posted(r);
	atomic_store(&r->n_posted, 0);
	if (!r->gone) {
		r->gone = 1;
		soft_port_fail_all(-EIO);
	}
}

/* Read posted replies (fabric_client_collect); lock held. */
static void collect(struct sim_remote *r, enum fabric_collect how)
{
	if (fabric_client_posted(&r->c))
		fabric_client_collect(&r->c, how);
	if (r->c.broken)
		server_gone(r);
	atomic_store(&r->n_posted, fabric_client_posted(&r->c));
}

/* Is a send of op with this agent and TID posted, its reply not read? */
static int posted_twice(struct sim_remote *r, const struct soft_port *op, const struct ib_user_mad *hdr,
			const uint8_t *mad)
{
	unsigned i;

	for (i = 0; i < FP_MAILBOX_SLOTS; i++) {
		const struct posted_send *ps = &r->posted[i];

		if (ps->op == op && ps->hdr.agent_id == hdr->agent_id &&
		    !memcmp(ps->mad + MAD_OFF_TID, mad + MAD_OFF_TID, MAD_TID_SIZE))
			return 1;
	}
	return 0;
}

/* --- SMPs answered here, on the mapped fabric -------------------------------------------- */

/*
 * The SMA changed node n: remembered when clients are attached there, or
 * when it is a switch that owes its SM a Trap 128 (a link changed state).
 */
static void local_node_changed(void *arg, struct sim_node *n)
{
	struct sim_remote *r = arg;
	unsigned i;

	if (!n->attached && !(n->sw && n->sw->link_trap_owed))
		return;
	for (i = 0; i < r->n_changed; i++)
		if (r->changed[i] == n)
			return;
	if (r->n_changed < SIM_NET_CHANGED_MAX)
		r->changed[r->n_changed++] = n;
}

/*
 * Carry an SMP request the SMA answers on the mapped fabric, as the server
 * would, and queue its answer or timeout: the server is not involved.  The
 * nodes it changed that clients are attached at, or that owe their SM a
 * Trap 128, are told of to the server (FP_NOTE_CHANGED), which tells the
 * clients and sends the trap.  Lock held.  1 done, 0 not one for here, or
 * -errno.
 */
static int answer_here(struct sim_remote *r, struct soft_port *op, const struct ib_user_mad *hdr,
		       const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len,
		       const struct fp_send *q, struct umad_err *err)
{
	struct sim_port *from = q->handle < LOCAL_PORTS ? atomic_load(&r->local_port[q->handle])
							 : NULL;
	struct fp_addr addr = { .sqpn = q->sqpn, .qkey = q->qkey, .sl = q->sl };
	uint8_t answer[MAD_SIZE] = { 0 };
	uint64_t delay_ns, sent_ns;
	unsigned i;
	int answered, v;

	if (!from || !sim_net_sma_answers(q->sqpn, q->dqpn, mad, mad_len))
		return 0;
	/* Replies come in the order sent: any posted before this one first. */
	if (fabric_client_posted(&r->c))
		collect(r, FABRIC_COLLECT_ALL);
	if (r->c.broken)
		return -EIO;
	memcpy(answer, mad, mad_len);
	sent_ns = mad_queue_now_ns();
	r->n_changed = 0;
	v = sim_arena_lock(r->c.arena);
	/* Never on without the lock: the send fails, and says why. */
	if (v < 0)
		return umad_err_set(err, v, "the shared fabric's memory cannot be used: %s "
				    "(a process of this user wrote over it)",
				    sim_arena_damage(r->c.arena)[0] ? sim_arena_damage(r->c.arena)
								    : strerror(-v));
	answered = sim_net_sma_round_trip(r->c.fabric, from, q->dlid, answer, &r->local_hooks,
					  &addr.slid, &delay_ns);
	sim_arena_unlock(r->c.arena);
	for (i = 0; i < r->n_changed; i++)
		fabric_client_note_changed(&r->c, r->changed[i]->index);
	if (answered && hdr->timeout_ms)
		v = queue_answer(op, hdr, agent, mad, &addr, answer, MAD_SIZE, delay_ns, sent_ns);
	else
		v = soft_port_no_answer(op, hdr, mad, sent_ns);
	return v < 0 ? v : 1;
}

/*
 * An SMP request is posted without waiting for its reply when nothing
 * would miss the reply: the program works on while the server answers,
 * and the reply is read when the program looks for it (recv, wait,
 * pending) or sends again.  Lock held.  1 posted, 0 not, or -errno.
 */
static int post_send(struct sim_remote *r, struct soft_port *op, const struct ib_user_mad *hdr,
		     const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len,
		     const struct fp_send *q)
{
	struct posted_send *ps;

	if (!fabric_client_can_post(&r->c) || mad_len > MAD_SIZE || !mad_class_is_smp(mad_class(mad)) ||
	    mad_method_is_response(mad_method(mad)) || soft_port_is_resend(hdr))
		return 0;
	if (fabric_client_posted(&r->c) >= FP_MAILBOX_SLOTS)
		collect(r, FABRIC_COLLECT_OLDEST);
	if (r->c.broken)
		return -EIO;
	/* This send counted before the waiters are looked at (see n_posted). */
	atomic_store(&r->n_posted, fabric_client_posted(&r->c) + 1);
	if (atomic_load(&r->waiters) || atomic_load(&r->watched)) {
		atomic_store(&r->n_posted, fabric_client_posted(&r->c));
		return 0;
	}
	ps = &r->posted[(r->c.mb_seq + 1) % FP_MAILBOX_SLOTS];
	ps->hdr = *hdr;
	ps->agent = *agent;
	memcpy(ps->mad, mad, MAD_SIZE);
	ps->sent_ns = mad_queue_now_ns();
	soft_port_hold(op);	/* the caller's reference lasts the call only */
	ps->op = op;
	if (fabric_client_post(&r->c, q, sizeof(*q), mad, MAD_SIZE, ps) < 0) {
		ps->op = NULL;
		soft_port_put(op);
		server_gone(r);
		return -EIO;
	}
	atomic_store(&r->n_posted, fabric_client_posted(&r->c));
	return 1;
}

/* IsSM needs no refresh for the SMA answering here: the server keeps every port's current. */
static int sim_remote_send(struct sim_transport *t, struct soft_port *op, uint32_t handle,
		       const struct ib_user_mad *hdr, const struct umad_agent_req *agent,
		       uint8_t *mad, size_t mad_len, struct umad_err *err)
{
	struct sim_remote *r = remote_of(t);
	const uint8_t *whole = (const uint8_t *)hdr + MAD_RULES_HDR_SIZE;
	struct sim_hosting_send a;
	struct fp_send q;
	int32_t rc;
	int v;

	sim_transport_send_addr(&a, handle, hdr, agent);
	q = (struct fp_send){ .handle = a.handle, .sqpn = a.sqpn, .dqpn = a.dqpn, .qkey = a.qkey,
			      .dlid = a.dlid, .pkey_index = a.pkey_index, .sl = a.sl,
			      .wait_ms = a.wait_ms, .client_cpu = peer_wait_cpu() };

	fabric_client_lock(&r->c);
	if (fabric_client_posted(&r->c)) {
		/*
		 * The kernel refuses a request whose twin still waits (check_send
		 * asked the queue): a posted twin's reply, read now, may say so.
		 */
		collect(r, FABRIC_COLLECT_READY);
		if (posted_twice(r, op, hdr, mad))
			collect(r, FABRIC_COLLECT_ALL);
		if (!mad_rules_method_is_response(mad_class(mad), mad_method(mad), mad_attr_mod(mad)) &&
		    !soft_port_is_resend(hdr) && mad_queue_is_outstanding(&op->q, hdr, mad, 0)) {
			fabric_client_done(&r->c);
			return -EINVAL;
		}
	}
	v = r->c.fabric ? answer_here(r, op, hdr, agent, mad, mad_len, &q, err) : 0;
	if (v == 0)
		v = post_send(r, op, hdr, agent, mad, mad_len, &q);
	fabric_client_done(&r->c);
	if (v != 0)
		return v < 0 ? v : 0;
	/*
	 * The lock stays held until the send's answer or timeout is queued: an
	 * answer an agent elsewhere sends, which the events thread hands over
	 * under the same lock, then finds the request waiting for it.
	 */
	v = fabric_client_request(&r->c, FP_SEND, &q, sizeof(q), mad_len > MAD_SIZE ? whole : mad,
				  mad_rules_send_len(agent, mad, mad_len), &rc);
	if (v < 0)
		return v;
	if (r->c.reply.type != FP_RESULT)
		return rc_of(r, rc);
	v = take_result(r, op, hdr, agent, mad, 0);
	fabric_client_done(&r->c);
	return v;
}

/* --- reading posted replies when the program looks for them ------------------------------ */

static ssize_t sim_remote_recv(struct sim_transport *t, int portid, void *umad, size_t len)
{
	struct sim_remote *r = remote_of(t);
	ssize_t n;

	if (!atomic_load(&r->n_posted))
		return soft_port_recv(portid, umad, len);
	fabric_client_lock(&r->c);
	collect(r, FABRIC_COLLECT_READY);
	n = soft_port_recv(portid, umad, len);
	/* Nothing yet, and replies to come: the next may bring what is looked for. */
	while (n == -EAGAIN && fabric_client_posted(&r->c)) {
		collect(r, FABRIC_COLLECT_OLDEST);
		n = soft_port_recv(portid, umad, len);
	}
	fabric_client_done(&r->c);
	return n;
}

static int sim_remote_pending(struct sim_transport *t, int portid)
{
	struct sim_remote *r = remote_of(t);
	int v = soft_port_pending(portid);

	if (!v && atomic_load(&r->n_posted)) {
		fabric_client_lock(&r->c);
		collect(r, FABRIC_COLLECT_ALL);
		fabric_client_done(&r->c);
		v = soft_port_pending(portid);
	}
	return v;
}

static int sim_remote_wait(struct sim_transport *t, int portid, int timeout_ms)
{
	struct sim_remote *r = remote_of(t);
	int v;

	atomic_fetch_add(&r->waiters, 1);
	if (atomic_load(&r->n_posted)) {
		fabric_client_lock(&r->c);
		collect(r, FABRIC_COLLECT_ALL);
		fabric_client_done(&r->c);
	}
	v = soft_port_wait(portid, timeout_ms);
	atomic_fetch_sub(&r->waiters, 1);
	return v;
}

static void sim_remote_watch_fd(struct sim_transport *t, int portid)
{
	struct sim_remote *r = remote_of(t);

	atomic_store(&r->watched, 1);
	fabric_client_lock(&r->c);
	collect(r, FABRIC_COLLECT_ALL);
	fabric_client_done(&r->c);
	soft_port_watch_fd(portid);
}

/* --- events --------------------------------------------------------------------------- */

/*
 * An event: a MAD handed over at once; a node's change noted in *changed
 * (bit h: host h), told once whatever number of notices came.
 */
static int handle_event(struct sim_remote *r, const struct fp_reader *in, uint32_t *changed)
{
	if (in->type == FP_DELIVER) {
		const struct fp_deliver *d = (const struct fp_deliver *)in->buf;
		struct ib_user_mad hdr;

		if (d->host >= r->n_hosts || d->port > SIM_MAX_PORTS)
			return -EPROTO;
		header_of(&hdr, &d->addr);
		pthread_mutex_lock(&r->c.lock);
		/* A response to a posted request finds the request waiting for it. */
		collect(r, FABRIC_COLLECT_ALL);
		r->ev.deliver(r->ev.owner, d->host, d->port, d->qpn, &hdr, (const uint8_t *)(d + 1),
			      in->len - sizeof(*d), d->delay_ns ? mad_queue_now_ns() + d->delay_ns : 0);
		pthread_mutex_unlock(&r->c.lock);
		return 0;
	}
	if (in->type == FP_NODE_CHANGED) {
		const struct fp_host *h = (const struct fp_host *)in->buf;

		if (h->host >= r->n_hosts)
			return -EPROTO;
		*changed |= 1u << h->host;
		return 0;
	}
	return -EPROTO;
}

/*
 * The changes noted, told (a sysfs tree rewritten for each node) once
 * CHANGES_INTERVAL_NS has passed since they were last (*told_ns).  How
 * long until they are due, in milliseconds; -1: none noted.
 */
static int tell_changed(struct sim_remote *r, uint32_t *changed, uint64_t *told_ns)
{
	uint64_t now;
	uint32_t h;

	if (!*changed)
		return -1;
	now = sim_net_now_ns();
	if (now < *told_ns + CHANGES_INTERVAL_NS)
		return (int)((*told_ns + CHANGES_INTERVAL_NS - now) / 1000000u) + 1;
	for (h = 0; *changed && h < r->n_hosts; h++)
		if (*changed >> h & 1) {
			*changed &= ~(1u << h);
			if (r->ev.node_changed)
				r->ev.node_changed(r->ev.owner, h);
		}
	*told_ns = sim_net_now_ns();
	return -1;
}

static void *events_main(void *arg)
{
	struct sim_remote *r = arg;
	struct pollfd pfd[3] = {
		{ .fd = r->c.event_fd, .events = POLLIN },
		{ .fd = r->stop_fd, .events = POLLIN },
		{ .fd = r->ev.issm_watch_fd, .events = POLLIN },
	};
	struct fp_reader in;
	uint32_t changed = 0;
	uint64_t told_ns = 0;
	int v = 0, due_ms = -1;

	fp_reader_init(&in);
	in.stream = r->c.stream;
	while (v >= 0) {
		if (poll(pfd, 3, due_ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[2].revents & POLLIN)
			sim_remote_check_issm(&r->base);
		else if (pfd[2].revents)
			pfd[2].fd = -1;	/* the watch ended: poll ignores it from now on */
		/*
		 * MADs are handed over as they come; the changes noted among them
		 * are told after, at most every CHANGES_INTERVAL_NS, so that a MAD
		 * behind many notices is not kept waiting for a tree rewritten for
		 * each.
		 */
		while (pfd[0].revents &&
		       (v = fp_recv_message(r->c.event_fd, &in, MSG_DONTWAIT)) == 1) {
			v = handle_event(r, &in, &changed);
			if (v < 0)
				break;
			tell_changed(r, &changed, &told_ns);	/* should they never stop */
		}
		due_ms = tell_changed(r, &changed, &told_ns);
	}
	if (v < 0) {
		struct umad_err gone = UMAD_ERR_INIT;

		/* The server went away (or spoke nonsense): calls fail, waits end. */
		pthread_mutex_lock(&r->c.lock);
		r->c.broken = 1;
		server_gone(r);
		pthread_mutex_unlock(&r->c.lock);
		/* No call of the program's to return this to: told here, once. */
		umad_err_set(&gone, v, "the shared fabric went away (%s)", strerror(-v));
		umad_err_print("sim", &gone);
	}
	fp_reader_free(&in);
	return NULL;
}

static int sim_remote_start(struct sim_transport *t, int issm_watch_fd)
{
	struct sim_remote *r = remote_of(t);
	int v;

	r->ev.issm_watch_fd = issm_watch_fd;
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (r->stop_fd < 0)
		return -errno;
	v = pthread_create(&r->thread, NULL, events_main, r);
	if (v) {
		close(r->stop_fd);
		r->stop_fd = -1;
		return -v;
	}
	r->thread_running = 1;
	return 0;
}

static void sim_remote_detach(struct sim_transport *t)
{
	struct sim_remote *r = remote_of(t);

	if (r->thread_running) {
		uint64_t one = 1;
		ssize_t n = write(r->stop_fd, &one, sizeof(one));

		(void)n;
		pthread_join(r->thread, NULL);
		r->thread_running = 0;
	}
	if (r->stop_fd >= 0)
		close(r->stop_fd);
	r->stop_fd = -1;
	if (r->connected) {
		fabric_client_lock(&r->c);
		collect(r, FABRIC_COLLECT_ALL);
		forget_posted(r);
		fabric_client_done(&r->c);
		fabric_client_close(&r->c);
	}
	r->connected = 0;
	pthread_mutex_destroy(&r->issm_lock);
	free(r);
}

/*
 * Over a Unix socket: the fabric mapped, unless UMAD_SIM_FABRIC_SMP=server.
 * Over TCP (tcp:HOST:PORT): two connections that each begin with the
 * key's handshake (fabric_client.c), nothing mapped and no mailbox, so an
 * SMP is posted on the connection as it would be to a mailbox.
 */
static int remote_attach(const struct sim_transport_params *params,
			 const struct sim_transport_events *ev, struct sim_transport **out,
			 struct fp_node *nodes, unsigned *n_nodes, struct umad_err *err)
{
	const char *smp = getenv("UMAD_SIM_FABRIC_SMP");

	if (params->where && fabric_tcp_strip_scheme(params->where))
		return attach_at(0, params, ev, out, nodes, n_nodes, err);
	/* Empty is unset, as for the other variables. */
	if (smp && *smp && strcmp(smp, "local") && strcmp(smp, "server"))
		return umad_err_set(err, -EINVAL, "UMAD_SIM_FABRIC_SMP=%s: 'local' or 'server'",
				    smp);
	return attach_at(!smp || !*smp || !strcmp(smp, "local"), params, ev, out, nodes,
			 n_nodes, err);
}

const struct sim_transport_ops sim_remote_transport = {
	.name = "remote",
	.attach = remote_attach,
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
