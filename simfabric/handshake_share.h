/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A fair share of the TCP server's handshake slots among the addresses
 * that connect: a peer without the key can hold a slot for as long as a
 * handshake may take (FABRIC_AUTH_TIMEOUT_MS) and open another as soon as
 * one is closed, so without a share one peer holds every slot and no
 * client is served.
 *
 * The rules:
 *  - at most HANDSHAKE_SHARE_SLOTS handshakes under way, and at most
 *    HANDSHAKE_SHARE_PER_SOURCE of them from one source;
 *  - a source is an IPv4 address (an IPv4-mapped IPv6 address counts as
 *    its IPv4 address) or an IPv6 /64 network, as one host usually holds
 *    a whole /64;
 *  - a newcomer whose source holds its share is turned away;
 *  - a newcomer when every slot is taken takes the slot of the oldest
 *    handshake of the source holding the most (the oldest of those when
 *    several hold as many), when that source holds more than the
 *    newcomer's: so a few sources can fill the slots, never keep out one
 *    that holds fewer.
 *
 * Pure bookkeeping: no socket, no clock; the caller closes what is turned
 * away or evicted.
 */
#ifndef SIMFABRIC_HANDSHAKE_SHARE_H
#define SIMFABRIC_HANDSHAKE_SHARE_H

#include <stdint.h>
#include <sys/socket.h>

#define HANDSHAKE_SHARE_SLOTS		64	/* handshakes under way, all sources together */
#define HANDSHAKE_SHARE_PER_SOURCE	8	/* ... and from one source (1/8 of them) */
#define HANDSHAKE_SHARE_IPV6_PREFIX	64	/* an IPv6 source: its /64 network */

/* Where a connection comes from, as the share counts it. */
struct handshake_source {
	uint8_t bytes[16];		/* an IPv4 address as ::ffff:a.b.c.d; IPv6 with its host bits 0 */
};

/*
 * The source of a peer's address (AF_INET or AF_INET6).  0, or -EAFNOSUPPORT
 * for another family (a Unix socket's peer is not counted here).
 */
int handshake_source_of(const struct sockaddr *sa, socklen_t len, struct handshake_source *out);

struct handshake_share {
	unsigned n;
	uint64_t next_age;
	struct {
		struct handshake_source source;
		uint64_t age;		/* order of arrival: smaller is older */
		void *owner;
	} slot[HANDSHAKE_SHARE_SLOTS];
};

void handshake_share_init(struct handshake_share *t);

enum handshake_admit {
	HANDSHAKE_ADMITTED,		/* owner holds a slot now */
	HANDSHAKE_EVICTED,		/* ... taken from *evicted, which must be closed */
	HANDSHAKE_OVER_SHARE,		/* its source holds its share: close the newcomer */
	HANDSHAKE_FULL			/* every slot is held by sources holding no more than its own */
};

/*
 * A newcomer (owner, not NULL) from source: whether it gets a slot, and
 * whose it takes.  *evicted is set for HANDSHAKE_EVICTED (its slot is gone
 * already), NULL otherwise.
 */
enum handshake_admit handshake_share_admit(struct handshake_share *t,
					   const struct handshake_source *source, void *owner,
					   void **evicted);

/* owner's handshake ended (done or refused): its slot is free.  0, or -ENOENT: it held none. */
int handshake_share_release(struct handshake_share *t, const void *owner);

/* How many slots source holds now. */
unsigned handshake_share_held(const struct handshake_share *t,
			      const struct handshake_source *source);

#endif /* SIMFABRIC_HANDSHAKE_SHARE_H */
