/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The private namespace of a command run on a simulated host, and where its
 * tree is shown (kernel_ns.h).
 *
 * What a user namespace allows, as found on Linux 6.x (and used below):
 *   - the mounts it inherits are locked together: one may be covered but
 *     not unmounted, and a subtree of one can be cloned only with everything
 *     mounted below it (AT_RECURSIVE; a lone clone would reveal what those
 *     mounts hide and is refused);
 *   - covering /dev and /sys/class with a tmpfs, and mounting clones of
 *     their entries (sysfs directories, device nodes, /dev/pts, /dev/shm)
 *     on it, is allowed: the clones keep their own mount flags, so a device
 *     node still opens although the tmpfs, made in the user namespace, may
 *     hold none;
 *   - the tmpfs's owner may only be a user the namespace maps: root's
 *     directory, seen there as the overflow user, is covered by one of the
 *     caller's own when that user is not mapped;
 *   - no device node may be made (mknod), which /dev/ptmx needs (below);
 *   - FUSE mounts are allowed, but /dev/fuse must be one the user may open.
 * Clones are taken through a mounted copy of the parent (the holder below)
 * rather than from a detached one, because kernels before 6.15 clone only
 * from mounts of the current namespace (and later ones only from detached
 * trees made there or by fsmount).
 */
#include "config.h"

#include "cli/kernel_ns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/major.h>

#define PTMX_MINOR 2	/* /dev/ptmx, of TTYAUX_MAJOR */

/*
 * The tmpfs roots this process put over a parent whose directory was
 * missing: a later kns_show into that parent adds its directory there.
 * Nothing is ever created but in a tmpfs of ours.
 */
#define KNS_COVERS_MAX 8
static struct {
	dev_t dev;
	ino_t ino;
} kns_covers[KNS_COVERS_MAX];
static unsigned kns_ncovers;

/*
 * In the new tmpfs, the parent as it was (a recursive clone of it), mounted
 * while its entries are cloned from it, and kept where /dev/ptmx leads there.
 */
#define KNS_HOLDER ".umad-host"

#define CLONE_FLAGS (OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | \
		     AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT)

/* Why a mount call failed, with a hint where the kernel lacks the call. */
static const char *mount_why(int r)
{
	return r == -ENOSYS ? "the kernel has no new mount API (fsopen, open_tree: Linux 5.2)"
			    : strerror(-r);
}

static int write_text(const char *path, const char *text, struct umad_err *err)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return umad_err_set(err, -errno, "cannot open %s: %s", path, strerror(errno));
	n = write(fd, text, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	close(fd);
	if (r)
		return umad_err_set(err, r, "cannot write \"%s\" to %s: %s", text, path,
				    strerror(-r));
	return 0;
}

/* What makes the kernel refuse a user namespace with r. */
static const char *userns_refused_why(int r)
{
	switch (r) {
	case -EPERM:
		return " (are user namespaces allowed? sysctl kernel.unprivileged_userns_clone, "
		       "kernel.apparmor_restrict_unprivileged_userns)";
	case -ENOSPC:
		return " (sysctl user.max_user_namespaces)";
	case -EINVAL:
		return " (the process has threads already)";
	default:
		return "";
	}
}

/* A user namespace (and a mount namespace it owns) where the caller is itself. */
static int enter_user_ns(struct umad_err *err)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int r;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
		r = -errno;
		return umad_err_set(err, r, "cannot make a user namespace (user %u may mount only there): %s%s",
				    (unsigned)uid, strerror(-r), userns_refused_why(r));
	}
	/* An unprivileged process may map its group only once it gave up setgroups. */
	r = write_text("/proc/self/setgroups", "deny", err);
	if (r)
		return r;
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
	r = write_text("/proc/self/uid_map", map, err);
	if (r)
		return r;
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
	return write_text("/proc/self/gid_map", map, err);
}

int kns_enter(struct umad_err *err)
{
	int r;

	/* Root in a container may lack CAP_SYS_ADMIN and still make a user namespace. */
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0) {
		if (geteuid() == 0 && errno != EPERM)
			return umad_err_set(err, -errno, "cannot make a mount namespace: %s",
					    strerror(errno));
		r = enter_user_ns(err);
		if (r)
			return r;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return umad_err_set(err, -errno, "cannot make the namespace's mounts private: %s",
				    strerror(errno));
	return 0;
}

/* An option of a new file system: value NULL for a flag. */
struct fs_option {
	const char *key;
	const char *value;
};

/* The kernel's own words on what it refused ("tmpfs: Bad value for 'uid'"), or "". */
static void fs_context_says(int fsfd, char *why, size_t size)
{
	char line[256];
	ssize_t n;

	why[0] = '\0';
	while ((n = read(fsfd, line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		if (n > 2 && line[0] == 'e' && line[1] == ' ')
			snprintf(why, size, " (%s)", line + 2);
	}
}

/* A new file system of type mounted detached with attrs (MOUNT_ATTR_*): its mount fd. */
static int fs_mount_detached(const char *type, const struct fs_option *opts, size_t n,
			     unsigned attrs, struct umad_err *err)
{
	char why[300];
	int fsfd, mfd, r;
	size_t i;

	fsfd = fsopen(type, FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return umad_err_set(err, -errno, "cannot make a %s file system: %s", type,
				    mount_why(-errno));
	for (i = 0; i < n; i++) {
		if (fsconfig(fsfd, opts[i].value ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG,
			     opts[i].key, opts[i].value, 0) < 0) {
			r = -errno;
			fs_context_says(fsfd, why, sizeof(why));
			umad_err_set(err, r, "%s refuses %s%s%s: %s%s", type, opts[i].key,
				     opts[i].value ? "=" : "", opts[i].value ? opts[i].value : "",
				     strerror(-r), why);
			goto out;
		}
	}
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		r = -errno;
		fs_context_says(fsfd, why, sizeof(why));
		umad_err_set(err, r, "cannot make a %s file system: %s%s", type, strerror(-r), why);
		goto out;
	}
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, attrs);
	if (mfd < 0) {
		r = -errno;
		fs_context_says(fsfd, why, sizeof(why));
		umad_err_set(err, r, "cannot mount a %s file system: %s%s", type, strerror(-r), why);
		goto out;
	}
	r = mfd;
out:
	close(fsfd);
	return r;
}

int kns_fuse_mount_detached(int fuse_fd, const char *source_name, struct umad_err *err)
{
	char fd_text[16], uid_text[16], gid_text[16];
	const struct fs_option opts[] = {
		{ "source", source_name ? source_name : "umad" },
		{ "fd", fd_text },
		{ "rootmode", "40000" },	/* octal: a directory */
		{ "user_id", uid_text },
		{ "group_id", gid_text },
		{ "default_permissions", NULL },
		{ "allow_other", NULL },
	};
	struct stat st;
	int r;

	/* The kernel says only EINVAL for a descriptor that is not /dev/fuse. */
	if (fstat(fuse_fd, &st) < 0)
		return umad_err_set(err, -errno, "the FUSE device's descriptor %d: %s", fuse_fd,
				    strerror(errno));
	if (!S_ISCHR(st.st_mode))
		return umad_err_set(err, -EINVAL, "descriptor %d is no FUSE device (an open /dev/fuse)",
				    fuse_fd);
	snprintf(fd_text, sizeof(fd_text), "%d", fuse_fd);
	snprintf(uid_text, sizeof(uid_text), "%u", (unsigned)geteuid());
	snprintf(gid_text, sizeof(gid_text), "%u", (unsigned)getegid());
	r = fs_mount_detached("fuse", opts, sizeof(opts) / sizeof(opts[0]),
			      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err);
	if (r == -EINVAL)
		umad_err_prefix(err, r, "descriptor %d (an open /dev/fuse?): ", fuse_fd);
	return r;
}

/* The path through which the kernel finds what fd is, exactly (umount2 takes only paths). */
static void fd_path(int fd, char *path, size_t size)
{
	snprintf(path, size, "/proc/self/fd/%d", fd);
}

static bool ours(int dfd)
{
	struct stat st;
	unsigned i;

	if (fstat(dfd, &st) < 0)
		return false;
	for (i = 0; i < kns_ncovers; i++)
		if (kns_covers[i].dev == st.st_dev && kns_covers[i].ino == st.st_ino)
			return true;
	return false;
}

/*
 * A tmpfs for the parent described by st and sv, detached: its mode and,
 * where the namespace maps them, its owner; nosuid, and nodev and noexec
 * as the parent.
 */
static int new_cover(const struct stat *st, const struct statvfs *sv, struct umad_err *err)
{
	char mode_text[16], uid_text[16], gid_text[16];
	/* The owner last: left out where the namespace cannot name it. */
	const struct fs_option opts[] = {
		{ "source", "umad-kernel-ns" },
		{ "mode", mode_text },
		{ "uid", uid_text },
		{ "gid", gid_text },
	};
	const size_t all = sizeof(opts) / sizeof(opts[0]), owner = 2;
	unsigned attrs = MOUNT_ATTR_NOSUID;
	int fd;

	snprintf(mode_text, sizeof(mode_text), "%o", (unsigned)(st->st_mode & 07777));
	snprintf(uid_text, sizeof(uid_text), "%u", (unsigned)st->st_uid);
	snprintf(gid_text, sizeof(gid_text), "%u", (unsigned)st->st_gid);
	if (sv->f_flag & ST_NODEV)
		attrs |= MOUNT_ATTR_NODEV;
	if (sv->f_flag & ST_NOEXEC)
		attrs |= MOUNT_ATTR_NOEXEC;
	fd = fs_mount_detached("tmpfs", opts, all, attrs, NULL);
	/* In a user namespace that does not map the parent's owner, the caller owns it. */
	if (fd < 0)
		fd = fs_mount_detached("tmpfs", opts, all - owner, attrs, err);
	return fd;
}

/*
 * The pty multiplexer finds the ptys of the devpts mounted at "pts" beside
 * it in its own mount: a clone of it alone finds none.  It is made again
 * as the device it is where this process may (root), and otherwise is a
 * link into the copy of the whole parent, which then stays mounted.
 */
static int copy_ptmx(int tfd, const char *name, const struct stat *st, bool *keep_holder)
{
	if (mknodat(tfd, name, st->st_mode, st->st_rdev) == 0) {
		if (fchmodat(tfd, name, st->st_mode & 07777, 0) < 0 ||
		    fchownat(tfd, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		return 0;
	}
	if (errno != EPERM || symlinkat(KNS_HOLDER "/ptmx", tfd, name) < 0)
		return -errno;
	*keep_holder = true;
	return 0;
}

/*
 * An entry of the mounted copy of the parent (hfd) again in the cover (tfd):
 * a symbolic link recreated, anything else a placeholder of its kind with
 * the entry's clone mounted on it.  An entry gone meanwhile is left out, as
 * it is outside.
 */
static int copy_entry(int hfd, int tfd, const char *name, bool *keep_holder)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t len;
	int fd, clone, r = 0;

	if (fstatat(hfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode)) {
		len = readlinkat(hfd, name, target, sizeof(target) - 1);
		if (len < 0)
			return errno == ENOENT ? 0 : -errno;
		target[len] = '\0';
		return symlinkat(target, tfd, name) < 0 ? -errno : 0;
	}
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(TTYAUX_MAJOR, PTMX_MINOR))
		return copy_ptmx(tfd, name, &st, keep_holder);
	if (S_ISDIR(st.st_mode))
		fd = mkdirat(tfd, name, 0700);
	else if ((fd = openat(tfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      0600)) >= 0)
		fd = close(fd);
	if (fd < 0)
		return -errno;
	clone = open_tree(hfd, name, CLONE_FLAGS);
	if (clone < 0) {
		r = -errno;
		unlinkat(tfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
		return r == -ENOENT ? 0 : r;
	}
	if (move_mount(clone, "", tfd, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		r = -errno;
	close(clone);
	return r;
}

/* Every entry of the mounted copy of the parent (hfd) again in the cover (tfd). */
static int copy_entries(int hfd, int tfd, const char *parent, bool *keep_holder,
			struct umad_err *err)
{
	struct dirent *e;
	int lfd, r = 0;
	DIR *dir;

	lfd = openat(hfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lfd < 0 || !(dir = fdopendir(lfd))) {
		r = -errno;
		if (lfd >= 0)
			close(lfd);
		return umad_err_set(err, r, "cannot list %s: %s", parent, strerror(-r));
	}
	for (errno = 0; !r && (e = readdir(dir)); errno = 0) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			r = copy_entry(hfd, tfd, e->d_name, keep_holder);
		if (r)
			umad_err_set(err, r, "cannot show %s/%s in the cover: %s", parent, e->d_name,
				     strerror(-r));
	}
	if (!r && errno)
		r = umad_err_set(err, -errno, "cannot list %s: %s", parent, strerror(errno));
	closedir(dir);
	return r;
}

/*
 * Cover parent (pfd) with a tmpfs of ours showing its entries: the cover's
 * fd, its root where the missing directory is to be made, or -errno.  The
 * whole parent is cloned first, while it is still in sight; on failure the
 * cover goes and the parent shows again.
 */
static int cover(int pfd, const char *parent, struct umad_err *err)
{
	char path[64];
	struct statvfs sv;
	struct stat st, holder;
	int whole, tfd = -1, hfd = -1, r;
	bool attached = false, keep_holder = false;

	if (fstat(pfd, &st) < 0 || fstatvfs(pfd, &sv) < 0)
		return umad_err_set(err, -errno, "cannot look at %s: %s", parent, strerror(errno));
	if (fstatat(pfd, KNS_HOLDER, &holder, AT_SYMLINK_NOFOLLOW) == 0)
		return umad_err_set(err, -EEXIST, "%s has an entry named %s, the name used to copy it",
				    parent, KNS_HOLDER);
	whole = open_tree(pfd, "", CLONE_FLAGS | AT_EMPTY_PATH);
	if (whole < 0)
		return umad_err_set(err, -errno, "cannot clone %s: %s", parent, mount_why(-errno));
	tfd = new_cover(&st, &sv, err);
	if (tfd < 0) {
		r = umad_err_prefix(err, tfd, "cannot cover %s: ", parent);
		goto out;
	}
	if (mkdirat(tfd, KNS_HOLDER, 0700) < 0) {
		r = umad_err_set(err, -errno, "cannot make %s in a tmpfs: %s", KNS_HOLDER,
				 strerror(errno));
		goto out;
	}
	if (move_mount(tfd, "", pfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		r = umad_err_set(err, -errno, "cannot cover %s with a tmpfs: %s", parent,
				 strerror(errno));
		goto out;
	}
	attached = true;
	if (move_mount(whole, "", tfd, KNS_HOLDER, MOVE_MOUNT_F_EMPTY_PATH) < 0 ||
	    (hfd = openat(tfd, KNS_HOLDER, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = umad_err_set(err, -errno, "cannot mount a copy of %s in its cover: %s", parent,
				 strerror(errno));
		goto out;
	}
	r = copy_entries(hfd, tfd, parent, &keep_holder, err);
	if (r)
		goto out;
	fd_path(hfd, path, sizeof(path));
	if (!keep_holder &&
	    (umount2(path, MNT_DETACH) < 0 || unlinkat(tfd, KNS_HOLDER, AT_REMOVEDIR) < 0)) {
		r = umad_err_set(err, -errno, "cannot put away the copy of %s: %s", parent,
				 strerror(errno));
		goto out;
	}
	if (fstat(tfd, &st) < 0) {
		r = umad_err_set(err, -errno, "cannot look at the cover of %s: %s", parent,
				 strerror(errno));
		goto out;
	}
	/* Past the last one, a parent is covered again, over the cover: that shows as well. */
	if (kns_ncovers < KNS_COVERS_MAX) {
		kns_covers[kns_ncovers].dev = st.st_dev;
		kns_covers[kns_ncovers].ino = st.st_ino;
		kns_ncovers++;
	}
	r = tfd;
	tfd = -1;
out:
	if (hfd >= 0)
		close(hfd);
	if (attached && tfd >= 0) {
		fd_path(tfd, path, sizeof(path));
		umount2(path, MNT_DETACH);
	}
	if (tfd >= 0)
		close(tfd);
	close(whole);
	return r;
}

/* at split into its parent and its last name; "/", "." and ".." refused. */
static int split_at(const char *at, char *parent, size_t size, char *name,
		    struct umad_err *err)
{
	size_t len = at ? strlen(at) : 0, cut;

	if (!at || at[0] != '/')
		return umad_err_set(err, -EINVAL, "%s: the place to show a tree at must be an absolute path",
				    at ? at : "(null)");
	while (len > 1 && at[len - 1] == '/')
		len--;
	for (cut = len; cut > 0 && at[cut - 1] != '/'; cut--)
		;
	if (len - cut > NAME_MAX || cut > size - 1)
		return umad_err_set(err, -ENAMETOOLONG, "%s: %s", at, strerror(ENAMETOOLONG));
	memcpy(name, at + cut, len - cut);
	name[len - cut] = '\0';
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return umad_err_set(err, -EINVAL, "%s: cannot show a tree at /, . or ..", at);
	/* The parent keeps its leading slash: "/dev" of "/dev/infiniband", "/" of "/x". */
	cut = cut > 1 ? cut - 1 : 1;
	memcpy(parent, at, cut);
	parent[cut] = '\0';
	return 0;
}

/* A detached tree's root is its own parent: ".." leads nowhere. */
static bool detached(int fd)
{
	struct stat self, up;

	return fstatat(fd, "", &self, AT_EMPTY_PATH) == 0 && fstatat(fd, "..", &up, 0) == 0 &&
	       self.st_dev == up.st_dev && self.st_ino == up.st_ino;
}

static int clone_of(int tree_fd, const char *rel)
{
	int fd = open_tree(tree_fd, rel, CLONE_FLAGS | (*rel ? 0 : AT_EMPTY_PATH));

	return fd < 0 ? -errno : fd;
}

int kns_show(int tree_fd, const char *rel, const char *at, struct umad_err *err)
{
	char parent[PATH_MAX], name[NAME_MAX + 1];
	struct stat st;
	int src, pfd = -1, dfd, r;

	if (!rel || rel[0] == '/')
		return umad_err_set(err, -EINVAL, "%s: the directory of the tree to show must be relative",
				    rel ? rel : "(null)");
	r = split_at(at, parent, sizeof(parent), name, err);
	if (r)
		return r;
	/* Before anything changes: the tree must have rel. */
	src = clone_of(tree_fd, rel);
	if (src < 0 && !(src == -EINVAL && detached(tree_fd)))
		return umad_err_set(err, src, "cannot take %s from the tree: %s", *rel ? rel : "/",
				    mount_why(src));
	pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0) {
		r = umad_err_set(err, -errno, "cannot show a tree at %s: %s: %s", at, parent,
				 strerror(errno));
		goto out;
	}
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			r = umad_err_set(err, -ENOTDIR, "cannot show a tree at %s: not a directory", at);
			goto out;
		}
	} else if (errno != ENOENT) {
		r = umad_err_set(err, -errno, "cannot show a tree at %s: %s", at, strerror(errno));
		goto out;
	} else {
		if (!ours(pfd) && !strcmp(parent, "/")) {
			r = umad_err_set(err, -EINVAL, "cannot show a tree at %s: it is missing, and / is not to be covered",
					 at);
			goto out;
		}
		if (!ours(pfd)) {
			dfd = cover(pfd, parent, err);
			if (dfd < 0) {
				r = dfd;
				goto out;
			}
			close(pfd);
			pfd = dfd;
		}
		if (mkdirat(pfd, name, 0755) < 0) {
			r = umad_err_set(err, -errno, "cannot make %s in the cover of %s: %s", name,
					 parent, strerror(errno));
			goto out;
		}
	}
	/*
	 * This kernel clones nothing from a detached tree (or one made in another
	 * namespace): the whole tree goes at `at` first, and rel over it.
	 */
	if (src < 0) {
		if (move_mount(tree_fd, "", pfd, name, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
			r = umad_err_set(err, -errno, "cannot mount the tree at %s: %s", at,
					 strerror(errno));
			goto out;
		}
		src = clone_of(tree_fd, rel);
		if (src < 0) {
			r = umad_err_set(err, src, "cannot take %s from the tree: %s",
					 *rel ? rel : "/", strerror(-src));
			goto out;
		}
	}
	if (move_mount(src, "", pfd, name, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		r = umad_err_set(err, -errno, "cannot mount %s of the tree at %s: %s",
				 *rel ? rel : "/", at, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (src >= 0)
		close(src);
	if (pfd >= 0)
		close(pfd);
	return r;
}
