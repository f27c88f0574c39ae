/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * cli/kernel_ns.c driven as the umad command will drive it, with a tmpfs
 * for the simulated host's tree (tests/kernel_ns.sh):
 *
 *   kernel_ns_try [--root DIR] [--elsewhere] [--fuse AT] [--show REL AT]... -- CMD [ARG]...
 *
 * enters a private namespace (kns_enter), builds a detached tmpfs holding
 *   dev/infiniband/{umad0,issm0}
 *   sys/class/infiniband/sim0/{node_type,node_guid,ports/1/state}
 *   sys/class/infiniband_mad/{abi_version,umad0/{ibdev,port}}
 * shows it (kns_show) at DIR/dev/infiniband, DIR/sys/class/infiniband and
 * DIR/sys/class/infiniband_mad (DIR "" by default: the real places), or at
 * each --show REL AT instead, then runs CMD there.
 *   --elsewhere  the tree is a clone made in the namespace before the one
 *                it is shown in, which the kernel refuses to clone from
 *                (as kernels before 6.15 refuse any detached tree): the
 *                whole tree goes under the first place;
 *   --fuse AT    also a FUSE mount (kns_fuse_mount_detached) on /dev/fuse
 *                (opened inside the namespace, as umad kernel opens it),
 *                shown at AT; nothing serves it (it is there to be seen in
 *                the mount table; CMD's first look in it fails ENOTCONN).
 * A file descriptor the calls leave open is an error.
 * Exit status: CMD's, or 1 with a message (77 when the kernel lacks the
 * mount API), 2 for bad usage.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/kernel_ns.h"

#define MAX_SHOWS 8

struct show {
	const char *rel;
	char at[PATH_MAX];
};

static const char *prog = "kernel_ns_try";

static int die(int r, const char *what, const struct umad_err *err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, err->count ? umad_err_text(err) : strerror(-r));
	return r == -ENOSYS ? 77 : 1;
}

static int put(int root, const char *path, const char *text)
{
	int fd = openat(root, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* The simulated host's tree in a detached tmpfs: its mount fd, or -errno. */
static int build_tree(void)
{
	static const char *const dirs[] = {
		"dev", "dev/infiniband", "sys", "sys/class", "sys/class/infiniband",
		"sys/class/infiniband/sim0", "sys/class/infiniband/sim0/ports",
		"sys/class/infiniband/sim0/ports/1", "sys/class/infiniband_mad",
		"sys/class/infiniband_mad/umad0",
	};
	static const char *const files[][2] = {
		{ "dev/infiniband/umad0", "" },
		{ "dev/infiniband/issm0", "" },
		{ "sys/class/infiniband/sim0/node_type", "1: CA\n" },
		{ "sys/class/infiniband/sim0/node_guid", "0002:c903:0001:0002\n" },
		{ "sys/class/infiniband/sim0/ports/1/state", "4: ACTIVE\n" },
		{ "sys/class/infiniband_mad/abi_version", "5\n" },
		{ "sys/class/infiniband_mad/umad0/ibdev", "sim0\n" },
		{ "sys/class/infiniband_mad/umad0/port", "1\n" },
	};
	int fs, tree, r = 0;
	size_t i;

	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", "kernel_ns_try", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		r = -errno;
		close(fs);
		return r;
	}
	tree = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	r = tree < 0 ? -errno : 0;
	close(fs);
	for (i = 0; !r && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdirat(tree, dirs[i], 0755) < 0)
			r = -errno;
	for (i = 0; !r && i < sizeof(files) / sizeof(files[0]); i++)
		r = put(tree, files[i][0], files[i][1]);
	if (r && tree >= 0)
		close(tree);
	return r ? r : tree;
}

/*
 * The tree mounted here for a moment (over /tmp) and cloned, then a
 * namespace of its own for the rest: the kernel clones from no detached
 * tree that was cloned from another namespace.
 */
static int move_elsewhere(int tree)
{
	int clone, r = 0;

	if (move_mount(tree, "", AT_FDCWD, "/tmp", MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return -errno;
	clone = open_tree(AT_FDCWD, "/tmp", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (clone < 0 || umount2("/tmp", MNT_DETACH) < 0 || unshare(CLONE_NEWNS) < 0)
		r = -errno;
	close(tree);
	if (r && clone >= 0)
		close(clone);
	return r ? r : clone;
}

/* The file descriptors open now (below FD_SETSIZE), to find one the module left open. */
static int open_fds(fd_set *fds)
{
	struct dirent *e;
	DIR *dir;
	int fd;

	FD_ZERO(fds);
	dir = opendir("/proc/self/fd");
	if (!dir)
		return -errno;
	while ((e = readdir(dir)))
		if ((fd = atoi(e->d_name)) > 0 || !strcmp(e->d_name, "0"))
			if (fd != dirfd(dir) && fd < FD_SETSIZE)
				FD_SET(fd, fds);
	closedir(dir);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: %s [--root DIR] [--elsewhere] [--fuse AT] [--show REL AT]... "
		"-- CMD [ARG]...\n", prog);
	return 2;
}

int main(int argc, char **argv)
{
	static const char *const places[] = {
		"dev/infiniband", "sys/class/infiniband", "sys/class/infiniband_mad",
	};
	struct umad_err err = UMAD_ERR_INIT;
	struct show shows[MAX_SHOWS];
	fd_set before, after;
	const char *root = "", *fuse_at = NULL;
	int elsewhere = 0, nshows = 0, tree, fuse_fd = -1, fuse_tree, r, i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--root") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "--elsewhere"))
			elsewhere = 1;
		else if (!strcmp(argv[i], "--fuse") && i + 1 < argc)
			fuse_at = argv[++i];
		else if (!strcmp(argv[i], "--show") && i + 2 < argc && nshows < MAX_SHOWS) {
			shows[nshows].rel = argv[++i];
			snprintf(shows[nshows++].at, PATH_MAX, "%s", argv[++i]);
		} else
			return usage();
	}
	if (i + 1 >= argc)
		return usage();
	if (!nshows)
		for (; nshows < 3; nshows++) {
			shows[nshows].rel = places[nshows];
			snprintf(shows[nshows].at, PATH_MAX, "%s/%s", root, places[nshows]);
		}
	if (open_fds(&before) < 0)
		return die(-errno, "/proc/self/fd", &err);
	r = kns_enter(&err);
	if (r)
		return die(r, "kns_enter", &err);
	/*
	 * Opened inside, as umad kernel opens it: FUSE mounts only a device
	 * opened in the user namespace the mount is made in (one opened
	 * before kns_enter made it is refused, EINVAL).
	 */
	if (fuse_at) {
		fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
		if (fuse_fd < 0)
			return die(-errno, "/dev/fuse", &err);
	}
	tree = build_tree();
	if (tree < 0)
		return die(tree, "cannot build the tree in a tmpfs", &err);
	if (elsewhere) {
		tree = move_elsewhere(tree);
		if (tree < 0)
			return die(tree, "cannot clone the tree into another namespace", &err);
	}
	for (i = 0; i < nshows; i++) {
		r = kns_show(tree, shows[i].rel, shows[i].at, &err);
		if (r)
			return die(r, "kns_show", &err);
	}
	if (fuse_at) {
		fuse_tree = kns_fuse_mount_detached(fuse_fd, "kernel_ns_try", &err);
		if (fuse_tree < 0)
			return die(fuse_tree, "kns_fuse_mount_detached", &err);
		r = kns_show(fuse_tree, "", fuse_at, &err);
		if (r)
			return die(r, "kns_show (fuse)", &err);
		close(fuse_tree);
	}
	close(tree);
	if (fuse_fd >= 0)
		close(fuse_fd);
	if (open_fds(&after) < 0)
		return die(-errno, "/proc/self/fd", &err);
	for (i = 0; i < FD_SETSIZE; i++)
		if (FD_ISSET(i, &after) && !FD_ISSET(i, &before)) {
			fprintf(stderr, "%s: file descriptor %d left open\n", prog, i);
			return 1;
		}
	for (i = 1; strcmp(argv[i], "--"); i++)
		;
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "%s: %s: %s\n", prog, argv[i + 1], strerror(errno));
	return 127;
}
