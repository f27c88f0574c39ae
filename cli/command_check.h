/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Before umad sim runs COMMAND: will COMMAND load the libibumad.so.3 this
 * umad runs on, given the environment it gets?  COMMAND is found as execvp
 * finds it (PATH); a script (#!) is taken as its interpreter, which is what
 * the loader loads (up to COMMAND_MAX_SCRIPTS deep).  The rules:
 *   - a program that loads this library: run;
 *   - a dynamic program that loads no libibumad.so.3 (a shell, env, a script's
 *     interpreter): run -- it cannot use the fabric itself, and what it
 *     starts gets the same environment (each of those is not checked);
 *   - a static program, one that would load another libibumad.so.3 (a
 *     DT_RPATH, LD_PRELOAD, or LD_LIBRARY_PATH ignored in secure-execution
 *     mode: set-user-ID, set-group-ID, file capabilities), or one whose
 *     library cannot be told: refused, naming --kernel, which reaches the
 *     fabric through device files whatever library a program loads.
 */
#ifndef CLI_COMMAND_CHECK_H
#define CLI_COMMAND_CHECK_H

#include <limits.h>
#include <stdio.h>

#include "cli/lib_search.h"
#include "cli/own_library.h"

#define COMMAND_MAX_SCRIPTS	4

/* The program the loader runs for argv0, as found. */
struct command_program {
	char path[PATH_MAX];		/* "" when PATH has none (execvp will say so) */
	char script[PATH_MAX];		/* the first script on the way, "" when none */
	int secure;			/* the loader would be in secure-execution mode */
	char secure_why[64];		/* "set-user-ID", ... */
};

/* name as execvp finds it on PATH (its default when unset), into out; 0, or -ENOENT. */
int command_find_in_path(const char *name, char *out, size_t size);

/* Find argv0 as execvp would and follow scripts.  0, or -errno with why. */
int command_find(const char *argv0, struct command_program *prog, char *why, size_t why_size);

/* The environment the search assumes: LD_LIBRARY_PATH as given, the rest this process's. */
void command_search_env(struct lib_search_env *env, const char *ld_library_path, int secure);

/*
 * 0 when COMMAND (argv0) may run on own with LD_LIBRARY_PATH ld_library_path;
 * -1 after saying why on out, as "umad: WHAT: ...".
 */
int command_check(const char *what, const char *argv0, const char *ld_library_path,
		  const struct own_library *own, FILE *out);

#endif /* CLI_COMMAND_CHECK_H */
