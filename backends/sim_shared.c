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
#include "libumad/base/mad_wire.h"
#include "simfabric/arena.h"
#include "simfabric/fabric_client.h"
#include "simfabric/fault.h"
#include "simfabric/net.h"

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

static struct {
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
	struct sim_shared_events ev;
	pthread_t thread;
	int thread_running;
	int stop_fd;
	unsigned n_hosts;
	/*
	 * With the fabric mapped (fabric_client_map), SMP requests the SMA
	 * answers are carried here, on the shared model under its lock: the
	 * port each opened handle sends from, and the node the SMP being
	 * carried changed when clients are attached there (under c.lock).
	 */
	_Atomic(struct sim_port *) local_port[LOCAL_PORTS];
	struct sim_node *changed;
	int gone;			/* server_gone() ran (under c.lock) */
} shared = { .stop_fd = -1 };

static void posted_answer(struct fabric_client *c, void *cookie);

int sim_shared_connect(const char *path, const char *const *names, unsigned n_names,
		       struct fp_node *nodes, unsigned *n_nodes)
{
	const char *smp = getenv("UMAD_SIM_FABRIC_SMP");
	char err[512];
	int r;

	/* Empty is unset, as for the other variables. */
	if (smp && *smp && strcmp(smp, "local") && strcmp(smp, "server")) {
		fprintf(stderr, "libumad: sim: UMAD_SIM_FABRIC_SMP=%s: 'local' or 'server'\n", smp);
		return -EINVAL;
	}
	r = fabric_client_connect(&shared.c, path, names, n_names, 1, nodes, n_nodes, err,
				  sizeof(err));
	if (r < 0) {
		fprintf(stderr, "libumad: sim: UMAD_SIM_FABRIC: %s\n", err);
		return r;
	}
	/*
	 * Without the mapping (a server without shared memory, an address taken
	 * here) all goes there; memory that is not what it should be is refused.
	 */
	if (!smp || !*smp || !strcmp(smp, "local")) {
		r = fabric_client_map(&shared.c, *n_nodes, err, sizeof(err));
		if (r < 0 && r != -EOPNOTSUPP && r != -EADDRINUSE) {
			fprintf(stderr, "libumad: sim: UMAD_SIM_FABRIC: %s\n", err);
			fabric_client_close(&shared.c);
			return r;
		}
	}
	shared.connected = 1;
	shared.n_hosts = *n_nodes;
	shared.c.on_answer = posted_answer;
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
	int handle = fabric_client_call(&shared.c, FP_OPEN, &q, sizeof(q));

	if (handle >= 0 && handle < LOCAL_PORTS && shared.c.fabric && host < shared.n_hosts &&
	    port <= shared.c.hosts[host]->num_ports)
		atomic_store(&shared.local_port[handle], &shared.c.hosts[host]->ports[port]);
	return handle;
}

int sim_shared_close(uint32_t handle)
{
	struct fp_handle q = { .handle = handle };

	if (handle < LOCAL_PORTS)
		atomic_store(&shared.local_port[handle], NULL);

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

int sim_shared_control(const struct sim_fault_req *rq)
{
	uint8_t buf[SIM_FAULT_WIRE_MAX];
	int len = sim_fault_encode(rq, buf, sizeof(buf));

	return len < 0 ? len : fabric_client_call(&shared.c, FP_CONTROL, buf, (size_t)len);
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
 * A send's reply, in shared.c.reply with the lock held: its answer queued,
 * or its timeout, both counted from when it was sent (sent_ns; 0: now).
 */
static int take_result(struct soft_port *op, const struct ib_user_mad *hdr,
		       const struct umad_agent_req *agent, const uint8_t *mad, uint64_t sent_ns)
{
	const struct fp_result *res = (const struct fp_result *)shared.c.reply.buf;

	if (shared.c.reply.type == FP_RESULT && res->result == SIM_NET_ANSWERED &&
	    hdr->timeout_ms && shared.c.reply.len >= sizeof(*res) + MAD_HDR_SIZE)
		return queue_answer(op, hdr, agent, mad, &res->addr, (const uint8_t *)(res + 1),
				    shared.c.reply.len - sizeof(*res), res->delay_ns, sent_ns);
	return soft_port_no_answer(op, hdr, mad, sent_ns);
}

/* fabric_client's on_answer: a posted send's reply (an error from the server: as if lost). */
static void posted_answer(struct fabric_client *c, void *cookie)
{
	struct posted_send *ps = cookie;

	(void)c;
	take_result(ps->op, &ps->hdr, &ps->agent, ps->mad, ps->sent_ns);
	soft_port_put(ps->op);
	ps->op = NULL;
}

/* The posted sends' ports are let go: their replies will not come.  Lock held. */
static void forget_posted(void)
{
	unsigned i;

	for (i = 0; i < FP_MAILBOX_SLOTS; i++)
		if (shared.posted[i].op) {
			soft_port_put(shared.posted[i].op);
			shared.posted[i].op = NULL;
		}
}

/*
 * The server is gone (shared.c.broken): once, whoever finds it first lets
 * the posted sends go and ends every port's waits with -EIO (a receive
 * still gets what was queued before).  Lock held.
 */
static void server_gone(void)
{
	forget_posted();
	atomic_store(&shared.n_posted, 0);
	if (!shared.gone) {
		shared.gone = 1;
		soft_port_fail_all(-EIO);
	}
}

/* Read posted replies (fabric_client_collect); lock held. */
static void collect(enum fabric_collect how)
{
	if (fabric_client_posted(&shared.c))
		fabric_client_collect(&shared.c, how);
	if (shared.c.broken)
		server_gone();
	atomic_store(&shared.n_posted, fabric_client_posted(&shared.c));
}

/* Is a send of op with this agent and TID posted, its reply not read? */
static int posted_twice(const struct soft_port *op, const struct ib_user_mad *hdr,
			const uint8_t *mad)
{
	unsigned i;

	for (i = 0; i < FP_MAILBOX_SLOTS; i++) {
		const struct posted_send *ps = &shared.posted[i];

		if (ps->op == op && ps->hdr.agent_id == hdr->agent_id &&
		    !memcmp(ps->mad + MAD_OFF_TID, mad + MAD_OFF_TID, MAD_TID_SIZE))
			return 1;
	}
	return 0;
}

/* --- SMPs answered here, on the mapped fabric -------------------------------------------- */

/* The SMA changed node n (the one it runs on): remembered when clients are attached there. */
static void local_node_changed(void *arg, struct sim_node *n)
{
	(void)arg;
	if (n->attached)
		shared.changed = n;
}

/* IsSM needs no refresh here: the server keeps every port's current. */
static const struct sim_sma_hooks local_hooks = { .node_changed = local_node_changed };

/*
 * Carry an SMP request the SMA answers on the mapped fabric, as the server
 * would, and queue its answer or timeout: the server is not involved.  The
 * nodes it changed that clients are attached at are told of through the
 * server.  Lock held.  1 done, 0 not one for here, or -errno.
 */
static int answer_here(struct soft_port *op, const struct ib_user_mad *hdr,
		       const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len,
		       const struct fp_send *q)
{
	struct sim_port *from = q->handle < LOCAL_PORTS ? atomic_load(&shared.local_port[q->handle])
							 : NULL;
	struct fp_addr addr = { .sqpn = q->sqpn, .qkey = q->qkey, .sl = q->sl };
	uint8_t answer[MAD_SIZE] = { 0 };
	uint64_t delay_ns, sent_ns;
	int answered, r;

	if (!from || !sim_net_sma_answers(q->sqpn, q->dqpn, mad, mad_len))
		return 0;
	/* Replies come in the order sent: any posted before this one first. */
	if (fabric_client_posted(&shared.c))
		collect(FABRIC_COLLECT_ALL);
	if (shared.c.broken)
		return -EIO;
	memcpy(answer, mad, mad_len);
	sent_ns = mad_queue_now_ns();
	shared.changed = NULL;
	r = sim_arena_lock(shared.c.arena);
	if (r < 0) {
		/* Never on without the lock: the send fails, and says why. */
		fprintf(stderr, "libumad: sim: the lock of the shared fabric's memory cannot be "
			"taken (%s): another process broke it\n", strerror(-r));
		return r;
	}
	answered = sim_net_sma_round_trip(shared.c.fabric, from, q->dlid, answer, &local_hooks,
					  &addr.slid, &delay_ns);
	sim_arena_unlock(shared.c.arena);
	if (shared.changed)
		fabric_client_note_changed(&shared.c, shared.changed->index);
	if (answered && hdr->timeout_ms)
		r = queue_answer(op, hdr, agent, mad, &addr, answer, MAD_SIZE, delay_ns, sent_ns);
	else
		r = soft_port_no_answer(op, hdr, mad, sent_ns);
	return r < 0 ? r : 1;
}

/*
 * An SMP request is posted without waiting for its reply when nothing
 * would miss the reply: the program works on while the server answers,
 * and the reply is read when the program looks for it (recv, wait,
 * pending) or sends again.  Lock held.  1 posted, 0 not, or -errno.
 */
static int post_send(struct soft_port *op, const struct ib_user_mad *hdr,
		     const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len,
		     const struct fp_send *q)
{
	struct posted_send *ps;

	if (!shared.c.mb || mad_len > MAD_SIZE || !mad_class_is_smp(mad_class(mad)) ||
	    mad_method_is_response(mad_method(mad)))
		return 0;
	if (fabric_client_posted(&shared.c) >= FP_MAILBOX_SLOTS)
		collect(FABRIC_COLLECT_OLDEST);
	if (shared.c.broken)
		return -EIO;
	/* This send counted before the waiters are looked at (see n_posted). */
	atomic_store(&shared.n_posted, fabric_client_posted(&shared.c) + 1);
	if (atomic_load(&shared.waiters) || atomic_load(&shared.watched)) {
		atomic_store(&shared.n_posted, fabric_client_posted(&shared.c));
		return 0;
	}
	ps = &shared.posted[(shared.c.mb_seq + 1) % FP_MAILBOX_SLOTS];
	ps->hdr = *hdr;
	ps->agent = *agent;
	memcpy(ps->mad, mad, MAD_SIZE);
	ps->sent_ns = mad_queue_now_ns();
	soft_port_hold(op);	/* the caller's reference lasts the call only */
	ps->op = op;
	if (fabric_client_post(&shared.c, q, sizeof(*q), mad, MAD_SIZE, ps) < 0) {
		ps->op = NULL;
		soft_port_put(op);
		server_gone();
		return -EIO;
	}
	atomic_store(&shared.n_posted, fabric_client_posted(&shared.c));
	return 1;
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
	int32_t rc;
	int r;

	fabric_client_lock(&shared.c);
	if (fabric_client_posted(&shared.c)) {
		/*
		 * The kernel refuses a request whose twin still waits (check_send
		 * asked the queue): a posted twin's reply, read now, may say so.
		 */
		collect(FABRIC_COLLECT_READY);
		if (posted_twice(op, hdr, mad))
			collect(FABRIC_COLLECT_ALL);
		if (!mad_rules_method_is_response(mad_class(mad), mad_method(mad), mad_attr_mod(mad)) &&
		    mad_queue_is_outstanding(&op->q, hdr, mad, 0)) {
			fabric_client_done(&shared.c);
			return -EINVAL;
		}
	}
	r = shared.c.fabric ? answer_here(op, hdr, agent, mad, mad_len, &q) : 0;
	if (r == 0)
		r = post_send(op, hdr, agent, mad, mad_len, &q);
	fabric_client_done(&shared.c);
	if (r != 0)
		return r < 0 ? r : 0;
	/*
	 * The lock stays held until the send's answer or timeout is queued: an
	 * answer an agent elsewhere sends, which the events thread hands over
	 * under the same lock, then finds the request waiting for it.
	 */
	r = fabric_client_request(&shared.c, FP_SEND, &q, sizeof(q), mad_len > MAD_SIZE ? whole : mad,
				  mad_rules_send_len(agent, mad, mad_len), &rc);
	if (r < 0)
		return r;
	if (shared.c.reply.type != FP_RESULT)
		return rc_of(rc);
	r = take_result(op, hdr, agent, mad, 0);
	fabric_client_done(&shared.c);
	return r;
}

/* --- reading posted replies when the program looks for them ------------------------------ */

ssize_t sim_shared_recv(int portid, void *umad, size_t len)
{
	ssize_t n;

	if (!atomic_load(&shared.n_posted))
		return soft_port_recv(portid, umad, len);
	fabric_client_lock(&shared.c);
	collect(FABRIC_COLLECT_READY);
	n = soft_port_recv(portid, umad, len);
	/* Nothing yet, and replies to come: the next may bring what is looked for. */
	while (n == -EAGAIN && fabric_client_posted(&shared.c)) {
		collect(FABRIC_COLLECT_OLDEST);
		n = soft_port_recv(portid, umad, len);
	}
	fabric_client_done(&shared.c);
	return n;
}

int sim_shared_pending(int portid)
{
	int r = soft_port_pending(portid);

	if (!r && atomic_load(&shared.n_posted)) {
		fabric_client_lock(&shared.c);
		collect(FABRIC_COLLECT_ALL);
		fabric_client_done(&shared.c);
		r = soft_port_pending(portid);
	}
	return r;
}

int sim_shared_wait(int portid, int timeout_ms)
{
	int r;

	atomic_fetch_add(&shared.waiters, 1);
	if (atomic_load(&shared.n_posted)) {
		fabric_client_lock(&shared.c);
		collect(FABRIC_COLLECT_ALL);
		fabric_client_done(&shared.c);
	}
	r = soft_port_wait(portid, timeout_ms);
	atomic_fetch_sub(&shared.waiters, 1);
	return r;
}

void sim_shared_watch_fd(int portid)
{
	atomic_store(&shared.watched, 1);
	fabric_client_lock(&shared.c);
	collect(FABRIC_COLLECT_ALL);
	fabric_client_done(&shared.c);
	soft_port_watch_fd(portid);
}

/* --- events --------------------------------------------------------------------------- */

/*
 * An event: a MAD handed over at once; a node's change noted in *changed
 * (bit h: host h), told once whatever number of notices came.
 */
static int handle_event(const struct fp_reader *in, uint32_t *changed)
{
	if (in->type == FP_DELIVER) {
		const struct fp_deliver *d = (const struct fp_deliver *)in->buf;
		struct ib_user_mad hdr;

		if (d->host >= shared.n_hosts || d->port > SIM_MAX_PORTS)
			return -EPROTO;
		header_of(&hdr, &d->addr);
		pthread_mutex_lock(&shared.c.lock);
		/* A response to a posted request finds the request waiting for it. */
		collect(FABRIC_COLLECT_ALL);
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
static int tell_changed(uint32_t *changed, uint64_t *told_ns)
{
	uint64_t now;
	uint32_t h;

	if (!*changed)
		return -1;
	now = sim_net_now_ns();
	if (now < *told_ns + CHANGES_INTERVAL_NS)
		return (int)((*told_ns + CHANGES_INTERVAL_NS - now) / 1000000u) + 1;
	for (h = 0; *changed && h < shared.n_hosts; h++)
		if (*changed >> h & 1) {
			*changed &= ~(1u << h);
			if (shared.ev.node_changed)
				shared.ev.node_changed(h);
		}
	*told_ns = sim_net_now_ns();
	return -1;
}

static void *events_main(void *arg)
{
	struct pollfd pfd[3] = {
		{ .fd = shared.c.event_fd, .events = POLLIN },
		{ .fd = shared.stop_fd, .events = POLLIN },
		{ .fd = shared.ev.watch_fd, .events = POLLIN },
	};
	struct fp_reader in;
	uint32_t changed = 0;
	uint64_t told_ns = 0;
	int r = 0, due_ms = -1;

	(void)arg;
	fp_reader_init(&in);
	while (r >= 0) {
		if (poll(pfd, 3, due_ms) < 0) {
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
		/*
		 * MADs are handed over as they come; the changes noted among them
		 * are told after, at most every CHANGES_INTERVAL_NS, so that a MAD
		 * behind many notices is not kept waiting for a tree rewritten for
		 * each.
		 */
		while (pfd[0].revents &&
		       (r = fp_recv_message(shared.c.event_fd, &in, MSG_DONTWAIT)) == 1) {
			r = handle_event(&in, &changed);
			if (r < 0)
				break;
			tell_changed(&changed, &told_ns);	/* should they never stop */
		}
		due_ms = tell_changed(&changed, &told_ns);
	}
	if (r < 0) {
		/* The server went away (or spoke nonsense): calls fail, waits end. */
		pthread_mutex_lock(&shared.c.lock);
		shared.c.broken = 1;
		server_gone();
		pthread_mutex_unlock(&shared.c.lock);
		fprintf(stderr, "libumad: sim: the shared fabric went away (%s)\n", strerror(-r));
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
	if (shared.connected) {
		fabric_client_lock(&shared.c);
		collect(FABRIC_COLLECT_ALL);
		forget_posted();
		fabric_client_done(&shared.c);
		fabric_client_close(&shared.c);
	}
	shared.connected = 0;
}
