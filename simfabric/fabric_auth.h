/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The handshake that opens a connection to a fabric reached over TCP:
 * both ends prove they hold the fabric's key (fabric_key.h) without
 * sending it, before anything of the fabric's protocol is said.  A peer
 * without the key is refused, and told so; a transcript recorded earlier
 * and replayed fails, as each side's proof covers a fresh random challenge
 * of the other's.
 *
 * On the wire (multi-byte numbers big-endian), each side sends:
 *
 *   preamble  "UMAD-FAB" (8 bytes), version (2 bytes, FABRIC_AUTH_VERSION)
 *   records   type (1 byte), zero (1 byte), body length (2 bytes), body:
 *     'H' hello   role ('C' client, 'S' server), zero, nonce (32 random bytes)
 *     'P' proof   HMAC-SHA256(key, label || own nonce || peer's nonce), 32 bytes,
 *                 label "umad fabric handshake 1: client" or "...: server"
 *                 (the sender's role; no NUL)
 *     'K' ok      empty: the client accepts the server's proof
 *     'R' refuse  why, 1 to FABRIC_AUTH_REASON_MAX bytes of text; the
 *                 sender closes the connection after it.  A server's
 *                 reason that begins FABRIC_AUTH_BUSY ("busy: ") means it
 *                 has no handshake slot for this peer now (its address
 *                 holds its share of them, or a slot was taken for a
 *                 newcomer): the client may try again (-EAGAIN)
 *
 * The order: both sides send their preamble and hello at once.  The
 * client sends its proof on the server's hello.  The server checks it and
 * only then sends its own (a peer without the key gets no proof made with
 * it); the client checks that and sends ok.  The server is done when ok
 * has come, the client once ok is sent: the fabric's protocol starts with
 * the next byte, and neither side reads past the handshake's last byte.
 * Any side may send refuse instead of its next record.  Every version
 * keeps the preamble and refuse as they are, so that a peer of another
 * version is told why.
 *
 * What it does not do: the connection is not encrypted, and nothing binds
 * the bytes after the handshake to it.  Someone who can rewrite traffic
 * between the hosts can relay a handshake and then speak in a client's
 * place; use it on a network trusted not to do that (a cluster's own, a
 * VPN, an SSH tunnel).
 *
 * Errors: -EKEYREJECTED the peer's proof is wrong (it does not know the
 * key), -ECONNREFUSED the peer refused (its reason is in the message),
 * -EAGAIN the server was busy (a refusal with FABRIC_AUTH_BUSY),
 * -EPROTO not this handshake or a malformed one, -EPROTONOSUPPORT another
 * version, -ETIMEDOUT not done in time, -ECONNRESET the peer closed the
 * connection, else a socket's or getrandom's -errno.  The messages name
 * the peer by its role ("the client", "the server"); the caller adds where
 * it is.
 */
#ifndef SIMFABRIC_FABRIC_AUTH_H
#define SIMFABRIC_FABRIC_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "simfabric/fabric_key.h"

#define FABRIC_AUTH_VERSION	1
#define FABRIC_AUTH_NONCE_LEN	32
#define FABRIC_AUTH_REASON_MAX	255
#define FABRIC_AUTH_TIMEOUT_MS	10000	/* a handshake's time, unless told otherwise */
#define FABRIC_AUTH_BUSY	"busy: "	/* a refusal that is worth trying again */
/* The preamble and a refusal record, whole (fabric_auth_refusal_bytes). */
#define FABRIC_AUTH_REFUSAL_MAX	(8 + 2 + 4 + FABRIC_AUTH_REASON_MAX)

enum fabric_auth_role {
	FABRIC_AUTH_CLIENT,
	FABRIC_AUTH_SERVER
};

/* One side of one handshake. */
struct fabric_auth;

/*
 * Begin a handshake as role with key (which must outlive it), to be done
 * within timeout_ms (<= 0: FABRIC_AUTH_TIMEOUT_MS) from now.  The
 * preamble and hello wait to be sent.  0 with *out set, or -errno with why
 * in err (-ENOMEM, or getrandom's error).
 */
int fabric_auth_new(enum fabric_auth_role role, const struct fabric_key *key, int timeout_ms,
		    struct fabric_auth **out, struct umad_err *err);
void fabric_auth_free(struct fabric_auth *a);

/*
 * Driving it on a socket, as a loop that never waits does (epoll): call
 * fabric_auth_step when the socket is ready for what *events asked, and
 * when fabric_auth_ms_left reaches 0.  It sends what waits, reads what
 * the handshake wants (never a byte past it) and never blocks, whether fd
 * is non-blocking or not.
 *   1   done: the peer holds the key and all of this side's records went;
 *       fd carries the fabric's protocol from its next byte.
 *   0   not yet: call again when fd is ready for *events (POLLIN and/or
 *       POLLOUT, the same bits as EPOLLIN and EPOLLOUT) or the time is up.
 *   <0  refused (-errno; why in fabric_auth_error): the peer was sent the
 *       reason when it was this side that refused and the socket took it.
 *       Close fd.
 */
int fabric_auth_step(struct fabric_auth *a, int fd, unsigned *events);

/* Milliseconds until the handshake's time is up (0: it is). */
int fabric_auth_ms_left(const struct fabric_auth *a);

/*
 * Why the handshake failed ("" while it has not): the stepped handshake's
 * own reason, kept with it, as the handshake fails in whichever step.
 */
const char *fabric_auth_error(const struct fabric_auth *a);

/*
 * A whole handshake on connected socket fd, waiting for the peer (poll)
 * up to timeout_ms (<= 0: FABRIC_AUTH_TIMEOUT_MS): 0, or -errno with why
 * in err.  For a client after its connect; fd's flags are left as they are.
 */
int fabric_auth_handshake(int fd, enum fabric_auth_role role, const struct fabric_key *key,
			  int timeout_ms, struct umad_err *err);

/*
 * A server turns a connection away before its handshake began: the
 * preamble and a refusal with FABRIC_AUTH_BUSY and why (cut to fit), as a
 * handshake would begin, written into buf (FABRIC_AUTH_REFUSAL_MAX bytes):
 * how many bytes.
 */
size_t fabric_auth_busy_bytes(const char *why, uint8_t buf[FABRIC_AUTH_REFUSAL_MAX]);

/*
 * This side gives a handshake under way up for want of room: it fails
 * with -EAGAIN, and the peer is sent a refusal with FABRIC_AUTH_BUSY and
 * why (fabric_auth_step sends it).  Nothing when it is over already.
 */
void fabric_auth_give_up_busy(struct fabric_auth *a, const char *why);

/*
 * The same machine over bytes, for callers that move them themselves
 * (tests, the fuzz target).  fabric_auth_step is made of these.
 */

/* How many bytes of the peer's the handshake wants next: 0 once it is over. */
size_t fabric_auth_wanted(const struct fabric_auth *a);

/* Take up to len of the peer's bytes; how many were taken (no more than wanted). */
size_t fabric_auth_feed(struct fabric_auth *a, const void *buf, size_t len);

/* The peer closed its end: a handshake not over fails. */
void fabric_auth_peer_closed(struct fabric_auth *a);

/* The bytes waiting to be sent, and then how many of them went. */
const void *fabric_auth_pending(const struct fabric_auth *a, size_t *len);
void fabric_auth_sent(struct fabric_auth *a, size_t n);

/*
 * 1 done and nothing left to send, 0 going on, -errno failed (a refusal
 * of this side's may still wait to be sent).  A handshake whose time is
 * up fails here (and its refusal is queued).
 */
int fabric_auth_result(struct fabric_auth *a);

#endif /* SIMFABRIC_FABRIC_AUTH_H */
