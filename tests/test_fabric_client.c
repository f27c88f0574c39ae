/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What a shared fabric's client checks of its server before it trusts it
 * (simfabric/fabric_client.h, fabric_trust.h), against a fake server run
 * in a child process: the socket's directory (this user's, closed to
 * others' writes, not a symbolic link), the socket (this user's), the
 * process listening (SO_PEERCRED: this user's), the event channel and the
 * memory handed over; and that attaching to a server that never answers
 * ends with a message within the attach timeout.  Cases that need another
 * user run as root only (chown to 65534, a listener that drops to 65534).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <infiniband/umad.h>

#include "simfabric/fabric_client.h"
#include "simfabric/fabric_proto.h"
#include "tests/child.h"

#define NOBODY	65534

static char dir[64], path[100];

/* A fresh owner-only directory for the socket: dir, path = dir/socket. */
static void fresh_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/umad-client-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/socket", dir);
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* --- the fake server ---------------------------------------------------------------------- */

enum fake {
	FAKE_SILENT,		/* listens, never accepts */
	FAKE_FULL,		/* its backlog full: connections are not even taken */
	FAKE_WELCOME_ONLY,	/* the welcome, then silence */
	FAKE_HELLO,		/* answers the hello as a server does, then silence */
	FAKE_OTHER_USER,	/* FAKE_HELLO, listening as user nobody */
	FAKE_EVENT_PIPE,	/* hands over a pipe as the event channel */
	FAKE_EVENT_OTHER_USER,	/* hands over an event channel made by user nobody */
	FAKE_MAP_UNSEALED,	/* FAKE_HELLO, then memory not sealed as an arena is */
	FAKE_MAP_SILENT,	/* FAKE_HELLO, then no answer to FP_MAP */
};

static pid_t fake_pid;

static void become_nobody(void)
{
	if (setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0)
		_exit(3);
}

static void __attribute__((noreturn)) forever(void)
{
	for (;;)
		pause();
}

/* The fake server's life, in the child; never returns. */
static void __attribute__((noreturn)) fake_main(enum fake how, int ready)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct fp_hello_ok ok = { .version = FP_VERSION, .n_hosts = 0 };
	struct fp_rc welcome = { 0 };
	struct fp_reader in;
	int fd, c, pair[2], event_fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fp_reader_init(&in);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		_exit(2);
	/* The listener's credentials are taken at listen(): those of nobody. */
	if (how == FAKE_OTHER_USER)
		become_nobody();
	if (listen(fd, how == FAKE_FULL ? 0 : 8) < 0)
		_exit(2);
	if (how == FAKE_FULL) {
		/* Fill the backlog with connections of its own that it never takes. */
		for (;;) {
			int filler = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);

			if (filler < 0 || connect(filler, (struct sockaddr *)&a, sizeof(a)) < 0)
				break;
		}
	}
	if (write(ready, "r", 1) != 1)
		_exit(2);
	if (how == FAKE_SILENT || how == FAKE_FULL)
		forever();
	c = accept(fd, NULL, NULL);
	if (c < 0 || fp_send_message(c, FP_RC, &welcome, sizeof(welcome), -1, 0) < 0)
		_exit(2);
	if (how == FAKE_WELCOME_ONLY)
		forever();
	if (fp_recv_message(c, &in, 0) != 1 || in.type != FP_HELLO)
		_exit(2);
	if (how == FAKE_EVENT_OTHER_USER)
		become_nobody();
	if (how == FAKE_EVENT_PIPE ? pipe(pair) < 0
	    : socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) < 0)
		_exit(2);
	event_fd = how == FAKE_EVENT_PIPE ? pair[0] : pair[1];
	if (fp_send_message(c, FP_HELLO_OK, &ok, sizeof(ok), event_fd, 0) < 0)
		_exit(2);
	/* A client with a mailbox asks for its doorbell: without one, it kicks on the connection. */
	if (in.passed_fd >= 0) {
		struct fp_rc none = { -EOPNOTSUPP };

		if (fp_recv_message(c, &in, 0) != 1 || in.type != FP_DOORBELL ||
		    fp_send_message(c, FP_RC, &none, sizeof(none), -1, 0) < 0)
			_exit(2);
	}
	if (how != FAKE_MAP_UNSEALED && how != FAKE_MAP_SILENT)
		forever();
	if (fp_recv_message(c, &in, 0) != 1 || in.type != FP_MAP)
		_exit(2);
	if (how == FAKE_MAP_UNSEALED) {
		struct fp_mapped m = { .base = 0x500000000000ull };
		int mem = memfd_create("fake-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING);

		if (mem < 0 || ftruncate(mem, 1 << 20) < 0 ||
		    fcntl(mem, F_ADD_SEALS, F_SEAL_SHRINK) < 0 ||
		    fp_send_message(c, FP_MAPPED, &m, sizeof(m), mem, 0) < 0)
			_exit(2);
	}
	forever();
}

/* Start a fake server at path; it listens when this returns. */
static void start_fake(enum fake how)
{
	int ready[2];
	char r;

	assert_int_equal(pipe(ready), 0);
	fake_pid = fork();
	assert_true(fake_pid >= 0);
	if (fake_pid == 0) {
		close(ready[0]);
		fake_main(how, ready[1]);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &r, 1), 1);
	close(ready[0]);
}

/* Stop the fake server and take its socket away. */
static void stop_fake(void)
{
	if (fake_pid > 0) {
		kill(fake_pid, SIGKILL);
		waitpid(fake_pid, NULL, 0);
	}
	fake_pid = 0;
	unlink(path);
}

/* Attach with no nodes (the CLI's way): fabric_client_connect's result, the client closed. */
static int attach(struct umad_err *err, int *elapsed_ms)
{
	struct fabric_client c;
	struct fp_node nodes[1];
	struct timespec t0, t1;
	unsigned n = 0;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	umad_err_clear(err);
	r = fabric_client_connect(&c, path, NULL, 0, 0, nodes, &n, err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (elapsed_ms)
		*elapsed_ms = (int)((t1.tv_sec - t0.tv_sec) * 1000 +
				    (t1.tv_nsec - t0.tv_nsec) / 1000000);
	if (r == 0)
		fabric_client_close(&c);
	return r;
}

/* Attach with no nodes, which must work: the client is left open in c. */
static void attach_open(struct fabric_client *c)
{
	struct fp_node nodes[1];
	unsigned n = 0;
	struct umad_err err = UMAD_ERR_INIT;

	if (fabric_client_connect(c, path, NULL, 0, 0, nodes, &n, &err) < 0)
		fail_msg("%s", umad_err_text(&err));
}

#define assert_said(err, text) do { \
	if (!strstr((err), (text))) \
		fail_msg("expected '%s' in: %s", (text), (err)); } while (0)

/* --- the socket's directory and the socket ---------------------------------------------------- */

/*
 * The directory holding the socket must be this user's and closed to
 * others' writes, and not a symbolic link; the socket must be this
 * user's.  Each refusal names the path and the owner or mode found.  A
 * live server (that would have been joined) is behind each.
 */
static void test_directory_and_socket_are_checked(void **state)
{
	struct umad_err err = UMAD_ERR_INIT;
	char link[80];

	(void)state;
	fresh_dir();
	start_fake(FAKE_HELLO);
	/* Open to others' writes. */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(attach(&err, NULL), -EPERM);
	assert_said(umad_err_text(&err), "open to other users (mode 0777)");
	assert_said(umad_err_text(&err), dir);
	/* Through a symbolic link to the directory. */
	assert_int_equal(chmod(dir, 0700), 0);
	snprintf(link, sizeof(link), "%s.link", dir);
	assert_int_equal(symlink(dir, link), 0);
	snprintf(path, sizeof(path), "%s/socket", link);
	assert_int_equal(attach(&err, NULL), -ELOOP);
	assert_said(umad_err_text(&err), "is a symbolic link");
	unlink(link);
	snprintf(path, sizeof(path), "%s/socket", dir);
	if (geteuid() == 0) {
		/* Another user's socket, and another user's directory. */
		assert_int_equal(lchown(path, NOBODY, NOBODY), 0);
		assert_int_equal(attach(&err, NULL), -EPERM);
		assert_said(umad_err_text(&err), "belongs to user 65534");
		assert_said(umad_err_text(&err), path);
		assert_int_equal(lchown(path, 0, 0), 0);
		assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
		assert_int_equal(attach(&err, NULL), -EPERM);
		assert_said(umad_err_text(&err), "belongs to user 65534");
		assert_int_equal(chown(dir, 0, 0), 0);
	}
	/* All in order: attached. */
	assert_int_equal(attach(&err, NULL), 0);
	stop_fake();
	/* Not a socket. */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(attach(&err, NULL), -ENOTSOCK);
	assert_said(umad_err_text(&err), "is not a socket");
	remove_dir();
}

/*
 * The socket and its directory are root's, and so they pass, but the
 * process that listens there is nobody's: SO_PEERCRED refuses it, before
 * anything is sent.
 */
static void test_server_of_another_user_is_refused(void **state)
{
	struct umad_err err = UMAD_ERR_INIT;

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "skipped: a listener of another user needs root\n");
		skip();
	}
	fresh_dir();
	start_fake(FAKE_OTHER_USER);
	assert_int_equal(attach(&err, NULL), -EPERM);
	assert_said(umad_err_text(&err), "is served by user 65534");
	assert_said(umad_err_text(&err), path);
	stop_fake();
	remove_dir();
}

/* The event channel handed over must be a local packet socket of this user's, and its peer too. */
static void test_event_channel_is_checked(void **state)
{
	struct umad_err err = UMAD_ERR_INIT;

	(void)state;
	fresh_dir();
	start_fake(FAKE_EVENT_PIPE);
	assert_int_equal(attach(&err, NULL), -ENOTSOCK);
	assert_said(umad_err_text(&err), "event channel handed over is not a local packet socket");
	stop_fake();
	if (geteuid() == 0) {
		start_fake(FAKE_EVENT_OTHER_USER);
		assert_int_equal(attach(&err, NULL), -EPERM);
		assert_said(umad_err_text(&err), "belongs to user 65534");
		stop_fake();
	}
	remove_dir();
}

/* --- the memory handed over -------------------------------------------------------------------- */

static int map_refused_child(void)
{
	CHECK(umad_init() < 0);
	return 0;
}

/*
 * Memory sealed against shrinking only (a client could grow it) is refused
 * before it is mapped, with a message; the sim backend then refuses the
 * server loudly rather than do without the mapping.
 */
static void test_mapped_memory_is_checked(void **state)
{
	struct fabric_client c;
	struct child_result res;
	struct umad_err err = UMAD_ERR_INIT;

	(void)state;
	fresh_dir();
	start_fake(FAKE_MAP_UNSEALED);
	attach_open(&c);
	assert_int_equal(fabric_client_map(&c, 0, &err), -EINVAL);
	assert_said(umad_err_text(&err), "not sealed as an arena is");
	assert_null(c.arena);
	fabric_client_close(&c);
	stop_fake();

	start_fake(FAKE_MAP_UNSEALED);
	setenv("UMAD_SIM_FABRIC", path, 1);
	run_child(map_refused_child, "sim", MODULE_DIR, &res);
	unsetenv("UMAD_SIM_FABRIC");
	stop_fake();
	if (res.failure[0])
		fail_msg("%s\nchild stderr:\n%s", res.failure, res.stderr_text);
	assert_said(res.stderr_text, "not sealed as an arena is");
	remove_dir();
}

/* --- a server that does not answer ------------------------------------------------------------- */

/*
 * Each step of the attach waits fabric_client_attach_timeout_ms at most,
 * then says why: a full backlog, no welcome, no answer to the hello, no
 * answer to FP_MAP.
 */
static void test_attach_times_out(void **state)
{
	static const struct {
		enum fake how;
		const char *said;
	} cases[] = {
		{ FAKE_FULL, "does not take connections within 300 ms" },
		{ FAKE_SILENT, "does not answer within 300 ms" },
		{ FAKE_WELCOME_ONLY, "does not answer within 300 ms" },
	};
	struct fabric_client c;
	struct umad_err err = UMAD_ERR_INIT;
	unsigned i;
	int elapsed;

	(void)state;
	fabric_client_attach_timeout_ms = 300;
	alarm(30);	/* an attach waiting for ever fails the test, not the suite */
	fresh_dir();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		start_fake(cases[i].how);
		assert_int_equal(attach(&err, &elapsed), -ETIMEDOUT);
		assert_said(umad_err_text(&err), cases[i].said);
		assert_said(umad_err_text(&err), path);
		assert_true(elapsed >= 250 && elapsed < 3000);
		stop_fake();
	}
	start_fake(FAKE_MAP_SILENT);
	attach_open(&c);
	assert_int_equal(fabric_client_map(&c, 0, &err), -ETIMEDOUT);
	assert_said(umad_err_text(&err), "does not answer within 300 ms");
	fabric_client_close(&c);
	stop_fake();
	remove_dir();
	alarm(0);
	fabric_client_attach_timeout_ms = FABRIC_ATTACH_TIMEOUT_MS;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_directory_and_socket_are_checked),
		cmocka_unit_test(test_server_of_another_user_is_refused),
		cmocka_unit_test(test_event_channel_is_checked),
		cmocka_unit_test(test_mapped_memory_is_checked),
		cmocka_unit_test(test_attach_times_out),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
