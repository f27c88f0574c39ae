/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel's contract for sends, under stress, on the sim and replay
 * backends: every send with a timeout completes exactly once (its answer,
 * or its header back with status ETIMEDOUT), a send without one never
 * does, and all of it holds while other threads open, use and close ports
 * under each other: nothing crashes, deadlocks or leaks.
 *
 * Eight workers, each on its own port, send batches of a mix (answered
 * directed-route SMPs, SMPs into an uncabled port, responses, TrapRepress,
 * traps to no SM, sends without a timeout) and account for every
 * completion by TID.  The workers' timed sends carry retries, so that the
 * sim's resending thread resends the unanswered ones meanwhile.  A churn
 * thread opens, uses and closes ports (with resends due), and a chaos
 * thread sends and receives on whatever it opened, racing the closes;
 * only some of theirs carry retries, so that the one resending thread is
 * not theirs alone.  UMAD_STRESS_SENDS sets the total (default 1,000,000
 * timed sends; the ThreadSanitizer run uses fewer).
 *
 * Replay answers from a capture of the same mix taken on the sim first.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>

#include "tests/child.h"

#define WORKERS		8
#define BATCH		32
#define MAD_LEN		256
#define SHORT_TIMEOUT	2	/* ms: sends meant to time out */
#define LONG_TIMEOUT	5000	/* ms: sends meant to be answered */
#define RETRIES		2	/* resent twice before it times out, where nothing answers */
#define ALARM_SECONDS	600	/* a deadlock fails the child instead of hanging the suite */

enum kind { ANSWERED, ANSWERED_FAR, DEAD_PATH, RESPONSE, TRAP_REPRESS, TRAP, NO_TIMEOUT, N_KINDS };

struct msg {
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_LEN];
};

static char work_dir[256], capture_path[300];

static uint8_t *mad_of(struct msg *m)
{
	return (uint8_t *)umad_get_mad(m->buf);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The request of one kind, with a TID (low 32 bits) and its timeout. */
static int make_request(struct msg *m, enum kind k, uint32_t tid)
{
	static const char *const paths[] = {
		[ANSWERED] = "\x01", [ANSWERED_FAR] = "\x01\x07\x02", [DEAD_PATH] = "\x01\x03",
	};
	uint8_t *mad = mad_of(m);
	const char *path = "";
	uint8_t method = 0x01, mgmt_class = 0x81;
	int hops = 0;

	memset(m->buf, 0, sizeof(m->buf));
	switch (k) {
	case ANSWERED: case ANSWERED_FAR: case DEAD_PATH: case NO_TIMEOUT:
		path = paths[k == NO_TIMEOUT ? ANSWERED : k];
		break;
	case RESPONSE: method = 0x81; break;
	case TRAP_REPRESS: method = 0x07; break;
	case TRAP: method = 0x05; mgmt_class = 0x01; break;	/* LID-routed to LID 0: no SM */
	default: break;
	}
	umad_set_addr(m->buf, mgmt_class == 0x81 ? 0xffff : 0, 0, 0, 0);
	mad[0] = 1;
	mad[1] = mgmt_class;
	mad[2] = 1;
	mad[3] = method;
	put_be32(mad + 12, tid);
	mad[17] = 0x11;			/* NodeInfo */
	if (mgmt_class == 0x81) {
		memset(mad + 32, 0xff, 4);
		while (*path)
			mad[128 + ++hops] = (uint8_t)*path++;
		mad[7] = (uint8_t)hops;
	}
	if (k == NO_TIMEOUT)
		return 0;
	return k == ANSWERED || k == ANSWERED_FAR ? LONG_TIMEOUT : SHORT_TIMEOUT;
}

/* The kind each TID's send is: a fixed mix, the same on every run. */
static enum kind kind_of(uint32_t seq)
{
	static const enum kind mix[] = {
		ANSWERED, ANSWERED_FAR, ANSWERED, DEAD_PATH, ANSWERED, RESPONSE, ANSWERED_FAR,
		TRAP_REPRESS, ANSWERED, TRAP, ANSWERED, NO_TIMEOUT, ANSWERED_FAR, ANSWERED,
	};

	return mix[(seq * 7u + seq / 14u) % (sizeof(mix) / sizeof(mix[0]))];
}

static int open_smi_port(int *agent)
{
	int fd = umad_open_port("sim0", 1);

	*agent = -1;
	if (fd >= 0)
		*agent = umad_register(fd, 0x81, 1, 0, NULL);
	return fd;
}

/* --- the record (sim, captured): one of each kind ---------------------------------- */

static int record_the_mix(void)
{
	struct msg m;
	int agent, fd = open_smi_port(&agent), k, len, timeout;

	CHECK(fd >= 0 && agent >= 0);
	for (k = 0; k < N_KINDS; k++) {
		timeout = make_request(&m, (enum kind)k, (uint32_t)k);
		CHECK_EQ(umad_send(fd, agent, m.buf, MAD_LEN, timeout, 0), 0);
		if (!timeout)
			continue;
		len = MAD_LEN;
		CHECK_EQ(umad_recv(fd, m.buf, &len, -1), agent);
	}
	CHECK_EQ(umad_close_port(fd), 0);
	CHECK_EQ(umad_done(), 0);
	return 0;
}

/* --- the stress -------------------------------------------------------------------- */

struct worker {
	pthread_t thread;
	int index;
	int fd, agent;			/* its port, opened before churn starts */
	long sends;			/* timed sends to make */
	long timed, untimed, answered, timed_out;
	char failure[256];
};

static atomic_int stop_churn;
static atomic_int chaos_fd = -1, chaos_agent = -1;
static atomic_long churn_rounds, chaos_bad;
static char chaos_failure[256];

#define WORKER_FAIL(w, ...) do { snprintf((w)->failure, sizeof((w)->failure), __VA_ARGS__); \
	return NULL; } while (0)

/* What a completion must be for its kind. */
static int completion_ok(enum kind k, struct msg *m, int len)
{
	const uint8_t *mad = mad_of(m);

	if (k == ANSWERED || k == ANSWERED_FAR)
		return umad_status(m->buf) == 0 && len == MAD_LEN && mad[3] == 0x81 &&
		       mad[17] == 0x11 && (mad[4] & 0x7f) == 0;
	return umad_status(m->buf) == ETIMEDOUT && len == 24;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint32_t base = (uint32_t)w->index << 24, seq = 0;
	int agent = w->agent, fd = w->fd;
	struct msg m;

	while (w->timed < w->sends) {
		uint8_t done[BATCH] = { 0 };
		uint32_t first = seq;
		int outstanding = 0, i;

		for (i = 0; i < BATCH; i++, seq++) {
			enum kind k = kind_of(seq);
			int timeout = make_request(&m, k, base | seq);

			if (umad_send(fd, agent, m.buf, MAD_LEN, timeout, RETRIES) != 0)
				WORKER_FAIL(w, "worker %d: send %u (kind %d): errno %d", w->index, seq,
					    k, errno);
			if (timeout) {
				outstanding++;
				w->timed++;
			} else {
				done[i] = 1;	/* expects no completion */
				w->untimed++;
			}
		}
		while (outstanding) {
			int len = MAD_LEN, r = umad_recv(fd, m.buf, &len, 30000);
			uint32_t tid = get_be32(mad_of(&m) + 12), at = (tid & 0xffffff) - first;

			if (r != agent)
				WORKER_FAIL(w, "worker %d: recv %d, %d outstanding", w->index, r,
					    outstanding);
			if ((tid & 0xff000000u) != base || at >= BATCH)
				WORKER_FAIL(w, "worker %d: a completion for TID 0x%x (batch from %u)",
					    w->index, tid, first);
			if (done[at])
				WORKER_FAIL(w, "worker %d: TID 0x%x completed twice (kind %d)", w->index,
					    tid, kind_of(first + at));
			if (!completion_ok(kind_of(first + at), &m, len))
				WORKER_FAIL(w, "worker %d: TID 0x%x (kind %d): status %d, length %d",
					    w->index, tid, kind_of(first + at), umad_status(m.buf), len);
			done[at] = 1;
			outstanding--;
			if (umad_status(m.buf))
				w->timed_out++;
			else
				w->answered++;
		}
	}
	/* Nothing more may come: not twice, not for the sends without a timeout. */
	{
		int len = MAD_LEN, r = umad_recv(fd, m.buf, &len, 3 * SHORT_TIMEOUT * (RETRIES + 1) + 20);

		if (r != -ETIMEDOUT)
			WORKER_FAIL(w, "worker %d: an extra completion (%d, TID 0x%x)", w->index, r,
				    get_be32(mad_of(&m) + 12));
	}
	if (umad_close_port(fd) != 0)
		WORKER_FAIL(w, "worker %d: close", w->index);
	return NULL;
}

/* Opens, uses and closes ports, with sends still waiting for their timeouts. */
static void *churn(void *arg)
{
	struct msg m;
	uint32_t tid = 0xee000000u;

	(void)arg;
	while (!atomic_load(&stop_churn)) {
		int agent, fd = open_smi_port(&agent), i, len;

		if (fd < 0 || agent < 0)
			continue;
		atomic_store(&chaos_agent, agent);
		atomic_store(&chaos_fd, fd);
		for (i = 0; i < 8; i++) {
			int timeout = make_request(&m, i % 2 ? DEAD_PATH : ANSWERED, tid++);

			/* One with resends due when the port closes; not all: they share one thread. */
			umad_send(fd, agent, m.buf, MAD_LEN, timeout, i == 1 ? RETRIES : 0);
		}
		len = MAD_LEN;
		umad_recv(fd, m.buf, &len, 0);
		/* Closed with answers queued and timeouts pending, while chaos may be inside. */
		umad_close_port(fd);
		atomic_fetch_add(&churn_rounds, 1);
	}
	return NULL;
}

/* Sends and receives on the churned ports, racing their closes: clean errors only. */
static void *chaos(void *arg)
{
	struct msg m;
	uint32_t tid = 0xcc000000u;

	(void)arg;
	while (!atomic_load(&stop_churn)) {
		int fd = atomic_load(&chaos_fd), agent = atomic_load(&chaos_agent), len = MAD_LEN, r;
		int timeout = make_request(&m, tid % 2 ? ANSWERED : DEAD_PATH, tid);

		tid++;
		if (fd < 0)
			continue;
		r = umad_send(fd, agent, m.buf, MAD_LEN, timeout, tid % 8 == 1 ? RETRIES : 0);
		/* Closed (EBADF), an agent of a port reopened under that number (EIO). */
		if (r != 0 && errno != EBADF && errno != EIO && errno != EINVAL) {
			snprintf(chaos_failure, sizeof(chaos_failure), "send: %d errno %d", r, errno);
			atomic_fetch_add(&chaos_bad, 1);
		}
		r = umad_recv(fd, m.buf, &len, 0);
		if (r < 0 && r != -EAGAIN && r != -EBADF) {
			snprintf(chaos_failure, sizeof(chaos_failure), "recv: %d", r);
			atomic_fetch_add(&chaos_bad, 1);
		}
	}
	return NULL;
}

static int open_descriptors(void)
{
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int stress(void)
{
	const char *total_text = getenv("UMAD_STRESS_SENDS");
	long total = total_text ? atol(total_text) : 1000000, timed = 0, answered = 0;
	struct worker workers[WORKERS];
	pthread_t churner, chaoser;
	int i, fds_before;

	alarm(ALARM_SECONDS);
	CHECK_EQ(umad_init(), 0);
	fds_before = open_descriptors();
	memset(workers, 0, sizeof(workers));
	/*
	 * The workers' ports are open before churn starts: a descriptor number
	 * churn closed and a worker then got would let chaos, still holding
	 * that number, send and receive on the worker's port (as on a kernel).
	 */
	for (i = 0; i < WORKERS; i++) {
		workers[i].index = i + 1;
		workers[i].sends = (total + WORKERS - 1) / WORKERS;
		workers[i].fd = open_smi_port(&workers[i].agent);
		CHECK(workers[i].fd >= 0 && workers[i].agent >= 0);
	}
	for (i = 0; i < WORKERS; i++)
		CHECK_EQ(pthread_create(&workers[i].thread, NULL, work, &workers[i]), 0);
	CHECK_EQ(pthread_create(&churner, NULL, churn, NULL), 0);
	CHECK_EQ(pthread_create(&chaoser, NULL, chaos, NULL), 0);
	for (i = 0; i < WORKERS; i++) {
		pthread_join(workers[i].thread, NULL);
		if (workers[i].failure[0]) {
			snprintf(child_failure, sizeof(child_failure), "%s", workers[i].failure);
			atomic_store(&stop_churn, 1);
			pthread_join(churner, NULL);
			pthread_join(chaoser, NULL);
			return -1;
		}
		timed += workers[i].timed;
		answered += workers[i].answered;
		CHECK_EQ(workers[i].answered + workers[i].timed_out, workers[i].timed);
	}
	atomic_store(&stop_churn, 1);
	pthread_join(churner, NULL);
	pthread_join(chaoser, NULL);
	CHECK(timed >= total);
	CHECK(answered > 0 && answered < timed);
	CHECK(atomic_load(&churn_rounds) > 0);
	if (atomic_load(&chaos_bad))
		CHECK(!chaos_failure[0]);
	/*
	 * Every port closed: no descriptor left behind.  A port's last
	 * descriptors go with its last reference, which the resending thread
	 * may hold for the length of a resend round: a while is given.
	 */
	for (i = 0; i < 200 && open_descriptors() != fds_before; i++)
		usleep(10000);
	CHECK_EQ(open_descriptors(), fds_before);
	fprintf(stderr, "%ld timed sends (%ld answered), %ld churned ports\n", timed, answered,
		atomic_load(&churn_rounds));
	/* Through the exit handlers (the backend's fini), where a leak checker would report. */
	exit(0);
}

static void test_sim(void **state)
{
	struct child_result res;

	(void)state;
	unsetenv("UMAD_CAPTURE");
	expect_child_ok(stress, "sim", MODULE_DIR, &res);
	fprintf(stderr, "sim: %s", res.stderr_text);
}

static void test_replay(void **state)
{
	struct child_result res;

	(void)state;
	setenv("UMAD_CAPTURE", capture_path, 1);
	expect_child_ok(record_the_mix, "sim", MODULE_DIR, &res);
	unsetenv("UMAD_CAPTURE");
	setenv("UMAD_REPLAY", capture_path, 1);
	expect_child_ok(stress, "replay", MODULE_DIR, &res);
	fprintf(stderr, "replay: %s", res.stderr_text);
	unsetenv("UMAD_REPLAY");
}

static int setup(void **state)
{
	(void)state;
	snprintf(work_dir, sizeof(work_dir), "%s/umad-exactly-once-XXXXXX", P_tmpdir);
	if (!mkdtemp(work_dir))
		return -1;
	snprintf(capture_path, sizeof(capture_path), "%s/mix.pcapng", work_dir);
	unsetenv("UMAD_SIM_TOPOLOGY");
	unsetenv("UMAD_SIM_HOST");
	unsetenv("UMAD_SIM_SYSFS");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(capture_path);
	return rmdir(work_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim),
		cmocka_unit_test(test_replay),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
