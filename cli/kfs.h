/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * `umad kernel`'s file system: one simulated host's device files and
 * sysfs tree (kfs_tree.h, kfs_dev.h) served through FUSE, so that any
 * program -- linked to any libibumad, to none, or static -- reaches the
 * host with open(2), read(2), write(2), poll(2) and ioctl(2) as it would a
 * machine with an HCA.  The host is what the backend serving this process
 * shows (the sim backend: UMAD_SIM_TOPOLOGY or UMAD_SIM_FABRIC, at
 * UMAD_SIM_HOST): this is one more front end of the fabric's one owner,
 * and holds no policy of its own beyond the kernel's device rules.
 *
 * Not thread-safe: one thread serves (kfs_serve).  Errors: -errno with
 * why in err.
 */
#ifndef CLI_KFS_H
#define CLI_KFS_H

#include "base/backend.h"
#include "base/errbuf.h"

struct kfs;

/* The file system of the host the backend be shows (started: its init done). */
int kfs_new(const struct umad_backend *be, struct kfs **out, struct umad_err *err);
void kfs_free(struct kfs *k);

/* Mount it at dir (a mount of this namespace; fusermount3 does it for a user). */
int kfs_mount(struct kfs *k, const char *dir, struct umad_err *err);
/* Or serve it on a /dev/fuse descriptor the caller mounted (it stays the caller's). */
int kfs_attach(struct kfs *k, int fuse_fd, struct umad_err *err);

/*
 * Serve requests until extra_fd (-1: none) is readable (1), the file
 * system is unmounted (0), or timeout_ms passes (-ETIMEDOUT; negative: no
 * timeout); -errno when it cannot serve on.
 */
int kfs_serve(struct kfs *k, int extra_fd, int timeout_ms);

/* Unmount what kfs_mount mounted (kfs_free does it too). */
void kfs_unmount(struct kfs *k);

#endif /* CLI_KFS_H */
