/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A connection to a shared fabric (`umad fabric serve`): the sim backend's
 * when UMAD_SIM_FABRIC names one, and the umad command's.  Requests are
 * serialised by the connection's lock: one at a time on the wire, each
 * waiting for its reply.  The event channel is read by the owner.
 */
#ifndef SIMFABRIC_FABRIC_CLIENT_H
#define SIMFABRIC_FABRIC_CLIENT_H

#include <pthread.h>
#include <stddef.h>

#include "simfabric/fabric_proto.h"

struct fabric_client {
	int fd;				/* requests and replies */
	int event_fd;			/* FP_DELIVER, FP_NODE_CHANGED */
	pthread_mutex_t lock;		/* one request at a time */
	struct fp_reader reply;		/* the last reply, under lock */
	int broken;			/* the server went away: every request fails with -EIO */
	struct fp_mailbox *mb;		/* the fast path for sends (fabric_proto.h), or NULL */
	uint32_t mb_seq;		/* the number of the last request posted there */
};

/* The socket path of UMAD_SIM_FABRIC, or of the default server; 0 or -ENAMETOOLONG. */
int fabric_default_socket(char *path, size_t size);

/*
 * Connect to the server at path and attach at the nodes named (none: the
 * CLI's control connection).  nodes[] receives what the server knows of
 * each (n_names of them; the first CA when n_names is 0 and attach_default).
 * 0 or -errno with a message in err.
 */
int fabric_client_connect(struct fabric_client *c, const char *path, const char *const *names,
			  unsigned n_names, int attach_default, struct fp_node *nodes,
			  unsigned *n_nodes, char *err, size_t err_size);
void fabric_client_close(struct fabric_client *c);

/*
 * Send a request (head then tail) and wait for its reply, which the caller
 * reads in c->reply while it holds c->lock (taken by this call and released
 * by fabric_client_done).  0 with the lock held, or -errno (-EIO once the
 * server is gone) without it.  When the reply is FP_RC, *rc is its value,
 * else 0.
 */
int fabric_client_request(struct fabric_client *c, uint32_t type, const void *head,
			  size_t head_len, const void *tail, size_t tail_len, int32_t *rc);
void fabric_client_done(struct fabric_client *c);

/* A request answered by FP_RC alone: its value, or -errno. */
int fabric_client_call(struct fabric_client *c, uint32_t type, const void *body, size_t len);

/* The message of an FP_RC reply (under the lock), or "". */
const char *fabric_client_reply_text(const struct fabric_client *c, char *buf, size_t size);

#endif /* SIMFABRIC_FABRIC_CLIENT_H */
