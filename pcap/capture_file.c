/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Safe creation of capture files (capture_file.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_file.h"
#include "base/file_kind.h"

/* -code, with why in err. */
static int __attribute__((format(printf, 3, 4)))
fail(struct umad_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	umad_err_vset(err, -code, fmt, ap);
	va_end(ap);
	return -code;
}

/* A call failed with errno: -errno, and the system's reason. */
static int sys_fail(struct umad_err *err)
{
	int e = errno;

	return fail(err, e, "%s", strerror(e));
}

/* fchmod(2) failed: -errno, and why. */
static int not_private(struct umad_err *err)
{
	int e = errno;

	return fail(err, e, "cannot make it mode 0600: %s", strerror(e));
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * The bytes locked: every writer holds a read lock on PRESENCE_BYTE while
 * it has the file open, and the write lock on WRITE_BYTE while it writes.
 * Locks beyond the end of a file are allowed, and none of them is data.
 */
#define PRESENCE_BYTE	0
#define WRITE_BYTE	1

/*
 * An open file description lock of type on one byte; 0 or -errno.  Where
 * the file system has no such locks (ENOLCK, or a kernel without OFD
 * locks: EINVAL), a file is captured into as if by one process at a time.
 */
static int lock_byte(int fd, short type, off_t byte, int wait)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };
	int r;

	do
		r = fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &l);
	while (r < 0 && errno == EINTR);
	if (r < 0 && (errno == ENOLCK || errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS))
		return 0;
	return r < 0 ? -errno : 0;
}

/* Does a process other than this description hold a presence lock?  For a read-only descriptor. */
static int presence_elsewhere(int fd)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = PRESENCE_BYTE,
			   .l_len = 1 };

	return fcntl(fd, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK;
}

int capture_file_lock(int fd)
{
	return lock_byte(fd, F_WRLCK, WRITE_BYTE, 1);
}

void capture_file_unlock(int fd)
{
	lock_byte(fd, F_UNLCK, WRITE_BYTE, 0);
}

/* Writes must not fail with EAGAIN: only the open needed not to block. */
static void blocking(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

/*
 * Create path anew and hold its presence lock; 0 and *fd, 1 when something
 * is there already (look and try again), or -errno.
 */
static int create_locked(const char *path, int *fd, struct umad_err *err)
{
	struct stat opened, named;

	*fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		   0600);
	if (*fd < 0) {
		if (errno == EEXIST)
			return 1;
		return sys_fail(err);
	}
	/*
	 * Someone who found it before we locked it may be replacing it: then
	 * the lock is theirs, or the name no longer leads to our file.  The
	 * lock is exclusive until the file is ready, then shared with others
	 * who append.
	 */
	if (lock_byte(*fd, F_WRLCK, PRESENCE_BYTE, 0) < 0 || fstat(*fd, &opened) < 0 ||
	    lstat(path, &named) < 0 || !same_file(&opened, &named)) {
		close(*fd);
		*fd = -1;
		return fail(err, EBUSY,
			    "another process started a capture into it at the same time");
	}
	/* The umask may have taken more than group and other away; 0600 is the promise. */
	if (fchmod(*fd, 0600) < 0) {
		int r = not_private(err);

		unlink(path);
		close(*fd);
		*fd = -1;
		return r;
	}
	lock_byte(*fd, F_RDLCK, PRESENCE_BYTE, 0);	/* a downgrade: cannot fail */
	blocking(*fd);
	return 0;
}

/*
 * The file at path cannot be replaced (a directory we may not write, or
 * another user's file in a sticky one): it is written where it is only when
 * it can be made ours alone, mode 0600, before anything of it is lost.
 * 0, or -errno with why.
 */
static int make_private_in_place(int fd, const struct stat *st, struct umad_err *err)
{
	if (st->st_uid != geteuid())
		return fail(err, EPERM, "owned by user %u, and the directory does not let us "
			    "replace it: the capture would be theirs to read (remove it, or choose "
			    "another name)", (unsigned)st->st_uid);
	if (st->st_nlink > 1)
		return fail(err, EMLINK, "it has other hard links, which writing it in "
			    "place would empty, and the directory does not let us replace it");
	if ((fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDWR)
		return fail(err, EACCES, "not writable, and the directory does not let us "
			    "replace it");
	return fchmod(fd, 0600) < 0 ? not_private(err) : 0;
}

/*
 * A regular file is at path: take it away for a new one, unless another
 * process holds it.  0 (gone, or truncated in place with *fd its locked
 * descriptor when the directory may not be written), 1 to look again, or
 * -errno.
 */
static int take_over(const char *path, int *fd, struct umad_err *err)
{
	struct stat st, named;
	int r, old = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (old < 0 && errno == EACCES)
		old = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (old < 0)
		return errno == ENOENT || errno == ELOOP ? 1 : sys_fail(err);
	if (fstat(old, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(old);
		return 1;	/* it changed under us */
	}
	r = (fcntl(old, F_GETFL) & O_ACCMODE) == O_RDWR ?
	    lock_byte(old, F_WRLCK, PRESENCE_BYTE, 0) : presence_elsewhere(old) ? -EAGAIN : 0;
	if (r < 0) {
		close(old);
		if (r == -EAGAIN || r == -EACCES)
			return fail(err, EBUSY,
				    "another process is writing a capture into it "
				    "(put %%p in the name for a file per process)");
		return fail(err, -r, "%s", strerror(-r));
	}
	if (lstat(path, &named) < 0 || !same_file(&st, &named)) {
		close(old);
		return 1;
	}
	/*
	 * Replaced, not truncated: other links keep their content, and ext4
	 * would make the next truncation wait for the writeback it starts
	 * when a file truncated to zero is closed.
	 */
	if (unlink(path) == 0) {
		close(old);	/* our lock on it is no use any more */
		return 0;
	}
	/* A directory we may not write: truncate the file where it is, if it can be made ours. */
	r = make_private_in_place(old, &st, err);
	if (r == 0 && ftruncate(old, 0) < 0)
		r = sys_fail(err);
	if (r < 0) {
		close(old);
		return r;
	}
	lock_byte(old, F_RDLCK, PRESENCE_BYTE, 0);
	blocking(old);
	*fd = old;
	return 0;
}

int capture_file_create(const char *path, struct umad_err *err)
{
	struct stat st;
	int attempt, fd = -1, r;

	for (attempt = 0; attempt < 8; attempt++) {
		r = create_locked(path, &fd, err);
		if (r <= 0)
			return r < 0 ? r : fd;
		if (lstat(path, &st) < 0) {
			if (errno == ENOENT)
				continue;	/* gone meanwhile */
			return sys_fail(err);
		}
		if (!S_ISREG(st.st_mode))
			return fail(err, S_ISDIR(st.st_mode) ? EISDIR : EEXIST, "%s, not a regular file",
				    file_kind(st.st_mode));
		r = take_over(path, &fd, err);
		if (r < 0)
			return r;
		if (r == 0 && fd >= 0)
			return fd;
	}
	return fail(err, EBUSY, "it keeps changing under us");
}

/*
 * Open the caller's own regular file at path to append to it, holding its
 * presence lock: 0 and *fd, 1 to look again (it changed under us), or
 * -errno.
 */
static int open_existing(const char *path, const struct stat *st, int *fd, struct umad_err *err)
{
	struct stat opened, named;
	int r;

	if (st->st_uid != geteuid())
		return fail(err, EPERM, "owned by user %u: the capture would be theirs to read "
			    "(remove it, or choose another name)", (unsigned)st->st_uid);
	*fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0)
		return errno == ENOENT || errno == ELOOP ? 1 : sys_fail(err);
	/* Shared with other writers; waits only while a capture is being started afresh. */
	r = fstat(*fd, &opened) < 0 ? -errno : lock_byte(*fd, F_RDLCK, PRESENCE_BYTE, 1);
	if (r < 0) {
		close(*fd);
		*fd = -1;
		return fail(err, -r, "%s", strerror(-r));
	}
	/* Replaced meanwhile (umad capture -w starting afresh): the new one is the capture. */
	if (!S_ISREG(opened.st_mode) || opened.st_uid != geteuid() || lstat(path, &named) < 0 ||
	    !same_file(&opened, &named)) {
		close(*fd);
		*fd = -1;
		return 1;
	}
	if ((opened.st_mode & 07777) != 0600 && fchmod(*fd, 0600) < 0) {
		r = not_private(err);
		close(*fd);
		*fd = -1;
		return r;
	}
	blocking(*fd);
	return 0;
}

int capture_file_append(const char *path, int *created, struct umad_err *err)
{
	struct stat st;
	int attempt, fd = -1, r;

	for (attempt = 0; attempt < 8; attempt++) {
		if (lstat(path, &st) < 0) {
			if (errno != ENOENT)
				return sys_fail(err);
			r = create_locked(path, &fd, err);
			if (r < 0 && r != -EBUSY)
				return r;
			if (r == 0) {
				*created = 1;
				return fd;
			}
			continue;	/* someone else created it first */
		}
		if (!S_ISREG(st.st_mode))
			return fail(err, S_ISDIR(st.st_mode) ? EISDIR : EEXIST, "%s, not a regular file",
				    file_kind(st.st_mode));
		r = open_existing(path, &st, &fd, err);
		if (r < 0)
			return r;
		if (r == 0) {
			*created = 0;
			return fd;
		}
	}
	return fail(err, EBUSY, "it keeps changing under us");
}

int capture_file_name(const char *pattern, pid_t pid, char *out, size_t outlen)
{
	size_t n = 0;
	int w;

	for (; *pattern; pattern++) {
		if (pattern[0] == '%' && pattern[1] == 'p') {
			w = snprintf(out + n, outlen > n ? outlen - n : 0, "%d", (int)pid);
			if (w < 0 || (size_t)w >= (outlen > n ? outlen - n : 0))
				return -ENAMETOOLONG;
			n += (size_t)w;
			pattern++;
			continue;
		}
		if (pattern[0] == '%' && pattern[1] == '%')
			pattern++;
		if (n + 1 >= outlen)
			return -ENAMETOOLONG;
		out[n++] = *pattern;
	}
	if (n >= outlen)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}
