/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Which file a program would load for a library (libibumad.so.3), found as
 * glibc's dynamic loader finds it, without running the program: the
 * program, what LD_PRELOAD and /etc/ld.so.preload add, then every library
 * they need, breadth first (a library reached indirectly counts: ibstat ->
 * libibmad -> libibumad), a name already loaded (by name or SONAME) being
 * taken as it is.  Each name is looked for as the loader does:
 *   - a name with a '/' is a path;
 *   - DT_RPATH of the object needing it, of the one that loaded that, and
 *     so on up to the program, unless the object needing it has DT_RUNPATH
 *     (an object's DT_RPATH counts for nothing when it has DT_RUNPATH);
 *   - LD_LIBRARY_PATH, except in secure-execution mode (set-user-ID,
 *     set-group-ID or file capabilities);
 *   - DT_RUNPATH of the object needing it (its own needs only, not theirs);
 *   - the ld.so.cache, then the default directories, unless the object
 *     needing it is DF_1_NODEFLIB.
 * A file of another ELF class or machine than the program is passed over,
 * as the loader does.  $ORIGIN and $PLATFORM are expanded; what $LIB is
 * cannot be told from outside the loader: a path with it makes the answer
 * uncertain.  The glibc-hwcaps and legacy hwcap subdirectories the loader
 * also tries in each directory are not looked in.
 */
#ifndef CLI_LIB_SEARCH_H
#define CLI_LIB_SEARCH_H

#include <limits.h>

#include "base/errbuf.h"
#include "base/project_note.h"

enum lib_outcome {
	LIB_FOUND,		/* path */
	LIB_NOT_NEEDED,		/* nothing the program loads needs it */
	LIB_STATIC,		/* no program interpreter: it loads no library */
	LIB_NOT_FOUND,		/* needed, found nowhere: the program does not start */
};

enum lib_where {
	LIB_BY_PATH,		/* DT_NEEDED (or LD_PRELOAD) names a path */
	LIB_PRELOAD,		/* LD_PRELOAD or /etc/ld.so.preload */
	LIB_RPATH,
	LIB_LD_LIBRARY_PATH,
	LIB_RUNPATH,
	LIB_CACHE,
	LIB_DEFAULT_DIRS,
};

struct lib_search_env {
	const char *ld_library_path;	/* NULL: unset */
	const char *ld_preload;		/* NULL: unset */
	const char *preload_file;	/* /etc/ld.so.preload (NULL: none) */
	const char *cache_file;		/* /etc/ld.so.cache (NULL: none) */
	const char *default_dirs;	/* ':'-separated */
	int secure;			/* secure-execution mode */
};

struct lib_search_result {
	enum lib_outcome outcome;
	enum lib_where where;
	char path[PATH_MAX];		/* the file loaded */
	char requester[PATH_MAX];	/* the object whose DT_NEEDED named it */
	char via[PATH_MAX];		/* LIB_RPATH, LIB_RUNPATH: the object with that path */
	char umad_version[UMAD_NOTE_VERSION_MAX];	/* "" when not this project's */
	int uncertain;			/* a path could not be expanded ($LIB) before it was found */
};

/* One line of what the search walked, without its newline. */
typedef void (*lib_trace_fn)(void *arg, const char *line);

/*
 * Look for soname as the program at path (an ELF file, not a script) would
 * load it in env; trace (may be NULL) gets each step.  0 with *res, or -errno
 * with why in err when the program itself does not read.
 */
int lib_search(const char *path, const char *soname, const struct lib_search_env *env,
	       struct lib_search_result *res, lib_trace_fn trace, void *trace_arg,
	       struct umad_err *err);

/* The name of where, for a person: "DT_RPATH", "LD_LIBRARY_PATH", ... */
const char *lib_where_name(enum lib_where where);

#endif /* CLI_LIB_SEARCH_H */
