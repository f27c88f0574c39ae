/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A private view of the machine for one command: its own mount namespace
 * (and user namespace when not root), where a few directories show a tree
 * of ours (the simulated host's /dev/infiniband and /sys/class entries) and
 * everything else is as outside.  Nothing done here reaches the host: every
 * mount is private to the namespace, and nothing is ever created in a
 * directory of the host's (where a directory to cover is missing, its parent
 * is covered instead by a tmpfs of ours that shows the parent's entries).
 * The mounts go away with the last process in the namespace.
 *
 * The calls change the calling process's namespace: make them from one
 * thread, kns_enter before any other thread is started.  Each returns 0 (or
 * a file descriptor) or -errno with why in err; nothing is printed.
 * Needs the kernel's mount API of Linux 5.2 (fsopen, fsmount, open_tree,
 * move_mount); -ENOSYS says it is missing.
 */
#ifndef CLI_KERNEL_NS_H
#define CLI_KERNEL_NS_H

#include "base/errbuf.h"

/*
 * Enter a private mount namespace.  As root, a mount namespace of its own;
 * otherwise (or when root may not make one) a user namespace first, where
 * the caller's user and group are mapped to themselves and setgroups is
 * denied, so that it may mount there.  Then every mount is made private, so
 * that no mount made afterwards propagates out.  In a user namespace, files
 * of other users (root's in /dev) show as the overflow user (nobody), and a
 * program the command runs keeps no capability (it runs as the caller).
 */
int kns_enter(struct umad_err *err);

/*
 * A new FUSE file system served through fuse_fd (an open /dev/fuse), mounted
 * detached: the mount's file descriptor (O_CLOEXEC), for kns_show, or -errno.
 * Its root is a directory of the caller's; it is mounted nosuid and nodev,
 * with the kernel checking permissions on the modes the server gives
 * (default_permissions, as for the device files it stands for) and open to
 * every user of the namespace (allow_other: a user namespace bounds it).
 * source_name names it in the mount table (NULL: "umad").  The server
 * must answer on fuse_fd while kns_show looks a path up in it (from another
 * thread or process).
 * fuse_fd is opened by the caller: /dev/fuse's mode decides which users
 * may (udev's default rules make it 0666; without them only root may).
 */
int kns_fuse_mount_detached(int fuse_fd, const char *source_name, struct umad_err *err);

/*
 * Show the directory rel of the tree tree_fd (relative: "sys/class/infiniband";
 * "" for its root) at the absolute path at ("/sys/class/infiniband"), in the
 * current namespace (kns_enter's):
 *   - where at is a directory, the tree covers it;
 *   - where at is missing, its parent is covered by a tmpfs (mode and owner
 *     as the parent's, when the namespace can name that owner) holding the
 *     parent's entries: each directory and file the parent had is mounted
 *     there as it was (submounts with it: /dev/pts, /dev/shm), each symbolic
 *     link recreated with its target; at is added to it and the tree mounted
 *     there.  A second kns_show into the same parent finds that tmpfs and
 *     only adds its directory.  The parent's entries are those at the time
 *     of the call: one the host adds later is not seen inside.  /dev/ptmx,
 *     which needs the devpts beside it in its own mount, is made again as
 *     the device it is; in a user namespace, which may not make devices, it
 *     is a link to ptmx in a copy of the whole parent kept at .umad-host
 *     there (the ptys it opens then name themselves /dev/.umad-host/pts/N).
 * tree_fd is a detached tree (kns_fuse_mount_detached's, or an open_tree
 * clone) or a directory of a mounted one.  A kernel that does not clone from
 * a detached tree (before Linux 6.15, or one made in another namespace) gets
 * the whole tree mounted at the first at, with rel mounted over it.
 * at must not be "/" nor a symbolic link; its parent must exist.
 */
int kns_show(int tree_fd, const char *rel, const char *at, struct umad_err *err);

#endif /* CLI_KERNEL_NS_H */
