/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* sysfs attribute readers with rdma-core's parsing rules. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/sysfs_reader.h"
#include "base/mad_wire.h"

const char *umad_sysfs_root(void)
{
	const char *root = getenv("UMAD_SYSFS_ROOT");

	return root && *root ? root : "/" SYSFS_DIR;
}

const char *umad_dev_dir(void)
{
	const char *dir = getenv("UMAD_DEV_DIR");

	return dir && *dir ? dir : "/" SYSFS_DEV_DIR;
}

int umad_sysfs_read_string(const char *dir, const char *file, char *buf, size_t max)
{
	char path[PATH_MAX];
	char *newline;
	ssize_t n;
	int fd, r;

	if (max == 0)
		return -EINVAL;
	r = sysfs_path(path, sizeof(path), "%s/%s", dir, file);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, max);
	r = errno;
	close(fd);
	if (n < 0)
		return -r;
	/* A value that fills the buffer loses its last byte to the terminator, as in rdma-core. */
	buf[(size_t)n < max ? (size_t)n : max - 1] = '\0';
	newline = strrchr(buf, '\n');
	if (newline)
		*newline = '\0';
	return 0;
}

int umad_sysfs_read_uint(const char *dir, const char *file, unsigned *value)
{
	char buf[32];
	int r = umad_sysfs_read_string(dir, file, buf, sizeof(buf));

	if (r < 0)
		return r;
	*value = (unsigned)strtoul(buf, NULL, 0);
	return 0;
}

/*
 * Split buf into n hex groups of 16 bits at each of ": \t\n" (strsep
 * semantics: two delimiters in a row make an empty, zero group).
 */
static int parse_groups(char *buf, uint16_t *groups, int n)
{
	char *rest = buf, *tok;
	int i;

	for (i = 0; i < n; i++) {
		tok = strsep(&rest, ": \t\n");
		if (!tok)
			return -EINVAL;
		groups[i] = (uint16_t)(strtoul(tok, NULL, 16) & 0xffff);
	}
	return 0;
}

int umad_sysfs_read_guid(const char *dir, const char *file, __be64 *guid)
{
	uint16_t g[4];
	char buf[32];
	int r = umad_sysfs_read_string(dir, file, buf, sizeof(buf));

	if (r < 0)
		return r;
	r = parse_groups(buf, g, 4);
	if (r < 0)
		return r;
	*guid = htobe64((uint64_t)g[0] << 48 | (uint64_t)g[1] << 32 | (uint64_t)g[2] << 16 | g[3]);
	return 0;
}

int umad_sysfs_read_gid(const char *dir, const char *file, uint8_t gid[16])
{
	uint16_t g[8];
	char buf[64];
	int r = umad_sysfs_read_string(dir, file, buf, sizeof(buf));
	int i;

	if (r < 0)
		return r;
	r = parse_groups(buf, g, 8);
	if (r < 0)
		return r;
	/* Eight groups of 16 bits, as the text writes them, big-endian. */
	for (i = 0; i < 8; i++)
		put_be16(gid + i * sizeof(g[0]), g[i]);
	return 0;
}
