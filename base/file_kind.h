/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* What a path that is not a regular file is, for messages ("a FIFO"). */
#ifndef UMAD_BASE_FILE_KIND_H
#define UMAD_BASE_FILE_KIND_H

#include <sys/stat.h>

static inline const char *file_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

#endif /* UMAD_BASE_FILE_KIND_H */
