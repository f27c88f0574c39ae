/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Creating or extending a capture file without harming anything already
 * there: a symbolic link, a directory, a FIFO, a device or a socket at the
 * path is refused (never opened, so nothing can block).
 *
 * Created afresh (capture_file_create), a regular file is replaced
 * (unlinked and created anew, so other links to it keep their content)
 * unless another process is writing a capture into it.  Where the directory
 * does not allow that, the caller's own file with no other link is emptied
 * and written in place; another user's is refused.
 *
 * Extended (capture_file_append), the file is created if missing, and
 * otherwise must be the caller's own regular file: another user's is
 * refused, whoever may write the directory.
 *
 * The file is mode 0600 and the caller's in every case, whatever the
 * umask, and opened for appending.  Several processes may write one file:
 * each holds a shared (read) lock on byte 0 while its descriptor is open,
 * which is how capture_file_create finds a capture in progress, and takes
 * the write lock on byte 1 around each write (capture_file_lock), so that
 * writes of whole blocks never interleave.  The locks are open file
 * description locks (F_OFD_SETLK): a forked child that keeps the
 * descriptor shares them, so a child writing on its own opens the file
 * again.
 */
#ifndef LIBUMAD_CAPTURE_FILE_H
#define LIBUMAD_CAPTURE_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "base/errbuf.h"

/* The descriptor (read-write, append, close-on-exec, locked), or -errno with why in err. */
int capture_file_create(const char *path, struct umad_err *err);
/* The same, keeping what the file holds; *created says whether it was made anew. */
int capture_file_append(const char *path, int *created, struct umad_err *err);

/* Take (wait for) and give back the write lock around a write; 0 or -errno. */
int capture_file_lock(int fd);
void capture_file_unlock(int fd);

/*
 * The file name for a pattern: %p becomes pid, %% a single %, anything
 * else is kept.  0, or -ENAMETOOLONG when it does not fit in out.
 */
int capture_file_name(const char *pattern, pid_t pid, char *out, size_t outlen);

#endif /* LIBUMAD_CAPTURE_FILE_H */
