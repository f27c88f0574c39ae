/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * How the shared fabric's clients and server wait for each other through
 * the mailbox (simfabric/peer_wait.h; fabric_client.c, fabric_server.c),
 * with a real server process and real clients, several at once:
 *  - all of them on one CPU, where no wait spins (its peer could not run
 *    meanwhile) and every wait sleeps -- the client on its futex, the
 *    server in epoll, rung by the doorbell -- and spread over every CPU,
 *    where spins and sleeps mix: every request is answered, and every
 *    sleeping client is woken by the server, none found only by its
 *    periodic check (a lost wake-up there costs that check's period; one
 *    lost on the server's side is a hang, which the alarm ends);
 *  - a client killed while it waits for an answer costs the server
 *    nothing: the others are served as before, and every descriptor it had
 *    there is closed.
 * (A server dying while clients wait: tests/test_fabric_server.c.)
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <infiniband/umad_types.h>
#include <infiniband/umad_sm.h>

#include "base/mad_wire.h"
#include "simfabric/fabric_client.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/fabric_server.h"
#include "simfabric/net.h"
#include "tests/own_server.h"

#define ASKERS		4
#define REQUESTS	4000	/* each asker's */
#define ALARM_S		60	/* a lost wake-up on the server's side hangs: this ends it */
/*
 * An answer that comes between the end of a client's timed sleep and its
 * look counts as not woken, though no wake-up was lost: under a sanitizer,
 * which slows both sides many times, a server late by the whole check
 * period happens; one sleep in this many is let pass there.  Elsewhere none is.
 */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define UNWOKEN_TOLERATED	200
#else
#define UNWOKEN_TOLERATED	UINT64_MAX
#endif


static void on_alarm(int sig)
{
	static const char msg[] = "test_fabric_waits: a request was not answered within the alarm: "
				  "a wake-up was lost\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/* The first CPU this process may run on. */
static int first_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return 0;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static struct own_server server;

/* The server, in a process of its own (on cpu; -1: anywhere). */
static void server_start(int cpu)
{
	struct fabric_server_options o = { 0 };

	own_server_start(&server, &o, 0, cpu);
	assert_int_equal(access(server.path, F_OK), 0);
}

/* How many descriptors the server holds open. */
static int server_fds(void)
{
	char where[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(where, sizeof(where), "/proc/%d/fd", (int)server.pid);
	d = opendir(where);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Attached at Hca1, its port 1 open (handle, for FP_SEND) with a
 * directed-route SMP agent registered.  0 or -errno.
 */
static int attach(struct fabric_client *c, uint32_t *handle, char *why, size_t why_len)
{
	static const char *const host[] = { "Hca1" };
	struct fp_host port = { .host = 0, .port = 1 };
	struct fp_register q = { .req = { .mgmt_class = UMAD_CLASS_SUBN_DIRECTED_ROUTE,
					  .mgmt_class_version = SMP_CLASS_VERSION } };
	struct umad_err err = UMAD_ERR_INIT;
	struct fp_node node;
	unsigned n = 0;
	int r, tries;

	/* The socket is there before the server listens on it: refused until it does. */
	for (tries = 0;; tries++) {
		r = fabric_client_connect(c, server.path, host, 1, 0, &node, &n, &err);
		if (r != -ECONNREFUSED || tries == 500)
			break;		/* (a failed connect has closed what it opened) */
		err = (struct umad_err)UMAD_ERR_INIT;
		usleep(10000);
	}
	if (r < 0) {
		snprintf(why, why_len, "connect: %.200s", err.text);
		return r;
	}
	if (!c->mb) {
		snprintf(why, why_len, "no mailbox");
		fabric_client_close(c);
		return -EPROTO;
	}
	r = fabric_client_call(c, FP_OPEN, &port, sizeof(port));
	if (r < 0) {
		snprintf(why, why_len, "open: %s", strerror(-r));
		fabric_client_close(c);
		return r;
	}
	*handle = q.handle = (uint32_t)r;
	r = fabric_client_call(c, FP_REGISTER, &q, sizeof(q));
	if (r < 0) {
		snprintf(why, why_len, "register: %s", strerror(-r));
		fabric_client_close(c);
	}
	return r < 0 ? r : 0;
}

/* A SubnGet(NodeInfo) of the node attached at, by directed route, with TID tid. */
static void nodeinfo_request(uint8_t *mad, uint32_t tid)
{
	memset(mad, 0, MAD_SIZE);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	mad[MAD_OFF_CLASS_VERSION] = SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_NODE_INFO);
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);	/* the path is directed */
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
}

/* One round trip: 0 when the answer came with tid, else -1 with why. */
static int round_trip(struct fabric_client *c, uint32_t handle, uint32_t tid, char *why,
		      size_t why_len)
{
	struct fp_send q = { .handle = handle, .dlid = LID_PERMISSIVE, .wait_ms = 1000 };
	const struct fp_result *res;
	const uint8_t *answer;
	uint8_t mad[MAD_SIZE];
	int32_t rc;
	int r, ok;

	nodeinfo_request(mad, tid);
	r = fabric_client_request(c, FP_SEND, &q, sizeof(q), mad, sizeof(mad), &rc);
	if (r < 0) {
		snprintf(why, why_len, "request %u: %s", tid, strerror(-r));
		return -1;
	}
	res = (const struct fp_result *)c->reply.buf;
	answer = (const uint8_t *)(res + 1);
	ok = c->reply.type == FP_RESULT && c->reply.len >= sizeof(*res) + MAD_HDR_SIZE &&
	     res->result == SIM_NET_ANSWERED && answer[MAD_OFF_METHOD] == UMAD_METHOD_GET_RESP &&
	     get_be32(answer + MAD_OFF_TID_LOW) == tid;
	if (!ok)
		snprintf(why, why_len, "request %u: reply type %u, length %zu, result %u", tid,
			 c->reply.type, c->reply.len, c->reply.len >= sizeof(*res) ? res->result : 0);
	fabric_client_done(c);
	return ok ? 0 : -1;
}

struct asker {
	int cpu;			/* pinned there; -1: anywhere */
	unsigned answered;
	uint64_t sleeps, unwoken;
	char why[256];
};

static void *ask(void *arg)
{
	struct asker *a = arg;
	struct fabric_client c;
	uint32_t handle;
	unsigned i;

	if (a->cpu >= 0 && pin_to(a->cpu) < 0) {
		snprintf(a->why, sizeof(a->why), "cannot run on CPU %d", a->cpu);
		return NULL;
	}
	if (attach(&c, &handle, a->why, sizeof(a->why)) < 0)
		return NULL;
	for (i = 1; i <= REQUESTS; i++) {
		if (round_trip(&c, handle, i, a->why, sizeof(a->why)) < 0)
			break;
		a->answered++;
	}
	a->sleeps = c.sleeps;
	a->unwoken = c.unwoken;
	fabric_client_close(&c);
	return NULL;
}

/*
 * n clients at once (ASKERS at most), each REQUESTS round trips, on cpu
 * (-1: anywhere).  (One alone: no other client's doorbell wakes the server
 * for it.)
 */
static void askers_on(int cpu, int n)
{
	struct asker a[ASKERS];
	pthread_t t[ASKERS];
	uint64_t sleeps = 0, unwoken = 0;
	int i;

	memset(a, 0, sizeof(a));
	server_start(cpu);
	signal(SIGALRM, on_alarm);
	alarm(ALARM_S);
	for (i = 0; i < n; i++) {
		a[i].cpu = cpu;
		assert_int_equal(pthread_create(&t[i], NULL, ask, &a[i]), 0);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	alarm(0);
	own_server_stop(&server);
	for (i = 0; i < n; i++) {
		if (a[i].why[0])
			fail_msg("asker %d: %s", i, a[i].why);
		assert_int_equal(a[i].answered, REQUESTS);
		if (a[i].unwoken > a[i].sleeps / UNWOKEN_TOLERATED)
			fail_msg("asker %d: %llu of its %llu sleeps ended by the check, not woken", i,
				 (unsigned long long)a[i].unwoken, (unsigned long long)a[i].sleeps);
		unwoken += a[i].unwoken;
		sleeps += a[i].sleeps;
	}
	/* On one CPU no wait spins: the sleeps were what was tested. */
	if (cpu >= 0)
		assert_true(sleeps >= (uint64_t)n * REQUESTS / 10);
	print_message("%d asker(s)%s: %llu sleeps, %llu of them not woken by the server\n", n,
		      cpu >= 0 ? " on one CPU" : "", (unsigned long long)sleeps,
		      (unsigned long long)unwoken);
}

static void test_one_cpu_every_sleeper_woken(void **state)
{
	(void)state;
	askers_on(first_cpu(), 1);
	askers_on(first_cpu(), ASKERS);
}

static void test_spread_every_sleeper_woken(void **state)
{
	(void)state;
	askers_on(-1, 1);
	askers_on(-1, ASKERS);
}

/*
 * A client killed while its request waits in the mailbox (the server
 * stopped, so that it is surely waiting): the server goes on serving the
 * others, and closes whatever it held for the one killed.
 */
static void test_client_killed_mid_wait(void **state)
{
	struct fabric_client c;
	char why[256] = "";
	uint32_t handle, vhandle;
	int ready[2], go[2], fds, i;
	pid_t victim;
	char byte;

	(void)state;
	server_start(-1);
	signal(SIGALRM, on_alarm);
	alarm(ALARM_S);
	if (attach(&c, &handle, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(round_trip(&c, handle, 1, why, sizeof(why)), 0);
	fds = server_fds();
	assert_true(fds > 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	victim = fork();
	assert_true(victim >= 0);
	if (victim == 0) {
		struct fabric_client v;
		char vwhy[256];

		if (attach(&v, &vhandle, vwhy, sizeof(vwhy)) < 0 || write(ready[1], "a", 1) != 1 ||
		    read(go[0], &byte, 1) != 1)
			_exit(1);
		/* The server is stopped: this waits until it is killed. */
		round_trip(&v, vhandle, 2, vwhy, sizeof(vwhy));
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &byte, 1), 1);
	assert_int_equal(kill(server.pid, SIGSTOP), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(ready[0]);
	close(go[1]);
	usleep(200000);		/* posted and asleep, mostly */
	assert_int_equal(kill(victim, SIGKILL), 0);
	assert_int_equal(waitpid(victim, NULL, 0), victim);
	assert_int_equal(kill(server.pid, SIGCONT), 0);
	for (i = 0; i < 500; i++)
		if (round_trip(&c, handle, 100 + (uint32_t)i, why, sizeof(why)) < 0)
			fail_msg("after the kill: %s", why);
	for (i = 0; i < 500 && server_fds() != fds; i++)
		usleep(10000);
	assert_int_equal(server_fds(), fds);
	alarm(0);
	fabric_client_close(&c);
	own_server_stop(&server);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_cpu_every_sleeper_woken),
		cmocka_unit_test(test_spread_every_sleeper_woken),
		cmocka_unit_test(test_client_killed_mid_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
