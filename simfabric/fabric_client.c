/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* A connection to a shared fabric (fabric_client.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <linux/futex.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "simfabric/arena.h"
#include "simfabric/fabric_auth.h"
#include "simfabric/fabric_client.h"
#include "simfabric/fabric_key.h"
#include "simfabric/fabric_tcp.h"
#include "simfabric/fabric_trust.h"
#include "simfabric/net.h"

/*
 * A reply (through the mailbox, or over TCP) is looked for without
 * sleeping while that pays (peer_wait.h): for this long at most, and this
 * long at least once a spin has learnt less.
 */
#define REPLY_SPIN_MAX_NS	50000u
#define REPLY_SPIN_MIN_NS	2000u
/* The server's beat unchanged this long: it is not running (off its CPU, or serving at length). */
#define BEAT_STALE_NS		5000u
/* While asleep, how often to check that the server is still there. */
#define MAILBOX_CHECK_MS	100

/* A mailbox in a memory file for the server to map: its descriptor (mapped at *mb), or -errno. */
static int make_mailbox(struct fp_mailbox **mb)
{
	int fd = memfd_create("umad-fabric-mailbox", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0)
		return -errno;
	/* Sealed at its size: the server refuses a mailbox that could shrink under its mapping. */
	if (ftruncate(fd, sizeof(**mb)) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0 ||
	    (p = mmap(NULL, sizeof(**mb), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		int r = -errno;

		close(fd);
		return r;
	}
	*mb = p;
	return fd;
}

int fabric_default_socket(char *path, size_t size)
{
	const char *named = getenv("UMAD_SIM_FABRIC");
	const char *run = getenv("XDG_RUNTIME_DIR");
	int n;

	if (named && *named)
		n = snprintf(path, size, "%s", named);
	else if (run && *run)
		n = snprintf(path, size, "%s/umad-fabric/socket", run);
	else
		n = snprintf(path, size, "/tmp/umad-fabric-%u/socket", (unsigned)getuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int fabric_client_attach_timeout_ms = FABRIC_ATTACH_TIMEOUT_MS;

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * Connect to the socket at path, after checking the directory it is in
 * and the socket itself (fabric_trust.h), by deadline (a full backlog is
 * waited out until then), and check who listens there before anything is
 * said.  The connected socket (blocking), or -errno with why.
 */
static int connect_to(const char *path, int64_t deadline, struct umad_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd, dirfd, r;

	if (strlen(path) >= sizeof(a.sun_path))
		return umad_err_set(err, -ENAMETOOLONG, "the socket path is too long: %s", path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	/* No one else may put a socket there. */
	dirfd = fabric_trust_dir(path, S_IWGRP | S_IWOTH, err);
	if (dirfd >= 0) {
		r = fabric_trust_socket(dirfd, path, err);
		close(dirfd);
	} else {
		r = dirfd;
	}
	if (r == -ENOENT)
		return umad_err_set(err, r, "cannot connect to the fabric at %s: %s", path,
				    strerror(-r));
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		return umad_err_set(err, r, "cannot connect to the fabric at %s: %s", path,
				    strerror(-r));
	}
	/* A Unix socket connects at once, or says EAGAIN while its backlog is full. */
	while ((r = connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0) == -EAGAIN) {
		if (now_ms() >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		usleep(10 * 1000);
	}
	if (r == 0) {
		/* The socket may have been replaced since it was looked at: who listens decides. */
		r = fabric_trust_peer(fd, path, err);
		if (r == 0 && fcntl(fd, F_SETFL, 0) < 0) {
			r = -errno;
			umad_err_set(err, r, "cannot connect to the fabric at %s: %s", path,
				     strerror(-r));
		}
	} else if (r == -ETIMEDOUT) {
		umad_err_set(err, r, "the fabric at %s does not take connections within %d ms (its "
			     "server stopped?)", path, fabric_client_attach_timeout_ms);
	} else {
		umad_err_set(err, r, "cannot connect to the fabric at %s: %s", path, strerror(-r));
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* A server that was busy is asked again after this long, doubled each time up to the most. */
#define BUSY_RETRY_FIRST_MS	10
#define BUSY_RETRY_MOST_MS	500

/*
 * Over TCP: connect to addr and prove, both ways, that this end and the
 * server hold the key, by deadline.  A server busy with other handshakes
 * (fabric_auth.h's FABRIC_AUTH_BUSY) is asked again until the deadline.
 * The connected socket (blocking), or -errno with why.
 */
static int connect_tcp(const char *where, const struct fabric_tcp_addr *a,
		       const struct fabric_key *key, int64_t deadline, struct umad_err *err)
{
	unsigned wait_ms = BUSY_RETRY_FIRST_MS;

	for (;;) {
		int64_t left = deadline - now_ms();
		uint32_t jitter;
		int fd, r;

		if (left <= 0)
			left = 1;
		fd = fabric_tcp_connect(a, (int)left, err);
		if (fd < 0)
			return umad_err_prefix(err, fd, "cannot connect to the fabric at %s: ",
					       where);
		left = deadline - now_ms();
		r = fabric_tcp_tune(fd, err);
		if (r == 0)
			r = fabric_auth_handshake(fd, FABRIC_AUTH_CLIENT, key,
						  left > 0 ? (int)left : 1, err);
		if (r == 0)
			return fd;
		close(fd);
		left = deadline - now_ms();
		if (r != -EAGAIN || left <= wait_ms)
			return umad_err_prefix(err, r, "the fabric at %s: ", where);
		/* Clients turned away at once do not all come back at once. */
		if (getrandom(&jitter, sizeof(jitter), GRND_NONBLOCK) != sizeof(jitter))
			jitter = (uint32_t)now_ms();
		poll(NULL, 0, (int)(wait_ms / 2 + jitter % (wait_ms / 2 + 1)));
		wait_ms = wait_ms * 2 > BUSY_RETRY_MOST_MS ? BUSY_RETRY_MOST_MS : wait_ms * 2;
	}
}

/* A message into in from fd by deadline: 1, or -ETIMEDOUT, or -errno (fp_recv_message's). */
static int recv_fd_by(int fd, struct fp_reader *in, int64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left;
		int r = fp_recv_message(fd, in, MSG_DONTWAIT);

		if (r != 0)
			return r;
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
	}
}

static int recv_by(struct fabric_client *c, int64_t deadline)
{
	return recv_fd_by(c->fd, &c->reply, deadline);
}

/* An FP_RC message's value, or -EPROTO for another message. */
static int32_t rc_in(const struct fp_reader *in)
{
	int32_t rc;

	if (in->type != FP_RC)
		return -EPROTO;
	memcpy(&rc, in->buf, sizeof(rc));
	return rc;
}

static int no_answer(struct umad_err *err, const char *path, int r);

/*
 * Over TCP: the event channel, a second connection through the handshake,
 * named by the token the server gave (fabric_proto.h).  Its descriptor, or
 * -errno with why.
 */
static int open_events(struct fabric_client *c, const struct fabric_tcp_addr *a,
		       const struct fabric_key *key, const uint8_t *token, int64_t deadline,
		       struct umad_err *err)
{
	struct fp_events q;
	struct fp_reader in;
	int fd = connect_tcp(c->path, a, key, deadline, err), r;

	if (fd < 0)
		return fd;
	fp_reader_init(&in);
	in.stream = 1;
	memcpy(q.token, token, sizeof(q.token));
	/* The welcome, then the channel's request and its answer. */
	r = recv_fd_by(fd, &in, deadline);
	if (r == 1 && (r = rc_in(&in)) == 0) {
		r = fp_send_on(fd, 1, FP_EVENTS, &q, sizeof(q), NULL, 0, -1, 0);
		if (r == 0)
			r = recv_fd_by(fd, &in, deadline);
		if (r == 1)
			r = rc_in(&in);
	}
	if (r != 0) {
		if (r == -ETIMEDOUT || r == -ECONNRESET || r == 1)
			r = no_answer(err, c->path, r == 1 ? 0 : r);
		else
			r = umad_err_set(err, r < 0 ? r : -EPROTO, "the fabric at %s refused an event "
					 "channel: %s", c->path, strerror(r < 0 ? -r : EPROTO));
		close(fd);
		fp_reader_free(&in);
		return r;
	}
	fp_reader_free(&in);
	return fd;
}

/*
 * Why the server's answer did not come (r: recv_by's error, or 0 for
 * nonsense): r, or -EPROTO for nonsense.
 */
static int no_answer(struct umad_err *err, const char *path, int r)
{
	if (r == -ETIMEDOUT)
		return umad_err_set(err, r, "the fabric at %s does not answer within %d ms (its "
				    "server stopped?)", path, fabric_client_attach_timeout_ms);
	return umad_err_set(err, r < 0 ? r : -EPROTO, "the fabric at %s does not answer: %s", path,
			    strerror(r < 0 ? -r : EPROTO));
}

/*
 * One request of the attach (the hello, FP_MAP), its reply in c->reply by
 * deadline.  0 with the lock held, the reply's FP_RC value in *rc (else
 * 0); or -errno without it, why in err.
 */
static int attach_request(struct fabric_client *c, uint32_t type, const void *head,
			  size_t head_len, const void *tail, size_t tail_len, int pass_fd,
			  int64_t deadline, int32_t *rc, struct umad_err *err)
{
	int r;

	pthread_mutex_lock(&c->lock);
	r = fp_send_on(c->fd, c->stream, type, head, head_len, tail, tail_len, pass_fd, 0);
	if (r == 0)
		r = recv_by(c, deadline);
	if (r < 0) {
		no_answer(err, c->path, r);
		c->broken = 1;
		pthread_mutex_unlock(&c->lock);
		return r;
	}
	*rc = 0;
	if (c->reply.type == FP_RC)
		memcpy(rc, c->reply.buf, sizeof(*rc));
	return 0;
}

/* An FP_RC reply refusing, in c->reply: its value (-EPROTO if not one), and why in err. */
static int refusal(const struct fabric_client *c, int32_t rc, struct umad_err *err)
{
	char msg[512];

	return umad_err_set(err, rc < 0 ? rc : -EPROTO, "the fabric at %s refused: %s", c->path,
			    fabric_client_reply_text(c, msg, sizeof(msg)));
}

/* The same for a request's reply (lock held): the lock is released. */
static int refused(struct fabric_client *c, int32_t rc, struct umad_err *err)
{
	int r = refusal(c, rc, err);

	fabric_client_done(c);
	return r;
}

/*
 * The mailbox's doorbell (FP_DOORBELL): without one (a server out of
 * descriptors), requests posted while it sleeps are kicked on the
 * connection instead.  0, or -errno with why in err when the server went.
 */
static int take_doorbell(struct fabric_client *c, int64_t deadline, struct umad_err *err)
{
	uint32_t zero = 0;
	int32_t rc;
	int r = attach_request(c, FP_DOORBELL, &zero, sizeof(zero), NULL, 0, -1, deadline, &rc,
			       err);

	if (r < 0)
		return r;
	if (c->reply.type == FP_RC && rc == 0 && c->reply.passed_fd >= 0) {
		c->doorbell_fd = c->reply.passed_fd;
		c->reply.passed_fd = -1;
	}
	if (c->reply.passed_fd >= 0)
		close(c->reply.passed_fd);
	c->reply.passed_fd = -1;
	fabric_client_done(c);
	return 0;
}

/* The names as the hello carries them, each with its NUL, into list (*len bytes): 0 or -errno. */
static int name_list(const char *const *names, unsigned n_names, char *list, size_t *len,
		     struct umad_err *err)
{
	unsigned i;

	*len = 0;
	if (n_names > FP_MAX_HOSTS)
		return umad_err_set(err, -EINVAL, "at most %d nodes", FP_MAX_HOSTS);
	for (i = 0; i < n_names; i++) {
		size_t n = strlen(names[i]) + 1;

		if (n > FP_NAME_MAX)
			return umad_err_set(err, -ENAMETOOLONG, "node name '%.40s...' too long",
					    names[i]);
		memcpy(list + *len, names[i], n);
		*len += n;
	}
	return 0;
}

/*
 * Over TCP (tcp: path after its scheme): the address and the key read
 * (*key the caller's to free), the reader set to read ahead, and the
 * connection made, in c->fd (-errno there when it failed).  0 or -errno.
 */
static int connect_stream(struct fabric_client *c, const char *path, const char *tcp,
			  struct fabric_tcp_addr *addr, struct fabric_key **key, int64_t deadline,
			  struct umad_err *err)
{
	int r = fabric_tcp_parse(tcp, addr, err);

	if (r == 0) {
		r = fabric_key_load_env(key, err);
		if (r == -ENOKEY)
			umad_err_set(err, r, "a fabric reached over TCP needs its key: set %s "
				     "to the key file", FABRIC_KEY_ENV);
	}
	if (r < 0)
		return umad_err_prefix(err, r, "%s: ", path);
	c->stream = 1;
	c->reply.stream = 1;
	/* A reply's frame and piece in one read (every wait reads before it polls). */
	r = fp_reader_read_ahead(&c->reply);
	if (r < 0)
		return umad_err_set(err, r, "out of memory");
	c->fd = connect_tcp(path, addr, *key, deadline, err);
	return 0;
}

int fabric_client_connect(struct fabric_client *c, const char *path, const char *const *names,
			  unsigned n_names, int attach_default, struct fp_node *nodes,
			  unsigned *n_nodes, struct umad_err *err)
{
	struct fp_hello hello = { .version = FP_VERSION, .order = FP_BYTE_ORDER, .n_hosts = n_names };
	int64_t deadline = now_ms() + fabric_client_attach_timeout_ms;
	const char *tcp = fabric_tcp_strip_scheme(path);
	char list[FP_MAX_HOSTS * FP_NAME_MAX];
	struct fabric_key *key = NULL;
	struct fabric_tcp_addr addr;
	const struct fp_hello_ok *ok;
	size_t len = 0;
	unsigned i;
	int32_t rc;
	int r, mb_fd;

	memset(c, 0, sizeof(*c));
	c->fd = c->event_fd = c->doorbell_fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	peer_wait_init(&c->reply_wait, REPLY_SPIN_MIN_NS, REPLY_SPIN_MAX_NS);
	fp_reader_init(&c->reply);
	if (snprintf(c->path, sizeof(c->path), "%s", path) >= (int)sizeof(c->path))
		return umad_err_set(err, -ENAMETOOLONG, "the fabric's address is too long: %.60s...",
				    path);
	r = name_list(names, n_names, list, &len, err);
	if (r < 0)
		return r;
	if (!n_names && attach_default)
		hello.n_hosts = UINT32_MAX;	/* the server's first CA */
	if (tcp) {
		r = connect_stream(c, path, tcp, &addr, &key, deadline, err);
		if (r < 0)
			goto fail;
	} else {
		c->fd = connect_to(path, deadline, err);
	}
	if (c->fd < 0) {
		r = c->fd;
		c->fd = -1;
		goto fail;
	}
	/* The welcome, or a refusal: the server speaks first. */
	r = recv_by(c, deadline);
	if (r == 1 && c->reply.type == FP_RC) {
		memcpy(&rc, c->reply.buf, sizeof(rc));
		if (rc < 0) {
			r = refusal(c, rc, err);
			goto fail;
		}
	} else {
		r = no_answer(err, path, r);
		goto fail;
	}
	/* The fast path for sends, on this machine only; without it, everything goes through the socket. */
	mb_fd = c->stream ? -1 : make_mailbox(&c->mb);
	r = attach_request(c, FP_HELLO, &hello, sizeof(hello), list, len, mb_fd, deadline, &rc,
			   err);
	if (mb_fd >= 0)
		close(mb_fd);
	if (r < 0)
		goto fail;
	if (c->reply.type == FP_RC) {
		r = refused(c, rc, err);
		goto fail;
	}
	ok = (const struct fp_hello_ok *)c->reply.buf;
	if (c->reply.type != FP_HELLO_OK || ok->version != FP_VERSION ||
	    ok->n_hosts > FP_MAX_HOSTS ||
	    c->reply.len != sizeof(*ok) + ok->n_hosts * sizeof(struct fp_node) ||
	    (c->reply.passed_fd < 0) != c->stream) {
		r = umad_err_set(err, -EPROTO, "the fabric at %s speaks another protocol", path);
		fabric_client_done(c);
		goto fail;
	}
	if (c->stream) {
		c->event_fd = open_events(c, &addr, key, ok->events_token, deadline, err);
		r = c->event_fd < 0 ? c->event_fd : 0;
	} else {
		c->event_fd = c->reply.passed_fd;
		c->reply.passed_fd = -1;
		r = fabric_trust_channel(c->event_fd, "event channel", err);
	}
	if (r < 0) {
		if (c->event_fd < 0)
			c->event_fd = -1;
		fabric_client_done(c);
		goto fail;
	}
	memcpy(nodes, ok + 1, ok->n_hosts * sizeof(struct fp_node));
	for (i = 0; i < ok->n_hosts; i++) {
		nodes[i].desc[sizeof(nodes[i].desc) - 1] = '\0';
		nodes[i].name[sizeof(nodes[i].name) - 1] = '\0';
	}
	*n_nodes = ok->n_hosts;
	fabric_client_done(c);
	if (c->mb) {
		r = take_doorbell(c, deadline, err);
		if (r < 0)
			goto fail;
	}
	fabric_key_free(key);
	return 0;
fail:
	fabric_key_free(key);
	fabric_client_close(c);
	return r;
}

int fabric_client_map(struct fabric_client *c, unsigned n_hosts, struct umad_err *err)
{
	const struct fp_mapped *m;
	struct fp_map q = { 0 };
	struct sim_arena *a = NULL;
	int32_t rc;
	unsigned i;
	int r;

	if (n_hosts > FP_MAX_HOSTS)
		return umad_err_set(err, -EINVAL, "at most %d nodes", FP_MAX_HOSTS);
	r = attach_request(c, FP_MAP, &q, sizeof(q), NULL, 0, -1,
			   now_ms() + fabric_client_attach_timeout_ms, &rc, err);
	if (r < 0)
		return r;
	m = (const struct fp_mapped *)c->reply.buf;
	if (c->reply.type == FP_RC) {
		r = refused(c, rc, err);
		if (c->reply.passed_fd >= 0)
			close(c->reply.passed_fd);
		c->reply.passed_fd = -1;
		return r;
	}
	if (c->reply.type != FP_MAPPED || c->reply.len != sizeof(*m) || c->reply.passed_fd < 0) {
		r = umad_err_set(err, -EPROTO, "the fabric at %s speaks another protocol", c->path);
	} else {
		/* The file is checked (owner, seals, size) before it is mapped. */
		r = sim_arena_attach(c->reply.passed_fd, m->base, &a, err);
		if (r < 0)
			umad_err_prefix(err, r, "the fabric at %s handed over memory that cannot be "
					"used: ", c->path);
		/* Every pointer it gave must lie in what was mapped. */
		if (r == 0 && !sim_arena_holds(a, (void *)(uintptr_t)m->fabric, sizeof(*c->fabric)))
			r = -EPROTO;
		for (i = 0; r == 0 && i < n_hosts; i++)
			if (!sim_arena_holds(a, (void *)(uintptr_t)m->hosts[i], sizeof(*c->hosts[i])))
				r = -EPROTO;
		if (r == -EPROTO && a)
			umad_err_set(err, r, "the fabric at %s handed over addresses outside its "
				     "memory", c->path);
		if (r == 0) {
			c->arena = a;
			c->fabric = (struct sim_fabric *)(uintptr_t)m->fabric;
			for (i = 0; i < n_hosts; i++)
				c->hosts[i] = (struct sim_node *)(uintptr_t)m->hosts[i];
		} else {
			sim_arena_release(a);
		}
	}
	if (c->reply.passed_fd >= 0)
		close(c->reply.passed_fd);
	c->reply.passed_fd = -1;
	fabric_client_done(c);
	return r;
}

int fabric_client_note_changed(struct fabric_client *c, size_t index)
{
	struct fp_note note = { .node = index };

	return fp_send_on(c->fd, c->stream, FP_NOTE_CHANGED, &note, sizeof(note), NULL, 0, -1, 0);
}

void fabric_client_close(struct fabric_client *c)
{
	sim_arena_release(c->arena);
	c->arena = NULL;
	c->fabric = NULL;
	if (c->mb)
		munmap(c->mb, sizeof(*c->mb));
	c->mb = NULL;
	if (c->fd >= 0)
		close(c->fd);
	if (c->event_fd >= 0)
		close(c->event_fd);
	if (c->doorbell_fd >= 0)
		close(c->doorbell_fd);
	c->fd = c->event_fd = c->doorbell_fd = -1;
	fp_reader_free(&c->reply);
	pthread_mutex_destroy(&c->lock);
}

/* Is the server still there? (Its end of the connection closed: no.) */
static int server_alive(struct fabric_client *c)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	return !(poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR)));
}

/* Post request number ++mb_seq into its slot; kick the server if it sleeps.  0 or -errno.  Lock held. */
static int post(struct fabric_client *c, uint32_t type, const void *head, size_t head_len,
		const void *tail, size_t tail_len)
{
	struct fp_mailbox *mb = c->mb;
	uint32_t seq = c->mb_seq + 1, kick = 0;
	struct fp_mailbox_slot *slot = &mb->slot[seq % FP_MAILBOX_SLOTS];

	memcpy(slot->req, head, head_len);
	if (tail_len)
		memcpy(slot->req + head_len, tail, tail_len);
	slot->req_type = type;
	slot->req_len = (uint32_t)(head_len + tail_len);
	c->mb_seq = seq;
	atomic_store_explicit(&mb->client_cpu, peer_wait_cpu(), memory_order_relaxed);
	atomic_store(&mb->posted, seq);
	if (!atomic_load(&mb->server_asleep))
		return 0;
	if (c->doorbell_fd >= 0) {
		uint64_t one = 1;

		/* A full counter (2^64 - 2 rings unread) is rung already: EAGAIN is fine. */
		return write(c->doorbell_fd, &one, sizeof(one)) < 0 && errno != EAGAIN ? -errno : 0;
	}
	return fp_send_on(c->fd, c->stream, FP_KICK, &kick, sizeof(kick), NULL, 0, -1, 0);
}

/* Has request number seq been answered? (Numbers wrap: compared as a distance.) */
static int answered(const struct fp_mailbox *mb, uint32_t seq)
{
	return (int32_t)(atomic_load(&mb->answered) - seq) >= 0;
}

/*
 * Look for the answer to request number seq without sleeping, while that
 * pays (peer_wait.h): while the server is on another CPU and its beat
 * advances, or it wakes (it slept when the request was posted: rung).
 * 1 when it came.  Lock held.
 */
static int spin_for_answer(struct fabric_client *c, uint32_t seq)
{
	struct fp_mailbox *mb = c->mb;
	uint32_t me = peer_wait_cpu(), beat = atomic_load(&mb->server_beat), b;
	uint64_t now = sim_net_now_ns(), beat_at = now;
	struct peer_spin spin;
	unsigned i;
	int got = 0;

	if (atomic_load(&mb->server_cpu) == me || !peer_spin_begin(&c->reply_wait, &spin, now))
		return 0;
	atomic_store(&mb->client_spinning, 1);
	for (i = 1;; i++) {
		if (answered(mb, seq)) {
			peer_spin_hit(&c->reply_wait, &spin, sim_net_now_ns());
			got = 1;
			break;
		}
		fp_cpu_relax();
		if (i & 7)
			continue;
		now = sim_net_now_ns();
		if (!peer_spin_again_at(&c->reply_wait, &spin, now))
			break;
		b = atomic_load(&mb->server_beat);
		if (b != beat || atomic_load(&mb->server_asleep)) {
			/* Asleep: rung when this was posted, it is waking (the budget bounds that). */
			beat = b;
			beat_at = now;
		} else if (now - beat_at > BEAT_STALE_NS) {
			break;		/* not running: it wakes this side when it answers */
		}
		if ((i & 63) == 0)
			me = peer_wait_cpu();
		if (atomic_load(&mb->server_cpu) == me)
			break;
	}
	atomic_store(&mb->client_spinning, 0);
	return got;
}

/* Wait until request number seq is answered.  0, or -ECONNRESET when the server went.  Lock held. */
static int await_answer(struct fabric_client *c, uint32_t seq)
{
	struct fp_mailbox *mb = c->mb;

	if (!answered(mb, seq) && !spin_for_answer(c, seq)) {
		struct timespec check = { 0, MAILBOX_CHECK_MS * 1000000L };

		atomic_store(&mb->client_asleep, 1);
		while (!answered(mb, seq)) {
			uint32_t seen = atomic_load(&mb->answered);
			long r;

			c->sleeps++;
			r = syscall(SYS_futex, &mb->answered, FUTEX_WAIT, seen, &check, NULL, 0);
			/* The answer came, but no wake-up: found only by the check. */
			if (r < 0 && errno == ETIMEDOUT && answered(mb, seq))
				c->unwoken++;
			if (!answered(mb, seq) && !server_alive(c)) {
				atomic_store(&mb->client_asleep, 0);
				return -ECONNRESET;
			}
		}
		atomic_store(&mb->client_asleep, 0);
	}
	return 0;
}

/* Over TCP, where the server answered the reply in c->reply (fp_result.server_cpu). */
static void note_server_cpu(struct fabric_client *c)
{
	if (c->stream && c->reply.type == FP_RESULT && c->reply.len >= sizeof(struct fp_result))
		memcpy(&c->server_cpu, c->reply.buf + offsetof(struct fp_result, server_cpu),
		       sizeof(c->server_cpu));
}

/*
 * Over TCP, a reply usually comes within microseconds when both sides
 * run: it is looked for without sleeping first while that pays
 * (peer_wait.h; the server cannot be seen from here, so only the budget
 * and this CPU's contention bound it).  1 when the whole reply came, 0 when
 * it is to be waited for, or -errno.  Lock held.
 */
static int await_on_stream(struct fabric_client *c)
{
	struct peer_spin spin;
	int r = 0;

	/* Where the server answered last: on this CPU, it cannot answer while this spins. */
	if ((c->server_cpu && c->server_cpu == peer_wait_cpu()) ||
	    !peer_spin_begin(&c->reply_wait, &spin, sim_net_now_ns()))
		return 0;
	for (;;) {
		r = fp_recv_message(c->fd, &c->reply, MSG_DONTWAIT);
		if (r != 0 || c->reply.in_message || c->reply.frame_got || c->reply.piece_left)
			break;	/* a message, an error, or one begun: the rest is waited for */
		fp_cpu_relax();
		if (!peer_spin_again_at(&c->reply_wait, &spin, sim_net_now_ns()))
			return 0;
	}
	if (r > 0)
		peer_spin_hit(&c->reply_wait, &spin, sim_net_now_ns());
	return r;
}

/* The reply to the oldest request not read yet (answered), into c->reply.  0 or -errno.  Lock held. */
static int read_answer(struct fabric_client *c)
{
	uint32_t seq = c->mb_read + 1;
	const struct fp_mailbox_slot *slot = &c->mb->slot[seq % FP_MAILBOX_SLOTS];
	uint32_t type = slot->resp_type, len = slot->resp_len;
	int r;

	c->mb_read = seq;
	if (!type) {
		/* Too long for the mailbox: on the connection. */
		r = fp_recv_message(c->fd, &c->reply, 0);
		return r == 0 ? -EPROTO : r < 0 ? r : 0;
	}
	if (len > FP_MAILBOX_ROOM || len < fp_min_body(type))
		return -EPROTO;
	if (c->reply.cap < len) {
		uint8_t *grown = realloc(c->reply.buf, FP_DATAGRAM_MAX);

		if (!grown)
			return -ENOMEM;
		c->reply.buf = grown;
		c->reply.cap = FP_DATAGRAM_MAX;
	}
	memcpy(c->reply.buf, slot->resp, len);
	c->reply.len = len;
	c->reply.type = type;
	return 0;
}

/* A request through the mailbox, its reply into c->reply.  0 or -errno.  Lock held, none posted. */
static int mailbox_request(struct fabric_client *c, uint32_t type, const void *head,
			   size_t head_len, const void *tail, size_t tail_len)
{
	int r = post(c, type, head, head_len, tail, tail_len);

	if (r == 0)
		r = await_answer(c, c->mb_seq);
	return r < 0 ? r : read_answer(c);
}

/*
 * The server went away or spoke nonsense: nothing more can be trusted.
 * The replies of posted requests will never come: they are forgotten, so
 * that nothing waits or loops for them (the owner lets their cookies go).
 */
static int broke(struct fabric_client *c)
{
	c->broken = 1;
	c->mb_read = c->mb_seq;
	return -EIO;
}

/*
 * Over TCP: the reply to the oldest posted request, into c->reply: 1, 0
 * when it is not there yet and only what is there was to be read (ready),
 * or -errno.  Lock held.
 */
static int stream_answer(struct fabric_client *c, int ready)
{
	int r = fp_recv_message(c->fd, &c->reply, MSG_DONTWAIT);

	if (r == 0 && !ready) {
		r = await_on_stream(c);
		if (r == 0)
			r = fp_recv_message(c->fd, &c->reply, 0);
		if (r == 0)
			r = -EPROTO;	/* a blocking read ends with a message or an error */
	}
	if (r > 0) {
		c->mb_read++;
		note_server_cpu(c);
	}
	return r;
}

int fabric_client_collect(struct fabric_client *c, enum fabric_collect wait)
{
	int r;

	if (c->broken)
		return -EIO;
	while (fabric_client_posted(c)) {
		void *cookie = c->cookies[(c->mb_read + 1) % FP_MAILBOX_SLOTS];

		if (c->stream) {
			r = stream_answer(c, wait == FABRIC_COLLECT_READY);
			if (r == 0)
				break;
		} else {
			if (wait == FABRIC_COLLECT_READY && !answered(c->mb, c->mb_read + 1))
				break;
			r = await_answer(c, c->mb_read + 1);
			if (r == 0)
				r = read_answer(c);
		}
		if (r < 0)
			return broke(c);
		c->on_answer(c, cookie);
		if (wait == FABRIC_COLLECT_OLDEST)
			wait = FABRIC_COLLECT_READY;
	}
	return 0;
}

int fabric_client_post(struct fabric_client *c, const void *head, size_t head_len,
		       const void *tail, size_t tail_len, void *cookie)
{
	int r;

	if (c->broken || !fabric_client_can_post(c) || !c->on_answer ||
	    head_len + tail_len > FP_MAILBOX_ROOM)
		return -EIO;
	/* Every slot taken: the oldest is read first, making room. */
	if (fabric_client_posted(c) >= FP_MAILBOX_SLOTS &&
	    fabric_client_collect(c, FABRIC_COLLECT_OLDEST) < 0)
		return -EIO;
	c->cookies[(c->mb_seq + 1) % FP_MAILBOX_SLOTS] = cookie;
	if (c->stream) {
		/* On the connection, its reply read later in order: a few small ones fit its buffers. */
		r = fp_send_on(c->fd, 1, FP_SEND, head, head_len, tail, tail_len, -1, 0);
		if (r == 0)
			c->mb_seq++;
	} else {
		r = post(c, FP_SEND, head, head_len, tail, tail_len);
	}
	return r < 0 ? broke(c) : 0;
}

int fabric_client_request(struct fabric_client *c, uint32_t type, const void *head,
			  size_t head_len, const void *tail, size_t tail_len, int32_t *rc)
{
	int r;

	pthread_mutex_lock(&c->lock);
	if (c->broken || c->fd < 0) {
		pthread_mutex_unlock(&c->lock);
		return -EIO;
	}
	/* Posted requests first: they were made before this one. */
	if (fabric_client_posted(c) && fabric_client_collect(c, FABRIC_COLLECT_ALL) < 0) {
		pthread_mutex_unlock(&c->lock);
		return -EIO;
	}
	if (c->mb && type == FP_SEND && head_len + tail_len <= FP_MAILBOX_ROOM) {
		r = mailbox_request(c, type, head, head_len, tail, tail_len);
	} else {
		r = fp_send_on(c->fd, c->stream, type, head, head_len, tail, tail_len, -1, 0);
		if (r == 0 && c->stream)
			r = await_on_stream(c);
		if (r == 0) {
			r = fp_recv_message(c->fd, &c->reply, 0);
			if (r == 0)
				r = -EPROTO;	/* a blocking read ends with a message or an error */
		}
	}

	if (r < 0) {
		broke(c);
		pthread_mutex_unlock(&c->lock);
		return -EIO;
	}
	*rc = 0;
	if (c->reply.type == FP_RC)
		memcpy(rc, c->reply.buf, sizeof(*rc));
	note_server_cpu(c);
	return 0;
}

void fabric_client_lock(struct fabric_client *c)
{
	pthread_mutex_lock(&c->lock);
}

void fabric_client_done(struct fabric_client *c)
{
	pthread_mutex_unlock(&c->lock);
}

int fabric_client_call(struct fabric_client *c, uint32_t type, const void *body, size_t len)
{
	int32_t rc;
	int r = fabric_client_request(c, type, body, len, NULL, 0, &rc);

	if (r < 0)
		return r;
	if (c->reply.type != FP_RC)
		rc = -EPROTO;
	fabric_client_done(c);
	return rc;
}

const char *fabric_client_reply_text(const struct fabric_client *c, char *buf, size_t size)
{
	size_t n;

	buf[0] = '\0';
	if (c->reply.type != FP_RC || c->reply.len <= sizeof(struct fp_rc))
		return buf;
	n = c->reply.len - sizeof(struct fp_rc);
	if (n >= size)
		n = size - 1;
	memcpy(buf, c->reply.buf + sizeof(struct fp_rc), n);
	buf[n] = '\0';
	return buf;
}
