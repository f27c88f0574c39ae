/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* A fair share of the TCP server's handshake slots (handshake_share.h). */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "simfabric/handshake_share.h"

int handshake_source_of(const struct sockaddr *sa, socklen_t len, struct handshake_source *out)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		/* The IPv4-mapped form, so that both ways of writing one address are one source. */
		out->bytes[10] = out->bytes[11] = 0xff;
		memcpy(out->bytes + 12, &in->sin_addr, sizeof(in->sin_addr));
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		memcpy(out->bytes, &in6->sin6_addr, sizeof(out->bytes));
		if (!IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			memset(out->bytes + HANDSHAKE_SHARE_IPV6_PREFIX / 8, 0,
			       sizeof(out->bytes) - HANDSHAKE_SHARE_IPV6_PREFIX / 8);
		return 0;
	}
	return -EAFNOSUPPORT;
}

void handshake_share_init(struct handshake_share *t)
{
	memset(t, 0, sizeof(*t));
}

static int same_source(const struct handshake_source *x, const struct handshake_source *y)
{
	return memcmp(x->bytes, y->bytes, sizeof(x->bytes)) == 0;
}

unsigned handshake_share_held(const struct handshake_share *t,
			      const struct handshake_source *source)
{
	unsigned i, held = 0;

	for (i = 0; i < t->n; i++)
		held += same_source(&t->slot[i].source, source);
	return held;
}

/* Slot i goes: the last one takes its place. */
static void drop_slot(struct handshake_share *t, unsigned i)
{
	t->slot[i] = t->slot[--t->n];
}

/*
 * The slot to take when all are held: the oldest handshake of the sources
 * holding the most, when they hold more than `held`; -1 when none does.
 */
static int victim(const struct handshake_share *t, unsigned held)
{
	unsigned count[HANDSHAKE_SHARE_SLOTS], i, most = held;
	int oldest = -1;

	for (i = 0; i < t->n; i++) {
		count[i] = handshake_share_held(t, &t->slot[i].source);
		if (count[i] > most)
			most = count[i];
	}
	for (i = 0; most > held && i < t->n; i++)
		if (count[i] == most && (oldest < 0 || t->slot[i].age < t->slot[oldest].age))
			oldest = (int)i;
	return oldest;
}

enum handshake_admit handshake_share_admit(struct handshake_share *t,
					   const struct handshake_source *source, void *owner,
					   void **evicted)
{
	unsigned held = handshake_share_held(t, source);
	enum handshake_admit how = HANDSHAKE_ADMITTED;

	*evicted = NULL;
	if (held >= HANDSHAKE_SHARE_PER_SOURCE)
		return HANDSHAKE_OVER_SHARE;
	if (t->n == HANDSHAKE_SHARE_SLOTS) {
		int v = victim(t, held);

		if (v < 0)
			return HANDSHAKE_FULL;
		*evicted = t->slot[v].owner;
		drop_slot(t, (unsigned)v);
		how = HANDSHAKE_EVICTED;
	}
	t->slot[t->n].source = *source;
	t->slot[t->n].age = t->next_age++;
	t->slot[t->n].owner = owner;
	t->n++;
	return how;
}

int handshake_share_release(struct handshake_share *t, const void *owner)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		if (t->slot[i].owner == owner) {
			drop_slot(t, i);
			return 0;
		}
	return -ENOENT;
}
