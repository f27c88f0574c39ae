/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Writing fake sysfs trees (see sysfs_writer.h). */
#include "config.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/sysfs_values.h"
#include "backends/sysfs_writer.h"
#include "base/file_kind.h"

/* ROOT/REL[/FILE], or REL[/FILE] alone when root is NULL. */
static int in_root(char *path, size_t size, const char *root, const char *rel, const char *file)
{
	const char *sep = file ? "/" : "";

	if (!file)
		file = "";
	return root ? sysfs_path(path, size, "%s/%s%s%s", root, rel, sep, file)
		    : sysfs_path(path, size, "%s%s%s", rel, sep, file);
}

int sysfs_ca_path(char *path, size_t size, const char *root, const char *ca, const char *file)
{
	char rel[PATH_MAX];
	int r = ca ? sysfs_path(rel, sizeof(rel), SYSFS_DIR "/" SYSFS_CLASS_DIR "/%s", ca)
		   : sysfs_path(rel, sizeof(rel), SYSFS_DIR "/" SYSFS_CLASS_DIR);

	return r ? r : in_root(path, size, root, rel, file);
}

int sysfs_port_path(char *path, size_t size, const char *root, const char *ca, int port,
		    const char *file)
{
	char rel[PATH_MAX];
	int r = sysfs_path(rel, sizeof(rel), SYSFS_DIR "/" SYSFS_CLASS_DIR "/%s/" SYS_CA_PORTS_DIR
			   "/%d", ca, port);

	return r ? r : in_root(path, size, root, rel, file);
}

int sysfs_mad_path(char *path, size_t size, const char *root, const char *file)
{
	return in_root(path, size, root, SYSFS_DIR "/" SYSFS_MAD_CLASS_DIR, file);
}

int sysfs_dev_path(char *path, size_t size, const char *root, const char *file)
{
	return in_root(path, size, root, SYSFS_DEV_DIR, file);
}

/* --- the tree, walked by descriptors ------------------------------------------------ */

/*
 * Every step goes from an open directory to a name in it, never through a
 * symbolic link, and every directory on the way must be one only its owner
 * (this user or root) can change: a path in a directory someone else may
 * write is theirs to swap for a link between our look and our write.
 */
#define DIR_FLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* Deeper than any tree written here; what goes deeper is refused, not walked. */
#define MAX_DEPTH	32

/* A tree being written: its root directory, open and checked, and where to tell why a step failed. */
struct tree {
	const char *root;
	int fd;
	struct umad_err *err;
};

/* The place a reason in t->err is about, ROOT/rel[0..len)suffix, put before it with verb.  Returns r. */
static int at_place(const struct tree *t, int r, const char *verb, const char *rel, size_t len,
		    const char *suffix)
{
	size_t n = strlen(t->root);
	const char *sep = len && n && t->root[n - 1] != '/' ? "/" : "";

	return umad_err_prefix(t->err, r, "%s the fake sysfs tree at %s%s%.*s%s: ", verb, t->root,
			       sep, (int)len, rel, suffix ? suffix : "");
}

/*
 * Say why a step failed at ROOT/rel[0..len)suffix: a refusal when why is
 * given, the system's error otherwise.  Returns r.
 */
static int failed(const struct tree *t, int r, const char *rel, size_t len, const char *suffix,
		  const char *why)
{
	umad_err_set(t->err, r, "%s", why ? why : strerror(-r));
	return at_place(t, r, why ? "refusing" : "cannot write", rel, len, suffix);
}

/* Refuse ROOT/rel[0..len) for the reason fmt gives (-EPERM, returned). */
static int __attribute__((format(printf, 4, 5)))
refused(const struct tree *t, const char *rel, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	umad_err_vset(t->err, -EPERM, fmt, ap);
	va_end(ap);
	return at_place(t, -EPERM, "refusing", rel, len, NULL);
}

/*
 * Check the directory open at fd, which is ROOT/rel[0..len): refused when
 * someone other than this user (or root) can change what it holds.
 */
static int check_dir(const struct tree *t, int fd, const char *rel, size_t len)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return failed(t, -errno, rel, len, NULL, NULL);
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return refused(t, rel, len, "it belongs to user %u, not to you or root",
			       (unsigned)st.st_uid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return refused(t, rel, len,
			       "others may write in it (mode %04o, without the sticky bit)",
			       (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Why name in dirfd is no directory to enter (errno e from opening it): what it is. */
static int not_a_dir(const struct tree *t, int dirfd, const char *name, int e, const char *rel,
		     size_t len)
{
	struct stat st;

	if ((e == ELOOP || e == ENOTDIR) && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return failed(t, S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR, rel, len, NULL,
			      file_kind(st.st_mode));
	return failed(t, -e, rel, len, NULL, NULL);
}

/* Open the root ("" is "/"), made (mode 0755, not its parents) when create and missing. */
static int tree_open(struct tree *t, const char *root, int create, struct umad_err *err)
{
	int r;

	t->root = *root ? root : "/";
	t->err = err;
	t->fd = open(t->root, DIR_FLAGS);
	if (t->fd < 0 && errno == ENOENT && create) {
		if (mkdir(t->root, 0755) < 0 && errno != EEXIST)
			return failed(t, -errno, "", 0, NULL, NULL);
		t->fd = open(t->root, DIR_FLAGS);
	}
	if (t->fd < 0)
		return not_a_dir(t, AT_FDCWD, t->root, errno, "", 0);
	r = check_dir(t, t->fd, "", 0);
	if (r < 0) {
		close(t->fd);
		t->fd = -1;
	}
	return r;
}

static void tree_close(struct tree *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/*
 * Open directory rel[0..len) of the tree (empty: the root), step by step,
 * each checked, made (mode 0755) where missing when create; "." and ".."
 * are refused.  *fd is the caller's to close.
 */
static int tree_dir(const struct tree *t, const char *rel, size_t len, int create, int *fd)
{
	char name[NAME_MAX + 1];
	size_t at = 0, n;
	int cur, next, r, depth = 0;

	cur = fcntl(t->fd, F_DUPFD_CLOEXEC, 0);
	if (cur < 0)
		return failed(t, -errno, rel, 0, NULL, NULL);
	while (at < len) {
		for (n = 0; at + n < len && rel[at + n] != '/'; n++)
			;
		if (n == 0) {		/* "a//b" */
			at++;
			continue;
		}
		if (n > NAME_MAX || ++depth > MAX_DEPTH) {
			close(cur);
			return failed(t, -ENAMETOOLONG, rel, at + n, NULL, NULL);
		}
		if ((n == 1 && rel[at] == '.') || (n == 2 && rel[at] == '.' && rel[at + 1] == '.')) {
			close(cur);
			return failed(t, -EINVAL, rel, at + n, NULL, "not a name in the tree");
		}
		memcpy(name, rel + at, n);
		name[n] = '\0';
		next = openat(cur, name, DIR_FLAGS);
		if (next < 0 && errno == ENOENT && create) {
			if (mkdirat(cur, name, 0755) < 0 && errno != EEXIST) {
				r = failed(t, -errno, rel, at + n, NULL, NULL);
				close(cur);
				return r;
			}
			next = openat(cur, name, DIR_FLAGS);
		}
		r = next < 0 ? not_a_dir(t, cur, name, errno, rel, at + n)
			     : check_dir(t, next, rel, at + n);
		close(cur);
		if (r < 0) {
			if (next >= 0)
				close(next);
			return r;
		}
		cur = next;
		at += n;
	}
	*fd = cur;
	return 0;
}

/*
 * Open the directory rel is in (made where missing when create), and find
 * rel's last name: a file name, never "", "." or "..".
 */
static int tree_parent(const struct tree *t, const char *rel, int create, int *dirfd,
		       const char **name)
{
	const char *slash = strrchr(rel, '/');

	*name = slash ? slash + 1 : rel;
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, ".."))
		return failed(t, -EINVAL, rel, strlen(rel), NULL, "not a file name");
	return tree_dir(t, rel, slash ? (size_t)(slash - rel) : 0, create, dirfd);
}

/* The longest value compared before a rewrite: a sysfs attribute holds a page at most. */
#define SYSFS_VALUE_MAX	4096

/*
 * Whether name in dirfd is a regular file (not a link) that holds value
 * already.  A rewrite of the same value is skipped: replacing a file frees
 * the old one, and on a file system mounted with discard each freed file
 * waits for the disk, which a busy machine makes slow -- and a tree is
 * rewritten on every change notice, most of which change none of its files.
 */
static int holds(int dirfd, const char *name, const char *value, size_t n)
{
	char buf[SYSFS_VALUE_MAX + 1];
	struct stat st;
	ssize_t got;
	int fd, same;

	if (n > SYSFS_VALUE_MAX)
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n &&
	       (got = read(fd, buf, sizeof(buf))) >= 0 && (size_t)got == n && !memcmp(buf, value, n);
	close(fd);
	return same;
}

/*
 * Write name in directory dirfd (ROOT/rel) through NAME.tmp, created anew
 * and never through a link, then renamed over name: a link at either name
 * is replaced, what it points to untouched.  A file that holds the value
 * already is left as it is.
 */
static int put_at(const struct tree *t, int dirfd, const char *rel, const char *name,
		  const char *value)
{
	char tmp[NAME_MAX + 1];
	size_t n = strlen(value), done = 0;
	int fd, attempt, r = 0;

	if (holds(dirfd, name, value, n))
		return 0;
	if (sysfs_path(tmp, sizeof(tmp), "%s.tmp", name))
		return failed(t, -ENAMETOOLONG, rel, strlen(rel), ".tmp", NULL);
	for (attempt = 0;; attempt++) {
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST || attempt)
			break;
		/* Left by a writer that died: its name goes, never what it leads to. */
		if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
			break;
	}
	if (fd < 0)
		return failed(t, -errno, rel, strlen(rel), ".tmp", NULL);
	while (!r && done < n) {
		ssize_t w = write(fd, value + done, n - done);

		if (w > 0)
			done += (size_t)w;
		else if (w == 0)
			r = -EIO;
		else if (errno != EINTR)
			r = -errno;
	}
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r) {
		unlinkat(dirfd, tmp, 0);
		return failed(t, r, rel, strlen(rel), NULL, NULL);
	}
	return 0;
}

/* Write ROOT/rel, making its directories. */
static int tree_put(const struct tree *t, const char *rel, const char *value)
{
	const char *name;
	int dirfd, r = tree_parent(t, rel, 1, &dirfd, &name);

	if (r < 0)
		return r;
	r = put_at(t, dirfd, rel, name, value);
	close(dirfd);
	return r;
}

/* Create ROOT/rel empty (mode 0600) where absent; a regular file there is kept as it is. */
static int tree_touch(const struct tree *t, const char *rel)
{
	const char *name;
	struct stat st;
	int dirfd, fd, r = tree_parent(t, rel, 1, &dirfd, &name);

	if (r < 0)
		return r;
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else if (errno != EEXIST)
		r = failed(t, -errno, rel, strlen(rel), NULL, NULL);
	else if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		r = failed(t, -errno, rel, strlen(rel), NULL, NULL);
	else if (!S_ISREG(st.st_mode))
		r = failed(t, S_ISLNK(st.st_mode) ? -ELOOP : -EEXIST, rel, strlen(rel), NULL,
			   file_kind(st.st_mode));
	close(dirfd);
	return r;
}

/* Remove everything in directory fd (closed here), links as links, depth first. */
static int remove_entries(int fd, int depth)
{
	DIR *d = depth > MAX_DEPTH ? NULL : fdopendir(fd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		r = depth > MAX_DEPTH ? -ELOOP : -errno;
		close(fd);
		return r;
	}
	while (!r && (e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR) {
			r = -errno;
			break;
		}
		sub = openat(dirfd(d), e->d_name, DIR_FLAGS);
		r = sub < 0 ? -errno : remove_entries(sub, depth + 1);
		if (!r && unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0)
			r = -errno;
	}
	closedir(d);
	return r;
}

/* Remove ROOT/rel, a file or a directory and all in it; absent is fine. */
static int tree_remove(const struct tree *t, const char *rel)
{
	const char *name;
	struct stat st;
	int dirfd, fd, r = tree_parent(t, rel, 0, &dirfd, &name);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = errno == ENOENT ? 0 : failed(t, -errno, rel, strlen(rel), NULL, NULL);
	} else if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			r = failed(t, -errno, rel, strlen(rel), NULL, NULL);
	} else {
		fd = openat(dirfd, name, DIR_FLAGS);
		r = fd < 0 ? -errno : remove_entries(fd, 1);
		if (!r && unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
			r = -errno;
		if (r)
			failed(t, r, rel, strlen(rel), NULL, NULL);
	}
	close(dirfd);
	return r;
}

int sysfs_mkdirs(const char *root, const char *rel)
{
	struct tree t;
	int fd, r = tree_open(&t, root, 1, NULL);

	if (r < 0)
		return r;
	r = tree_dir(&t, rel ? rel : "", rel ? strlen(rel) : 0, 1, &fd);
	if (r == 0)
		close(fd);
	tree_close(&t);
	return r;
}

int sysfs_put(const char *root, const char *rel, const char *value)
{
	struct tree t;
	int r = tree_open(&t, root, 1, NULL);

	if (r < 0)
		return r;
	r = tree_put(&t, rel, value);
	tree_close(&t);
	return r;
}

int sysfs_touch(const char *root, const char *rel)
{
	struct tree t;
	int r = tree_open(&t, root, 1, NULL);

	if (r < 0)
		return r;
	r = tree_touch(&t, rel);
	tree_close(&t);
	return r;
}

int sysfs_remove(const char *root, const char *rel)
{
	struct tree t;
	int r = tree_open(&t, root, 0, NULL);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (rel && *rel) {
		r = tree_remove(&t, rel);
	} else {
		r = remove_entries(t.fd, 1);
		t.fd = -1;
		/* The root itself is a name in a directory outside the tree. */
		if (!r && rmdir(t.root) < 0)
			r = -errno;
	}
	tree_close(&t);
	return r;
}

/* --- the files of a host ----------------------------------------------------------- */

/* A directory of the tree, open, to write files in; rel names it in messages. */
struct tree_at {
	const struct tree *t;
	int fd;
	char rel[PATH_MAX];
};

/* Open directory rel of the tree, made where missing. */
static int at_open(struct tree_at *d, const struct tree *t, const char *rel)
{
	d->t = t;
	d->fd = -1;
	if (sysfs_path(d->rel, sizeof(d->rel), "%s", rel))
		return failed(t, -ENAMETOOLONG, rel, strlen(rel), NULL, NULL);
	return tree_dir(t, d->rel, strlen(d->rel), 1, &d->fd);
}

static void at_close(struct tree_at *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/* printf into a value, written as the directory's file name (a name, no '/'). */
static int __attribute__((format(printf, 3, 4)))
at_put(const struct tree_at *d, const char *name, const char *fmt, ...)
{
	char rel[PATH_MAX], value[256];
	va_list ap;
	int n;

	if (sysfs_path(rel, sizeof(rel), "%s/%s", d->rel, name))
		return failed(d->t, -ENAMETOOLONG, d->rel, strlen(d->rel), NULL, NULL);
	va_start(ap, fmt);
	n = vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(value))
		return failed(d->t, -EINVAL, rel, strlen(rel), NULL, "value too long");
	return put_at(d->t, d->fd, rel, name, value);
}

static int write_abi_version(const struct tree *t, unsigned version)
{
	struct tree_at d;
	int r = at_open(&d, t, SYSFS_DIR "/" SYSFS_MAD_CLASS_DIR);

	if (!r)
		r = at_put(&d, IB_UMAD_ABI_FILE, "%u\n", version);
	at_close(&d);
	return r;
}

/* The files of a CA whose directory is open. */
static int ca_values(const struct tree_at *d, const umad_ca_t *ca, const char *board_id,
		     const char *node_desc)
{
	char value[256];
	int i, r = 0;

	for (i = 0; !r && sysfs_ca_files[i]; i++) {
		r = sysfs_ca_text(sysfs_ca_files[i], ca, value, sizeof(value));
		r = r < 0 ? r : at_put(d, sysfs_ca_files[i], "%s", value);
	}
	if (!r && board_id)
		r = at_put(d, SYSFS_CA_BOARD_ID, "%s\n", board_id);
	if (!r && node_desc)
		r = at_put(d, SYSFS_CA_NODE_DESC, "%s\n", node_desc);
	return r;
}

static int write_ca_files(const struct tree *t, const char *name, const umad_ca_t *ca,
			  const char *board_id, const char *node_desc)
{
	char rel[PATH_MAX];
	struct tree_at d = { .fd = -1 }, ports = { .fd = -1 };
	int r;

	if (!(r = sysfs_ca_path(rel, sizeof(rel), NULL, name, SYS_CA_PORTS_DIR)) &&
	    !(r = at_open(&ports, t, rel)) &&
	    !(r = sysfs_ca_path(rel, sizeof(rel), NULL, name, NULL)) && !(r = at_open(&d, t, rel)))
		r = ca_values(&d, ca, board_id, node_desc);
	at_close(&ports);
	at_close(&d);
	return r;
}

/* The P_Key table (pkeys/N) and the gids directory of a port whose directory is open. */
static int port_tables(const struct tree_at *port, const umad_port_t *p)
{
	char rel[PATH_MAX], name[32], value[32];
	struct tree_at pkeys = { .fd = -1 }, gids = { .fd = -1 };
	int r, i;

	if (!(r = sysfs_path(rel, sizeof(rel), "%s/" SYSFS_GIDS_DIR, port->rel)) &&
	    !(r = at_open(&gids, port->t, rel)) &&
	    !(r = sysfs_path(rel, sizeof(rel), "%s/" SYSFS_PKEYS_DIR, port->rel)))
		r = at_open(&pkeys, port->t, rel);
	for (i = 0; !r && i < (int)p->pkeys_size; i++) {
		r = sysfs_pkey_text(p, (unsigned)i, value, sizeof(value));
		if (r >= 0 && !(r = sysfs_path(name, sizeof(name), "%d", i)))
			r = at_put(&pkeys, name, "%s", value);
	}
	at_close(&gids);
	at_close(&pkeys);
	return r;
}

/* The files of a port whose directory is open (link_layer only when the port names one). */
static int port_values(const struct tree_at *d, const umad_port_t *p, const char *rate_text)
{
	char value[256];
	int i, r = port_tables(d, p);

	for (i = 0; !r && sysfs_port_files[i]; i++) {
		r = sysfs_port_text(sysfs_port_files[i], p, value, sizeof(value));
		if (r == -ENOENT)
			r = 0;
		else
			r = r < 0 ? r : at_put(d, sysfs_port_files[i], "%s", value);
	}
	return r ? r : at_put(d, SYS_PORT_RATE, "%s\n", rate_text);
}

static int write_port(const struct tree *t, const char *ca_name, const umad_port_t *p,
		      const char *rate_text)
{
	char rel[PATH_MAX];
	struct tree_at d = { .fd = -1 };
	int r;

	if (!(r = sysfs_port_path(rel, sizeof(rel), NULL, ca_name, p->portnum, NULL)) &&
	    !(r = at_open(&d, t, rel)))
		r = port_values(&d, p, rate_text);
	at_close(&d);
	return r;
}

/* umadN or issmN (name): its class entry and its device node. */
static int write_umad_entry(const struct tree *t, const char *name, const char *ca_name, int port)
{
	char rel[PATH_MAX];
	struct tree_at d = { .fd = -1 };
	int r;

	if (!(r = sysfs_mad_path(rel, sizeof(rel), NULL, name)) && !(r = at_open(&d, t, rel)) &&
	    !(r = at_put(&d, SYS_IB_MAD_DEV, "%s\n", ca_name)) &&
	    !(r = at_put(&d, SYS_IB_MAD_PORT, "%d\n", port)) &&
	    !(r = sysfs_dev_path(rel, sizeof(rel), NULL, name)))
		r = tree_touch(t, rel);
	at_close(&d);
	return r;
}

static int write_umad(const struct tree *t, int id, const char *ca_name, int port)
{
	static const char *const kinds[] = { SYSFS_UMAD_NAME, SYSFS_ISSM_NAME };
	char name[32];
	size_t i;
	int r = 0;

	for (i = 0; !r && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!(r = sysfs_path(name, sizeof(name), kinds[i], id)))
			r = write_umad_entry(t, name, ca_name, port);
	return r;
}

int sysfs_write_abi_version(const char *root, unsigned version)
{
	struct tree t;
	int r = tree_open(&t, root, 1, NULL);

	if (!r)
		r = write_abi_version(&t, version);
	tree_close(&t);
	return r;
}

int sysfs_write_ca_files(const char *root, const char *name, const umad_ca_t *ca,
			 const char *board_id, const char *node_desc)
{
	struct tree t;
	int r = tree_open(&t, root, 1, NULL);

	if (!r)
		r = write_ca_files(&t, name, ca, board_id, node_desc);
	tree_close(&t);
	return r;
}

int sysfs_write_port(const char *root, const char *ca_name, const umad_port_t *p,
		     const char *rate_text)
{
	struct tree t;
	int r = tree_open(&t, root, 1, NULL);

	if (!r)
		r = write_port(&t, ca_name, p, rate_text);
	tree_close(&t);
	return r;
}

int sysfs_write_umad(const char *root, int id, const char *ca_name, int port)
{
	struct tree t;
	int r = tree_open(&t, root, 1, NULL);

	if (!r)
		r = write_umad(&t, id, ca_name, port);
	tree_close(&t);
	return r;
}

int sysfs_write_ca(const char *root, const umad_ca_t *ca, const char *board_id,
		   const char *node_desc, const int *umad_ids, const char *const *rate_texts,
		   struct umad_err *err)
{
	struct umad_err why = UMAD_ERR_INIT;
	struct tree t;
	int r, i;

	r = tree_open(&t, root, 1, &why);
	if (!r)
		r = write_ca_files(&t, ca->ca_name, ca, board_id, node_desc);
	if (!r)
		r = write_abi_version(&t, IB_UMAD_ABI_VERSION);
	for (i = 0; !r && i < UMAD_CA_MAX_PORTS; i++) {
		if (!ca->ports[i])
			continue;
		r = write_port(&t, ca->ca_name, ca->ports[i], rate_texts[i]);
		if (!r)
			r = write_umad(&t, umad_ids[i], ca->ca_name, i);
	}
	tree_close(&t);
	if (r < 0 && why.count)
		return umad_err_set(err, r, "%s", umad_err_text(&why));
	if (r < 0)
		return umad_err_set(err, r, "cannot write the fake sysfs tree at %s: %s", root,
				    strerror(-r));
	return r;
}
