/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The files of `umad kernel`'s host, as the kernel lays them out:
 *   dev/infiniband/{umadN,issmN}
 *   sys/class/infiniband/CA/{node_type,...,node_desc,ports/N/{lid,...,rate,
 *       gids/0,pkeys/M,counters/NAME}}
 *   sys/class/infiniband_mad/{abi_version,umadN/{ibdev,port,dev},issmN/...}
 * The tree is made once, when the file system starts (the host's devices
 * and ports do not change); a sysfs file's text is made when it is opened,
 * from the host as it is then.
 */
#ifndef CLI_KFS_TREE_H
#define CLI_KFS_TREE_H

#include <stddef.h>
#include <sys/stat.h>

#include "cli/kfs_state.h"

/* The largest text of a sysfs file (the kernel's page). */
#define KFS_TEXT_MAX	4096

/* The host's devices from the backend (k->be), and the tree of their files.  0 or -errno. */
int kfs_tree_build(struct kfs *k);
void kfs_tree_free(struct kfs *k);

/* The child of parent called name: its inode, or 0. */
fuse_ino_t kfs_tree_lookup(struct kfs *k, fuse_ino_t parent, const char *name);
void kfs_tree_stat(const struct kfs *k, fuse_ino_t ino, struct stat *st);
/* The text of a KFS_TEXT file now: its length, or -errno (-EIO: the host did not answer). */
int kfs_tree_text(struct kfs *k, const struct kfs_node *n, char *buf, size_t size);

#endif /* CLI_KFS_TREE_H */
