/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include <linux/fuse.h>	/* FOPEN_STREAM, which libfuse 3.14's fuse_file_info cannot say */

#include "cli/kfs_dev.h"
#include "base/mad_wire.h"
#include "base/umad_ioctl.h"

/* The two header layouts of ib_umad: without and with pkey_index (and its padding). */
#define HDR_NEW		sizeof(struct ib_user_mad)
#define HDR_OLD		offsetof(struct ib_user_mad, addr.pkey_index)
#define HDR_GROWTH	(HDR_NEW - HDR_OLD)
/* The kernel refuses a write shorter than a header and a MAD and RMPP header. */
#define WRITE_MIN_MAD	RMPP_HDR_END
/* What an open file's buffer holds before a longer message makes it grow. */
#define FILE_BUF_START	(HDR_NEW + MAD_SIZE)
/* ib_umad's REGISTER_AGENT2 flags: those it knows. */
#define REG_FLAGS_CAP	UMAD_USER_RMPP

/* A read(2) waiting for a MAD. */
struct kfs_read {
	fuse_req_t req;
	size_t size;
	off_t off;
	struct umad_file *f;
	struct kfs_read *next;
};

/* An open umadN. */
struct umad_file {
	struct kfs_watch watch;		/* first: what epoll reports */
	struct kfs_open open;
	struct kfs *k;
	int portid;
	size_t hdr_size;		/* HDR_OLD or HDR_NEW */
	int already_used;		/* an agent was registered: the layout is fixed */
	int armed;			/* epoll watches the port */
	struct kfs_read *reads, *reads_tail;
	struct fuse_pollhandle *ph;
	uint8_t *buf;			/* a message read, on its way to the reader */
	size_t buf_size;
	/* A message read longer than one request: its length, how much went, where the rest goes. */
	size_t rpart_len, rpart_done;
	off_t rpart_next;
	uint8_t *wbuf;			/* a message written, on its way to the backend */
	size_t wbuf_size;
	/* A write(2) coming in pieces: the bytes so far, where the next piece starts. */
	size_t wlen;
	off_t wnext;
};

/* An open of issmN waiting for the device. */
struct kfs_wait {
	fuse_req_t req;
	struct fuse_file_info fi;
	struct kfs *k;
	int u;
	struct kfs_wait *next;
};

static void flush_write(struct umad_file *f);

static struct umad_file *file_of(struct fuse_file_info *fi)
{
	return (struct umad_file *)(uintptr_t)fi->fh;
}

/* epoll watches the port only while a read or a poll waits: else a queued MAD would spin it. */
static void arm(struct umad_file *f, int on)
{
	struct epoll_event ev = { .events = on ? EPOLLIN : 0, .data.ptr = &f->watch };

	if (f->armed == on)
		return;
	if (epoll_ctl(f->k->epfd, EPOLL_CTL_MOD, f->portid, &ev) == 0)
		f->armed = on;
}

/* Make *buf (of *have bytes) hold size bytes, keeping what it holds. */
static int grow_buf(uint8_t **buf, size_t *have, size_t size)
{
	uint8_t *b;

	if (size <= *have)
		return 0;
	b = realloc(*buf, size);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*have = size;
	return 0;
}

static int grow(struct umad_file *f, size_t size)
{
	return grow_buf(&f->buf, &f->buf_size, size);
}

/*
 * The kernel cuts a read(2) or write(2) longer than one request into
 * requests of a request's pages (less the buffer's offset in its first
 * page): one this long may be a piece of a longer one.
 */
static size_t piece_min(const struct kfs *k)
{
	long page = sysconf(_SC_PAGESIZE);

	return k->max_write - (size_t)(page > 0 ? page : 4096) + 1;
}

/* --- issm ---------------------------------------------------------------------------- */

/* Hold the backend's issm device of umad port u for an open of ours.  0 or -errno. */
static int issm_take(struct kfs *k, int u)
{
	struct kfs_umad *um = &k->umads[u];
	char path[PATH_MAX];
	int r = k->be->get_issm_path(k->cas[um->ca].name, um->port, path, sizeof(path));

	if (r < 0)
		return r;
	um->issm_fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	return um->issm_fd < 0 ? -errno : 0;
}

static void issm_interrupted(fuse_req_t req, void *data)
{
	struct kfs_wait *w = data, **at;
	struct kfs_umad *um = &w->k->umads[w->u];

	for (at = &um->issm_waiters; *at; at = &(*at)->next) {
		if (*at == w) {
			*at = w->next;
			fuse_reply_err(req, EINTR);
			free(w);
			return;
		}
	}
}

static void issm_open(struct kfs *k, fuse_req_t req, int u, struct fuse_file_info *fi)
{
	struct kfs_umad *um = &k->umads[u];
	struct kfs_wait *w, **at;
	int r;

	fi->direct_io = 1;
	fi->nonseekable = 1;
	if (um->issm_fd < 0) {
		r = issm_take(k, u);
		if (r < 0)
			fuse_reply_err(req, -r);
		else
			fuse_reply_open(req, fi);
		return;
	}
	if (fi->flags & O_NONBLOCK) {
		fuse_reply_err(req, EAGAIN);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	*w = (struct kfs_wait){ .req = req, .fi = *fi, .k = k, .u = u };
	for (at = &um->issm_waiters; *at; at = &(*at)->next)
		;
	*at = w;
	/* May answer at once (a signal came first): w is not touched after. */
	fuse_req_interrupt_func(req, issm_interrupted, w);
}

static void issm_release(struct kfs *k, int u)
{
	struct kfs_umad *um = &k->umads[u];

	if (um->issm_fd >= 0)
		close(um->issm_fd);
	um->issm_fd = -1;
	/* The next waiting open gets it, as the kernel's semaphore hands it on. */
	while (um->issm_waiters) {
		struct kfs_wait *w = um->issm_waiters;
		int r;

		um->issm_waiters = w->next;
		fuse_req_interrupt_func(w->req, NULL, NULL);
		r = issm_take(k, u);
		if (r < 0) {
			fuse_reply_err(w->req, -r);
		} else {
			fuse_reply_open(w->req, &w->fi);
			free(w);
			return;
		}
		free(w);
	}
}

void kfs_dev_free(struct kfs *k)
{
	int u;

	for (u = 0; u < k->n_umads; u++) {
		struct kfs_umad *um = &k->umads[u];

		while (um->issm_waiters) {
			struct kfs_wait *w = um->issm_waiters;

			um->issm_waiters = w->next;
			free(w);
		}
		if (um->issm_fd >= 0)
			close(um->issm_fd);
		um->issm_fd = -1;
	}
}

/* --- umad: open and close ------------------------------------------------------------- */

/* Close f: its port, its poll handle, the reads still waiting (their requests are gone). */
static void umad_file_free(struct umad_file *f)
{
	struct kfs *k = f->k;

	epoll_ctl(k->epfd, EPOLL_CTL_DEL, f->portid, NULL);
	k->be->close_port(f->portid);
	if (f->ph)
		fuse_pollhandle_destroy(f->ph);
	while (f->reads) {
		struct kfs_read *rd = f->reads;

		f->reads = rd->next;
		free(rd);
	}
	free(f->buf);
	free(f->wbuf);
	free(f);
}

static void release_umad(struct kfs_open *o)
{
	umad_file_free((struct umad_file *)((char *)o - offsetof(struct umad_file, open)));
}

/*
 * Answer an open of umadN as ib_umad's open does (stream_open): a file with
 * no position.  Otherwise the kernel locks the position of a file that
 * threads share around each read and write, and a write would wait for a
 * read blocked in another thread until a MAD came.
 */
static int reply_open_stream(fuse_req_t req, const struct fuse_file_info *fi)
{
	struct fuse_open_out out = {
		.fh = fi->fh, .open_flags = FOPEN_DIRECT_IO | FOPEN_NONSEEKABLE | FOPEN_STREAM,
	};
	struct iovec iov = { .iov_base = &out, .iov_len = sizeof(out) };

	return fuse_reply_iov(req, &iov, 1);
}

static void umad_open(struct kfs *k, fuse_req_t req, int u, struct fuse_file_info *fi)
{
	struct kfs_umad *um = &k->umads[u];
	struct epoll_event ev = { .events = 0 };
	struct umad_file *f = calloc(1, sizeof(*f));
	size_t hdr_size = 0;
	int open_errno = 0, r;

	if (!f || grow(f, FILE_BUF_START) < 0) {
		free(f);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	f->watch.kind = KFS_WATCH_PORT;
	f->k = k;
	f->hdr_size = HDR_OLD;
	f->portid = k->be->open_port(k->cas[um->ca].name, um->port, &hdr_size, &open_errno);
	r = f->portid < 0 ? (open_errno ? -open_errno : f->portid)
	  : hdr_size != HDR_NEW ? -EPROTO : 0;
	if (r == 0) {
		if (k->be->watch_fd)
			k->be->watch_fd(f->portid);
		ev.data.ptr = &f->watch;
		if (epoll_ctl(k->epfd, EPOLL_CTL_ADD, f->portid, &ev) < 0)
			r = -errno;
	}
	if (r < 0) {
		if (f->portid >= 0)
			k->be->close_port(f->portid);
		free(f->buf);
		free(f);
		fuse_reply_err(req, -r);
		return;
	}
	fi->fh = (uintptr_t)f;
	if (reply_open_stream(req, fi) < 0)
		umad_file_free(f);	/* the opener is gone (interrupted): no release will come */
	else
		kfs_open_add(k, &f->open, release_umad);
}

void kfs_dev_open(struct kfs *k, fuse_req_t req, const struct kfs_node *n,
		  struct fuse_file_info *fi)
{
	if (n->kind == KFS_ISSM)
		issm_open(k, req, n->index, fi);
	else
		umad_open(k, req, n->index, fi);
}

void kfs_dev_release(struct kfs *k, fuse_req_t req, const struct kfs_node *n,
		     struct fuse_file_info *fi)
{
	struct umad_file *f;

	if (n->kind == KFS_ISSM) {
		issm_release(k, n->index);
		fuse_reply_err(req, 0);
		return;
	}
	f = file_of(fi);
	/* No read waits here: a read holds the file open. */
	flush_write(f);
	kfs_open_remove(k, &f->open);
	umad_file_free(f);
	fuse_reply_err(req, 0);
}

/* --- umad: read ----------------------------------------------------------------------- */

/* The message in f->buf (new layout, n bytes) in the file's layout: its new length. */
static size_t to_file_layout(struct umad_file *f, size_t n)
{
	struct ib_user_mad *hdr = (struct ib_user_mad *)f->buf;

	if (f->hdr_size == HDR_NEW)
		return n;
	hdr->length -= (uint32_t)HDR_GROWTH;
	if (n > HDR_NEW)
		memmove(f->buf + HDR_OLD, f->buf + HDR_NEW, n - HDR_NEW);
	return n > HDR_NEW ? n - HDR_GROWTH : HDR_OLD;
}

/*
 * Put the ENOSPC header where the reader of req asked its read(2) to go:
 * the thread is blocked in that call, so /proc/TID/syscall shows its
 * arguments.  0, or -errno when that cannot be done.
 */
static int header_to_reader(fuse_req_t req, const void *hdr, size_t len)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	char path[64], line[256];
	unsigned long long nr, fd, addr, count;
	struct iovec local = { .iov_base = (void *)hdr, .iov_len = len }, remote;
	FILE *sf;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)ctx->pid);
	sf = fopen(path, "re");
	if (!sf)
		return -errno;
	ok = fgets(line, sizeof(line), sf) &&
	     sscanf(line, "%llu %llx %llx %llx", &nr, &fd, &addr, &count) == 4;
	fclose(sf);
	if (!ok || nr != SYS_read || count < len)
		return -ENOTSUP;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	return process_vm_writev(ctx->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -errno;
}

/*
 * Take a message for a read of size bytes at off.  Replies to req and
 * returns 1, or returns 0 when nothing is queued.
 */
static int try_read(struct umad_file *f, fuse_req_t req, size_t size, off_t off)
{
	struct kfs *k = f->k;
	size_t want = size + (HDR_NEW - f->hdr_size), len;
	ssize_t n = k->be->recv(f->portid, f->buf, want < f->buf_size ? want : f->buf_size);

	if (n == -ENOSPC && want > f->buf_size) {
		/*
		 * Longer than the buffer, maybe not than the reader's: the header
		 * says.  A request of a piece's size may be the first piece of a
		 * read(2) that takes the whole message.
		 */
		size_t need = ((const struct ib_user_mad *)f->buf)->length;

		if ((need <= want || size >= piece_min(k)) && grow(f, need) == 0)
			n = k->be->recv(f->portid, f->buf, need);
	}
	if (n == -EAGAIN)
		return 0;
	if (n >= 0) {
		len = to_file_layout(f, (size_t)n);
		if (len > size) {
			f->rpart_len = len;
			f->rpart_done = size;
			f->rpart_next = off + (off_t)size;
			len = size;
		}
		fuse_reply_buf(req, (const char *)f->buf, len);
		return 1;
	}
	if (n == -ENOSPC) {
		to_file_layout(f, HDR_NEW);
		header_to_reader(req, f->buf, f->hdr_size);
	}
	fuse_reply_err(req, (int)-n);
	return 1;
}

/* The next piece of a message longer than one request, when req continues its read(2). */
static int read_piece(struct umad_file *f, fuse_req_t req, size_t size, off_t off)
{
	size_t n;

	if (!f->rpart_len)
		return 0;
	if (off != f->rpart_next) {
		f->rpart_len = 0;	/* its reader took no more of it */
		return 0;
	}
	n = f->rpart_len - f->rpart_done < size ? f->rpart_len - f->rpart_done : size;
	fuse_reply_buf(req, (const char *)f->buf + f->rpart_done, n);
	f->rpart_done += n;
	f->rpart_next += (off_t)n;
	if (f->rpart_done == f->rpart_len)
		f->rpart_len = 0;
	return 1;
}

static void read_interrupted(fuse_req_t req, void *data)
{
	struct kfs_read *rd = data, **at, *prev = NULL;
	struct umad_file *f = rd->f;

	for (at = &f->reads; *at; prev = *at, at = &(*at)->next) {
		if (*at == rd) {
			*at = rd->next;
			if (f->reads_tail == rd)
				f->reads_tail = prev;
			fuse_reply_err(req, EINTR);
			free(rd);
			break;
		}
	}
	arm(f, f->reads || f->ph);
}

void kfs_dev_read(struct kfs *k, fuse_req_t req, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	struct umad_file *f = file_of(fi);
	struct kfs_read *rd;

	(void)k;
	flush_write(f);
	if (read_piece(f, req, size, off))
		return;
	if (size < f->hdr_size) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	/* Reads are answered in the order they came. */
	if (!f->reads && try_read(f, req, size, off))
		return;
	if (fi->flags & O_NONBLOCK) {
		fuse_reply_err(req, EAGAIN);
		return;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	*rd = (struct kfs_read){ .req = req, .size = size, .off = off, .f = f };
	if (f->reads_tail)
		f->reads_tail->next = rd;
	else
		f->reads = rd;
	f->reads_tail = rd;
	arm(f, 1);
	fuse_req_interrupt_func(req, read_interrupted, rd);
}

static int port_pending(struct umad_file *f)
{
	struct pollfd pfd = { .fd = f->portid, .events = POLLIN };

	if (f->k->be->pending)
		return f->k->be->pending(f->portid) > 0;
	return poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

/* Serve the reads and the poll waiting on f as far as what is queued goes. */
static void serve(struct umad_file *f)
{
	while (f->reads) {
		struct kfs_read *rd = f->reads;

		fuse_req_interrupt_func(rd->req, NULL, NULL);
		if (!try_read(f, rd->req, rd->size, rd->off)) {
			fuse_req_interrupt_func(rd->req, read_interrupted, rd);
			break;
		}
		f->reads = rd->next;
		if (!f->reads)
			f->reads_tail = NULL;
		free(rd);
	}
	if (f->ph && !f->reads && port_pending(f)) {
		fuse_lowlevel_notify_poll(f->ph);
		fuse_pollhandle_destroy(f->ph);
		f->ph = NULL;
	}
	arm(f, f->reads || f->ph);
}

void kfs_dev_port_ready(struct kfs *k, struct kfs_watch *w)
{
	(void)k;
	serve((struct umad_file *)w);
}

void kfs_dev_poll(struct kfs *k, fuse_req_t req, struct fuse_file_info *fi,
		  struct fuse_pollhandle *ph)
{
	struct umad_file *f = file_of(fi);
	int ready;

	(void)k;
	flush_write(f);
	ready = port_pending(f);
	if (ph) {
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		f->ph = ph;
		if (ready && !f->reads) {
			fuse_pollhandle_destroy(f->ph);
			f->ph = NULL;
		}
		arm(f, f->reads || f->ph);
	}
	fuse_reply_poll(req, POLLOUT | POLLWRNORM | (ready ? POLLIN | POLLRDNORM : 0));
}

/* --- umad: write ---------------------------------------------------------------------- */

/*
 * Send the message of len bytes in f->wbuf (the file's layout; room for
 * the new layout's header after it): the bytes written, or -errno.
 */
static ssize_t send_message(struct umad_file *f, size_t len)
{
	if (f->hdr_size == HDR_OLD) {
		struct ib_user_mad *hdr = (struct ib_user_mad *)f->wbuf;

		memmove(f->wbuf + HDR_NEW, f->wbuf + HDR_OLD, len - HDR_OLD);
		hdr->addr.pkey_index = 0;
		memset(hdr->addr.reserved, 0, sizeof(hdr->addr.reserved));
	}
	return f->k->be->send(f->portid, f->wbuf, len + (HDR_NEW - f->hdr_size));
}

/* Keep len bytes of a write in f->wbuf after what it holds (at): 0 or -ENOMEM. */
static int keep_written(struct umad_file *f, size_t at, const char *buf, size_t len)
{
	if (grow_buf(&f->wbuf, &f->wbuf_size, at + len + HDR_GROWTH) < 0)
		return -ENOMEM;
	memcpy(f->wbuf + at, buf, len);
	return 0;
}

/*
 * A write(2) that came in pieces whose last one was a whole piece: no
 * piece follows after all (the next request of the file is another), so
 * its message goes now.  Nobody waits for its result.
 */
static void flush_write(struct umad_file *f)
{
	if (!f->wlen)
		return;
	send_message(f, f->wlen);
	f->wlen = 0;
}

void kfs_dev_write(struct kfs *k, fuse_req_t req, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct umad_file *f = file_of(fi);
	int piece = size >= piece_min(k);
	size_t len = size;
	ssize_t n;

	if (f->wlen && off == f->wnext) {
		/* The next piece of a write(2) longer than one request. */
		if (keep_written(f, f->wlen, buf, size) < 0) {
			f->wlen = 0;
			fuse_reply_err(req, ENOMEM);
			return;
		}
		f->wlen += size;
		f->wnext += (off_t)size;
		if (piece) {
			fuse_reply_write(req, size);
			return;
		}
		len = f->wlen;
		f->wlen = 0;
	} else {
		flush_write(f);
		if (size < f->hdr_size + WRITE_MIN_MAD) {
			fuse_reply_err(req, EINVAL);
			return;
		}
		if (keep_written(f, 0, buf, size) < 0) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		if (piece) {
			/* Maybe the first piece of a longer write(2): the rest follows at once. */
			f->wlen = size;
			f->wnext = off + (off_t)size;
			fuse_reply_write(req, size);
			return;
		}
	}
	n = send_message(f, len);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, size);
	/* Its answer may be queued already. */
	if (f->reads || f->ph)
		serve(f);
}

/* --- umad: ioctl ---------------------------------------------------------------------- */

static int register_v1(struct umad_file *f, const struct ib_user_mad_reg_req *in,
		       struct ib_user_mad_reg_req *out)
{
	struct umad_agent_req req = {
		.qpn = in->qpn, .mgmt_class = in->mgmt_class,
		.mgmt_class_version = in->mgmt_class_version, .rmpp_version = in->rmpp_version,
		.oui = (uint32_t)in->oui[0] << 16 | (uint32_t)in->oui[1] << 8 | in->oui[2],
		.legacy = 1,
	};
	uint32_t id;
	int r;

	if (in->qpn != QP0_SMI && in->qpn != QP1_GSI)
		return -EINVAL;
	memcpy(req.method_mask, in->method_mask, sizeof(req.method_mask));
	r = f->k->be->register_agent(f->portid, &req, &id);
	if (r < 0)
		return r;
	f->already_used = 1;
	*out = *in;
	out->id = id;
	return 0;
}

static int register_v2(struct umad_file *f, const struct ib_user_mad_reg_req2 *in,
		       struct ib_user_mad_reg_req2 *out)
{
	struct umad_agent_req req = {
		.qpn = (uint8_t)in->qpn, .mgmt_class = in->mgmt_class,
		.mgmt_class_version = in->mgmt_class_version, .rmpp_version = in->rmpp_version,
		.flags = in->flags, .oui = in->oui,
		.method_mask = { in->method_mask[0], in->method_mask[1] },
	};
	uint32_t id;
	int r;

	*out = *in;
	if (in->qpn != QP0_SMI && in->qpn != QP1_GSI)
		return -EINVAL;
	if (in->flags & ~(uint32_t)REG_FLAGS_CAP) {
		out->flags = REG_FLAGS_CAP;
		return -EINVAL;
	}
	r = f->k->be->register_agent(f->portid, &req, &id);
	if (r < 0) {
		out->flags = req.flags;
		return r;
	}
	/* The new interface implies the new header layout. */
	if (!f->already_used)
		f->hdr_size = HDR_NEW;
	f->already_used = 1;
	out->id = id;
	return 0;
}

void kfs_dev_ioctl(struct kfs *k, fuse_req_t req, unsigned int cmd, struct fuse_file_info *fi,
		   unsigned flags, const void *in_buf, size_t in_size, size_t out_size)
{
	struct umad_file *f = file_of(fi);
	int r;

	(void)flags;
	flush_write(f);
	switch (cmd) {
	case IB_USER_MAD_ENABLE_PKEY:
		if (f->already_used) {
			fuse_reply_err(req, EINVAL);
			return;
		}
		f->hdr_size = HDR_NEW;
		fuse_reply_ioctl(req, 0, NULL, 0);
		return;
	case IB_USER_MAD_REGISTER_AGENT: {
		struct ib_user_mad_reg_req in, out;

		if (in_size < sizeof(in) || out_size < sizeof(out)) {
			fuse_reply_err(req, EFAULT);
			return;
		}
		memcpy(&in, in_buf, sizeof(in));
		r = register_v1(f, &in, &out);
		if (r < 0)
			fuse_reply_err(req, -r);
		else
			fuse_reply_ioctl(req, 0, &out, sizeof(out));
		return;
	}
	case IB_USER_MAD_REGISTER_AGENT2: {
		struct ib_user_mad_reg_req2 in, out;

		if (in_size < sizeof(in) || out_size < sizeof(out)) {
			fuse_reply_err(req, EFAULT);
			return;
		}
		memcpy(&in, in_buf, sizeof(in));
		r = register_v2(f, &in, &out);
		/* A refused request still carries back the flags the device knows. */
		fuse_reply_ioctl(req, r, &out, sizeof(out));
		return;
	}
	case IB_USER_MAD_UNREGISTER_AGENT: {
		uint32_t id;

		if (in_size < sizeof(id)) {
			fuse_reply_err(req, EFAULT);
			return;
		}
		memcpy(&id, in_buf, sizeof(id));
		r = k->be->unregister_agent(f->portid, id);
		if (r < 0)
			fuse_reply_err(req, -r);
		else
			fuse_reply_ioctl(req, 0, NULL, 0);
		return;
	}
	default:
		fuse_reply_err(req, ENOTTY);
	}
}
