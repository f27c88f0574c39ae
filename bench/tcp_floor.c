/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The TCP floor of a round trip over the loopback: what the kernel's TCP
 * and a sleep and a wake-up on each side cost when the server does no work.
 *
 * One server process, single-threaded as umad fabric serve is, takes N
 * connections on 127.0.0.1 (TCP_NODELAY, as fabric_client.c sets), waits in
 * epoll_wait and answers every request at once: reads until EAGAIN, and for
 * each whole request of REQUEST_BYTES sends REPLY_BYTES back.  N client
 * processes each make COUNT round trips, one at a time: a send(2), then a
 * blocking recv(2) of the whole reply.  They begin together (a pipe
 * closed by the parent once all are connected); the figure is the
 * aggregate: all round trips over the span from the first one's beginning
 * to the last one's end.
 *
 * The sizes are a DR SMP's over the shared fabric's TCP: a frame, the send's
 * head and a 256-byte MAD each way.
 *
 * Prints: N clients, COUNT round trips each over TCP with nothing served: R per second
 * Built by bench/fabric-vs-ibsim.sh with the C compiler alone, as dr_rtt is.
 * Usage: tcp_floor N COUNT
 */
#define _GNU_SOURCE	/* accept4 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REQUEST_BYTES	320
#define REPLY_BYTES	320
#define MAX_CLIENTS	256

struct span {
	double begin, end;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "tcp_floor: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One connection's bytes of the request under way. */
struct conn {
	int fd;
	size_t got;
};

static void serve(int listen_fd, int n)
{
	struct conn conns[MAX_CLIENTS];
	struct epoll_event evs[64];
	char buf[REQUEST_BYTES * 4], reply[REPLY_BYTES] = { 0 };
	int ep = epoll_create1(EPOLL_CLOEXEC), open = 0, i;

	if (ep < 0)
		die("epoll_create1");
	for (i = 0; i < n; i++) {
		int one = 1, fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &conns[i] };

		if (fd < 0)
			die("accept4");
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		conns[i] = (struct conn){ .fd = fd };
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			die("epoll_ctl");
		open++;
	}
	while (open) {
		int k = epoll_wait(ep, evs, 64, -1);

		if (k < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < k; i++) {
			struct conn *c = evs[i].data.ptr;

			for (;;) {
				ssize_t r = recv(c->fd, buf, sizeof(buf), 0);

				if (r < 0 && errno == EAGAIN)
					break;
				if (r <= 0) {
					close(c->fd);
					open--;
					break;
				}
				for (c->got += (size_t)r; c->got >= REQUEST_BYTES; c->got -= REQUEST_BYTES)
					if (send(c->fd, reply, sizeof(reply), MSG_NOSIGNAL) != sizeof(reply))
						die("send");
			}
		}
	}
	exit(0);
}

static void client(int port, long count, int go_fd, struct span *out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char req[REQUEST_BYTES] = { 0 }, reply[REPLY_BYTES];
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long i;

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (read(go_fd, reply, 1) < 0)	/* the parent closes it: begin */
		die("read");
	out->begin = now_s();
	for (i = 0; i < count; i++) {
		size_t got = 0;

		if (send(fd, req, sizeof(req), MSG_NOSIGNAL) != sizeof(req))
			die("send");
		while (got < sizeof(reply)) {
			ssize_t r = recv(fd, reply + got, sizeof(reply) - got, 0);

			if (r <= 0)
				die("recv");
			got += (size_t)r;
		}
	}
	out->end = now_s();
	exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, go[2], listen_fd, i, status, failed = 0;
	long count = argc > 2 ? atol(argv[2]) : 10000;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	struct span *spans;
	pid_t server, pids[MAX_CLIENTS];
	double first, last;

	if (n < 1 || n > MAX_CLIENTS || count < 1) {
		fprintf(stderr, "usage: tcp_floor N COUNT   (N 1 to %d)\n", MAX_CLIENTS);
		return 2;
	}
	spans = mmap(NULL, sizeof(*spans) * (size_t)n, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (spans == MAP_FAILED)
		die("mmap");
	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(listen_fd, MAX_CLIENTS) < 0 ||
	    getsockname(listen_fd, (struct sockaddr *)&sa, &len) < 0 || pipe(go) < 0)
		die("listen");
	server = fork();
	if (server < 0)
		die("fork");
	if (server == 0) {
		close(go[1]);
		serve(listen_fd, n);
	}
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			close(go[1]);
			client(ntohs(sa.sin_port), count, go[0], &spans[i]);
		}
	}
	close(go[0]);
	/* Every client has connected once the server stops listening for more: give them a moment. */
	usleep(100000 + 5000 * n);
	close(go[1]);
	for (i = 0; i < n; i++)
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	if (waitpid(server, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		failed = 1;
	if (failed) {
		fprintf(stderr, "tcp_floor: a client or the server failed\n");
		return 1;
	}
	first = spans[0].begin;
	last = spans[0].end;
	for (i = 1; i < n; i++) {
		if (spans[i].begin < first)
			first = spans[i].begin;
		if (spans[i].end > last)
			last = spans[i].end;
	}
	printf("%d clients, %ld round trips each over TCP with nothing served: %.0f per second\n",
	       n, count, (double)count * n / (last - first));
	return 0;
}
