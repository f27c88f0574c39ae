/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sockets of a fabric reached over TCP: its address as the user
 * writes it (`umad fabric serve --listen ADDR:PORT`,
 * UMAD_SIM_FABRIC=tcp:HOST:PORT), the server's listening socket and a
 * client's connection.  Connected sockets go without Nagle's delay (a MAD
 * is a small message waiting for its answer) and with keepalive, so that
 * a peer whose host vanished is noticed (FABRIC_TCP_KEEPALIVE_*).
 *
 * Each call: 0 or a descriptor, or -errno with why (naming the address)
 * in err.
 */
#ifndef SIMFABRIC_FABRIC_TCP_H
#define SIMFABRIC_FABRIC_TCP_H

#include <stddef.h>
#include <sys/socket.h>

#include "base/errbuf.h"

#define FABRIC_TCP_SCHEME	"tcp:"	/* UMAD_SIM_FABRIC's prefix for a fabric over TCP */
#define FABRIC_TCP_HOST_MAX	256	/* a host as written, brackets left out, NUL included */
#define FABRIC_TCP_NAME_MAX	(FABRIC_TCP_HOST_MAX + 8)	/* "[host]:port" */

#define FABRIC_TCP_CONNECT_TIMEOUT_MS	10000	/* a connect's time, unless told otherwise */

/* A peer that says nothing is probed after this many seconds, ... */
#define FABRIC_TCP_KEEPALIVE_IDLE_S	10
/* ... then every this many, and given up after this many unanswered probes. */
#define FABRIC_TCP_KEEPALIVE_INTERVAL_S	5
#define FABRIC_TCP_KEEPALIVE_PROBES	3

/* An address as written: a host and a port. */
struct fabric_tcp_addr {
	char host[FABRIC_TCP_HOST_MAX];	/* IPv4, IPv6 (no brackets; "%zone" kept), or a name */
	char port[6];			/* decimal */
	int numeric;			/* host is an IPv4 or IPv6 address, not a name */
};

/*
 * The address after FABRIC_TCP_SCHEME in UMAD_SIM_FABRIC's value, or NULL
 * when the value does not start with it (a Unix socket's path).
 */
const char *fabric_tcp_strip_scheme(const char *fabric);

/*
 * Read HOST:PORT: 1.2.3.4:5, [::1]:5, [fe80::1%eth0]:5, host.example:5.
 * The port is 1 to 65535, in decimal; the host is not empty (all of a
 * host's addresses are 0.0.0.0 or [::]); an IPv6 address is in brackets;
 * a name is of letters, digits, '-' and '.', with labels of 63 at most.
 * 0 or -EINVAL with why in err.
 */
int fabric_tcp_parse(const char *text, struct fabric_tcp_addr *a, struct umad_err *err);
/* The same for an address to listen at, where port 0 lets the system choose. */
int fabric_tcp_parse_listen(const char *text, struct fabric_tcp_addr *a, struct umad_err *err);

/*
 * A socket listening at a (CLOEXEC, NONBLOCK, SO_REUSEADDR; an IPv6
 * address with IPV6_V6ONLY, so that [::] is IPv6's alone), bound to that
 * address alone.  A name must stand for one address, not several.  Port
 * "0" (which fabric_tcp_parse refuses) lets the system choose one:
 * fabric_tcp_local_name tells which.  The descriptor, or -errno.
 */
int fabric_tcp_listen(const struct fabric_tcp_addr *a, struct umad_err *err);

/*
 * Take a connection waiting at listening socket fd: the connected socket
 * (CLOEXEC, NONBLOCK, tuned as fabric_tcp_tune says), the peer's address
 * written into peer ("1.2.3.4:5", "[::1]:5") when peer_size > 0; -EAGAIN
 * when none waits, or accept4's -errno (err says why).
 */
int fabric_tcp_accept(int fd, char *peer, size_t peer_size, struct umad_err *err);

/*
 * Connect to a within timeout_ms (<= 0: FABRIC_TCP_CONNECT_TIMEOUT_MS;
 * each of its name's addresses in turn, sharing the time; the name's lookup itself is the resolver's to time):
 * a blocking CLOEXEC socket, tuned, or -errno with every address's reason
 * in err (-ETIMEDOUT when the time ran out).
 */
int fabric_tcp_connect(const struct fabric_tcp_addr *a, int timeout_ms, struct umad_err *err);

/* TCP_NODELAY and keepalive on a connected socket.  0 or -errno. */
int fabric_tcp_tune(int fd, struct umad_err *err);

/* An address as messages show it ("1.2.3.4:5", "[::1]:5"), into buf; buf. */
const char *fabric_tcp_name(const struct sockaddr *sa, socklen_t len, char *buf, size_t size);

/* The address socket fd is bound to, as fabric_tcp_name writes it (a port the system chose). */
const char *fabric_tcp_local_name(int fd, char *buf, size_t size);

#endif /* SIMFABRIC_FABRIC_TCP_H */
