/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fair share of a TCP server's handshake slots (simfabric/handshake_share.h):
 * what counts as one source (an IPv4 address, its IPv4-mapped IPv6 form,
 * an IPv6 /64), the share per source, and which slot a newcomer takes
 * when all are held.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <cmocka.h>

#include "simfabric/handshake_share.h"

static struct handshake_source source(const char *text)
{
	struct handshake_source s;
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(1234) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(1234) };

	if (inet_pton(AF_INET, text, &in.sin_addr) == 1) {
		assert_int_equal(handshake_source_of((struct sockaddr *)&in, sizeof(in), &s), 0);
		return s;
	}
	assert_int_equal(inet_pton(AF_INET6, text, &in6.sin6_addr), 1);
	assert_int_equal(handshake_source_of((struct sockaddr *)&in6, sizeof(in6), &s), 0);
	return s;
}

static int same(const char *x, const char *y)
{
	struct handshake_source a = source(x), b = source(y);

	return memcmp(&a, &b, sizeof(a)) == 0;
}

static void test_sources(void **state)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct handshake_source s;

	(void)state;
	assert_false(same("127.0.0.1", "127.0.0.2"));
	assert_true(same("10.1.2.3", "::ffff:10.1.2.3"));
	assert_false(same("10.1.2.3", "::ffff:10.1.2.4"));
	/* One /64 is one source, whatever its host bits; the next /64 another. */
	assert_true(same("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"));
	assert_false(same("2001:db8:1:2::1", "2001:db8:1:3::1"));
	/* An IPv6 address that ends like an IPv4 one is not it. */
	assert_false(same("10.1.2.3", "::10.1.2.3"));
	assert_int_equal(handshake_source_of((struct sockaddr *)&un, sizeof(un), &s), -EAFNOSUPPORT);
}

static void test_share_per_source(void **state)
{
	static struct handshake_share t;
	struct handshake_source a = source("192.0.2.1"), b = source("192.0.2.2");
	int owners[HANDSHAKE_SHARE_PER_SOURCE + 2];
	void *evicted;
	unsigned i;

	(void)state;
	handshake_share_init(&t);
	for (i = 0; i < HANDSHAKE_SHARE_PER_SOURCE; i++)
		assert_int_equal(handshake_share_admit(&t, &a, &owners[i], &evicted),
				 HANDSHAKE_ADMITTED);
	assert_int_equal(handshake_share_admit(&t, &a, &owners[i], &evicted), HANDSHAKE_OVER_SHARE);
	assert_null(evicted);
	assert_int_equal(handshake_share_held(&t, &a), HANDSHAKE_SHARE_PER_SOURCE);
	/* Another source is not held back by it. */
	assert_int_equal(handshake_share_admit(&t, &b, &owners[i + 1], &evicted),
			 HANDSHAKE_ADMITTED);
	/* A slot let go is a slot again. */
	assert_int_equal(handshake_share_release(&t, &owners[0]), 0);
	assert_int_equal(handshake_share_release(&t, &owners[0]), -ENOENT);
	assert_int_equal(handshake_share_admit(&t, &a, &owners[i], &evicted), HANDSHAKE_ADMITTED);
	assert_int_equal(handshake_share_held(&t, &a), HANDSHAKE_SHARE_PER_SOURCE);
}

/* Every slot held: a newcomer takes the oldest of the source holding the most, never one of fewer. */
static void test_full(void **state)
{
	enum { SOURCES = HANDSHAKE_SHARE_SLOTS / HANDSHAKE_SHARE_PER_SOURCE };
	static struct handshake_share t;
	static int owners[HANDSHAKE_SHARE_SLOTS + 8];
	struct handshake_source s[SOURCES], lone = source("198.51.100.7");
	char text[32];
	void *evicted;
	unsigned i, n = 0;

	(void)state;
	handshake_share_init(&t);
	for (i = 0; i < SOURCES; i++) {
		snprintf(text, sizeof(text), "203.0.113.%u", i + 1);
		s[i] = source(text);
	}
	/* Source 0 takes one slot first; then sources 1.. fill theirs, 0 last of all. */
	assert_int_equal(handshake_share_admit(&t, &s[0], &owners[n++], &evicted),
			 HANDSHAKE_ADMITTED);
	for (i = 1; i < SOURCES; i++)
		for (unsigned k = 0; k < HANDSHAKE_SHARE_PER_SOURCE; k++)
			assert_int_equal(handshake_share_admit(&t, &s[i], &owners[n++], &evicted),
					 HANDSHAKE_ADMITTED);
	for (i = 1; i < HANDSHAKE_SHARE_PER_SOURCE; i++)
		assert_int_equal(handshake_share_admit(&t, &s[0], &owners[n++], &evicted),
				 HANDSHAKE_ADMITTED);
	assert_int_equal(t.n, HANDSHAKE_SHARE_SLOTS);
	/* All hold 8: the newcomer takes the oldest of them all, source 0's first. */
	assert_int_equal(handshake_share_admit(&t, &lone, &owners[n++], &evicted),
			 HANDSHAKE_EVICTED);
	assert_ptr_equal(evicted, &owners[0]);
	assert_int_equal(handshake_share_held(&t, &s[0]), HANDSHAKE_SHARE_PER_SOURCE - 1);
	/* Now the sources holding 8 give theirs, oldest first: source 1's first slot. */
	assert_int_equal(handshake_share_admit(&t, &lone, &owners[n++], &evicted),
			 HANDSHAKE_EVICTED);
	assert_ptr_equal(evicted, &owners[1]);
	assert_int_equal(handshake_share_held(&t, &lone), 2);
	assert_int_equal(t.n, HANDSHAKE_SHARE_SLOTS);
	/* Source 0, holding 7, takes from one holding 8, and only the oldest there. */
	assert_int_equal(handshake_share_admit(&t, &s[0], &owners[n++], &evicted),
			 HANDSHAKE_EVICTED);
	assert_ptr_equal(evicted, &owners[1 + HANDSHAKE_SHARE_PER_SOURCE]);
}

/* Every slot held by sources holding one each: a newcomer of one of them gets none. */
static void test_full_of_equals(void **state)
{
	static struct handshake_share t;
	static int owners[HANDSHAKE_SHARE_SLOTS + 2];
	char text[48];
	void *evicted;
	unsigned i;

	(void)state;
	handshake_share_init(&t);
	for (i = 0; i < HANDSHAKE_SHARE_SLOTS; i++) {
		struct handshake_source s;

		snprintf(text, sizeof(text), "2001:db8:0:%x::1", i);
		s = source(text);
		assert_int_equal(handshake_share_admit(&t, &s, &owners[i], &evicted),
				 HANDSHAKE_ADMITTED);
	}
	{
		struct handshake_source again = source("2001:db8:0:5::99");

		assert_int_equal(handshake_share_admit(&t, &again, &owners[i], &evicted),
				 HANDSHAKE_FULL);
		assert_null(evicted);
	}
	{
		struct handshake_source fresh = source("2001:db8:1::1");

		/* One holding none takes the oldest of those holding one. */
		assert_int_equal(handshake_share_admit(&t, &fresh, &owners[i + 1], &evicted),
				 HANDSHAKE_EVICTED);
		assert_ptr_equal(evicted, &owners[0]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_share_per_source),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_full_of_equals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
