/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The shared fabric's framing (fabric_proto.h): a message longer than the
 * socket's buffer goes out a part at a time and resumes where it stopped;
 * the reader puts it together whole, refuses one longer than its limit,
 * and reads a long one a slice at a time when asked to; a send past the
 * protocol's limit is refused before anything goes.  On a stream (TCP) the
 * same holds, a datagram going, and coming, in as many parts as the socket
 * makes of it, read ahead or not; a frame whose length is not its piece's
 * is refused.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "simfabric/fabric_proto.h"

#define LONG_LEN	(3u << 20)	/* many datagrams, and more than the socket holds */
#define SMALL_SNDBUF	(128 << 10)	/* asked for; the system doubles it */

/* A pair of non-blocking sockets; the sender's buffer small. */
static void small_pair(int sv[2])
{
	int size = SMALL_SNDBUF;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv),
			 0);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)), 0);
}

static uint8_t *pattern(size_t len)
{
	uint8_t *p = malloc(len);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + i / 65521);
	return p;
}

/* What a transfer of a long message saw. */
struct transfer {
	unsigned stops;		/* times the writer found the socket full */
	unsigned reads;		/* calls of the reader */
	size_t most;		/* the most one call read */
};

/*
 * A message of LONG_LEN from a writer to a reader, on a socket pair whose
 * sender's buffer is sndbuf (asked for), the reader reading a slice at a
 * time: the writer goes on from where the full socket stopped it, and the
 * reader gets the message whole and unchanged.
 */
static void transfer_on(int type, int sndbuf, size_t slice, struct transfer *t)
{
	struct fp_text head = { .kind = FP_TEXT_DUMP };
	uint8_t *body = pattern(LONG_LEN);
	struct fp_writer w;
	struct fp_reader r;
	size_t last = 0;
	int sv[2], sent = 0, got = 0;

	memset(t, 0, sizeof(*t));
	assert_int_equal(socketpair(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
	fp_reader_init(&r);
	r.slice = slice;
	r.stream = type == SOCK_STREAM;
	fp_writer_init(&w, FP_TEXT, &head, sizeof(head), body, LONG_LEN, -1);
	w.stream = r.stream;
	while (!got) {
		if (!sent) {
			sent = fp_writer_send(sv[0], &w, MSG_DONTWAIT);
			assert_true(sent >= 0);
			t->stops += !sent;
			/* Where it stopped, whole datagrams went (on a stream, perhaps a part of one too). */
			assert_true(w.started && (w.off > 0 || w.dgram_sent > 0));
		}
		got = fp_recv_message(sv[1], &r, MSG_DONTWAIT);
		assert_true(got >= 0);
		t->reads++;
		if (r.len - last > t->most)
			t->most = r.len - last;
		last = got ? 0 : r.len;
	}
	assert_int_equal(r.type, FP_TEXT);
	assert_int_equal(r.len, sizeof(head) + LONG_LEN);
	assert_memory_equal(r.buf, &head, sizeof(head));
	assert_memory_equal(r.buf + sizeof(head), body, LONG_LEN);
	/* Done is done: nothing more goes. */
	assert_int_equal(fp_writer_send(sv[0], &w, MSG_DONTWAIT), 1);
	assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), 0);
	fp_reader_shrink(&r);
	assert_int_equal(r.cap, FP_DATAGRAM_MAX);
	fp_reader_free(&r);
	free(body);
	close(sv[0]);
	close(sv[1]);
}

static void transfer(int sndbuf, size_t slice, struct transfer *t)
{
	transfer_on(SOCK_SEQPACKET, sndbuf, slice, t);
}

/* More than the socket holds: the writer stops and resumes, several times. */
static void test_writer_resumes_where_the_socket_stopped(void **state)
{
	struct transfer t;

	(void)state;
	transfer(SMALL_SNDBUF, 0, &t);
	assert_true(t.stops >= 4);
}

/* An empty message is one datagram, and a descriptor goes with the first. */
static void test_empty_message_and_passed_descriptor(void **state)
{
	struct fp_writer w;
	struct fp_reader r;
	uint32_t kick = 0;
	int sv[2], fd = dup(0);

	(void)state;
	small_pair(sv);
	fp_reader_init(&r);
	fp_writer_init(&w, FP_KICK, &kick, sizeof(kick), NULL, 0, fd);
	assert_int_equal(fp_writer_send(sv[0], &w, MSG_DONTWAIT), 1);
	close(fd);
	assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), 1);
	assert_int_equal(r.type, FP_KICK);
	assert_int_equal(r.len, sizeof(kick));
	assert_true(r.passed_fd >= 0);
	fp_reader_free(&r);	/* closes it */
	close(sv[0]);
	close(sv[1]);
}

/* A reader with a limit refuses a longer message; the default takes any the protocol allows. */
static void test_reader_limit(void **state)
{
	struct fp_text head = { .kind = FP_TEXT_DUMP };
	uint8_t *body = pattern(LONG_LEN);
	struct fp_reader r;
	int sv[2], r1 = 0;
	pid_t child;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fp_reader_init(&r);
	assert_true(r.max == FP_MESSAGE_MAX);
#if SIZE_MAX > UINT32_MAX
	/* Any SA table RMPP carries fits: its PayloadLength is 32 bits. */
	assert_true(FP_MESSAGE_MAX > (size_t)UINT32_MAX);
#endif
	r.max = 256 << 10;
	/* The sender blocks while the reader reads: a child sends. */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(sv[1]);
		fp_send_message2(sv[0], FP_TEXT, &head, sizeof(head), body, LONG_LEN, -1, 0);
		_exit(0);
	}
	r1 = fp_recv_message(sv[1], &r, 0);
	assert_int_equal(r1, -EMSGSIZE);
	assert_true(r.len > r.max && r.len < r.max + FP_DATAGRAM_MAX);
	close(sv[1]);
	close(sv[0]);
	assert_int_equal(waitpid(child, NULL, 0), child);
	fp_reader_free(&r);
	free(body);
}

/* A reader with a slice returns after about that much, and goes on when called again. */
static void test_reader_slice(void **state)
{
	const size_t slice = 256 << 10;
	struct transfer t;

	(void)state;
	transfer(4 << 20, slice, &t);
	assert_true(t.most <= slice + FP_DATAGRAM_MAX);
	assert_true(t.reads >= LONG_LEN / (slice + FP_DATAGRAM_MAX));
}

/* Past the protocol's limit, nothing is sent (the tail is never read). */
static void test_send_past_the_limit_is_refused(void **state)
{
	static const uint8_t head[8];
	struct fp_writer w;
	int sv[2];

	(void)state;
	small_pair(sv);
	fp_writer_init(&w, FP_TEXT, head, sizeof(head), (const void *)head, FP_MESSAGE_MAX, -1);
	assert_int_equal(fp_writer_send(sv[0], &w, MSG_DONTWAIT), -EMSGSIZE);
	assert_int_equal(fp_send_message2(sv[0], FP_TEXT, head, sizeof(head), head, FP_MESSAGE_MAX,
					  -1, MSG_DONTWAIT), -EMSGSIZE);
	assert_int_equal(recv(sv[1], (void *)&w, sizeof(w), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	close(sv[0]);
	close(sv[1]);
}

/* On a stream too, with the reader reading slices. */
static void test_stream_resumes_where_the_socket_stopped(void **state)
{
	struct transfer t;

	(void)state;
	transfer_on(SOCK_STREAM, SMALL_SNDBUF, 0, &t);
	assert_true(t.stops >= 4);
	transfer_on(SOCK_STREAM, 4 << 20, 256 << 10, &t);
	assert_true(t.most <= (256 << 10) + FP_DATAGRAM_MAX);
}

/* A message that reaches a stream reader a byte at a time is put together whole (reading ahead or not). */
static void stream_byte_by_byte(int ahead)
{
	uint8_t *body = pattern(100000), wire[110000];
	struct fp_reader r;
	size_t len = 0, i;
	int sv[2], got = 0;

	/* What the writer puts on a stream, caught whole on one side of a pair. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(fp_send_on(sv[0], 1, FP_TEXT_REPLY, NULL, 0, body, 100000, -1, 0), 0);
	while (len < sizeof(wire)) {
		ssize_t n = recv(sv[1], wire + len, sizeof(wire) - len, MSG_DONTWAIT);

		if (n <= 0)
			break;
		len += (size_t)n;
	}
	/* Two datagrams, each with its frame. */
	assert_int_equal(len, 100000 + 2 * sizeof(struct fp_frame));
	fp_reader_init(&r);
	r.stream = 1;
	r.slice = 1000;
	if (ahead)
		assert_int_equal(fp_reader_read_ahead(&r), 0);
	for (i = 0; i < len; i++) {
		assert_int_equal(got, 0);
		assert_int_equal(send(sv[0], wire + i, 1, 0), 1);
		got = fp_recv_message(sv[1], &r, MSG_DONTWAIT);
		assert_true(got >= 0);
	}
	assert_int_equal(got, 1);
	assert_int_equal(r.type, FP_TEXT_REPLY);
	assert_int_equal(r.len, 100000);
	assert_memory_equal(r.buf, body, 100000);
	/* The peer gone in the middle of a frame: the reader says so. */
	assert_int_equal(send(sv[0], wire, 5, 0), 5);
	close(sv[0]);
	assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), -ECONNRESET);
	fp_reader_free(&r);
	free(body);
	close(sv[1]);
}

static void test_stream_byte_by_byte(void **state)
{
	(void)state;
	stream_byte_by_byte(0);
	stream_byte_by_byte(1);
}

/*
 * Messages short and long sent at once to a stream reader reading ahead
 * (a slice at a time, or whole): each comes whole and in order; a call
 * that ends without one leaves either more read ahead or more the socket
 * shows (so that an owner that waits for the socket then is never stuck).
 */
static void test_stream_read_ahead(void **state)
{
	static const size_t lens[] = { 40, 300, 100000, 8, FP_READ_AHEAD, 1, 70000, 264 };
	enum { N = sizeof(lens) / sizeof(lens[0]) };
	uint8_t *body = pattern(100000 + N);	/* message i is body + i: each its own bytes */
	struct fp_reader r;
	struct pollfd pfd;
	unsigned slice, i;
	int sv[2], got;

	(void)state;
	for (slice = 0; slice <= 1; slice++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
		for (i = 0; i < N; i++)
			assert_int_equal(fp_send_on(sv[0], 1, FP_TEXT_REPLY, NULL, 0, body + i, lens[i],
						    -1, 0), 0);
		pfd = (struct pollfd){ .fd = sv[1], .events = POLLIN };
		fp_reader_init(&r);
		r.stream = 1;
		r.slice = slice ? 4096 : 0;
		assert_int_equal(fp_reader_read_ahead(&r), 0);
		for (i = 0; i < N; i++) {
			/* Called again when it holds more, else when the socket shows more: never stuck. */
			while ((got = fp_recv_message(sv[1], &r, MSG_DONTWAIT)) == 0)
				if (!fp_reader_buffered(&r))
					assert_int_equal(poll(&pfd, 1, 0), 1);
			assert_int_equal(got, 1);
			assert_int_equal(r.type, FP_TEXT_REPLY);
			assert_int_equal(r.len, lens[i]);
			assert_memory_equal(r.buf, body + i, lens[i]);
			if (i == 0)
				assert_true(fp_reader_buffered(&r));	/* the next came with it */
		}
		/* All read: nothing kept, nothing more. */
		assert_false(fp_reader_buffered(&r));
		assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), 0);
		fp_reader_free(&r);
		assert_null(r.ahead);
		close(sv[0]);
		close(sv[1]);
	}
	free(body);
}

/* A frame that lies about its piece is refused on either kind of socket; no descriptor goes on a stream. */
static void test_frame_length_is_checked(void **state)
{
	struct {
		struct fp_frame f;
		uint32_t kick;
	} d = { { .type = FP_KICK, .len = sizeof(uint32_t) + 1 }, 0 };
	struct fp_writer w;
	struct fp_reader r;
	uint32_t kick = 0;
	int sv[2], type;

	(void)state;
	for (type = 0; type < 2; type++) {
		assert_int_equal(socketpair(AF_UNIX, (type ? SOCK_STREAM : SOCK_SEQPACKET) |
					    SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
		fp_reader_init(&r);
		r.stream = type;
		if (type) {
			/* On a stream, a length past a datagram's room. */
			d.f.len = FP_DATAGRAM_MAX;
		}
		assert_int_equal(send(sv[0], &d, sizeof(d), 0), (ssize_t)sizeof(d));
		assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), -EPROTO);
		fp_reader_free(&r);
		close(sv[0]);
		close(sv[1]);
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	fp_writer_init(&w, FP_KICK, &kick, sizeof(kick), NULL, 0, 0);
	w.stream = 1;
	assert_int_equal(fp_writer_send(sv[0], &w, MSG_DONTWAIT), -EINVAL);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_resumes_where_the_socket_stopped),
		cmocka_unit_test(test_stream_byte_by_byte),
		cmocka_unit_test(test_stream_read_ahead),
		cmocka_unit_test(test_frame_length_is_checked),
		cmocka_unit_test(test_writer_resumes_where_the_socket_stopped),
		cmocka_unit_test(test_empty_message_and_passed_descriptor),
		cmocka_unit_test(test_reader_limit),
		cmocka_unit_test(test_reader_slice),
		cmocka_unit_test(test_send_past_the_limit_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
