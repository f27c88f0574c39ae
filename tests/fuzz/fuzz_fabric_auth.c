/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the key handshake of a fabric over TCP
 * (simfabric/fabric_auth.h), the first thing a stranger's bytes reach on
 * the server's port.  Any bytes are taken or refused with a reason, never
 * a crash; the machine never wants or takes more than the handshake holds,
 * and once over (done or failed) takes no byte more.
 *
 * The input: byte 0, bit 0 the side fed (0 server, 1 client); bits 1-4
 * the size of the pieces it is fed in (0: all at once); bit 5 a relay:
 * the two sides run against each other with one key, and the rest of the
 * input is changes to the bytes between them (pairs: an offset into the
 * stream, a byte to xor there; a side picked by the offset's high bit);
 * with nothing changed both must end done.  Otherwise
 * the rest of the input is the peer's bytes, after which the peer closes.
 *
 * Sources: tests/fuzz/fuzz_fabric_auth.c simfabric/fabric_auth.c
 *   simfabric/fabric_key.c simfabric/fabric_trust.c, with glib-2.0
 *   ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simfabric/fabric_auth.h"
#include "tests/fuzz/read_all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The most one side sends: preamble, hello, proof or ok, a refusal. */
#define SIDE_MAX	512

static struct fabric_key *key;

/* A key in a file of this process's own, loaded once. */
static const struct fabric_key *the_key(void)
{
	char path[] = "/tmp/umad-fuzz-key.XXXXXX";
	static const char text[] = "a key for the fuzzer's handshakes\n";
	int fd;

	if (key)
		return key;
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1))
		abort();
	close(fd);
	if (fabric_key_load(path, &key, NULL) < 0)
		abort();
	unlink(path);
	return key;
}

/* What holds whatever was fed: results in range, nothing wanted once over, a reason on failure. */
static void check(struct fabric_auth *a)
{
	int r = fabric_auth_result(a);
	size_t pending;
	const void *p = fabric_auth_pending(a, &pending);
	volatile unsigned sink = 0;

	if (r > 1 || pending > SIDE_MAX || fabric_auth_wanted(a) > SIDE_MAX)
		abort();
	if (r != 0 && fabric_auth_wanted(a) != 0)
		abort();
	if (r < 0 && !fabric_auth_error(a)[0])
		abort();
	sink += sum_bytes(p, pending) + sum_string(fabric_auth_error(a));
	(void)sink;
}

/* Feed a side data in pieces of chunk bytes (0: at once), then close. */
static void feed_one(enum fabric_auth_role role, const uint8_t *data, size_t size, size_t chunk)
{
	struct fabric_auth *a;
	size_t off = 0;

	if (fabric_auth_new(role, the_key(), 0, &a, NULL) < 0)
		abort();
	while (off < size) {
		size_t n = chunk && chunk < size - off ? chunk : size - off;
		size_t want = fabric_auth_wanted(a), took = fabric_auth_feed(a, data + off, n);
		size_t pending;

		/* All of it taken, or up to where the handshake wanted no more. */
		if (took > n || (want > 0 && took == 0) || (took < n && fabric_auth_wanted(a)))
			abort();
		check(a);
		fabric_auth_pending(a, &pending);
		fabric_auth_sent(a, pending);
		if (took == 0)
			break;
		off += took;
	}
	fabric_auth_peer_closed(a);
	check(a);
	if (fabric_auth_result(a) == 0)
		abort();	/* a closed peer leaves a handshake done or failed */
	fabric_auth_free(a);
}

/* Move one side's pending bytes to the other, applying the changes that fall in them. */
static void move(struct fabric_auth *from, struct fabric_auth *to, size_t *stream_off, int side,
		 const uint8_t *changes, size_t n_changes, int *changed)
{
	uint8_t buf[SIDE_MAX];
	size_t len, i;
	const void *p = fabric_auth_pending(from, &len);

	if (len > sizeof(buf))
		abort();
	memcpy(buf, p, len);
	fabric_auth_sent(from, len);
	for (i = 0; i + 1 < n_changes; i += 2) {
		size_t at = changes[i] & 0x7f;

		if ((changes[i] >> 7) == side && at >= *stream_off && at < *stream_off + len &&
		    changes[i + 1]) {
			buf[at - *stream_off] ^= changes[i + 1];
			*changed = 1;
		}
	}
	*stream_off += len;
	fabric_auth_feed(to, buf, len);
}

/* Two sides with one key, the bytes between them changed as the input says. */
static void relay(const uint8_t *changes, size_t n_changes)
{
	struct fabric_auth *c, *s;
	size_t off_c = 0, off_s = 0, rounds;
	int changed = 0;

	if (fabric_auth_new(FABRIC_AUTH_CLIENT, the_key(), 0, &c, NULL) < 0 ||
	    fabric_auth_new(FABRIC_AUTH_SERVER, the_key(), 0, &s, NULL) < 0)
		abort();
	for (rounds = 0; rounds < 8; rounds++) {
		move(c, s, &off_c, 0, changes, n_changes, &changed);
		move(s, c, &off_s, 1, changes, n_changes, &changed);
		check(c);
		check(s);
	}
	if (!changed && (fabric_auth_result(c) != 1 || fabric_auth_result(s) != 1))
		abort();
	fabric_auth_free(c);
	fabric_auth_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t how;

	if (size == 0)
		return 0;
	how = data[0];
	if (how & 0x20)
		relay(data + 1, size - 1);
	else
		feed_one(how & 1 ? FABRIC_AUTH_CLIENT : FABRIC_AUTH_SERVER, data + 1, size - 1,
			 (how >> 1) & 0xf);
	return 0;
}
