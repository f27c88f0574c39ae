/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The soft ports' receive queue (backends/mad_queue.c) with MADs that
 * arrive late (mad_queue_push_at(), a link's delay): they come out in the
 * order they arrive, interleaved with MADs pushed at once and with send
 * timeouts falling due, never before their time; the descriptor, once
 * watched, is readable exactly when a pop has something; a response
 * claimed for a waiting request keeps it outstanding until it arrives,
 * and one that would arrive after the request's timeout (or arrives after
 * it, before anyone read the timeout) leaves the timeout to fire; a
 * thread already waiting wakes for an arrival; the rings do not grow in
 * the steady state; a request with retries is resent on each timeout
 * until answered, then times out after its last resend.  Times are
 * asserted as lower bounds only.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "backends/mad_queue.h"
#include "base/mad_wire.h"

#define MS	1000000ull		/* nanoseconds */
#define TEST_CLASS	0x32		/* any GMP class */
#define TAG_OFF		MAD_HDR_SIZE	/* a byte of the data that names the MAD in a test */

struct popped {
	ssize_t len;
	uint8_t buf[MAD_QUEUE_HDR + 4096];
};

static const struct ib_user_mad *hdr_of(const struct popped *p)
{
	return (const struct ib_user_mad *)p->buf;
}

static void make_mad(uint8_t *mad, uint8_t method, uint32_t tid, uint8_t tag)
{
	memset(mad, 0, MAD_SIZE);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = TEST_CLASS;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = method;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	mad[TAG_OFF] = tag;
}

static void push_tag(struct mad_queue *q, uint8_t tag, uint64_t due_ns)
{
	struct ib_user_mad hdr = { .agent_id = 1 };
	uint8_t mad[MAD_SIZE];

	make_mad(mad, UMAD_METHOD_GET, tag, tag);
	assert_int_equal(mad_queue_push_at(q, &hdr, mad, MAD_SIZE, due_ns, 0), 0);
}

/* The tag of the next MAD, or the negative errno of the pop. */
static int pop_tag(struct mad_queue *q, struct popped *p)
{
	p->len = mad_queue_pop(q, p->buf, sizeof(p->buf));
	if (p->len < 0)
		return (int)p->len;
	assert_true(p->len >= (ssize_t)(MAD_QUEUE_HDR + TAG_OFF + 1));
	return p->buf[MAD_QUEUE_HDR + TAG_OFF];
}

static int readable(struct mad_queue *q, int timeout_ms)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ms);

	assert_true(n >= 0);
	return n > 0 && (pfd.revents & POLLIN);
}

static void sleep_until(uint64_t t_ns)
{
	uint64_t now = mad_queue_now_ns();
	struct timespec ts;

	if (now >= t_ns)
		return;
	ts.tv_sec = (time_t)((t_ns - now) / 1000000000u);
	ts.tv_nsec = (long)((t_ns - now) % 1000000000u);
	while (nanosleep(&ts, &ts) < 0)
		;
}

static int setup(void **state)
{
	static struct mad_queue q;

	assert_int_equal(mad_queue_open(&q), 0);
	*state = &q;
	return 0;
}

static int teardown(void **state)
{
	mad_queue_free(*state);
	return 0;
}

/*
 * MADs pushed at once come out at once, ahead of those still on their way;
 * the late ones follow in the order of their arrival (equal times: as
 * pushed), each once its time has come, and the watched descriptor is
 * readable exactly when a pop has one.
 */
static void test_interleaved_with_immediate(void **state)
{
	struct mad_queue *q = *state;
	uint64_t t0 = mad_queue_now_ns();
	const uint64_t due[6] = { 0, 0, t0 + 80 * MS, 0, t0 + 40 * MS, t0 + 40 * MS };
	const int order[3] = { 4, 5, 2 };
	struct popped p;
	int i;

	mad_queue_watch(q);
	push_tag(q, 1, 0);
	push_tag(q, 2, due[2]);
	push_tag(q, 3, 0);
	push_tag(q, 4, due[4]);
	push_tag(q, 5, due[5]);
	assert_int_equal(pop_tag(q, &p), 1);
	assert_int_equal(pop_tag(q, &p), 3);
	for (i = 0; i < 3; i++) {
		/* Readable means a pop has something: no wake-up for nothing. */
		assert_true(readable(q, 5000));
		assert_int_equal(pop_tag(q, &p), order[i]);
		assert_true(mad_queue_now_ns() >= due[order[i]]);
		assert_int_equal(hdr_of(&p)->agent_id, 1);
		assert_int_equal(hdr_of(&p)->length, MAD_QUEUE_HDR + MAD_SIZE);
	}
	assert_false(readable(q, 0));
	assert_false(mad_queue_pending(q));
	assert_int_equal(pop_tag(q, &p), -EAGAIN);
}

/* What fell due unread comes out in time order (arrivals, timeouts), then newer MADs. */
static void test_interleaved_with_timeouts(void **state)
{
	struct mad_queue *q = *state;
	struct ib_user_mad req_hdr = { .agent_id = 2, .timeout_ms = 30 };
	uint8_t req[MAD_SIZE];
	uint64_t t0 = mad_queue_now_ns();
	struct popped p;

	make_mad(req, UMAD_METHOD_GET, 7, 77);
	assert_int_equal(mad_queue_add_timeout(q, &req_hdr, req, 0, 0), 0);
	push_tag(q, 8, t0 + 60 * MS);
	push_tag(q, 9, t0 + 10 * MS);
	sleep_until(t0 + 100 * MS);
	assert_true(mad_queue_pending(q));
	push_tag(q, 10, 0);		/* pushed now: after all three */
	assert_int_equal(pop_tag(q, &p), 9);
	/* The timeout reports the request's header, no data: no tag to read. */
	p.len = mad_queue_pop(q, p.buf, sizeof(p.buf));
	assert_int_equal(p.len, MAD_QUEUE_HDR + sizeof(struct umad_hdr));
	assert_int_equal(hdr_of(&p)->status, MAD_QUEUE_ETIMEDOUT);
	assert_int_equal(hdr_of(&p)->agent_id, 2);
	assert_int_equal(get_be32(p.buf + MAD_QUEUE_HDR + MAD_OFF_TID_LOW), 7);
	assert_int_equal(pop_tag(q, &p), 8);
	assert_int_equal(pop_tag(q, &p), 10);
	assert_int_equal(pop_tag(q, &p), -EAGAIN);
}

/* An answer that would arrive after the request's timeout claims nothing: the timeout fires. */
static void test_late_answer_times_out(void **state)
{
	struct mad_queue *q = *state;
	struct ib_user_mad req_hdr = { .agent_id = 3, .timeout_ms = 20 };
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	uint64_t t0 = mad_queue_now_ns();
	uint32_t agent = 99;
	struct popped p;

	make_mad(req, UMAD_METHOD_GET, 0x11, 0);
	make_mad(resp, UMAD_METHOD_GET_RESP, 0x11, 0);
	assert_int_equal(mad_queue_add_timeout(q, &req_hdr, req, 0, 0), 0);
	assert_int_equal(mad_queue_claim_request_at(q, resp, t0 + 200 * MS, &agent), 0);
	assert_int_equal(agent, 99);
	assert_true(mad_queue_is_outstanding(q, &req_hdr, req, 0));
	assert_int_equal(mad_queue_wait(q, q->fd, 5000), 0);
	assert_true(mad_queue_now_ns() >= t0 + 20 * MS);
	/* Past its deadline, unread: a response arriving now finds nothing either. */
	assert_int_equal(mad_queue_claim_request(q, resp, &agent), 0);
	p.len = mad_queue_pop(q, p.buf, sizeof(p.buf));
	assert_true(p.len > 0);
	assert_int_equal(hdr_of(&p)->status, MAD_QUEUE_ETIMEDOUT);
	assert_int_equal(hdr_of(&p)->agent_id, 3);
	assert_false(mad_queue_is_outstanding(q, &req_hdr, req, 0));
	assert_int_equal(pop_tag(q, &p), -EAGAIN);
}

/*
 * An answer claimed for a request arrives later: meanwhile the request is
 * outstanding (a duplicate would be refused, a second answer finds none);
 * its arrival ends the request, and no timeout follows.
 */
static void test_claimed_answer_arrives(void **state)
{
	struct mad_queue *q = *state;
	struct ib_user_mad req_hdr = { .agent_id = 4, .timeout_ms = 2000 };
	struct ib_user_mad resp_hdr = { .agent_id = 0 };
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	uint64_t due = mad_queue_now_ns() + 30 * MS;
	uint32_t agent = 99;
	struct popped p;

	make_mad(req, UMAD_METHOD_GET, 0x22, 0);
	make_mad(resp, UMAD_METHOD_GET_RESP, 0x22, 42);
	assert_int_equal(mad_queue_add_timeout(q, &req_hdr, req, 0, 0), 0);
	assert_int_equal(mad_queue_claim_request_at(q, resp, due, &agent), 1);
	assert_int_equal(agent, 4);
	resp_hdr.agent_id = agent;
	assert_int_equal(mad_queue_push_at(q, &resp_hdr, resp, MAD_SIZE, due, 1), 0);
	assert_true(mad_queue_is_outstanding(q, &req_hdr, req, 0));
	assert_int_equal(mad_queue_claim_request(q, resp, &agent), 0);
	assert_int_equal(mad_queue_wait(q, q->fd, 5000), 0);
	assert_true(mad_queue_now_ns() >= due);
	assert_int_equal(pop_tag(q, &p), 42);
	assert_int_equal(hdr_of(&p)->status, 0);
	assert_int_equal(hdr_of(&p)->agent_id, 4);
	assert_false(mad_queue_is_outstanding(q, &req_hdr, req, 0));
	assert_int_equal(q->n_timeouts, 0);
	assert_int_equal(q->armed_ns, 0);
	assert_int_equal(pop_tag(q, &p), -EAGAIN);
}

/*
 * Something far off: nothing to pop, the descriptor quiet, a wait times
 * out; a MAD pushed now overtakes it.
 */
static void test_not_yet(void **state)
{
	struct mad_queue *q = *state;
	struct ib_user_mad hdr = { .agent_id = 5 };
	uint8_t big[1000];
	struct popped p;

	mad_queue_watch(q);
	push_tag(q, 20, mad_queue_now_ns() + 10000 * MS);
	/* A message longer than a MAD (RMPP) in flight carries its own buffer. */
	memset(big, 0, sizeof(big));
	make_mad(big, UMAD_METHOD_GET_RESP, 21, 21);
	assert_int_equal(mad_queue_push_at(q, &hdr, big, sizeof(big),
					   mad_queue_now_ns() + 10000 * MS, 0), 0);
	assert_false(mad_queue_pending(q));
	assert_false(readable(q, 0));
	assert_int_equal(mad_queue_wait(q, q->fd, 20), -ETIMEDOUT);
	assert_int_equal(pop_tag(q, &p), -EAGAIN);
	push_tag(q, 22, 0);
	assert_true(readable(q, 0));
	assert_int_equal(pop_tag(q, &p), 22);
	assert_false(readable(q, 0));
	/* Freed with both still on their way (teardown): nothing leaks. */
	assert_int_equal(q->n_flights, 2);
}

/* Round after round of late MADs, pushed out of order: sorted, and the rings keep their size. */
static void test_steady_state(void **state)
{
	struct mad_queue *q = *state;
	size_t cap_flights = 0, cap = 0;
	struct popped p;
	int round, i, retries;

	for (round = 0, retries = 0; round < 30; round++) {
		uint64_t t0 = mad_queue_now_ns();

		/* Pushed latest first: each goes ahead of all those before it. */
		for (i = 0; i < 8; i++)
			push_tag(q, (uint8_t)(8 - i), t0 + 2 * MS + (uint64_t)(8 - i) * MS / 4);
		if (mad_queue_now_ns() >= t0 + 2 * MS) {
			/*
			 * Descheduled while pushing (a loaded machine): some came
			 * due before the ones due earlier still were pushed, and
			 * rightly go first.  That round proves nothing of sorting.
			 */
			for (i = 1; i <= 8; i++) {
				assert_int_equal(mad_queue_wait(q, q->fd, 5000), 0);
				assert_in_range(pop_tag(q, &p), 1, 8);
			}
			assert_true(++retries < 1000);
			round--;
			continue;
		}
		for (i = 1; i <= 8; i++) {
			assert_int_equal(mad_queue_wait(q, q->fd, 5000), 0);
			assert_int_equal(pop_tag(q, &p), i);
		}
		if (round == 0) {
			cap_flights = q->cap_flights;
			cap = q->cap;
		}
		assert_int_equal(q->cap_flights, cap_flights);
		assert_int_equal(q->cap, cap);
	}
	assert_int_equal(cap_flights, 8);
}

struct waiter {
	struct mad_queue *q;
	int r;
	uint64_t woke_ns;
};

static void *wait_for_arrival(void *arg)
{
	struct waiter *w = arg;

	w->r = mad_queue_wait(w->q, w->q->fd, 5000);
	w->woke_ns = mad_queue_now_ns();
	return NULL;
}

/* A thread already waiting when a late MAD is pushed wakes for its arrival, not before. */
static void test_waiter_woken_by_arrival(void **state)
{
	struct mad_queue *q = *state;
	struct waiter w = { .q = q };
	pthread_t t;
	uint64_t due;
	struct popped p;

	assert_int_equal(pthread_create(&t, NULL, wait_for_arrival, &w), 0);
	usleep(20000);		/* most likely inside poll(2) by now; either way it must wake */
	due = mad_queue_now_ns() + 40 * MS;
	push_tag(q, 30, due);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.r, 0);
	assert_true(w.woke_ns >= due);
	assert_int_equal(pop_tag(q, &p), 30);
}

/*
 * A request with retries is resent a timeout after it went out, then a
 * timeout after each resend, the same bytes (TID included) each time; it
 * does not time out before its last resend, and does a timeout after it.
 */
static void test_resent_then_times_out(void **state)
{
	struct mad_queue *q = *state;
	struct ib_user_mad req_hdr = { .agent_id = 6, .timeout_ms = 20, .retries = 2 };
	uint8_t req[MAD_SIZE], buf[MAD_QUEUE_HDR + MAD_QUEUE_MAD], *big;
	uint64_t t0 = mad_queue_now_ns(), next;
	int resends = 0;
	struct popped p;

	make_mad(req, UMAD_METHOD_GET, 0x33, 77);
	assert_int_equal(mad_queue_add_resending(q, &req_hdr, req, MAD_SIZE, t0), 0);
	assert_int_equal(atomic_load(&q->n_resending), 1);
	/* Not due yet: the time it falls due is given. */
	assert_int_equal(mad_queue_take_resend(q, t0 + 19 * MS, buf, &big, &next), 0);
	assert_int_equal(next, t0 + 20 * MS);
	for (uint64_t at = t0 + 20 * MS; resends < 2; at += 20 * MS) {
		/* Past the plain timeout it would have without resends: still waiting. */
		assert_false(mad_queue_pending(q));
		assert_int_equal(mad_queue_take_resend(q, at, buf, &big, &next),
				 MAD_QUEUE_HDR + MAD_SIZE);
		assert_null(big);
		assert_int_equal(((struct ib_user_mad *)buf)->agent_id, 6);
		assert_memory_equal(buf + MAD_QUEUE_HDR, req, MAD_SIZE);
		/* Taken: the next is a timeout away, not at once. */
		assert_int_equal(mad_queue_take_resend(q, at, buf, &big, &next), 0);
		mad_queue_resent(q, buf, mad_queue_now_ns());
		resends++;
	}
	assert_int_equal(atomic_load(&q->n_resending), 0);
	assert_int_equal(mad_queue_take_resend(q, UINT64_MAX - 1, buf, &big, &next), 0);
	assert_int_equal(next, 0);
	/* The timeout comes a timeout after the last resend went out. */
	assert_int_equal(mad_queue_wait(q, q->fd, 5000), 0);
	p.len = mad_queue_pop(q, p.buf, sizeof(p.buf));
	assert_true(p.len > 0);
	assert_int_equal(hdr_of(&p)->status, MAD_QUEUE_ETIMEDOUT);
	assert_int_equal(hdr_of(&p)->agent_id, 6);
	assert_int_equal(pop_tag(q, &p), -EAGAIN);
	assert_int_equal(q->n_timeouts, 0);
}

/* The answer ends the resends: none is due later, and no timeout follows. */
static void test_answer_ends_resends(void **state)
{
	struct mad_queue *q = *state;
	struct ib_user_mad req_hdr = { .agent_id = 7, .timeout_ms = 20, .retries = 3 };
	struct ib_user_mad resp_hdr = { .agent_id = 0 };
	uint8_t req[MAD_SIZE], resp[MAD_SIZE], buf[MAD_QUEUE_HDR + MAD_QUEUE_MAD], *big;
	uint64_t t0 = mad_queue_now_ns(), next;
	uint32_t agent = 99;
	struct popped p;

	make_mad(req, UMAD_METHOD_GET, 0x44, 0);
	make_mad(resp, UMAD_METHOD_GET_RESP, 0x44, 43);
	assert_int_equal(mad_queue_add_resending(q, &req_hdr, req, MAD_SIZE, t0), 0);
	assert_int_equal(mad_queue_take_resend(q, t0 + 20 * MS, buf, &big, &next),
			 MAD_QUEUE_HDR + MAD_SIZE);
	mad_queue_resent(q, buf, t0 + 20 * MS);
	assert_int_equal(mad_queue_claim_request(q, resp, &agent), 1);
	assert_int_equal(agent, 7);
	resp_hdr.agent_id = agent;
	assert_int_equal(mad_queue_push_with_tid(q, &resp_hdr, resp, MAD_SIZE, NULL), 0);
	assert_int_equal(atomic_load(&q->n_resending), 0);
	assert_int_equal(mad_queue_take_resend(q, UINT64_MAX - 1, buf, &big, &next), 0);
	assert_int_equal(next, 0);
	assert_int_equal(pop_tag(q, &p), 43);
	assert_int_equal(hdr_of(&p)->status, 0);
	assert_int_equal(q->n_timeouts, 0);
	assert_int_equal(q->armed_ns, 0);
	assert_int_equal(pop_tag(q, &p), -EAGAIN);
}

/* A request longer than a MAD (RMPP) is resent whole, in a buffer of its own. */
static void test_long_request_resent_whole(void **state)
{
	struct mad_queue *q = *state;
	struct ib_user_mad req_hdr = { .agent_id = 8, .timeout_ms = 10, .retries = 1 };
	uint8_t req[1000], buf[MAD_QUEUE_HDR + MAD_QUEUE_MAD], *big;
	uint64_t t0 = mad_queue_now_ns(), next;
	ssize_t len;

	for (size_t i = 0; i < sizeof(req); i++)
		req[i] = (uint8_t)(i * 7);
	make_mad(req, UMAD_METHOD_SET, 0x55, 5);
	assert_int_equal(mad_queue_add_resending(q, &req_hdr, req, 100, t0), -EINVAL);
	assert_int_equal(mad_queue_add_resending(q, &req_hdr, req, sizeof(req), t0), 0);
	len = mad_queue_take_resend(q, t0 + 10 * MS, buf, &big, &next);
	assert_int_equal(len, MAD_QUEUE_HDR + sizeof(req));
	assert_non_null(big);
	assert_int_equal(((struct ib_user_mad *)big)->agent_id, 8);
	assert_memory_equal(big + MAD_QUEUE_HDR, req, sizeof(req));
	free(big);
	/* Freed with the request still waiting for its timeout (teardown): nothing leaks. */
	assert_int_equal(q->n_timeouts, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_interleaved_with_immediate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interleaved_with_timeouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_answer_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_claimed_answer_arrives, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_yet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_steady_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiter_woken_by_arrival, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resent_then_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_ends_resends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_request_resent_whole, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
