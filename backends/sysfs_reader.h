/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Readers of sysfs attribute files with rdma-core's parsing rules, under a
 * root that UMAD_SYSFS_ROOT can move (tests, containers).
 */
#ifndef BACKENDS_SYSFS_READER_H
#define BACKENDS_SYSFS_READER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "backends/sysfs_layout.h"

/* ROOT/class/infiniband and ROOT/class/infiniband_mad, ROOT from UMAD_SYSFS_ROOT or "/sys". */
const char *umad_sysfs_root(void);
/* Directory of the umadN/issmN nodes: UMAD_DEV_DIR or "/dev/infiniband". */
const char *umad_dev_dir(void);

/*
 * Each reader opens DIR/FILE and returns 0 or -errno.  read_string does one
 * read(), keeps at most max-1 bytes and strips the last newline; read_uint
 * parses with strtoul(base 0), so "4: ACTIVE" is 4 and "0x1a" is 26;
 * read_guid takes 4 hex groups ("0002:c903:0001:0002") to a big-endian
 * value; read_gid takes 8 groups to 16 network-order bytes.
 */
int umad_sysfs_read_string(const char *dir, const char *file, char *buf, size_t max);
int umad_sysfs_read_uint(const char *dir, const char *file, unsigned *value);
int umad_sysfs_read_guid(const char *dir, const char *file, __be64 *guid);
int umad_sysfs_read_gid(const char *dir, const char *file, uint8_t gid[16]);

#endif /* BACKENDS_SYSFS_READER_H */
