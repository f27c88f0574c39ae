/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for `umad kernel`'s file system (cli/kfs*.c), as the
 * kernel reaches it on behalf of any program on the simulated host: FUSE
 * requests on the descriptor it serves.  Here that descriptor is one end
 * of a SOCK_SEQPACKET socket pair (libfuse reads one request per datagram
 * from it and writes each reply with one writev); the harness plays the
 * kernel at the other end.  Per input: the sim backend is started afresh
 * on the embedded default fabric (its SM brings it up), a file system made
 * (kfs_new, kfs_attach), an INIT sent, then requests built from the input
 * -- LOOKUP, GETATTR, OPEN, READ, WRITE, IOCTL, POLL, RELEASE, READDIR,
 * INTERRUPT, FLUSH and a few the file system leaves to libfuse -- on the
 * tree's inodes (and inodes it does not have) and on the files its OPEN
 * replies gave.  After each request (or a batch of them) the server runs
 * one step (kfs_serve with no timeout: every request and port event that
 * is waiting) and its replies are read back and checked:
 *  - every request is answered once, and at once, except a blocking read
 *    of a umad file with nothing queued and an open of an issm file held
 *    by another open, which an INTERRUPT ends;
 *  - each reply has the length its request allows (a read no longer than
 *    asked, an open's handle, an ioctl's data within its out_size) and an
 *    errno the kernel takes;
 *  - a poll notification names a poll handle it was given.
 * Writes are mostly MADs: a 56- or 64-byte umad header and a MAD whose
 * class, method and attribute the input picks from tables; ioctls mostly
 * the four of ib_umad with the sizes their numbers carry.  At the end the
 * requests still waiting are interrupted, the files released or not, and
 * everything freed, so LeakSanitizer sees the file system's own leaks.
 *
 * What the kernel never sends is not sent: requests before INIT, handles
 * it was not given, a RELEASE of a file a read is still inside, offsets
 * past 2^63.  Where the input asks for it, the file system's largest
 * request is set to SMALL_MAX_WRITE after INIT (the harness reaches into
 * struct kfs for that), so that reads and writes that come in pieces are
 * met with requests of a few kilobytes rather than a megabyte.  A read's
 * requester (the pid whose buffer an ENOSPC header is written into) is a
 * child of the harness blocked in read(2), or none.
 *
 * Sources: tests/fuzz/fuzz_kernel_fs.c cli/kfs.c cli/kfs_dev.c
 *   cli/kfs_tree.c cli/kfs_query.c backends/sysfs_values.c
 *   and the sim backend's sources, with glib-2.0 and libfuse3 ("make
 *   fuzz" builds and runs it).
 *
 * Input: two bytes for INIT (protocol minor, flags, whether to shrink the
 * largest request), then operations until the input ends, each an opcode
 * byte (low four bits: which; bit 7: send the next one before the server
 * runs) and the bytes that operation takes (see the op_* functions).
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <infiniband/umad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sm.h>
#include <infiniband/umad_types.h>

#include "cli/kfs.h"
#include "cli/kfs_state.h"
#include "base/mad_wire.h"
#include "base/umad_ioctl.h"
#include "tests/fuzz/backend_host.h"
#include "tests/fuzz/read_all.h"
#include "tests/fuzz/take_input.h"

extern const struct umad_backend umad_backend_sim;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS		256
#define MAX_FILES	12
#define MAX_PENDING	64
#define MAX_AGENTS	16
#define MAX_BATCH	8
#define MAX_NODES	4096
/* Requests stay far below the smallest buffer libfuse reads them into (32 pages). */
#define MAX_PAYLOAD	(64 * 1024)
#define MAX_REQ		(MAX_PAYLOAD + 256)
#define MAX_READ	(32 * 1024)
#define MAX_READDIR	(16 * 1024)
#define MAX_REPLY	(128 * 1024)
#define SOCK_BUF	(8 * 1024 * 1024)
#define SMALL_MAX_WRITE	5120
/* The kernel's INTERRUPT carries the interrupted request's unique with this bit set. */
#define INT_REQ_BIT	1ull
#define UNIQUE_STEP	2ull
/* The kernel sends no errno at or beyond ERESTARTSYS's. */
#define ERRNO_LIMIT	512
/* ib_umad's two header layouts: without and with pkey_index (and its padding). */
#define HDR_NEW		sizeof(struct ib_user_mad)
#define HDR_OLD		offsetof(struct ib_user_mad, addr.pkey_index)
/* A MAD's data taken from the input: at most this much (the rest is zeros). */
#define MAD_DATA_TAKE	64

/* An open file, as the kernel holds it. */
struct file {
	int used;
	uint64_t fh, node;
	uint32_t flags;
	unsigned busy;			/* its requests not answered yet: they hold it open */
	uint64_t pos;			/* where its next read or write goes */
};

/* A request sent and not answered yet. */
struct pending {
	uint64_t unique;
	uint32_t opcode;
	uint64_t node;
	uint32_t flags;			/* OPEN: the file's flags; READ: the read's */
	int file;			/* the file's slot it is made on; -1: none */
	size_t size;			/* READ, READDIR: asked; WRITE: sent; IOCTL: out_size */
	uint32_t cmd;			/* IOCTL */
};

static struct run {
	struct kfs *k;
	int fd;				/* the kernel's end */
	uint64_t unique;
	struct file files[MAX_FILES];
	struct pending pend[MAX_PENDING];
	int n_pend;
	uint32_t agents[MAX_AGENTS];	/* agent ids REGISTER_AGENT(2) gave */
	int n_agents;
	unsigned n_kh;			/* poll handles numbered so far */
	uint8_t kh_given[MAX_OPS + 1];	/* handles a poll asked to be woken with */
	unsigned unprocessed;		/* requests sent since the server last ran */
	unsigned eagains;		/* INTERRUPTs answered "not found" */
	/* The tree's inodes by kind. */
	uint32_t by_kind[4][MAX_NODES];
	uint32_t n_by_kind[4];
	uint32_t n_nodes;
	volatile unsigned sink;
} run;

static pid_t reader = -1;		/* a child blocked in read(2): an ENOSPC header's reader */
static int trace;			/* FUZZ_KERNEL_FS_TRACE set: each request and reply on stderr */

static void fail(const char *what, uint64_t unique, long value)
{
	fprintf(stderr, "fuzz_kernel_fs: %s (unique %llu, %ld)\n", what, (unsigned long long)unique,
		value);
	abort();
}

/* --- the kernel's side of the channel -------------------------------------------------- */

static void drain(void);

/* Run the server until nothing waits (wait_ms: how long to wait for a port first), read its replies. */
static void step(int wait_ms)
{
	int r = kfs_serve(run.k, -1, wait_ms);

	if (r != -ETIMEDOUT)
		fail("the server stopped", 0, r);
	run.unprocessed = 0;
	drain();
}

static struct pending *pending_of(uint64_t unique)
{
	int i;

	for (i = 0; i < run.n_pend; i++)
		if (run.pend[i].unique == unique)
			return &run.pend[i];
	return NULL;
}

static void pending_drop(struct pending *p)
{
	*p = run.pend[--run.n_pend];
}

/* Send one request (header, body, tail): 0, or -1 when the channel takes no more. */
static int send_raw(uint32_t opcode, uint64_t unique, uint64_t node, uint32_t pid,
		    const void *body, size_t body_len, const void *tail, size_t tail_len)
{
	static uint8_t msg[MAX_REQ];
	struct fuse_in_header h = {
		.len = (uint32_t)(sizeof(h) + body_len + tail_len),
		.opcode = opcode, .unique = unique, .nodeid = node, .pid = pid,
	};
	int tries;

	if (h.len > sizeof(msg))
		return -1;
	memcpy(msg, &h, sizeof(h));
	if (body_len)
		memcpy(msg + sizeof(h), body, body_len);
	if (tail_len)
		memcpy(msg + sizeof(h) + body_len, tail, tail_len);
	if (trace)
		fprintf(stderr, "> %llu op %u node %llu len %u\n", (unsigned long long)unique, opcode,
			(unsigned long long)node, h.len);
	for (tries = 0; tries < 2; tries++) {
		if (send(run.fd, msg, h.len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)h.len) {
			if (++run.unprocessed >= MAX_BATCH)
				step(0);
			return 0;
		}
		if (errno != EAGAIN)
			fail("cannot send a request", unique, errno);
		step(0);
	}
	return -1;
}

/*
 * A request that is answered (t: what it is; its unique is given here),
 * tracked until its reply: its pending entry, or NULL (answered already,
 * or not sent).
 */
static struct pending *request(struct pending t, uint32_t pid, const void *body,
			       size_t body_len, const void *tail, size_t tail_len)
{
	struct pending *p;

	if (run.n_pend == MAX_PENDING)
		return NULL;
	t.unique = run.unique += UNIQUE_STEP;
	run.pend[run.n_pend++] = t;
	if (t.file >= 0)
		run.files[t.file].busy++;
	if (send_raw(t.opcode, t.unique, t.node, pid, body, body_len, tail, tail_len) < 0) {
		p = pending_of(t.unique);
		if (p) {
			if (t.file >= 0)
				run.files[t.file].busy--;
			pending_drop(p);
		}
		return NULL;
	}
	/* It may have been answered already, while the channel was drained. */
	return pending_of(t.unique);
}

/* A request of no file. */
static struct pending *simple(uint32_t opcode, uint64_t node, const void *body, size_t len)
{
	return request((struct pending){ .opcode = opcode, .node = node, .file = -1 }, 0, body,
		       len, NULL, 0);
}

/* --- replies ----------------------------------------------------------------------------- */

static void add_agent(uint32_t id)
{
	if (run.n_agents == MAX_AGENTS) {
		memmove(run.agents, run.agents + 1, sizeof(run.agents) - sizeof(run.agents[0]));
		run.n_agents--;
	}
	run.agents[run.n_agents++] = id;
}

static int file_slot_free(void)
{
	int i;

	for (i = 0; i < MAX_FILES; i++)
		if (!run.files[i].used)
			return i;
	return -1;
}

static uint8_t kind_of(uint64_t node)
{
	return node >= 1 && node <= run.n_nodes ? run.k->nodes[node - 1].kind : 0xff;
}

static void took_open(const struct pending *p, const uint8_t *body)
{
	struct fuse_open_out out;
	int slot = file_slot_free(), i;

	if (slot < 0)
		fail("more files open than slots kept for them", p->unique, 0);
	for (i = 0; kind_of(p->node) == KFS_ISSM && i < MAX_FILES; i++)
		if (run.files[i].used && run.files[i].node == p->node)
			fail("two opens hold one issm file", p->unique, (long)p->node);
	memcpy(&out, body, sizeof(out));
	run.files[slot] = (struct file){ .used = 1, .fh = out.fh, .node = p->node,
					  .flags = p->flags };
}

static void took_ioctl(const struct pending *p, const uint8_t *body, size_t len)
{
	struct fuse_ioctl_out out;
	uint32_t id;

	if (len < sizeof(out) || len - sizeof(out) > p->size)
		fail("an IOCTL reply longer than its out_size", p->unique, (long)len);
	memcpy(&out, body, sizeof(out));
	if (out.result == 0 && len >= sizeof(out) + sizeof(id) &&
	    (p->cmd == IB_USER_MAD_REGISTER_AGENT || p->cmd == IB_USER_MAD_REGISTER_AGENT2)) {
		/* The id comes first in both requests. */
		memcpy(&id, body + sizeof(out), sizeof(id));
		add_agent(id);
	}
}

/* The length of a reply with no error to opcode, where it has one; else -1. */
static long reply_size(uint32_t opcode)
{
	switch (opcode) {
	case FUSE_LOOKUP:
		return sizeof(struct fuse_entry_out);
	case FUSE_GETATTR:
		return sizeof(struct fuse_attr_out);
	case FUSE_OPEN:
		return sizeof(struct fuse_open_out);
	case FUSE_WRITE:
		return sizeof(struct fuse_write_out);
	case FUSE_POLL:
		return sizeof(struct fuse_poll_out);
	case FUSE_RELEASE:
	case FUSE_FLUSH:
		return 0;
	default:
		return -1;
	}
}

/* A reply with no error: its length as its request allows, and what it tells. */
static void took_ok(struct pending *p, const uint8_t *body, size_t len)
{
	struct file *f = p->file >= 0 ? &run.files[p->file] : NULL;
	long size = reply_size(p->opcode);
	struct fuse_entry_out e;
	struct fuse_write_out wo;

	if (size >= 0 && len != (size_t)size)
		fail("a reply of a wrong length", p->unique, (long)len);
	if ((p->opcode == FUSE_READ || p->opcode == FUSE_READDIR ||
	     p->opcode == FUSE_READDIRPLUS) && len > p->size)
		fail("a read longer than asked", p->unique, (long)len);
	switch (p->opcode) {
	case FUSE_LOOKUP:
		memcpy(&e, body, sizeof(e));
		if (e.nodeid < 1 || e.nodeid > run.n_nodes)
			fail("LOOKUP found an inode the tree does not have", p->unique,
			     (long)e.nodeid);
		break;
	case FUSE_OPEN:
		took_open(p, body);
		break;
	case FUSE_READ:
		if (f)
			f->pos += len;
		break;
	case FUSE_WRITE:
		memcpy(&wo, body, sizeof(wo));
		if (wo.size > p->size)
			fail("a WRITE reply says more was written than was", p->unique,
			     (long)wo.size);
		if (f)
			f->pos += wo.size;
		break;
	case FUSE_IOCTL:
		took_ioctl(p, body, len);
		break;
	default:
		break;
	}
}

static void took_notify(int code, const uint8_t *body, size_t len)
{
	struct fuse_notify_poll_wakeup_out w;

	if (code != FUSE_NOTIFY_POLL || len != sizeof(w))
		fail("a notification other than a poll wakeup", 0, code);
	memcpy(&w, body, sizeof(w));
	if (w.kh > run.n_kh || !run.kh_given[w.kh])
		fail("a poll wakeup for a handle never given", 0, (long)w.kh);
}

static void take_reply(const uint8_t *buf, size_t n)
{
	struct fuse_out_header oh;
	struct pending *p;
	const uint8_t *body = buf + sizeof(oh);
	size_t len;

	if (n < sizeof(oh))
		fail("a reply shorter than its header", 0, (long)n);
	memcpy(&oh, buf, sizeof(oh));
	if (oh.len != n)
		fail("a reply whose length is not its size", oh.unique, (long)oh.len);
	len = n - sizeof(oh);
	run.sink += sum_bytes(body, len);
	if (trace) {
		size_t i;

		fprintf(stderr, "< %llu error %d len %zu:", (unsigned long long)oh.unique, oh.error,
			len);
		for (i = 0; i < len && i < 32; i++)
			fprintf(stderr, " %02x", body[i]);
		fprintf(stderr, "\n");
	}
	if (oh.unique == 0) {
		took_notify(oh.error, body, len);
		return;
	}
	if (oh.unique & INT_REQ_BIT) {
		/* An INTERRUPT whose request had been answered: libfuse says so later. */
		if (oh.error != -EAGAIN || len)
			fail("an INTERRUPT answered other than with EAGAIN", oh.unique, oh.error);
		run.eagains++;
		return;
	}
	p = pending_of(oh.unique);
	if (!p)
		fail("a reply to no request waiting (answered twice?)", oh.unique, oh.error);
	if (oh.error > 0 || oh.error <= -ERRNO_LIMIT)
		fail("a reply with an errno the kernel refuses", oh.unique, oh.error);
	if (oh.error && len)
		fail("an error reply with data", oh.unique, (long)len);
	if (!oh.error)
		took_ok(p, body, len);
	if (p->file >= 0)
		run.files[p->file].busy--;
	pending_drop(p);
}

static void drain(void)
{
	static uint8_t buf[MAX_REPLY];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	int i;

	for (;;) {
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(run.fd, &mh, MSG_DONTWAIT);

		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			fail("the channel broke", 0, n < 0 ? errno : 0);
		if (mh.msg_flags & MSG_TRUNC)
			fail("a reply longer than any request asks for", 0, (long)n);
		take_reply(buf, (size_t)n);
	}
	/* All but a blocking read of a umad file and a waiting open of an issm file are answered. */
	if (run.unprocessed)
		return;
	for (i = 0; i < run.n_pend; i++) {
		const struct pending *p = &run.pend[i];

		if (p->opcode == FUSE_READ && kind_of(p->node) == KFS_UMAD &&
		    !(p->flags & O_NONBLOCK))
			continue;
		if (p->opcode == FUSE_OPEN && kind_of(p->node) == KFS_ISSM &&
		    !(p->flags & O_NONBLOCK))
			continue;
		fail("a request left waiting", p->unique, p->opcode);
	}
}

/* --- picking ----------------------------------------------------------------------------- */

enum { K_UMAD, K_ISSM, K_TEXT, K_DIR };

/*
 * An inode: of the kind (umad, issm, sysfs file, directory) and index a
 * byte says, the index from the next byte past the first 60, or now and
 * then one the tree does not have (0, or past its last).
 */
static uint64_t pick_node(struct input *in)
{
	uint8_t b = take8(in);
	unsigned kind = b & 3, idx = b >> 2;

	if (idx == 63)
		idx = 60u + take8(in);
	else if (idx >= 60)
		return idx == 60 ? 0 : run.n_nodes + (idx - 60);
	if (!run.n_by_kind[kind])
		return FUSE_ROOT_ID;
	return run.by_kind[kind][idx % run.n_by_kind[kind]];
}

static int pick_file(uint8_t b)
{
	int i, n = 0, slots[MAX_FILES];

	for (i = 0; i < MAX_FILES; i++)
		if (run.files[i].used)
			slots[n++] = i;
	return n ? slots[b % n] : -1;
}

static uint32_t pick_agent(struct input *in)
{
	uint8_t b = take8(in);

	if (b < 0xc0 && run.n_agents)
		return run.agents[b % run.n_agents];
	return b == 0xff ? take_be32(in) : b & 0x3f;
}

static void learn_tree(void)
{
	uint32_t i;

	memset(run.n_by_kind, 0, sizeof(run.n_by_kind));
	run.n_nodes = run.k->n_nodes;
	for (i = 0; i < run.n_nodes; i++) {
		unsigned kind = run.k->nodes[i].kind;
		unsigned to = kind == KFS_UMAD ? K_UMAD : kind == KFS_ISSM ? K_ISSM
			    : kind == KFS_TEXT ? K_TEXT : K_DIR;

		if (run.n_by_kind[to] < MAX_NODES)
			run.by_kind[to][run.n_by_kind[to]++] = i + 1;
	}
}

/* --- operations -------------------------------------------------------------------------- */

/* LOOKUP: parent; then a child of it, any node's name, or a name from the input. */
static void op_lookup(struct input *in)
{
	uint64_t parent = pick_node(in);
	uint8_t how = take8(in);
	char name[256];
	size_t len, i;

	if ((how & 3) == 0 && kind_of(parent) == KFS_DIR) {
		const struct kfs_node *d = &run.k->nodes[parent - 1];
		uint32_t c = d->first_child, skip = how >> 2;

		for (; c != KFS_NO_NODE && skip && run.k->nodes[c].next_sibling != KFS_NO_NODE; skip--)
			c = run.k->nodes[c].next_sibling;
		snprintf(name, sizeof(name), "%s", c == KFS_NO_NODE ? "." : run.k->nodes[c].name);
	} else if ((how & 3) != 3 && run.n_nodes) {
		snprintf(name, sizeof(name), "%s", run.k->nodes[(how * 7u + take8(in)) % run.n_nodes].name);
	} else {
		len = take8(in) % sizeof(name);
		take_bytes(in, name, len);
		/* A name as the kernel sends it: no '/' and no NUL inside. */
		for (i = 0; i < len; i++)
			if (!name[i] || name[i] == '/')
				name[i] = 'x';
		name[len] = '\0';
	}
	simple(FUSE_LOOKUP, parent, name, strlen(name) + 1);
}

static void op_getattr(struct input *in)
{
	uint8_t b = take8(in);
	int slot = (b & 1) ? pick_file(take8(in)) : -1;
	struct fuse_getattr_in g = { 0 };
	uint64_t node = pick_node(in);

	if (slot >= 0) {
		g.getattr_flags = FUSE_GETATTR_FH;
		g.fh = run.files[slot].fh;
		node = run.files[slot].node;
	}
	request((struct pending){ .opcode = FUSE_GETATTR, .node = node, .file = slot }, 0, &g,
		sizeof(g), NULL, 0);
}

static int opens_waiting(void)
{
	int i, n = 0;

	for (i = 0; i < run.n_pend; i++)
		n += run.pend[i].opcode == FUSE_OPEN;
	return n;
}

static int files_open(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_FILES; i++)
		n += run.files[i].used;
	return n;
}

static void op_open(struct input *in)
{
	uint64_t node = pick_node(in);
	uint8_t f = take8(in);
	struct fuse_open_in o = { 0 };

	if (files_open() + opens_waiting() >= MAX_FILES)
		return;
	o.flags = (f & O_ACCMODE) | (f & 4 ? O_NONBLOCK : 0) | (f & 8 ? O_CLOEXEC : 0) |
		  (f & 16 ? O_TRUNC : 0) | (f & 32 ? O_APPEND : 0);
	request((struct pending){ .opcode = FUSE_OPEN, .node = node, .file = -1,
				  .flags = o.flags }, 0, &o, sizeof(o), NULL, 0);
}

/* READ: a file, a size, an offset (its position, 0, or any), blocking or not, and its reader. */
static void op_read(struct input *in)
{
	int slot = pick_file(take8(in));
	uint8_t how = take8(in);
	static const uint32_t sizes[] = { HDR_OLD + MAD_SIZE, HDR_NEW + MAD_SIZE, 4096, 0 };
	struct fuse_read_in r = { 0 };
	struct file *f;

	if (slot < 0)
		return;
	f = &run.files[slot];
	r.fh = f->fh;
	r.size = sizes[how & 3];
	if (!r.size)
		r.size = take_be16(in) % (MAX_READ + 1);
	switch ((how >> 2) & 3) {
	case 1:
		r.offset = 0;
		break;
	case 2:
		r.offset = take_be16(in);
		break;
	default:
		r.offset = f->pos;
		break;
	}
	r.flags = f->flags ^ (how & 16 ? O_NONBLOCK : 0);
	request((struct pending){ .opcode = FUSE_READ, .node = f->node, .file = slot,
				  .size = r.size, .flags = r.flags },
		(how & 32) && reader > 0 ? (uint32_t)reader : 0, &r, sizeof(r), NULL, 0);
}

static const uint8_t mad_classes[] = {
	UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_CLASS_SUBN_ADM,
	UMAD_CLASS_PERF_MGMT, UMAD_CLASS_CM, UMAD_CLASS_CONG_MGMT, UMAD_CLASS_VENDOR_RANGE2_START,
	0,	/* any: the next byte */
};

static const uint8_t mad_methods[] = {
	UMAD_METHOD_GET, UMAD_METHOD_SET, UMAD_METHOD_GET_RESP, UMAD_METHOD_SEND,
	UMAD_METHOD_TRAP, UMAD_METHOD_REPORT, UMAD_METHOD_REPORT_RESP, UMAD_METHOD_TRAP_REPRESS,
	UMAD_SA_METHOD_GET_TABLE, UMAD_SA_METHOD_GET_TABLE_RESP, UMAD_SA_METHOD_GET_MULTI,
	UMAD_SA_METHOD_DELETE, UMAD_METHOD_GET, UMAD_METHOD_GET, UMAD_METHOD_SET,
	0,	/* any */
};

static const uint16_t mad_attrs[] = {
	UMAD_SM_ATTR_NODE_DESC, UMAD_SM_ATTR_NODE_INFO, UMAD_SM_ATTR_SWITCH_INFO,
	UMAD_SM_ATTR_GUID_INFO, UMAD_SM_ATTR_PORT_INFO, UMAD_SM_ATTR_PKEY_TABLE,
	UMAD_SM_ATTR_SLVL_TABLE, UMAD_SM_ATTR_LINEAR_FT, UMAD_SM_ATTR_SM_INFO,
	UMAD_ATTR_CLASS_PORT_INFO, UMAD_ATTR_NOTICE, PMA_ATTR_PORT_COUNTERS,
	PMA_ATTR_PORT_COUNTERS_EXT, UMAD_SA_ATTR_PATH_REC, UMAD_SA_ATTR_NODE_REC,
	0,	/* any */
};

/*
 * A MAD-shaped write into buf: a header of hdr_size bytes whose fields
 * the input fills (the agent one REGISTER gave, mostly), then a MAD of
 * mad_len bytes.  Its length.
 */
static size_t build_mad(struct input *in, uint8_t *buf, size_t hdr_size, size_t mad_len)
{
	struct ib_user_mad hdr;
	uint8_t *mad = buf + hdr_size;
	uint8_t shape = take8(in), method = take8(in), attr = take8(in), opts = take8(in);
	uint8_t mgmt_class = mad_classes[shape & 7];
	uint16_t attr_id = mad_attrs[attr & 15];
	size_t data;

	memset(&hdr, 0, sizeof(hdr));
	hdr.agent_id = pick_agent(in);
	hdr.timeout_ms = opts & 4 ? take8(in) : opts & 3;	/* short mostly: nothing waits long */
	hdr.retries = (opts >> 3) & 3;
	if (!mgmt_class)
		mgmt_class = take8(in);
	hdr.addr.qpn = htobe32(mad_class_is_smp(mgmt_class) ? QP0_SMI : QP1_GSI);
	if (opts & 0x20)
		hdr.addr.qpn = htobe32(take_be32(in) & 0xffffff);
	hdr.addr.qkey = htobe32(hdr.addr.qpn ? UMAD_QKEY : 0);
	hdr.addr.lid = htobe16(mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE ? LID_PERMISSIVE
			       : (uint16_t)(1 + (attr >> 4)));
	if (opts & 0x40) {
		hdr.addr.lid = htobe16(take_be16(in));
		hdr.addr.sl = take8(in);
		hdr.addr.path_bits = take8(in);
		hdr.addr.grh_present = take8(in) & 1;
		hdr.addr.pkey_index = take_be16(in);
	}
	memcpy(buf, &hdr, hdr_size);
	memset(mad, 0, mad_len);
	if (mad_len < MAD_HDR_SIZE)
		return hdr_size + mad_len;
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = mgmt_class;
	mad[MAD_OFF_CLASS_VERSION] = (shape & 8) ? take8(in) :
		mgmt_class == UMAD_CLASS_SUBN_ADM ? UMAD_SA_CLASS_VERSION :
		mgmt_class == UMAD_CLASS_CONG_MGMT ? CC_CLASS_VERSION : SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = mad_methods[method & 15] ? mad_methods[method & 15] : take8(in);
	put_be16(mad + MAD_OFF_STATUS, (method & 0x10) ? take_be16(in) : 0);
	put_be64(mad + MAD_OFF_TID, take_be16(in));
	put_be16(mad + MAD_OFF_ATTR_ID, attr_id ? attr_id : take_be16(in));
	put_be32(mad + MAD_OFF_ATTR_MOD, (method & 0x20) ? take_be32(in) : take8(in));
	if (mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE && mad_len >= SMP_OFF_INITIAL_PATH) {
		uint8_t hops = (method >> 6) & 3;

		mad[SMP_OFF_HOP_CNT] = hops;
		put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
		put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
		if (mad_len >= SMP_OFF_INITIAL_PATH + 1u + hops)
			take_bytes(in, mad + SMP_OFF_INITIAL_PATH + 1, hops);
	} else if (mad_class_is_rmpp(mgmt_class) && mad_len >= RMPP_HDR_END && (shape & 0x10)) {
		mad[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
		mad[RMPP_OFF_TYPE] = take8(in) & 7;
		mad[RMPP_OFF_FLAGS] = take8(in);
		put_be32(mad + RMPP_OFF_SEG_NUM, take8(in));
		put_be32(mad + RMPP_OFF_PAYLEN, take_be16(in));
	}
	/* Some of the data from the input: the rest stays zero. */
	data = take8(in) % (MAD_DATA_TAKE + 1);
	if (mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE || mgmt_class == UMAD_CLASS_SUBN_LID_ROUTED) {
		if (mad_len >= SMP_OFF_DATA + data)
			take_bytes(in, mad + SMP_OFF_DATA, data);
	} else if (mad_len >= RMPP_HDR_END + data) {
		take_bytes(in, mad + mad_len - data, data);
	}
	return hdr_size + mad_len;
}

/* WRITE: a file; a MAD with the old or the new header, or bytes as they come. */
static void op_write(struct input *in)
{
	static uint8_t buf[MAX_PAYLOAD];
	int slot = pick_file(take8(in));
	uint8_t how = take8(in);
	struct fuse_write_in w = { 0 };
	size_t len, mad_len;
	struct file *f;

	if (slot < 0)
		return;
	f = &run.files[slot];
	switch ((how >> 2) & 7) {
	case 0:
	case 1:
	case 2:
	case 3:
		mad_len = MAD_SIZE;
		break;
	case 4:		/* an RMPP message, segments whole */
		mad_len = RMPP_HDR_END + (size_t)(take8(in) % 64) * UMAD_LEN_RMPP_DATA;
		break;
	case 5:		/* shorter than a MAD, maybe than the kernel takes */
		mad_len = take8(in);
		break;
	default:	/* any length, a piece of a long write maybe */
		mad_len = take_be16(in) % (MAX_PAYLOAD - HDR_NEW);
		break;
	}
	if ((how & 3) == 3) {
		len = mad_len + take8(in) % HDR_NEW;
		take_bytes(in, buf, len > 512 ? 512 : len);
		memset(buf + 512, 0, len > 512 ? len - 512 : 0);
	} else {
		len = build_mad(in, buf, (how & 3) == 0 ? HDR_OLD : HDR_NEW, mad_len);
	}
	w.fh = f->fh;
	w.offset = (how & 0x20) ? take_be16(in) : f->pos;
	w.size = (uint32_t)len;
	w.flags = f->flags;
	request((struct pending){ .opcode = FUSE_WRITE, .node = f->node, .file = slot, .size = len },
		0, &w, sizeof(w), buf, len);
}

/* IOCTL: one of ib_umad's four, with the sizes its number carries, or another. */
static void op_ioctl(struct input *in)
{
	int slot = pick_file(take8(in));
	uint8_t how = take8(in);
	static const uint32_t flag_sets[] = { 0, FUSE_IOCTL_COMPAT, FUSE_IOCTL_32BIT, 0 };
	union {
		struct ib_user_mad_reg_req v1;
		struct ib_user_mad_reg_req2 v2;
		uint32_t id;
		uint8_t raw[256];
	} body;
	struct fuse_ioctl_in io = { 0 };
	struct file *f;
	size_t in_size = 0;

	if (slot < 0)
		return;
	f = &run.files[slot];
	memset(&body, 0, sizeof(body));
	switch (how & 7) {
	case 0:
	case 1:
		io.cmd = IB_USER_MAD_REGISTER_AGENT;
		body.v1.qpn = take8(in) % 3;
		body.v1.mgmt_class = mad_classes[take8(in) & 7];
		if (!body.v1.mgmt_class)
			body.v1.mgmt_class = take8(in);
		body.v1.mgmt_class_version = take8(in);
		take_bytes(in, body.v1.method_mask, 2);
		take_bytes(in, body.v1.oui, sizeof(body.v1.oui));
		body.v1.rmpp_version = take8(in);
		break;
	case 2:
	case 3: {
		uint8_t flags = take8(in);

		io.cmd = IB_USER_MAD_REGISTER_AGENT2;
		body.v2.qpn = flags & 0x80 ? take_be32(in) : take8(in) % 3;
		body.v2.mgmt_class = mad_classes[take8(in) & 7];
		if (!body.v2.mgmt_class)
			body.v2.mgmt_class = take8(in);
		body.v2.mgmt_class_version = take8(in);
		body.v2.flags = flags & 0x40 ? take_be32(in) : flags & UMAD_USER_RMPP;
		body.v2.method_mask[0] = (uint64_t)take_be16(in) << (flags & 0x3f);
		body.v2.oui = take_be32(in) & 0xffffff;
		body.v2.rmpp_version = take8(in);
		break;
	}
	case 4:
		io.cmd = IB_USER_MAD_UNREGISTER_AGENT;
		body.id = pick_agent(in);
		break;
	case 5:
	case 6:
		io.cmd = IB_USER_MAD_ENABLE_PKEY;
		break;
	default:
		io.cmd = take_be32(in);
		break;
	}
	/* The kernel copies in and out what the number says: restricted ioctls. */
	io.in_size = (_IOC_DIR(io.cmd) & _IOC_WRITE) ? _IOC_SIZE(io.cmd) : 0;
	io.out_size = (_IOC_DIR(io.cmd) & _IOC_READ) ? _IOC_SIZE(io.cmd) : 0;
	if (io.in_size > sizeof(body))
		io.in_size = sizeof(body);
	if ((how & 7) == 7)
		take_bytes(in, body.raw, io.in_size);
	if (how & 0x80) {	/* sizes the number does not carry */
		io.in_size = take8(in) % (sizeof(body) + 1);
		io.out_size = take8(in);
	}
	in_size = io.in_size;
	io.fh = f->fh;
	io.flags = flag_sets[(how >> 3) & 3];
	io.arg = 0x7f0000001000ull;
	request((struct pending){ .opcode = FUSE_IOCTL, .node = f->node, .file = slot,
				  .size = io.out_size, .cmd = io.cmd }, 0, &io, sizeof(io), &body,
		in_size);
}

static void op_poll(struct input *in)
{
	int slot = pick_file(take8(in));
	uint8_t how = take8(in);
	struct fuse_poll_in pi = { 0 };

	if (slot < 0)
		return;
	pi.fh = run.files[slot].fh;
	pi.kh = ++run.n_kh;
	if (how & 1) {
		pi.flags = FUSE_POLL_SCHEDULE_NOTIFY;
		run.kh_given[pi.kh] = 1;
	}
	pi.events = POLLIN | POLLRDNORM | (how & 2 ? POLLOUT | POLLWRNORM : 0);
	request((struct pending){ .opcode = FUSE_POLL, .node = run.files[slot].node, .file = slot },
		0, &pi, sizeof(pi), NULL, 0);
}

/* RELEASE: a file no request is inside (the kernel holds the file while one is). */
static void op_release(struct input *in)
{
	int slot = pick_file(take8(in));
	struct fuse_release_in r = { 0 };
	struct file *f;

	if (slot < 0 || run.files[slot].busy)
		return;
	f = &run.files[slot];
	r.fh = f->fh;
	r.flags = f->flags;
	f->used = 0;
	simple(FUSE_RELEASE, f->node, &r, sizeof(r));
}

static void op_flush(struct input *in)
{
	int slot = pick_file(take8(in));
	struct fuse_flush_in fl = { 0 };

	if (slot < 0)
		return;
	fl.fh = run.files[slot].fh;
	request((struct pending){ .opcode = FUSE_FLUSH, .node = run.files[slot].node, .file = slot },
		0, &fl, sizeof(fl), NULL, 0);
}

static void op_readdir(struct input *in)
{
	uint64_t node = pick_node(in);
	uint8_t how = take8(in);
	struct fuse_read_in r = { 0 };

	r.size = (how & 1) ? take_be16(in) % (MAX_READDIR + 1) : 4096;
	r.offset = (how >> 1) & 0x3f;
	request((struct pending){ .opcode = (how & 0x80) ? FUSE_READDIRPLUS : FUSE_READDIR,
				  .node = node, .file = -1, .size = r.size }, 0, &r, sizeof(r), NULL, 0);
}

/* INTERRUPT: of a request still waiting, as the kernel sends one when its caller gets a signal. */
static void interrupt(const struct pending *p)
{
	struct fuse_interrupt_in i = { .unique = p->unique };

	send_raw(FUSE_INTERRUPT, p->unique | INT_REQ_BIT, 0, 0, &i, sizeof(i), NULL, 0);
}

static void op_interrupt(struct input *in)
{
	uint8_t b = take8(in);

	if (run.n_pend)
		interrupt(&run.pend[b % run.n_pend]);
}

/* Requests the file system leaves to libfuse: its defaults answer them. */
static void op_other(struct input *in)
{
	static const uint32_t ops[] = {
		FUSE_OPENDIR, FUSE_RELEASEDIR, FUSE_STATFS, FUSE_ACCESS, FUSE_GETXATTR,
		FUSE_LISTXATTR, FUSE_FSYNC, FUSE_LSEEK, FUSE_SETATTR, FUSE_FORGET,
	};
	uint8_t b = take8(in);
	uint32_t opcode = ops[b % (sizeof(ops) / sizeof(ops[0]))];
	uint8_t body[sizeof(struct fuse_setattr_in) + 8];
	uint64_t node = pick_node(in);

	take_bytes(in, body, sizeof(body));
	if (opcode == FUSE_FORGET) {
		/* No reply comes to a FORGET. */
		send_raw(opcode, run.unique += UNIQUE_STEP, node, 0, body,
			 sizeof(struct fuse_forget_in), NULL, 0);
		return;
	}
	if (opcode == FUSE_GETXATTR) {
		body[sizeof(body) - 1] = '\0';	/* the name after fuse_getxattr_in */
		body[sizeof(struct fuse_getxattr_in)] = 'u';
	}
	simple(opcode, node, body, sizeof(body));
}

static void init(uint8_t a, uint8_t b)
{
	struct fuse_init_in i = { 0 };

	i.major = FUSE_KERNEL_VERSION;
	i.minor = 23 + (a & 15);
	if (i.minor > FUSE_KERNEL_MINOR_VERSION)
		i.minor = FUSE_KERNEL_MINOR_VERSION;
	i.max_readahead = 128 * 1024;
	i.flags = (a & 0x10 ? FUSE_MAX_PAGES : 0) | (a & 0x20 ? FUSE_INIT_EXT : 0) |
		  (a & 0x40 ? FUSE_ASYNC_READ : 0) | (b & 1 ? FUSE_DO_READDIRPLUS : 0) |
		  (b & 2 ? FUSE_READDIRPLUS_AUTO : 0) | (b & 4 ? FUSE_ATOMIC_O_TRUNC : 0) |
		  (b & 8 ? FUSE_PARALLEL_DIROPS : 0) | (b & 16 ? FUSE_ASYNC_DIO : 0) |
		  (b & 32 ? FUSE_AUTO_INVAL_DATA : 0) | (b & 64 ? FUSE_POSIX_LOCKS : 0);
	if (simple(FUSE_INIT, 0, &i, sizeof(i)))
		step(0);
	if (a & 0x80)
		run.k->max_write = SMALL_MAX_WRITE;
}

/*
 * End the input as the kernel would end the mount's last users: every
 * request still waiting interrupted, the files released or left to the
 * file system's end, INTERRUPTs that found nothing answered (libfuse
 * answers one with each later request).
 */
static void finish(int release)
{
	int round, i, n;

	if (run.unprocessed)
		step(0);
	for (round = 0; round < 3 && run.n_pend; round++) {
		struct pending waiting[MAX_PENDING];

		n = run.n_pend;
		memcpy(waiting, run.pend, sizeof(waiting[0]) * (size_t)n);
		for (i = 0; i < n; i++)
			interrupt(&waiting[i]);
		step(0);
	}
	if (run.n_pend)
		fail("a request no INTERRUPT ends", run.pend[0].unique, run.pend[0].opcode);
	for (i = 0; release && i < MAX_FILES; i++) {
		struct fuse_release_in r = { 0 };

		if (!run.files[i].used)
			continue;
		r.fh = run.files[i].fh;
		r.flags = run.files[i].flags;
		run.files[i].used = 0;
		simple(FUSE_RELEASE, run.files[i].node, &r, sizeof(r));
	}
	step(0);
	for (i = 0; i < 64; i++) {
		unsigned before = run.eagains;
		struct fuse_getattr_in g = { 0 };

		simple(FUSE_GETATTR, FUSE_ROOT_ID, &g, sizeof(g));
		step(0);
		if (run.eagains == before)
			break;
	}
}

/* --- the run ------------------------------------------------------------------------------ */

static void kill_reader(void)
{
	if (reader > 0) {
		kill(reader, SIGKILL);
		waitpid(reader, NULL, 0);
	}
}

/* A process blocked in read(2) for good, whose buffer an ENOSPC header may go into. */
static void start_reader(void)
{
	int p[2];

	if (pipe(p) < 0)
		return;
	reader = fork();
	if (reader == 0) {
		char buf[4096];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[1]);
		for (;;)
			if (read(p[0], buf, sizeof(buf)) <= 0)
				_exit(0);
	}
	close(p[0]);	/* p[1] stays open: the child's read never ends */
	if (reader > 0)
		atexit(kill_reader);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv("UMAD_SIM_TOPOLOGY");
	unsetenv("UMAD_SIM_FABRIC");
	unsetenv("UMAD_SIM_HOST");
	unsetenv("UMAD_SIM_SYSFS");
	unsetenv("UMAD_SIM_CA_NAME");
	unsetenv("UMAD_SIM_SM");
	unsetenv("UMAD_CAPTURE");
	trace = getenv("FUZZ_KERNEL_FS_TRACE") != NULL;
	start_reader();
	return 0;
}

static void ops(struct input *in)
{
	int n;

	for (n = 0; n < MAX_OPS && in->left; n++) {
		uint8_t op = take8(in);

		switch (op & 15) {
		case 0:
			op_lookup(in);
			break;
		case 1:
			op_getattr(in);
			break;
		case 2:
			op_open(in);
			break;
		case 3:
		case 13:
			op_read(in);
			break;
		case 4:
		case 14:
			op_write(in);
			break;
		case 5:
		case 15:
			op_ioctl(in);
			break;
		case 6:
			op_poll(in);
			break;
		case 7:
			op_release(in);
			break;
		case 8:
			op_readdir(in);
			break;
		case 9:
			op_interrupt(in);
			break;
		case 10:
			op_flush(in);
			break;
		case 11:	/* let time pass: a MAD's timeout, an answer on its way */
			step(take8(in) % 4);
			continue;
		default:
			op_other(in);
			break;
		}
		if (!(op & 0x80) && run.unprocessed)
			step(0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct umad_err err = UMAD_ERR_INIT;
	struct input in = { data, size };
	int sv[2], buf = SOCK_BUF;
	uint8_t a, b;

	if (size < 2)
		return 0;
	/* A fresh fabric each time: what one input set (an M_Key, a LID, IsSM) is not the next's. */
	if (umad_backend_sim.init(&fuzz_host) < 0)
		abort();
	memset(&run, 0, sizeof(run));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	if (setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (setsockopt(sv[1], SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
		setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (kfs_new(&umad_backend_sim, &run.k, &err) < 0 || kfs_attach(run.k, sv[0], &err) < 0) {
		umad_err_print("fuzz_kernel_fs", &err);
		abort();
	}
	close(sv[0]);
	run.fd = sv[1];
	learn_tree();
	a = take8(&in);
	b = take8(&in);
	init(a, b);
	ops(&in);
	finish(!(b & 0x80));
	kfs_free(run.k);
	close(run.fd);
	umad_backend_sim.fini();
	return 0;
}
