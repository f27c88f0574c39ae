/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Where a host's InfiniBand files are, relative to its root ("/" on a real
 * host, a directory for a fake one): the names the kernel uses, once, for
 * the kernel backend's reader and the writer of fake trees.  The attribute
 * files are rdma-core's SYS_* names of <infiniband/umad.h>; these are the
 * directories and the files rdma-core does not name.
 */
#ifndef BACKENDS_SYSFS_LAYOUT_H
#define BACKENDS_SYSFS_LAYOUT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <infiniband/umad.h>

/* Under the host root: sysfs (UMAD_SYSFS_ROOT) and the device nodes (UMAD_DEV_DIR). */
#define SYSFS_DIR		"sys"
#define SYSFS_DEV_DIR		"dev/infiniband"

/* Under sysfs: the devices (CA/, CA/ports/N/) and ib_umad's class (umadN/, issmN/, abi_version). */
#define SYSFS_CLASS_DIR		"class/infiniband"
#define SYSFS_MAD_CLASS_DIR	"class/infiniband_mad"

/* In a port's directory: pkeys/N, one P_Key per index, and gids/N. */
#define SYSFS_PKEYS_DIR		"pkeys"
#define SYSFS_PKEY_FILE		SYSFS_PKEYS_DIR "/%d"
#define SYSFS_GIDS_DIR		"gids"

/* In a CA's directory, beside rdma-core's names: files tools read (ibstat, scripts). */
#define SYSFS_CA_BOARD_ID	"board_id"
#define SYSFS_CA_NODE_DESC	"node_desc"

/* ib_umad's devices: umadN and issmN, in its class and among the device nodes. */
#define SYSFS_UMAD_NAME		"umad%d"
#define SYSFS_ISSM_NAME		"issm%d"

/* Format a path into path (size bytes): 0, or -ENAMETOOLONG when it does not fit. */
static inline int __attribute__((format(printf, 3, 4)))
sysfs_path(char *path, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

#endif /* BACKENDS_SYSFS_LAYOUT_H */
