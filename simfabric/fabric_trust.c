/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Whom a shared fabric's ends trust: their own user only (fabric_trust.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simfabric/fabric_trust.h"

/* "1000 (alice)", or "1000" when the name cannot be had. */
static const char *user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd pw, *found = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &found) == 0 && found)
		snprintf(buf, size, "%u (%s)", (unsigned)uid, pw.pw_name);
	else
		snprintf(buf, size, "%u", (unsigned)uid);
	return buf;
}

/* "belongs to user X, not to this one (Y)": the end of a refusal. */
int fabric_trust_not_ours(int rc, struct umad_err *err, const char *what, uid_t owner)
{
	char found[160], self[160];

	return umad_err_set(err, rc, "%s belongs to user %s, not to this one (%s): refused", what,
			    user_name(owner, found, sizeof(found)),
			    user_name(geteuid(), self, sizeof(self)));
}

const char *fabric_trust_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int fabric_trust_dir(const char *path, mode_t deny, struct umad_err *err)
{
	const char *base = fabric_trust_basename(path);
	char dir[PATH_MAX], what[PATH_MAX + 64];
	struct stat st;
	int fd;

	if (base == path)
		snprintf(dir, sizeof(dir), ".");
	else if (base == path + 1)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(base - 1 - path), path);
	snprintf(what, sizeof(what), "%s, the directory of %s,", dir, path);
	/* The directory itself, not where a symbolic link in its place would lead. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int r = -errno;

		/* O_NOFOLLOW with O_DIRECTORY says ELOOP or ENOTDIR for a link. */
		if ((r == -ELOOP || r == -ENOTDIR) && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
			return umad_err_set(err, -ELOOP, "%s is a symbolic link: refused "
					    "(it is not followed)", what);
		return umad_err_set(err, r, "%s cannot be opened: %s", what, strerror(-r));
	}
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		close(fd);
		return umad_err_set(err, r, "%s cannot be looked at: %s", what, strerror(-r));
	}
	if (st.st_uid != geteuid()) {
		close(fd);
		return fabric_trust_not_ours(-EPERM, err, what, st.st_uid);
	}
	if (st.st_mode & deny) {
		close(fd);
		return umad_err_set(err, -EPERM, "%s is open to other users (mode %04o): refused",
				    what, (unsigned)(st.st_mode & 07777));
	}
	return fd;
}

int fabric_trust_socket(int dirfd, const char *path, struct umad_err *err)
{
	struct stat st;

	if (fstatat(dirfd, fabric_trust_basename(path), &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int r = -errno;

		return umad_err_set(err, r, "%s: %s", path, strerror(-r));
	}
	if (!S_ISSOCK(st.st_mode))
		return umad_err_set(err, -ENOTSOCK, "%s is not a socket: refused", path);
	if (st.st_uid != geteuid())
		return fabric_trust_not_ours(-EPERM, err, path, st.st_uid);
	return 0;
}

int fabric_trust_peer(int fd, const char *path, struct umad_err *err)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	char found[160], self[160];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		int r = -errno;

		return umad_err_set(err, r, "cannot tell who serves the fabric at %s: %s", path,
				    strerror(-r));
	}
	if (cred.uid != geteuid())
		return umad_err_set(err, -EPERM, "the fabric at %s is served by user %s (process %d), "
				    "not by this one (%s): refused", path,
				    user_name(cred.uid, found, sizeof(found)), (int)cred.pid,
				    user_name(geteuid(), self, sizeof(self)));
	return 0;
}

int fabric_trust_channel(int fd, const char *what, struct umad_err *err)
{
	struct ucred cred;
	struct stat st;
	int domain = -1, type = -1;
	socklen_t len = sizeof(domain);

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 ||
	    (len = sizeof(type), getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0) ||
	    domain != AF_UNIX || type != SOCK_SEQPACKET)
		return umad_err_set(err, -ENOTSOCK,
				    "the %s handed over is not a local packet socket: refused", what);
	if (st.st_uid != geteuid()) {
		char name[128];

		snprintf(name, sizeof(name), "the %s handed over", what);
		return fabric_trust_not_ours(-EPERM, err, name, st.st_uid);
	}
	len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return umad_err_set(err, -EPERM, "cannot tell who is at the other end of the %s: %s",
				    what, strerror(errno));
	if (cred.uid != geteuid()) {
		char name[128];

		snprintf(name, sizeof(name), "the other end of the %s handed over", what);
		return fabric_trust_not_ours(-EPERM, err, name, cred.uid);
	}
	return 0;
}
