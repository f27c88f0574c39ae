/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sockets of a fabric reached over TCP (simfabric/fabric_tcp.h): the
 * address as written (each bad form refused with its own message); a
 * listening socket bound to that address alone, with its flags; a connect
 * refused, or timed out, with each address's reason; and a server's loop
 * (accept, then fabric_auth_step under epoll) against clients connecting
 * and running the blocking handshake, over 127.0.0.1 and ::1, with the
 * right key and a wrong one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "simfabric/fabric_auth.h"
#include "simfabric/fabric_tcp.h"

#define KEY_A	"the fabric's key, shared by every host\n"
#define KEY_B	"another fabric's key, not this one's\n"

#define assert_said(err, text) do { \
	if (!strstr((err), (text))) \
		fail_msg("expected '%s' in: %s", (text), (err)); } while (0)

/* --- the address as written ---------------------------------------------------------------------- */

struct good_case {
	const char *text, *host, *port;
	int numeric;
};

static void test_good_addresses(void **state)
{
	static const struct good_case cases[] = {
		{ "1.2.3.4:5", "1.2.3.4", "5", 1 },
		{ "0.0.0.0:7070", "0.0.0.0", "7070", 1 },
		{ "[::1]:5", "::1", "5", 1 },
		{ "[::]:65535", "::", "65535", 1 },
		{ "[fe80::1%veth0]:7070", "fe80::1%veth0", "7070", 1 },
		{ "[::ffff:10.0.0.1]:1", "::ffff:10.0.0.1", "1", 1 },
		{ "localhost:1", "localhost", "1", 0 },
		{ "fabric-0.fabric.umad.svc.cluster.local.:7070",
		  "fabric-0.fabric.umad.svc.cluster.local.", "7070", 0 },
		{ "node_7:007", "node_7", "7", 0 },
		{ "1e100.example:80", "1e100.example", "80", 0 },
	};
	struct fabric_tcp_addr a;
	struct umad_err err = UMAD_ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (fabric_tcp_parse(cases[i].text, &a, &err) != 0)
			fail_msg("%s refused: %s", cases[i].text, umad_err_text(&err));
		assert_string_equal(a.host, cases[i].host);
		assert_string_equal(a.port, cases[i].port);
		assert_int_equal(a.numeric, cases[i].numeric);
	}
}

struct bad_case {
	const char *text, *said;
};

static void test_bad_addresses_say_why(void **state)
{
	static char long_host[FABRIC_TCP_HOST_MAX + 8], long_label[80];
	static const struct bad_case cases[] = {
		{ "", "an empty address: expected HOST:PORT" },
		{ "1.2.3.4", "no port: expected HOST:PORT" },
		{ "fabric", "no port: expected HOST:PORT" },
		{ "1.2.3.4:", "no port after the ':'" },
		{ ":7070", "no host before the port" },
		{ "1.2.3.4:0", "port 0 is out of range (1 to 65535)" },
		{ "1.2.3.4:65536", "port 65536 is out of range" },
		{ "1.2.3.4:123456789012345678901", "is out of range" },
		{ "1.2.3.4:http", "the port \"http\" is not a number" },
		{ "1.2.3.4:-1", "the port \"-1\" is not a number" },
		{ "1.2.3.4:+5", "the port \"+5\" is not a number" },
		{ "1.2.3.4:5 ", "the port \"5 \" is not a number" },
		{ "::1:5", "an IPv6 address is written in brackets" },
		{ "fe80::1:7070", "an IPv6 address is written in brackets" },
		{ "[::1]", "no port: expected [ADDRESS]:PORT" },
		{ "[::1]5", "a ':' and the port must follow the ']'" },
		{ "[::1:5", "no ']' closing the IPv6 address" },
		{ "[]:5", "no host before the port" },
		{ "[1.2.3.4]:5", "1.2.3.4 is not an IPv6 address" },
		{ "[fabric]:5", "fabric is not an IPv6 address" },
		{ "[fe80::1%]:5", "is not an IPv6 address" },
		{ "1.2.3.256:5", "1.2.3.256 is not an IPv4 address" },
		{ "1.2.3:5", "1.2.3 is not an IPv4 address" },
		{ "10:5", "10 is not an IPv4 address" },
		{ "bad host:5", "\"bad host\" is not a host name" },
		{ "a..b:5", "\"a..b\" is not a host name" },
		{ ".a:5", "is not a host name" },
		{ "a/b:5", "is not a host name" },
		{ "h\xc3\xa9te:5", "is not a host name" },
		{ long_label, "is not a host name" },
		{ long_host, "the host is longer than 255 bytes" },
	};
	struct fabric_tcp_addr a;
	struct umad_err err = UMAD_ERR_INIT;
	size_t i;

	(void)state;
	memset(long_label, 'x', 64);
	snprintf(long_label + 64, sizeof(long_label) - 64, ".example:5");
	memset(long_host, 'y', FABRIC_TCP_HOST_MAX);
	snprintf(long_host + FABRIC_TCP_HOST_MAX, sizeof(long_host) - FABRIC_TCP_HOST_MAX, ":5");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		umad_err_clear(&err);
		if (fabric_tcp_parse(cases[i].text, &a, &err) != -EINVAL)
			fail_msg("%s was taken", cases[i].text);
		assert_said(umad_err_text(&err), cases[i].said);
	}
	assert_int_equal(fabric_tcp_parse(NULL, &a, &err), -EINVAL);
}

static void test_scheme(void **state)
{
	(void)state;
	assert_string_equal(fabric_tcp_strip_scheme("tcp:10.0.0.1:7070"), "10.0.0.1:7070");
	assert_string_equal(fabric_tcp_strip_scheme("tcp:"), "");
	assert_null(fabric_tcp_strip_scheme("/run/user/0/umad-fabric/socket"));
	assert_null(fabric_tcp_strip_scheme("TCP:1.2.3.4:5"));
	assert_null(fabric_tcp_strip_scheme(NULL));
}

/* --- sockets --------------------------------------------------------------------------------------- */

/* An address of host with port 0 (the system picks one; fabric_tcp_parse refuses 0). */
static void any_port(struct fabric_tcp_addr *a, const char *host)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->host, sizeof(a->host), "%s", host);
	snprintf(a->port, sizeof(a->port), "0");
	a->numeric = 1;
}

/* Listen at host, port chosen: the socket, the address it got in *bound; -1 when host is not here. */
static int listen_any(const char *host, struct fabric_tcp_addr *bound)
{
	struct fabric_tcp_addr a;
	struct umad_err err = UMAD_ERR_INIT;
	char name[FABRIC_TCP_NAME_MAX];
	int fd;

	any_port(&a, host);
	fd = fabric_tcp_listen(&a, &err);
	if (fd == -EADDRNOTAVAIL || fd == -EAFNOSUPPORT)
		return -1;
	if (fd < 0)
		fail_msg("%s", umad_err_text(&err));
	fabric_tcp_local_name(fd, name, sizeof(name));
	if (fabric_tcp_parse(name, bound, &err) < 0)
		fail_msg("%s: %s", name, umad_err_text(&err));
	return fd;
}

static int int_option(int fd, int level, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	assert_int_equal(getsockopt(fd, level, name, &v, &len), 0);
	return v;
}

/* The listening socket: CLOEXEC, NONBLOCK, SO_REUSEADDR, IPv6 alone for [::]; where asked. */
static void test_listening_socket(void **state)
{
	struct fabric_tcp_addr bound, a;
	struct umad_err err = UMAD_ERR_INIT;
	char name[FABRIC_TCP_NAME_MAX];
	int fd, again;

	(void)state;
	fd = listen_any("127.0.0.1", &bound);
	assert_true(fd >= 0);
	assert_string_equal(bound.host, "127.0.0.1");
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_int_equal(int_option(fd, SOL_SOCKET, SO_REUSEADDR), 1);
	assert_int_equal(int_option(fd, SOL_SOCKET, SO_ACCEPTCONN), 1);
	/* The same address again: in use, said so. */
	again = fabric_tcp_listen(&bound, &err);
	assert_int_equal(again, -EADDRINUSE);
	assert_said(umad_err_text(&err), "cannot listen at 127.0.0.1:");
	close(fd);
	/* An address that is not this host's (TEST-NET-1). */
	assert_int_equal(fabric_tcp_parse("192.0.2.1:7070", &a, &err), 0);
	assert_int_equal(fabric_tcp_listen(&a, &err), -EADDRNOTAVAIL);
	assert_said(umad_err_text(&err), "cannot listen at 192.0.2.1:7070: 192.0.2.1 is not an "
		    "address of this host");
	fd = listen_any("::", &bound);
	if (fd < 0)
		return;		/* no IPv6 here */
	assert_int_equal(int_option(fd, IPPROTO_IPV6, IPV6_V6ONLY), 1);
	fabric_tcp_local_name(fd, name, sizeof(name));
	assert_memory_equal(name, "[::]:", 5);
	close(fd);
}

/* A name standing for several addresses is refused for listening; one address is taken. */
static void test_listen_at_a_name(void **state)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *p;
	struct fabric_tcp_addr a;
	struct umad_err err = UMAD_ERR_INIT;
	int distinct = 0, fd;

	(void)state;
	assert_int_equal(fabric_tcp_parse("localhost:1", &a, &err), 0);
	snprintf(a.port, sizeof(a.port), "0");
	if (getaddrinfo("localhost", "0", &hints, &ai) != 0)
		skip();
	for (p = ai; p; p = p->ai_next)
		distinct += p == ai || p->ai_addrlen != ai->ai_addrlen ||
			    memcmp(p->ai_addr, ai->ai_addr, ai->ai_addrlen) != 0;
	freeaddrinfo(ai);
	fd = fabric_tcp_listen(&a, &err);
	if (distinct > 1) {
		assert_int_equal(fd, -EADDRNOTAVAIL);
		assert_said(umad_err_text(&err), "localhost stands for several addresses");
		assert_said(umad_err_text(&err), "listen at one of them");
	} else {
		if (fd < 0)
			fail_msg("%s", umad_err_text(&err));
		close(fd);
	}
}

/* Nobody listening: refused, with the address tried and the reason. */
static void test_connect_refused(void **state)
{
	struct fabric_tcp_addr bound;
	struct umad_err err = UMAD_ERR_INIT;
	char expect[128];
	int fd = listen_any("127.0.0.1", &bound);

	(void)state;
	close(fd);
	assert_int_equal(fabric_tcp_connect(&bound, 1000, &err), -ECONNREFUSED);
	snprintf(expect, sizeof(expect), "cannot connect to the fabric at 127.0.0.1:%s "
		 "(127.0.0.1:%s: Connection refused)", bound.port, bound.port);
	assert_said(umad_err_text(&err), expect);
}

/* A listener whose backlog is full drops the connection's SYN: the connect gives up in time. */
static void test_connect_times_out(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	struct fabric_tcp_addr a;
	struct umad_err err = UMAD_ERR_INIT;
	char text[64];
	int l, filler[4], i, fd;
	struct timespec t0, t1;
	long ms;

	(void)state;
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(l, 0), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	/* Fill the backlog: connections not accepted. */
	for (i = 0; i < 4; i++) {
		filler[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		connect(filler[i], (struct sockaddr *)&sin, sizeof(sin));
	}
	usleep(100 * 1000);
	snprintf(text, sizeof(text), "127.0.0.1:%u", (unsigned)ntohs(sin.sin_port));
	assert_int_equal(fabric_tcp_parse(text, &a, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = fabric_tcp_connect(&a, 200, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	if (fd >= 0)
		fail_msg("connected to a full backlog (%s)", text);
	assert_int_equal(fd, -ETIMEDOUT);
	assert_said(umad_err_text(&err), "no answer within");
	assert_said(umad_err_text(&err), text);
	assert_true(ms >= 150 && ms < 2000);
	for (i = 0; i < 4; i++)
		close(filler[i]);
	close(l);
}

/* --- a server's loop and its clients, over TCP ------------------------------------------------------ */

struct tcp_client {
	const struct fabric_tcp_addr *addr;
	const struct fabric_key *key;
	int rc;
	int nodelay, keepalive, cloexec, nonblock;
	struct umad_err err;
	char reply[8];
};

/* Connect, check the socket's options, run the handshake, then "ping" for "pong". */
static void *client_main(void *arg)
{
	struct tcp_client *c = arg;
	int fd = fabric_tcp_connect(c->addr, 2000, &c->err);

	c->rc = fd;
	if (fd < 0)
		return NULL;
	c->nodelay = int_option(fd, IPPROTO_TCP, TCP_NODELAY);
	c->keepalive = int_option(fd, SOL_SOCKET, SO_KEEPALIVE);
	c->cloexec = !!(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	c->nonblock = !!(fcntl(fd, F_GETFL) & O_NONBLOCK);
	c->rc = fabric_auth_handshake(fd, FABRIC_AUTH_CLIENT, c->key, 2000, &c->err);
	if (c->rc == 0 && (write(fd, "ping", 4) != 4 || read(fd, c->reply, 4) != 4))
		c->rc = -EIO;
	close(fd);
	return NULL;
}

/* What the server's loop saw of one connection. */
struct served {
	int rc;
	char peer[FABRIC_TCP_NAME_MAX];
	char err[512];
	int nodelay, keepalive;
};

/*
 * One connection served as the fabric's server will: accepted from the
 * epoll loop, the handshake stepped on each event, then "ping" answered.
 */
static void serve_one(int listen_fd, const struct fabric_key *key, struct served *out)
{
	int ep = epoll_create1(EPOLL_CLOEXEC), fd = -1, r = 0;
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = listen_fd };
	struct fabric_auth *a = NULL;
	struct umad_err err = UMAD_ERR_INIT;

	assert_true(ep >= 0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &ev), 0);
	for (;;) {
		struct epoll_event got;
		unsigned events;
		int n = epoll_wait(ep, &got, 1, a ? fabric_auth_ms_left(a) : 5000);

		assert_true(n >= 0);
		if (!a) {
			assert_int_equal(n, 1);
			fd = fabric_tcp_accept(listen_fd, out->peer, sizeof(out->peer), &err);
			if (fd < 0)
				fail_msg("%s", umad_err_text(&err));
			out->nodelay = int_option(fd, IPPROTO_TCP, TCP_NODELAY);
			out->keepalive = int_option(fd, SOL_SOCKET, SO_KEEPALIVE);
			if (fabric_auth_new(FABRIC_AUTH_SERVER, key, 2000, &a, &err) < 0)
				fail_msg("%s", umad_err_text(&err));
			ev.data.fd = fd;
			ev.events = 0;
			assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
		}
		r = fabric_auth_step(a, fd, &events);
		if (r != 0)
			break;
		ev.events = events;
		assert_int_equal(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev), 0);
	}
	out->rc = r;
	snprintf(out->err, sizeof(out->err), "%s", fabric_auth_error(a));
	if (r == 1) {
		char got[4];

		assert_int_equal(fcntl(fd, F_SETFL, 0), 0);
		assert_int_equal(read(fd, got, 4), 4);
		assert_memory_equal(got, "ping", 4);
		assert_int_equal(write(fd, "pong", 4), 4);
	}
	fabric_auth_free(a);
	close(fd);
	close(ep);
}

/* At host (skipped when it is not here): the right key gets through, a wrong one is refused. */
static void handshake_at(const char *host)
{
	struct fabric_key *ka = NULL, *kb = NULL;
	struct fabric_tcp_addr bound;
	char path[] = "/tmp/umad-tcp-key.XXXXXX";
	struct umad_err err = UMAD_ERR_INIT;
	int l = listen_any(host, &bound), k, fd;

	if (l < 0)
		skip();
	for (k = 0; k < 2; k++) {
		const char *text = k ? KEY_B : KEY_A;

		fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		close(fd);
		if (fabric_key_load(path, k ? &kb : &ka, &err) < 0)
			fail_msg("%s", umad_err_text(&err));
		unlink(path);
		snprintf(path, sizeof(path), "/tmp/umad-tcp-key.XXXXXX");
	}
	for (k = 0; k < 2; k++) {
		struct tcp_client c = { .addr = &bound, .key = k ? kb : ka };
		struct served s;
		pthread_t t;

		assert_int_equal(pthread_create(&t, NULL, client_main, &c), 0);
		serve_one(l, ka, &s);
		pthread_join(t, NULL);
		assert_true(s.nodelay && s.keepalive);
		assert_true(c.nodelay && c.keepalive && c.cloexec && !c.nonblock);
		assert_memory_equal(s.peer, strchr(host, ':') ? "[" : host,
				    strchr(host, ':') ? 1 : strlen(host));
		if (k == 0) {
			if (c.rc != 0)
				fail_msg("client: %s", umad_err_text(&c.err));
			assert_int_equal(s.rc, 1);
			assert_memory_equal(c.reply, "pong", 4);
		} else {
			assert_int_equal(s.rc, -EKEYREJECTED);
			assert_said(s.err, "the peer (the client) does not know the fabric's key");
			assert_int_equal(c.rc, -ECONNREFUSED);
			assert_said(umad_err_text(&c.err), "the server refused the handshake: the "
				    "client does not know the fabric's key");
		}
	}
	close(l);
	fabric_key_free(ka);
	fabric_key_free(kb);
}

static void test_handshake_over_ipv4(void **state)
{
	(void)state;
	handshake_at("127.0.0.1");
}

static void test_handshake_over_ipv6(void **state)
{
	(void)state;
	handshake_at("::1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_addresses),
		cmocka_unit_test(test_bad_addresses_say_why),
		cmocka_unit_test(test_scheme),
		cmocka_unit_test(test_listening_socket),
		cmocka_unit_test(test_listen_at_a_name),
		cmocka_unit_test(test_connect_refused),
		cmocka_unit_test(test_connect_times_out),
		cmocka_unit_test(test_handshake_over_ipv4),
		cmocka_unit_test(test_handshake_over_ipv6),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
