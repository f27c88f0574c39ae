/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Per-process run-time directories that do not outlive their process (runtime_dir.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/runtime_dir.h"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Remove a tree without following symbolic links. */
static void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The pid in PREFIX.PID.XXXXXX, or 0 when name is not of that form. */
static pid_t owner_pid(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long pid;

	if (strncmp(name, prefix, n) || name[n] != '.')
		return 0;
	pid = strtol(name + n + 1, &end, 10);
	if (end == name + n + 1 || *end != '.' || pid <= 0 || pid != (pid_t)pid)
		return 0;
	return (pid_t)pid;
}

/*
 * Is the directory at dirfd/name left over by a dead process?  Ours (same
 * user), nobody holding its lock, and its process gone: a process that has
 * only just made it and not yet locked it is still alive.
 */
static int is_stale(int dirfd, const char *name, pid_t pid)
{
	struct stat st;
	int fd, stale = 0;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0)
		stale = kill(pid, 0) < 0 && errno == ESRCH;
	close(fd);	/* lets the lock go */
	return stale;
}

int runtime_dir_sweep(const char *base, const char *prefix)
{
	char path[4096];
	struct dirent *e;
	DIR *d = opendir(base);
	int removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid = owner_pid(e->d_name, prefix);

		if (!pid || pid == getpid() || !is_stale(dirfd(d), e->d_name, pid))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", base, e->d_name) >= (int)sizeof(path))
			continue;
		remove_tree(path);
		removed++;
	}
	closedir(d);
	return removed;
}

/*
 * A base another user cannot replace our directory in: a directory of ours
 * or root's, writable by nobody else or sticky (/tmp), so that only we
 * can rename or remove what we make there.
 */
static int base_is_safe(const char *base)
{
	struct stat st;

	if (stat(base, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return 0;
	return !(st.st_mode & (S_IWGRP | S_IWOTH)) || (st.st_mode & S_ISVTX);
}

int runtime_dir_create(struct runtime_dir *d, const char *const *bases, size_t n_bases,
		       const char *prefix)
{
	struct stat st;
	int err = ENOENT;
	size_t i;

	d->lock_fd = -1;
	for (i = 0; i < n_bases; i++) {
		const char *base = bases[i];

		if (!base || !*base || access(base, W_OK) < 0)
			continue;
		if (!base_is_safe(base)) {
			err = EPERM;
			continue;
		}
		runtime_dir_sweep(base, prefix);
		if (snprintf(d->path, sizeof(d->path), "%s/%s.%d.XXXXXX", base, prefix,
			     (int)getpid()) >= (int)sizeof(d->path)) {
			err = ENAMETOOLONG;
			continue;
		}
		if (!mkdtemp(d->path)) {
			err = errno;
			continue;
		}
		d->owner = getpid();
		d->lock_fd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d->lock_fd < 0 || flock(d->lock_fd, LOCK_EX | LOCK_NB) < 0) {
			err = errno;
			runtime_dir_remove(d);
			continue;
		}
		/* What mkdtemp made, and nothing put in its place: ours, for us alone. */
		if (fstat(d->lock_fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
			err = EPERM;
			close(d->lock_fd);
			d->lock_fd = -1;
			d->path[0] = '\0';
			continue;
		}
		return 0;
	}
	d->path[0] = '\0';
	return -err;
}

void runtime_dir_remove(struct runtime_dir *d)
{
	if (d->path[0] && d->owner == getpid())
		remove_tree(d->path);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->lock_fd = -1;
	d->path[0] = '\0';
}
