/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The shared fabric's protocol: what a program's sim backend (a client,
 * UMAD_SIM_FABRIC=PATH) and the umad command say to `umad fabric serve`
 * over its Unix socket.
 *
 * Transport: SOCK_SEQPACKET on a Unix socket, or a TCP stream (the
 * reader's and writer's `stream`).  A message is one or more datagrams,
 * each a struct fp_frame then a piece of the body of fp_frame.len bytes;
 * FP_MORE says another piece follows.  On a stream the datagrams follow
 * each other, delimited by their frames' lengths, and no descriptor
 * travels.  Fields are in host order: a peer on another host must be of
 * the same byte order and layout, which FP_HELLO checks (fp_hello.order).
 *
 * Long messages and memory.  A message may be as long as FP_MESSAGE_MAX,
 * which any MAD fits: a whole SA table as RMPP carries it (its
 * PayloadLength is 32 bits), so no fabric's table is refused for its size
 * (all PathRecords of a 1,344-node fabric are 115 MB, of a 4,176-node one
 * 1.1 GB).  That limit bounds no memory; flow control does.  The server
 * never waits for a client: what a socket does not take at once waits in
 * that client's queue and goes as the socket drains, while the others are
 * served.  A client whose reply waits is not served further (neither its
 * connection nor its mailbox) until it has read it, so it holds one reply
 * at most there; MADs for its agents wait on its event channel up to a
 * bound, past which they are dropped as a full receive queue drops them.
 * Over all clients the server buffers at most FABRIC_SERVER_BUFFER_MAX
 * (fabric_server.h), partial messages read and replies and events waiting
 * together, and disconnects the client with the most buffered to stay
 * within it.  A client holds the replies it asked for, read as they come.
 * A long message is read a slice at a time (fp_reader.slice), so that one
 * client sending it does not hold up the others.
 *
 * Two channels per client.  The connection itself carries requests, each
 * answered by exactly one reply before the next is sent (the client
 * serialises them).  The event channel, a socket the server hands over
 * with FP_HELLO_OK (SCM_RIGHTS), carries what arrives unasked: MADs for
 * the client's agents (FP_DELIVER) and notices that a node changed.  Over
 * TCP the client opens it: a second connection, authenticated as the
 * first, whose first request (FP_EVENTS) names the client by the token its
 * FP_HELLO_OK gave.  Over TCP nothing is mapped: no mailbox, no FP_MAP.
 *
 * A TCP connection begins with the handshake of fabric_auth.h, both ends
 * proving they hold the fabric's key; the protocol starts after it.
 *
 * The server speaks first: FP_RC 0 to a client it serves, or a negative
 * errno and why before it hangs up.
 *
 * The fast path: a client may hand a memory file with FP_HELLO, a
 * struct fp_mailbox both sides map.  Its sends (FP_SEND that fit) then go
 * through it: the client writes request number n into slot n % SLOTS and
 * raises `posted` to n; the server answers the requests in order, each
 * reply into its request's slot, raising `answered` to each number.  A
 * client may post up to FP_MAILBOX_SLOTS requests before it reads their
 * replies (a server that finds more refuses the client); it sends no
 * request on the connection while a posted one is unanswered, so requests
 * are served in the order they were made.  Neither side needs a system call
 * while the other is awake; each says when it sleeps (server_asleep: the
 * client writes to the doorbell FP_DOORBELL gave it, an eventfd the server
 * watches, or without one sends FP_KICK on the connection; client_asleep:
 * the server wakes it with a futex on `answered`).  A side looks for the other's write
 * without sleeping only while the other is seen running on another CPU
 * (server_beat advancing, server_cpu; client_spinning, client_cpu) and its
 * own CPU is not wanted (peer_wait.h); else it sleeps.  A reply too long for the mailbox goes on
 * the connection instead (resp_type 0).
 *
 * Requests and their replies:
 *   FP_HELLO {fp_hello, names}    -> FP_HELLO_OK {fp_hello_ok, fp_node x n} + event socket
 *   FP_EVENTS {fp_events}         -> FP_RC (over TCP, the first request of a second
 *                                    connection, which then carries the events)
 *   FP_GET_CA {fp_host}           -> FP_CA {fp_node, fp_port x (num_ports + 1)}
 *   FP_OPEN {fp_host}             -> FP_RC (a handle >= 0, or -errno)
 *   FP_CLOSE {fp_handle}          -> FP_RC
 *   FP_REGISTER {fp_register}     -> FP_RC (the agent's hi_tid > 0, or -errno)
 *   FP_UNREGISTER {fp_register}   -> FP_RC (req ignored)
 *   FP_SEND {fp_send, MAD}        -> FP_RESULT {fp_result, answer}
 *   FP_ISSM {fp_issm}             -> FP_RC
 *   FP_CONTROL {a fault request}  -> FP_RC (its bytes: sim_fault_encode, fault.h)
 *   FP_TEXT {fp_text}             -> FP_TEXT_REPLY {text} or FP_RC (an error)
 *   FP_MAP {fp_map}               -> FP_MAPPED {fp_mapped} + the arena's memory file
 *   FP_DOORBELL {uint32_t 0}      -> FP_RC + an eventfd (a client with a mailbox)
 * Any request may instead get FP_RC with a negative errno and a message.
 * Unanswered: FP_KICK, FP_NOTE_CHANGED {fp_note}.
 * Events: FP_DELIVER {fp_deliver, MAD}, FP_NODE_CHANGED {fp_host}.
 */
#ifndef SIMFABRIC_FABRIC_PROTO_H
#define SIMFABRIC_FABRIC_PROTO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/backend.h"
#include "simfabric/fabric.h"

#define FP_VERSION		8	/* 8: the mailbox says where each side runs; 7: FP_REGISTER answers the agent's hi_tid */
#define FP_DATAGRAM_MAX		65536u		/* one datagram, frame included */
/*
 * The longest message: a MAD whose RMPP PayloadLength is the largest
 * (2^32 - 1) with its headers, and a fixed part before it (see above).
 */
#if SIZE_MAX > UINT32_MAX
#define FP_MESSAGE_MAX		((size_t)UINT32_MAX + FP_DATAGRAM_MAX)
#else
#define FP_MESSAGE_MAX		((size_t)INT32_MAX)
#endif
#define FP_MAX_HOSTS		16		/* nodes one client attaches at */
#define FP_NAME_MAX		256		/* a node name, a NUL included */

enum fp_type {
	FP_HELLO = 1,
	FP_HELLO_OK,
	FP_RC,
	FP_GET_CA,
	FP_CA,
	FP_OPEN,
	FP_CLOSE,
	FP_REGISTER,
	FP_UNREGISTER,
	FP_SEND,
	FP_RESULT,
	FP_ISSM,
	FP_CONTROL,
	FP_TEXT,
	FP_TEXT_REPLY,
	FP_DELIVER,
	FP_NODE_CHANGED,
	FP_KICK,		/* no reply: look at the mailbox */
	FP_MAP,			/* the fabric's memory: FP_MAPPED, or FP_RC when it has none */
	FP_MAPPED,
	FP_NOTE_CHANGED,	/* no reply: a client's SMP changed a node (see fp_map) */
	FP_EVENTS,		/* over TCP: this connection is the event channel (FP_RC) */
	FP_DOORBELL,		/* the mailbox's doorbell: FP_RC with an eventfd */
	FP_TYPE_END
};

#define FP_MORE		1u	/* fp_frame.flags: the message goes on in the next datagram */

struct fp_frame {
	uint32_t type;
	uint32_t flags;
	uint32_t len;		/* bytes of the piece after the frame */
};

/* fp_hello.order: as the sender's memory holds it; a peer that reads another number differs. */
#define FP_BYTE_ORDER	0x01020304u

struct fp_hello {
	uint32_t version;
	uint32_t order;		/* FP_BYTE_ORDER */
	uint32_t n_hosts;	/* then n_hosts NUL-terminated node names */
};

struct fp_node {
	uint64_t node_guid, sys_guid;
	uint32_t type;		/* NODE_TYPE_* */
	uint32_t num_ports;
	uint32_t vendor_id, revision;
	uint16_t device_id;
	struct sim_fw_version fw;	/* all 0 where the topology named none */
	char desc[SIM_DESC_LEN + 1];
	char name[FP_NAME_MAX];	/* the topology's id, for messages */
};

#define FP_TOKEN_LEN	16

struct fp_hello_ok {
	uint32_t version;
	uint32_t n_hosts;	/* then n_hosts struct fp_node */
	/*
	 * Over TCP, where no socket can be handed over: what names this client
	 * when it opens its event channel, a second connection (FP_EVENTS).
	 * Zero on a Unix socket.
	 */
	uint8_t events_token[FP_TOKEN_LEN];
};

/* The first request on a second TCP connection: it becomes the event channel of the client named. */
struct fp_events {
	uint8_t token[FP_TOKEN_LEN];
};

struct fp_rc {
	int32_t rc;		/* then, for errors, a message (no NUL needed) */
};

struct fp_host {
	uint32_t host;		/* index into the client's FP_HELLO list */
	uint32_t port;
};

struct fp_handle {
	uint32_t handle;
};

/* A port as a device shows it: what umad_port_t and the fake sysfs need. */
struct fp_port {
	uint32_t valid;		/* 0: the node has no such port */
	uint32_t capmask;
	uint32_t rate_x10;	/* Gb/s times 10, 0 when the link is down */
	uint16_t lid, sm_lid;
	uint8_t lmc, sm_sl, state, phys_state;
	uint8_t width_active;
	uint8_t pad[3];
	uint64_t gid_prefix, guid;
	char width_name[8];
	char speed_name[16];
	uint16_t pkeys[SIM_PKEY_TABLE_SIZE];
};

struct fp_register {
	uint32_t handle;
	uint32_t agent_id;
	struct umad_agent_req req;
};

struct fp_send {
	uint32_t handle;
	uint32_t sqpn, dqpn, qkey;
	uint16_t dlid;
	uint16_t pkey_index;
	uint8_t sl;
	uint8_t pad[3];
	uint32_t wait_ms;	/* a request waits this long for its answer; 0: none awaited */
	uint32_t client_cpu;	/* where the client sent it from, plus one; 0: unknown */
};

/* The addressing a receiver's umad header shows. */
struct fp_addr {
	uint32_t sqpn, qkey;
	uint16_t slid, pkey_index;
	uint8_t sl;
	uint8_t pad[3];
};

/* SIM_NET_LOST, SIM_NET_ANSWERED (the answer follows) or SIM_NET_DELIVERED. */
struct fp_result {
	uint32_t result;
	uint32_t server_cpu;	/* where the server answered, plus one; 0: unknown (another host) */
	struct fp_addr addr;
	uint64_t delay_ns;	/* the answer arrives this much later (delayed links) */
};

struct fp_deliver {
	uint32_t host, port;	/* where it arrived, as the client's FP_HELLO named it */
	uint32_t qpn;		/* the QP it arrived on */
	struct fp_addr addr;
	uint64_t delay_ns;	/* it arrives this much later (delayed links) */
};

struct fp_issm {
	uint32_t host, port;
	uint32_t held;
};

enum fp_text_kind {
	FP_TEXT_SHOW = 1,
	FP_TEXT_SHOW_JSON,
	FP_TEXT_DUMP,
	FP_TEXT_DOT,
	FP_TEXT_END
};

struct fp_text {
	uint32_t kind;
	char filter[FP_NAME_MAX];	/* a node to show alone, or "" */
};

/*
 * What a device shows of a port and a node, as the fabric holds them now
 * (the caller refreshes CapabilityMask.IsSM first).  The rate of a link that
 * is down shows as the lowest, 1X SDR, as the kernel shows it.
 */
void fp_port_fill(struct fp_port *v, struct sim_port *p);
void fp_node_fill(struct fp_node *v, const struct sim_node *n);

/*
 * The fabric's model lives in an arena (arena.h) the server passes with
 * FP_MAPPED; a client maps it at `base` (or does without) and answers the
 * SMP requests the SMA answers (sim_net_sma_answers) itself, under the
 * arena's lock.  When such an SMP changes a node that clients are attached
 * at (sim_node.attached), or a switch whose ports changed state (it owes
 * its SM a Trap 128: sim_switch.link_trap_owed), the client tells the
 * server with FP_NOTE_CHANGED; the server tells the clients attached there
 * (FP_NODE_CHANGED) and sends the trap the switch owes.
 */
struct fp_map {
	uint32_t zero;
};

struct fp_mapped {
	uint64_t base;			/* where the arena must be mapped */
	uint64_t fabric;		/* the struct sim_fabric in it */
	uint64_t hosts[FP_MAX_HOSTS];	/* the client's nodes (struct sim_node), as FP_HELLO named them */
};

struct fp_note {
	uint64_t node;			/* its index in the fabric */
};

#define FP_MAILBOX_ROOM	4096u	/* a request, or a reply, through the mailbox */
#define FP_MAILBOX_SLOTS	8u	/* requests a client may have posted and not yet read */

/* One request and its reply: request number n uses slot n % FP_MAILBOX_SLOTS. */
struct fp_mailbox_slot {
	uint32_t req_type, req_len;
	uint32_t resp_type, resp_len;	/* resp_type 0: the reply is on the connection */
	uint8_t req[FP_MAILBOX_ROOM];
	uint8_t resp[FP_MAILBOX_ROOM];
};

struct fp_mailbox {
	_Atomic uint32_t posted;	/* the client's: number of its latest request */
	_Atomic uint32_t answered;	/* the server's: the latest request number answered */
	_Atomic uint32_t server_asleep;	/* the server waits on its sockets: kick it */
	_Atomic uint32_t client_asleep;	/* the client waits on `answered` (futex) */
	/* Whether the other side runs, and where (peer_wait.h): CPUs plus one, 0 unknown. */
	_Atomic uint32_t server_beat;	/* advanced while the server looks at the mailboxes */
	_Atomic uint32_t server_cpu;	/* where the server last looked */
	_Atomic uint32_t client_cpu;	/* where the client last posted or waited from */
	_Atomic uint32_t client_spinning;	/* the client looks for its answer without sleeping */
	struct fp_mailbox_slot slot[FP_MAILBOX_SLOTS];
};

/* A moment's pause in a loop that waits for the other side's write. */
static inline void fp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The smallest body of each message type (its fixed part); 0 for an unknown type. */
size_t fp_min_body(uint32_t type);

/* A string field is terminated within its array. */
#define FP_TERMINATED(field) (memchr((field), '\0', sizeof(field)) != NULL)

/*
 * Send a message (blocking, or with MSG_DONTWAIT in flags), in as many
 * datagrams as it takes; pass_fd >= 0 travels with the first.  0 or -errno
 * (-EAGAIN only before anything was sent; -EMSGSIZE past FP_MESSAGE_MAX).
 */
int fp_send_message(int fd, uint32_t type, const void *body, size_t len, int pass_fd,
		    int flags);

/* The same with a fixed part and a variable part after it. */
int fp_send_message2(int fd, uint32_t type, const void *head, size_t head_len, const void *tail,
		     size_t tail_len, int pass_fd, int flags);

/*
 * A message being sent a datagram at a time, for a sender that must not
 * wait (the server): it sends what the socket takes and goes on later
 * from where it stopped.  head and tail stay the caller's, and must stay
 * put until the message is sent.
 */
struct fp_writer {
	uint32_t type;
	const uint8_t *head, *tail;
	size_t head_len, tail_len;
	size_t off;		/* bytes of the body sent */
	int pass_fd;		/* travels with the first datagram; -1: none (always, on a stream) */
	int started;		/* the first datagram went */
	int stream;		/* the socket is a stream: a datagram may go in parts */
	size_t dgram_sent;	/* on a stream: bytes of the current datagram, frame included, gone */
};

void fp_writer_init(struct fp_writer *w, uint32_t type, const void *head, size_t head_len,
		    const void *tail, size_t tail_len, int pass_fd);

/*
 * Send w's datagrams until it is all sent (1) or the socket takes no more
 * (0: a non-blocking socket, or MSG_DONTWAIT in flags); -errno on an error
 * (-EMSGSIZE past FP_MESSAGE_MAX, -EINVAL for a descriptor on a stream).
 */
int fp_writer_send(int fd, struct fp_writer *w, int flags);

/* fp_send_message2 on a socket that is a stream (stream nonzero) or not. */
int fp_send_on(int fd, int stream, uint32_t type, const void *head, size_t head_len,
	       const void *tail, size_t tail_len, int pass_fd, int flags);

/* A message being received: the datagrams read so far. */
struct fp_reader {
	uint8_t *buf;
	size_t len, cap;
	uint32_t type;
	int passed_fd;		/* a descriptor that came with it, or -1 */
	int in_message;		/* datagrams of an unfinished message were read */
	size_t max;		/* the longest message taken (FP_MESSAGE_MAX unless set lower) */
	size_t slice;		/* read at most about this much of a message a call; 0: all */
	int stream;		/* the socket is a stream (set by the owner) */
	/* On a stream: the frame being read, how much of it came, and of its piece what is to come. */
	struct fp_frame frame;
	size_t frame_got, piece_left;
	/* On a stream, bytes read past what was asked for (fp_reader_read_ahead), or NULL. */
	uint8_t *ahead;
	size_t ahead_off, ahead_len;
};

/* What a stream's reader reads at once when it reads ahead. */
#define FP_READ_AHEAD	8192u

/* An empty reader: max FP_MESSAGE_MAX, no slice.  fp_reader_free leaves it so. */
void fp_reader_init(struct fp_reader *r);
void fp_reader_free(struct fp_reader *r);

/* Between messages, let go of the room a long one took (a datagram's is kept). */
void fp_reader_shrink(struct fp_reader *r);

/*
 * A stream's reader reads up to FP_READ_AHEAD bytes at once, so that a
 * message's frame and its piece come in one system call, not two.  What it
 * read past the message is kept for the next call, and the socket does not
 * show it: while fp_reader_buffered(), its owner calls again without
 * waiting for the socket.  0 or -ENOMEM.
 */
int fp_reader_read_ahead(struct fp_reader *r);
static inline int fp_reader_buffered(const struct fp_reader *r)
{
	return r->ahead_off < r->ahead_len;
}

/*
 * Read datagrams until a whole message is in r (1), or with MSG_DONTWAIT
 * until none is left or a slice of it was read (0; call again to go on).
 * -ECONNRESET when the peer closed, -EPROTO for a malformed message (wrong
 * type, a body shorter than its type's), -EMSGSIZE for one longer than
 * r->max, -ENOMEM, other -errno from recvmsg.  After 1, r->type and
 * r->buf/r->len hold the message until the next call; a passed descriptor
 * is the caller's (r->passed_fd, then set it to -1).
 */
int fp_recv_message(int fd, struct fp_reader *r, int flags);

#endif /* SIMFABRIC_FABRIC_PROTO_H */
