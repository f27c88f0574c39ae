/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The libibumad.so.3 this umad runs on: where it is, and whether it is this
 * project's, of this umad's version (its note, base/project_note.h,
 * read in memory).  rdma-core's has the same SONAME and symbols: a umad
 * that the loader gave it would point COMMAND at a library without the
 * sim backend and say nothing.
 */
#ifndef CLI_OWN_LIBRARY_H
#define CLI_OWN_LIBRARY_H

#include <limits.h>
#include <sys/types.h>

#include "base/project_note.h"

struct own_library {
	char path[PATH_MAX];		/* as the loader named it */
	char real[PATH_MAX];		/* with the links resolved */
	char version[UMAD_NOTE_VERSION_MAX];	/* the note's; "" when it has none */
	dev_t dev;
	ino_t ino;
};

/* 0, or -errno when the library cannot be told (a message in why). */
int own_library_find(struct own_library *own, char *why, size_t why_size);

/* 1 when own is this project's library of this umad's version. */
int own_library_is_ours(const struct own_library *own);

/*
 * LD_LIBRARY_PATH for a COMMAND to run on own: own's directory first, then
 * what this process had there (as it is when that directory is first
 * already: libtool's wrapper in the build tree puts it there).  NULL when
 * the directory cannot be told; free() the result.
 */
char *own_library_search_path(const struct own_library *own);

/*
 * For every command but doctor: 0 when umad runs on its own library; -1
 * after saying on stderr which one it runs on and what to do.
 */
int own_library_check(const char *what);

#endif /* CLI_OWN_LIBRARY_H */
