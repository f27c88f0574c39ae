/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The shared fabric's server and its clients: a malformed message costs
 * only its sender the connection; an agent clashing with another process's
 * is refused; a request with no hello first is refused; and a program on
 * the sim backend (UMAD_SIM_FABRIC) whose server dies gets -EIO from its
 * calls instead of waiting for ever.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <infiniband/umad.h>
#include <infiniband/umad_sm.h>
#include <infiniband/umad_types.h>

#include "simfabric/fabric_proto.h"
#include "simfabric/fabric_server.h"

static struct fabric_server *new_server(void)
{
	struct fabric_server_options o = { .builtin_sm = 1 };
	struct fabric_server *s;
	char *errors = NULL;

	assert_int_equal(fabric_server_new(&o, &s, &errors), 0);
	return s;
}

/* A client on a socket pair: the server's end added, ours returned. */
static int new_client(struct fabric_server *s)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(fabric_server_add_client(s, sv[0]), 0);
	return sv[1];
}

static void serve(struct fabric_server *s)
{
	int i;

	for (i = 0; i < 4; i++)
		assert_true(fabric_server_poll(s, 0, -1) >= 0);
}

/* Send a request, serve it, read the reply (its type returned, body in r). */
static uint32_t ask(struct fabric_server *s, int fd, uint32_t type, const void *body, size_t len,
		    const void *tail, size_t tail_len, struct fp_reader *r)
{
	assert_int_equal(fp_send_message2(fd, type, body, len, tail, tail_len, -1, 0), 0);
	serve(s);
	assert_int_equal(fp_recv_message(fd, r, MSG_DONTWAIT), 1);
	if (r->passed_fd >= 0) {
		close(r->passed_fd);
		r->passed_fd = -1;
	}
	return r->type;
}

static int32_t rc_of(const struct fp_reader *r)
{
	int32_t rc;

	assert_int_equal(r->type, FP_RC);
	memcpy(&rc, r->buf, sizeof(rc));
	return rc;
}

static void hello(struct fabric_server *s, int fd, const char *node, struct fp_reader *r)
{
	struct fp_hello h = { .version = FP_VERSION, .n_hosts = 1 };

	assert_int_equal(ask(s, fd, FP_HELLO, &h, sizeof(h), node, strlen(node) + 1, r),
			 FP_HELLO_OK);
}

static void test_malformed_message_drops_its_sender_only(void **state)
{
	struct fabric_server *s = new_server();
	int bad = new_client(s), good = new_client(s);
	static const uint8_t garbage[] = { 0x42, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3 };
	struct fp_reader r;
	char buf[16];

	(void)state;
	fp_reader_init(&r);
	assert_int_equal(fabric_server_clients(s), 2);
	assert_int_equal(send(bad, garbage, sizeof(garbage), 0), (ssize_t)sizeof(garbage));
	serve(s);
	assert_int_equal(fabric_server_clients(s), 1);
	/* The server hung up on it. */
	assert_int_equal(recv(bad, buf, sizeof(buf), MSG_DONTWAIT), 0);
	hello(s, good, "Hca2", &r);
	fp_reader_free(&r);
	close(bad);
	close(good);
	fabric_server_free(s);
}

static void test_request_before_hello_is_refused(void **state)
{
	struct fabric_server *s = new_server();
	int fd = new_client(s);
	struct fp_host q = { 0 };
	char buf[16];

	(void)state;
	assert_int_equal(fp_send_message(fd, FP_OPEN, &q, sizeof(q), -1, 0), 0);
	serve(s);
	assert_int_equal(fabric_server_clients(s), 0);
	assert_int_equal(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), 0);
	close(fd);
	fabric_server_free(s);
}

static void test_agents_of_two_processes_clash(void **state)
{
	struct fabric_server *s = new_server();
	int a = new_client(s), b = new_client(s);
	struct fp_host port1 = { .host = 0, .port = 1 };
	struct fp_register reg = {
		.req = { .qpn = 1, .mgmt_class = UMAD_CLASS_PERF_MGMT, .mgmt_class_version = 1 },
	};
	struct fp_reader r;

	(void)state;
	fp_reader_init(&r);
	reg.req.method_mask[0] = 1u << UMAD_METHOD_GET;
	hello(s, a, "Hca1", &r);
	hello(s, b, "Hca1", &r);
	ask(s, a, FP_OPEN, &port1, sizeof(port1), NULL, 0, &r);
	reg.handle = (uint32_t)rc_of(&r);
	ask(s, a, FP_REGISTER, &reg, sizeof(reg), NULL, 0, &r);
	assert_int_equal(rc_of(&r), 0);
	ask(s, b, FP_OPEN, &port1, sizeof(port1), NULL, 0, &r);
	reg.handle = (uint32_t)rc_of(&r);
	ask(s, b, FP_REGISTER, &reg, sizeof(reg), NULL, 0, &r);
	assert_int_equal(rc_of(&r), -EINVAL);
	/* Once the first process is gone, its agent is too. */
	close(a);
	serve(s);
	ask(s, b, FP_REGISTER, &reg, sizeof(reg), NULL, 0, &r);
	assert_int_equal(rc_of(&r), 0);
	fp_reader_free(&r);
	close(b);
	fabric_server_free(s);
}

/* --- a program on the sim backend whose server dies -------------------------------------- */

static pid_t server_pid;

/* A failed check must not leave the server running. */
static void stop_server(void)
{
	if (server_pid > 0)
		kill(server_pid, SIGKILL);
}

static pid_t start_server_process(const char *path)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct fabric_server *s = new_server();
		char err[256];

		if (fabric_server_listen(s, path, err, sizeof(err)) < 0)
			_exit(1);
		for (;;)
			fabric_server_poll(s, -1, -1);
	}
	return pid;
}

static void dr_nodeinfo(uint8_t *umad, int agent)
{
	struct ib_mad_addr *addr = umad_get_mad_addr(umad);
	uint8_t *mad = umad_get_mad(umad);

	memset(umad, 0, umad_size() + 256);
	umad_set_addr(umad, 0xffff, 0, 0, 0);
	addr->qpn = 0;
	((struct ib_user_mad *)umad)->agent_id = (uint32_t)agent;
	((struct ib_user_mad *)umad)->timeout_ms = 500;
	mad[0] = 1;				/* base version */
	mad[1] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	mad[2] = 1;
	mad[3] = UMAD_METHOD_GET;
	mad[16] = UMAD_SM_ATTR_NODE_INFO >> 8;
	mad[17] = UMAD_SM_ATTR_NODE_INFO & 0xff;
	mad[9] = 7;				/* a TID */
	memset(mad + 32, 0xff, 4);		/* DrSLID, DrDLID: permissive */
}

static void test_server_gone_gives_eio(void **state)
{
	char dir[] = "/tmp/umad-fabric-test.XXXXXX", path[64];
	uint8_t umad[512];
	int portid, agent, len = 256, i;
	struct timespec t0, t1;
	pid_t server;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s/socket", dir);
	server = server_pid = start_server_process(path);
	atexit(stop_server);
	for (i = 0; i < 200 && access(path, F_OK); i++)
		usleep(10000);
	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_SIM_FABRIC", path, 1);
	setenv("UMAD_MODULE_DIR", MODULE_DIR, 1);
	assert_int_equal(umad_init(), 0);
	portid = umad_open_port(NULL, 0);
	assert_true(portid >= 0);
	agent = umad_register(portid, UMAD_CLASS_SUBN_DIRECTED_ROUTE, 1, 0, NULL);
	assert_true(agent >= 0);
	dr_nodeinfo(umad, agent);
	assert_int_equal(umad_send(portid, agent, umad, 256, 500, 0), 0);
	assert_int_equal(umad_recv(portid, umad, &len, 1000), agent);
	assert_int_equal(umad_status(umad), 0);

	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	server_pid = 0;
	/* A receive waiting for ever ends, and says why. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	len = 256;
	assert_int_equal(umad_recv(portid, umad, &len, -1), -EIO);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	dr_nodeinfo(umad, agent);
	assert_true(umad_send(portid, agent, umad, 256, 500, 0) < 0);
	umad_close_port(portid);
	umad_done();
	unlink(path);
	snprintf(path, sizeof(path), "%s/s", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed_message_drops_its_sender_only),
		cmocka_unit_test(test_request_before_hello_is_refused),
		cmocka_unit_test(test_agents_of_two_processes_clash),
		cmocka_unit_test(test_server_gone_gives_eio),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
