/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The FUSE floor of a MAD through umad kernel's device files: what the
 * kernel's FUSE path costs when the server does no work at all.
 *
 * A server mounts a file system as umad kernel does for a command (its own
 * mount namespace, a detached FUSE mount through kns_fuse_mount_detached, a
 * libfuse session with kfs.c's options on that descriptor, reads in order)
 * holding one regular file, umad0, opened as kfs_dev.c opens a umadN (direct
 * I/O, no position).  A client process opens it and, per MAD, makes the
 * requests libibumad's umad_send and umad_recv make on a umadN: a write(2)
 * of the MAD, a poll(2) for POLLIN, a read(2) of the answer.  The server
 * answers each request at once: the write taken, the file ready, a read
 * given a MAD's bytes.
 *
 * Both run where umad kernel runs itself and its command: on the CPU this
 * process starts on, CPU N with UMAD_KERNEL_CPU=N, wherever the scheduler
 * puts them with UMAD_KERNEL_CPU=any.
 *
 * LOOP says how the server takes its requests:
 *   blocking  a read(2) of the FUSE channel that waits, one request each
 *             (libfuse's own single-threaded loop): the floor;
 *   epoll     the channel non-blocking, epoll_wait, then reads until EAGAIN,
 *             as kfs_serve does: what that loop adds to the floor.
 *
 * The client prints, as bench/dr_rtt.c does:
 *   COUNT MADs (write, poll, read) in S s: R per second, U us each
 * Usage: fuse_floor COUNT [blocking|epoll]
 */
#include "config.h"

#define FUSE_USE_VERSION 35
#include <fuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fuse.h>	/* FOPEN_STREAM, which libfuse 3.14's fuse_file_info cannot say */

#include "cli/kernel_ns.h"

/* What libibumad writes and reads per MAD: struct ib_user_mad (64 bytes) and a 256-byte MAD. */
#define MAD_BYTES	320
#define FILE_NAME	"umad0"
#define FILE_INO	2
/* As kfs.c: the largest write one request brings, and how long the kernel may cache names. */
#define MAX_WRITE	(1u << 20)
#define CACHE_S		3600.0

static volatile sig_atomic_t child_ended;
static int released;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --- the server ----------------------------------------------------------------------- */

static void file_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_nlink = ino == FUSE_ROOT_ID ? 2 : 1;
	/* kfs_tree.c's modes: the root a directory, a umadN a regular file of its owner's. */
	st->st_mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0555 : S_IFREG | 0600;
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	if (conn->max_write < MAX_WRITE)
		conn->max_write = MAX_WRITE;
	/* As kfs.c: reads of one file come in order. */
	conn->want &= ~FUSE_CAP_ASYNC_READ;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, FILE_NAME)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = FILE_INO;
	e.attr_timeout = CACHE_S;
	e.entry_timeout = CACHE_S;
	file_stat(FILE_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (ino != FUSE_ROOT_ID && ino != FILE_INO) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	file_stat(ino, &st);
	fuse_reply_attr(req, &st, CACHE_S);
}

/* As kfs_dev.c answers an open of umadN: direct I/O, no position (a stream). */
static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fuse_open_out out = {
		.fh = fi->fh, .open_flags = FOPEN_DIRECT_IO | FOPEN_NONSEEKABLE | FOPEN_STREAM,
	};
	struct iovec iov = { .iov_base = &out, .iov_len = sizeof(out) };

	if (ino != FILE_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	fuse_reply_iov(req, &iov, 1);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	static const char mad[MAD_BYTES];

	(void)ino;
	(void)off;
	(void)fi;
	fuse_reply_buf(req, mad, size < sizeof(mad) ? size : sizeof(mad));
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	(void)ino;
	(void)buf;
	(void)off;
	(void)fi;
	fuse_reply_write(req, size);
}

static void op_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	(void)ino;
	(void)fi;
	/* Always ready: no wake-up will ever be owed. */
	if (ph)
		fuse_pollhandle_destroy(ph);
	fuse_reply_poll(req, POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

/* The client closed the file: the run is over. */
static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	if (ino == FILE_INO)
		released = 1;
	fuse_reply_err(req, 0);
}

static const struct fuse_lowlevel_ops floor_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.open = op_open,
	.release = op_release,
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.poll = op_poll,
};

/* A session on fuse_fd (mounted already), with kfs.c's options: NULL after saying why. */
static struct fuse_session *new_session(int fuse_fd)
{
	char *argv[] = { "fuse_floor", "-o", "default_permissions,fsname=umad-kernel,subtype=umad",
			 NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_session *se = fuse_session_new(&args, &floor_ops, sizeof(floor_ops), NULL);
	char path[32];
	int fd;

	fuse_opt_free_args(&args);
	if (!se) {
		fprintf(stderr, "fuse_floor: cannot start a FUSE session\n");
		return NULL;
	}
	/* As kfs_attach: the session closes the descriptor it serves, so its own copy. */
	fd = fcntl(fuse_fd, F_DUPFD_CLOEXEC, 3);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	if (fd < 0 || fuse_session_mount(se, path) != 0) {
		fprintf(stderr, "fuse_floor: cannot serve FUSE on descriptor %d\n", fd);
		if (fd >= 0)
			close(fd);
		fuse_session_destroy(se);
		return NULL;
	}
	return se;
}

/* One request taken and answered: 1, 0 when none was there (EAGAIN, EINTR), -1 when the channel is gone. */
static int take_one(struct fuse_session *se, struct fuse_buf *fbuf)
{
	int r = fuse_session_receive_buf(se, fbuf);

	if (r == -EINTR || r == -EAGAIN)
		return 0;
	if (r <= 0)
		return -1;
	fuse_session_process_buf(se, fbuf);
	return fuse_session_exited(se) ? -1 : 1;
}

/* Blocking reads, one request each: 0 once the client closed its file or ended. */
static int serve_blocking(struct fuse_session *se, struct fuse_buf *fbuf)
{
	while (!released && !child_ended)
		if (take_one(se, fbuf) < 0)
			return -1;
	return 0;
}

/* As kfs_serve and take_requests: epoll_wait, then every request there, until EAGAIN. */
static int serve_epoll(struct fuse_session *se, struct fuse_buf *fbuf)
{
	int fd = fuse_session_fd(se), epfd = epoll_create1(EPOLL_CLOEXEC), r = 0;
	struct epoll_event ev = { .events = EPOLLIN }, events[32];

	if (epfd < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		fprintf(stderr, "fuse_floor: cannot watch the FUSE channel: %s\n", strerror(errno));
		if (epfd >= 0)
			close(epfd);
		return -1;
	}
	while (!released && !child_ended && r >= 0) {
		int n = epoll_wait(epfd, events, sizeof(events) / sizeof(events[0]), -1);

		if (n < 0 && errno != EINTR) {
			r = -1;
			break;
		}
		while (n > 0 && (r = take_one(se, fbuf)) > 0)
			;
	}
	close(epfd);
	return r < 0 ? -1 : 0;
}

/* --- the client ----------------------------------------------------------------------- */

/* COUNT MADs as libibumad makes them on the file: its exit status. */
static int client(int tree_fd, long count)
{
	char buf[MAD_BYTES];
	struct pollfd pfd;
	double start, elapsed;
	long i;
	int fd;

	/* Its file dies with the server: so does it, rather than wait on a gone channel. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	fd = openat(tree_fd, FILE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fuse_floor: cannot open %s: %s\n", FILE_NAME, strerror(errno));
		return 1;
	}
	memset(buf, 0, sizeof(buf));
	start = now();
	for (i = 0; i < count; i++) {
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || poll(&pfd, 1, 5000) != 1 ||
		    read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "fuse_floor: MAD %ld: %s\n", i, strerror(errno));
			return 1;
		}
	}
	elapsed = now() - start;
	printf("%ld MADs (write, poll, read) in %.3f s: %.0f per second, %.2f us each\n", count,
	       elapsed, (double)count / elapsed, elapsed * 1e6 / (double)count);
	close(fd);
	/* The caller ends with _exit, which flushes nothing. */
	return fflush(stdout) == 0 ? 0 : 1;
}

/* --- setting up ----------------------------------------------------------------------- */

/* As umad kernel's place_on_cpu: one CPU (this one, or UMAD_KERNEL_CPU=N), or any. */
static int place_on_cpu(void)
{
	const char *v = getenv("UMAD_KERNEL_CPU");
	cpu_set_t one;
	long cpu;
	char *end;

	if (v && !strcmp(v, "any"))
		return 0;
	if (v && *v) {
		errno = 0;
		cpu = strtol(v, &end, 10);
		if (errno || *end || cpu < 0 || cpu >= CPU_SETSIZE) {
			fprintf(stderr, "fuse_floor: UMAD_KERNEL_CPU=%s: a CPU number or any\n", v);
			return -1;
		}
	} else {
		cpu = sched_getcpu();
		if (cpu < 0)
			return 0;
	}
	CPU_ZERO(&one);
	CPU_SET((int)cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0) {
		fprintf(stderr, "fuse_floor: cannot run on CPU %ld: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

static void on_child(int sig)
{
	(void)sig;
	child_ended = 1;
}

int main(int argc, char **argv)
{
	struct umad_err err = UMAD_ERR_INIT;
	struct sigaction sa = { .sa_handler = on_child };	/* no SA_RESTART: a wait ends */
	struct fuse_buf fbuf = { .mem = NULL };
	struct fuse_session *se;
	const char *loop = argc > 2 ? argv[2] : "blocking";
	long count = argc > 1 ? atol(argv[1]) : 0;
	int fuse_fd, tree_fd, status = 1, served, wstatus;
	pid_t child;

	if (argc < 2 || argc > 3 || count < 1 || (strcmp(loop, "blocking") && strcmp(loop, "epoll"))) {
		fprintf(stderr, "usage: fuse_floor COUNT [blocking|epoll]\n");
		return 2;
	}
	if (place_on_cpu() < 0)
		return 1;
	if (kns_enter(&err) < 0) {
		fprintf(stderr, "fuse_floor: %s\n", umad_err_text(&err));
		return 1;
	}
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		fprintf(stderr, "fuse_floor: /dev/fuse: %s\n", strerror(errno));
		return 1;
	}
	tree_fd = kns_fuse_mount_detached(fuse_fd, "umad-kernel", &err);
	if (tree_fd < 0) {
		fprintf(stderr, "fuse_floor: %s\n", umad_err_text(&err));
		return 1;
	}
	se = new_session(fuse_fd);
	if (!se)
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	fflush(stdout);
	child = fork();
	if (child < 0) {
		fprintf(stderr, "fuse_floor: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		/*
		 * The channel only in the server: with a copy of it here, an exit
		 * of the client whose server is gone would wait for ever for the
		 * answer to its close's FLUSH (the channel is closed after it).
		 */
		close(fuse_session_fd(se));
		close(fuse_fd);
		_exit(client(tree_fd, count));
	}
	served = strcmp(loop, "epoll") ? serve_blocking(se, &fbuf) : serve_epoll(se, &fbuf);
	if (served < 0) {
		fprintf(stderr, "fuse_floor: the FUSE channel broke\n");
		kill(child, SIGKILL);
	}
	/* The client's close came before its exit: it is ending, if it has not. */
	if (waitpid(child, &wstatus, 0) == child && WIFEXITED(wstatus) && served == 0)
		status = WEXITSTATUS(wstatus);
	else if (served == 0)
		fprintf(stderr, "fuse_floor: the client ended abnormally\n");
	fuse_session_destroy(se);
	free(fbuf.mem);
	close(tree_fd);
	close(fuse_fd);
	return status;
}
