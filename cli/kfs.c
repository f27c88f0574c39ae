/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cli/kfs.h"
#include "cli/kfs_dev.h"
#include "cli/kfs_query.h"
#include "cli/kfs_tree.h"

/* The largest write(2) one request brings: a MAD, an RMPP message of up to this size. */
#define KFS_MAX_WRITE	(1u << 20)
/* The tree never changes while mounted: the kernel may keep names and attributes this long. */
#define KFS_CACHE_S	3600.0

/* An open sysfs file: its text, made by a read from the start. */
struct text_file {
	struct kfs_open open;
	const struct kfs_node *n;
	int len;			/* -errno: the host did not answer */
	char buf[KFS_TEXT_MAX];
};

static const struct kfs_watch fuse_watch = { KFS_WATCH_FUSE };
static const struct kfs_watch extra_watch = { KFS_WATCH_EXTRA };

static struct kfs *kfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct kfs *k = userdata;

	if (conn->max_write < KFS_MAX_WRITE)
		conn->max_write = KFS_MAX_WRITE;
	k->max_write = conn->max_write;
	/* Reads of one file come in order: a MAD is taken by the read that came first. */
	conn->want &= ~FUSE_CAP_ASYNC_READ;
}

static void reply_entry(fuse_req_t req, struct kfs *k, fuse_ino_t ino)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.attr_timeout = KFS_CACHE_S;
	e.entry_timeout = KFS_CACHE_S;
	kfs_tree_stat(k, ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct kfs *k = kfs_of(req);
	fuse_ino_t ino = kfs_tree_lookup(k, parent, name);

	if (!ino)
		fuse_reply_err(req, ENOENT);
	else
		reply_entry(req, k, ino);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct kfs *k = kfs_of(req);
	struct stat st;

	(void)fi;
	if (!kfs_node_of(k, ino)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	kfs_tree_stat(k, ino, &st);
	fuse_reply_attr(req, &st, KFS_CACHE_S);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct kfs *k = kfs_of(req);
	struct kfs_node *d = kfs_node_of(k, ino);
	uint32_t child = d ? d->first_child : KFS_NO_NODE;
	size_t used = 0;
	char *buf;
	off_t at;

	(void)fi;
	if (!d || d->kind != KFS_DIR) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* Entry n (".", "..", then the children) carries offset n + 1: where the next starts. */
	for (at = 0;; at++) {
		const char *name;
		fuse_ino_t e;
		struct stat st;
		size_t len;

		if (at == 0) {
			name = ".";
			e = ino;
		} else if (at == 1) {
			name = "..";
			e = d->parent + 1;
		} else {
			if (child == KFS_NO_NODE)
				break;
			name = k->nodes[child].name;
			e = child + 1;
			child = k->nodes[child].next_sibling;
		}
		if (at < off)
			continue;
		kfs_tree_stat(k, e, &st);
		len = fuse_add_direntry(req, buf + used, size - used, name, &st, at + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void release_text(struct kfs_open *o)
{
	free(o);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct kfs *k = kfs_of(req);
	struct kfs_node *n = kfs_node_of(k, ino);
	struct text_file *t;

	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (n->kind == KFS_DIR) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (n->kind != KFS_TEXT) {
		kfs_dev_open(k, req, n, fi);
		return;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EACCES);
		return;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	t->n = n;
	t->len = -1;
	fi->fh = (uintptr_t)t;
	fi->direct_io = 1;
	if (fuse_reply_open(req, fi) < 0)
		free(t);
	else
		kfs_open_add(k, &t->open, release_text);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct kfs *k = kfs_of(req);
	struct kfs_node *n = kfs_node_of(k, ino);

	if (n && n->kind != KFS_TEXT) {
		kfs_dev_release(k, req, n, fi);
		return;
	}
	struct text_file *t = (struct text_file *)(uintptr_t)fi->fh;

	kfs_open_remove(k, &t->open);
	free(t);
	fuse_reply_err(req, 0);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct kfs *k = kfs_of(req);
	struct kfs_node *n = kfs_node_of(k, ino);
	struct text_file *t;

	if (n && n->kind == KFS_ISSM) {
		/* ib_umad's issm has no read; an open of it has no umad file behind its handle. */
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (n && n->kind != KFS_TEXT) {
		kfs_dev_read(k, req, size, off, fi);
		return;
	}
	t = (struct text_file *)(uintptr_t)fi->fh;
	/* A read from the start shows the host as it is now, as sysfs does. */
	if (off == 0 || t->len == -1)
		t->len = kfs_tree_text(k, t->n, t->buf, sizeof(t->buf));
	if (t->len < 0) {
		fuse_reply_err(req, -t->len);
		t->len = -1;
		return;
	}
	if (off >= t->len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, t->buf + off,
			       (size_t)(t->len - off) < size ? (size_t)(t->len - off) : size);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct kfs *k = kfs_of(req);
	struct kfs_node *n = kfs_node_of(k, ino);

	if (n && n->kind == KFS_UMAD)
		kfs_dev_write(k, req, buf, size, off, fi);
	else
		fuse_reply_err(req, n && n->kind == KFS_ISSM ? EINVAL : EACCES);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static void op_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct kfs *k = kfs_of(req);
	struct kfs_node *n = kfs_node_of(k, ino);

	if (n && n->kind == KFS_UMAD) {
		kfs_dev_poll(k, req, fi, ph);
		return;
	}
	if (ph)
		fuse_pollhandle_destroy(ph);
	fuse_reply_poll(req, POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM);
}

static void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		     struct fuse_file_info *fi, unsigned flags, const void *in_buf, size_t in_size,
		     size_t out_size)
{
	struct kfs *k = kfs_of(req);
	struct kfs_node *n = kfs_node_of(k, ino);

	(void)arg;
	if (n && n->kind == KFS_UMAD)
		kfs_dev_ioctl(k, req, cmd, fi, flags, in_buf, in_size, out_size);
	else
		fuse_reply_err(req, ENOTTY);
}

static const struct fuse_lowlevel_ops kfs_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.readdir = op_readdir,
	.open = op_open,
	.release = op_release,
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.poll = op_poll,
	.ioctl = op_ioctl,
};

int kfs_new(const struct umad_backend *be, struct kfs **out, struct umad_err *err)
{
	struct kfs *k = calloc(1, sizeof(*k));
	int r;

	if (!k)
		return umad_err_set(err, -ENOMEM, "out of memory");
	k->be = be;
	k->uid = getuid();
	k->gid = getgid();
	k->max_write = KFS_MAX_WRITE;
	clock_gettime(CLOCK_REALTIME, &k->start);
	k->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (k->epfd < 0) {
		r = umad_err_set(err, -errno, "epoll: %s", strerror(errno));
		free(k);
		return r;
	}
	r = kfs_query_new(k);
	if (r == 0)
		r = kfs_tree_build(k);
	if (r < 0) {
		umad_err_set(err, r, "cannot read the host's devices from the %s backend: %s",
			     be->name, strerror(-r));
		kfs_free(k);
		return r;
	}
	*out = k;
	return 0;
}

/* The session, ready to mount (options as a mount of ours takes them). */
static int new_session(struct kfs *k, struct umad_err *err)
{
	char *argv[] = { "umad", "-o", "default_permissions,fsname=umad-kernel,subtype=umad",
			 NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);

	k->se = fuse_session_new(&args, &kfs_ops, sizeof(kfs_ops), k);
	/* Parsing them made args a copy of its own: the session keeps nothing of it. */
	fuse_opt_free_args(&args);
	if (!k->se)
		return umad_err_set(err, -ENOMEM, "cannot start a FUSE session");
	return 0;
}

/* Watch the session's descriptor, made non-blocking: the loop takes what is there. */
static int watch_session(struct kfs *k, struct umad_err *err)
{
	int fd = fuse_session_fd(k->se);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = (void *)&fuse_watch };

	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    epoll_ctl(k->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return umad_err_set(err, -errno, "cannot watch the FUSE channel: %s",
				    strerror(errno));
	return 0;
}

int kfs_mount(struct kfs *k, const char *dir, struct umad_err *err)
{
	int r = new_session(k, err);

	if (r < 0)
		return r;
	if (fuse_session_mount(k->se, dir) != 0)
		return umad_err_set(err, -EPERM, "cannot mount the host's files at %s (FUSE)", dir);
	k->mounted = 1;
	return watch_session(k, err);
}

int kfs_attach(struct kfs *k, int fuse_fd, struct umad_err *err)
{
	char path[32];
	int r = new_session(k, err), fd;

	if (r < 0)
		return r;
	/* The session closes the descriptor it serves: its own copy. */
	fd = fcntl(fuse_fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return umad_err_set(err, -errno, "cannot serve FUSE on descriptor %d: %s", fuse_fd,
				    strerror(errno));
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	if (fuse_session_mount(k->se, path) != 0) {
		close(fd);
		return umad_err_set(err, -EBADF, "cannot serve FUSE on descriptor %d", fuse_fd);
	}
	return watch_session(k, err);
}

/* Take every request waiting on the channel.  0, or 1 when the file system went away. */
static int take_requests(struct kfs *k)
{
	int r, gone = 0;

	for (;;) {
		/* Into the one buffer the session keeps (it is large: allocated once). */
		r = fuse_session_receive_buf(k->se, &k->fbuf);
		if (r == -EINTR)
			continue;
		if (r == -EAGAIN)
			break;
		if (r <= 0) {
			gone = 1;	/* unmounted (0, -ENODEV) or broken */
			break;
		}
		fuse_session_process_buf(k->se, &k->fbuf);
		if (fuse_session_exited(k->se)) {
			gone = 1;
			break;
		}
	}
	return gone;
}

int kfs_serve(struct kfs *k, int extra_fd, int timeout_ms)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = (void *)&extra_watch };
	struct epoll_event events[32];
	int r = 0, gone = 0, n, i;

	if (extra_fd >= 0 && epoll_ctl(k->epfd, EPOLL_CTL_ADD, extra_fd, &ev) < 0 &&
	    errno != EEXIST)
		return -errno;
	for (;;) {
		n = epoll_wait(k->epfd, events, sizeof(events) / sizeof(events[0]), timeout_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0) {
			r = -ETIMEDOUT;
			break;
		}
		/*
		 * The ports first: a request taken from the channel may close a
		 * file whose port is among these events.
		 */
		for (i = 0; i < n; i++) {
			struct kfs_watch *w = events[i].data.ptr;

			if (w->kind == KFS_WATCH_PORT)
				kfs_dev_port_ready(k, w);
		}
		for (i = 0; i < n; i++) {
			struct kfs_watch *w = events[i].data.ptr;

			if (w->kind == KFS_WATCH_FUSE && take_requests(k))
				gone = 1;
			else if (w->kind == KFS_WATCH_EXTRA)
				r = 1;
		}
		if (gone) {
			r = 0;
			break;
		}
		if (r == 1)
			break;
	}
	if (extra_fd >= 0)
		epoll_ctl(k->epfd, EPOLL_CTL_DEL, extra_fd, NULL);
	return r;
}

void kfs_unmount(struct kfs *k)
{
	if (k->se && k->mounted)
		fuse_session_unmount(k->se);
	k->mounted = 0;
}

void kfs_free(struct kfs *k)
{
	if (!k)
		return;
	kfs_unmount(k);
	while (k->open_files) {
		struct kfs_open *o = k->open_files;

		kfs_open_remove(k, o);
		o->release(o);
	}
	kfs_dev_free(k);
	if (k->se)
		fuse_session_destroy(k->se);
	free(k->fbuf.mem);
	kfs_query_free(k);
	kfs_tree_free(k);
	if (k->epfd >= 0)
		close(k->epfd);
	free(k);
}
