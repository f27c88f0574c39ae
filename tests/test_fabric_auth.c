/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The key handshake of a fabric reached over TCP (simfabric/fabric_auth.h):
 * the bytes each side sends, as the header describes them (proofs checked
 * against HMAC-SHA256 computed here); two sides with one key agree, and
 * with different keys each says why; a peer that is not this handshake,
 * stops half-way, speaks another version, sends records out of order or
 * replays a recorded transcript is refused with a message, and told so;
 * a handshake is timed; no byte past the handshake is read; and the same
 * over a socket pair, driven step by step and by the blocking helper.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib.h>

#include "simfabric/fabric_auth.h"

#define KEY_A	"the fabric's key, shared by every host\n"
#define KEY_B	"another fabric's key, not this one's\n"

#define PREAMBLE	"UMAD-FAB\x00\x01"
#define PREAMBLE_LEN	10u
#define HELLO_LEN	(PREAMBLE_LEN + 4 + 2 + FABRIC_AUTH_NONCE_LEN)	/* with the preamble */
#define PROOF_LEN	(4 + 32)
#define OK_RECORD	"K\x00\x00\x00"

#define assert_said(err, text) do { \
	if (!strstr((err), (text))) \
		fail_msg("expected '%s' in: %s", (text), (err)); } while (0)

/* A key loaded from a file holding text. */
static struct fabric_key *key_of(const char *text)
{
	char path[] = "/tmp/umad-auth-key.XXXXXX";
	struct umad_err err = UMAD_ERR_INIT;
	struct fabric_key *k;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	if (fabric_key_load(path, &k, &err) < 0)
		fail_msg("%s", umad_err_text(&err));
	unlink(path);
	return k;
}

static struct fabric_auth *begin(enum fabric_auth_role role, const struct fabric_key *k,
				 int timeout_ms)
{
	struct fabric_auth *a;
	struct umad_err err = UMAD_ERR_INIT;

	if (fabric_auth_new(role, k, timeout_ms, &a, &err) < 0)
		fail_msg("%s", umad_err_text(&err));
	return a;
}

/* A client and a server with one key, each just begun. */
struct sides {
	struct fabric_key *k;
	struct fabric_auth *c, *s;
};

static void sides_begin(struct sides *p)
{
	p->k = key_of(KEY_A);
	p->c = begin(FABRIC_AUTH_CLIENT, p->k, 0);
	p->s = begin(FABRIC_AUTH_SERVER, p->k, 0);
}

static void sides_end(struct sides *p)
{
	fabric_auth_free(p->c);
	fabric_auth_free(p->s);
	fabric_key_free(p->k);
}

/* A side's bytes to send, taken out (up to size); how many. */
static size_t take_out(struct fabric_auth *a, uint8_t *buf, size_t size)
{
	size_t len;
	const void *p = fabric_auth_pending(a, &len);

	assert_true(len <= size);
	memcpy(buf, p, len);
	fabric_auth_sent(a, len);
	return len;
}

/* A transcript: what one side sent, in order. */
struct transcript {
	uint8_t bytes[1024];
	size_t len;
};

/*
 * Move bytes between two sides until neither has any to move; what each
 * sent is kept when asked.  Every byte a side sends is wanted by the other.
 */
static void pump(struct fabric_auth *x, struct fabric_auth *y, struct transcript *tx,
		 struct transcript *ty)
{
	int moved;

	do {
		uint8_t buf[1024];
		size_t n;

		moved = 0;
		n = take_out(x, buf, sizeof(buf));
		if (n) {
			moved = 1;
			if (tx) {
				memcpy(tx->bytes + tx->len, buf, n);
				tx->len += n;
			}
			fabric_auth_feed(y, buf, n);
		}
		n = take_out(y, buf, sizeof(buf));
		if (n) {
			moved = 1;
			if (ty) {
				memcpy(ty->bytes + ty->len, buf, n);
				ty->len += n;
			}
			fabric_auth_feed(x, buf, n);
		}
	} while (moved);
}

/* HMAC-SHA256(key, label || first || second), as the header defines a proof. */
static void proof_of(const char *key_text, const char *label, const uint8_t *first,
		     const uint8_t *second, uint8_t out[32])
{
	GHmac *h = g_hmac_new(G_CHECKSUM_SHA256, (const guchar *)key_text, strlen(key_text) - 1);
	gsize len = 32;

	g_hmac_update(h, (const guchar *)label, (gssize)strlen(label));
	g_hmac_update(h, first, FABRIC_AUTH_NONCE_LEN);
	g_hmac_update(h, second, FABRIC_AUTH_NONCE_LEN);
	g_hmac_get_digest(h, out, &len);
	g_hmac_unref(h);
}

/* A preamble and hello as role ('C' or 'S') sends them, with this nonce. */
static size_t hello_bytes(uint8_t *buf, char role, const uint8_t *nonce)
{
	memcpy(buf, PREAMBLE, PREAMBLE_LEN);
	memcpy(buf + PREAMBLE_LEN, "H\x00\x00\x22", 4);
	buf[PREAMBLE_LEN + 4] = (uint8_t)role;
	buf[PREAMBLE_LEN + 5] = 0;
	memcpy(buf + PREAMBLE_LEN + 6, nonce, FABRIC_AUTH_NONCE_LEN);
	return HELLO_LEN;
}

static size_t proof_bytes(uint8_t *buf, const uint8_t proof[32])
{
	memcpy(buf, "P\x00\x00\x20", 4);
	memcpy(buf + 4, proof, 32);
	return PROOF_LEN;
}

/* The refusal record that ends what a side has pending: its text, NUL-terminated, in out. */
static void pending_refusal(struct fabric_auth *a, char *out, size_t size)
{
	uint8_t buf[1024];
	size_t n = take_out(a, buf, sizeof(buf)), i = 0, len = 0;

	/* Walk the records after the preamble to the last one. */
	assert_true(n >= 4);
	if (n >= PREAMBLE_LEN && memcmp(buf, PREAMBLE, PREAMBLE_LEN) == 0)
		i = PREAMBLE_LEN;
	while (i + 4 <= n) {
		len = (size_t)buf[i + 2] << 8 | buf[i + 3];
		if (i + 4 + len == n)
			break;
		i += 4 + len;
	}
	assert_int_equal(i + 4 + len, n);
	assert_int_equal(buf[i], 'R');
	assert_true(len < size);
	memcpy(out, buf + i + 4, len);
	out[len] = '\0';
}

/* --- two sides in memory ----------------------------------------------------------------------- */

/* One key: both done, nothing left to send or to read; each run's bytes differ (fresh nonces). */
static void test_same_key_agrees(void **state)
{
	struct fabric_key *k = key_of(KEY_A);
	struct transcript first = { .len = 0 }, second = { .len = 0 };
	int run;

	(void)state;
	for (run = 0; run < 2; run++) {
		struct fabric_auth *c = begin(FABRIC_AUTH_CLIENT, k, 0);
		struct fabric_auth *s = begin(FABRIC_AUTH_SERVER, k, 0);
		size_t left;

		assert_int_equal(fabric_auth_result(c), 0);
		assert_int_equal(fabric_auth_result(s), 0);
		pump(c, s, run ? &second : &first, NULL);
		assert_int_equal(fabric_auth_result(c), 1);
		assert_int_equal(fabric_auth_result(s), 1);
		assert_int_equal(fabric_auth_wanted(c), 0);
		assert_int_equal(fabric_auth_wanted(s), 0);
		fabric_auth_pending(c, &left);
		assert_int_equal(left, 0);
		fabric_auth_pending(s, &left);
		assert_int_equal(left, 0);
		assert_string_equal(fabric_auth_error(c), "");
		fabric_auth_free(c);
		fabric_auth_free(s);
	}
	/* preamble + hello, proof, ok */
	assert_int_equal(first.len, HELLO_LEN + PROOF_LEN + 4);
	assert_int_equal(second.len, first.len);
	assert_memory_not_equal(first.bytes, second.bytes, first.len);
	fabric_key_free(k);
}

/*
 * Byte for byte as the header says: the client's preamble and hello, its
 * proof over both nonces under the client's label, the server's proof
 * checked under the server's label, then ok.
 */
static void test_bytes_are_as_documented(void **state)
{
	struct fabric_key *k = key_of(KEY_A);
	struct fabric_auth *c = begin(FABRIC_AUTH_CLIENT, k, 0);
	uint8_t out[1024], in[256], nc[FABRIC_AUTH_NONCE_LEN], ns[FABRIC_AUTH_NONCE_LEN], mac[32];
	size_t n, i;

	(void)state;
	for (i = 0; i < sizeof(ns); i++)
		ns[i] = (uint8_t)(0xa0 + i);
	n = take_out(c, out, sizeof(out));
	assert_int_equal(n, HELLO_LEN);
	assert_memory_equal(out, PREAMBLE "H\x00\x00\x22" "C\x00", PREAMBLE_LEN + 6);
	memcpy(nc, out + PREAMBLE_LEN + 6, sizeof(nc));
	assert_int_equal(fabric_auth_wanted(c), PREAMBLE_LEN);
	n = hello_bytes(in, 'S', ns);
	assert_int_equal(fabric_auth_feed(c, in, n), n);
	n = take_out(c, out, sizeof(out));
	assert_int_equal(n, PROOF_LEN);
	proof_of(KEY_A, "umad fabric handshake 1: client", nc, ns, mac);
	assert_memory_equal(out, "P\x00\x00\x20", 4);
	assert_memory_equal(out + 4, mac, 32);
	assert_int_equal(fabric_auth_result(c), 0);
	proof_of(KEY_A, "umad fabric handshake 1: server", ns, nc, mac);
	n = proof_bytes(in, mac);
	assert_int_equal(fabric_auth_feed(c, in, n), n);
	n = take_out(c, out, sizeof(out));
	assert_int_equal(n, 4);
	assert_memory_equal(out, OK_RECORD, 4);
	assert_int_equal(fabric_auth_result(c), 1);
	fabric_auth_free(c);
	fabric_key_free(k);
}

/*
 * Different keys: the server finds the client's proof wrong and says so,
 * and the client is told why; the server never sent a proof of its own.
 */
static void test_wrong_key_is_refused_on_both_sides(void **state)
{
	struct fabric_key *ka = key_of(KEY_A), *kb = key_of(KEY_B);
	struct fabric_auth *c = begin(FABRIC_AUTH_CLIENT, kb, 0);
	struct fabric_auth *s = begin(FABRIC_AUTH_SERVER, ka, 0);
	struct transcript from_server = { .len = 0 };

	(void)state;
	pump(c, s, NULL, &from_server);
	assert_int_equal(fabric_auth_result(s), -EKEYREJECTED);
	assert_said(fabric_auth_error(s), "the peer (the client) does not know the fabric's key");
	assert_int_equal(fabric_auth_result(c), -ECONNREFUSED);
	assert_said(fabric_auth_error(c), "the server refused the handshake");
	assert_said(fabric_auth_error(c), "the client does not know the fabric's key");
	/* preamble + hello, then the refusal: no proof */
	assert_int_equal(from_server.bytes[HELLO_LEN], 'R');
	fabric_auth_free(c);
	fabric_auth_free(s);
	fabric_key_free(ka);
	fabric_key_free(kb);
}

/*
 * A server without the key that got past the client's proof (a fake
 * answering anything): the client finds its proof wrong, says so, and
 * tells it; a server that gets that refusal reports it.
 */
static void test_server_without_key_is_refused(void **state)
{
	struct sides p;
	uint8_t out[1024], in[256], ns[FABRIC_AUTH_NONCE_LEN] = { 1, 2, 3 }, junk[32] = { 7 };
	char reason[FABRIC_AUTH_REASON_MAX + 1];
	size_t n;

	(void)state;
	sides_begin(&p);
	take_out(p.c, out, sizeof(out));
	n = hello_bytes(in, 'S', ns);
	n += proof_bytes(in + n, junk);
	assert_int_equal(fabric_auth_feed(p.c, in, n), n);
	assert_int_equal(fabric_auth_result(p.c), -EKEYREJECTED);
	assert_said(fabric_auth_error(p.c), "the peer (the server) does not know the fabric's key");
	pending_refusal(p.c, reason, sizeof(reason));
	assert_said(reason, "the server does not know the fabric's key");
	/* That refusal, as a server that sent its proof reads it. */
	n = take_out(p.s, out, sizeof(out));
	{
		struct fabric_auth *c2 = begin(FABRIC_AUTH_CLIENT, p.k, 0);
		uint8_t rec[4 + FABRIC_AUTH_REASON_MAX];
		size_t len = strlen(reason);

		fabric_auth_feed(c2, out, n);
		n = take_out(c2, out, sizeof(out));
		assert_int_equal(fabric_auth_feed(p.s, out, n), n);	/* hello and proof */
		n = take_out(p.s, out, sizeof(out));
		assert_int_equal(n, PROOF_LEN);
		rec[0] = 'R';
		rec[1] = 0;
		rec[2] = (uint8_t)(len >> 8);
		rec[3] = (uint8_t)len;
		memcpy(rec + 4, reason, len);
		assert_int_equal(fabric_auth_feed(p.s, rec, 4 + len), 4 + len);
		assert_int_equal(fabric_auth_result(p.s), -ECONNREFUSED);
		assert_said(fabric_auth_error(p.s), "the client refused the handshake: the server "
			    "does not know the fabric's key");
		fabric_auth_free(c2);
	}
	sides_end(&p);
}

/*
 * A recorded handshake replayed: the client's bytes to a new server, and
 * the server's to a new client.  Each side's fresh nonce makes the old
 * proof wrong.
 */
static void test_replayed_transcript_is_refused(void **state)
{
	struct fabric_key *k = key_of(KEY_A);
	struct fabric_auth *c = begin(FABRIC_AUTH_CLIENT, k, 0);
	struct fabric_auth *s = begin(FABRIC_AUTH_SERVER, k, 0);
	struct transcript tc = { .len = 0 }, ts = { .len = 0 };
	uint8_t out[1024];

	(void)state;
	pump(c, s, &tc, &ts);
	assert_int_equal(fabric_auth_result(c), 1);
	assert_int_equal(fabric_auth_result(s), 1);
	fabric_auth_free(c);
	fabric_auth_free(s);
	/* The client's bytes, to a server that never saw them. */
	s = begin(FABRIC_AUTH_SERVER, k, 0);
	fabric_auth_feed(s, tc.bytes, tc.len);
	assert_int_equal(fabric_auth_result(s), -EKEYREJECTED);
	assert_said(fabric_auth_error(s), "does not know the fabric's key");
	fabric_auth_free(s);
	/* The server's bytes, to a client that never saw them. */
	c = begin(FABRIC_AUTH_CLIENT, k, 0);
	take_out(c, out, sizeof(out));
	fabric_auth_feed(c, ts.bytes, ts.len);
	assert_int_equal(fabric_auth_result(c), -EKEYREJECTED);
	assert_said(fabric_auth_error(c), "does not know the fabric's key");
	fabric_auth_free(c);
	fabric_key_free(k);
}

/* Bytes fed to a new server; its result, its message in err, the refusal it sends in reason. */
static int server_fed(const struct fabric_key *k, const void *bytes, size_t len, char *err,
		      size_t err_size, char *reason, size_t reason_size)
{
	struct fabric_auth *s = begin(FABRIC_AUTH_SERVER, k, 0);
	int r;

	fabric_auth_feed(s, bytes, len);
	r = fabric_auth_result(s);
	snprintf(err, err_size, "%s", fabric_auth_error(s));
	if (r < 0 && reason)
		pending_refusal(s, reason, reason_size);
	fabric_auth_free(s);
	return r;
}

/* Not this handshake, or a malformed one: refused with what was wrong, and told so. */
static void test_garbage_is_refused(void **state)
{
	static const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	struct fabric_key *k = key_of(KEY_A);
	uint8_t buf[256], nonce[FABRIC_AUTH_NONCE_LEN] = { 9 };
	char err[512], reason[FABRIC_AUTH_REASON_MAX + 1];
	size_t n;

	(void)state;
	assert_int_equal(server_fed(k, http, strlen(http), err, sizeof(err), reason,
				    sizeof(reason)), -EPROTO);
	assert_said(err, "the client does not speak the fabric's handshake (it began with 47 45 54 "
		    "20 2f 20 48 54)");
	assert_said(reason, "not the fabric's handshake");
	/* The magic off by one byte. */
	n = hello_bytes(buf, 'C', nonce);
	buf[3] = 'd';
	assert_int_equal(server_fed(k, buf, n, err, sizeof(err), reason, sizeof(reason)), -EPROTO);
	assert_said(err, "does not speak the fabric's handshake");
	/* Another version: told which this side speaks. */
	n = hello_bytes(buf, 'C', nonce);
	buf[PREAMBLE_LEN - 1] = 2;
	assert_int_equal(server_fed(k, buf, n, err, sizeof(err), reason, sizeof(reason)),
			 -EPROTONOSUPPORT);
	assert_said(err, "the client speaks version 2 of the fabric's handshake, this side "
		    "version 1");
	assert_said(reason, "this server speaks version 1 of the fabric's handshake only");
	/* A client talking to a client. */
	n = hello_bytes(buf, 'S', nonce);
	assert_int_equal(server_fed(k, buf, n, err, sizeof(err), reason, sizeof(reason)), -EPROTO);
	assert_said(err, "the peer says it is a server too");
	assert_said(reason, "this side is a server too");
	/* A role that is neither, a non-zero reserved byte. */
	n = hello_bytes(buf, 'X', nonce);
	assert_int_equal(server_fed(k, buf, n, err, sizeof(err), NULL, 0), -EPROTO);
	assert_said(err, "hello is malformed");
	n = hello_bytes(buf, 'C', nonce);
	buf[PREAMBLE_LEN + 5] = 1;
	assert_int_equal(server_fed(k, buf, n, err, sizeof(err), NULL, 0), -EPROTO);
	/* A record of no known type, one whose reserved byte is set, a hello of the wrong length. */
	memcpy(buf, PREAMBLE "Z\x00\x00\x00", PREAMBLE_LEN + 4);
	assert_int_equal(server_fed(k, buf, PREAMBLE_LEN + 4, err, sizeof(err), reason,
				    sizeof(reason)), -EPROTO);
	assert_said(err, "a record of unknown type 0x5a");
	memcpy(buf, PREAMBLE "H\x01\x00\x22", PREAMBLE_LEN + 4);
	assert_int_equal(server_fed(k, buf, PREAMBLE_LEN + 4, err, sizeof(err), NULL, 0), -EPROTO);
	memcpy(buf, PREAMBLE "H\x00\xff\xff", PREAMBLE_LEN + 4);
	assert_int_equal(server_fed(k, buf, PREAMBLE_LEN + 4, err, sizeof(err), NULL, 0), -EPROTO);
	assert_said(err, "the client's hello record (65535 bytes) is malformed");
	/* Out of order: a proof before the hello, ok before the proof. */
	memcpy(buf, PREAMBLE "P\x00\x00\x20", PREAMBLE_LEN + 4);
	memset(buf + PREAMBLE_LEN + 4, 0, 32);
	assert_int_equal(server_fed(k, buf, PREAMBLE_LEN + 36, err, sizeof(err), NULL, 0), -EPROTO);
	assert_said(err, "the client sent its proof where its hello was due");
	n = hello_bytes(buf, 'C', nonce);
	memcpy(buf + n, OK_RECORD, 4);
	assert_int_equal(server_fed(k, buf, n + 4, err, sizeof(err), NULL, 0), -EPROTO);
	assert_said(err, "the client sent its ok where its proof was due");
	/* An empty refusal is malformed too. */
	memcpy(buf, PREAMBLE "R\x00\x00\x00", PREAMBLE_LEN + 4);
	assert_int_equal(server_fed(k, buf, PREAMBLE_LEN + 4, err, sizeof(err), NULL, 0), -EPROTO);
	fabric_key_free(k);
}

/* A refusal's text is shown with what is not printable replaced. */
static void test_peer_reason_is_shown_printable(void **state)
{
	struct fabric_key *k = key_of(KEY_A);
	uint8_t buf[64];
	char err[512];

	(void)state;
	memcpy(buf, PREAMBLE "R\x00\x00\x06" "no\x1b[2J", PREAMBLE_LEN + 10);
	assert_int_equal(server_fed(k, buf, PREAMBLE_LEN + 10, err, sizeof(err), NULL, 0),
			 -ECONNREFUSED);
	assert_said(err, "the client refused the handshake: no?[2J");
	fabric_key_free(k);
}

/* A peer that stops half-way and closes: said so, whatever it sent. */
static void test_truncated_peer_is_refused(void **state)
{
	struct fabric_key *k = key_of(KEY_A);
	uint8_t buf[256], nonce[FABRIC_AUTH_NONCE_LEN] = { 5 };
	size_t n = hello_bytes(buf, 'C', nonce), cut;

	(void)state;
	for (cut = 0; cut < n; cut += 7) {
		struct fabric_auth *s = begin(FABRIC_AUTH_SERVER, k, 0);

		assert_int_equal(fabric_auth_feed(s, buf, cut), cut);
		assert_int_equal(fabric_auth_result(s), 0);
		fabric_auth_peer_closed(s);
		assert_int_equal(fabric_auth_result(s), -ECONNRESET);
		assert_said(fabric_auth_error(s), "the client closed the connection during the "
			    "handshake");
		fabric_auth_free(s);
	}
	fabric_key_free(k);
}

/* A handshake not over in time fails, and the peer is told how long it had. */
static void test_handshake_is_timed(void **state)
{
	struct fabric_key *k = key_of(KEY_A);
	struct fabric_auth *s = begin(FABRIC_AUTH_SERVER, k, 50);
	char reason[FABRIC_AUTH_REASON_MAX + 1];

	(void)state;
	assert_true(fabric_auth_ms_left(s) > 0 && fabric_auth_ms_left(s) <= 50);
	assert_int_equal(fabric_auth_result(s), 0);
	usleep(80 * 1000);
	assert_int_equal(fabric_auth_ms_left(s), 0);
	assert_int_equal(fabric_auth_result(s), -ETIMEDOUT);
	assert_said(fabric_auth_error(s), "did not finish within 50 ms");
	pending_refusal(s, reason, sizeof(reason));
	assert_said(reason, "the handshake took longer than 50 ms");
	assert_int_equal(fabric_auth_wanted(s), 0);
	fabric_auth_free(s);
	fabric_key_free(k);
}

/*
 * The fabric's protocol right behind the client's ok: the server takes
 * the handshake's bytes and not one more.
 */
static void test_no_byte_past_the_handshake_is_taken(void **state)
{
	struct sides p;
	struct fabric_auth *c, *s;
	uint8_t buf[1024];
	size_t n;

	(void)state;
	sides_begin(&p);
	c = p.c;
	s = p.s;
	/* Hellos both ways, the client's proof to the server, the server's proof back. */
	n = take_out(c, buf, sizeof(buf));
	assert_int_equal(fabric_auth_feed(s, buf, n), n);
	n = take_out(s, buf, sizeof(buf));
	assert_int_equal(fabric_auth_feed(c, buf, n), n);
	n = take_out(c, buf, sizeof(buf));
	assert_int_equal(fabric_auth_feed(s, buf, n), n);
	n = take_out(s, buf, sizeof(buf));
	assert_int_equal(fabric_auth_feed(c, buf, n), n);
	assert_int_equal(fabric_auth_result(c), 0);	/* its ok waits */
	n = take_out(c, buf, sizeof(buf));
	assert_int_equal(fabric_auth_result(c), 1);
	memcpy(buf + n, "FABRIC PROTOCOL", 15);
	assert_int_equal(fabric_auth_feed(s, buf, n + 15), n);
	assert_int_equal(fabric_auth_result(s), 1);
	assert_int_equal(fabric_auth_feed(s, "more", 4), 0);
	assert_int_equal(fabric_auth_feed(c, "more", 4), 0);
	sides_end(&p);
}

/* --- over a socket ------------------------------------------------------------------------------ */

struct blocking_side {
	int fd;
	enum fabric_auth_role role;
	const struct fabric_key *key;
	int timeout_ms;
	int rc;
	struct umad_err err;
	char after[16];		/* what came after the handshake */
};

/* The blocking helper, then (done) a line of the fabric's protocol each way. */
static void *blocking_main(void *arg)
{
	struct blocking_side *b = arg;
	const char *said = b->role == FABRIC_AUTH_CLIENT ? "hello server" : "hello client";

	umad_err_clear(&b->err);
	b->rc = fabric_auth_handshake(b->fd, b->role, b->key, b->timeout_ms, &b->err);
	if (b->rc == 0) {
		ssize_t n;

		if (write(b->fd, said, 12) != 12)
			b->rc = -EIO;
		n = read(b->fd, b->after, 12);
		if (n != 12)
			b->rc = -EIO;
	}
	return NULL;
}

/*
 * One side (role) stepped with fabric_auth_step on a non-blocking socket,
 * as an epoll loop drives it (poll here), the other the blocking helper in
 * a thread: done, or refused, on both sides as the keys say; every wait a
 * step asks for is for something (a step with nothing to wait for is done:
 * the client, once its last record went, must not wait for the deadline);
 * then the protocol's first bytes pass.
 */
static int stepped(enum fabric_auth_role role, const struct fabric_key *key,
		   const struct fabric_key *peer_key, char *err, size_t err_size,
		   struct blocking_side *peer)
{
	int client = role == FABRIC_AUTH_CLIENT;
	struct fabric_auth *a = begin(role, key, 2000);
	pthread_t t;
	unsigned events;
	int sv[2], r;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	*peer = (struct blocking_side){ .fd = sv[1], .key = peer_key, .timeout_ms = 2000,
					.role = client ? FABRIC_AUTH_SERVER : FABRIC_AUTH_CLIENT };
	assert_int_equal(pthread_create(&t, NULL, blocking_main, peer), 0);
	while ((r = fabric_auth_step(a, sv[0], &events)) == 0) {
		struct pollfd pfd = { .fd = sv[0], .events = (short)events };

		assert_true(events != 0);
		assert_true(poll(&pfd, 1, fabric_auth_ms_left(a)) >= 0);
	}
	snprintf(err, err_size, "%s", fabric_auth_error(a));
	if (r == 1) {
		char got[16] = "";

		assert_int_equal(write(sv[0], client ? "hello server" : "hello client", 12), 12);
		assert_int_equal(fcntl(sv[0], F_SETFL, 0), 0);
		assert_int_equal(read(sv[0], got, 12), 12);
		assert_memory_equal(got, client ? "hello client" : "hello server", 12);
	}
	fabric_auth_free(a);
	close(sv[0]);
	pthread_join(t, NULL);
	close(sv[1]);
	return r;
}

static void test_client_stepped(void **state)
{
	struct fabric_key *k = key_of(KEY_A);
	struct blocking_side server;
	char err[512];

	(void)state;
	assert_int_equal(stepped(FABRIC_AUTH_CLIENT, k, k, err, sizeof(err), &server), 1);
	assert_int_equal(server.rc, 0);
	assert_memory_equal(server.after, "hello server", 12);
	fabric_key_free(k);
}

static void test_over_a_socket(void **state)
{
	struct fabric_key *ka = key_of(KEY_A), *kb = key_of(KEY_B);
	struct blocking_side client;
	char err[512];

	(void)state;
	assert_int_equal(stepped(FABRIC_AUTH_SERVER, ka, ka, err, sizeof(err), &client), 1);
	assert_int_equal(client.rc, 0);
	assert_memory_equal(client.after, "hello client", 12);
	assert_int_equal(stepped(FABRIC_AUTH_SERVER, ka, kb, err, sizeof(err), &client),
			 -EKEYREJECTED);
	assert_said(err, "the peer (the client) does not know the fabric's key");
	assert_int_equal(client.rc, -ECONNREFUSED);
	assert_said(umad_err_text(&client.err), "the server refused the handshake: the client "
		    "does not know the fabric's key");
	fabric_key_free(ka);
	fabric_key_free(kb);
}

/* A peer that never speaks: the blocking helper gives up in time, saying so. */
static void test_silent_peer_times_out(void **state)
{
	struct fabric_key *k = key_of(KEY_A);
	struct umad_err err = UMAD_ERR_INIT;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(fabric_auth_handshake(sv[0], FABRIC_AUTH_CLIENT, k, 100, &err),
			 -ETIMEDOUT);
	assert_said(umad_err_text(&err), "the handshake with the server did not finish within "
		    "100 ms");
	close(sv[0]);
	close(sv[1]);
	/* A peer that hangs up at once. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[1]);
	assert_true(fabric_auth_handshake(sv[0], FABRIC_AUTH_CLIENT, k, 1000, &err) < 0);
	assert_said(umad_err_text(&err), "the server");
	close(sv[0]);
	fabric_key_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_key_agrees),
		cmocka_unit_test(test_bytes_are_as_documented),
		cmocka_unit_test(test_wrong_key_is_refused_on_both_sides),
		cmocka_unit_test(test_server_without_key_is_refused),
		cmocka_unit_test(test_replayed_transcript_is_refused),
		cmocka_unit_test(test_garbage_is_refused),
		cmocka_unit_test(test_peer_reason_is_shown_printable),
		cmocka_unit_test(test_truncated_peer_is_refused),
		cmocka_unit_test(test_handshake_is_timed),
		cmocka_unit_test(test_no_byte_past_the_handshake_is_taken),
		cmocka_unit_test(test_over_a_socket),
		cmocka_unit_test(test_client_stepped),
		cmocka_unit_test(test_silent_peer_times_out),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
