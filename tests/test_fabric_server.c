/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The shared fabric's server and its clients: a malformed message costs
 * only its sender the connection; an agent clashing with another process's
 * is refused; a request with no hello first is refused; a fault on links
 * is told to every client attached at a node (FP_NODE_CHANGED), and a
 * program that makes one through libumad-sim finds its own fake sysfs tree
 * rewritten when the call returns; requests awaiting a response from
 * another client's agent are remembered up to a bound, the expired dropped
 * first; and a program on the sim backend (UMAD_SIM_FABRIC) whose server
 * dies gets -EIO from its calls instead of waiting for ever.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <infiniband/umad.h>
#include <infiniband/umad_sm.h>
#include <infiniband/umad_sim.h>
#include <infiniband/umad_types.h>

#include "base/mad_wire.h"
#include "simfabric/fabric_client.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/fabric_server.h"
#include "simfabric/fault.h"
#include "tests/arena_lock.h"
#include "tests/child.h"
#include "tests/own_server.h"

/* Fields of the SMP data, spelled here as the IBA lays them out. */
#define NODEINFO_OFF_NODE_TYPE	2
#define PORTINFO_OFF_LID	16
#define PORTINFO_OFF_STATE	32	/* LinkSpeedSupported:4 PortState:4 */
#define PORTINFO_OFF_PHYS_STATE	33	/* PortPhysicalState:4 LinkDownDefaultState:4 */

static struct fabric_server *new_server(void)
{
	struct fabric_server_options o = { .builtin_sm = 1 };
	struct fabric_server *s;
	struct umad_err errors = UMAD_ERR_INIT;

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

/* An FP_RC's message, as a string. */
static const char *rc_text(const struct fp_reader *r, char *buf, size_t size)
{
	size_t n = r->len > sizeof(int32_t) ? r->len - sizeof(int32_t) : 0;

	assert_int_equal(r->type, FP_RC);
	if (n >= size)
		n = size - 1;
	memcpy(buf, r->buf + sizeof(int32_t), n);
	buf[n] = '\0';
	return buf;
}

static void hello(struct fabric_server *s, int fd, const char *node, struct fp_reader *r)
{
	struct fp_hello h = { .version = FP_VERSION, .order = FP_BYTE_ORDER, .n_hosts = 1 };

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

/*
 * A mailbox the client could cut short under the server's mapping, or not
 * of the server's user, is refused at hello.
 */
static int mailbox_file(int seal)
{
	int fd = memfd_create("test-mailbox", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, sizeof(struct fp_mailbox)), 0);
	if (seal)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	return fd;
}

static void test_unsealed_mailbox_is_refused(void **state)
{
	struct fabric_server *s = new_server();
	struct fp_hello h = { .version = FP_VERSION, .order = FP_BYTE_ORDER, .n_hosts = 1 };
	struct fp_reader r;
	int fd, mb, seal;

	(void)state;
	fp_reader_init(&r);
	/* 0: not sealed, 1: sealed, 2: sealed but another user's (as root only). */
	for (seal = 0; seal <= (geteuid() == 0 ? 2 : 1); seal++) {
		fd = new_client(s);
		mb = mailbox_file(seal);
		if (seal == 2)
			assert_int_equal(fchown(mb, 65534, 65534), 0);
		assert_int_equal(fp_send_message2(fd, FP_HELLO, &h, sizeof(h), "Hca1", 5, mb, 0), 0);
		serve(s);
		assert_int_equal(fp_recv_message(fd, &r, MSG_DONTWAIT), 1);
		if (r.passed_fd >= 0) {
			close(r.passed_fd);
			r.passed_fd = -1;
		}
		if (seal == 1) {
			assert_int_equal(r.type, FP_HELLO_OK);
			/* What the server relies on: the file cannot shrink now. */
			assert_int_equal(ftruncate(mb, 64), -1);
			assert_int_equal(errno, EPERM);
		} else {
			assert_int_equal(rc_of(&r), -EINVAL);
			assert_non_null(memmem(r.buf, r.len, "sealed", 6));
		}
		close(mb);
		close(fd);
		serve(s);
	}
	fp_reader_free(&r);
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

/*
 * FP_MAP: the fabric's memory file comes back with the addresses of the
 * fabric and of the client's node; a server started private refuses it.
 */
static void test_map_and_private(void **state)
{
	struct fabric_server_options o = { .builtin_sm = 1, .private_memory = 1 };
	struct fabric_server *s = new_server(), *p;
	int fd = new_client(s), pfd;
	struct fp_map q = { 0 };
	const struct fp_mapped *m;
	struct fp_reader r;
	struct umad_err errors = UMAD_ERR_INIT;
	struct stat st;

	(void)state;
	fp_reader_init(&r);
	hello(s, fd, "Hca1", &r);
	assert_int_equal(fp_send_message(fd, FP_MAP, &q, sizeof(q), -1, 0), 0);
	serve(s);
	assert_int_equal(fp_recv_message(fd, &r, MSG_DONTWAIT), 1);
	assert_int_equal(r.type, FP_MAPPED);
	m = (const struct fp_mapped *)r.buf;
	assert_true(r.passed_fd >= 0);
	assert_int_equal(fstat(r.passed_fd, &st), 0);
	/* Sealed whole: no client can grow it (later clients could not map it), nor seal it more. */
	assert_int_equal(fcntl(r.passed_fd, F_GET_SEALS), F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	assert_int_equal(ftruncate(r.passed_fd, st.st_size + 4096), -1);
	assert_int_equal(errno, EPERM);
	/* The fabric and the node lie inside what the file holds, from where it goes. */
	assert_true(m->fabric > m->base && m->fabric < m->base + (uint64_t)st.st_size);
	assert_true(m->hosts[0] > m->base && m->hosts[0] < m->base + (uint64_t)st.st_size);
	assert_int_equal(m->hosts[1], 0);
	close(r.passed_fd);
	r.passed_fd = -1;
	close(fd);
	fabric_server_free(s);

	assert_int_equal(fabric_server_new(&o, &p, &errors), 0);
	pfd = new_client(p);
	hello(p, pfd, "Hca1", &r);
	assert_int_equal(ask(p, pfd, FP_MAP, &q, sizeof(q), NULL, 0, &r), FP_RC);
	assert_int_equal(rc_of(&r), -EOPNOTSUPP);
	/* The client stays served. */
	assert_int_equal(fabric_server_clients(p), 1);
	fp_reader_free(&r);
	close(pfd);
	fabric_server_free(p);
}

/*
 * A client leaves the lock in the fabric's memory unrecoverable (it could
 * as well write over it): the server never goes on without it.  The request that needed it goes unserved, and the
 * server stops, saying why (fabric_server_poll's -ENOTRECOVERABLE, every
 * time after).
 */
static void test_broken_lock_stops_the_server(void **state)
{
	struct fabric_server *s = new_server();
	int fd = new_client(s), other = new_client(s);
	size_t off = arena_lock_offset();
	struct fp_host q = { .host = 0 };
	struct fp_map map = { 0 };
	struct fp_reader r;
	uint8_t *m;

	(void)state;
	assert_true(off != (size_t)-1);
	fp_reader_init(&r);
	hello(s, fd, "Hca1", &r);
	hello(s, other, "Hca2", &r);
	assert_int_equal(fp_send_message(fd, FP_MAP, &map, sizeof(map), -1, 0), 0);
	serve(s);
	assert_int_equal(fp_recv_message(fd, &r, MSG_DONTWAIT), 1);
	assert_int_equal(r.type, FP_MAPPED);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, r.passed_fd, 0);
	assert_true(m != MAP_FAILED);
	close(r.passed_fd);
	r.passed_fd = -1;
	alarm(10);	/* a server waiting on the lock fails the test, not the suite */
	assert_int_equal(arena_lock_break(m + off), 0);
	assert_int_equal(fp_send_message(other, FP_GET_CA, &q, sizeof(q), -1, 0), 0);
	assert_int_equal(fabric_server_poll(s, 0, -1), -ENOTRECOVERABLE);
	assert_true(fp_recv_message(other, &r, MSG_DONTWAIT) != 1);	/* no answer */
	assert_int_equal(fabric_server_poll(s, 0, -1), -ENOTRECOVERABLE);
	alarm(0);
	munmap(m, 4096);
	fp_reader_free(&r);
	close(fd);
	close(other);
	fabric_server_free(s);
}

/* Listen at path on a fresh server: its result, the server freed (or kept in *kept). */
static int listen_at(const char *path, struct umad_err *err, struct fabric_server **kept)
{
	struct fabric_server *s = new_server();
	int r;

	umad_err_clear(err);
	r = fabric_server_listen(s, path, err);

	if (kept && r == 0)
		*kept = s;
	else
		fabric_server_free(s);
	return r;
}

/* A file at path holding text. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int file_holds(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strcmp(buf, text);
}

/* A socket bound at path and closed: what a server that died leaves. */
static void stale_socket(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	assert_true(fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	close(fd);
}

/* How a client writes over the fabric's shared memory: what it does, on which page. */
enum vandal {
	ZERO_HEADER,		/* memset of the first page through its mapping */
	PUNCH_HEADER,		/* fallocate(PUNCH_HOLE) of the first page: it reads as zeros */
	ZERO_ROOT,		/* memset of the page after it, where the fabric's root lies */
	SHRINK_USED		/* the header's count of bytes handed out, set back */
};

/*
 * A client of the same user writes over the shared memory it mapped: the
 * server does not crash at the next request (another client's), and does
 * not serve it from what it would have to trust: it stops, saying why
 * (fabric_server_poll's -ENOTRECOVERABLE, every time after), the other
 * client left without an answer (its connection closes with the server).
 */
static void vandal_stops_the_server(enum vandal how)
{
	struct fabric_server *s = new_server();
	int fd = new_client(s), other = new_client(s), arena_fd;
	struct fp_host q = { .host = 0 };
	struct fp_map map = { 0 };
	struct fp_reader r;
	uint64_t *used;
	uint8_t *m;

	fp_reader_init(&r);
	hello(s, fd, "Hca1", &r);
	hello(s, other, "Hca2", &r);
	/* Served before: the other client's request is answered. */
	assert_int_equal(ask(s, other, FP_GET_CA, &q, sizeof(q), NULL, 0, &r), FP_CA);
	assert_int_equal(fp_send_message(fd, FP_MAP, &map, sizeof(map), -1, 0), 0);
	serve(s);
	assert_int_equal(fp_recv_message(fd, &r, MSG_DONTWAIT), 1);
	assert_int_equal(r.type, FP_MAPPED);
	arena_fd = r.passed_fd;
	r.passed_fd = -1;
	m = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, arena_fd, 0);
	assert_true(m != MAP_FAILED);
	alarm(10);	/* a server waiting on a lock fails the test, not the suite */
	switch (how) {
	case ZERO_HEADER:
		memset(m, 0, 4096);
		break;
	case PUNCH_HEADER:
		assert_int_equal(fallocate(arena_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					   0, 4096), 0);
		break;
	case ZERO_ROOT:
		memset(m + 4096, 0, 4096);
		break;
	case SHRINK_USED:
		/* The fourth word: magic, base, size, then used. */
		used = (uint64_t *)(void *)m + 3;
		assert_true(*used > 4096);
		*used = 4096;
		break;
	}
	assert_int_equal(fp_send_message(other, FP_GET_CA, &q, sizeof(q), -1, 0), 0);
	assert_int_equal(fabric_server_poll(s, 0, -1), -ENOTRECOVERABLE);
	assert_true(fp_recv_message(other, &r, MSG_DONTWAIT) != 1);	/* no answer from it */
	assert_int_equal(fabric_server_poll(s, 0, -1), -ENOTRECOVERABLE);
	alarm(0);
	munmap(m, 2 * 4096);
	close(arena_fd);
	fp_reader_free(&r);
	close(fd);
	close(other);
	fabric_server_free(s);
}

static void test_zeroed_header_stops_the_server(void **state)
{
	(void)state;
	vandal_stops_the_server(ZERO_HEADER);
}

static void test_punched_header_stops_the_server(void **state)
{
	(void)state;
	vandal_stops_the_server(PUNCH_HEADER);
}

static void test_zeroed_root_stops_the_server(void **state)
{
	(void)state;
	vandal_stops_the_server(ZERO_ROOT);
}

static void test_shrunk_header_stops_the_server(void **state)
{
	(void)state;
	vandal_stops_the_server(SHRINK_USED);
}

/*
 * fabric_server_listen replaces only a stale socket of this user's: a
 * file, a symbolic link, another user's socket stay as they are, and are
 * refused with a message; a live server is not replaced.  The socket's
 * directory must be this user's and closed to others, and not a link.
 */
static void test_listen_replaces_only_a_stale_socket(void **state)
{
	char dir[] = "/tmp/umad-listen-test.XXXXXX", sub[64], path[160], other[96], cmd[64];
	struct umad_err err = UMAD_ERR_INIT;
	struct fabric_server *live = NULL;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/s", dir);
	snprintf(path, sizeof(path), "%s/socket", sub);
	snprintf(other, sizeof(other), "%s/precious", dir);
	assert_int_equal(mkdir(sub, 0700), 0);

	/* A regular file. */
	write_file(path, "keep me");
	assert_int_equal(listen_at(path, &err, NULL), -ENOTSOCK);
	assert_non_null(strstr(umad_err_text(&err), "is not a socket"));
	assert_true(file_holds(path, "keep me"));
	assert_int_equal(unlink(path), 0);

	/* A symbolic link to a file: neither is touched. */
	write_file(other, "keep me too");
	assert_int_equal(symlink(other, path), 0);
	assert_int_equal(listen_at(path, &err, NULL), -ENOTSOCK);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_true(file_holds(other, "keep me too"));
	assert_int_equal(unlink(path), 0);

	/* A stale socket is replaced; a live server is not. */
	stale_socket(path);
	assert_int_equal(listen_at(path, &err, &live), 0);
	assert_int_equal(listen_at(path, &err, NULL), -EADDRINUSE);
	assert_non_null(strstr(umad_err_text(&err), "already served"));
	fabric_server_free(live);
	assert_int_equal(access(path, F_OK), -1);	/* the server took its socket away */

	/* Another user's stale socket (root can make one). */
	if (geteuid() == 0) {
		stale_socket(path);
		assert_int_equal(lchown(path, 65534, 65534), 0);
		assert_int_equal(listen_at(path, &err, NULL), -EPERM);
		assert_non_null(strstr(umad_err_text(&err), "belongs to user 65534"));
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISSOCK(st.st_mode));
		assert_int_equal(unlink(path), 0);
	}

	/* A directory open to others, and one that is a link. */
	assert_int_equal(chmod(sub, 0755), 0);
	assert_int_equal(listen_at(path, &err, NULL), -EPERM);
	assert_non_null(strstr(umad_err_text(&err), "open to other users"));
	assert_int_equal(chmod(sub, 0700), 0);
	snprintf(other, sizeof(other), "%s/link", dir);
	assert_int_equal(symlink(sub, other), 0);
	snprintf(path, sizeof(path), "%s/socket", other);
	assert_int_equal(listen_at(path, &err, NULL), -ELOOP);
	assert_non_null(strstr(umad_err_text(&err), "symbolic link"));

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
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
	assert_true(rc_of(&r) > 0);	/* the agent's hi_tid */
	ask(s, b, FP_OPEN, &port1, sizeof(port1), NULL, 0, &r);
	reg.handle = (uint32_t)rc_of(&r);
	ask(s, b, FP_REGISTER, &reg, sizeof(reg), NULL, 0, &r);
	assert_int_equal(rc_of(&r), -EINVAL);
	/* Once the first process is gone, its agent is too. */
	close(a);
	serve(s);
	ask(s, b, FP_REGISTER, &reg, sizeof(reg), NULL, 0, &r);
	assert_true(rc_of(&r) > 0);	/* the agent's hi_tid */
	fp_reader_free(&r);
	close(b);
	fabric_server_free(s);
}

/* --- what a fault changes, clients hear of ------------------------------------------------ */

/* Hello at node, keeping the event channel the server hands over (returned). */
static int hello_events(struct fabric_server *s, int fd, const char *node, struct fp_reader *r)
{
	struct fp_hello h = { .version = FP_VERSION, .order = FP_BYTE_ORDER, .n_hosts = 1 };
	int ev;

	assert_int_equal(fp_send_message2(fd, FP_HELLO, &h, sizeof(h), node, strlen(node) + 1, -1,
					  0), 0);
	serve(s);
	assert_int_equal(fp_recv_message(fd, r, MSG_DONTWAIT), 1);
	assert_int_equal(r->type, FP_HELLO_OK);
	ev = r->passed_fd;
	r->passed_fd = -1;
	assert_true(ev >= 0);
	return ev;
}

/* A port's state as FP_GET_CA shows it to the client at its node. */
static unsigned port_state(struct fabric_server *s, int fd, uint32_t port, struct fp_reader *r)
{
	struct fp_host q = { .host = 0 };
	const struct fp_node *n;
	const struct fp_port *ports;

	assert_int_equal(ask(s, fd, FP_GET_CA, &q, sizeof(q), NULL, 0, r), FP_CA);
	n = (const struct fp_node *)r->buf;
	assert_true(port <= n->num_ports);
	assert_int_equal(r->len, sizeof(*n) + (n->num_ports + 1) * sizeof(*ports));
	ports = (const struct fp_port *)(n + 1);
	return ports[port].state;
}

/* The events waiting on a client's channel: how many FP_NODE_CHANGED for host 0. */
static unsigned node_changed_events(int ev, struct fp_reader *r)
{
	unsigned n = 0;

	while (fp_recv_message(ev, r, MSG_DONTWAIT) == 1) {
		const struct fp_host *h = (const struct fp_host *)r->buf;

		assert_int_equal(r->type, FP_NODE_CHANGED);
		assert_int_equal(h->host, 0);
		n++;
	}
	return n;
}

/* A fault, as umad fabric sends it (its bytes); it must be taken. */
static void control(struct fabric_server *s, int fd, const struct sim_fault_req *rq,
		    struct fp_reader *r)
{
	uint8_t q[SIM_FAULT_WIRE_MAX];
	int len = sim_fault_encode(rq, q, sizeof(q));

	assert_true(len > 0);
	ask(s, fd, FP_CONTROL, q, (size_t)len, NULL, 0, r);
	assert_int_equal(rc_of(r), 0);
}

/*
 * A link that goes down changes its ports with no SM involved: the clients
 * attached at either end, and elsewhere (the built-in SM's resweep may
 * change any port), hear of it; a drop changes nothing a device shows and
 * is not told.  (The server used to tell them nothing: their fake sysfs
 * trees showed the link Active for ever.)
 */
static void test_link_fault_tells_attached_clients(void **state)
{
	struct fabric_server *s = new_server();
	int at1 = new_client(s), at2 = new_client(s), ctl = new_client(s);
	int ev1, ev2;
	struct fp_reader r, e;

	(void)state;
	fp_reader_init(&r);
	fp_reader_init(&e);
	ev1 = hello_events(s, at1, "Hca1", &r);
	ev2 = hello_events(s, at2, "Hca2", &r);
	hello(s, ctl, "Hca3", &r);
	assert_int_equal(port_state(s, at1, 1, &r), PORT_STATE_ACTIVE);
	assert_int_equal(node_changed_events(ev1, &e), 0);

	control(s, ctl, &(struct sim_fault_req){ .op = SIM_FAULT_DROP, .node = "Hca1", .port = 1 }, &r);
	assert_int_equal(node_changed_events(ev1, &e), 0);

	control(s, ctl, &(struct sim_fault_req){ .op = SIM_FAULT_LINK, .node = "Hca1", .port = 1 }, &r);
	assert_true(node_changed_events(ev1, &e) >= 1);
	assert_true(node_changed_events(ev2, &e) >= 1);
	assert_int_equal(port_state(s, at1, 1, &r), PORT_STATE_DOWN);

	/* Back up: the built-in SM activates it again, and says so. */
	control(s, ctl, &(struct sim_fault_req){ .op = SIM_FAULT_LINK, .node = "Hca1", .port = 1,
						  .up = 1 }, &r);
	assert_true(node_changed_events(ev1, &e) >= 1);
	assert_true(node_changed_events(ev2, &e) >= 1);
	assert_int_equal(port_state(s, at1, 1, &r), PORT_STATE_ACTIVE);

	/* A Trap 128 makes the built-in SM resweep: told too. */
	control(s, ctl, &(struct sim_fault_req){ .op = SIM_FAULT_TRAP, .node = "Switch2",
						  .trap = TRAP_LINK_STATE_CHANGE }, &r);
	assert_true(node_changed_events(ev2, &e) >= 1);

	control(s, ctl, &(struct sim_fault_req){ .op = SIM_FAULT_NODE, .node = "Hca1" }, &r);
	assert_true(node_changed_events(ev1, &e) >= 1);
	assert_int_equal(port_state(s, at1, 1, &r), PORT_STATE_DOWN);

	fp_reader_free(&r);
	fp_reader_free(&e);
	close(ev1);
	close(ev2);
	close(at1);
	close(at2);
	close(ctl);
	fabric_server_free(s);
}

/* --- requests awaiting another client's response: a bounded table --------------------- */

/* The class the two clients speak: one no firmware agent of the fabric answers. */
#define TEST_CLASS		UMAD_CLASS_VENDOR_RANGE1_START
#define LONG_WAIT_MS		3600000u	/* outlasts any test run: never expires */

/* A client at a node with port 1 opened there. */
struct gmp_end {
	int fd, ev;
	uint32_t handle;
	uint16_t lid;
};

static void gmp_end_open(struct fabric_server *s, struct gmp_end *e, const char *node,
			 struct fp_reader *r)
{
	struct fp_host port1 = { .host = 0, .port = 1 };
	struct fp_host q = { .host = 0 };
	const struct fp_port *ports;

	e->fd = new_client(s);
	e->ev = hello_events(s, e->fd, node, r);
	assert_int_equal(ask(s, e->fd, FP_OPEN, &port1, sizeof(port1), NULL, 0, r), FP_RC);
	assert_true(rc_of(r) >= 0);
	e->handle = (uint32_t)rc_of(r);
	assert_int_equal(ask(s, e->fd, FP_GET_CA, &q, sizeof(q), NULL, 0, r), FP_CA);
	ports = (const struct fp_port *)((const struct fp_node *)r->buf + 1);
	e->lid = ports[1].lid;
	assert_true(e->lid != 0);
}

static void gmp_end_close(struct gmp_end *e)
{
	close(e->ev);
	close(e->fd);
}

/* Two clients: `from` at from_node, and `to` at to_node with an agent there for method of TEST_CLASS. */
static void gmp_pair_open(struct fabric_server *s, struct gmp_end *from, const char *from_node,
			  struct gmp_end *to, const char *to_node, uint8_t method,
			  struct fp_reader *r)
{
	struct fp_register reg = {
		.req = { .qpn = QP1_GSI, .mgmt_class = TEST_CLASS, .mgmt_class_version = 1 },
	};

	gmp_end_open(s, from, from_node, r);
	gmp_end_open(s, to, to_node, r);
	reg.handle = to->handle;
	reg.req.method_mask[0] = 1u << method;
	assert_int_equal(ask(s, to->fd, FP_REGISTER, &reg, sizeof(reg), NULL, 0, r), FP_RC);
	assert_true(rc_of(r) > 0);	/* the agent's hi_tid */
}

/*
 * A GMP of TEST_CLASS from e to dlid: the verdict its FP_RESULT gives.
 * The server handles it in its first round, but for other clients'
 * messages (none here), so a few rounds are plenty.
 */
static uint32_t send_gmp(struct fabric_server *s, const struct gmp_end *e, uint16_t dlid,
			 uint8_t method, uint64_t tid, uint32_t wait_ms, struct fp_reader *r)
{
	struct fp_send q = {
		.handle = e->handle, .sqpn = QP1_GSI, .dqpn = QP1_GSI, .qkey = UMAD_QKEY,
		.dlid = dlid, .wait_ms = wait_ms,
	};
	uint8_t mad[MAD_SIZE] = { 0 };
	struct fp_result res;
	int i, got = 0;

	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = TEST_CLASS;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = method;
	put_be64(mad + MAD_OFF_TID, tid);
	assert_int_equal(fp_send_message2(e->fd, FP_SEND, &q, sizeof(q), mad, sizeof(mad), -1, 0),
			 0);
	for (i = 0; i < 4 && !got; i++) {
		assert_true(fabric_server_poll(s, 0, -1) >= 0);
		got = fp_recv_message(e->fd, r, MSG_DONTWAIT);
	}
	assert_int_equal(got, 1);
	assert_int_equal(r->type, FP_RESULT);
	assert_true(r->len >= sizeof(res));
	memcpy(&res, r->buf, sizeof(res));
	return res.result;
}

/*
 * What arrived on a client's event channel: how many MADs of TEST_CLASS
 * (other events, such as the built-in SM's, are passed over); the TID of
 * the last in *tid.
 */
static unsigned delivered(int ev, uint8_t method, uint64_t *tid, struct fp_reader *r)
{
	unsigned n = 0;

	while (fp_recv_message(ev, r, MSG_DONTWAIT) == 1) {
		const uint8_t *mad = r->buf + sizeof(struct fp_deliver);

		if (r->type != FP_DELIVER)
			continue;
		assert_true(r->len >= sizeof(struct fp_deliver) + MAD_HDR_SIZE);
		if (mad_class(mad) != TEST_CLASS)
			continue;
		assert_int_equal(mad_method(mad), method);
		*tid = mad_tid(mad);
		n++;
	}
	return n;
}

/* The responder answers tid: did the server route the response to the asker? */
static int answered(struct fabric_server *s, const struct gmp_end *asker,
		    const struct gmp_end *responder, uint64_t tid, struct fp_reader *r)
{
	uint32_t result = send_gmp(s, responder, asker->lid, UMAD_METHOD_GET_RESP, tid, 0, r);
	uint64_t got = ~tid;
	unsigned n = delivered(asker->ev, UMAD_METHOD_GET_RESP, &got, r);

	/* The verdict the responder hears and what the asker sees agree. */
	if (result == SIM_NET_DELIVERED) {
		assert_int_equal(n, 1);
		assert_true(got == tid);
		return 1;
	}
	assert_int_equal(result, SIM_NET_LOST);
	assert_int_equal(n, 0);
	return 0;
}

/* A request from asker to responder's agent, which must take it. */
static void request(struct fabric_server *s, const struct gmp_end *asker,
		    const struct gmp_end *responder, uint64_t tid, uint32_t wait_ms,
		    struct fp_reader *r)
{
	uint64_t got = ~tid;

	assert_int_equal(send_gmp(s, asker, responder->lid, UMAD_METHOD_GET, tid, wait_ms, r),
			 SIM_NET_DELIVERED);
	assert_int_equal(delivered(responder->ev, UMAD_METHOD_GET, &got, r), 1);
	assert_true(got == tid);
}

/*
 * The server remembers requests handed to another client's agent, so that
 * their responses go back to the sender, in a bounded table: however many
 * unanswered requests come, it holds FABRIC_SERVER_MAX_WAITING at most;
 * when it is full, expired requests go first (a fresh request still gets
 * its response); past the bound, a request is not remembered, its response
 * reaches no one, and the server goes on serving.  Expired requests also go
 * when any response arrives; and a client's requests when it leaves.
 */
static void test_waiting_requests_are_bounded(void **state)
{
	const unsigned bound = FABRIC_SERVER_MAX_WAITING;
	struct fabric_server *s = new_server();
	struct gmp_end asker, responder;
	struct fp_reader r, e;
	uint64_t tid, over, short1, short2, fresh;
	int other;

	(void)state;
	fp_reader_init(&r);
	fp_reader_init(&e);
	gmp_pair_open(s, &asker, "Hca1", &responder, "Hca2", UMAD_METHOD_GET, &r);

	/* A request with no wait, and a response, are not remembered. */
	request(s, &asker, &responder, 1u << 31, 0, &e);
	assert_int_equal(fabric_server_waiting(s), 0);
	assert_int_equal(answered(s, &asker, &responder, 1u << 31, &e), 0);

	/* (a) Filled to the bound with requests that never expire; more do not grow it. */
	for (tid = 0; tid < bound; tid++)
		request(s, &asker, &responder, tid, LONG_WAIT_MS, &e);
	assert_int_equal(fabric_server_waiting(s), bound);
	over = tid;
	for (; tid < over + 16; tid++) {
		request(s, &asker, &responder, tid, LONG_WAIT_MS, &e);
		assert_int_equal(fabric_server_waiting(s), bound);
	}

	/* (c) Past the bound, nothing expired: the request's response reaches no one... */
	assert_int_equal(answered(s, &asker, &responder, over, &e), 0);
	assert_int_equal(answered(s, &asker, &responder, over + 15, &e), 0);
	assert_int_equal(fabric_server_waiting(s), bound);
	/* ...while a remembered one's does, once, and its entry goes. */
	assert_int_equal(answered(s, &asker, &responder, 0, &e), 1);
	assert_int_equal(fabric_server_waiting(s), bound - 1);
	assert_int_equal(answered(s, &asker, &responder, 0, &e), 0);
	/* The server is healthy: a newcomer is served, and so are both clients. */
	other = new_client(s);
	hello(s, other, "Hca3", &r);
	assert_int_equal(port_state(s, other, 1, &r), PORT_STATE_ACTIVE);
	close(other);
	serve(s);
	assert_int_equal(fabric_server_clients(s), 2);
	assert_int_equal(answered(s, &asker, &responder, bound - 1, &e), 1);
	assert_int_equal(fabric_server_waiting(s), bound - 2);

	/* (b) Full again, two places taken by requests that soon expire... */
	short1 = tid++;
	request(s, &asker, &responder, short1, 1, &e);
	short2 = tid++;
	request(s, &asker, &responder, short2, 1, &e);
	assert_int_equal(fabric_server_waiting(s), bound);
	usleep(5000);
	/* ...a fresh request finds them gone, takes a place, and gets its response. */
	fresh = tid++;
	request(s, &asker, &responder, fresh, LONG_WAIT_MS, &e);
	assert_int_equal(fabric_server_waiting(s), bound - 1);
	assert_int_equal(answered(s, &asker, &responder, fresh, &e), 1);
	assert_int_equal(fabric_server_waiting(s), bound - 2);
	assert_int_equal(answered(s, &asker, &responder, short1, &e), 0);
	assert_int_equal(answered(s, &asker, &responder, short2, &e), 0);
	/* Only the expired went: an old request's response still comes back. */
	assert_int_equal(answered(s, &asker, &responder, 1, &e), 1);
	assert_int_equal(fabric_server_waiting(s), bound - 3);

	/* Expired requests also go when any response arrives, even one for no one. */
	short1 = tid++;
	request(s, &asker, &responder, short1, 1, &e);
	short2 = tid++;
	request(s, &asker, &responder, short2, 1, &e);
	assert_int_equal(fabric_server_waiting(s), bound - 1);
	usleep(5000);
	assert_int_equal(answered(s, &asker, &responder, over, &e), 0);
	assert_int_equal(fabric_server_waiting(s), bound - 3);
	assert_int_equal(answered(s, &asker, &responder, short1, &e), 0);

	/* The asker leaves: its requests go with it. */
	gmp_end_close(&asker);
	serve(s);
	assert_int_equal(fabric_server_clients(s), 1);
	assert_int_equal(fabric_server_waiting(s), 0);

	fp_reader_free(&r);
	fp_reader_free(&e);
	gmp_end_close(&responder);
	fabric_server_free(s);
}

/* --- long replies, streamed as the client reads -------------------------------------------- */

#define STAR_HCAS	200	/* a switch and this many HCAs: a JSON description of 100s of KB */
#define SMALL_SNDBUF	(96 << 10)	/* asked for a server's end; a datagram still fits */

/* A topology file of a switch with STAR_HCAS HCAs "H1".. at its ports, in dir. */
static void write_star(const char *file)
{
	FILE *f = fopen(file, "w");
	int i;

	assert_non_null(f);
	fprintf(f, "Switch\t%d \"S1\"\n", STAR_HCAS);
	for (i = 1; i <= STAR_HCAS; i++)
		fprintf(f, "[%d]\t\"H%d\"[1]\n", i, i);
	for (i = 1; i <= STAR_HCAS; i++)
		fprintf(f, "\nHca\t1 \"H%d\"\n[1]\t\"S1\"[%d]\n", i, i);
	assert_int_equal(fclose(f), 0);
}

/* A client whose end at the server has a small send buffer (non-blocking, as accepted). */
static int new_client_small(struct fabric_server *s)
{
	int sv[2], size = SMALL_SNDBUF;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)), 0);
	assert_int_equal(fabric_server_add_client(s, sv[0]), 0);
	return sv[1];
}

/* Read a reply as it comes, the server serving meanwhile: its type. */
static uint32_t read_streamed(struct fabric_server *s, int fd, struct fp_reader *r)
{
	int got = 0, i;

	for (i = 0; i < 100000 && !got; i++) {
		assert_true(fabric_server_poll(s, 0, -1) >= 0);
		got = fp_recv_message(fd, r, MSG_DONTWAIT);
		assert_true(got >= 0);
	}
	assert_int_equal(got, 1);
	return r->type;
}

static size_t occurrences(const uint8_t *text, size_t len, const char *word)
{
	size_t n = 0, w = strlen(word);
	const uint8_t *p = text, *end = text + len;

	while ((p = memmem(p, (size_t)(end - p), word, w))) {
		n++;
		p += w;
	}
	return n;
}

/*
 * A reply many times longer than the socket's buffer reaches its client
 * whole, sent as the client reads it; meanwhile the server serves others,
 * and holds the client's next request until the reply is read.  (The
 * server used to send what the socket took and drop the client.)
 */
static void test_long_reply_streams_while_others_are_served(void **state)
{
	char dir[] = "/tmp/umad-fabric-test.XXXXXX", file[64];
	struct fabric_server_options o = { .builtin_sm = 1, .topology = file };
	struct fp_text q = { .kind = FP_TEXT_SHOW_JSON };
	struct fp_host ca = { .host = 0 };
	struct fabric_server *s;
	struct fp_reader r, ra, rb;
	struct umad_err errors = UMAD_ERR_INIT;
	int a, b, i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/star.net", dir);
	write_star(file);
	assert_int_equal(fabric_server_new(&o, &s, &errors), 0);
	fp_reader_init(&r);
	fp_reader_init(&ra);
	fp_reader_init(&rb);
	a = new_client_small(s);
	b = new_client_small(s);
	hello(s, a, "H1", &r);
	hello(s, b, "H2", &r);

	assert_int_equal(fp_send_message(a, FP_TEXT, &q, sizeof(q), -1, 0), 0);
	serve(s);
	/* The reply waits at the server, the most the socket did not take. */
	assert_true(fabric_server_buffered(s) > 2 * SMALL_SNDBUF);
	/* a's next request waits for a to read the reply... */
	assert_int_equal(fp_send_message(a, FP_GET_CA, &ca, sizeof(ca), -1, 0), 0);
	/* ...while b is served. */
	for (i = 0; i < 3; i++)
		assert_int_equal(port_state(s, b, 1, &r), PORT_STATE_ACTIVE);
	assert_int_equal(fabric_server_clients(s), 2);

	assert_int_equal(read_streamed(s, a, &ra), FP_TEXT_REPLY);
	/* More than twice what the socket holds (the system doubles what was asked). */
	assert_true(ra.len > 4 * SMALL_SNDBUF);
	assert_int_equal(ra.buf[ra.len - 1], '\0');
	/* Every node is there: the switch and its HCAs (a node's "num_ports" once each). */
	assert_int_equal(occurrences(ra.buf, ra.len, "\"num_ports\""), STAR_HCAS + 1);
	/* The same as another client reads it. */
	assert_int_equal(fp_send_message(b, FP_TEXT, &q, sizeof(q), -1, 0), 0);
	assert_int_equal(read_streamed(s, b, &rb), FP_TEXT_REPLY);
	assert_int_equal(ra.len, rb.len);
	assert_memory_equal(ra.buf, rb.buf, ra.len);
	/* a's second request, served once the reply was read. */
	assert_int_equal(read_streamed(s, a, &r), FP_CA);
	serve(s);
	assert_int_equal(fabric_server_buffered(s), 0);

	fp_reader_free(&r);
	fp_reader_free(&ra);
	fp_reader_free(&rb);
	close(a);
	close(b);
	fabric_server_free(s);
	unlink(file);
	rmdir(dir);
}

/* --- a client dropped for what it posted in its mailbox ---------------------------------- */

struct server_thread {
	struct fabric_server *s;
	int stop_fd;
};

/* The server's loop, as `umad fabric serve` runs it, until stop_fd is written. */
static void *serve_until_stopped(void *arg)
{
	struct server_thread *t = arg;

	while (fabric_server_poll(t->s, -1, t->stop_fd) == 0)
		;
	return NULL;
}

/*
 * A client whose mailbox request gets it dropped is hung up on at once,
 * though nothing else happens on the server.  (It used to be marked for
 * dropping and then wait, the server asleep, until another client's
 * message woke it.)
 */
static void test_client_dropped_from_mailbox_goes_at_once(void **state)
{
	struct fp_hello h = { .version = FP_VERSION, .order = FP_BYTE_ORDER, .n_hosts = 1 };
	struct server_thread t = { .s = new_server() };
	struct fp_host q = { 0 };
	struct fp_mailbox *mb;
	struct fp_reader r;
	struct pollfd pfd;
	pthread_t thread;
	uint32_t kick = 0;
	uint64_t one = 1;
	char buf[16];
	int fd = new_client(t.s), mb_fd = mailbox_file(1), i;

	(void)state;
	fp_reader_init(&r);
	mb = mmap(NULL, sizeof(*mb), PROT_READ | PROT_WRITE, MAP_SHARED, mb_fd, 0);
	assert_true(mb != MAP_FAILED);
	assert_int_equal(fp_send_message2(fd, FP_HELLO, &h, sizeof(h), "Hca1", 5, mb_fd, 0), 0);
	close(mb_fd);
	serve(t.s);
	assert_int_equal(fp_recv_message(fd, &r, MSG_DONTWAIT), 1);
	assert_int_equal(r.type, FP_HELLO_OK);
	t.stop_fd = eventfd(0, EFD_CLOEXEC);
	assert_true(t.stop_fd >= 0);
	assert_int_equal(pthread_create(&thread, NULL, serve_until_stopped, &t), 0);
	for (i = 0; i < 2000 && !atomic_load(&mb->server_asleep); i++)
		usleep(1000);
	assert_true(atomic_load(&mb->server_asleep));

	/* A request the mailbox does not take (only sends go there), then the kick. */
	mb->slot[1].req_type = FP_GET_CA;
	mb->slot[1].req_len = sizeof(q);
	memcpy(mb->slot[1].req, &q, sizeof(q));
	atomic_store(&mb->posted, 1);
	assert_int_equal(fp_send_message(fd, FP_KICK, &kick, sizeof(kick), -1, 0), 0);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 3000), 1);
	assert_int_equal(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), 0);

	assert_int_equal(write(t.stop_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_int_equal(fabric_server_clients(t.s), 0);
	close(t.stop_fd);
	munmap(mb, sizeof(*mb));
	fp_reader_free(&r);
	close(fd);
	fabric_server_free(t.s);
}

/*
 * A client over TCP that sends requests back to back gets every one
 * answered, though the later ones were read ahead with the first and its
 * socket shows nothing more (fp_reader_read_ahead).
 */
static void test_stream_requests_sent_together(void **state)
{
	struct fp_hello h = { .version = FP_VERSION, .order = FP_BYTE_ORDER, .n_hosts = 1 };
	struct fabric_server *s = new_server();
	struct fp_host q = { 0 };
	struct fp_reader r;
	int sv[2], i;

	(void)state;
	fp_reader_init(&r);
	r.stream = 1;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(fabric_server_add_stream_client(s, sv[0]), 0);
	serve(s);
	assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), 1);
	assert_int_equal(rc_of(&r), 0);		/* the welcome */
	assert_int_equal(fp_send_on(sv[1], 1, FP_HELLO, &h, sizeof(h), "Hca1", 5, -1, 0), 0);
	serve(s);
	assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), 1);
	assert_int_equal(r.type, FP_HELLO_OK);
	for (i = 0; i < 3; i++)
		assert_int_equal(fp_send_on(sv[1], 1, FP_GET_CA, &q, sizeof(q), NULL, 0, -1, 0), 0);
	serve(s);
	for (i = 0; i < 3; i++) {
		assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), 1);
		assert_int_equal(r.type, FP_CA);
	}
	assert_int_equal(fp_recv_message(sv[1], &r, MSG_DONTWAIT), 0);
	fp_reader_free(&r);
	close(sv[1]);
	serve(s);
	assert_int_equal(fabric_server_clients(s), 0);
	fabric_server_free(s);
}

/* --- what the server buffers, bounded over all clients ----------------------------------- */

#define TEST_BOUND	(4u << 20)

static int hung_up(int fd)
{
	char buf[16];

	return recv(fd, buf, sizeof(buf), MSG_DONTWAIT) == 0;
}

/*
 * Messages left half sent by several clients: the server holds no more
 * than its bound for all of them together, disconnecting the client with
 * the most held (with a line in the log), and serves the others.  (Each
 * connection could make it hold up to 32 MiB, with no bound over all.)
 */
static void test_half_sent_messages_are_bounded(void **state)
{
	enum { N = 5, PART = 1400 << 10 };
	struct fabric_server_options o = { .builtin_sm = 1, .buffer_max = TEST_BOUND };
	struct fp_send q = { 0 };
	struct fabric_server *s;
	struct fp_frame frame = { .type = FP_SEND, .flags = FP_MORE,
				  .len = FP_DATAGRAM_MAX - sizeof(struct fp_frame) };
	static uint8_t datagram[FP_DATAGRAM_MAX];
	struct umad_err errors = UMAD_ERR_INIT;
	char *log_text = NULL;
	size_t log_len = 0;
	struct fp_reader r;
	int fd[N], good, i, sent, dropped = 0;

	(void)state;
	o.log = open_memstream(&log_text, &log_len);
	assert_non_null(o.log);
	assert_int_equal(fabric_server_new(&o, &s, &errors), 0);
	fp_reader_init(&r);
	good = new_client(s);
	hello(s, good, "Hca1", &r);
	memcpy(datagram, &frame, sizeof(frame));
	memcpy(datagram + sizeof(frame), &q, sizeof(q));
	for (i = 0; i < N; i++) {
		struct timeval tv = { .tv_sec = 2 };

		fd[i] = new_client(s);
		hello(s, fd[i], "Hca2", &r);
		/* A send never finished: PART bytes in datagrams that all say more follows. */
		setsockopt(fd[i], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		for (sent = 0; sent < PART; sent += (int)(sizeof(datagram) - sizeof(frame))) {
			if (send(fd[i], datagram, sizeof(datagram), MSG_NOSIGNAL) < 0)
				break;	/* the server hung up */
			assert_true(fabric_server_poll(s, 0, -1) >= 0);
			assert_true(fabric_server_buffered(s) <= TEST_BOUND + FP_DATAGRAM_MAX + (1u << 20));
		}
		serve(s);
		assert_true(fabric_server_buffered(s) <= TEST_BOUND);
	}
	for (i = 0; i < N; i++)
		dropped += hung_up(fd[i]);
	/* Four halves of 1.4 MiB do not fit in 4 MiB: at least two went. */
	assert_true(dropped >= 2 && dropped < N);
	assert_int_equal(fabric_server_clients(s), 1 + N - dropped);
	assert_int_equal(port_state(s, good, 1, &r), PORT_STATE_ACTIVE);
	fflush(o.log);
	assert_non_null(strstr(log_text, "past its bound of 4194304"));
	for (i = 0; i < N; i++)
		close(fd[i]);
	serve(s);
	assert_int_equal(fabric_server_buffered(s), 0);
	fp_reader_free(&r);
	close(good);
	fabric_server_free(s);
	fclose(o.log);
	free(log_text);
}

/*
 * MADs for a client that does not read them wait at the server, counted
 * against the bound: past it, that client is disconnected and the sender
 * goes on.
 */
static void test_unread_events_are_bounded(void **state)
{
	struct fabric_server_options o = { .builtin_sm = 1, .buffer_max = TEST_BOUND };
	struct gmp_end sender, sleeper;
	struct fabric_server *s;
	struct umad_err errors = UMAD_ERR_INIT;
	struct fp_reader r;
	unsigned i;

	(void)state;
	assert_int_equal(fabric_server_new(&o, &s, &errors), 0);
	fp_reader_init(&r);
	gmp_pair_open(s, &sender, "Hca1", &sleeper, "Hca2", UMAD_METHOD_SEND, &r);
	for (i = 0; i < 100000 && fabric_server_clients(s) == 2; i++) {
		uint32_t result = send_gmp(s, &sender, sleeper.lid, UMAD_METHOD_SEND, i, 0, &r);

		assert_true(fabric_server_buffered(s) <= TEST_BOUND);
		if (result != SIM_NET_DELIVERED)
			break;
	}
	serve(s);
	assert_int_equal(fabric_server_clients(s), 1);
	assert_true(hung_up(sleeper.fd));
	/* What it held went with it. */
	assert_true(fabric_server_buffered(s) < FP_DATAGRAM_MAX);
	fp_reader_free(&r);
	gmp_end_close(&sender);
	gmp_end_close(&sleeper);
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

/* Where a test's fake sysfs tree goes. */
static char tree_root[64];

/* A server process of a test's own (tests/own_server.h), tree_root dir/tree, server_pid its pid. */
static void start_own_server(struct own_server *o, rlim_t descriptors)
{
	struct fabric_server_options opts = { .builtin_sm = 1 };

	own_server_start(o, &opts, descriptors, -1);
	snprintf(tree_root, sizeof(tree_root), "%s/tree", o->dir);
	server_pid = o->pid;
}

static void stop_own_server(struct own_server *o)
{
	own_server_stop(o);
	server_pid = 0;
}

/*
 * The index in the fabric of the node a client attached at (host 0 of
 * its event channel ev): the one whose FP_NOTE_CHANGED tells it.
 */
static uint64_t node_index(struct fabric_server *s, int ev, struct fp_reader *r)
{
	struct fp_note note = { 0 };
	int probe = new_client(s);

	hello(s, probe, "Hca4", r);
	for (note.node = 0; note.node < 64; note.node++) {
		assert_int_equal(fp_send_message(probe, FP_NOTE_CHANGED, &note, sizeof(note), -1, 0),
				 0);
		serve(s);
		if (node_changed_events(ev, r))
			break;
	}
	assert_true(note.node < 64);
	close(probe);
	serve(s);
	return note.node;
}

/*
 * While a client reads nothing, another floods the server with
 * FP_NOTE_CHANGED about its node and a third sends its agent MADs: every
 * MAD is handed over, and reaches it in order when it reads at last; the
 * notices never took their place.  (A notice was sent for each note, and
 * MADs that found the event channel full of them were dropped.)
 */
static void test_notices_never_crowd_mads_out(void **state)
{
	enum { MADS = 2000, NOTES_PER_MAD = 10 };
	struct fabric_server *s = new_server();
	struct gmp_end sender, reader;
	struct fp_note note;
	struct fp_reader r, e;
	uint64_t tid, expect = 0;
	unsigned i, k, mads = 0, notices = 0;
	int flooder;

	(void)state;
	fp_reader_init(&r);
	fp_reader_init(&e);
	gmp_pair_open(s, &sender, "Hca2", &reader, "Hca1", UMAD_METHOD_SEND, &r);
	note.node = node_index(s, reader.ev, &e);
	flooder = new_client(s);
	hello(s, flooder, "Hca3", &r);

	for (tid = 0; tid < MADS; tid++) {
		for (k = 0; k < NOTES_PER_MAD; k++)
			assert_int_equal(fp_send_message(flooder, FP_NOTE_CHANGED, &note, sizeof(note),
							 -1, 0), 0);
		for (k = 0; k < NOTES_PER_MAD; k++)
			assert_true(fabric_server_poll(s, 0, -1) >= 0);
		assert_int_equal(send_gmp(s, &sender, reader.lid, UMAD_METHOD_SEND, tid, 0, &r),
				 SIM_NET_DELIVERED);
	}
	assert_int_equal(fabric_server_clients(s), 3);

	/* The reader reads at last: every MAD, in order, the server sending what waited. */
	for (i = 0; i < 1000000 && mads < MADS; i++) {
		int got = fp_recv_message(reader.ev, &e, MSG_DONTWAIT);

		assert_true(got >= 0);
		if (!got) {
			assert_true(fabric_server_poll(s, 0, -1) >= 0);
			continue;
		}
		if (e.type == FP_NODE_CHANGED) {
			notices++;
			continue;
		}
		assert_int_equal(e.type, FP_DELIVER);
		if (mad_class(e.buf + sizeof(struct fp_deliver)) != TEST_CLASS)
			continue;
		assert_true(mad_tid(e.buf + sizeof(struct fp_deliver)) == expect);
		expect++;
		mads++;
	}
	assert_int_equal(mads, MADS);
	assert_true(notices >= 1);
	fp_reader_free(&r);
	fp_reader_free(&e);
	close(flooder);
	gmp_end_close(&sender);
	gmp_end_close(&reader);
	fabric_server_free(s);
}

/* --- a server out of descriptors ---------------------------------------------------------- */

#define FEW_DESCRIPTORS	48


/* Connect to path: the first message's FP_RC (the welcome 0, or a refusal), 1 for none in time. */
static int32_t connect_welcomed(const char *path, int *fd, struct fp_reader *r)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct pollfd pfd;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	*fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(*fd >= 0);
	assert_int_equal(connect(*fd, (struct sockaddr *)&a, sizeof(a)), 0);
	pfd = (struct pollfd){ .fd = *fd, .events = POLLIN };
	if (poll(&pfd, 1, 1000) != 1 || fp_recv_message(*fd, r, 0) != 1)
		return 1;
	return rc_of(r);
}

/* The CPU time a process has used, in clock ticks. */
static long cpu_ticks(pid_t pid)
{
	char path[64], line[1024], *p;
	unsigned long utime = 0, stime = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	/* Fields 14 and 15, counted after the command's closing parenthesis (field 2). */
	p = strrchr(line, ')');
	assert_non_null(p);
	for (i = 2; i < 13 && p; i++)
		p = strchr(p + 1, ' ');
	assert_non_null(p);
	assert_int_equal(sscanf(p, " %lu %lu", &utime, &stime), 2);
	return (long)(utime + stime);
}

/*
 * A server out of descriptors refuses newcomers with the reason and does
 * not spin while they wait; once clients leave, it serves again.  (accept4
 * failed with EMFILE, the connection stayed in the backlog and the
 * listener readable: 100 % CPU.)
 */
static void test_out_of_descriptors_no_spin(void **state)
{
	struct fp_hello h = { .version = FP_VERSION, .order = FP_BYTE_ORDER, .n_hosts = UINT32_MAX };
	int fd[FEW_DESCRIPTORS], extra, n, i;
	struct own_server o;
	const char *path = o.path;
	long before, used;
	struct fp_reader r;
	char msg[128];
	int32_t rc = 0;

	(void)state;
	fp_reader_init(&r);
	start_own_server(&o, FEW_DESCRIPTORS);
	/* Clients until the server has no descriptor for another (each takes two of them). */
	for (n = 0; n < FEW_DESCRIPTORS; n++) {
		rc = connect_welcomed(path, &fd[n], &r);
		if (rc != 0)
			break;
		assert_int_equal(fp_send_message(fd[n], FP_HELLO, &h, sizeof(h), -1, 0), 0);
		assert_int_equal(fp_recv_message(fd[n], &r, 0), 1);
		if (r.passed_fd >= 0)
			close(r.passed_fd);
		r.passed_fd = -1;
	}
	assert_true(n > 2 && n < FEW_DESCRIPTORS);
	/* Refused, and told why. */
	assert_int_equal(rc, -EMFILE);
	assert_non_null(strstr(rc_text(&r, msg, sizeof(msg)), "out of descriptors"));
	close(fd[n]);

	/* More newcomers while it is starved: it does not spin. */
	before = cpu_ticks(o.pid);
	for (i = 0; i < 3; i++) {
		assert_int_equal(connect_welcomed(path, &extra, &r), -EMFILE);
		close(extra);
	}
	usleep(1000000);
	used = cpu_ticks(o.pid) - before;
	assert_true(used < sysconf(_SC_CLK_TCK) / 4);

	/* Clients leave: newcomers are served again. */
	for (i = 0; i < n; i++)
		close(fd[i]);
	usleep(100000);
	assert_int_equal(connect_welcomed(path, &extra, &r), 0);
	assert_int_equal(fp_send_message(extra, FP_HELLO, &h, sizeof(h), -1, 0), 0);
	assert_int_equal(fp_recv_message(extra, &r, 0), 1);
	assert_int_equal(r.type, FP_HELLO_OK);
	close(extra);
	stop_own_server(&o);
	fp_reader_free(&r);
}

/* The first line of a file of a fake sysfs tree's port 1, or "" when it cannot be read. */
static const char *tree_value(const char *root, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/sim0/ports/1/%s", root, file);
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* In the child: a link fault through libumad-sim, the tree read as soon as the call returns. */
static int own_fault_child(void)
{
	char state[64], phys[64];

	setenv("UMAD_SIM_SYSFS", tree_root, 1);
	setenv("UMAD_SIM_HOST", "Hca1", 1);
	CHECK_EQ(umad_init(), 0);
	tree_value(tree_root, "state", state, sizeof(state));
	CHECK_EQ(atoi(state), PORT_STATE_ACTIVE);
	CHECK_EQ(umad_sim_link_down("Hca1", 1), 0);
	tree_value(tree_root, "state", state, sizeof(state));
	tree_value(tree_root, "phys_state", phys, sizeof(phys));
	CHECK_EQ(atoi(state), PORT_STATE_DOWN);
	CHECK(atoi(phys) != PHYS_STATE_LINKUP);
	CHECK_EQ(umad_sim_link_up("Hca1", 1), 0);
	tree_value(tree_root, "state", state, sizeof(state));
	tree_value(tree_root, "phys_state", phys, sizeof(phys));
	CHECK_EQ(atoi(state), PORT_STATE_ACTIVE);
	CHECK_EQ(atoi(phys), PHYS_STATE_LINKUP);
	CHECK_EQ(umad_sim_node_down("Hca1"), 0);
	tree_value(tree_root, "state", state, sizeof(state));
	CHECK_EQ(atoi(state), PORT_STATE_DOWN);
	/* A drop shows nowhere in the tree; the call still works. */
	CHECK_EQ(umad_sim_drop_rate("Hca1", 1, 0.5, 1), 0);
	umad_done();
	return 0;
}

/*
 * Run child (on the sim backend) attached at a server process of its own,
 * in a fresh directory (dir/s/socket; tree_root dir/tree), then stop it.
 */
static void run_child_on_server(int (*child)(void))
{
	struct own_server o;
	struct child_result res;

	start_own_server(&o, 0);
	setenv("UMAD_SIM_FABRIC", o.path, 1);
	run_child(child, "sim", MODULE_DIR, &res);
	unsetenv("UMAD_SIM_FABRIC");
	stop_own_server(&o);
	if (res.failure[0])
		fail_msg("%s\nchild stderr:\n%s", res.failure, res.stderr_text);
}

/*
 * A program on a shared fabric that makes a fault through libumad-sim finds
 * its own tree rewritten when the call returns, as with a fabric in the
 * process (the server's notice reaches its events thread only later).
 */
static void test_own_fault_rewrites_own_tree(void **state)
{
	(void)state;
	run_child_on_server(own_fault_child);
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

/* --- sends posted without waiting for their replies ----------------------------------------- */

/* In the child: attached at Hca1, its port open, a directed-route SMP agent there.  0 or -1. */
static int attach_agent(const char *host, int mgmt_class, int *portid, int *agent)
{
	setenv("UMAD_SIM_HOST", host, 1);
	CHECK_EQ(umad_init(), 0);
	*portid = umad_open_port(NULL, 0);
	CHECK(*portid >= 0);
	*agent = umad_register(*portid, mgmt_class, 1, 0, NULL);
	CHECK(*agent >= 0);
	return 0;
}

static int attach_dr_agent(int *portid, int *agent)
{
	return attach_agent("Hca1", UMAD_CLASS_SUBN_DIRECTED_ROUTE, portid, agent);
}

/* The transaction ID of a umad buffer's MAD (its low word). */
static uint32_t tid_of(const uint8_t *umad)
{
	return get_be32(umad_get_mad((void *)umad) + MAD_OFF_TID + 4);
}

static void set_tid(uint8_t *umad, uint32_t tid)
{
	put_be32(umad_get_mad(umad) + MAD_OFF_TID + 4, tid);
}

struct blocked_recv {
	int portid, agent, len;
	uint8_t umad[512];
	int got;
};

static void *recv_forever(void *arg)
{
	struct blocked_recv *b = arg;

	b->len = 256;
	b->got = umad_recv(b->portid, b->umad, &b->len, -1);
	return NULL;
}

/* The server, stopped by the test, goes on a moment later. */
static void *continue_server(void *arg)
{
	(void)arg;
	usleep(200000);
	kill(server_pid, SIGCONT);
	return NULL;
}

/*
 * What a program sees of SMPs sent back to back is what it saw when each
 * send waited for its reply: every reply, in the order sent, a receive
 * that does not wait included; a twin of a request still outstanding
 * refused; a receive blocked in another thread, and a descriptor the
 * program polls itself, woken by a reply.
 */
static int posted_sends_child(void)
{
	enum { N = 3 * FP_MAILBOX_SLOTS / 2 };
	uint8_t umad[512];
	struct blocked_recv b;
	struct pollfd pfd;
	struct timespec until;
	pthread_t thread;
	int portid, agent, len, i;

	/* Posting is the server's way: this process must not answer the SMPs itself. */
	setenv("UMAD_SIM_FABRIC_SMP", "server", 1);
	CHECK_EQ(attach_dr_agent(&portid, &agent), 0);

	/* More than the mailbox holds, then their replies. */
	for (i = 0; i < N; i++) {
		dr_nodeinfo(umad, agent);
		set_tid(umad, 100 + i);
		CHECK_EQ(umad_send(portid, agent, umad, 256, 500, 0), 0);
	}
	for (i = 0; i < N; i++) {
		len = 256;
		CHECK_EQ(umad_recv(portid, umad, &len, 1000), agent);
		CHECK_EQ(umad_status(umad), 0);
		CHECK_EQ(tid_of(umad), 100 + i);
	}

	/* A receive that does not wait finds the reply there; so does a poll of no time. */
	dr_nodeinfo(umad, agent);
	set_tid(umad, 200);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 500, 0), 0);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 0), agent);
	CHECK_EQ(tid_of(umad), 200);
	dr_nodeinfo(umad, agent);
	set_tid(umad, 201);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 500, 0), 0);
	CHECK_EQ(umad_poll(portid, 0), 0);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 0), agent);
	CHECK_EQ(tid_of(umad), 201);

	/* A request nobody answers (a directed route on to a port the switch lacks) stays outstanding. */
	dr_nodeinfo(umad, agent);
	set_tid(umad, 300);
	((uint8_t *)umad_get_mad(umad))[SMP_OFF_HOP_CNT] = 2;
	((uint8_t *)umad_get_mad(umad))[SMP_OFF_INITIAL_PATH + 1] = 1;
	((uint8_t *)umad_get_mad(umad))[SMP_OFF_INITIAL_PATH + 2] = 250;
	CHECK_EQ(umad_send(portid, agent, umad, 256, 100, 0), 0);
	CHECK(umad_send(portid, agent, umad, 256, 100, 0) < 0);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 2000), agent);
	CHECK_EQ(umad_status(umad), ETIMEDOUT);
	CHECK_EQ(tid_of(umad), 300);

	/*
	 * The same while the server cannot answer yet (stopped): the twin
	 * waits for the first's reply, which says it is still outstanding.
	 */
	CHECK_EQ(kill(server_pid, SIGSTOP), 0);
	set_tid(umad, 301);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 100, 0), 0);
	CHECK_EQ(pthread_create(&thread, NULL, continue_server, NULL), 0);
	CHECK(umad_send(portid, agent, umad, 256, 100, 0) < 0);
	CHECK_EQ(pthread_join(thread, NULL), 0);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 2000), agent);
	CHECK_EQ(umad_status(umad), ETIMEDOUT);
	CHECK_EQ(tid_of(umad), 301);

	/* Its timeout counts from the send, not from when the program looks. */
	set_tid(umad, 302);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 100, 0), 0);
	usleep(300000);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 0), agent);
	CHECK_EQ(umad_status(umad), ETIMEDOUT);
	CHECK_EQ(tid_of(umad), 302);

	/* A thread blocked in a receive gets a reply to another thread's send. */
	memset(&b, 0, sizeof(b));
	b.portid = portid;
	b.agent = agent;
	CHECK_EQ(pthread_create(&thread, NULL, recv_forever, &b), 0);
	usleep(100000);					/* in its wait by now, mostly */
	dr_nodeinfo(umad, agent);
	set_tid(umad, 400);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 500, 0), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	if (pthread_timedjoin_np(thread, NULL, &until)) {
		fprintf(stderr, "the blocked receive never got the reply\n");
		_exit(1);	/* the thread still waits: no clean return */
	}
	CHECK_EQ(b.got, agent);
	CHECK_EQ(tid_of(b.umad), 400);

	/* The program polls the descriptor itself: a reply makes it readable. */
	pfd.fd = umad_get_fd(portid);
	pfd.events = POLLIN;
	dr_nodeinfo(umad, agent);
	set_tid(umad, 500);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 500, 0), 0);
	CHECK_EQ(poll(&pfd, 1, 2000), 1);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 0), agent);
	CHECK_EQ(tid_of(umad), 500);

	umad_close_port(portid);
	umad_done();
	return 0;
}

static void test_posted_sends(void **state)
{
	(void)state;
	run_child_on_server(posted_sends_child);
}

/* --- SMPs answered by the client, on the fabric it maps ----------------------------------- */

/* A directed-route SMP of no hops to this port: method, attribute, modifier, and data. */
static void dr_smp(uint8_t *umad, int agent, uint8_t method, uint16_t attr, uint32_t mod,
		   const uint8_t *data, uint32_t tid)
{
	uint8_t *mad = umad_get_mad(umad);

	dr_nodeinfo(umad, agent);
	mad[3] = method;
	put_be16(mad + MAD_OFF_ATTR_ID, attr);
	put_be32(mad + MAD_OFF_ATTR_MOD, mod);
	set_tid(umad, tid);
	if (data)
		memcpy(mad + SMP_OFF_DATA, data, SMP_DATA_SIZE);
}

/*
 * Stop the server while it sleeps: between requests it holds no lock of
 * the fabric's, where a stop just after a reply could catch it holding one.
 */
static int stop_server_asleep(void)
{
	char path[64], stat[256], *state;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)server_pid);
	for (i = 0; i < 1000; i++) {
		FILE *f = fopen(path, "r");

		if (!f)
			return -1;
		state = fgets(stat, sizeof(stat), f) ? strrchr(stat, ')') : NULL;
		fclose(f);
		if (state && state[1] == ' ' && state[2] == 'S')
			return kill(server_pid, SIGSTOP);
		usleep(1000);
	}
	return -1;
}

/*
 * SMPs the SMA answers are carried by the client, on the fabric it maps:
 * with the server stopped, a Get is answered all the same.  A Set changes
 * the fabric every process shares: the server, told after it goes on,
 * has the sysfs tree of the client attached there rewritten, and reads
 * the new LID itself.
 */
static int local_smps_child(void)
{
	uint8_t umad[512], data[SMP_DATA_SIZE], *mad;
	umad_port_t port;
	char lid[32];
	int portid, agent, len, i;

	setenv("UMAD_SIM_SYSFS", tree_root, 1);
	CHECK_EQ(attach_dr_agent(&portid, &agent), 0);
	/* Were the server asked after all, the child would wait for it: it dies instead. */
	alarm(20);
	CHECK_EQ(stop_server_asleep(), 0);
	dr_smp(umad, agent, UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, NULL, 1);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 500, 0), 0);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 1000), agent);
	CHECK_EQ(umad_status(umad), 0);
	mad = umad_get_mad(umad);
	CHECK_EQ(mad[3], UMAD_METHOD_GET_RESP);
	CHECK_EQ(mad[SMP_OFF_DATA + NODEINFO_OFF_NODE_TYPE], NODE_TYPE_CA);

	/* PortInfo read, then written back with another LID. */
	dr_smp(umad, agent, UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, 1, NULL, 2);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 500, 0), 0);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 1000), agent);
	CHECK_EQ(umad_status(umad), 0);
	memcpy(data, umad_get_mad(umad) + SMP_OFF_DATA, sizeof(data));
	CHECK(get_be16(data + PORTINFO_OFF_LID) != 0x77);
	put_be16(data + PORTINFO_OFF_LID, 0x77);
	/* PortState and PortPhysicalState: no change (an SM writes no state it read). */
	data[PORTINFO_OFF_STATE] = 0;
	data[PORTINFO_OFF_PHYS_STATE] &= 0x0f;
	dr_smp(umad, agent, UMAD_METHOD_SET, UMAD_SM_ATTR_PORT_INFO, 1, data, 3);
	CHECK_EQ(umad_send(portid, agent, umad, 256, 500, 0), 0);
	len = 256;
	CHECK_EQ(umad_recv(portid, umad, &len, 1000), agent);
	CHECK_EQ(umad_status(umad), 0);
	CHECK_EQ(get_be16(umad_get_mad(umad) + SMP_OFF_DATA + PORTINFO_OFF_LID), 0x77);
	CHECK_EQ(kill(server_pid, SIGCONT), 0);

	/* The server's notice reaches this process's events thread a moment later. */
	for (i = 0; i < 300; i++) {
		len = (int)strtol(tree_value(tree_root, "lid", lid, sizeof(lid)), NULL, 0);
		if (len == 0x77)
			break;
		usleep(10000);
	}
	CHECK_EQ(len, 0x77);
	/* The server reads the same fabric. */
	CHECK_EQ(umad_get_port(NULL, 1, &port), 0);
	CHECK_EQ(port.base_lid, 0x77);
	umad_release_port(&port);
	umad_done();
	return 0;
}

static void test_client_answers_smps_itself(void **state)
{
	(void)state;
	run_child_on_server(local_smps_child);
}

/*
 * The server dies while a send of this process is posted and unanswered
 * (UMAD_SIM_FABRIC_SMP=server), with a thread blocked in a receive, or in
 * a poll, or looking without waiting: each call ends within a bound, a
 * receive with -EIO (a poll finds the port readable, and the receive then
 * says -EIO), and so does every call after it; none spins.
 */
/*
 * The end of a child whose server went, or dropped it: exit(), not a
 * return to run_child's _exit(), so that the backend's exit handler joins
 * the events thread, which ended with the connection (an ended thread
 * never joined is a leak to ThreadSanitizer).
 */
static void __attribute__((noreturn)) exit_joining_events(void)
{
	exit(0);
}

enum gone_wait { GONE_RECV, GONE_POLL, GONE_RECV_NOWAIT };
static int gone_signal;
static enum gone_wait gone_wait;

struct gone_waiter {
	int portid, result;
	uint8_t umad[512];
};

static void *wait_for_gone(void *arg)
{
	struct gone_waiter *w = arg;
	int len, i;

	switch (gone_wait) {
	case GONE_RECV:
		len = 256;
		w->result = umad_recv(w->portid, w->umad, &len, -1);
		break;
	case GONE_POLL:
		w->result = umad_poll(w->portid, -1);
		break;
	case GONE_RECV_NOWAIT:
		/* A program looking now and then: a bounded number of looks. */
		for (i = 0, w->result = -EAGAIN; i < 5000 && w->result == -EAGAIN; i++) {
			len = 256;
			w->result = umad_recv(w->portid, w->umad, &len, 0);
			if (w->result == -EAGAIN || w->result == -ETIMEDOUT)
				usleep(1000);
			if (w->result == -ETIMEDOUT)
				w->result = -EAGAIN;
		}
		break;
	}
	return NULL;
}

static int server_gone_posted_child(void)
{
	struct gone_waiter w = { 0 };
	struct timespec until;
	pthread_t thread;
	uint8_t umad[512];
	int agent, len = 256;

	setenv("UMAD_SIM_FABRIC_SMP", "server", 1);
	CHECK_EQ(attach_dr_agent(&w.portid, &agent), 0);
	/* Stopped: the send below is posted and stays unanswered. */
	CHECK_EQ(stop_server_asleep(), 0);
	dr_nodeinfo(umad, agent);
	set_tid(umad, 900);
	CHECK_EQ(umad_send(w.portid, agent, umad, 256, 500, 0), 0);
	CHECK_EQ(pthread_create(&thread, NULL, wait_for_gone, &w), 0);
	usleep(100000);		/* in its wait by now, mostly */
	CHECK_EQ(kill(server_pid, gone_signal), 0);
	if (gone_signal != SIGKILL)
		CHECK_EQ(kill(server_pid, SIGCONT), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	if (pthread_timedjoin_np(thread, NULL, &until)) {
		fprintf(stderr, "the waiting call did not end within 5 s of the server's death\n");
		_exit(1);	/* the thread still waits: no clean return */
	}
	/* A poll ends with the port readable, as a descriptor whose device went: a receive says why. */
	CHECK_EQ(w.result, gone_wait == GONE_POLL ? 0 : -EIO);
	/* Later calls end at once, and do not wait. */
	alarm(5);
	CHECK_EQ(umad_recv(w.portid, umad, &len, -1), -EIO);
	CHECK_EQ(umad_poll(w.portid, -1), 0);
	CHECK_EQ(umad_recv(w.portid, umad, &len, 0), -EIO);
	dr_nodeinfo(umad, agent);
	set_tid(umad, 901);
	CHECK(umad_send(w.portid, agent, umad, 256, 500, 0) < 0);
	alarm(0);
	umad_close_port(w.portid);
	umad_done();
	exit_joining_events();
}

static void test_server_gone_while_posted(void **state)
{
	static const int signals[] = { SIGKILL, SIGTERM };
	int run, how;

	(void)state;
	for (how = GONE_RECV; how <= GONE_RECV_NOWAIT; how++)
		for (run = 0; run < 5; run++) {
			gone_wait = (enum gone_wait)how;
			gone_signal = signals[run % 2];
			run_child_on_server(server_gone_posted_child);
		}
}

/* Where this process maps the fabric's memory (/proc/self/maps), or NULL. */
static uint8_t *mapped_fabric(void)
{
	char line[512];
	uint8_t *at = NULL;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !at && fgets(line, sizeof(line), f))
		if (strstr(line, "/memfd:umad-fabric (deleted)"))
			at = (uint8_t *)(uintptr_t)strtoull(line, NULL, 16);
	if (f)
		fclose(f);
	return at;
}

/*
 * Another process left the lock of the fabric's memory unrecoverable: an
 * SMP this process would answer itself on it fails, and says why, rather
 * than being carried without the lock.
 */
static int broken_lock_child(void)
{
	size_t off = arena_lock_offset();
	uint8_t umad[512], *m;
	int portid, agent;

	CHECK(off != (size_t)-1);
	CHECK_EQ(attach_dr_agent(&portid, &agent), 0);
	m = mapped_fabric();
	CHECK(m != NULL);
	alarm(10);
	CHECK_EQ(arena_lock_break(m + off), 0);
	dr_nodeinfo(umad, agent);
	CHECK(umad_send(portid, agent, umad, 256, 500, 0) < 0);
	CHECK_EQ(errno, ENOTRECOVERABLE);
	alarm(0);
	umad_close_port(portid);
	umad_done();
	exit_joining_events();
}

static void test_client_refuses_a_broken_lock(void **state)
{
	(void)state;
	run_child_on_server(broken_lock_child);
}

/* --- change notices flooding in while MADs are delivered -------------------------------- */

#define FLOOD_REQUESTS	20000
/*
 * Long enough for a busy machine: a response is lost or not, and a lost
 * one is caught at its first timeout.
 */
#define FLOOD_TIMEOUT_MS	10000

static uint16_t responder_lid;
static const char *flood_path;	/* the server's socket */

/* A MAD of TEST_CLASS to dlid on QP1: method, TID. */
static void test_class_mad(uint8_t *umad, int agent, uint16_t dlid, uint8_t method, uint32_t tid)
{
	uint8_t *mad = umad_get_mad(umad);

	memset(umad, 0, umad_size() + 256);
	umad_set_addr(umad, dlid, QP1_GSI, 0, UMAD_QKEY);
	((struct ib_user_mad *)umad)->agent_id = (uint32_t)agent;
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = TEST_CLASS;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = method;
	set_tid(umad, tid);
}

/* A process at Hca2 answering every Get of TEST_CLASS; its LID told on `tell`.  Never returns. */
static void responder_main(int tell)
{
	long methods[16 / sizeof(long)] = { 0 };
	uint8_t umad[512];
	umad_port_t port;
	int portid, agent, len;
	uint16_t lid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_MODULE_DIR", MODULE_DIR, 1);
	setenv("UMAD_SIM_FABRIC", flood_path, 1);
	setenv("UMAD_SIM_HOST", "Hca2", 1);
	methods[0] = 1L << UMAD_METHOD_GET;
	if (umad_init() < 0 || (portid = umad_open_port(NULL, 0)) < 0 ||
	    umad_get_port(NULL, 1, &port) < 0 ||
	    (agent = umad_register(portid, TEST_CLASS, 1, 0, methods)) < 0)
		_exit(1);
	lid = (uint16_t)port.base_lid;
	if (write(tell, &lid, sizeof(lid)) != sizeof(lid))
		_exit(1);
	for (;;) {
		struct ib_mad_addr *a = umad_get_mad_addr(umad);

		len = 256;
		if (umad_recv(portid, umad, &len, -1) < 0)
			_exit(1);
		umad_set_addr(umad, ntohs(a->lid), QP1_GSI, 0, UMAD_QKEY);
		((uint8_t *)umad_get_mad(umad))[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
		umad_send(portid, agent, umad, 256, 0, 0);
	}
}

/* A client at Hca1 telling the server, as fast as it can, that an SMP changed Hca1.  Never returns. */
static void flooder_main(void)
{
	const char *const names[] = { "Hca1" };
	struct fabric_client c;
	struct fp_node nodes[FP_MAX_HOSTS];
	unsigned n;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (fabric_client_connect(&c, flood_path, names, 1, 0, nodes, &n, NULL) < 0 ||
	    fabric_client_map(&c, n, NULL) < 0)
		_exit(1);
	for (;;)
		if (fabric_client_note_changed(&c, c.hosts[0]->index) < 0)
			_exit(0);
}

/* In the child: FLOOD_REQUESTS Gets to the responder, one at a time; none may time out. */
static int flood_asker_child(void)
{
	uint8_t umad[512];
	int portid, agent, len, i, timeouts = 0;

	/* Each notice has the tree rewritten: the process reads them slower than they come. */
	setenv("UMAD_SIM_SYSFS", tree_root, 1);
	CHECK_EQ(attach_agent("Hca1", TEST_CLASS, &portid, &agent), 0);
	for (i = 1; i <= FLOOD_REQUESTS && !timeouts; i++) {
		test_class_mad(umad, agent, responder_lid, UMAD_METHOD_GET, (uint32_t)i);
		CHECK_EQ(umad_send(portid, agent, umad, 256, FLOOD_TIMEOUT_MS, 0), 0);
		len = 256;
		CHECK_EQ(umad_recv(portid, umad, &len, 2 * FLOOD_TIMEOUT_MS), agent);
		CHECK_EQ(tid_of(umad), i);
		if (umad_status(umad) == ETIMEDOUT)
			timeouts++;
		else
			CHECK_EQ(umad_status(umad), 0);
	}
	CHECK_EQ(timeouts, 0);
	umad_done();
	return 0;
}

/*
 * One client floods the server with FP_NOTE_CHANGED about the node where
 * another makes FLOOD_REQUESTS requests of a third's agent: every response
 * is delivered, none times out.  (Each notice was sent at once, and the
 * MADs that found the event channel full of them were dropped.)
 */
static void test_notice_flood_loses_no_mad(void **state)
{
	struct child_result res;
	struct own_server o;
	pid_t responder, flooder;
	int tell[2];

	(void)state;
	start_own_server(&o, 0);
	flood_path = o.path;
	assert_int_equal(pipe(tell), 0);
	responder = fork();
	assert_true(responder >= 0);
	if (responder == 0)
		responder_main(tell[1]);
	assert_int_equal(read(tell[0], &responder_lid, sizeof(responder_lid)),
			 (ssize_t)sizeof(responder_lid));
	close(tell[0]);
	close(tell[1]);
	flooder = fork();
	assert_true(flooder >= 0);
	if (flooder == 0)
		flooder_main();
	setenv("UMAD_SIM_FABRIC", flood_path, 1);
	run_child(flood_asker_child, "sim", MODULE_DIR, &res);
	unsetenv("UMAD_SIM_FABRIC");
	kill(flooder, SIGKILL);
	kill(responder, SIGKILL);
	waitpid(flooder, NULL, 0);
	waitpid(responder, NULL, 0);
	stop_own_server(&o);
	if (res.failure[0])
		fail_msg("%s\nchild stderr:\n%s", res.failure, res.stderr_text);
}

static void test_server_gone_gives_eio(void **state)
{
	uint8_t umad[512];
	int portid, agent, len = 256;
	struct timespec t0, t1;
	struct own_server o;

	(void)state;
	start_own_server(&o, 0);
	atexit(stop_server);
	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_SIM_FABRIC", o.path, 1);
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

	kill(o.pid, SIGKILL);
	waitpid(o.pid, NULL, 0);
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
	stop_own_server(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed_message_drops_its_sender_only),
		cmocka_unit_test(test_request_before_hello_is_refused),
		cmocka_unit_test(test_unsealed_mailbox_is_refused),
		cmocka_unit_test(test_map_and_private),
		cmocka_unit_test(test_broken_lock_stops_the_server),
		cmocka_unit_test(test_zeroed_header_stops_the_server),
		cmocka_unit_test(test_punched_header_stops_the_server),
		cmocka_unit_test(test_zeroed_root_stops_the_server),
		cmocka_unit_test(test_shrunk_header_stops_the_server),
		cmocka_unit_test(test_listen_replaces_only_a_stale_socket),
		cmocka_unit_test(test_agents_of_two_processes_clash),
		cmocka_unit_test(test_link_fault_tells_attached_clients),
		cmocka_unit_test(test_waiting_requests_are_bounded),
		cmocka_unit_test(test_long_reply_streams_while_others_are_served),
		cmocka_unit_test(test_client_dropped_from_mailbox_goes_at_once),
		cmocka_unit_test(test_stream_requests_sent_together),
		cmocka_unit_test(test_half_sent_messages_are_bounded),
		cmocka_unit_test(test_unread_events_are_bounded),
		cmocka_unit_test(test_out_of_descriptors_no_spin),
		cmocka_unit_test(test_notices_never_crowd_mads_out),
		cmocka_unit_test(test_notice_flood_loses_no_mad),
		cmocka_unit_test(test_own_fault_rewrites_own_tree),
		cmocka_unit_test(test_posted_sends),
		cmocka_unit_test(test_client_answers_smps_itself),
		cmocka_unit_test(test_client_refuses_a_broken_lock),
		cmocka_unit_test(test_server_gone_while_posted),
		cmocka_unit_test(test_server_gone_gives_eio),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
