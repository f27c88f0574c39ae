/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A peer without the fabric's key that holds a TCP server's handshake
 * slots, for tests/tcp_handshake_share.sh:
 *
 *   tcp_keyless_peer ADDR:PORT FROM[,FROM...] COUNT SECONDS hold|junk
 *	keep COUNT connections open to ADDR:PORT for SECONDS, each bound to
 *	one of the FROM addresses in turn, and open a new one as soon as the
 *	server closes one.  hold: send nothing (each holds a slot until the
 *	server's handshake time is up); junk: send bytes that are not the
 *	handshake (each fails at once).  At most RENEW_PER_S new connections
 *	a second, so that the test leaves the machine's other work some time.
 *	At the end, on stdout: "opened N closed C busy B", B the connections
 *	the server said it was busy on.  Exit 0, or 2 for a bad command line.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "simfabric/fabric_auth.h"

#define MAX_CONNECTIONS	1024
#define MAX_SOURCES	64
#define RENEW_PER_S	1000

struct conn {
	int fd;
	int connecting;
	int said_busy;
};

static struct sockaddr_in server;
static struct in_addr sources[MAX_SOURCES];
static unsigned n_sources, next_source;
static int junk;
static unsigned long opened, closed, busy;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A new connection from the next source: its descriptor, or -1 (tried again later). */
static int open_one(struct conn *c)
{
	struct sockaddr_in from = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	c->fd = -1;
	if (fd < 0)
		return -1;
	from.sin_addr = sources[next_source++ % n_sources];
	if (bind(fd, (struct sockaddr *)&from, sizeof(from)) < 0 ||
	    (connect(fd, (struct sockaddr *)&server, sizeof(server)) < 0 &&
	     errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	c->fd = fd;
	c->connecting = 1;
	c->said_busy = 0;
	opened++;
	return fd;
}

/* The connection is up: junk goes at once, or nothing. */
static void connected(struct conn *c)
{
	static const char bytes[] = "GET / HTTP/1.0\r\n\r\n";

	c->connecting = 0;
	if (junk && send(c->fd, bytes, sizeof(bytes) - 1, MSG_NOSIGNAL) < 0) {
		/* Closed already: the next read says so. */
	}
}

/* What the server sent: a busy refusal is counted; 1 when it closed the connection. */
static int server_spoke(struct conn *c)
{
	char buf[FABRIC_AUTH_REFUSAL_MAX + 1];
	ssize_t n = recv(c->fd, buf, sizeof(buf) - 1, 0);

	if (n > 0) {
		buf[n] = '\0';
		/* The reason follows the preamble and the record's header: look past the NULs. */
		for (ssize_t i = 0; i < n && !c->said_busy; i++)
			if (strncmp(buf + i, FABRIC_AUTH_BUSY, strlen(FABRIC_AUTH_BUSY)) == 0)
				c->said_busy = 1;
		return 0;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return 1;
}

static int parse_sources(char *list)
{
	char *save = NULL, *one;

	for (one = strtok_r(list, ",", &save); one; one = strtok_r(NULL, ",", &save)) {
		if (n_sources == MAX_SOURCES || inet_pton(AF_INET, one, &sources[n_sources]) != 1)
			return -1;
		n_sources++;
	}
	return n_sources ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct conn conns[MAX_CONNECTIONS];
	static struct pollfd pfd[MAX_CONNECTIONS];
	char host[64], *colon;
	unsigned count, i;
	double end, budget = 0, last;

	if (argc != 6 || (strcmp(argv[5], "hold") && strcmp(argv[5], "junk")) ||
	    snprintf(host, sizeof(host), "%s", argv[1]) >= (int)sizeof(host) ||
	    !(colon = strrchr(host, ':')) || parse_sources(argv[2]) < 0 ||
	    (count = (unsigned)atoi(argv[3])) == 0 || count > MAX_CONNECTIONS ||
	    atof(argv[4]) <= 0) {
		fprintf(stderr, "usage: %s IPV4:PORT FROM[,FROM...] COUNT SECONDS hold|junk\n",
			argv[0]);
		return 2;
	}
	*colon = '\0';
	server.sin_family = AF_INET;
	server.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &server.sin_addr) != 1) {
		fprintf(stderr, "%s: not an IPv4 address and port\n", argv[1]);
		return 2;
	}
	junk = strcmp(argv[5], "junk") == 0;
	signal(SIGPIPE, SIG_IGN);
	last = now_s();
	end = last + atof(argv[4]);
	for (i = 0; i < count; i++)
		conns[i].fd = -1;
	while (now_s() < end) {
		double t = now_s();

		/* New connections as the budget allows: RENEW_PER_S a second, a second's worth at most. */
		budget += (t - last) * RENEW_PER_S;
		if (budget > RENEW_PER_S)
			budget = RENEW_PER_S;
		last = t;
		for (i = 0; i < count; i++) {
			if (conns[i].fd < 0 && budget >= 1) {
				budget--;
				open_one(&conns[i]);
			}
			pfd[i].fd = conns[i].fd;
			pfd[i].events = conns[i].connecting ? POLLOUT : POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, count, 10) < 0 && errno != EINTR)
			break;
		for (i = 0; i < count; i++) {
			struct conn *c = &conns[i];

			if (c->fd < 0 || !pfd[i].revents)
				continue;
			if (c->connecting && (pfd[i].revents & POLLOUT) &&
			    !(pfd[i].revents & (POLLERR | POLLHUP))) {
				connected(c);
				continue;
			}
			if (c->connecting || server_spoke(c)) {
				busy += (unsigned long)c->said_busy;
				closed++;
				close(c->fd);
				c->fd = -1;
			}
		}
	}
	for (i = 0; i < count; i++)
		if (conns[i].fd >= 0)
			close(conns[i].fd);
	printf("opened %lu closed %lu busy %lu\n", opened, closed, busy);
	return 0;
}
