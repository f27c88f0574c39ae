/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A private directory for one process's run-time files, which does not
 * pile up when processes die without cleaning up: it is named
 * PREFIX.PID.XXXXXX and its process holds a lock on it while it lives.
 * Creating one first removes those of the same prefix, owned by the same
 * user, whose lock nobody holds and whose process is gone.
 */
#ifndef LIBUMAD_RUNTIME_DIR_H
#define LIBUMAD_RUNTIME_DIR_H

#include <stddef.h>
#include <sys/types.h>

struct runtime_dir {
	char path[4096];
	int lock_fd;
	pid_t owner;		/* the process that made it */
};

/*
 * Create the directory (mode 0700) in the first writable one of n_bases
 * directories (NULL or empty entries are skipped), after sweeping it.
 * 0 or -errno.
 */
int runtime_dir_create(struct runtime_dir *d, const char *const *bases, size_t n_bases,
		       const char *prefix);
/*
 * Remove the directory and all in it, and let its lock go; in a forked
 * child (whose exit handlers run too) only the child's copy of the lock is
 * let go: the directory is the parent's.
 */
void runtime_dir_remove(struct runtime_dir *d);
/* Remove the dead processes' directories of prefix in base; how many were removed. */
int runtime_dir_sweep(const char *base, const char *prefix);

#endif /* LIBUMAD_RUNTIME_DIR_H */
