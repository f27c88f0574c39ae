/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A connection to a shared fabric (`umad fabric serve`): the sim backend's
 * when UMAD_SIM_FABRIC names one, and the umad command's.  Requests are
 * serialised by the connection's lock: on the connection one at a time,
 * each waiting for its reply; sends through the mailbox, or over TCP on the
 * connection, up to FP_MAILBOX_SLOTS may be posted before their replies
 * are read (fabric_client_post), in order with the others.  The event channel is read by the
 * owner.
 */
#ifndef SIMFABRIC_FABRIC_CLIENT_H
#define SIMFABRIC_FABRIC_CLIENT_H

#include <pthread.h>
#include <stddef.h>
#include <sys/un.h>

#include "base/errbuf.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/peer_wait.h"

/* Where a server is: a socket path, or tcp:HOST:PORT. */
#define FABRIC_CLIENT_WHERE_MAX	320

/*
 * How long attaching waits for a server (taking the connection, each
 * reply of the attach) before it gives up with a message: a server that
 * is stopped, or never answers, is not waited for for ever.
 */
#define FABRIC_ATTACH_TIMEOUT_MS	5000
/* FABRIC_ATTACH_TIMEOUT_MS; tests shorten it. */
extern int fabric_client_attach_timeout_ms;

struct fabric_client {
	int fd;				/* requests and replies */
	int event_fd;			/* FP_DELIVER, FP_NODE_CHANGED */
	int stream;			/* over TCP: both are streams, nothing mapped */
	pthread_mutex_t lock;		/* one request at a time */
	struct fp_reader reply;		/* the last reply, under lock */
	int broken;			/* the server went away: every request fails with -EIO */
	struct fp_mailbox *mb;		/* the fast path for sends (fabric_proto.h), or NULL */
	int doorbell_fd;		/* rung when the server sleeps (FP_DOORBELL); -1: FP_KICK */
	uint32_t mb_seq;		/* the number of the last request posted there */
	uint32_t mb_read;		/* the number of the last request whose reply was read */
	struct peer_wait reply_wait;	/* when a wait for a reply spins (peer_wait.h), under lock */
	uint32_t server_cpu;		/* where the server answered last over TCP (fp_result) */
	/* Sleeps for a mailbox's answer, and those it ended without a wake-up (for tests). */
	uint64_t sleeps, unwoken;
	/*
	 * Requests posted without waiting (fabric_client_post): the owner's
	 * cookie for each, and what it does with a reply, called with the lock
	 * held and the reply in c->reply.
	 */
	void *cookies[FP_MAILBOX_SLOTS];
	void (*on_answer)(struct fabric_client *c, void *cookie);
	/* The fabric's model mapped here (fabric_client_map), or NULL. */
	struct sim_arena *arena;
	struct sim_fabric *fabric;
	struct sim_node *hosts[FP_MAX_HOSTS];
	char path[FABRIC_CLIENT_WHERE_MAX];	/* the server's socket, or tcp:HOST:PORT */
};

/* The socket path of UMAD_SIM_FABRIC, or of the default server; 0 or -ENAMETOOLONG. */
int fabric_default_socket(char *path, size_t size);

/*
 * Connect to the server at path and attach at the nodes named (none: the
 * CLI's control connection).  nodes[] receives what the server knows of
 * each (n_names of them; the first CA when n_names is 0 and attach_default).
 * 0 or -errno with a message in err.
 *
 * Before anything is sent, the server is checked (fabric_trust.h): the
 * socket's directory is this user's and closed to others' writes (not a
 * symbolic link), the socket is this user's, and so is the process
 * listening there (SO_PEERCRED); the event channel it hands over is a
 * packet socket of this user's.  Each step waits
 * fabric_client_attach_timeout_ms at most (-ETIMEDOUT).
 *
 * path "tcp:HOST:PORT" reaches a server over TCP: both connections (the
 * second is the event channel) begin with the handshake proving both ends
 * hold the key UMAD_SIM_FABRIC_KEY names (fabric_auth.h, fabric_key.h).
 */
int fabric_client_connect(struct fabric_client *c, const char *path, const char *const *names,
			  unsigned n_names, int attach_default, struct fp_node *nodes,
			  unsigned *n_nodes, struct umad_err *err);
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

/*
 * Sends without waiting for their replies, so that a program works while
 * the server answers (it may have FP_MAILBOX_SLOTS of them posted).  The
 * caller holds c->lock (fabric_client_lock) and has set c->on_answer.
 *
 * fabric_client_post: post an FP_SEND (head then tail, within
 * FP_MAILBOX_ROOM) whose reply goes to on_answer(c, cookie) when read;
 * when every slot is taken, the oldest reply is read first.  Through the
 * mailbox, or over TCP on the connection (fabric_client_can_post).  0, or
 * -EIO (the server is gone, or neither).
 *
 * fabric_client_collect: read the replies of posted requests, oldest
 * first, handing each to on_answer: those already there (READY), and
 * waiting for the oldest (OLDEST) or for all (ALL).  0 or -EIO.
 *
 * Once the server is gone (c->broken), the posted requests are forgotten
 * (fabric_client_posted() is 0): their cookies never reach on_answer.
 *
 * fabric_client_request reads every posted reply before its own request.
 */
enum fabric_collect { FABRIC_COLLECT_READY, FABRIC_COLLECT_OLDEST, FABRIC_COLLECT_ALL };
void fabric_client_lock(struct fabric_client *c);
int fabric_client_post(struct fabric_client *c, const void *head, size_t head_len,
		       const void *tail, size_t tail_len, void *cookie);
int fabric_client_collect(struct fabric_client *c, enum fabric_collect wait);
/* Can requests be posted (a mailbox, or a TCP connection)? */
static inline int fabric_client_can_post(const struct fabric_client *c)
{
	return c->mb || c->stream;
}
/* How many posted requests' replies are still to be read (lock held). */
static inline unsigned fabric_client_posted(const struct fabric_client *c)
{
	return c->mb_seq - c->mb_read;
}
/*
 * Map the fabric's model (fabric_proto.h, FP_MAP) so that the owner may
 * answer SMPs itself, right after connecting (before anything is posted):
 * c->arena, c->fabric and c->hosts (n_hosts of them, as connect attached)
 * are set.  0, or -errno with a message in err:
 * -EOPNOTSUPP (the server keeps its memory private) and -EADDRINUSE (this
 * process has something else at its address) let the owner do without;
 * anything else (memory not this user's, not sealed as an arena is, of
 * another size than its own; no answer within the attach timeout) says
 * the server is not to be trusted.
 */
int fabric_client_map(struct fabric_client *c, unsigned n_hosts, struct umad_err *err);

/* Tell the server that an SMP this process answered changed node `index` (FP_NOTE_CHANGED). */
int fabric_client_note_changed(struct fabric_client *c, size_t index);

/* A request answered by FP_RC alone: its value, or -errno. */
int fabric_client_call(struct fabric_client *c, uint32_t type, const void *body, size_t len);

/* The message of an FP_RC reply (under the lock), or "". */
const char *fabric_client_reply_text(const struct fabric_client *c, char *buf, size_t size);

#endif /* SIMFABRIC_FABRIC_CLIENT_H */
