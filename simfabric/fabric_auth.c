/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The key handshake of a fabric reached over TCP (fabric_auth.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <glib.h>

#include "simfabric/fabric_auth.h"

static const char magic[8] = { 'U', 'M', 'A', 'D', '-', 'F', 'A', 'B' };
#define PREAMBLE_LEN	(sizeof(magic) + 2)
#define HEADER_LEN	4u		/* type, zero, body length */
#define HELLO_LEN	(2u + FABRIC_AUTH_NONCE_LEN)
#define PROOF_LEN	32u		/* HMAC-SHA256 */

_Static_assert(FABRIC_AUTH_REFUSAL_MAX == PREAMBLE_LEN + HEADER_LEN + FABRIC_AUTH_REASON_MAX,
	       "fabric_auth.h's FABRIC_AUTH_REFUSAL_MAX is a preamble and a refusal");

enum record_type {
	REC_HELLO = 'H',
	REC_PROOF = 'P',
	REC_OK = 'K',
	REC_REFUSE = 'R'
};

#define ROLE_CLIENT	'C'
#define ROLE_SERVER	'S'

/* What is being read of the peer's bytes. */
enum reading {
	READ_PREAMBLE,
	READ_HEADER,
	READ_BODY
};

struct fabric_auth {
	enum fabric_auth_role role;
	const struct fabric_key *key;
	int timeout_ms;
	int64_t deadline_ms;
	int rc;				/* 0 going on, 1 done, -errno failed */
	uint8_t awaited;		/* the record due next from the peer; 0: none */
	uint8_t nonce[FABRIC_AUTH_NONCE_LEN], peer_nonce[FABRIC_AUTH_NONCE_LEN];

	enum reading reading;
	uint8_t in[HEADER_LEN + FABRIC_AUTH_REASON_MAX];	/* the unit being read */
	size_t in_len, in_want;

	/* Preamble, hello, proof, ok or refuse: what is left to send. */
	uint8_t out[PREAMBLE_LEN + 3 * HEADER_LEN + HELLO_LEN + PROOF_LEN +
		    FABRIC_AUTH_REASON_MAX];
	size_t out_len, out_off;
	struct umad_err error;		/* why it failed */
};

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static const char *peer_role(const struct fabric_auth *a)
{
	return a->role == FABRIC_AUTH_CLIENT ? "the server" : "the client";
}

static const char *own_role(const struct fabric_auth *a)
{
	return a->role == FABRIC_AUTH_CLIENT ? "client" : "server";
}

static void put_be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned get_be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* Queue a record to send (the buffer holds every record one side sends). */
static void queue_record(struct fabric_auth *a, uint8_t type, const void *body, size_t len)
{
	uint8_t *p = a->out + a->out_len;

	if (a->out_len + HEADER_LEN + len > sizeof(a->out))
		return;		/* cannot happen: out is sized for a side's records */
	p[0] = type;
	p[1] = 0;
	put_be16(p + 2, (unsigned)len);
	if (len)
		memcpy(p + HEADER_LEN, body, len);
	a->out_len += HEADER_LEN + len;
}

static void fail_v(struct fabric_auth *a, int rc, const char *fmt, va_list ap)
{
	a->rc = umad_err_vset(&a->error, rc, fmt, ap);
	a->awaited = 0;
	a->in_want = 0;
}

/* The handshake fails with rc; why in the message. */
static void __attribute__((format(printf, 3, 4)))
fail(struct fabric_auth *a, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_v(a, rc, fmt, ap);
	va_end(ap);
}

/* This side refuses: the handshake fails as fail() says, and the peer is sent reason. */
static void __attribute__((format(printf, 4, 5)))
refuse(struct fabric_auth *a, int rc, const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_v(a, rc, fmt, ap);
	va_end(ap);
	queue_record(a, REC_REFUSE, reason, strlen(reason));
}

/* The proof role makes with its own nonce first: HMAC-SHA256 under the key. */
static void make_proof(const struct fabric_auth *a, enum fabric_auth_role role,
		       uint8_t proof[PROOF_LEN])
{
	static const char client_label[] = "umad fabric handshake 1: client";
	static const char server_label[] = "umad fabric handshake 1: server";
	const char *label = role == FABRIC_AUTH_CLIENT ? client_label : server_label;
	const uint8_t *first = role == a->role ? a->nonce : a->peer_nonce;
	const uint8_t *second = role == a->role ? a->peer_nonce : a->nonce;
	size_t key_len, len = PROOF_LEN;
	const uint8_t *key = fabric_key_bytes(a->key, &key_len);
	GHmac *h = g_hmac_new(G_CHECKSUM_SHA256, key, key_len);

	g_hmac_update(h, (const guchar *)label, (gssize)strlen(label));
	g_hmac_update(h, first, FABRIC_AUTH_NONCE_LEN);
	g_hmac_update(h, second, FABRIC_AUTH_NONCE_LEN);
	g_hmac_get_digest(h, proof, &len);
	g_hmac_unref(h);
}

/* Equal, in a time that does not depend on where they differ. */
static int same_bytes(const uint8_t *x, const uint8_t *y, size_t n)
{
	volatile uint8_t diff = 0;
	size_t i;

	for (i = 0; i < n; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}

/* The peer's reason, its bytes that are not printable ASCII shown as '?'. */
static void take_reason(struct fabric_auth *a, const uint8_t *body, size_t len)
{
	char reason[FABRIC_AUTH_REASON_MAX + 1];
	size_t i;

	for (i = 0; i < len; i++)
		reason[i] = body[i] >= 0x20 && body[i] < 0x7f ? (char)body[i] : '?';
	reason[len] = '\0';
	if (a->role == FABRIC_AUTH_CLIENT &&
	    strncmp(reason, FABRIC_AUTH_BUSY, strlen(FABRIC_AUTH_BUSY)) == 0)
		fail(a, -EAGAIN, "%s is busy: %s", peer_role(a), reason + strlen(FABRIC_AUTH_BUSY));
	else
		fail(a, -ECONNREFUSED, "%s refused the handshake: %s", peer_role(a), reason);
}

/* FABRIC_AUTH_BUSY and why, cut to a reason's length, into reason (FABRIC_AUTH_REASON_MAX + 1). */
static size_t busy_reason(const char *why, char *reason)
{
	int n = snprintf(reason, FABRIC_AUTH_REASON_MAX + 1, "%s%s", FABRIC_AUTH_BUSY, why);

	return n < 0 ? 0 : n > FABRIC_AUTH_REASON_MAX ? FABRIC_AUTH_REASON_MAX : (size_t)n;
}

size_t fabric_auth_busy_bytes(const char *why, uint8_t buf[FABRIC_AUTH_REFUSAL_MAX])
{
	char reason[FABRIC_AUTH_REASON_MAX + 1];
	size_t len = busy_reason(why, reason);

	memcpy(buf, magic, sizeof(magic));
	put_be16(buf + sizeof(magic), FABRIC_AUTH_VERSION);
	buf[PREAMBLE_LEN] = REC_REFUSE;
	buf[PREAMBLE_LEN + 1] = 0;
	put_be16(buf + PREAMBLE_LEN + 2, (unsigned)len);
	memcpy(buf + PREAMBLE_LEN + HEADER_LEN, reason, len);
	return PREAMBLE_LEN + HEADER_LEN + len;
}

void fabric_auth_give_up_busy(struct fabric_auth *a, const char *why)
{
	char reason[FABRIC_AUTH_REASON_MAX + 1];

	if (a->rc != 0)
		return;
	busy_reason(why, reason);
	refuse(a, -EAGAIN, reason, "gave the handshake with %s up: %s", peer_role(a), why);
}

static const char *record_name(uint8_t type)
{
	switch (type) {
	case REC_HELLO:		return "hello";
	case REC_PROOF:		return "proof";
	case REC_OK:		return "ok";
	case REC_REFUSE:	return "refusal";
	default:		return NULL;
	}
}

/* The peer's proof, checked: the next step, or a refusal. */
static void check_proof(struct fabric_auth *a, const uint8_t *body)
{
	uint8_t expected[PROOF_LEN], own[PROOF_LEN];
	enum fabric_auth_role peer = a->role == FABRIC_AUTH_CLIENT ? FABRIC_AUTH_SERVER
								   : FABRIC_AUTH_CLIENT;
	char reason[128];
	int good;

	make_proof(a, peer, expected);
	good = same_bytes(expected, body, PROOF_LEN);
	explicit_bzero(expected, sizeof(expected));
	if (!good) {
		snprintf(reason, sizeof(reason), "%s does not know the fabric's key (its key file "
			 "is not the %s's)", peer_role(a), own_role(a));
		refuse(a, -EKEYREJECTED, reason, "the peer (%s) does not know the fabric's key: "
		       "refused", peer_role(a));
		return;
	}
	if (a->role == FABRIC_AUTH_SERVER) {
		make_proof(a, FABRIC_AUTH_SERVER, own);
		queue_record(a, REC_PROOF, own, sizeof(own));
		explicit_bzero(own, sizeof(own));
		a->awaited = REC_OK;
	} else {
		queue_record(a, REC_OK, NULL, 0);
		a->awaited = 0;
		a->rc = 1;
	}
}

/* A whole record of the peer's (header and body in a->in). */
static void take_record(struct fabric_auth *a)
{
	uint8_t type = a->in[0];
	const uint8_t *body = a->in + HEADER_LEN;
	uint8_t peer_letter = a->role == FABRIC_AUTH_CLIENT ? ROLE_SERVER : ROLE_CLIENT;

	if (type == REC_REFUSE) {
		take_reason(a, body, a->in_len - HEADER_LEN);
		return;
	}
	if (type != a->awaited) {
		refuse(a, -EPROTO, "a malformed handshake", "%s sent its %s where its %s was "
		       "due: refused", peer_role(a), record_name(type), record_name(a->awaited));
		return;
	}
	switch (type) {
	case REC_HELLO:
		if (body[0] != peer_letter && (body[0] == ROLE_CLIENT || body[0] == ROLE_SERVER)) {
			refuse(a, -EPROTO, a->role == FABRIC_AUTH_CLIENT ?
			       "this side is a client too" : "this side is a server too",
			       "the peer says it is a %s too: refused", own_role(a));
			return;
		}
		if (body[0] != peer_letter || body[1] != 0) {
			refuse(a, -EPROTO, "a malformed handshake", "%s's hello is malformed: "
			       "refused", peer_role(a));
			return;
		}
		memcpy(a->peer_nonce, body + 2, FABRIC_AUTH_NONCE_LEN);
		if (a->role == FABRIC_AUTH_CLIENT) {
			uint8_t own[PROOF_LEN];

			make_proof(a, FABRIC_AUTH_CLIENT, own);
			queue_record(a, REC_PROOF, own, sizeof(own));
			explicit_bzero(own, sizeof(own));
		}
		a->awaited = REC_PROOF;
		break;
	case REC_PROOF:
		check_proof(a, body);
		break;
	case REC_OK:
		a->awaited = 0;
		a->rc = 1;
		break;
	}
}

/* The body length a record of this type must have (0..max for a refusal); -1: none. */
static int body_fits(uint8_t type, size_t len)
{
	switch (type) {
	case REC_HELLO:		return len == HELLO_LEN;
	case REC_PROOF:		return len == PROOF_LEN;
	case REC_OK:		return len == 0;
	case REC_REFUSE:	return len >= 1 && len <= FABRIC_AUTH_REASON_MAX;
	default:		return 0;
	}
}

/* A record header is in: the body's length is what its type takes, and the zero is zero. */
static void take_header(struct fabric_auth *a)
{
	uint8_t type = a->in[0];
	size_t len = get_be16(a->in + 2);

	if (!record_name(type)) {
		refuse(a, -EPROTO, "a malformed handshake", "%s sent a record of unknown type "
		       "0x%02x: refused", peer_role(a), type);
		return;
	}
	if (a->in[1] != 0 || !body_fits(type, len)) {
		refuse(a, -EPROTO, "a malformed handshake", "%s's %s record (%zu bytes) is "
		       "malformed: refused", peer_role(a), record_name(type), len);
		return;
	}
	if (len == 0) {
		take_record(a);
		return;
	}
	a->reading = READ_BODY;
	a->in_want = HEADER_LEN + len;
}

/* The preamble is in: the magic, then the version. */
static void take_preamble(struct fabric_auth *a)
{
	unsigned version = get_be16(a->in + sizeof(magic));

	if (memcmp(a->in, magic, sizeof(magic)) != 0) {
		const uint8_t *p = a->in;

		refuse(a, -EPROTO, "not the fabric's handshake (the first bytes were wrong)",
		       "%s does not speak the fabric's handshake (it began with %02x %02x %02x %02x "
		       "%02x %02x %02x %02x): refused", peer_role(a), p[0], p[1], p[2], p[3], p[4],
		       p[5], p[6], p[7]);
		return;
	}
	if (version != FABRIC_AUTH_VERSION) {
		char reason[96];

		snprintf(reason, sizeof(reason), "this %s speaks version %d of the fabric's handshake "
			 "only", own_role(a), FABRIC_AUTH_VERSION);
		refuse(a, -EPROTONOSUPPORT, reason, "%s speaks version %u of the fabric's handshake, "
		       "this side version %d: refused", peer_role(a), version, FABRIC_AUTH_VERSION);
		return;
	}
}

/* The next record header is read, if a record is due. */
static void next_header(struct fabric_auth *a)
{
	a->reading = READ_HEADER;
	a->in_len = 0;
	a->in_want = a->rc == 0 && a->awaited ? HEADER_LEN : 0;
}

/* The unit being read is whole: take it. */
static void unit_done(struct fabric_auth *a)
{
	switch (a->reading) {
	case READ_PREAMBLE:
		take_preamble(a);
		break;
	case READ_HEADER:
		take_header(a);
		if (a->rc == 0 && a->reading == READ_BODY)
			return;		/* its body is to come */
		break;
	case READ_BODY:
		take_record(a);
		break;
	}
	next_header(a);
}

size_t fabric_auth_wanted(const struct fabric_auth *a)
{
	return a->rc == 0 && a->in_want > a->in_len ? a->in_want - a->in_len : 0;
}

size_t fabric_auth_feed(struct fabric_auth *a, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t taken = 0;

	while (taken < len && fabric_auth_wanted(a) > 0) {
		size_t n = fabric_auth_wanted(a);

		if (n > len - taken)
			n = len - taken;
		memcpy(a->in + a->in_len, p + taken, n);
		a->in_len += n;
		taken += n;
		if (a->in_len == a->in_want)
			unit_done(a);
	}
	return taken;
}

void fabric_auth_peer_closed(struct fabric_auth *a)
{
	if (a->rc == 0 && a->awaited)
		fail(a, -ECONNRESET, "%s closed the connection during the handshake", peer_role(a));
}

const void *fabric_auth_pending(const struct fabric_auth *a, size_t *len)
{
	*len = a->out_len - a->out_off;
	return a->out + a->out_off;
}

void fabric_auth_sent(struct fabric_auth *a, size_t n)
{
	if (n > a->out_len - a->out_off)
		n = a->out_len - a->out_off;
	a->out_off += n;
}

int fabric_auth_ms_left(const struct fabric_auth *a)
{
	int64_t left = a->deadline_ms - now_ms();

	return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

int fabric_auth_result(struct fabric_auth *a)
{
	int sending = a->out_off < a->out_len;

	if ((a->rc == 0 || (a->rc == 1 && sending)) && fabric_auth_ms_left(a) == 0) {
		char reason[64];

		snprintf(reason, sizeof(reason), "the handshake took longer than %d ms",
			 a->timeout_ms);
		if (a->rc == 0)
			refuse(a, -ETIMEDOUT, reason, "the handshake with %s did not finish within "
			       "%d ms: refused", peer_role(a), a->timeout_ms);
		else
			fail(a, -ETIMEDOUT, "the handshake's last record did not go to %s within "
			     "%d ms", peer_role(a), a->timeout_ms);
	}
	if (a->rc == 1)
		return sending ? 0 : 1;
	return a->rc;
}

const char *fabric_auth_error(const struct fabric_auth *a)
{
	return umad_err_text(&a->error);
}

int fabric_auth_new(enum fabric_auth_role role, const struct fabric_key *key, int timeout_ms,
		    struct fabric_auth **out, struct umad_err *err)
{
	struct fabric_auth *a = calloc(1, sizeof(*a));
	uint8_t hello[HELLO_LEN];
	size_t got = 0;

	*out = NULL;
	if (!a)
		return umad_err_set(err, -ENOMEM, "cannot begin the fabric's handshake: %s",
				    strerror(ENOMEM));
	while (got < sizeof(a->nonce)) {
		ssize_t n = getrandom(a->nonce + got, sizeof(a->nonce) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;

			free(a);
			return umad_err_set(err, r, "cannot make the handshake's challenge: "
					    "getrandom: %s", strerror(-r));
		}
		got += (size_t)n;
	}
	a->role = role;
	a->key = key;
	a->timeout_ms = timeout_ms > 0 ? timeout_ms : FABRIC_AUTH_TIMEOUT_MS;
	a->deadline_ms = now_ms() + a->timeout_ms;
	a->awaited = REC_HELLO;
	a->reading = READ_PREAMBLE;
	a->in_want = PREAMBLE_LEN;
	memcpy(a->out, magic, sizeof(magic));
	put_be16(a->out + sizeof(magic), FABRIC_AUTH_VERSION);
	a->out_len = PREAMBLE_LEN;
	hello[0] = role == FABRIC_AUTH_CLIENT ? ROLE_CLIENT : ROLE_SERVER;
	hello[1] = 0;
	memcpy(hello + 2, a->nonce, FABRIC_AUTH_NONCE_LEN);
	queue_record(a, REC_HELLO, hello, sizeof(hello));
	*out = a;
	return 0;
}

void fabric_auth_free(struct fabric_auth *a)
{
	if (!a)
		return;
	explicit_bzero(a, sizeof(*a));
	free(a);
}

/*
 * Send what waits without waiting: 0 (all sent, or the socket is full), or
 * the -errno that stopped it.
 */
static int send_pending(struct fabric_auth *a, int fd)
{
	for (;;) {
		size_t len;
		const void *p = fabric_auth_pending(a, &len);
		ssize_t n;

		if (len == 0)
			return 0;
		n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		fabric_auth_sent(a, (size_t)n);
	}
}

/*
 * Read what the handshake wants without waiting: 1 something was taken,
 * 0 nothing there, or -errno (the peer closing is fabric_auth_peer_closed's).
 */
static int read_wanted(struct fabric_auth *a, int fd)
{
	uint8_t buf[sizeof(a->in)];
	int took = 0;

	while (fabric_auth_wanted(a) > 0) {
		size_t want = fabric_auth_wanted(a);
		ssize_t n = recv(fd, buf, want < sizeof(buf) ? want : sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? took : -errno;
		if (n == 0) {
			fabric_auth_peer_closed(a);
			return took;
		}
		fabric_auth_feed(a, buf, (size_t)n);
		took = 1;
	}
	return took;
}

/*
 * Before the caller closes a refused connection: what the peer sent and
 * this side did not read would make the close a reset, which can reach
 * the peer before the refusal is read.  What has come is read and dropped.
 */
static void drain(int fd)
{
	uint8_t buf[512];
	int rounds = 16;

	while (rounds-- > 0 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

int fabric_auth_step(struct fabric_auth *a, int fd, unsigned *events)
{
	int send_err = 0, r;

	*events = 0;
	while ((r = fabric_auth_result(a)) == 0) {
		size_t left;
		int took;

		if (!send_err)
			send_err = send_pending(a, fd);
		/* A peer that hung up may have said why first: read before blaming the send. */
		took = read_wanted(a, fd);
		if (took < 0 && a->rc >= 0)
			fail(a, took, "the connection to %s failed during the handshake: %s",
			     peer_role(a), strerror(-took));
		else if (took == 0 && send_err && a->rc >= 0)
			fail(a, send_err, "the connection to %s failed during the handshake: %s",
			     peer_role(a), strerror(-send_err));
		if (took > 0 || a->rc < 0)
			continue;
		fabric_auth_pending(a, &left);
		*events = (left ? POLLOUT : 0) | (fabric_auth_wanted(a) ? POLLIN : 0);
		/* Nothing to wait for: the last record went, and the result is due now. */
		if (!*events)
			continue;
		return 0;
	}
	if (r < 0) {
		if (!send_err)
			send_pending(a, fd);
		drain(fd);
	}
	return r;
}

int fabric_auth_handshake(int fd, enum fabric_auth_role role, const struct fabric_key *key,
			  int timeout_ms, struct umad_err *err)
{
	struct fabric_auth *a;
	unsigned events;
	int r = fabric_auth_new(role, key, timeout_ms, &a, err);

	if (r < 0)
		return r;
	while ((r = fabric_auth_step(a, fd, &events)) == 0) {
		struct pollfd pfd = { .fd = fd, .events = (short)events };

		if (poll(&pfd, 1, fabric_auth_ms_left(a)) < 0 && errno != EINTR) {
			r = -errno;
			fabric_auth_free(a);
			return umad_err_set(err, r, "the fabric's handshake cannot wait: %s",
					    strerror(-r));
		}
	}
	if (r < 0 && err)
		*err = a->error;
	fabric_auth_free(a);
	return r < 0 ? r : 0;
}
