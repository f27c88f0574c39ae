/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * One end of a fabric's TCP connection and its key handshake, for the
 * scripts that put the ends on different hosts (tcp_auth_netns.sh):
 *
 *   tcp_auth_peer serve ADDR:PORT KEYFILE COUNT
 *	listen at ADDR:PORT, print "listening ADDR:PORT" once it does, then
 *	take COUNT connections one after the other, stepping each handshake
 *	as the fabric's server loop does; for each, "authenticated PEER" on
 *	stdout (after "ping" is answered "pong"), or "refused PEER: WHY" on
 *	stderr.  Exit 0 when every connection got through, 1 otherwise.
 *   tcp_auth_peer connect ADDR:PORT KEYFILE
 *	connect and run the blocking handshake, then send "ping" and wait
 *	for "pong": "authenticated" on stdout and exit 0, or why on stderr
 *	and exit 1.
 * Exit 2 for a bad command line, key file or address.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simfabric/fabric_auth.h"
#include "simfabric/fabric_tcp.h"

#define TIMEOUT_MS	5000

/* Read exactly len bytes from blocking fd: 0, or -1. */
static int read_all(int fd, char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The handshake stepped as a loop that never waits does; then ping, pong. 0 or -1. */
static int serve_connection(int fd, const struct fabric_key *key, const char *peer)
{
	struct fabric_auth *a;
	struct umad_err err = UMAD_ERR_INIT;
	char ping[4];
	unsigned events;
	int r;

	if (fabric_auth_new(FABRIC_AUTH_SERVER, key, TIMEOUT_MS, &a, &err) < 0) {
		fprintf(stderr, "refused %s: %s\n", peer, umad_err_text(&err));
		return -1;
	}
	while ((r = fabric_auth_step(a, fd, &events)) == 0) {
		struct pollfd pfd = { .fd = fd, .events = (short)events };

		if (poll(&pfd, 1, fabric_auth_ms_left(a)) < 0 && errno != EINTR)
			break;
	}
	if (r != 1) {
		fprintf(stderr, "refused %s: %s\n", peer, fabric_auth_error(a));
		fabric_auth_free(a);
		return -1;
	}
	fabric_auth_free(a);
	if (fcntl(fd, F_SETFL, 0) < 0 || read_all(fd, ping, 4) < 0 || memcmp(ping, "ping", 4) ||
	    write(fd, "pong", 4) != 4) {
		fprintf(stderr, "refused %s: no ping after the handshake\n", peer);
		return -1;
	}
	printf("authenticated %s\n", peer);
	fflush(stdout);
	return 0;
}

static int serve(const struct fabric_tcp_addr *addr, const struct fabric_key *key, int count)
{
	struct umad_err err = UMAD_ERR_INIT;
	char name[FABRIC_TCP_NAME_MAX];
	int l = fabric_tcp_listen(addr, &err), failed = 0;

	if (l < 0) {
		fprintf(stderr, "%s\n", umad_err_text(&err));
		return 2;
	}
	printf("listening %s\n", fabric_tcp_local_name(l, name, sizeof(name)));
	fflush(stdout);
	while (count-- > 0) {
		struct pollfd pfd = { .fd = l, .events = POLLIN };
		char peer[FABRIC_TCP_NAME_MAX];
		int fd;

		if (poll(&pfd, 1, 30 * 1000) <= 0) {
			fprintf(stderr, "no connection came within 30 s\n");
			return 1;
		}
		fd = fabric_tcp_accept(l, peer, sizeof(peer), &err);
		if (fd == -EAGAIN) {
			count++;
			continue;
		}
		if (fd < 0) {
			fprintf(stderr, "%s\n", umad_err_text(&err));
			return 1;
		}
		failed |= serve_connection(fd, key, peer) < 0;
		close(fd);
	}
	close(l);
	return failed;
}

static int connect_to(const struct fabric_tcp_addr *addr, const struct fabric_key *key)
{
	struct umad_err err = UMAD_ERR_INIT;
	char pong[4];
	int fd = fabric_tcp_connect(addr, TIMEOUT_MS, &err);

	if (fd < 0 || fabric_auth_handshake(fd, FABRIC_AUTH_CLIENT, key, TIMEOUT_MS, &err) < 0) {
		fprintf(stderr, "%s\n", umad_err_text(&err));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (write(fd, "ping", 4) != 4 || read_all(fd, pong, 4) < 0 || memcmp(pong, "pong", 4)) {
		fprintf(stderr, "no pong after the handshake\n");
		close(fd);
		return 1;
	}
	close(fd);
	printf("authenticated\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct fabric_tcp_addr addr;
	struct fabric_key *key;
	struct umad_err err = UMAD_ERR_INIT;
	int serving = argc == 5 && strcmp(argv[1], "serve") == 0, r;

	if (!serving && !(argc == 4 && strcmp(argv[1], "connect") == 0)) {
		fprintf(stderr, "usage: %s serve ADDR:PORT KEYFILE COUNT\n"
			"       %s connect ADDR:PORT KEYFILE\n", argv[0], argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (fabric_tcp_parse(argv[2], &addr, &err) < 0 || fabric_key_load(argv[3], &key, &err) < 0) {
		fprintf(stderr, "%s\n", umad_err_text(&err));
		return 2;
	}
	r = serving ? serve(&addr, key, atoi(argv[4])) : connect_to(&addr, key);
	fabric_key_free(key);
	return r;
}
