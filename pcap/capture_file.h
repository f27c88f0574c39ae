/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Creating a capture file without harming anything already there: a
 * symbolic link, a directory, a FIFO, a device or a socket at the path is
 * refused (never opened, so nothing can block); a regular file is
 * replaced (unlinked and created anew, so other links to it keep their
 * content) unless another process is writing a capture into it.  Where
 * the directory does not allow that, the caller's own file with no other
 * link is emptied and written in place; another user's is refused.  The
 * file is mode 0600 and the caller's in every case, whatever the umask.
 * It stays locked (flock) while its descriptor is open: that is how a
 * second process finds the first one's capture in progress.
 */
#ifndef LIBUMAD_CAPTURE_FILE_H
#define LIBUMAD_CAPTURE_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* The descriptor (write-only, close-on-exec, locked), or -errno with why in err. */
int capture_file_create(const char *path, char *err, size_t errlen);

/*
 * The file name for a pattern: %p becomes pid, %% a single %, anything
 * else is kept.  0, or -ENAMETOOLONG when it does not fit in out.
 */
int capture_file_name(const char *pattern, pid_t pid, char *out, size_t outlen);

#endif /* LIBUMAD_CAPTURE_FILE_H */
