/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The shared fabric's server (fabric_server.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/mad_rules.h"
#include "simfabric/arena.h"
#include "simfabric/describe.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/fabric_auth.h"
#include "simfabric/fabric_server.h"
#include "simfabric/fabric_tcp.h"
#include "simfabric/fabric_trust.h"
#include "simfabric/fault.h"
#include "simfabric/handshake_share.h"
#include "simfabric/hosting.h"
#include "simfabric/net.h"
#include "simfabric/peer_wait.h"
#include "simfabric/topology.h"

#define EVENT_SNDBUF	(4 << 20)		/* asked for; the system may give less */
/*
 * MADs waiting for a client that does not read them (a stopped process):
 * past this many bytes more are dropped, as an overflowing receive queue
 * drops them.  One always has room when none waits, however long.
 */
#define EVENT_QUEUE_MAX	(64u << 20)
/* How much of a long message one round reads from a client, so that the others are served meanwhile. */
#define READ_SLICE	(1u << 20)
/*
 * TCP connections whose handshake is not done are bounded, overall and
 * per source address (handshake_share.h), so that peers that never finish
 * (each holds a slot for FABRIC_AUTH_TIMEOUT_MS) can neither take every
 * descriptor nor keep other clients out.  Their failures are told in the
 * log at most once in this long: the first at once, with its reason, the
 * others as a count.
 */
#define HANDSHAKE_LOG_INTERVAL_MS	10000
/* Out of descriptors with none in reserve: how long the listener is left alone. */
#define LISTEN_PAUSE_MS	100
/*
 * After serving, how long the mailboxes (or the sockets, after a TCP
 * client) are looked at again without sleeping, at most and at least once
 * a spin has learnt less, while that pays (peer_wait.h).
 */
#define MAILBOX_SPIN_MAX_NS	50000u
#define MAILBOX_SPIN_MIN_NS	1000u
#define STREAM_SPIN_MAX_NS	50000u
#define STREAM_SPIN_MIN_NS	2000u
/*
 * The address range the fabric's model may grow to (arena.h).  Sparse:
 * only what the model touches takes memory, so it is room, not a cost.
 */
#define FABRIC_ARENA_SIZE	(32ull << 30)

/* A message on its way to a client: what its socket did not take at once, sent as it drains. */
struct out_msg {
	struct out_msg *next;
	struct fp_writer w;
	size_t bytes;			/* counted against the server's bound */
	uint8_t *owned;			/* a tail handed over with it (an SA table, a text) */
	int pass_fd;			/* a descriptor that goes with it, closed once sent */
	uint8_t copy[];			/* the rest of the message */
};

/* One of a client's two sockets, and what waits to go out on it. */
struct channel {
	struct client *c;
	int fd;				/* -1: none */
	uint32_t watched;		/* the epoll events the loop watches it for; 0: none */
	struct out_msg *first, **last;
	size_t queued;			/* bytes waiting in it */
	int stream;			/* a TCP stream (fabric_proto.h) */
};

struct client {
	struct fabric_server *s;
	struct channel conn;		/* requests and replies */
	struct channel events;		/* FP_DELIVER, FP_NODE_CHANGED */
	struct channel doorbell;	/* an eventfd its mailbox's requests are rung on (FP_DOORBELL) */
	int closing;			/* disconnect at the end of this round */
	pid_t pid;
	char name[FABRIC_TCP_NAME_MAX + 16];	/* "client PID", or "client at HOST:PORT" over TCP */
	int tcp;
	int same_host;			/* on this host (a Unix socket, TCP from one of its addresses) */
	struct fabric_auth *auth;	/* over TCP, until the handshake is done */
	struct handshake_source source;	/* over TCP, where it connects from */
	int came;			/* welcomed: its leaving is worth a line */
	uint8_t events_token[FP_TOKEN_LEN];	/* over TCP, until its event channel came */
	struct fp_reader in;
	size_t in_counted;		/* the message being read, as counted against the bound */
	size_t buffered;		/* what the server holds for it: that and both queues */
	uint32_t changed;		/* hosts (bit h: host h) whose change is still to be told */
	int notices_blocked;		/* the event socket was full when they were to go */
	struct sim_attachment *att;	/* where it is attached (hosting.h); NULL before hello */
	unsigned n_hosts;
	uint64_t events_dropped;
	struct fp_mailbox *mb;		/* the fast path, or NULL */
	uint32_t mb_seen;		/* the last request number taken from it */
	int mb_woken;			/* woken by the last answer: counts as awake */
	uint32_t peer_cpu;		/* over TCP, where its last send came from (fp_send.client_cpu) */
	struct fp_mailbox_slot *replying_to;	/* the slot the reply being made goes to, or NULL */
	struct client *next;
};

struct fabric_server {
	struct sim_hosting *hosting;	/* the fabric and who is attached where */
	struct sim_fabric *fabric;	/* the hosting's */
	struct sim_net *net;		/* the hosting's */
	struct sim_arena *arena;	/* where the fabric lives, shared with clients; or NULL */
	int epoll_fd, listen_fd;
	int tcp_fd;			/* listening over TCP (fabric_server_listen_tcp); -1: not */
	const struct fabric_key *key;	/* the TCP clients' key (the caller's) */
	unsigned n_handshakes;		/* TCP connections not through the handshake yet */
	struct handshake_share share;	/* their slots, shared fairly among sources */
	struct {
		uint64_t line_ns;	/* when the last line about them was written; 0: never */
		uint64_t interval_ns;
		unsigned refused, timed_out, turned_away, given_up;	/* since that line */
		char last[FABRIC_TCP_NAME_MAX + 16 + FABRIC_AUTH_REASON_MAX + 64];
	} failed;			/* handshakes that failed, told as a count (handshake_failed) */
	int stop_fd;			/* watched by the loop; -1: none yet */
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	FILE *log;
	struct client *clients;
	unsigned n_clients;
	unsigned n_mailboxes;
	struct peer_wait mailbox_wait;	/* when a look for the next request spins (peer_wait.h) */
	struct peer_wait stream_wait;
	uint32_t beat;			/* told to every mailbox while looking at them */
	int lock_error;			/* the arena's lock failed: the server stops (model_lock) */
	size_t buffered, buffer_max;	/* what it holds for its clients, and its bound */
	int closing_pending;		/* a client is to be disconnected at the end of the round */
	int changes_pending;		/* a client has hosts whose change is still to be told */
	int stream_served;		/* a TCP client's request was served this round */
	int read_ahead_left;		/* a TCP client's read-ahead may hold a request (serve_read_ahead) */
	int stream_elsewhere;		/* one of them runs on another CPU, or on another host */
	int reserve_fd;			/* let go to refuse a client when out of descriptors */
	int starved;			/* out of descriptors (said once) */
	uint64_t listen_paused_until;	/* the listener is left alone until then; 0: watched */
};

static void say_to(FILE *out, const char *fmt, va_list ap)
{
	fprintf(out, "umad fabric: ");
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	fflush(out);
}

/* A line in the log, when there is one: clients coming and going. */
static void say(struct fabric_server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct fabric_server *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->log)
		return;
	va_start(ap, fmt);
	say_to(s->log, fmt, ap);
	va_end(ap);
}

/*
 * What the owner must hear of (the fabric not brought up or not shared, a
 * broken lock, a client disconnected for what it cost, no descriptor
 * left): on stderr without a log.
 */
static void complain(struct fabric_server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void complain(struct fabric_server *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_to(s->log ? s->log : stderr, fmt, ap);
	va_end(ap);
}

/* --- what the server holds for its clients, and sends as their sockets drain ---------- */

static void count(struct client *c, size_t add, size_t remove)
{
	c->s->buffered = c->s->buffered + add - remove;
	c->buffered = c->buffered + add - remove;
}

/* The client goes at the end of the round (nothing more is sent to it or read from it). */
static void let_go(struct client *c)
{
	c->closing = 1;
	if (c->att)
		sim_attachment_set_active(c->att, 0);
	c->s->closing_pending = 1;
}

static void free_out_msg(struct channel *ch, struct out_msg *m)
{
	if (m->pass_fd >= 0)
		close(m->pass_fd);
	free(m->owned);
	ch->queued -= m->bytes;
	count(ch->c, 0, m->bytes);
	free(m);
}

static void empty_channel(struct channel *ch)
{
	while (ch->first) {
		struct out_msg *m = ch->first;

		ch->first = m->next;
		free_out_msg(ch, m);
	}
	ch->last = &ch->first;
}

/* Watch ch for these epoll events (0: not at all).  0, or -errno. */
static int watch(struct channel *ch, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ch };
	int op = !events ? EPOLL_CTL_DEL : ch->watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

	if (events == ch->watched || ch->fd < 0)
		return 0;
	if (epoll_ctl(ch->c->s->epoll_fd, op, ch->fd, &ev) < 0)
		return -errno;
	ch->watched = events;
	return 0;
}

/*
 * What the loop watches a client's sockets for: its connection for
 * requests, or only for room while a reply waits (a client that does not
 * read its replies is not served further); its event channel for room
 * while something waits for it.
 */
static void rewatch(struct client *c)
{
	if (c->closing || c->auth)
		return;		/* a handshake watches for what it needs (auth_progress) */
	if (watch(&c->conn, c->conn.first ? EPOLLOUT : EPOLLIN) < 0 ||
	    watch(&c->events, c->events.first || c->notices_blocked ? EPOLLOUT : 0) < 0)
		let_go(c);
}

/* Send what waits on ch, as far as its socket takes it.  0, or -errno (the client must go). */
static int flush(struct channel *ch)
{
	while (ch->first) {
		struct out_msg *m = ch->first;
		int r = fp_writer_send(ch->fd, &m->w, MSG_DONTWAIT);

		if (r <= 0)
			return r;
		ch->first = m->next;
		if (!ch->first)
			ch->last = &ch->first;
		free_out_msg(ch, m);
	}
	return 0;
}

/* What the server holds for a client goes. */
static void release(struct client *c)
{
	empty_channel(&c->conn);
	empty_channel(&c->events);
	count(c, 0, c->in_counted);
	c->in_counted = 0;
	fp_reader_free(&c->in);
}

/* The client goes, and what the server held for it at once, so that the others fit. */
static void cut_off(struct client *c)
{
	release(c);
	let_go(c);
}

/*
 * Over the bound of what the server holds for all its clients: the
 * client with the most held goes until the rest fit.
 */
static void enforce_bound(struct fabric_server *s)
{
	while (s->buffered > s->buffer_max) {
		struct client *c, *most = NULL;

		for (c = s->clients; c; c = c->next)
			if (!c->closing && (!most || c->buffered > most->buffered))
				most = c;
		if (!most || !most->buffered)
			return;		/* only clients already going hold anything */
		complain(s, "%s disconnected: the server would hold %zu bytes for its clients, "
		    "past its bound of %zu, and %zu of them for this one, the most", most->name,
		    s->buffered, s->buffer_max, most->buffered);
		cut_off(most);
	}
}

/*
 * Send a message to a client on ch: at once as far as the socket takes it,
 * the rest queued and sent as the socket drains.  owned (a tail handed
 * over, or NULL) is freed and pass_fd (or -1) closed once they are no
 * longer needed, whatever happens.  0, or -errno (the client must go).
 */
static int send_to(struct channel *ch, uint32_t type, const void *head, size_t head_len,
		   const void *tail, size_t tail_len, uint8_t *owned, int pass_fd)
{
	struct client *c = ch->c;
	size_t copy = head_len + (owned ? 0 : tail_len);
	struct out_msg *m;
	struct fp_writer w;
	int r = 0;

	if (c->closing || ch->fd < 0)
		goto done;		/* it goes: nothing more for it */
	fp_writer_init(&w, type, head, head_len, tail, tail_len, pass_fd);
	w.stream = ch->stream;
	if (!ch->first) {
		r = fp_writer_send(ch->fd, &w, MSG_DONTWAIT);
		if (r != 0)
			goto done;
	}
	m = malloc(sizeof(*m) + copy);
	if (!m) {
		r = -ENOMEM;
		goto done;
	}
	if (head_len)
		memcpy(m->copy, head, head_len);
	if (!owned && tail_len)
		memcpy(m->copy + head_len, tail, tail_len);
	m->w = w;
	m->w.head = m->copy;
	m->w.tail = owned ? owned : m->copy + head_len;
	m->owned = owned;
	m->pass_fd = pass_fd;
	m->bytes = sizeof(*m) + copy + (owned ? tail_len : 0);
	m->next = NULL;
	*ch->last = m;
	ch->last = &m->next;
	ch->queued += m->bytes;
	count(c, m->bytes, 0);
	rewatch(c);
	enforce_bound(c->s);
	return 0;
done:
	free(owned);
	if (pass_fd >= 0)
		close(pass_fd);
	return r < 0 ? r : 0;
}

/* A client that hung up its event channel gets no more events (the connection still serves it). */
static void stop_events(struct client *c)
{
	empty_channel(&c->events);
	watch(&c->events, 0);
	if (c->events.fd >= 0)
		close(c->events.fd);
	c->events.fd = -1;
	c->changed = 0;
	c->notices_blocked = 0;
}

/*
 * Tell a client of the changes to its hosts: one FP_NODE_CHANGED per host
 * however many changes it had, and only when no MAD waits for it, so that
 * notices never crowd MADs out.  What its socket does not take stays to be
 * told when it has room.
 */
static void tell_changes(struct client *c)
{
	uint32_t h;

	if (c->closing || c->events.fd < 0 || c->events.first)
		return;
	c->notices_blocked = 0;
	for (h = 0; h < c->n_hosts && c->changed; h++) {
		struct fp_host ev = { .host = h };
		int r;

		if (!(c->changed >> h & 1))
			continue;
		r = fp_send_message(c->events.fd, FP_NODE_CHANGED, &ev, sizeof(ev), -1,
				    MSG_DONTWAIT);
		if (r == -EAGAIN || r == -EWOULDBLOCK) {
			c->notices_blocked = 1;
			break;
		}
		if (r < 0) {
			stop_events(c);
			return;
		}
		c->changed &= ~(1u << h);
	}
	rewatch(c);
}

/* Every client's changes still to be told, once a round. */
static void tell_all_changes(struct fabric_server *s)
{
	struct client *c;

	if (!s->changes_pending)
		return;
	s->changes_pending = 0;
	for (c = s->clients; c; c = c->next)
		if (c->changed)
			tell_changes(c);
}

/* --- the fabric's hooks ------------------------------------------------------------- */

/*
 * Clients change the model under the arena's lock too (the SMPs they
 * answer themselves): the server holds it while it touches the model.
 * A lock that cannot be had, or a header found written over once it is
 * (a client wrote over the shared memory: sim_arena_lock checks the
 * header and the fabric's root object against the server's own copy), is
 * never gone on without: the model is left alone, and the server stops
 * (fabric_server_poll returns the error).  0 or -errno.
 */
static int model_lock(struct fabric_server *s)
{
	int r;

	if (!s->arena || s->lock_error)
		return s->lock_error;
	r = sim_arena_lock(s->arena);
	if (r < 0) {
		s->lock_error = r;
		complain(s, "the fabric's shared memory was written over by a client: %s; "
			 "stopping", sim_arena_damage(s->arena));
	}
	return r;
}

static void model_unlock(struct fabric_server *s)
{
	if (s->arena)
		sim_arena_unlock(s->arena);
}

static void addr_of(struct fp_addr *a, const struct sim_net_msg *m)
{
	memset(a, 0, sizeof(*a));
	a->sqpn = m->sqpn;
	a->qkey = m->qkey;
	a->slid = m->slid;
	a->sl = m->sl;
	a->pkey_index = sim_port_pkey_index(m->port, m->pkey);
}

/*
 * Hand a MAD to a client's agent on its event channel, whole: at once, or
 * queued until its socket has room.  A client that lets more than
 * EVENT_QUEUE_MAX wait loses the MADs past it, as an overflowing receive
 * queue does.  1 when it was handed over, 0 when lost.
 */
static int deliver_event(struct client *c, uint32_t host, const struct sim_net_msg *m)
{
	struct fp_deliver d = { .host = host, .port = m->port->num, .qpn = m->dqpn,
				.delay_ns = m->delay_ns };

	if (c->closing || c->events.fd < 0)
		return 0;
	if (c->events.first && c->events.queued + m->len > EVENT_QUEUE_MAX) {
		if (!c->events_dropped++)
			complain(c->s, "%s does not read its MADs: those past %u MiB waiting are "
			    "dropped", c->name, EVENT_QUEUE_MAX >> 20);
		return 0;
	}
	addr_of(&d.addr, m);
	if (send_to(&c->events, FP_DELIVER, &d, sizeof(d), m->data, m->len, NULL, -1) < 0) {
		stop_events(c);
		return 0;
	}
	return !c->closing;
}

static uint64_t now_ns(void)
{
	return sim_net_now_ns();
}

unsigned fabric_server_waiting(const struct fabric_server *s)
{
	return sim_hosting_waiting(s->hosting);
}

/* The hosting's calls to a client (sim_attachment_ops). */
static int client_deliver(void *owner, uint32_t host, const struct sim_net_msg *m)
{
	return deliver_event(owner, host, m);
}

/*
 * A node the client is attached at changed: told at the end of the round
 * (tell_all_changes), however many changes a round brings, one notice each.
 */
static void client_node_changed(void *owner, uint32_t host)
{
	struct client *c = owner;

	if (c->events.fd < 0)
		return;
	c->changed |= 1u << host;
	c->s->changes_pending = 1;
}

static const struct sim_attachment_ops client_ops = {
	.deliver = client_deliver,
	.node_changed = client_node_changed,
};

/* --- requests ----------------------------------------------------------------------- */

/*
 * A reply to the request being served: into the mailbox when it came from
 * there and fits, else on the connection.  owned: the tail, handed over
 * (freed here), or NULL.
 */
static int client_reply_owned(struct client *c, uint32_t type, const void *head, size_t head_len,
			      const void *tail, size_t tail_len, uint8_t *owned)
{
	struct fp_mailbox_slot *slot = c->replying_to;

	if (slot) {
		if (head_len + tail_len <= FP_MAILBOX_ROOM) {
			if (head_len)
				memcpy(slot->resp, head, head_len);
			if (tail_len)
				memcpy(slot->resp + head_len, tail, tail_len);
			slot->resp_type = type;
			slot->resp_len = (uint32_t)(head_len + tail_len);
			free(owned);
			return 0;
		}
		slot->resp_type = 0;	/* on the connection, where the client then looks */
	}
	return send_to(&c->conn, type, head, head_len, tail, tail_len, owned, -1);
}

static int client_reply(struct client *c, uint32_t type, const void *head, size_t head_len,
			const void *tail, size_t tail_len)
{
	return client_reply_owned(c, type, head, head_len, tail, tail_len, NULL);
}

static int reply_rc(struct client *c, int32_t rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int reply_rc(struct client *c, int32_t rc, const char *fmt, ...)
{
	struct fp_rc r = { .rc = rc };
	char msg[512];
	int n = 0;

	if (fmt) {
		va_list ap;

		va_start(ap, fmt);
		n = vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		if (n < 0)
			n = 0;
		if ((size_t)n >= sizeof(msg))
			n = sizeof(msg) - 1;
	}
	return client_reply(c, FP_RC, &r, sizeof(r), msg, (size_t)n);
}

static int do_hello(struct fabric_server *s, struct client *c, const uint8_t *body, size_t len)
{
	const struct fp_hello *h = (const struct fp_hello *)body;
	const char *names = (const char *)(h + 1), *end = (const char *)body + len;
	const char *name[FP_MAX_HOSTS];
	struct fp_node nodes[FP_MAX_HOSTS];
	struct fp_hello_ok ok = { .version = FP_VERSION };
	struct umad_err why = UMAD_ERR_INIT;
	int pair[2], r;
	unsigned i, n = 0;

	if (c->att)
		return reply_rc(c, -EINVAL, "hello twice");
	if (h->version != FP_VERSION)
		return reply_rc(c, -EPROTONOSUPPORT, "protocol version %u, this server speaks %u",
				h->version, FP_VERSION);
	if (h->order != FP_BYTE_ORDER)
		return reply_rc(c, -EPROTONOSUPPORT, "a client of another byte order (0x%08x)",
				h->order);
	if (h->n_hosts != UINT32_MAX) {
		if (h->n_hosts > FP_MAX_HOSTS)
			return reply_rc(c, -EINVAL, "at most %d nodes", FP_MAX_HOSTS);
		for (n = 0; n < h->n_hosts; n++) {
			const char *nul = memchr(names, '\0', (size_t)(end - names));

			if (!nul)
				return reply_rc(c, -EPROTO, "malformed node list");
			name[n] = names;
			names = nul + 1;
		}
	}
	r = sim_hosting_attach(s->hosting, name, n, &client_ops, c, &c->att, &why);
	if (r < 0)
		return reply_rc(c, r, "%s", umad_err_text(&why));
	c->n_hosts = sim_attachment_n_hosts(c->att);
	if (c->in.passed_fd >= 0) {
		/*
		 * The client's mailbox: mapped here, the descriptor no longer
		 * needed.  Only a memory file of this user's sealed against
		 * shrinking: one cut short under the mapping would kill the
		 * server with SIGBUS.
		 */
		struct stat st;
		void *mb = MAP_FAILED;
		int seals = fcntl(c->in.passed_fd, F_GET_SEALS);

		if (seals >= 0 && (seals & F_SEAL_SHRINK) && fstat(c->in.passed_fd, &st) == 0 &&
		    S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    st.st_size >= (off_t)sizeof(*c->mb))
			mb = mmap(NULL, sizeof(*c->mb), PROT_READ | PROT_WRITE, MAP_SHARED,
				  c->in.passed_fd, 0);
		close(c->in.passed_fd);
		c->in.passed_fd = -1;
		if (mb == MAP_FAILED) {
			sim_hosting_detach(c->att);
			c->att = NULL;
			return reply_rc(c, -EINVAL, "the mailbox is not a memory file of this user's, "
					"of its size, sealed against shrinking");
		}
		c->mb = mb;
		c->mb_seen = atomic_load(&c->mb->posted);
		s->n_mailboxes++;
	}
	for (i = 0; i < c->n_hosts; i++)
		fp_node_fill(&nodes[i], sim_attachment_node(c->att, i));
	ok.n_hosts = c->n_hosts;
	if (c->tcp) {
		/* The client opens its event channel itself, naming itself by the token. */
		if (getrandom(c->events_token, sizeof(c->events_token), 0) !=
		    (ssize_t)sizeof(c->events_token)) {
			r = -errno;
			sim_hosting_detach(c->att);
			c->att = NULL;
			return reply_rc(c, r, "cannot make an event channel's token");
		}
		memcpy(ok.events_token, c->events_token, sizeof(ok.events_token));
		return send_to(&c->conn, FP_HELLO_OK, &ok, sizeof(ok), nodes,
			       c->n_hosts * sizeof(nodes[0]), NULL, -1);
	}
	/* Non-blocking at both ends: the server never waits for a client (its thread polls). */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair) < 0) {
		r = -errno;
		sim_hosting_detach(c->att);
		c->att = NULL;
		return reply_rc(c, r, "cannot make an event channel");
	}
	{
		int size = EVENT_SNDBUF;

		setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
		setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	}
	r = send_to(&c->conn, FP_HELLO_OK, &ok, sizeof(ok), nodes, c->n_hosts * sizeof(nodes[0]),
		    NULL, pair[1]);
	if (r < 0) {
		close(pair[0]);
		return r;	/* the client is dropped, and detached with it */
	}
	c->events.fd = pair[0];
	return 0;
}

/* Does a token name a client waiting for its event channel?  (In time independent of where they differ.) */
static int token_names(const struct client *o, const uint8_t *token)
{
	uint8_t diff = 0, any = 0;
	unsigned i;

	for (i = 0; i < FP_TOKEN_LEN; i++) {
		diff |= o->events_token[i] ^ token[i];
		any |= o->events_token[i];
	}
	return o->tcp && o->att && o->events.fd < 0 && !o->closing && any && !diff;
}

/*
 * Over TCP, a second connection, authenticated as the first, becomes the
 * event channel of the client its token names; this connection's client
 * goes, its socket handed over.
 */
static int do_events(struct fabric_server *s, struct client *c, const struct fp_events *q)
{
	struct fp_rc ok = { .rc = 0 };
	struct client *o;
	int size = EVENT_SNDBUF, fd = c->conn.fd;

	for (o = s->clients; o && !(o != c && token_names(o, q->token)); o = o->next)
		;
	if (!c->tcp || !o || c->conn.first) {
		reply_rc(c, -ENOENT, "no client waits for this event channel");
		return -ENOENT;
	}
	/* The reply goes before the socket changes hands: it is the first thing on it. */
	if (fp_send_on(fd, 1, FP_RC, &ok, sizeof(ok), NULL, 0, -1, MSG_DONTWAIT) < 0)
		return -EIO;
	memset(o->events_token, 0, sizeof(o->events_token));
	watch(&c->conn, 0);
	c->conn.fd = -1;
	let_go(c);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	o->events.fd = fd;
	say(s, "%s has its event channel", o->name);
	rewatch(o);
	return 0;
}

/* The fabric's memory, for a client to answer SMPs itself. */
static int do_map(struct fabric_server *s, struct client *c)
{
	struct fp_mapped m = { 0 };
	unsigned i;
	int fd;

	if (!s->arena || c->tcp)
		return reply_rc(c, -EOPNOTSUPP, c->tcp ? "nothing is mapped over TCP"
						     : "this fabric is not in shared memory");
	m.base = sim_arena_base(s->arena);
	m.fabric = (uintptr_t)s->fabric;
	for (i = 0; i < c->n_hosts; i++)
		m.hosts[i] = (uintptr_t)sim_attachment_node(c->att, i);
	/* A copy of the descriptor: the reply may wait in the queue, which closes its own. */
	fd = fcntl(sim_arena_fd(s->arena), F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return reply_rc(c, -errno, "no descriptor left to hand the fabric's memory over");
	return send_to(&c->conn, FP_MAPPED, &m, sizeof(m), NULL, 0, NULL, fd);
}

/*
 * The doorbell of a client's mailbox: an eventfd it writes to when it
 * posts while the server sleeps, cheaper than FP_KICK and a wake-up that
 * goes to an idle CPU rather than to the client's (a socket's wakes the
 * reader where the writer runs).
 */
static int do_doorbell(struct client *c)
{
	int fd;

	if (!c->mb)
		return reply_rc(c, -EINVAL, "a doorbell is for a client with a mailbox");
	if (c->doorbell.fd < 0) {
		c->doorbell.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (c->doorbell.fd < 0 || watch(&c->doorbell, EPOLLIN) < 0) {
			int r = -errno;

			if (c->doorbell.fd >= 0)
				close(c->doorbell.fd);
			c->doorbell.fd = -1;
			return reply_rc(c, r, "cannot make a doorbell: %s", strerror(-r));
		}
	}
	/* A copy of the descriptor: the reply may wait in the queue, which closes its own. */
	fd = fcntl(c->doorbell.fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return reply_rc(c, -errno, "no descriptor left to hand the doorbell over");
	return send_to(&c->conn, FP_RC, &(struct fp_rc){ 0 }, sizeof(struct fp_rc), NULL, 0, NULL,
		       fd);
}

/* A client's SMP changed a node: the clients attached there learn it, and a switch traps its SM. */
static int do_note_changed(struct fabric_server *s, const struct fp_note *q)
{
	if (q->node >= s->fabric->n_nodes)
		return -EPROTO;
	sim_hosting_node_changed(s->hosting, s->fabric->nodes[q->node]);
	return 0;
}

static int do_get_ca(struct client *c, const struct fp_host *q)
{
	struct fp_port ports[SIM_MAX_PORTS + 1];
	struct fp_node node;

	if (sim_hosting_view(c->att, q->host, &node, ports) < 0)
		return reply_rc(c, -ENOENT, "no host %u", q->host);
	return client_reply(c, FP_CA, &node, sizeof(node), ports,
			    (node.num_ports + 1) * sizeof(ports[0]));
}

static int do_open(struct client *c, const struct fp_host *q)
{
	int r = sim_hosting_open(c->att, q->host, q->port);

	if (r == -EINVAL)
		return reply_rc(c, r, "no port %u at host %u", q->port, q->host);
	if (r == -EMFILE)
		return reply_rc(c, r, "too many open ports");
	return reply_rc(c, r, NULL);
}

static int do_close(struct client *c, const struct fp_handle *q)
{
	return reply_rc(c, sim_hosting_close(c->att, q->handle), NULL);
}

static int do_register(struct client *c, const struct fp_register *q, int add)
{
	struct umad_err why = UMAD_ERR_INIT;
	int r = add ? sim_hosting_register(c->att, q->handle, q->agent_id, &q->req, &why)
		    : sim_hosting_unregister(c->att, q->handle, q->agent_id);

	if (r == -EBADF)
		r = -EINVAL;
	return why.count ? reply_rc(c, r, "%s", umad_err_text(&why)) : reply_rc(c, r, NULL);
}

static int do_send(struct client *c, const uint8_t *body, size_t len)
{
	const struct fp_send *q = (const struct fp_send *)body;
	const uint8_t *mad = (const uint8_t *)(q + 1);
	size_t mad_len = len - sizeof(*q);
	struct sim_hosting_send send = {
		.handle = q->handle, .sqpn = q->sqpn, .dqpn = q->dqpn, .qkey = q->qkey,
		.dlid = q->dlid, .pkey_index = q->pkey_index, .sl = q->sl, .wait_ms = q->wait_ms,
	};
	uint8_t first[MAD_SIZE] = { 0 };
	struct sim_net_reply reply;
	struct fp_result res = { .result = SIM_NET_LOST };
	enum sim_net_result result;
	int r;

	c->peer_cpu = q->client_cpu;
	memcpy(first, mad, mad_len < MAD_SIZE ? mad_len : MAD_SIZE);
	r = sim_hosting_send(c->att, &send, first, mad_len > MAD_SIZE ? mad : NULL,
			     mad_rules_arrival_len(first, mad_len), &reply, &result);
	if (r < 0)
		return reply_rc(c, r, NULL);
	res.result = result;
	/* Over TCP from this host, or on this host's socket: its wait spins only where this is not. */
	if (c->same_host)
		res.server_cpu = peer_wait_cpu();
	if (result == SIM_NET_ANSWERED) {
		/* A long answer (an SA table) is handed to the reply as it is, not copied. */
		uint8_t *owned = reply.heap && reply.msg.data == reply.heap ? reply.heap : NULL;

		if (owned)
			reply.heap = NULL;
		addr_of(&res.addr, &reply.msg);
		res.delay_ns = reply.msg.delay_ns;
		r = client_reply_owned(c, FP_RESULT, &res, sizeof(res), reply.msg.data,
				       reply.msg.len, owned);
	} else {
		r = client_reply(c, FP_RESULT, &res, sizeof(res), NULL, 0);
	}
	sim_net_reply_release(&reply);
	return r;
}

static int do_issm(struct client *c, const struct fp_issm *q)
{
	return reply_rc(c, sim_hosting_issm(c->att, q->host, q->port, q->held), NULL);
}

static int do_control(struct fabric_server *s, struct client *c, const uint8_t *body, size_t len)
{
	struct sim_fault_req rq;
	struct umad_err why = UMAD_ERR_INIT;
	int r = sim_fault_decode(body, len, &rq, &why);

	if (r == 0)
		r = sim_hosting_control(s->hosting, &rq, &why);
	if (r == 0)
		return reply_rc(c, 0, NULL);
	return reply_rc(c, r, "%s", why.count ? umad_err_text(&why) : strerror(-r));
}

/* show, show --json, dump, dot: the fabric as it is now, as text. */
static int do_text(struct fabric_server *s, struct client *c, const struct fp_text *q)
{
	struct sim_describe_opts o = { .net = s->net };
	struct sim_text t = SIM_TEXT_INIT;
	int r;

	if (!FP_TERMINATED(q->filter))
		return reply_rc(c, -EINVAL, "unterminated node name");
	if (q->filter[0])
		o.node = q->filter;
	switch (q->kind) {
	case FP_TEXT_SHOW:	r = sim_describe_show(s->fabric, &o, &t); break;
	case FP_TEXT_SHOW_JSON:	r = sim_describe_json(s->fabric, &o, &t); break;
	case FP_TEXT_DUMP:	r = sim_describe_dump(s->fabric, &o, &t); break;
	case FP_TEXT_DOT:	r = sim_describe_dot(s->fabric, &o, &t); break;
	default:		r = -EINVAL; break;
	}
	if (r == 0) {
		size_t len = t.len + 1;
		char *text = sim_text_steal(&t);

		r = text ? client_reply_owned(c, FP_TEXT_REPLY, NULL, 0, text, len, (uint8_t *)text)
			 : reply_rc(c, -ENOMEM, "%s", strerror(ENOMEM));
	} else if (r == -ENOENT)
		r = reply_rc(c, r, "'%s' names no node of the fabric", q->filter);
	else
		r = reply_rc(c, r, "%s", strerror(-r));
	sim_text_free(&t);
	return r;
}

static int dispatch(struct fabric_server *s, struct client *c, uint32_t type,
		    const uint8_t *body, size_t len)
{
	switch (type) {
	case FP_HELLO:		return do_hello(s, c, body, len);
	case FP_GET_CA:		return do_get_ca(c, (const struct fp_host *)body);
	case FP_OPEN:		return do_open(c, (const struct fp_host *)body);
	case FP_CLOSE:		return do_close(c, (const struct fp_handle *)body);
	case FP_REGISTER:	return do_register(c, (const struct fp_register *)body, 1);
	case FP_UNREGISTER:	return do_register(c, (const struct fp_register *)body, 0);
	case FP_SEND:		return do_send(c, body, len);
	case FP_ISSM:		return do_issm(c, (const struct fp_issm *)body);
	case FP_CONTROL:	return do_control(s, c, body, len);
	case FP_TEXT:		return do_text(s, c, (const struct fp_text *)body);
	case FP_MAP:		return do_map(s, c);
	case FP_DOORBELL:	return do_doorbell(c);
	case FP_NOTE_CHANGED:	return do_note_changed(s, (const struct fp_note *)body);
	case FP_EVENTS:		return do_events(s, c, (const struct fp_events *)body);
	default:		return -EPROTO;	/* replies and events do not come from clients */
	}
}

/* One whole message from a client; a negative return disconnects it. */
static int handle(struct fabric_server *s, struct client *c, uint32_t type, const uint8_t *body,
		  size_t len)
{
	int r;

	if (!c->att && type != FP_HELLO && type != FP_EVENTS)
		return -EPROTO;
	if (type == FP_KICK)
		return 0;	/* the loop looks at the mailboxes anyway */
	r = model_lock(s);
	if (r < 0)
		return r;
	r = dispatch(s, c, type, body, len);
	model_unlock(s);
	return r;
}

/* --- clients ------------------------------------------------------------------------ */

static void drop_client(struct fabric_server *s, struct client *c)
{
	struct client **at;

	for (at = &s->clients; *at && *at != c; at = &(*at)->next)
		;
	if (*at)
		*at = c->next;
	/* Without the lock (the server stops) the model is left as it is. */
	if (c->att && model_lock(s) == 0) {
		sim_hosting_detach(c->att);
		model_unlock(s);
	}
	release(c);
	watch(&c->conn, 0);
	watch(&c->events, 0);
	watch(&c->doorbell, 0);
	if (c->conn.fd >= 0)
		close(c->conn.fd);
	if (c->events.fd >= 0)
		close(c->events.fd);
	if (c->doorbell.fd >= 0)
		close(c->doorbell.fd);
	if (c->mb) {
		munmap(c->mb, sizeof(*c->mb));
		s->n_mailboxes--;
	}
	s->n_clients--;
	if (c->auth) {
		fabric_auth_free(c->auth);
		handshake_share_release(&s->share, c);
		s->n_handshakes--;
	}
	/* A connection that never got through its handshake is in the failures' count instead. */
	if (c->came)
		say(s, "%s left", c->name);
	free(c);
}

/* A client on a connected socket (a stream over TCP), watched for `events`; NULL without memory. */
static struct client *new_client(struct fabric_server *s, int fd, int stream, uint32_t events)
{
	struct client *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->conn = (struct channel){ .c = c, .fd = fd, .stream = stream };
	c->conn.last = &c->conn.first;
	c->events = (struct channel){ .c = c, .fd = -1, .stream = stream };
	c->events.last = &c->events.first;
	c->doorbell = (struct channel){ .c = c, .fd = -1 };
	c->doorbell.last = &c->doorbell.first;
	c->tcp = stream;
	c->same_host = !stream;
	fp_reader_init(&c->in);
	c->in.slice = READ_SLICE;
	c->in.stream = stream;
	if ((stream && fp_reader_read_ahead(&c->in) < 0) || watch(&c->conn, events) < 0) {
		fp_reader_free(&c->in);
		free(c);
		return NULL;
	}
	c->next = s->clients;
	s->clients = c;
	s->n_clients++;
	return c;
}

int fabric_server_add_client(struct fabric_server *s, int fd)
{
	struct ucred cred;
	socklen_t l = sizeof(cred);
	struct client *c = new_client(s, fd, 0, EPOLLIN);

	if (!c)
		return -ENOMEM;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &l) == 0)
		c->pid = cred.pid;
	snprintf(c->name, sizeof(c->name), "client %d", (int)c->pid);
	return 0;
}

int fabric_server_add_stream_client(struct fabric_server *s, int fd)
{
	struct client *c = new_client(s, fd, 1, EPOLLIN);

	if (!c)
		return -ENOMEM;
	snprintf(c->name, sizeof(c->name), "client on a stream");
	reply_rc(c, 0, NULL);
	c->came = 1;
	return 0;
}

/* --- TCP handshakes: a fair share of their slots, their failures as a count ------- */

enum handshake_failure {
	HANDSHAKE_REFUSED,		/* no key, or not this protocol */
	HANDSHAKE_TIMED_OUT,
	HANDSHAKE_TURNED_AWAY,		/* its source held its share, or every slot was held */
	HANDSHAKE_GIVEN_UP		/* its slot went to a newcomer */
};

/* The failures counted since the last line, in one line; the count starts again. */
static void tell_handshake_failures(struct fabric_server *s, uint64_t now)
{
	unsigned n = s->failed.refused + s->failed.timed_out + s->failed.turned_away +
		     s->failed.given_up;

	if (!n)
		return;
	complain(s, "%u more TCP handshake%s failed in %.0f s: %u refused (no key, or not the "
		 "fabric's handshake), %u timed out, %u turned away and %u given up for want of "
		 "a slot (%u of %u slots for each address); the last: %s", n, n == 1 ? "" : "s",
		 (double)(now - s->failed.line_ns) / 1e9, s->failed.refused, s->failed.timed_out,
		 s->failed.turned_away, s->failed.given_up, HANDSHAKE_SHARE_PER_SOURCE,
		 HANDSHAKE_SHARE_SLOTS, s->failed.last);
	s->failed.refused = s->failed.timed_out = s->failed.turned_away = s->failed.given_up = 0;
	s->failed.line_ns = now;
}

/* The count is told when an interval has passed since the last line; ms until then, or -1. */
static int handshake_failures_due(struct fabric_server *s)
{
	uint64_t now = now_ns(), due = s->failed.line_ns + s->failed.interval_ns;

	if (!(s->failed.refused + s->failed.timed_out + s->failed.turned_away +
	      s->failed.given_up))
		return -1;
	if (now >= due) {
		tell_handshake_failures(s, now);
		return -1;
	}
	return (int)((due - now) / 1000000u) + 1;
}

/*
 * A handshake failed (who, why): a line at once when none was written in
 * the last interval, else counted and told at the interval's end, so that
 * a peer failing a thousand times a second costs the log a line per
 * interval.
 */
static void handshake_failed(struct fabric_server *s, enum handshake_failure kind,
			     const char *who, const char *why)
{
	uint64_t now = now_ns();

	handshake_failures_due(s);
	if (!s->failed.line_ns || now - s->failed.line_ns >= s->failed.interval_ns) {
		complain(s, "%s refused: %s", who, why);
		s->failed.line_ns = now;
		return;
	}
	switch (kind) {
	case HANDSHAKE_REFUSED:		s->failed.refused++; break;
	case HANDSHAKE_TIMED_OUT:	s->failed.timed_out++; break;
	case HANDSHAKE_TURNED_AWAY:	s->failed.turned_away++; break;
	case HANDSHAKE_GIVEN_UP:	s->failed.given_up++; break;
	}
	snprintf(s->failed.last, sizeof(s->failed.last), "%s refused: %s", who, why);
}

/*
 * A TCP client's handshake goes on as far as its socket lets it: once
 * done, the client is welcomed as a local one is; refused, it goes, with
 * why in the log (handshake_failed).
 */
static void auth_progress(struct fabric_server *s, struct client *c)
{
	unsigned events = 0;
	int r = fabric_auth_step(c->auth, c->conn.fd, &events);

	if (r == 0) {
		if (watch(&c->conn, events) < 0)
			let_go(c);
		return;
	}
	if (r < 0)
		handshake_failed(s, r == -ETIMEDOUT ? HANDSHAKE_TIMED_OUT : r == -EAGAIN ?
				 HANDSHAKE_GIVEN_UP : HANDSHAKE_REFUSED, c->name,
				 fabric_auth_error(c->auth));
	fabric_auth_free(c->auth);
	c->auth = NULL;
	handshake_share_release(&s->share, c);
	s->n_handshakes--;
	if (r < 0) {
		let_go(c);
		return;
	}
	c->came = 1;
	say(s, "%s came", c->name);
	reply_rc(c, 0, NULL);	/* the welcome, as on the Unix socket */
	rewatch(c);
}

/*
 * A connection turned away before its handshake: told it is busy (so
 * that it tries again later), what it sent read first so that the close
 * does not reset the connection before the refusal is read.
 */
static void turn_away(int fd, const char *why)
{
	uint8_t buf[FABRIC_AUTH_REFUSAL_MAX], drop[512];
	size_t len = fabric_auth_busy_bytes(why, buf);
	int rounds = 4;

	if (send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* Nothing to do: the peer goes without the reason. */
	}
	shutdown(fd, SHUT_WR);
	while (rounds-- > 0 && recv(fd, drop, sizeof(drop), MSG_DONTWAIT) > 0)
		;
	close(fd);
}

/*
 * Is there a slot for the handshake of c (from c->source)?  A newcomer
 * may take the oldest slot of the source holding the most
 * (handshake_share.h): that handshake is given up, and told so.  1: c
 * holds a slot; 0: c was turned away (and closed).
 */
static int handshake_slot(struct fabric_server *s, struct client *c, const char *peer)
{
	char why[160];
	void *evicted;
	struct client *v;

	switch (handshake_share_admit(&s->share, &c->source, c, &evicted)) {
	case HANDSHAKE_ADMITTED:
		return 1;
	case HANDSHAKE_EVICTED:
		v = evicted;
		fabric_auth_give_up_busy(v->auth, "its slot went to a connection from an address "
					 "holding fewer");
		auth_progress(s, v);
		return 1;
	case HANDSHAKE_OVER_SHARE:
		snprintf(why, sizeof(why), "its address has %u handshakes under way already, its "
			 "share of the server's %u", HANDSHAKE_SHARE_PER_SOURCE,
			 HANDSHAKE_SHARE_SLOTS);
		break;
	case HANDSHAKE_FULL:
	default:
		snprintf(why, sizeof(why), "all %u handshake slots are held, none by an address "
			 "holding more than its", HANDSHAKE_SHARE_SLOTS);
		break;
	}
	handshake_failed(s, HANDSHAKE_TURNED_AWAY, peer, why);
	turn_away(c->conn.fd, why);
	c->conn.fd = -1;
	return 0;
}

/* Out of descriptors: said once, until a connection is taken again. */
static void starved(struct fabric_server *s, int err)
{
	if (!s->starved)
		complain(s, "out of descriptors (%s): new clients are refused until some are free",
		    strerror(err));
	s->starved = 1;
}

/* A listener whose connection stays in the backlog is left alone for a while (resume_listening). */
static void pause_listener(struct fabric_server *s, int fd, void *tag)
{
	struct epoll_event ev = { .events = 0, .data.ptr = tag };

	epoll_ctl(s->epoll_fd, EPOLL_CTL_MOD, fd, &ev);
	s->listen_paused_until = now_ns() + LISTEN_PAUSE_MS * 1000000ull;
}


/* Does a TCP peer connect from one of this host's addresses (the one it reached)? */
static int same_host(int fd, const struct sockaddr_storage *peer)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);

	if (getsockname(fd, (struct sockaddr *)&local, &len) < 0 || local.ss_family != peer->ss_family)
		return 0;
	if (peer->ss_family == AF_INET)
		return ((const struct sockaddr_in *)peer)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)&local)->sin_addr.s_addr;
	if (peer->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)peer)->sin6_addr,
			       &((const struct sockaddr_in6 *)&local)->sin6_addr,
			       sizeof(struct in6_addr));
	return 0;
}

/*
 * A connection on the TCP listener: its handshake begins, when its source
 * has a slot (handshake_slot).
 */
static void accept_tcp(struct fabric_server *s)
{
	char peer[FABRIC_TCP_NAME_MAX], who[sizeof(((struct client *)0)->name)];
	struct umad_err why = UMAD_ERR_INIT;
	struct sockaddr_storage ss;
	socklen_t ss_len = sizeof(ss);
	struct handshake_source source;
	struct client *c;
	int fd = fabric_tcp_accept(s->tcp_fd, peer, sizeof(peer), &why);

	if (fd < 0) {
		if (fd == -EMFILE || fd == -ENFILE) {
			starved(s, -fd);
			pause_listener(s, s->tcp_fd, &s->tcp_fd);
		}
		return;
	}
	snprintf(who, sizeof(who), "client at %s", peer);
	if (getpeername(fd, (struct sockaddr *)&ss, &ss_len) < 0 ||
	    handshake_source_of((struct sockaddr *)&ss, ss_len, &source) < 0) {
		close(fd);	/* gone already, or not an IP peer */
		return;
	}
	c = new_client(s, fd, 1, EPOLLIN | EPOLLOUT);
	if (!c) {
		handshake_failed(s, HANDSHAKE_REFUSED, who, strerror(ENOMEM));
		close(fd);
		return;
	}
	c->source = source;
	c->same_host = same_host(fd, &ss);
	snprintf(c->name, sizeof(c->name), "%s", who);
	if (!handshake_slot(s, c, who)) {
		let_go(c);
		return;
	}
	if (fabric_auth_new(FABRIC_AUTH_SERVER, s->key, 0, &c->auth, &why) < 0) {
		handshake_share_release(&s->share, c);
		handshake_failed(s, HANDSHAKE_REFUSED, who, umad_err_text(&why));
		let_go(c);
		return;
	}
	s->n_handshakes++;
	auth_progress(s, c);
}

/* Handshakes whose time is up end (refused); ms until the next one's is, or -1: none. */
static int handshakes_due(struct fabric_server *s, int expire)
{
	struct client *c;
	int first = -1;

	for (c = s->clients; c && s->n_handshakes; c = c->next) {
		int left;

		if (!c->auth || c->closing)
			continue;
		left = fabric_auth_ms_left(c->auth);
		if (left <= 0 && expire)
			auth_progress(s, c);
		else if (first < 0 || left < first)
			first = left < 0 ? 0 : left;
	}
	return first;
}

/* A connection is refused with a reason (FP_RC), which the client prints. */
static void refuse(int fd, int32_t rc, const char *why)
{
	struct fp_rc r = { .rc = rc };

	fp_send_message2(fd, FP_RC, &r, sizeof(r), why, strlen(why), -1, MSG_DONTWAIT);
	close(fd);
}

/*
 * accept4 found no descriptor for a connection: it stays in the backlog and
 * the listener readable, so the loop would spin.  The reserve descriptor is
 * let go to take the connection and refuse it with the reason, then taken
 * again; with none in reserve, the listener is left alone for a while.
 */
static void out_of_descriptors(struct fabric_server *s, int err)
{
	starved(s, err);
	if (s->reserve_fd >= 0) {
		int fd;

		close(s->reserve_fd);
		fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		err = fd < 0 ? errno : 0;
		if (fd >= 0)
			refuse(fd, -EMFILE, "the fabric's server is out of descriptors");
		s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (err != EMFILE && err != ENFILE)
			return;
	}
	pause_listener(s, s->listen_fd, NULL);
}

/* The listener left alone for a while is watched again when the while is over. */
static void resume_listening(struct fabric_server *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	if (!s->listen_paused_until || now_ns() < s->listen_paused_until)
		return;
	s->listen_paused_until = 0;
	if (s->reserve_fd < 0)
		s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->listen_fd >= 0)
		epoll_ctl(s->epoll_fd, EPOLL_CTL_MOD, s->listen_fd, &ev);
	if (s->tcp_fd >= 0) {
		ev.data.ptr = &s->tcp_fd;
		epoll_ctl(s->epoll_fd, EPOLL_CTL_MOD, s->tcp_fd, &ev);
	}
}

/* Only the server's own user may use it: another's connection is refused with a reason. */
static void accept_client(struct fabric_server *s)
{
	struct ucred cred;
	socklen_t l = sizeof(cred);
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE)
			out_of_descriptors(s, errno);
		return;
	}
	if (s->starved)
		complain(s, "descriptors free again: clients are accepted");
	s->starved = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &l) < 0 || cred.uid != geteuid()) {
		say(s, "refused process %d of user %u: not the owner", (int)cred.pid,
		    (unsigned)cred.uid);
		refuse(fd, -EACCES, "the fabric serves its owner's processes only");
		return;
	}
	if (fabric_server_add_client(s, fd) < 0) {
		close(fd);
		return;
	}
	/* The welcome: the client speaks only after it, so a refusal is never lost to its hello. */
	reply_rc(s->clients, 0, NULL);
	s->clients->came = 1;
	say(s, "client %d came", (int)cred.pid);
}

/* The part of a message being read that the server holds, counted against its bound. */
static void count_incoming(struct client *c)
{
	size_t now = c->in.in_message ? c->in.len : 0;

	count(c, now, c->in_counted);
	c->in_counted = now;
}

/*
 * Serve one message of a client; 0, or -errno when it must go.  One per
 * round: a client waits for each reply, so there is rarely a second, and
 * epoll reports the connection again if there is (reading on to find none
 * would cost a system call per request) -- or, over TCP, where a second
 * may have come in the same read, serve_read_ahead does; no busy client
 * starves the rest.  A long message is read a slice a round, for the same
 * reason.
 */
static int serve_client(struct fabric_server *s, struct client *c)
{
	int r = fp_recv_message(c->conn.fd, &c->in, MSG_DONTWAIT);

	count_incoming(c);
	if (r == 0)
		enforce_bound(s);
	if (r <= 0)
		return r;
	r = handle(s, c, c->in.type, c->in.buf, c->in.len);
	if (c->conn.stream) {
		uint32_t me = peer_wait_cpu();

		/* Its next request may come while the server spins only if it runs elsewhere. */
		s->stream_served = 1;
		if (!c->same_host || !c->peer_cpu || !me || c->peer_cpu != me)
			s->stream_elsewhere = 1;
	}
	if (c->in.passed_fd >= 0) {	/* only a hello's is taken */
		close(c->in.passed_fd);
		c->in.passed_fd = -1;
	}
	fp_reader_shrink(&c->in);
	return r;
}

/* What a stream client sent is read ahead, and its socket may not show the rest: look again. */
static void note_read_ahead(struct fabric_server *s, const struct client *c)
{
	if (fp_reader_buffered(&c->in))
		s->read_ahead_left = 1;
}

/* Why a client is disconnected, when it is not simply gone. */
static void say_why(struct fabric_server *s, const struct client *c, int r)
{
	if (r != -ECONNRESET && r != -EPIPE)
		say(s, "%s disconnected: %s", c->name, strerror(-r));
}

/* A client's socket is ready (epoll's events on it). */
static void channel_ready(struct fabric_server *s, struct channel *ch, uint32_t events)
{
	struct client *c = ch->c;
	int r = 0;

	if (c->closing)
		return;
	if (ch == &c->doorbell) {
		uint64_t rung;

		/* Rung: the mailboxes are looked at at the start of every round. */
		if (read(ch->fd, &rung, sizeof(rung)) < 0 && errno != EAGAIN)
			let_go(c);
		return;
	}
	if (c->auth) {
		auth_progress(s, c);
		return;
	}
	if (events & EPOLLOUT)
		r = flush(ch);
	if (ch == &c->events) {
		if (r < 0 || (events & (EPOLLHUP | EPOLLERR)))
			stop_events(c);
		else if (c->changed)
			tell_changes(c);
		rewatch(c);
		return;
	}
	if (r == 0 && !ch->first &&
	    ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) || fp_reader_buffered(&c->in)))
		r = serve_client(s, c);		/* up to the end of what it sent, then its hangup */
	else if (r == 0 && (events & (EPOLLHUP | EPOLLERR)))
		r = -ECONNRESET;		/* gone while its reply waited */
	if (r < 0) {
		say_why(s, c, r);
		let_go(c);
	} else {
		note_read_ahead(s, c);
	}
	rewatch(c);
}

/*
 * The TCP clients whose read-ahead holds what their sockets no longer
 * show, served as if their sockets were ready (not one whose reply still
 * waits to be sent: that one's turn comes when it is, channel_ready).
 */
static void serve_read_ahead(struct fabric_server *s)
{
	struct client *c;

	s->read_ahead_left = 0;
	for (c = s->clients; c; c = c->next)
		if (!c->closing && !c->auth && !c->conn.first && fp_reader_buffered(&c->in))
			channel_ready(s, &c->conn, 0);
}

/*
 * Serve the requests a client posted in its mailbox since the last look,
 * in order: 1 if there were any, 0, or -errno to drop the client.  Not
 * while a reply waits on its connection: the client is not served until
 * it has read it.
 */
static int serve_mailbox(struct fabric_server *s, struct client *c)
{
	uint32_t posted = atomic_load_explicit(&c->mb->posted, memory_order_acquire);
	uint8_t req[FP_MAILBOX_ROOM];
	int r = 0;

	if (posted == c->mb_seen || c->closing || c->conn.first)
		return 0;
	/* The client's memory: read once, checked, as a message from the socket is. */
	if (posted - c->mb_seen > FP_MAILBOX_SLOTS)
		return -EPROTO;
	c->mb_woken = 0;
	while (c->mb_seen != posted && r >= 0 && !c->closing && !c->conn.first) {
		uint32_t seq = c->mb_seen + 1;
		struct fp_mailbox_slot *slot = &c->mb->slot[seq % FP_MAILBOX_SLOTS];
		uint32_t type = slot->req_type, len = slot->req_len;

		c->mb_seen = seq;
		if (type != FP_SEND || len > FP_MAILBOX_ROOM || len < fp_min_body(type))
			return -EPROTO;
		memcpy(req, slot->req, len);
		/* No reply made (the client is being dropped): it looks on the connection, finds it closed. */
		slot->resp_type = 0;
		c->replying_to = slot;
		r = handle(s, c, type, req, len);
		c->replying_to = NULL;
		atomic_store(&c->mb->answered, seq);
	}
	if (atomic_load(&c->mb->client_asleep)) {
		syscall(SYS_futex, &c->mb->answered, FUTEX_WAKE, 1, NULL, NULL, 0);
		c->mb_woken = 1;	/* awake from now on, if not there yet */
	}
	return r < 0 ? r : 1;
}

/* Every mailbox with a request: how many were served (a client dropped for its request too). */
static unsigned serve_mailboxes(struct fabric_server *s)
{
	struct client *c;
	unsigned n = 0;
	int r;

	for (c = s->clients; c && s->n_mailboxes; c = c->next) {
		if (!c->mb)
			continue;
		r = serve_mailbox(s, c);
		if (r < 0) {
			say_why(s, c, r);
			let_go(c);
		}
		n += r != 0;
	}
	return n;
}

/* Tell every mailbox the server is going to sleep (1), or is awake (0). */
static void mailboxes_asleep(struct fabric_server *s, uint32_t asleep)
{
	struct client *c;

	for (c = s->clients; c && s->n_mailboxes; c = c->next)
		if (c->mb)
			atomic_store(&c->mb->server_asleep, asleep);
}

/*
 * Tell every mailbox the server runs, and where (fabric_proto.h): a client
 * waiting for its answer spins only while it sees that.  Whether one of
 * them is awake on another CPU, so that its next request may come while
 * the server spins: 1 or 0.
 */
static int mailboxes_beat(struct fabric_server *s)
{
	uint32_t beat = ++s->beat, me = peer_wait_cpu(), cpu;
	struct client *c;
	int awake = 0;

	for (c = s->clients; c && s->n_mailboxes; c = c->next) {
		if (!c->mb || c->closing)
			continue;
		atomic_store_explicit(&c->mb->server_cpu, me, memory_order_relaxed);
		atomic_store_explicit(&c->mb->server_beat, beat, memory_order_release);
		cpu = atomic_load_explicit(&c->mb->client_cpu, memory_order_relaxed);
		if ((c->mb_woken || !atomic_load_explicit(&c->mb->client_asleep,
							  memory_order_relaxed)) &&
		    (cpu != me || !me))
			awake = 1;
	}
	return awake;
}

/* --- the server --------------------------------------------------------------------- */

int fabric_server_new(const struct fabric_server_options *opts, struct fabric_server **out,
		      struct umad_err *err)
{
	struct fabric_server *s = calloc(1, sizeof(*s));
	struct umad_err note = UMAD_ERR_INIT;
	struct sim_fabric *fabric;
	int r;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->epoll_fd = s->listen_fd = s->stop_fd = s->reserve_fd = s->tcp_fd = -1;
	peer_wait_init(&s->mailbox_wait, MAILBOX_SPIN_MIN_NS, MAILBOX_SPIN_MAX_NS);
	peer_wait_init(&s->stream_wait, STREAM_SPIN_MIN_NS, STREAM_SPIN_MAX_NS);
	s->log = opts->log;
	s->buffer_max = opts->buffer_max ? opts->buffer_max : FABRIC_SERVER_BUFFER_MAX;
	handshake_share_init(&s->share);
	s->failed.interval_ns = (uint64_t)(opts->handshake_log_interval_ms > 0 ?
					   opts->handshake_log_interval_ms :
					   HANDSHAKE_LOG_INTERVAL_MS) * 1000000u;
	/* Without shared memory the fabric still serves, every MAD through the server. */
	r = opts->private_memory ? 0 : sim_arena_create(FABRIC_ARENA_SIZE, &s->arena);
	if (r < 0)
		complain(s, "the fabric is not shared with its clients (%s): they send every MAD here",
			 strerror(-r));
	{
		struct sim_topology_options load = {
			.progress = opts->progress, .arg = opts->progress_arg, .arena = s->arena,
		};

		if (opts->topology)
			fabric = sim_topology_load_opts(opts->topology, err, &load);
		else
			fabric = sim_topology_parse_opts(sim_default_topology, "<default fabric>",
							 err, &load);
	}
	if (!fabric) {
		sim_arena_release(s->arena);
		free(s);
		return -EINVAL;
	}
	/* Loaded: the fabric's root object never changes from now on (sim_arena_set_root). */
	if (s->arena && sim_arena_set_root(s->arena, fabric, sizeof(*fabric)) < 0) {
		umad_err_set(err, -EINVAL, "the fabric's model does not lie in its shared memory");
		sim_fabric_free(fabric);
		sim_arena_release(s->arena);
		free(s);
		return -EINVAL;
	}
	r = sim_hosting_new(fabric, opts->builtin_sm, &s->hosting, &note);
	if (r < 0) {
		umad_err_set(err, r, "%s", umad_err_text(&note));
		sim_fabric_free(fabric);
		sim_arena_release(s->arena);
		free(s);
		return r;
	}
	if (note.count)
		complain(s, "%s", umad_err_text(&note));
	s->fabric = fabric;
	s->net = sim_hosting_net(s->hosting);
	if (r == 0) {
		s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
		if (s->epoll_fd < 0)
			r = -errno;
	}
	/* Kept to refuse a client with a reason when every other descriptor is taken. */
	if (r == 0) {
		s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (s->reserve_fd < 0)
			r = -errno;
	}
	if (r < 0) {
		fabric_server_free(s);
		return r;
	}
	*out = s;
	return 0;
}

void fabric_server_free(struct fabric_server *s)
{
	if (!s)
		return;
	while (s->clients)
		drop_client(s, s->clients);
	if (s->listen_fd >= 0) {
		close(s->listen_fd);
		unlink(s->socket_path);
	}
	if (s->tcp_fd >= 0)
		close(s->tcp_fd);
	if (s->epoll_fd >= 0)
		close(s->epoll_fd);
	if (s->reserve_fd >= 0)
		close(s->reserve_fd);
	sim_hosting_free(s->hosting);	/* the fabric with it, before the memory it is in */
	sim_arena_release(s->arena);
	free(s);
}

/*
 * The socket's directory, made owner-only, or accepted only when it is
 * ours and no one else's to enter (a bare name or one in / is where the
 * user chose).  Its descriptor, or -errno with why.
 */
static int owner_only_dir(const char *path, struct umad_err *err)
{
	const char *base = fabric_trust_basename(path);
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;

	if (base == path || base == path + 1) {
		int r;

		fd = open(base == path ? "." : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = fd < 0 ? -errno : fd;
		if (r < 0)
			umad_err_set(err, r, "cannot open the directory of %s: %s", path, strerror(-r));
		return r;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - 1 - path), path);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int r = -errno;

		return umad_err_set(err, r, "cannot create %s: %s", dir, strerror(-r));
	}
	return fabric_trust_dir(path, 077, err);
}

/*
 * Something is at path already (bind said EADDRINUSE): only a stale socket
 * of this user's, one nobody listens at, is replaced.  0 when it was
 * removed, or -errno with why.
 */
static int replace_stale(int dirfd, const char *path, const struct sockaddr_un *a,
			 struct umad_err *err)
{
	struct umad_err why = UMAD_ERR_INIT;
	int probe, r;

	r = fabric_trust_socket(dirfd, path, &why);
	if (r < 0)
		return umad_err_set(err, r == -ENOENT ? -EADDRINUSE : r, "%s (only a stale socket "
				    "of this user's is replaced)", umad_err_text(&why));
	/* A live one takes the connection (or says its backlog is full); a stale one refuses it. */
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (probe < 0) {
		r = -errno;
		return umad_err_set(err, r, "cannot listen at %s: %s", path, strerror(-r));
	}
	r = connect(probe, (const struct sockaddr *)a, sizeof(*a)) < 0 ? -errno : 0;
	close(probe);
	if (r == 0 || r == -EAGAIN)
		return umad_err_set(err, -EADDRINUSE, "a fabric is already served at %s", path);
	if (r != -ECONNREFUSED)
		return umad_err_set(err, -EADDRINUSE, "%s is a socket something else uses (%s): "
				    "not replaced", path, strerror(-r));
	if (unlinkat(dirfd, fabric_trust_basename(path), 0) < 0) {
		r = -errno;
		return umad_err_set(err, r, "cannot remove the stale socket %s: %s", path,
				    strerror(-r));
	}
	return 0;
}

int fabric_server_listen(struct fabric_server *s, const char *path, struct umad_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	int fd, dirfd, r;

	if (strlen(path) >= sizeof(a.sun_path))
		return umad_err_set(err, -ENAMETOOLONG, "socket path too long: %s", path);
	dirfd = owner_only_dir(path, err);
	if (dirfd < 0)
		return dirfd;
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		close(dirfd);
		return umad_err_set(err, r, "cannot listen at %s: %s", path, strerror(-r));
	}
	r = bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
	if (r == -EADDRINUSE) {
		r = replace_stale(dirfd, path, &a, err);
		if (r < 0) {
			close(dirfd);
			close(fd);
			return r;
		}
		r = bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
	}
	close(dirfd);
	if (r == 0 && (listen(fd, 128) < 0 || epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0))
		r = -errno;
	if (r < 0) {
		close(fd);
		return umad_err_set(err, r, "cannot listen at %s: %s", path, strerror(-r));
	}
	s->listen_fd = fd;
	snprintf(s->socket_path, sizeof(s->socket_path), "%s", path);
	return 0;
}

int fabric_server_listen_tcp(struct fabric_server *s, const char *addr,
			     const struct fabric_key *key, char *name, size_t name_size,
			     struct umad_err *err)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->tcp_fd };
	struct fabric_tcp_addr a;
	int fd, r;

	if (s->tcp_fd >= 0)
		return umad_err_set(err, -EBUSY, "already listening over TCP");
	r = fabric_tcp_parse_listen(addr, &a, err);
	if (r < 0)
		return r;
	fd = fabric_tcp_listen(&a, err);
	if (fd < 0)
		return fd;
	if (epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		r = -errno;
		close(fd);
		return umad_err_set(err, r, "cannot listen at %s: %s", addr, strerror(-r));
	}
	s->tcp_fd = fd;
	s->key = key;
	if (name && name_size)
		fabric_tcp_local_name(fd, name, name_size);
	return 0;
}

unsigned fabric_server_clients(const struct fabric_server *s)
{
	return s->n_clients;
}

size_t fabric_server_buffered(const struct fabric_server *s)
{
	return s->buffered;
}

const struct sim_node *fabric_server_find_node(const struct fabric_server *s, const char *name)
{
	return sim_fabric_find(s->fabric, name);
}

/* Milliseconds until the next trap resend is due or the listener is watched again (-1: never). */
static int next_tick_ms(struct fabric_server *s)
{
	uint64_t first = s->listen_paused_until, trap = sim_hosting_next_due(s->hosting);
	uint64_t now = now_ns();
	int handshake = s->n_handshakes ? handshakes_due(s, 0) : -1, ms;
	int failures = handshake_failures_due(s);

	if (trap && (!first || trap < first))
		first = trap;
	ms = !first ? -1 : first <= now ? 0 : (int)((first - now) / 1000000u) + 1;
	if (handshake >= 0 && (ms < 0 || handshake < ms))
		ms = handshake;
	if (failures >= 0 && (ms < 0 || failures < ms))
		ms = failures;
	return ms;
}

int fabric_server_poll(struct fabric_server *s, int timeout_ms, int stop_fd)
{
	struct epoll_event evs[64];
	int tick = next_tick_ms(s), n, i, stop = 0;
	struct peer_spin spin;
	unsigned spins;

	if (stop_fd != s->stop_fd) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->stop_fd };

		if (s->stop_fd >= 0)
			epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, s->stop_fd, NULL);
		s->stop_fd = -1;
		if (stop_fd >= 0 && epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, stop_fd, &ev) < 0)
			return -errno;
		s->stop_fd = stop_fd;
	}
	resume_listening(s);
	if (tick >= 0 && (timeout_ms < 0 || tick < timeout_ms))
		timeout_ms = tick;
	if (s->read_ahead_left) {
		serve_read_ahead(s);
		if (s->read_ahead_left)
			timeout_ms = 0;	/* more read ahead: served next round, after the others */
	}
	/*
	 * Mailboxes first.  Shortly after serving one, look again without
	 * sleeping while that pays (peer_wait.h): a client in a conversation
	 * posts its next request within microseconds, sooner than a sleep and
	 * a wake-up take -- if it runs on another CPU, and this CPU is not
	 * wanted by another process.  The sockets are looked at now and then
	 * meanwhile.  Before sleeping, say so in every mailbox, then look once
	 * more: a request posted meanwhile is either seen now or kicked.
	 */
	if (serve_mailboxes(s) && timeout_ms != 0 && mailboxes_beat(s) &&
	    peer_spin_begin(&s->mailbox_wait, &spin, now_ns())) {
		for (spins = 1;; spins++) {
			if (serve_mailboxes(s)) {
				peer_spin_hit(&s->mailbox_wait, &spin, now_ns());
				if (!mailboxes_beat(s) ||
				    !peer_spin_begin(&s->mailbox_wait, &spin, now_ns()))
					break;
				continue;
			}
			fp_cpu_relax();
			if ((spins & 7) != 0)
				continue;
			if (!peer_spin_again_at(&s->mailbox_wait, &spin, now_ns()) ||
			    !mailboxes_beat(s))
				break;
			if ((spins & 63) == 0 && (n = epoll_wait(s->epoll_fd, evs, 64, 0)) != 0)
				goto events;
		}
	}
	/* What the mailboxes' requests changed is told before sleeping; a client to drop is not kept waiting. */
	tell_all_changes(s);
	if (s->closing_pending)
		timeout_ms = 0;
	/*
	 * A client over TCP that was just served sends its next request
	 * within microseconds, as through a mailbox: its sockets are looked at
	 * again without sleeping while that pays -- not when every such client
	 * sent from this CPU (fp_send.client_cpu): it cannot send while the
	 * server spins here.  It looks for the reply so too.
	 */
	if (timeout_ms != 0 && s->stream_served) {
		int elsewhere = s->stream_elsewhere;

		s->stream_served = s->stream_elsewhere = 0;
		if (elsewhere && peer_spin_begin(&s->stream_wait, &spin, now_ns())) {
			do {
				n = epoll_wait(s->epoll_fd, evs, 64, 0);
				if (n != 0) {
					if (n > 0)
						peer_spin_hit(&s->stream_wait, &spin, now_ns());
					goto events;
				}
				fp_cpu_relax();
			} while (peer_spin_again_at(&s->stream_wait, &spin, now_ns()));
		}
	}
	if (timeout_ms != 0 && s->n_mailboxes) {
		mailboxes_asleep(s, 1);
		if (serve_mailboxes(s))
			timeout_ms = 0;
	}
	n = epoll_wait(s->epoll_fd, evs, 64, timeout_ms);
	if (s->n_mailboxes)
		mailboxes_asleep(s, 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
events:
	for (i = 0; i < n; i++) {
		if (evs[i].data.ptr == &s->stop_fd)
			stop = 1;
		else if (!evs[i].data.ptr)
			accept_client(s);
		else if (evs[i].data.ptr == &s->tcp_fd)
			accept_tcp(s);
		else
			channel_ready(s, evs[i].data.ptr, evs[i].events);
	}
	if (s->n_handshakes)
		handshakes_due(s, 1);
	tell_all_changes(s);
	s->closing_pending = 0;
	for (struct client *c = s->clients, *next; c; c = next) {
		next = c->next;
		if (c->closing)
			drop_client(s, c);
	}
	if (s->net->n_pending && model_lock(s) == 0) {
		sim_hosting_tick(s->hosting, now_ns());
		model_unlock(s);
	}
	return s->lock_error ? s->lock_error : stop;
}
