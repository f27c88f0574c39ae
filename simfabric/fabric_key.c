/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The shared key of a fabric reached over TCP, from its file (fabric_key.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simfabric/fabric_key.h"
#include "simfabric/fabric_trust.h"

struct fabric_key {
	size_t len;
	uint8_t bytes[FABRIC_KEY_MAX + 1];	/* one more: a file that grew is seen */
};

/* How a file that is not a regular one is named in a refusal. */
static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:	return "a directory";
	case S_IFCHR:	return "a character device";
	case S_IFBLK:	return "a block device";
	case S_IFIFO:	return "a pipe";
	case S_IFSOCK:	return "a socket";
	default:	return "not a regular file";
	}
}

/* The file open at fd, checked, read into k->bytes. 0 or -errno with why. */
static int read_checked(int fd, const char *path, struct fabric_key *k, struct umad_err *err)
{
	struct stat st;
	size_t got = 0;

	if (fstat(fd, &st) < 0) {
		int r = -errno;

		return umad_err_set(err, r, "key file %s cannot be looked at: %s", path,
				    strerror(-r));
	}
	if (!S_ISREG(st.st_mode))
		return umad_err_set(err, -EINVAL, "key file %s is %s: refused (a key file is a "
				    "regular file)", path, file_kind(st.st_mode));
	if (st.st_uid != geteuid()) {
		char what[PATH_MAX + 16];

		snprintf(what, sizeof(what), "key file %s", path);
		return fabric_trust_not_ours(-EPERM, err, what, st.st_uid);
	}
	if (st.st_mode & 077)
		return umad_err_set(err, -EPERM, "key file %s is open to other users (mode %04o): "
				    "refused (chmod 600 %s)", path, (unsigned)(st.st_mode & 07777),
				    path);
	if (st.st_size > (off_t)FABRIC_KEY_MAX)
		return umad_err_set(err, -EMSGSIZE, "key file %s is %lld bytes long, more than a "
				    "key file's %u: refused", path, (long long)st.st_size,
				    FABRIC_KEY_MAX);
	/* Up to one byte more than a key may have, should the file have grown since. */
	while (got < sizeof(k->bytes)) {
		ssize_t n = read(fd, k->bytes + got, sizeof(k->bytes) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;

			return umad_err_set(err, r, "key file %s cannot be read: %s", path,
					    strerror(-r));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > FABRIC_KEY_MAX)
		return umad_err_set(err, -EMSGSIZE, "key file %s is more than a key file's %u "
				    "bytes: refused", path, FABRIC_KEY_MAX);
	if (got > 0 && k->bytes[got - 1] == '\n') {
		got--;
		if (got > 0 && k->bytes[got - 1] == '\r')
			got--;
	}
	k->len = got;
	if (got < FABRIC_KEY_MIN)
		return umad_err_set(err, -EMSGSIZE, "key file %s %s: refused (a key has at least %u "
				    "bytes; make one with: (umask 077; head -c 32 /dev/urandom | "
				    "base64 > %s))", path, got ? "is too short" : "is empty",
				    FABRIC_KEY_MIN, path);
	return 0;
}

int fabric_key_load(const char *path, struct fabric_key **out, struct umad_err *err)
{
	struct fabric_key *k;
	int fd, r;

	*out = NULL;
	/* Not following a link, and not waiting on a pipe or a device: both are refused. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP)
			return umad_err_set(err, r, "key file %s is a symbolic link: refused (it is "
					    "not followed; name the file itself)", path);
		return umad_err_set(err, r, "key file %s cannot be opened: %s", path, strerror(-r));
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		close(fd);
		return umad_err_set(err, -ENOMEM, "key file %s: %s", path, strerror(ENOMEM));
	}
	r = read_checked(fd, path, k, err);
	close(fd);
	if (r < 0) {
		fabric_key_free(k);
		return r;
	}
	*out = k;
	return 0;
}

int fabric_key_load_env(struct fabric_key **out, struct umad_err *err)
{
	const char *path = getenv(FABRIC_KEY_ENV);

	if (!path || !*path) {
		*out = NULL;
		return umad_err_set(err, -ENOKEY, "%s is not set: a fabric reached over TCP needs "
				    "the file of its key", FABRIC_KEY_ENV);
	}
	return fabric_key_load(path, out, err);
}

const uint8_t *fabric_key_bytes(const struct fabric_key *k, size_t *len)
{
	*len = k->len;
	return k->bytes;
}

void fabric_key_free(struct fabric_key *k)
{
	if (!k)
		return;
	explicit_bzero(k, sizeof(*k));
	free(k);
}
