/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The sockets of a fabric reached over TCP (fabric_tcp.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "simfabric/fabric_tcp.h"

#define HOST_NAME_MAX_LEN	253	/* a DNS name, its final dot left out */
#define LABEL_MAX_LEN		63

const char *fabric_tcp_strip_scheme(const char *fabric)
{
	size_t n = strlen(FABRIC_TCP_SCHEME);

	return fabric && strncmp(fabric, FABRIC_TCP_SCHEME, n) == 0 ? fabric + n : NULL;
}

/* host and the digits of a port, as messages show the address ("[::1]:5"). */
static const char *written(const struct fabric_tcp_addr *a, char *buf, size_t size)
{
	snprintf(buf, size, strchr(a->host, ':') ? "[%s]:%s" : "%s:%s", a->host, a->port);
	return buf;
}

/* An IPv6 address, with or without "%zone". */
static int is_ipv6(const char *host)
{
	char addr[INET6_ADDRSTRLEN];
	struct in6_addr in6;
	const char *zone = strchr(host, '%');
	size_t len = zone ? (size_t)(zone - host) : strlen(host);

	if (len >= sizeof(addr) || (zone && (zone[1] == '\0' || strlen(zone + 1) >= IF_NAMESIZE)))
		return 0;
	memcpy(addr, host, len);
	addr[len] = '\0';
	return inet_pton(AF_INET6, addr, &in6) == 1;
}

/* A host name: labels of letters, digits, '-' and '_' between dots (one may end it). */
static int is_host_name(const char *host)
{
	size_t len = strlen(host), label = 0, i;

	if (len > 0 && host[len - 1] == '.')
		len--;
	if (len == 0 || len > HOST_NAME_MAX_LEN)
		return 0;
	for (i = 0; i < len; i++) {
		char c = host[i];

		if (c == '.') {
			if (label == 0)
				return 0;
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '-' || c == '_') {
			if (++label > LABEL_MAX_LEN)
				return 0;
		} else {
			return 0;
		}
	}
	return label > 0;
}

/* Only digits and dots: what is meant as an IPv4 address, and must be one. */
static int looks_ipv4(const char *host)
{
	return strspn(host, "0123456789.") == strlen(host);
}

/* The port's digits into a->port: 0, or -EINVAL with why. */
static int parse_port(const char *text, const char *port, struct fabric_tcp_addr *a,
		      unsigned long lowest, struct umad_err *err)
{
	size_t digits = strspn(port, "0123456789");
	unsigned long value;

	if (*port == '\0')
		return umad_err_set(err, -EINVAL, "%s: no port after the ':' (1 to 65535)", text);
	if (port[digits] != '\0')
		return umad_err_set(err, -EINVAL, "%s: the port \"%s\" is not a number (1 to "
				    "65535)", text, port);
	value = digits > 5 ? 65536 : strtoul(port, NULL, 10);
	if (value < lowest || value > 65535)
		return umad_err_set(err, -EINVAL, "%s: port %s is out of range (%lu to 65535)",
				    text, port, lowest);
	snprintf(a->port, sizeof(a->port), "%lu", value);
	return 0;
}

static int parse(const char *text, struct fabric_tcp_addr *a, unsigned long lowest_port,
		 struct umad_err *err);

int fabric_tcp_parse(const char *text, struct fabric_tcp_addr *a, struct umad_err *err)
{
	return parse(text, a, 1, err);
}

int fabric_tcp_parse_listen(const char *text, struct fabric_tcp_addr *a, struct umad_err *err)
{
	return parse(text, a, 0, err);
}

static int parse(const char *text, struct fabric_tcp_addr *a, unsigned long lowest_port,
		 struct umad_err *err)
{
	const char *host, *end;
	size_t len;

	memset(a, 0, sizeof(*a));
	if (!text || !*text)
		return umad_err_set(err, -EINVAL, "an empty address: expected HOST:PORT (as "
				    "10.0.0.1:7070, [fd00::1]:7070 or fabric.example:7070)");
	if (text[0] == '[') {
		host = text + 1;
		end = strchr(host, ']');
		if (!end)
			return umad_err_set(err, -EINVAL, "%s: no ']' closing the IPv6 address", text);
		if (end[1] != ':')
			return umad_err_set(err, -EINVAL, "%s: %s", text, end[1] ?
					    "a ':' and the port must follow the ']'" :
					    "no port: expected [ADDRESS]:PORT");
	} else {
		host = text;
		end = strrchr(text, ':');
		if (!end)
			return umad_err_set(err, -EINVAL, "%s: no port: expected HOST:PORT", text);
		if (memchr(text, ':', (size_t)(end - text)))
			return umad_err_set(err, -EINVAL, "%s: an IPv6 address is written in "
					    "brackets: [ADDRESS]:PORT", text);
	}
	len = (size_t)(end - host);
	if (len == 0)
		return umad_err_set(err, -EINVAL, "%s: no host before the port (every address of "
				    "this host: 0.0.0.0:PORT or [::]:PORT)", text);
	if (len >= sizeof(a->host))
		return umad_err_set(err, -EINVAL, "%.64s...: the host is longer than %zu bytes",
				    text, sizeof(a->host) - 1);
	memcpy(a->host, host, len);
	a->host[len] = '\0';
	if (text[0] == '[') {
		if (!is_ipv6(a->host))
			return umad_err_set(err, -EINVAL, "%s: %s is not an IPv6 address", text,
					    a->host);
		a->numeric = 1;
	} else if (looks_ipv4(a->host)) {
		struct in_addr in4;

		if (inet_pton(AF_INET, a->host, &in4) != 1)
			return umad_err_set(err, -EINVAL, "%s: %s is not an IPv4 address", text,
					    a->host);
		a->numeric = 1;
	} else if (!is_host_name(a->host)) {
		return umad_err_set(err, -EINVAL, "%s: \"%s\" is not a host name (labels of "
				    "letters, digits, '-' and '_' between dots)", text, a->host);
	}
	return parse_port(text, end + 1 + (text[0] == '['), a, lowest_port, err);
}

const char *fabric_tcp_name(const struct sockaddr *sa, socklen_t len, char *buf, size_t size)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(buf, size, "(an address of family %d)", (int)sa->sa_family);
	else
		snprintf(buf, size, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
	return buf;
}

const char *fabric_tcp_local_name(int fd, char *buf, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		snprintf(buf, size, "(unknown: %s)", strerror(errno));
		return buf;
	}
	return fabric_tcp_name((struct sockaddr *)&ss, len, buf, size);
}

/* The addresses a stands for (freeaddrinfo them): 0, or -errno with why. */
static int resolve(const struct fabric_tcp_addr *a, int passive, struct addrinfo **out,
		   struct umad_err *err)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICSERV | (a->numeric ? AI_NUMERICHOST : 0) |
			    (passive ? AI_PASSIVE : 0),
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_protocol = IPPROTO_TCP,
	};
	char name[FABRIC_TCP_NAME_MAX];
	int r = getaddrinfo(a->host, a->port, &hints, out), e = errno;

	if (r == 0)
		return 0;
	*out = NULL;
	return umad_err_set(err, r == EAI_MEMORY ? -ENOMEM : r == EAI_SYSTEM ? -e : -EHOSTUNREACH,
			    "%s: cannot resolve %s: %s", written(a, name, sizeof(name)), a->host,
			    r == EAI_SYSTEM ? strerror(e) : gai_strerror(r));
}

static int same_address(const struct addrinfo *x, const struct addrinfo *y)
{
	return x->ai_addrlen == y->ai_addrlen && memcmp(x->ai_addr, y->ai_addr, x->ai_addrlen) == 0;
}

int fabric_tcp_listen(const struct fabric_tcp_addr *a, struct umad_err *err)
{
	char name[FABRIC_TCP_NAME_MAX], first[FABRIC_TCP_NAME_MAX], other[FABRIC_TCP_NAME_MAX];
	struct addrinfo *ai, *p;
	int fd, one = 1, r = resolve(a, 1, &ai, err);

	if (r < 0)
		return r;
	written(a, name, sizeof(name));
	/* Listening at a name that stands for several addresses would pick one behind the user's back. */
	for (p = ai->ai_next; p; p = p->ai_next) {
		if (!same_address(ai, p)) {
			umad_err_set(err, -EADDRNOTAVAIL, "%s: %s stands for several addresses (%s, "
				     "%s): listen at one of them", name, a->host,
				     fabric_tcp_name(ai->ai_addr, ai->ai_addrlen, first,
						     sizeof(first)),
				     fabric_tcp_name(p->ai_addr, p->ai_addrlen, other,
						     sizeof(other)));
			freeaddrinfo(ai);
			return -EADDRNOTAVAIL;
		}
	}
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (ai->ai_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		if (r == -EADDRNOTAVAIL)
			umad_err_set(err, r, "cannot listen at %s: %s is not an address of this host",
				     name, a->host);
		else
			umad_err_set(err, r, "cannot listen at %s: %s", name, strerror(-r));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return r;
	}
	freeaddrinfo(ai);
	return fd;
}

int fabric_tcp_tune(int fd, struct umad_err *err)
{
	int one = 1, idle = FABRIC_TCP_KEEPALIVE_IDLE_S, interval = FABRIC_TCP_KEEPALIVE_INTERVAL_S;
	int probes = FABRIC_TCP_KEEPALIVE_PROBES;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes)) < 0) {
		int r = -errno;

		return umad_err_set(err, r, "cannot set up the connection's socket: %s",
				    strerror(-r));
	}
	return 0;
}

int fabric_tcp_accept(int fd, char *peer, size_t peer_size, struct umad_err *err)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int c = accept4(fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int r;

	if (c < 0) {
		r = errno == EWOULDBLOCK ? -EAGAIN : -errno;
		return umad_err_set(err, r, "cannot take a connection: %s", strerror(-r));
	}
	if (peer_size > 0)
		fabric_tcp_name((struct sockaddr *)&ss, len, peer, peer_size);
	r = fabric_tcp_tune(c, err);
	if (r < 0) {
		close(c);
		return r;
	}
	return c;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * One address, within ms: the connected (still non-blocking) socket, or
 * -errno with why (the address's part of fabric_tcp_connect's reason).
 */
static int connect_one(const struct addrinfo *ai, int ms, struct umad_err *why)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			ai->ai_protocol);
	int r = 0;

	if (fd < 0) {
		r = -errno;
		return umad_err_set(why, r, "%s", strerror(-r));
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int64_t deadline = now_ms() + ms;
		socklen_t len = sizeof(r);
		int n = 0;

		r = -errno;
		while (r == -EINPROGRESS) {
			int64_t left = deadline - now_ms();

			n = left > 0 ? poll(&pfd, 1, (int)left) : 0;
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				r = -errno;
			else if (n == 0)
				r = -ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &r, &len) < 0)
				r = -errno;
			else
				r = -r;
		}
		if (r == -ETIMEDOUT && n == 0)
			umad_err_set(why, r, "no answer within %d ms", ms);
		else if (r < 0)
			umad_err_set(why, r, "%s", strerror(-r));
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int fabric_tcp_connect(const struct fabric_tcp_addr *a, int timeout_ms, struct umad_err *err)
{
	char name[FABRIC_TCP_NAME_MAX], tried[FABRIC_TCP_NAME_MAX], reasons[1024] = "";
	struct umad_err why = UMAD_ERR_INIT;
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : FABRIC_TCP_CONNECT_TIMEOUT_MS);
	struct addrinfo *ai, *p;
	size_t left_count = 0, used = 0;
	int fd = -ETIMEDOUT, r = resolve(a, 0, &ai, err);

	if (r < 0)
		return r;
	written(a, name, sizeof(name));
	for (p = ai; p; p = p->ai_next)
		left_count++;
	for (p = ai; p; p = p->ai_next, left_count--) {
		int64_t left = deadline - now_ms();

		/* The time left shared among the addresses left, so that one silent address does not take it all. */
		fd = left > 0 ? connect_one(p, (int)(left / (int64_t)left_count) + 1, &why)
			      : umad_err_set(&why, -ETIMEDOUT, "no time left");
		if (fd >= 0)
			break;
		/* Each address's reason, one after the other, in the one message. */
		used += (size_t)snprintf(reasons + used, sizeof(reasons) - used, "%s%s: %s",
					 used ? "; " : "",
					 fabric_tcp_name(p->ai_addr, p->ai_addrlen, tried,
							 sizeof(tried)), umad_err_text(&why));
		if (used >= sizeof(reasons))
			used = sizeof(reasons) - 1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return umad_err_set(err, fd, "cannot connect to the fabric at %s (%s)", name, reasons);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		r = -errno;
		umad_err_set(err, r, "cannot connect to the fabric at %s: %s", name, strerror(-r));
		close(fd);
		return r;
	}
	r = fabric_tcp_tune(fd, err);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}
