/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The wake-up rules of the soft ports' lazy signalling (backends/mad_queue.h),
 * through the public API on the sim backend: the descriptor is signalled only
 * while someone may wait on it, and whoever waits is woken.
 *   - a descriptor nobody took with umad_get_fd() stays quiet for queued MADs;
 *     once taken, it is readable exactly while a MAD waits, including what was
 *     queued before it was taken;
 *   - a thread blocked in poll(2) on umad_get_fd()'s descriptor is woken by an
 *     answer another thread's send queued, and by a timeout completion;
 *   - umad_recv() and umad_poll() with a timeout wait, and wake for an answer
 *     or a completion queued by another thread, without losing a wake-up when
 *     the two race (thousands of hand-offs, each of which would time out).
 * The process attaches at Hca1 of the embedded default fabric.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>

#define MAD_LEN 256
#define LONG_MS 5000		/* a wait that only a lost wake-up lets run out */
#define HANDOFFS 3000

struct msg {
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_LEN];
};

static uint8_t *mad_of(struct msg *m)
{
	return umad_get_mad(m->buf);
}

/* A directed-route SubnGet(NodeInfo); path lists the ports out of each hop. */
static void dr_get(struct msg *m, const char *path, uint32_t tid)
{
	uint8_t *mad = mad_of(m);
	int hops = 0;

	memset(m->buf, 0, sizeof(m->buf));
	umad_set_addr(m->buf, 0xffff, 0, 0, 0);
	mad[0] = 1;
	mad[1] = 0x81;
	mad[2] = 1;
	mad[3] = 0x01;
	mad[12] = (uint8_t)(tid >> 24);
	mad[13] = (uint8_t)(tid >> 16);
	mad[14] = (uint8_t)(tid >> 8);
	mad[15] = (uint8_t)tid;
	mad[17] = 0x11;
	memset(mad + 32, 0xff, 4);
	while (*path) {
		char *end;

		mad[128 + ++hops] = (uint8_t)strtoul(path, &end, 10);
		path = *end ? end + 1 : end;
	}
	mad[7] = (uint8_t)hops;
}

static uint32_t tid_of(struct msg *m)
{
	const uint8_t *mad = mad_of(m);

	return (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 | (uint32_t)mad[14] << 8 | mad[15];
}

static int open_smp_port(int *agent)
{
	int fd = umad_open_port("sim0", 1);

	assert_true(fd >= 0);
	*agent = umad_register(fd, 0x81, 1, 0, NULL);
	assert_true(*agent >= 0);
	return fd;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* poll(2) on the raw descriptor: 1 readable, 0 not. */
static int readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms);
}

/* A thread that blocks once, in one of the ways an application waits. */
enum how { RAW_POLL, UMAD_POLL, UMAD_RECV };

struct waiter {
	pthread_t thread;
	int fd;
	enum how how;
	atomic_int started;
	int result;		/* poll's count, umad_poll's or umad_recv's return */
	struct msg m;
	double waited_ms;
};

static void *wait_once(void *arg)
{
	struct waiter *w = arg;
	double start;
	int len = MAD_LEN;

	atomic_store(&w->started, 1);
	start = now_ms();
	switch (w->how) {
	case RAW_POLL:
		w->result = readable(w->fd, LONG_MS);
		break;
	case UMAD_POLL:
		w->result = umad_poll(w->fd, LONG_MS);
		break;
	case UMAD_RECV:
		w->result = umad_recv(w->fd, w->m.buf, &len, LONG_MS);
		break;
	}
	w->waited_ms = now_ms() - start;
	return NULL;
}

/* Start a waiter and give it time to block (if it does not, the test only gets easier). */
static void start_waiter(struct waiter *w, int fd, enum how how)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->how = how;
	assert_int_equal(pthread_create(&w->thread, NULL, wait_once, w), 0);
	while (!atomic_load(&w->started))
		sched_yield();
	sleep_ms(30);
}

static void join_waiter(struct waiter *w)
{
	assert_int_equal(pthread_join(w->thread, NULL), 0);
}

/* --- the descriptor nobody polls, and the one handed out ---------------------------- */

static void test_quiet_until_handed_out(void **state)
{
	struct msg m;
	int agent, fd = open_smp_port(&agent), len;

	(void)state;
	/* Nobody took the descriptor: an answer queues without signalling it... */
	dr_get(&m, "1", 1);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	assert_int_equal(readable(fd, 0), 0);
	/* ...and is still received, without a wait. */
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 0), agent);
	assert_int_equal(tid_of(&m), 1);

	/* Queued before the descriptor is handed out: readable as soon as it is. */
	dr_get(&m, "1", 2);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	assert_int_equal(readable(fd, 0), 0);
	assert_int_equal(umad_get_fd(fd), fd);
	assert_int_equal(readable(fd, 0), 1);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 0), agent);
	assert_int_equal(tid_of(&m), 2);
	assert_int_equal(readable(fd, 0), 0);

	/* From then on, for good: readable exactly while something waits. */
	dr_get(&m, "1", 3);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	assert_int_equal(readable(fd, 0), 1);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 1000), agent);
	assert_int_equal(readable(fd, 0), 0);
	umad_close_port(fd);
}

/* --- a thread blocked in poll(2) on the descriptor it took -------------------------- */

static void test_poller_woken_by_answer(void **state)
{
	struct waiter w;
	struct msg m;
	int agent, fd = open_smp_port(&agent), len;

	(void)state;
	start_waiter(&w, umad_get_fd(fd), RAW_POLL);
	dr_get(&m, "1,7", 10);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	join_waiter(&w);
	assert_int_equal(w.result, 1);
	assert_true(w.waited_ms < LONG_MS / 2);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 0), agent);
	assert_int_equal(tid_of(&m), 10);
	umad_close_port(fd);
}

static void test_poller_woken_by_timeout(void **state)
{
	struct waiter w;
	struct msg m;
	double sent;
	int agent, fd = open_smp_port(&agent), len;

	(void)state;
	start_waiter(&w, umad_get_fd(fd), RAW_POLL);
	/* Into Switch1's uncabled port 3: lost; completes with ETIMEDOUT after 40 ms. */
	dr_get(&m, "1,3", 11);
	sent = now_ms();
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 40, 0), 0);
	join_waiter(&w);
	assert_int_equal(w.result, 1);
	assert_true(now_ms() - sent >= 39.0);
	assert_true(w.waited_ms < LONG_MS / 2);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 0), agent);
	assert_int_equal(umad_status(m.buf), ETIMEDOUT);
	assert_int_equal(tid_of(&m), 11);
	umad_close_port(fd);
}

/* --- umad_recv() and umad_poll() waiting on a descriptor nobody took ----------------- */

static void test_recv_waits_and_wakes(void **state)
{
	struct waiter w;
	struct msg m;
	double start;
	int agent, fd = open_smp_port(&agent), len;

	(void)state;
	/* Nothing comes: the whole timeout, then -ETIMEDOUT. */
	start = now_ms();
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 50), -ETIMEDOUT);
	assert_true(now_ms() - start >= 49.0);

	/* An answer queued by another thread ends the wait. */
	start_waiter(&w, fd, UMAD_RECV);
	dr_get(&m, "1,7,1", 20);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	join_waiter(&w);
	assert_int_equal(w.result, agent);
	assert_int_equal(umad_status(w.m.buf), 0);
	assert_int_equal(tid_of(&w.m), 20);
	assert_true(w.waited_ms < LONG_MS / 2);

	/* So does a timeout completion. */
	start_waiter(&w, fd, UMAD_RECV);
	dr_get(&m, "1,3", 21);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 40, 0), 0);
	join_waiter(&w);
	assert_int_equal(w.result, agent);
	assert_int_equal(umad_status(w.m.buf), ETIMEDOUT);
	assert_int_equal(tid_of(&w.m), 21);
	assert_true(w.waited_ms >= 39.0 && w.waited_ms < LONG_MS / 2);

	/* umad_poll() waits the same way, and leaves the MAD for umad_recv(). */
	start = now_ms();
	assert_int_equal(umad_poll(fd, 30), -ETIMEDOUT);
	assert_true(now_ms() - start >= 29.0);
	start_waiter(&w, fd, UMAD_POLL);
	dr_get(&m, "1", 22);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	join_waiter(&w);
	assert_int_equal(w.result, 0);
	assert_true(w.waited_ms < LONG_MS / 2);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 0), agent);
	assert_int_equal(tid_of(&m), 22);
	assert_int_equal(readable(fd, 0), 0);	/* still nobody took it */
	umad_close_port(fd);
}

/*
 * The race itself: a receiver goes into umad_recv() (or poll(2) on the handed-out
 * descriptor) while the sender queues the answer, thousands of times with no
 * pause.  A lost wake-up leaves the receiver waiting LONG_MS and fails.
 */
struct handoff {
	int fd, agent;
	int raw;		/* poll(2) on umad_get_fd()'s descriptor, then a recv without wait */
	atomic_int next;	/* the TID the receiver expects next */
	atomic_int bad;
};

static void *receiver(void *arg)
{
	struct handoff *h = arg;
	struct msg m;
	int i, len, r;

	for (i = 0; i < HANDOFFS && !atomic_load(&h->bad); i++) {
		len = MAD_LEN;
		if (h->raw) {
			if (readable(h->fd, LONG_MS) != 1) {
				atomic_store(&h->bad, 1);
				break;
			}
			r = umad_recv(h->fd, m.buf, &len, 0);
		} else {
			r = umad_recv(h->fd, m.buf, &len, LONG_MS);
		}
		if (r != h->agent || umad_status(m.buf) || tid_of(&m) != (uint32_t)i)
			atomic_store(&h->bad, 1);
		atomic_store(&h->next, i + 1);
	}
	return NULL;
}

static void handoffs(int raw)
{
	struct handoff h = { .raw = raw };
	pthread_t rx;
	struct msg m;
	double start;
	int i;

	h.fd = open_smp_port(&h.agent);
	if (raw)
		assert_int_equal(umad_get_fd(h.fd), h.fd);
	start = now_ms();
	assert_int_equal(pthread_create(&rx, NULL, receiver, &h), 0);
	for (i = 0; i < HANDOFFS; i++) {
		/* One at a time: the receiver finds the queue empty and is about to wait. */
		while (atomic_load(&h.next) < i && !atomic_load(&h.bad))
			sched_yield();
		if (atomic_load(&h.bad))
			break;
		dr_get(&m, "1", (uint32_t)i);
		assert_int_equal(umad_send(h.fd, h.agent, m.buf, MAD_LEN, 1000, 0), 0);
	}
	assert_int_equal(pthread_join(rx, NULL), 0);
	assert_int_equal(atomic_load(&h.bad), 0);
	assert_int_equal(atomic_load(&h.next), HANDOFFS);
	/* Far below one LONG_MS: no hand-off waited for its timeout. */
	assert_true(now_ms() - start < LONG_MS);
	umad_close_port(h.fd);
}

static void test_no_lost_wakeup_in_recv(void **state)
{
	(void)state;
	handoffs(0);
}

static void test_no_lost_wakeup_in_poll(void **state)
{
	(void)state;
	handoffs(1);
}

static int group_setup(void **state)
{
	(void)state;
	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_MODULE_DIR", MODULE_DIR, 1);
	unsetenv("UMAD_SIM_TOPOLOGY");
	unsetenv("UMAD_SIM_HOST");
	unsetenv("UMAD_SIM_SYSFS");
	unsetenv("UMAD_CAPTURE");
	return umad_init();
}

static int group_teardown(void **state)
{
	(void)state;
	return umad_done();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_until_handed_out),
		cmocka_unit_test(test_poller_woken_by_answer),
		cmocka_unit_test(test_poller_woken_by_timeout),
		cmocka_unit_test(test_recv_waits_and_wakes),
		cmocka_unit_test(test_no_lost_wakeup_in_recv),
		cmocka_unit_test(test_no_lost_wakeup_in_poll),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
