/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The shared fabric's server (`umad fabric serve`, `umad sim`): one
 * simulated fabric for many processes.  Each client attaches at nodes of
 * the fabric, opens ports there and registers agents; its sends travel the
 * fabric here (simfabric/net.h), and what arrives for its agents goes to
 * it on its event channel (fabric_proto.h).
 *
 * Single-threaded: one loop (fabric_server_poll) serves every client; no
 * call blocks on a client.  What a client's socket does not take at once
 * waits in a queue of its own and goes as the socket drains (replies of
 * any length, whole SA tables); a client is not served further until it
 * has read its reply.  A client that sends a malformed message, runs as
 * another user, or would take the server past what it holds for all
 * clients (FABRIC_SERVER_BUFFER_MAX) is disconnected; its ports and agents
 * go with it.  Out of descriptors, newcomers are refused with the reason.
 */
#ifndef SIMFABRIC_FABRIC_SERVER_H
#define SIMFABRIC_FABRIC_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/errbuf.h"
#include "simfabric/fabric_proto.h"

struct fabric_server;

struct fabric_server_options {
	const char *topology;		/* a file, or NULL for the embedded default fabric */
	int builtin_sm;			/* bring the fabric up and run the built-in SM and SA */
	/*
	 * Keep the fabric in this process's own memory: clients cannot map it
	 * (FP_MAP is refused), so every MAD goes through the server.
	 */
	int private_memory;
	FILE *log;			/* clients coming and going, refusals; NULL: quiet */
	size_t buffer_max;		/* 0: FABRIC_SERVER_BUFFER_MAX (a test's smaller bound) */
	/* TCP handshakes' failures go in the log once in this long at most; 0: every 10 s. */
	int handshake_log_interval_ms;
	/* How far the load got (see sim_topology_options); NULL: not told. */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
};

/* Load the fabric.  0 or -errno with why in err (a topology's errors, a line each). */
int fabric_server_new(const struct fabric_server_options *opts, struct fabric_server **out,
		      struct umad_err *err);
void fabric_server_free(struct fabric_server *s);

/*
 * Listen at path: its directory is made owner-only (or must be: it is
 * refused otherwise; not a symbolic link), a stale socket of this user's
 * there (nobody listening) is replaced, a live one is -EADDRINUSE, and
 * anything else (a file, a link, another user's socket) is refused and
 * left alone.  0 or -errno with a message in err.
 */
int fabric_server_listen(struct fabric_server *s, const char *path, struct umad_err *err);

struct fabric_key;

/*
 * Listen over TCP too, at addr (HOST:PORT, [IPv6]:PORT; port 0: one the
 * system picks): every connection proves it holds key (the caller's, kept
 * until the server is freed) before anything else (fabric_auth.h).  At
 * most HANDSHAKE_SHARE_SLOTS handshakes are under way at once, and at most
 * HANDSHAKE_SHARE_PER_SOURCE from one address (an IPv6 /64): the others
 * are told the server is busy, and clients try again (handshake_share.h).
 * Failed handshakes are told in the log once an interval at most
 * (handshake_log_interval_ms), as a count.  Such clients map nothing:
 * every MAD goes through the server.  The address listened at goes in
 * name.  0 or -errno with a message in err.
 */
int fabric_server_listen_tcp(struct fabric_server *s, const char *addr,
			     const struct fabric_key *key, char *name, size_t name_size,
			     struct umad_err *err);

/* Serve a client on a connected SOCK_SEQPACKET socket (tests, fuzzing). 0 or -errno. */
int fabric_server_add_client(struct fabric_server *s, int fd);
/*
 * Serve a client on a connected stream socket as a TCP client past its
 * handshake (tests, fuzzing): welcomed, then its protocol.  0 or -errno.
 */
int fabric_server_add_stream_client(struct fabric_server *s, int fd);

/*
 * Serve for up to timeout_ms (negative: until something happens), or until
 * stop_fd (if >= 0) becomes readable: 1 then, else 0, or -errno.
 * -ENOTRECOVERABLE: the lock of the fabric's shared memory cannot be taken
 * (a client wrote over it); the server must stop.
 */
int fabric_server_poll(struct fabric_server *s, int timeout_ms, int stop_fd);

/* How many clients are connected. */
unsigned fabric_server_clients(const struct fabric_server *s);

/*
 * A request handed to an agent in another client is remembered, so that
 * its response goes back to the sender, until the response comes or the
 * sender's port closes; one whose wait is over goes when a response
 * arrives or the table is full.  At most this many at once: past it, a
 * request is not remembered and its sender times out, as if the response
 * were lost.
 */
#define FABRIC_SERVER_MAX_WAITING 65536u

/* How many requests are remembered so (tests). */
unsigned fabric_server_waiting(const struct fabric_server *s);

/*
 * What the server holds for all its clients together at most: messages
 * being read from them, and replies and MADs waiting for them to read
 * (fabric_proto.h).  Room for the longest message there is and a quarter
 * more: a whole SA table of any size RMPP carries goes to a client.  A
 * client that would take the server past it, or another that holds more,
 * is disconnected (the one holding the most), with a line in the log.
 */
#define FABRIC_SERVER_BUFFER_MAX (FP_MESSAGE_MAX + FP_MESSAGE_MAX / 4)

/* What the server holds for its clients now, in bytes (tests). */
size_t fabric_server_buffered(const struct fabric_server *s);

struct sim_node;

/*
 * The node a name (a node id, description or GUID, as a client's host is
 * named) finds in the fabric served, or NULL: for a caller to check the
 * names it will hand its clients before any connects.
 */
const struct sim_node *fabric_server_find_node(const struct fabric_server *s, const char *name);

#endif /* SIMFABRIC_FABRIC_SERVER_H */
