/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* umad ports emulated in user space: open-port table, agents, the kernel's rules (soft_port.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/soft_port.h"
#include "base/errbuf.h"
#include "base/mad_wire.h"

static void soft_port_recycle(struct soft_port *p);

/*
 * Open ports by portid (a descriptor number: small and dense), looked up
 * without a lock on every call: a two-level table whose chunks, once
 * made, stay, and ports whose memory is recycled but never freed, so that
 * a lookup racing with a close reads a port that is closed, never freed
 * memory.  table_lock serialises the changes (open, close, registration).
 */
#define CHUNK_BITS	10
#define CHUNK_SIZE	(1u << CHUNK_BITS)
#define N_CHUNKS	1024u		/* descriptors up to 2^20, the usual RLIMIT_NOFILE ceiling */

typedef _Atomic(struct soft_port *) port_slot;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(port_slot *) chunks[N_CHUNKS];
static struct soft_port *recycled;	/* freed ports, for reuse; under table_lock */

/* The slot of portid, or NULL when its chunk was never made (and make is 0). */
static inline port_slot *slot_of(int portid, int make)
{
	unsigned fd = (unsigned)portid, c = fd >> CHUNK_BITS;
	port_slot *chunk;

	if (portid < 0 || c >= N_CHUNKS)
		return NULL;
	chunk = atomic_load_explicit(&chunks[c], memory_order_acquire);
	if (!chunk && make) {
		chunk = calloc(CHUNK_SIZE, sizeof(*chunk));
		if (!chunk)
			return NULL;
		atomic_store_explicit(&chunks[c], chunk, memory_order_release);
	}
	return chunk ? &chunk[fd & (CHUNK_SIZE - 1)] : NULL;
}

static struct soft_port *new_port(void)
{
	struct soft_port *p;

	pthread_mutex_lock(&table_lock);
	p = recycled;
	if (p)
		recycled = p->next_free;
	pthread_mutex_unlock(&table_lock);
	if (p) {
		/* refs stays 0 until it is published: late lookups of its old portid still fail. */
		memset((char *)p + offsetof(struct soft_port, q), 0,
		       sizeof(*p) - offsetof(struct soft_port, q));
		return p;
	}
	return calloc(1, sizeof(*p));
}

int soft_port_open(const void *device_port, int is_switch, unsigned port_num, void *data,
		   int *open_errno)
{
	struct soft_port *p = new_port();
	port_slot *slot;
	int r;

	if (!p) {
		*open_errno = ENOMEM;
		return -EIO;
	}
	r = mad_queue_open(&p->q);
	if (r < 0) {
		soft_port_recycle(p);
		*open_errno = -r;
		return -EIO;
	}
	p->device_port = device_port;
	p->is_switch = is_switch;
	p->port_num = port_num;
	p->data = data;
	pthread_mutex_init(&p->agents_lock, NULL);
	pthread_mutex_lock(&table_lock);
	slot = slot_of(p->q.fd, 1);
	if (slot) {
		atomic_store_explicit(&p->portid, p->q.fd, memory_order_relaxed);
		/* Release: a lookup holding a stale pointer that takes this reference sees it whole. */
		atomic_store_explicit(&p->refs, 1, memory_order_release);
		atomic_store_explicit(slot, p, memory_order_release);
	}
	pthread_mutex_unlock(&table_lock);
	if (!slot) {
		mad_queue_free(&p->q);
		pthread_mutex_destroy(&p->agents_lock);
		soft_port_recycle(p);
		*open_errno = ENOMEM;
		return -EIO;
	}
	return p->q.fd;
}

struct soft_port *soft_port_get(int portid)
{
	port_slot *slot = slot_of(portid, 0);
	struct soft_port *p;
	unsigned refs;

	if (!slot)
		return NULL;
	p = atomic_load_explicit(slot, memory_order_acquire);
	if (!p)
		return NULL;
	/* A reference only while it has one: a port on its way out stays out. */
	refs = atomic_load_explicit(&p->refs, memory_order_relaxed);
	do {
		if (!refs)
			return NULL;
	} while (!atomic_compare_exchange_weak_explicit(&p->refs, &refs, refs + 1,
							memory_order_acquire, memory_order_relaxed));
	/* It may have been closed and reopened under another portid meanwhile. */
	if (atomic_load_explicit(&p->portid, memory_order_relaxed) != portid) {
		soft_port_put(p);
		return NULL;
	}
	return p;
}

void soft_port_hold(struct soft_port *p)
{
	atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
}

void soft_port_put(struct soft_port *p)
{
	if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
		return;
	mad_queue_free(&p->q);
	pthread_mutex_destroy(&p->agents_lock);
	soft_port_recycle(p);
}

/* Keep a port's memory for the next open (lookups may still read it). */
static void soft_port_recycle(struct soft_port *p)
{
	atomic_store_explicit(&p->portid, -1, memory_order_relaxed);
	pthread_mutex_lock(&table_lock);
	p->next_free = recycled;
	recycled = p;
	pthread_mutex_unlock(&table_lock);
}

/* Take portid out of the table; the table's reference goes to the caller. */
static struct soft_port *unlink_port(int portid)
{
	struct soft_port *p = NULL;
	port_slot *slot;

	pthread_mutex_lock(&table_lock);
	slot = slot_of(portid, 0);
	if (slot)
		p = atomic_exchange_explicit(slot, NULL, memory_order_acq_rel);
	pthread_mutex_unlock(&table_lock);
	return p;
}

int soft_port_close(int portid)
{
	struct soft_port *p = unlink_port(portid);

	if (!p)
		return -EBADF;
	/* The descriptor goes now, as close(2)'s; the rest with the last reference. */
	mad_queue_close_fd(&p->q);
	soft_port_put(p);
	return 0;
}

void soft_port_close_all(void)
{
	unsigned c, i;

	for (c = 0; c < N_CHUNKS; c++) {
		port_slot *chunk = atomic_load(&chunks[c]);

		for (i = 0; chunk && i < CHUNK_SIZE; i++)
			if (atomic_load(&chunk[i]))
				soft_port_close((int)(c << CHUNK_BITS | i));
	}
}

/* Every open port, for fn (table_lock held); stops when fn returns non-zero. */
static int for_each_open_port(int (*fn)(struct soft_port *, void *), void *arg)
{
	unsigned c, i;
	int r = 0;

	for (c = 0; c < N_CHUNKS && !r; c++) {
		port_slot *chunk = atomic_load_explicit(&chunks[c], memory_order_acquire);

		for (i = 0; chunk && i < CHUNK_SIZE && !r; i++) {
			struct soft_port *p = atomic_load_explicit(&chunk[i], memory_order_acquire);

			if (p)
				r = fn(p, arg);
		}
	}
	return r;
}

static int fail_port(struct soft_port *p, void *arg)
{
	mad_queue_fail(&p->q, *(int *)arg);
	return 0;
}

void soft_port_fail_all(int err)
{
	pthread_mutex_lock(&table_lock);
	for_each_open_port(fail_port, &err);
	pthread_mutex_unlock(&table_lock);
}

/* --- agents ------------------------------------------------------------------ */

struct clash_query {
	const struct soft_port *port;
	const struct umad_agent_req *req;
};

/* Does an agent of this port clash with the request, when it is open on the same host port? */
static int port_clashes(struct soft_port *other, void *arg)
{
	const struct clash_query *query = arg;
	int i, found = 0;

	if (other->device_port != query->port->device_port)
		return 0;
	pthread_mutex_lock(&other->agents_lock);
	for (i = 0; i < SOFT_PORT_MAX_AGENTS && !found; i++)
		found = other->agent_used[i] &&
			mad_rules_registrations_conflict(&other->agents[i], query->req);
	pthread_mutex_unlock(&other->agents_lock);
	return found;
}

int soft_port_register(int portid, struct umad_agent_req *req, uint32_t *agent_id)
{
	struct soft_port *p = soft_port_get(portid);
	int slot, r;

	if (!p)
		return -EBADF;
	/* The kernel's order: a free slot first, then the request's own checks, then clashes. */
	pthread_mutex_lock(&p->agents_lock);
	for (slot = 0; slot < SOFT_PORT_MAX_AGENTS && p->agent_used[slot]; slot++)
		;
	pthread_mutex_unlock(&p->agents_lock);
	if (req->qpn > QP1_GSI)
		r = -EINVAL;
	else if (slot == SOFT_PORT_MAX_AGENTS)
		r = -ENOMEM;
	else
		r = mad_rules_check_registration(req);
	if (r == 0) {
		/* Registrations are serialised by table_lock: the check and the claim are one step. */
		pthread_mutex_lock(&table_lock);
		struct clash_query query = { .port = p, .req = req };

		if (for_each_open_port(port_clashes, &query)) {
			r = -EINVAL;
		} else {
			pthread_mutex_lock(&p->agents_lock);
			for (slot = 0; slot < SOFT_PORT_MAX_AGENTS && p->agent_used[slot]; slot++)
				;
			if (slot == SOFT_PORT_MAX_AGENTS) {
				r = -ENOMEM;
			} else {
				p->agents[slot] = *req;
				p->agent_used[slot] = 1;
				p->hi_tid[slot] = 0;
				*agent_id = (uint32_t)slot;
			}
			pthread_mutex_unlock(&p->agents_lock);
		}
		pthread_mutex_unlock(&table_lock);
	}
	soft_port_put(p);
	return r;
}

int soft_port_unregister(int portid, uint32_t agent_id)
{
	struct soft_port *p = soft_port_get(portid);
	int r = 0;

	if (!p)
		return -EBADF;
	pthread_mutex_lock(&p->agents_lock);
	if (agent_id >= SOFT_PORT_MAX_AGENTS || !p->agent_used[agent_id])
		r = -EINVAL;
	else
		p->agent_used[agent_id] = 0;
	pthread_mutex_unlock(&p->agents_lock);
	soft_port_put(p);
	return r;
}

void soft_port_set_hi_tid(struct soft_port *p, uint32_t agent_id, uint32_t hi_tid)
{
	pthread_mutex_lock(&p->agents_lock);
	if (agent_id < SOFT_PORT_MAX_AGENTS && p->agent_used[agent_id])
		p->hi_tid[agent_id] = hi_tid;
	pthread_mutex_unlock(&p->agents_lock);
}

uint32_t soft_port_hi_tid(int portid, uint32_t agent_id)
{
	struct soft_port *p = soft_port_get(portid);
	uint32_t hi_tid = 0;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->agents_lock);
	if (agent_id < SOFT_PORT_MAX_AGENTS && p->agent_used[agent_id])
		hi_tid = p->hi_tid[agent_id];
	pthread_mutex_unlock(&p->agents_lock);
	soft_port_put(p);
	return hi_tid;
}

/* --- sends and receives --------------------------------------------------------- */

static int is_response(const uint8_t *mad)
{
	return mad_rules_method_is_response(mad_class(mad), mad_method(mad), mad_attr_mod(mad));
}

static int check_send(struct soft_port *p, const void *umad, size_t len, uint8_t *mad,
		      struct umad_agent_req *agent, uint32_t *hi_tid)
{
	const struct ib_user_mad *hdr = umad;
	size_t mad_len;
	int used, r;

	/* Room for the umad header and an RMPP header, an agent id in range, registered. */
	if (len < MAD_RULES_HDR_SIZE + RMPP_HDR_END ||
	    hdr->agent_id >= SOFT_PORT_MAX_AGENTS)
		return -EINVAL;
	pthread_mutex_lock(&p->agents_lock);
	used = p->agent_used[hdr->agent_id];
	if (used) {
		*agent = p->agents[hdr->agent_id];
		*hi_tid = p->hi_tid[hdr->agent_id];
	}
	pthread_mutex_unlock(&p->agents_lock);
	if (!used)
		return -EIO;
	mad_len = len - MAD_RULES_HDR_SIZE;
	if (mad_len >= MAD_SIZE) {
		memcpy(mad, (const uint8_t *)umad + MAD_RULES_HDR_SIZE, MAD_SIZE);
	} else {
		memcpy(mad, (const uint8_t *)umad + MAD_RULES_HDR_SIZE, mad_len);
		memset(mad + mad_len, 0, MAD_SIZE - mad_len);
	}
	r = mad_rules_check_send(agent, mad, mad_len, p->is_switch, p->port_num);
	if (r < 0)
		return r;
	/* The kernel owns the upper half of a request's TID: its agent's hi_tid. */
	if (*hi_tid && !is_response(mad))
		put_be32(mad + MAD_OFF_TID, *hi_tid);
	else
		*hi_tid = 0;
	if (mad_queue_is_outstanding(&p->q, hdr, mad, is_response(mad)))
		return -EINVAL;
	return 0;
}

/* --- resends ------------------------------------------------------------------------ */

/*
 * What soft_port_no_answer() and soft_port_answer_at() need to know of the
 * send they complete, when it is carried on this thread: soft_port_send's
 * (the whole message as it went out, which a resend repeats) or the
 * resending thread's (whose answer completes the request it resends).
 * Thread-local, so that the deliver functions' signatures stay as they are.
 */
struct carried_send {
	const struct ib_user_mad *hdr;	/* as the deliver function got it */
	const uint8_t *msg;		/* the whole message as it went out */
	size_t len;
	int is_resend;
};

static __thread const struct carried_send *carrying;

static const struct carried_send *carried(const struct ib_user_mad *hdr)
{
	return carrying && carrying->hdr == hdr ? carrying : NULL;
}

int soft_port_is_resend(const struct ib_user_mad *hdr)
{
	const struct carried_send *c = carried(hdr);

	return c && c->is_resend;
}

/*
 * The resending thread: started at the first request that will be resent,
 * it sleeps until the earliest resend it was told of falls due (next_ns),
 * then makes every resend due by then, on every open port.
 */
static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* on CLOCK_MONOTONIC */
	pthread_t thread;
	int running, stopped;
	uint64_t next_ns;		/* the earliest resend to wake for; 0: none */
	_Atomic(soft_port_deliver_fn) deliver;	/* NULL: no resends */
	const char *backend;		/* for messages */
	_Atomic(void (*)(int, const void *, size_t)) hook;
} resender = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

void soft_port_resend_with(const char *backend, soft_port_deliver_fn deliver,
			   void (*hook)(int portid, const void *umad, size_t len))
{
	resender.backend = backend;
	atomic_store(&resender.hook, hook);
	atomic_store(&resender.deliver, deliver);
}

static void resender_cond_init(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&resender.cond, &attr);
	pthread_condattr_destroy(&attr);
}

/*
 * A child of fork() has no resending thread: the next resend starts one of
 * its own.  The lock and the condition are made anew: the parent's thread
 * was waiting on the condition, and a waiter the child does not have would
 * take the child's wake-ups.
 */
static void resender_after_fork(void)
{
	pthread_mutex_init(&resender.lock, NULL);
	resender_cond_init();
	resender.running = 0;
	resender.next_ns = 0;
}

static void resender_init(void)
{
	resender_cond_init();
	pthread_atfork(NULL, NULL, resender_after_fork);
}

struct due_ports {
	struct soft_port **ports;
	size_t n, cap;
	int left_out;			/* no memory for the list: ports left for the next round */
};

/* Every open port with a resend to come, held (table_lock held). */
static int collect_resending(struct soft_port *p, void *arg)
{
	struct due_ports *d = arg;

	if (!atomic_load_explicit(&p->q.n_resending, memory_order_relaxed))
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct soft_port **grown = realloc(d->ports, cap * sizeof(*grown));

		if (!grown) {
			d->left_out = 1;
			return 1;
		}
		d->ports = grown;
		d->cap = cap;
	}
	soft_port_hold(p);
	d->ports[d->n++] = p;
	return 0;
}

/* One resend of p's (umad: header and message, len bytes) carried as its send was. */
static void resend_one(struct soft_port *p, soft_port_deliver_fn deliver, const uint8_t *umad,
		       size_t len)
{
	const struct ib_user_mad *hdr = (const struct ib_user_mad *)umad;
	void (*hook)(int, const void *, size_t) = atomic_load(&resender.hook);
	struct carried_send c = {
		.hdr = hdr, .msg = umad + MAD_RULES_HDR_SIZE, .len = len - MAD_RULES_HDR_SIZE,
		.is_resend = 1,
	};
	struct umad_agent_req agent;
	uint8_t mad[MAD_SIZE];
	int used;

	pthread_mutex_lock(&p->agents_lock);
	used = hdr->agent_id < SOFT_PORT_MAX_AGENTS && p->agent_used[hdr->agent_id];
	if (used)
		agent = p->agents[hdr->agent_id];
	pthread_mutex_unlock(&p->agents_lock);
	if (!used)
		return;		/* its agent went: the request just times out */
	if (hook)
		hook(atomic_load_explicit(&p->portid, memory_order_relaxed), umad, len);
	memcpy(mad, c.msg, MAD_SIZE);	/* the deliver function may answer in it */
	carrying = &c;
	deliver(p, hdr, &agent, mad, c.len);
	carrying = NULL;
	mad_queue_resent(&p->q, umad, mad_queue_now_ns());
}

/* Make the resends due by now; the time the next falls due (0: none). */
static uint64_t resend_due(void)
{
	soft_port_deliver_fn deliver = atomic_load(&resender.deliver);
	struct due_ports d = { 0 };
	uint8_t buf[MAD_QUEUE_HDR + MAD_QUEUE_MAD], *big;
	uint64_t next = 0, later, now = mad_queue_now_ns();
	size_t i;
	ssize_t len;

	pthread_mutex_lock(&table_lock);
	for_each_open_port(collect_resending, &d);
	pthread_mutex_unlock(&table_lock);
	for (i = 0; i < d.n; i++) {
		struct soft_port *p = d.ports[i];

		while ((len = mad_queue_take_resend(&p->q, now, buf, &big, &later)) > 0) {
			if (deliver && atomic_load_explicit(&p->portid, memory_order_relaxed) >= 0)
				resend_one(p, deliver, big ? big : buf, (size_t)len);
			free(big);
		}
		if (len < 0)
			later = now + 1000000u;	/* out of memory: try again in a while */
		if (later && (!next || later < next))
			next = later;
		soft_port_put(p);
	}
	if (d.left_out)
		next = now + 1000000u;	/* the ports left out, soon */
	free(d.ports);
	return next;
}

static void *resender_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&resender.lock);
	while (!resender.stopped) {
		uint64_t now = mad_queue_now_ns(), later;

		if (!resender.next_ns) {
			pthread_cond_wait(&resender.cond, &resender.lock);
			continue;
		}
		if (now < resender.next_ns) {
			struct timespec ts = {
				.tv_sec = (time_t)(resender.next_ns / 1000000000u),
				.tv_nsec = (long)(resender.next_ns % 1000000000u),
			};

			pthread_cond_timedwait(&resender.cond, &resender.lock, &ts);
			continue;
		}
		resender.next_ns = 0;
		pthread_mutex_unlock(&resender.lock);
		later = resend_due();
		pthread_mutex_lock(&resender.lock);
		if (later && (!resender.next_ns || later < resender.next_ns))
			resender.next_ns = later;
	}
	pthread_mutex_unlock(&resender.lock);
	return NULL;
}

/*
 * The resending thread is running (started at the first call): 0, or
 * -errno when it cannot be (said once) or was stopped.  A request is kept
 * for resends only once it runs: one with resends to come never times out
 * before its last.
 */
static int resender_start(void)
{
	sigset_t all, old;
	int r = 0;

	pthread_once(&resender.once, resender_init);
	pthread_mutex_lock(&resender.lock);
	if (!resender.running && !resender.stopped) {
		/* The program's signals stay with its own threads. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		r = -pthread_create(&resender.thread, NULL, resender_main, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (r == 0) {
			resender.running = 1;
		} else {
			/* Said once: the stop flag keeps it from being tried again. */
			struct umad_err err = UMAD_ERR_INIT;

			resender.stopped = 1;
			umad_err_set(&err, r, "cannot start the thread that resends requests "
				     "(%s): requests with retries time out without being resent",
				     strerror(-r));
			umad_err_print(resender.backend, &err);
		}
	} else if (resender.stopped) {
		r = -ESHUTDOWN;
	}
	pthread_mutex_unlock(&resender.lock);
	return r;
}

/* A resend falls due at due_ns: the thread wakes for it. */
static void resend_at(uint64_t due_ns)
{
	pthread_mutex_lock(&resender.lock);
	if (resender.running && (!resender.next_ns || due_ns < resender.next_ns)) {
		resender.next_ns = due_ns;
		pthread_cond_signal(&resender.cond);
	}
	pthread_mutex_unlock(&resender.lock);
}

void soft_port_resend_stop(void)
{
	int running;

	pthread_once(&resender.once, resender_init);
	pthread_mutex_lock(&resender.lock);
	resender.stopped = 1;
	running = resender.running;
	resender.running = 0;
	pthread_cond_signal(&resender.cond);
	pthread_mutex_unlock(&resender.lock);
	if (running)
		pthread_join(resender.thread, NULL);
	atomic_store(&resender.deliver, NULL);
}

ssize_t soft_port_send(int portid, const void *umad, size_t len, soft_port_deliver_fn deliver)
{
	struct soft_port *p = soft_port_get(portid);
	struct umad_agent_req agent;
	uint8_t mad[MAD_SIZE], *long_copy = NULL, as_sent[MAD_SIZE];
	struct carried_send c;
	uint32_t hi_tid = 0;
	int r;

	if (!p)
		return -EBADF;
	r = check_send(p, umad, len, mad, &agent, &hi_tid);
	/*
	 * mad holds a one-MAD message as it goes out; a longer one is copied,
	 * its TID rewritten too: the caller's buffer stays as written.
	 */
	if (r == 0 && hi_tid && len > MAD_RULES_HDR_SIZE + MAD_SIZE) {
		long_copy = malloc(len);
		if (!long_copy) {
			r = -ENOMEM;
		} else {
			memcpy(long_copy, umad, len);
			memcpy(long_copy + MAD_RULES_HDR_SIZE + MAD_OFF_TID, mad + MAD_OFF_TID,
			       MAD_TID_SIZE);
			umad = long_copy;
		}
	}
	if (r == 0) {
		const struct ib_user_mad *hdr = umad;

		/*
		 * A request that may be resent keeps the message as it goes out:
		 * a one-MAD message from mad, before the fabric can answer in it.
		 */
		c = (struct carried_send){ .hdr = hdr, .len = len - MAD_RULES_HDR_SIZE };
		if (hdr->timeout_ms && hdr->retries && atomic_load(&resender.deliver)) {
			if (c.len > MAD_SIZE) {
				c.msg = (const uint8_t *)umad + MAD_RULES_HDR_SIZE;
			} else {
				memcpy(as_sent, mad, MAD_SIZE);
				c.msg = as_sent;
				c.len = MAD_SIZE;
			}
			carrying = &c;
		}
		r = deliver(p, umad, &agent, mad, len - MAD_RULES_HDR_SIZE);
		carrying = NULL;
	}
	free(long_copy);
	soft_port_put(p);
	return r < 0 ? r : (ssize_t)len;
}

int soft_port_no_answer(struct soft_port *p, const struct ib_user_mad *hdr, const uint8_t *mad,
			uint64_t sent_ns)
{
	const struct carried_send *c = carried(hdr);
	int r;

	if (!hdr->timeout_ms)
		return 0;
	if (c && c->is_resend)
		return 0;	/* the request it resends waits on */
	/* What went out: the fabric may have answered in mad before the answer was lost. */
	if (c)
		mad = c->msg;
	if (!hdr->retries || is_response(mad) || !atomic_load(&resender.deliver) ||
	    resender_start() < 0)
		return mad_queue_add_timeout(&p->q, hdr, mad, is_response(mad), sent_ns);
	if (!sent_ns)
		sent_ns = mad_queue_now_ns();
	/* Not carried here (a reply read later): one MAD, copied as it went out. */
	r = mad_queue_add_resending(&p->q, hdr, mad, c ? c->len : MAD_SIZE, sent_ns);
	if (r == 0)
		resend_at(sent_ns + (uint64_t)hdr->timeout_ms * 1000000u);
	return r;
}

int soft_port_wait(int portid, int timeout_ms)
{
	struct soft_port *p = soft_port_get(portid);
	struct pollfd pfd = { .fd = portid, .events = POLLIN };
	int r;

	if (!p) {
		/* Not a port of ours: whatever poll(2) makes of the descriptor. */
		r = poll(&pfd, 1, timeout_ms);
		return r > 0 ? 0 : r == 0 ? -ETIMEDOUT : -errno;
	}
	r = mad_queue_wait(&p->q, portid, timeout_ms);
	soft_port_put(p);
	return r;
}

void soft_port_watch_fd(int portid)
{
	struct soft_port *p = soft_port_get(portid);

	if (!p)
		return;
	mad_queue_watch(&p->q);
	soft_port_put(p);
}

ssize_t soft_port_recv(int portid, void *umad, size_t len)
{
	struct soft_port *p = soft_port_get(portid);
	ssize_t r;

	if (!p)
		return -EBADF;
	r = mad_queue_pop(&p->q, umad, len);
	soft_port_put(p);
	return r;
}

int soft_port_pending(int portid)
{
	struct soft_port *p = soft_port_get(portid);
	int r;

	if (!p)
		return 0;
	r = mad_queue_pending(&p->q);
	soft_port_put(p);
	return r;
}

/* --- messages arriving from a fabric -------------------------------------------- */

int soft_port_queue_message(struct soft_port *p, const struct ib_user_mad *hdr,
			    const struct umad_agent_req *agent, const uint8_t *msg, size_t len)
{
	return soft_port_queue_message_at(p, hdr, agent, msg, len, 0, 0);
}

int soft_port_queue_message_at(struct soft_port *p, const struct ib_user_mad *hdr,
			       const struct umad_agent_req *agent, const uint8_t *msg, size_t len,
			       uint64_t due_ns, int completes)
{
	uint8_t seg[MAD_SIZE], whole_header[RMPP_HDR_END];
	struct mad_queue_msg m = { .mad = msg, .len = len };
	size_t head, first, room, off, chunk;
	uint32_t n;
	int r;

	/* A MAD of a class without RMPP, or one MAD that is not part of a message. */
	if (!mad_class_is_rmpp(mad_class(msg)) || len < RMPP_HDR_END ||
	    (len == MAD_SIZE && !(msg[RMPP_OFF_FLAGS] & UMAD_RMPP_FLAG_ACTIVE)))
		return mad_queue_push_msg_at(&p->q, hdr, &m, due_ns, completes);
	/* A whole message for an agent that lets the kernel do RMPP: reassembled, as it shows it. */
	if (mad_rules_kernel_rmpp(agent)) {
		if (msg[RMPP_OFF_FLAGS] & UMAD_RMPP_FLAG_ACTIVE) {
			mad_rules_rmpp_whole_header(whole_header, msg, len);
			m.head = whole_header;
			m.head_len = sizeof(whole_header);
		}
		return mad_queue_push_msg_at(&p->q, hdr, &m, due_ns, completes);
	}
	/* Otherwise the segments, as they travel (whole MADs), for the agent to reassemble. */
	head = mad_rmpp_header_len(mad_class(msg));
	room = MAD_SIZE - head;
	/* A message shorter than its class's header is that header, cut short, in one segment. */
	first = head < len ? head : len;
	off = first;
	n = 1;
	do {
		uint8_t flags = UMAD_RMPP_FLAG_ACTIVE;

		chunk = len - off < room ? len - off : room;
		memcpy(seg, msg, first);
		memset(seg + first, 0, MAD_SIZE - first);
		memcpy(seg + head, msg + off, chunk);
		if (n == 1)
			flags |= RMPP_FLAG_FIRST;
		if (off + chunk >= len)
			flags |= RMPP_FLAG_LAST;
		seg[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
		seg[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
		seg[RMPP_OFF_FLAGS] = (uint8_t)((seg[RMPP_OFF_FLAGS] & ~RMPP_FLAGS_MASK) | flags);
		seg[RMPP_OFF_STATUS] = 0;
		put_be32(seg + RMPP_OFF_SEG_NUM, n);
		/* PayloadLength: the whole payload in the first segment, this one's in the last. */
		if (n == 1)
			put_be32(seg + RMPP_OFF_PAYLEN, (uint32_t)(len - RMPP_HDR_END));
		else if (flags & RMPP_FLAG_LAST)
			put_be32(seg + RMPP_OFF_PAYLEN, (uint32_t)(head - RMPP_HDR_END + chunk));
		else
			put_be32(seg + RMPP_OFF_PAYLEN, 0);
		/* Each segment may end the request: the first to arrive does. */
		r = mad_queue_push_at(&p->q, hdr, seg, MAD_SIZE, due_ns, completes);
		if (r < 0)
			return r;
		off += chunk;
		n++;
	} while (off < len);
	return 0;
}

int soft_port_answer_at(struct soft_port *p, const struct ib_user_mad *req_hdr,
			const uint8_t *req_mad, const struct ib_user_mad *hdr,
			const struct umad_agent_req *agent, const uint8_t *msg, size_t len,
			uint64_t due_ns, uint64_t sent_ns)
{
	const struct carried_send *c = carried(req_hdr);
	uint32_t id;
	int r;

	if (c && c->is_resend) {
		/* The request it resends ends with it, unless it ended already. */
		if (!mad_queue_claim_request_at(&p->q, msg, due_ns, &id))
			return 0;
		return soft_port_queue_message_at(p, hdr, agent, msg, len, due_ns,
						  due_ns > mad_queue_now_ns());
	}
	if (!due_ns || due_ns <= mad_queue_now_ns())
		return soft_port_queue_message(p, hdr, agent, msg, len);
	/* Waiting as for an answer from elsewhere, so that its timeout may win. */
	r = soft_port_no_answer(p, req_hdr, req_mad, sent_ns);
	if (r < 0 || !mad_queue_claim_request_at(&p->q, msg, due_ns, &id))
		return r;
	return soft_port_queue_message_at(p, hdr, agent, msg, len, due_ns, 1);
}

struct arrival {
	const void *device_port;
	unsigned qpn;			/* the QP it arrived on */
	const struct ib_user_mad *hdr;
	const uint8_t *msg;
	size_t len;
	uint64_t due_ns;		/* when it reaches the receiver's queue (0: now) */
	int is_response;
	int taken;
};

/* Offer an arriving MAD to one open port (table_lock held): its waiting request or its agent. */
static int offer(struct soft_port *p, void *arg)
{
	struct arrival *a = arg;
	struct ib_user_mad hdr = *a->hdr;
	struct umad_agent_req agent;
	uint32_t id;
	int i, found = 0;

	if (p->device_port != a->device_port)
		return 0;
	if (a->is_response) {
		if (!mad_queue_claim_request_at(&p->q, a->msg, a->due_ns, &id))
			return 0;
		pthread_mutex_lock(&p->agents_lock);
		found = id < SOFT_PORT_MAX_AGENTS && p->agent_used[id];
		if (found)
			agent = p->agents[id];
		pthread_mutex_unlock(&p->agents_lock);
	} else {
		pthread_mutex_lock(&p->agents_lock);
		for (i = 0; i < SOFT_PORT_MAX_AGENTS && !found; i++) {
			found = p->agent_used[i] &&
				mad_rules_agent_receives(&p->agents[i], a->qpn, a->msg,
							 a->len);
			if (found) {
				agent = p->agents[i];
				id = (uint32_t)i;
			}
		}
		pthread_mutex_unlock(&p->agents_lock);
	}
	if (!found)
		return a->is_response;	/* a claimed request whose agent went: dropped */
	hdr.agent_id = id;
	a->taken = soft_port_queue_message_at(p, &hdr, &agent, a->msg, a->len, a->due_ns,
					      a->is_response && a->due_ns) == 0;
	return 1;
}

int soft_port_receive_at(const void *device_port, unsigned qpn, const struct ib_user_mad *hdr,
			 const uint8_t *msg, size_t len, uint64_t due_ns)
{
	struct arrival a = {
		.device_port = device_port, .qpn = qpn, .hdr = hdr, .msg = msg, .len = len,
		.due_ns = due_ns,
	};

	/* The length first: a MAD shorter than its header has no class or method to read. */
	if (len < MAD_HDR_SIZE)
		return 0;
	a.is_response = mad_rules_method_is_response(mad_class(msg), mad_method(msg),
						     mad_attr_mod(msg));
	pthread_mutex_lock(&table_lock);
	for_each_open_port(offer, &a);
	pthread_mutex_unlock(&table_lock);
	return a.taken;
}
