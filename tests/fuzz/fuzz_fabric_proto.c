/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the shared fabric's server, driven as hostile
 * clients drive it: up to three connections, each with a valid hello first
 * (or one the input writes), then a series of requests decoded from the
 * input, well-formed enough to get past the framing and into the handlers.
 * Each input gets a fresh server (the default fabric, the built-in SM, a
 * bound of BUFFER_BOUND on what it holds for its clients) so that a
 * finding repeats from its input alone and LeakSanitizer sees what
 * fabric_server_free leaves; descriptors are counted too.  At the end the
 * clients go away: the server must drop them all, hold nothing for them
 * any more, and still welcome a well-behaved client.
 *
 * The input (operands are taken from the bytes that follow, zeros once the
 * input is used up; 16 and 32-bit operands are little-endian):
 *   byte 0: modulo 3, clients - 1
 *   per client, a hello byte (HELLO_*): bits 0-1 its form, bit 2 a
 *     mailbox with it, bit 3 a mailbox the server cannot use (too small),
 *     bit 4 connected through the server's listening socket (a socket pair
 *     otherwise), bit 5 (a socket pair) a small send buffer at the server's
 *     end, so that its replies wait for room, bit 6 (a socket pair) a stream
 *     as a TCP client's past its handshake (its event channel then comes
 *     with OP_EVENTS)
 *   then operations: an op byte, bits 0-4 what (OP_*), bits 5-6 which
 *     client, bit 7 "not served yet" (the next operation's message is sent
 *     before the server reads any), then its operands.
 * Node names are picked from the default fabric's (a byte: an index, or
 * past the table a name the fabric lacks, an empty one or one without its
 * NUL); classes, methods, attributes and counters likewise.  The seeds in
 * tests/fuzz/corpus/fabric_proto/ use every operation.
 *
 * Sources: tests/fuzz/fuzz_fabric_proto.c simfabric/fabric_server.c
 *   simfabric/fabric_proto.c base/mad_rules.c and the fabric, with
 *   glib-2.0 ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/mad_wire.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/fabric_server.h"
#include "simfabric/fault.h"
#include "tests/fuzz/read_all.h"
#include "tests/fuzz/take_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CLIENTS	3
#define BIG_MAD_MAX	(256u << 10)	/* the largest "MAD" an input sends (RMPP-sized and more) */
#define BUFFER_BOUND	(2u << 20)	/* what the server may hold for its clients: a few of those */
#define SMALL_SNDBUF	4096		/* asked for (HELLO_SMALL_BUF): less than a datagram */

enum {
	HELLO_DEFAULT,		/* the fabric's first CA (n_hosts UINT32_MAX) */
	HELLO_NAMES,		/* 1 to 4 names: a count byte, then a name byte each */
	HELLO_NONE,		/* no node: the CLI's control connection */
	HELLO_RAW,		/* a 16-bit length, then the hello's body as the input has it */
	HELLO_FORM_MASK = 3,
	HELLO_MAILBOX = 1 << 2,
	HELLO_BAD_MAILBOX = 1 << 3,
	HELLO_LISTENED = 1 << 4,
	HELLO_SMALL_BUF = 1 << 5,
	HELLO_STREAM = 1 << 6,
};

enum {
	OP_RAW,			/* len16, bytes: one datagram, frame and all */
	OP_GET_CA,		/* host, port */
	OP_OPEN,		/* host, port */
	OP_CLOSE,		/* handle */
	OP_REGISTER,		/* handle agent qpn class version rmpp flags32 mask64 mask64 oui24 */
	OP_UNREGISTER,		/* handle agent */
	OP_SEND,		/* see take_send */
	OP_ISSM,		/* host port held */
	OP_CONTROL,		/* see control: a fault request's fields, then how to mangle its bytes */
	OP_TEXT,		/* kind filter */
	OP_KICK,
	OP_MAILBOX,		/* kind, then the request: see post_mailbox */
	OP_POKE,		/* offset, 4 bytes: the mailbox's shared words scribbled on */
	OP_CLOSE_EVENTS,	/* the client stops listening to its event channel */
	OP_HELLO,		/* a hello byte: hello again */
	OP_PASS_FD,		/* type: a request carrying a descriptor, as only a hello's may */
	OP_SPLIT,		/* type parts, then flags8 type_delta8 len16 bytes per part */
	OP_LEAVE,		/* the client hangs up */
	OP_REJOIN,		/* a hello byte: a client that left connects again */
	OP_ANSWER,		/* handle flags: the last MAD delivered to the client, answered */
	OP_WAIT,		/* the server waits a millisecond (and looks at mailboxes meanwhile) */
	OP_MAP,			/* zero8: the fabric's memory asked for (its descriptor comes back) */
	OP_NOTE,		/* node16 far8: a node changed by the client's SMP (far: 2^63 added) */
	OP_DEAF,		/* the client stops reading what the server sends it, or reads again */
	OP_EVENTS,		/* how8 [token16]: a second stream naming a client (how bit 0: by its
				 * token; else the 16 bytes that follow), as a TCP event channel */
	OP_COUNT
};

static const char *const node_names[] = {
	"Hca1", "Hca2", "Hca3", "Hca4", "Switch1", "Switch2", "0x0000000000100000",
};
#define N_NAMES		(sizeof(node_names) / sizeof(node_names[0]))

static const uint8_t classes[] = {
	UMAD_CLASS_SUBN_LID_ROUTED, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_CLASS_SUBN_ADM,
	UMAD_CLASS_PERF_MGMT, UMAD_CLASS_BM, UMAD_CLASS_DEVICE_MGMT, UMAD_CLASS_CM,
	UMAD_CLASS_SNMP, UMAD_CLASS_VENDOR_RANGE1_START, UMAD_CLASS_CONG_MGMT,
	UMAD_CLASS_VENDOR_RANGE2_START,
};

static const uint8_t methods[] = {
	UMAD_METHOD_GET, UMAD_METHOD_SET, UMAD_METHOD_GET_RESP, UMAD_METHOD_SEND,
	UMAD_METHOD_TRAP, UMAD_METHOD_REPORT, UMAD_METHOD_REPORT_RESP, UMAD_METHOD_TRAP_REPRESS,
	UMAD_SA_METHOD_GET_TABLE, UMAD_SA_METHOD_DELETE, UMAD_SA_METHOD_GET_MULTI,
};

static const uint16_t attrs[] = {
	UMAD_SM_ATTR_NODE_DESC, UMAD_SM_ATTR_NODE_INFO, UMAD_SM_ATTR_SWITCH_INFO,
	UMAD_SM_ATTR_GUID_INFO, UMAD_SM_ATTR_PORT_INFO, UMAD_SM_ATTR_PKEY_TABLE,
	UMAD_SM_ATTR_LINEAR_FT, UMAD_SM_ATTR_MCAST_FT, UMAD_SM_ATTR_SM_INFO,
	UMAD_SA_ATTR_NODE_REC, UMAD_SA_ATTR_PORT_INFO_REC, UMAD_SA_ATTR_PATH_REC,
	UMAD_SA_ATTR_MCMEMBER_REC, UMAD_SA_ATTR_SERVICE_REC, UMAD_SA_ATTR_INFORM_INFO_REC,
	UMAD_SA_ATTR_LINK_REC,
};

static const char *const counters[] = {
	"SymbolErrorCounter", "LinkDownedCounter", "PortRcvErrors", "LocalLinkIntegrityErrors",
	"ExcessiveBufferOverrunErrors", "VL15Dropped", "PortXmitWait",
};

#define COUNT(a)	(sizeof(a) / sizeof((a)[0]))

static uint16_t take16(struct input *in)
{
	uint16_t lo = take8(in);

	return (uint16_t)(lo | take8(in) << 8);
}

static uint32_t take32(struct input *in)
{
	uint32_t lo = take16(in);

	return lo | (uint32_t)take16(in) << 16;
}

static uint64_t take64(struct input *in)
{
	uint64_t lo = take32(in);

	return lo | (uint64_t)take32(in) << 32;
}

/* A name field: one of the fabric's, one it lacks, empty, or filling the field without a NUL. */
static void take_name(struct input *in, char *field, size_t size)
{
	uint8_t sel = take8(in);

	memset(field, 0, size);
	if (sel < N_NAMES)
		snprintf(field, size, "%s", node_names[sel]);
	else if (sel == N_NAMES)
		memset(field, 'A', size);
	else if (sel == N_NAMES + 1)
		snprintf(field, size, "NoSuchNode");
	else if (sel != N_NAMES + 2)
		take_bytes(in, field, (sel % 16) < size ? sel % 16 : size);
}

static uint8_t pick8(struct input *in, const uint8_t *table, size_t n)
{
	uint8_t sel = take8(in);

	return sel < n ? table[sel] : sel;
}

struct client {
	int fd;			/* ours; -1: gone */
	int ev;			/* the event channel, or -1 */
	struct fp_mailbox *mb;	/* mapped here too, or NULL */
	uint32_t mb_seq;
	struct fp_reader in, events;
	int deaf;		/* reads nothing the server sends (OP_DEAF) */
	int stream;		/* a stream, as a TCP client's (HELLO_STREAM) */
	uint8_t token[FP_TOKEN_LEN];	/* what its FP_HELLO_OK named its event channel by */
	/* The last MAD delivered to an agent of this client, to answer. */
	struct fp_deliver last;
	uint8_t last_mad[MAD_SIZE];
	size_t last_len;
};

static struct client clients[MAX_CLIENTS];
static unsigned n_clients;
static unsigned unserved;	/* messages sent since the server last ran */
static unsigned sent;		/* messages sent in all */

static unsigned open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		abort();
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The server runs until it has read what was sent (one message per client a round). */
static void serve(struct fabric_server *s)
{
	unsigned i, rounds = 2 + unserved;

	for (i = 0; i < rounds; i++)
		if (fabric_server_poll(s, 0, -1) < 0)
			abort();
	sent += unserved;
	unserved = 0;
}

/* Read what the server sent a client: replies, and events (the last MAD delivered kept). */
static unsigned drain(struct client *c)
{
	unsigned sum = 0;

	if (c->deaf)
		return 0;
	while (c->fd >= 0 && fp_recv_message(c->fd, &c->in, MSG_DONTWAIT) == 1) {
		sum += sum_bytes(c->in.buf, c->in.len);
		if (c->in.type == FP_HELLO_OK && c->in.len >= sizeof(struct fp_hello_ok))
			memcpy(c->token, ((const struct fp_hello_ok *)c->in.buf)->events_token,
			       sizeof(c->token));
		if (c->in.passed_fd >= 0) {
			if (c->in.type == FP_HELLO_OK && c->ev < 0)
				c->ev = c->in.passed_fd;
			else
				close(c->in.passed_fd);
			c->in.passed_fd = -1;
		}
	}
	while (c->ev >= 0 && fp_recv_message(c->ev, &c->events, MSG_DONTWAIT) == 1) {
		sum += sum_bytes(c->events.buf, c->events.len);
		if (c->events.type == FP_DELIVER && c->events.len >= sizeof(c->last) + MAD_HDR_SIZE) {
			size_t n = c->events.len - sizeof(c->last);

			memcpy(&c->last, c->events.buf, sizeof(c->last));
			c->last_len = n < MAD_SIZE ? n : MAD_SIZE;
			memcpy(c->last_mad, c->events.buf + sizeof(c->last), c->last_len);
		}
	}
	return sum;
}

static void send_msg(struct client *c, uint32_t type, const void *head, size_t head_len,
		     const void *tail, size_t tail_len)
{
	if (c->fd < 0)
		return;
	fp_send_on(c->fd, c->stream, type, head, head_len, tail, tail_len, -1, MSG_DONTWAIT);
	unserved++;
}

/* A mailbox for a hello: a memory file the size the server wants, or too small for it. */
static int make_mailbox(struct client *c, int usable)
{
	size_t size = usable ? sizeof(*c->mb) : sizeof(uint32_t);
	int fd = memfd_create("fuzz-mailbox", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0)
		abort();
	if (ftruncate(fd, (off_t)size) < 0)
		abort();
	/* An unusable one is also left unsealed: refused for either reason. */
	if (usable && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		abort();
	if (usable) {
		p = mmap(NULL, sizeof(*c->mb), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			abort();
		if (c->mb)
			munmap(c->mb, sizeof(*c->mb));
		c->mb = p;
		c->mb_seq = 0;
	}
	return fd;
}

static void hello(struct client *c, uint8_t how, struct input *in)
{
	struct fp_hello h = { .version = FP_VERSION, .order = FP_BYTE_ORDER };
	char names[4 * FP_NAME_MAX];
	uint8_t raw[1024];
	size_t len = 0;
	int mb = -1;
	unsigned i, n;

	if (how & (HELLO_MAILBOX | HELLO_BAD_MAILBOX))
		mb = make_mailbox(c, !(how & HELLO_BAD_MAILBOX));
	switch (how & HELLO_FORM_MASK) {
	case HELLO_DEFAULT:
		h.n_hosts = UINT32_MAX;
		break;
	case HELLO_NAMES:
		n = 1 + take8(in) % 4;
		for (i = 0; i < n; i++) {
			take_name(in, names + len, FP_NAME_MAX);
			len += strnlen(names + len, FP_NAME_MAX - 1) + 1;
			names[len - 1] = '\0';
		}
		h.n_hosts = n;
		break;
	case HELLO_NONE:
		h.n_hosts = 0;
		break;
	case HELLO_RAW:
		len = take16(in) % sizeof(raw);
		take_bytes(in, raw, len);
		if (c->fd >= 0)
			fp_send_on(c->fd, c->stream, FP_HELLO, raw, len, NULL, 0, mb, MSG_DONTWAIT);
		unserved++;
		if (mb >= 0)
			close(mb);
		return;
	}
	if (c->fd >= 0)
		fp_send_on(c->fd, c->stream, FP_HELLO, &h, sizeof(h), names, len, mb, MSG_DONTWAIT);
	unserved++;
	if (mb >= 0)
		close(mb);
}

/* A private directory for the server's socket, made once and removed at exit. */
static char socket_dir[] = "/tmp/fuzz-fabric-proto.XXXXXX";
static char socket_file[64];

static void remove_socket_dir(void)
{
	char sub[sizeof(socket_file)];

	snprintf(sub, sizeof(sub), "%s/s", socket_dir);
	unlink(socket_file);
	rmdir(sub);
	rmdir(socket_dir);
}

static const char *socket_path(void)
{
	if (!socket_file[0]) {
		if (!mkdtemp(socket_dir))
			abort();
		snprintf(socket_file, sizeof(socket_file), "%s/s/socket", socket_dir);
		atexit(remove_socket_dir);
	}
	return socket_file;
}

static int listening;

/* A connection as a client makes it (accepted and welcomed by the server), or a socket pair. */
static void connect_client(struct fabric_server *s, struct client *c, uint8_t how)
{
	int sv[2];

	if (how & HELLO_LISTENED) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		if (!listening && fabric_server_listen(s, socket_path(), NULL) < 0)
			abort();
		listening = 1;
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", socket_path());
		c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			abort();
		unserved++;
		serve(s);	/* accepted, and the welcome sent */
		return;
	}
	if (how & HELLO_STREAM) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
			abort();
		if (fabric_server_add_stream_client(s, sv[0]) < 0)
			abort();
		c->fd = sv[1];
		c->stream = c->in.stream = c->events.stream = 1;
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		abort();
	if (how & HELLO_SMALL_BUF) {
		int size = SMALL_SNDBUF;

		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	}
	if (fabric_server_add_client(s, sv[0]) < 0)
		abort();
	c->fd = sv[1];
}

static void leave(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->ev >= 0)
		close(c->ev);
	if (c->mb)
		munmap(c->mb, sizeof(*c->mb));
	c->fd = c->ev = -1;
	c->mb = NULL;
	c->last_len = 0;
	c->deaf = 0;
	/* A message cut short is no part of the next connection's. */
	fp_reader_free(&c->in);
	fp_reader_free(&c->events);
}

/*
 * An FP_SEND request and its MAD, into buf (room bytes at most): its
 * length.  Operands: handle flags dlid16 pkey_index sl wait len16, then
 * (flags: 1 GSI addressing, 2 SMI addressing, neither: qpn32 qpn32 qkey32)
 * [base version, flags 8] class version method attr16 tid class_specific16
 * attr_mod32, up to 64 bytes of the MAD after its header, and with flags 16
 * an SMP's initial path (8 hops); flags 4: the length times 4 (past one
 * datagram).
 */
static size_t take_send(struct input *in, uint8_t *buf, size_t room)
{
	struct fp_send q = { 0 };
	uint8_t flags, *mad = buf + sizeof(q);
	size_t len, body;
	uint16_t attr;

	q.handle = take8(in);
	flags = take8(in);
	q.dlid = take16(in);
	q.pkey_index = take8(in);
	q.sl = take8(in);
	q.wait_ms = take8(in) * 8u;
	len = take16(in);
	if (flags & 4)
		len *= 4;
	if (len > room - sizeof(q))
		len = room - sizeof(q);
	if (flags & 1) {
		q.sqpn = q.dqpn = 1;
		q.qkey = UMAD_QKEY;
	} else if (!(flags & 2)) {
		q.sqpn = take32(in);
		q.dqpn = take32(in);
		q.qkey = take32(in);
	}
	memcpy(buf, &q, sizeof(q));
	memset(mad, 0, len);
	if (len >= MAD_HDR_SIZE) {
		mad[MAD_OFF_BASE_VERSION] = flags & 8 ? take8(in) : UMAD_BASE_VERSION;
		mad[MAD_OFF_CLASS] = pick8(in, classes, COUNT(classes));
		mad[MAD_OFF_CLASS_VERSION] = take8(in);
		mad[MAD_OFF_METHOD] = pick8(in, methods, COUNT(methods));
		attr = take16(in);
		put_be16(mad + MAD_OFF_ATTR_ID, attr & 0x8000 ? attrs[attr % COUNT(attrs)] : attr);
		mad[MAD_OFF_TID_LOW + 3] = take8(in);
		put_be16(mad + SMP_OFF_HOP_PTR, take16(in));	/* DR: hop pointer, count */
		put_be32(mad + MAD_OFF_ATTR_MOD, take32(in));
		body = len - MAD_HDR_SIZE < 64 ? len - MAD_HDR_SIZE : 64;
		take_bytes(in, mad + MAD_HDR_SIZE, body);
		if ((flags & 16) && len >= MAD_SIZE)
			take_bytes(in, mad + SMP_OFF_INITIAL_PATH, 8);
	} else {
		take_bytes(in, mad, len);
	}
	return sizeof(q) + len;
}

/*
 * A request through the mailbox, into the slot of the next number.
 * Operands: kind (bits 0-1: 0 an FP_SEND as take_send makes it, 1 another
 * type, 2 a length past the room, 3 the same number posted again; bit 2 an
 * FP_KICK after it; bit 3 the number raised by a further 0-15, past
 * requests never written or beyond the slots), then the request.
 */
static void post_mailbox(struct client *c, struct input *in, uint8_t *buf)
{
	uint8_t kind = take8(in);
	struct fp_mailbox_slot *slot;
	size_t len;

	if (!c->mb) {
		take8(in);
		return;
	}
	slot = &c->mb->slot[(c->mb_seq + 1) % FP_MAILBOX_SLOTS];
	switch (kind & 3) {
	case 0:
		len = take_send(in, buf, FP_MAILBOX_ROOM);
		memcpy(slot->req, buf, len);
		slot->req_type = FP_SEND;
		slot->req_len = (uint32_t)len;
		break;
	case 1:
		slot->req_type = take8(in);
		slot->req_len = take16(in) % (FP_MAILBOX_ROOM + 1);
		take_bytes(in, slot->req, slot->req_len);
		break;
	case 2:
		slot->req_type = FP_SEND;
		slot->req_len = FP_MAILBOX_ROOM + 1 + take32(in) % 65536;
		break;
	case 3:
		c->mb_seq--;
		break;
	}
	if (kind & 8)
		c->mb_seq += take8(in) % 16;
	atomic_store(&c->mb->posted, ++c->mb_seq);
	if (kind & 4) {
		uint32_t kick = 0;

		send_msg(c, FP_KICK, &kick, sizeof(kick), NULL, 0);
	}
}

/* Answer the last MAD delivered to the client, from one of its ports. */
static void answer(struct client *c, struct input *in, uint8_t *buf)
{
	struct fp_send q = { 0 };
	uint8_t flags;
	uint8_t *mad = buf + sizeof(q);

	q.handle = take8(in);
	flags = take8(in);
	if (!c->last_len)
		return;
	q.sqpn = c->last.qpn;
	q.dqpn = c->last.addr.sqpn;
	q.qkey = c->last.addr.qkey;
	q.dlid = c->last.addr.slid;
	q.pkey_index = c->last.addr.pkey_index;
	q.sl = c->last.addr.sl;
	memcpy(buf, &q, sizeof(q));
	memcpy(mad, c->last_mad, c->last_len);
	if (!(flags & 1))
		mad[MAD_OFF_METHOD] |= UMAD_METHOD_RESP_MASK;
	if (flags & 2)
		mad[MAD_OFF_TID_LOW + 3] ^= 1;	/* an answer nobody waits for */
	send_msg(c, FP_SEND, buf, sizeof(q) + c->last_len, NULL, 0);
}

/* One message in several datagrams, each with the input's flags and perhaps another type. */
static void split(struct client *c, struct input *in, uint8_t *buf)
{
	uint32_t type = take8(in);
	unsigned i, parts = 1 + take8(in) % 4;

	for (i = 0; i < parts; i++) {
		struct fp_frame f;
		uint8_t flags = take8(in), delta = take8(in);
		size_t len = take16(in) % (FP_DATAGRAM_MAX - sizeof(f));

		f.type = type + delta;
		f.flags = i + 1 < parts ? FP_MORE : 0;
		/* The piece's length as sent, unless the input says another. */
		f.len = flags & 0x40 ? take16(in) : (uint32_t)len;
		if (flags & 0x80)
			f.flags = flags & 0x7f;
		memcpy(buf, &f, sizeof(f));
		take_bytes(in, buf + sizeof(f), len < 64 ? len : 64);
		if (len > 64)
			memset(buf + sizeof(f) + 64, 0, len - 64);
		if (c->fd >= 0)
			send(c->fd, buf, sizeof(f) + len, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	unserved++;
}

/*
 * A fault request as umad fabric sends it (sim_fault_encode): op8 port8
 * up8 trap16 seed64 delay32 (times 16 ns, past a minute at the top)
 * count64 rate8 node counter8, then mangle8: bits 0-1 how its bytes are
 * mangled (0 not, 1 cut to a length, 2 a byte changed, 3 a byte added),
 * bits 2-7 where.  A node the request cannot hold (filling its field) goes
 * as the fixed part and the name without its NUL.
 */
static void control(struct client *c, struct input *in, uint8_t *buf)
{
	struct sim_fault_req q = { .op = take8(in), .port = take8(in), .up = take8(in) & 1 };
	uint8_t rate, sel, mangle;
	int len;
	size_t at;

	q.trap = take16(in);
	q.seed = take64(in);
	q.delay_ns = (uint64_t)take32(in) * 16;
	q.count = take64(in);
	rate = take8(in);
	q.rate = rate <= 200 ? rate / 200.0 : rate == 201 ? NAN : rate == 202 ? INFINITY : -1;
	take_name(in, q.node, sizeof(q.node));
	sel = take8(in);
	if (sel < COUNT(counters))
		snprintf(q.counter, sizeof(q.counter), "%s", counters[sel]);
	else if (sel == COUNT(counters))
		memset(q.counter, 'C', sizeof(q.counter) - 1);
	mangle = take8(in);
	len = sim_fault_encode(&q, buf, SIM_FAULT_WIRE_MAX);
	if (len < 0) {
		q.node[sizeof(q.node) - 1] = '\0';
		len = sim_fault_encode(&q, buf, SIM_FAULT_WIRE_MAX);
		if (len < 0)
			abort();
		memset(buf + SIM_FAULT_WIRE_FIXED, 'A', sizeof(q.node));
		len = SIM_FAULT_WIRE_FIXED + (int)sizeof(q.node);
	}
	at = (size_t)(mangle >> 2) % (size_t)len;
	switch (mangle & 3) {
	case 1:
		len = (int)at;
		break;
	case 2:
		buf[at] = take8(in);
		break;
	case 3:
		buf[len++] = take8(in);
		break;
	}
	send_msg(c, FP_CONTROL, buf, (size_t)len, NULL, 0);
}

static void operate(struct fabric_server *s, struct client *c, uint8_t op, struct input *in,
		    uint8_t *buf)
{
	switch (op % OP_COUNT) {
	case OP_RAW: {
		size_t n = take16(in);

		take_bytes(in, buf, n);
		if (c->fd >= 0)
			send(c->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		unserved++;
		break;
	}
	case OP_GET_CA:
	case OP_OPEN: {
		struct fp_host q = { .host = take8(in), .port = take8(in) };

		send_msg(c, op % OP_COUNT == OP_OPEN ? FP_OPEN : FP_GET_CA, &q, sizeof(q), NULL, 0);
		break;
	}
	case OP_CLOSE: {
		struct fp_handle q = { .handle = take8(in) };

		send_msg(c, FP_CLOSE, &q, sizeof(q), NULL, 0);
		break;
	}
	case OP_REGISTER:
	case OP_UNREGISTER: {
		struct fp_register q = { .handle = take8(in), .agent_id = take8(in) };

		if (op % OP_COUNT == OP_REGISTER) {
			q.req.qpn = take8(in);
			q.req.mgmt_class = pick8(in, classes, COUNT(classes));
			q.req.mgmt_class_version = take8(in);
			q.req.rmpp_version = take8(in);
			q.req.flags = take32(in);
			q.req.method_mask[0] = take64(in);
			q.req.method_mask[1] = take64(in);
			q.req.oui = take16(in) | (uint32_t)take8(in) << 16;
		}
		send_msg(c, op % OP_COUNT == OP_REGISTER ? FP_REGISTER : FP_UNREGISTER, &q,
			 sizeof(q), NULL, 0);
		break;
	}
	case OP_SEND:
		send_msg(c, FP_SEND, buf, take_send(in, buf, BIG_MAD_MAX), NULL, 0);
		break;
	case OP_ISSM: {
		struct fp_issm q = { .host = take8(in), .port = take8(in), .held = take8(in) };

		send_msg(c, FP_ISSM, &q, sizeof(q), NULL, 0);
		break;
	}
	case OP_CONTROL:
		control(c, in, buf);
		break;
	case OP_TEXT: {
		struct fp_text q = { .kind = take8(in) };
		uint8_t whole = take8(in);

		if (!(whole & 1))
			take_name(in, q.filter, sizeof(q.filter));
		send_msg(c, FP_TEXT, &q, sizeof(q), NULL, 0);
		break;
	}
	case OP_KICK: {
		uint32_t kick = 0;

		send_msg(c, FP_KICK, &kick, sizeof(kick), NULL, 0);
		break;
	}
	case OP_MAILBOX:
		post_mailbox(c, in, buf);
		break;
	case OP_POKE: {
		uint8_t at = take8(in) % offsetof(struct fp_mailbox, slot[0].req);
		uint8_t bytes[4];

		take_bytes(in, bytes, sizeof(bytes));
		if (c->mb)
			memcpy((uint8_t *)c->mb + (at & ~3u), bytes, sizeof(bytes));
		break;
	}
	case OP_CLOSE_EVENTS:
		if (c->ev >= 0)
			close(c->ev);
		c->ev = -1;
		break;
	case OP_HELLO:
		hello(c, take8(in), in);
		break;
	case OP_PASS_FD: {
		struct fp_host q = { 0 };
		uint32_t type = take8(in);
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			abort();
		if (c->fd >= 0)
			fp_send_message(c->fd, type, &q, sizeof(q), fd, MSG_DONTWAIT);
		unserved++;
		close(fd);
		break;
	}
	case OP_SPLIT:
		split(c, in, buf);
		break;
	case OP_LEAVE:
		leave(c);
		break;
	case OP_REJOIN: {
		uint8_t how = take8(in);

		if (c->fd < 0) {
			connect_client(s, c, how);
			hello(c, how, in);
		}
		break;
	}
	case OP_ANSWER:
		answer(c, in, buf);
		break;
	case OP_MAP: {
		struct fp_map q = { .zero = take8(in) };

		send_msg(c, FP_MAP, &q, sizeof(q), NULL, 0);
		break;
	}
	case OP_NOTE: {
		struct fp_note q = { .node = take16(in) };

		if (take8(in))
			q.node |= 1ull << 63;
		send_msg(c, FP_NOTE_CHANGED, &q, sizeof(q), NULL, 0);
		break;
	}
	case OP_DEAF:
		c->deaf = !c->deaf;
		break;
	case OP_EVENTS: {
		struct fp_events q;
		struct fp_reader r;
		int sv[2];

		if (take8(in) & 1)
			memcpy(q.token, c->token, sizeof(q.token));
		else
			take_bytes(in, q.token, sizeof(q.token));
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
			abort();
		if (fabric_server_add_stream_client(s, sv[0]) < 0)
			abort();
		fp_send_on(sv[1], 1, FP_EVENTS, &q, sizeof(q), NULL, 0, -1, MSG_DONTWAIT);
		unserved++;
		serve(s);
		/* The welcome, then the answer: 0, and the stream is the client's event channel. */
		fp_reader_init(&r);
		r.stream = 1;
		if (c->ev < 0 && fp_recv_message(sv[1], &r, MSG_DONTWAIT) == 1 &&
		    fp_recv_message(sv[1], &r, MSG_DONTWAIT) == 1 && r.type == FP_RC &&
		    r.len >= sizeof(int32_t) && !*(const int32_t *)r.buf)
			c->ev = sv[1];
		else
			close(sv[1]);
		fp_reader_free(&r);
		break;
	}
	case OP_WAIT:
		sent += unserved;
		unserved = 0;
		if (fabric_server_poll(s, 1, -1) < 0)
			abort();
		break;
	}
}

/* A client that says hello and gets its answer: the server still works. */
static void check_alive(struct fabric_server *s)
{
	struct fp_hello h = { .version = FP_VERSION, .order = FP_BYTE_ORDER, .n_hosts = UINT32_MAX };
	struct fp_reader r;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	if (fabric_server_add_client(s, sv[0]) < 0)
		abort();
	if (fp_send_message(sv[1], FP_HELLO, &h, sizeof(h), -1, 0) < 0)
		abort();
	unserved = 1;
	serve(s);
	fp_reader_init(&r);
	if (fp_recv_message(sv[1], &r, MSG_DONTWAIT) != 1 || r.type != FP_HELLO_OK)
		abort();
	fp_reader_free(&r);
	close(sv[1]);
	unserved = 1;
	serve(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *buf;
	struct fabric_server_options o = { .builtin_sm = 1, .buffer_max = BUFFER_BOUND };
	struct fabric_server *s;
	struct input in = { data, size };
	struct umad_err errors = UMAD_ERR_INIT;
	unsigned i, fds = open_fds();
	uint8_t how;

	if (!buf && !(buf = malloc(sizeof(struct fp_send) + BIG_MAD_MAX)))
		abort();
	if (fabric_server_new(&o, &s, &errors) < 0)
		abort();
	listening = 0;
	n_clients = 1 + take8(&in) % MAX_CLIENTS;
	unserved = sent = 0;
	for (i = 0; i < n_clients; i++) {
		struct client *c = &clients[i];

		memset(c, 0, sizeof(*c));
		c->ev = -1;
		fp_reader_init(&c->in);
		fp_reader_init(&c->events);
		how = take8(&in);
		connect_client(s, c, how);
		hello(c, how, &in);
	}
	serve(s);
	while (in.left) {
		uint8_t op = take8(&in);
		struct client *c = &clients[((op >> 5) & 3) % n_clients];

		operate(s, c, op & 0x1f, &in, buf);
		if (op & 0x80)
			continue;
		serve(s);
		for (i = 0; i < n_clients; i++)
			drain(&clients[i]);
	}
	serve(s);
	for (i = 0; i < n_clients; i++) {
		drain(&clients[i]);
		leave(&clients[i]);
	}
	/* The server reads one message per client a round: what is left, then the end. */
	for (i = 0; i < 16 + sent && fabric_server_clients(s) != 0; i++)
		fabric_server_poll(s, 0, -1);
	if (fabric_server_clients(s) != 0)
		abort();	/* a client gone must be dropped */
	if (fabric_server_buffered(s) != 0)
		abort();	/* and what the server held for it must go */
	check_alive(s);
	fabric_server_free(s);
	if (open_fds() != fds)
		abort();	/* a descriptor the server kept */
	return 0;
}
