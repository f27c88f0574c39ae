/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cli/command_check.h"

#ifndef UMAD_LOADER_DIRS
#error "configure defines UMAD_LOADER_DIRS, the dynamic loader's default directories"
#endif

/* execvp's search path when PATH is unset (glibc's). */
#define EXECVP_DEFAULT_PATH	"/bin:/usr/bin"
#define SCRIPT_MAGIC	"#!"

int command_find_in_path(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH"), *p;

	if (!path)
		path = EXECVP_DEFAULT_PATH;
	for (p = path;; ) {
		size_t len = strcspn(p, ":");
		struct stat st;

		snprintf(out, size, "%.*s%s%s", (int)len, p, len ? "/" : "", name);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		if (!p[len])
			break;
		p += len + 1;
	}
	out[0] = '\0';
	return -ENOENT;
}

/* The interpreter a script names on its #! line, into out; 0 when path is no script. */
static int interpreter_of(const char *path, char *out, size_t size)
{
	char line[PATH_MAX + 8];
	ssize_t n;
	size_t at, len;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < (ssize_t)strlen(SCRIPT_MAGIC) || memcmp(line, SCRIPT_MAGIC, strlen(SCRIPT_MAGIC)))
		return 0;
	line[n] = '\0';
	at = strlen(SCRIPT_MAGIC) + strspn(line + strlen(SCRIPT_MAGIC), " \t");
	len = strcspn(line + at, " \t\n");
	if (!len || len >= size)
		return -ENOEXEC;
	memcpy(out, line + at, len);
	out[len] = '\0';
	return 1;
}

/* Would the loader run path in secure-execution mode (AT_SECURE) for this user? */
static void secure_mode(const char *path, struct command_program *prog)
{
	struct statvfs fs;
	struct stat st;

	if (stat(path, &st) < 0)
		return;
	/* A nosuid mount: the kernel ignores the bits and the capabilities. */
	if (statvfs(path, &fs) == 0 && (fs.f_flag & ST_NOSUID))
		return;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		snprintf(prog->secure_why, sizeof(prog->secure_why), "set-user-ID");
	else if ((st.st_mode & S_ISGID) && st.st_gid != getgid())
		snprintf(prog->secure_why, sizeof(prog->secure_why), "set-group-ID");
	else if (getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		snprintf(prog->secure_why, sizeof(prog->secure_why), "given file capabilities");
	prog->secure = prog->secure_why[0] != '\0';
}

int command_find(const char *argv0, struct command_program *prog, char *why, size_t why_size)
{
	char next[PATH_MAX];
	int depth, r;

	memset(prog, 0, sizeof(*prog));
	if (strchr(argv0, '/'))
		snprintf(prog->path, sizeof(prog->path), "%s", argv0);
	else if (command_find_in_path(argv0, prog->path, sizeof(prog->path)) < 0)
		return 0;
	for (depth = 0;; depth++) {
		r = interpreter_of(prog->path, next, sizeof(next));
		if (r < 0) {
			snprintf(why, why_size, "%s: %s", prog->path, r == -ENOEXEC ?
				 "its #! line names no interpreter" : strerror(-r));
			return r;
		}
		if (!r)
			break;
		if (depth == COMMAND_MAX_SCRIPTS) {
			snprintf(why, why_size, "%s: scripts more than %d deep", prog->path,
				 COMMAND_MAX_SCRIPTS);
			return -ELOOP;
		}
		if (!prog->script[0])
			snprintf(prog->script, sizeof(prog->script), "%s", prog->path);
		snprintf(prog->path, sizeof(prog->path), "%s", next);
	}
	secure_mode(prog->path, prog);
	return 0;
}

void command_search_env(struct lib_search_env *env, const char *ld_library_path, int secure)
{
	memset(env, 0, sizeof(*env));
	env->ld_library_path = ld_library_path;
	env->ld_preload = getenv("LD_PRELOAD");
	env->preload_file = "/etc/ld.so.preload";
	env->cache_file = "/etc/ld.so.cache";
	env->default_dirs = UMAD_LOADER_DIRS;
	env->secure = secure;
}

static int same_file(const char *path, const struct own_library *own)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == own->dev && st.st_ino == own->ino;
}

/* The end of every refusal: the way that works for any program. */
static int refuse(const char *what, FILE *out)
{
	fprintf(out, "umad: %s: not run.  `umad sim --kernel -- COMMAND` runs it on the fabric "
		"through device files (/dev/infiniband, /sys/class/infiniband), whatever library "
		"it loads; `umad doctor COMMAND` shows the loader's search\n", what);
	return -1;
}

int command_check(const char *what, const char *argv0, const char *ld_library_path,
		  const struct own_library *own, FILE *out)
{
	struct command_program prog;
	struct lib_search_env env;
	struct lib_search_result res;
	struct umad_err err = UMAD_ERR_INIT;
	char why[2 * PATH_MAX];
	const char *name;

	if (command_find(argv0, &prog, why, sizeof(why)) < 0) {
		fprintf(out, "umad: %s: cannot tell which libibumad.so.3 %s would load: %s\n", what,
			argv0, why);
		return refuse(what, out);
	}
	if (!prog.path[0])
		return 0;	/* not found: execvp says so */
	name = prog.script[0] ? prog.script : prog.path;
	command_search_env(&env, ld_library_path, prog.secure);
	if (lib_search(prog.path, "libibumad.so.3", &env, &res, NULL, NULL, &err) < 0) {
		/* Text without #!: execvp has /bin/sh run it, which is checked in its place. */
		if (err.count && strstr(umad_err_text(&err), "not an ELF file") && !prog.script[0])
			return command_check(what, "/bin/sh", ld_library_path, own, out);
		fprintf(out, "umad: %s: cannot tell which libibumad.so.3 %s would load: %s\n", what,
			name, umad_err_text(&err));
		return refuse(what, out);
	}
	switch (res.outcome) {
	case LIB_NOT_NEEDED:
		return 0;
	case LIB_STATIC:
		fprintf(out, "umad: %s: %s%s%s is a static program: it loads no library, so it "
			"cannot run on this umad's libibumad.so.3 (%s)\n", what, name,
			prog.script[0] ? ", through its interpreter " : "",
			prog.script[0] ? prog.path : "", own->real);
		return refuse(what, out);
	case LIB_NOT_FOUND:
		fprintf(out, "umad: %s: %s would find no libibumad.so.3 it can load (needed by %s; "
			"this umad's, %s, is of another ELF class or machine?)\n", what, name,
			res.requester, own->real);
		return refuse(what, out);
	case LIB_FOUND:
		break;
	}
	if (res.uncertain) {
		fprintf(out, "umad: %s: %s: a search path before the one that gave %s holds a "
			"token ($LIB) umad cannot expand: which libibumad.so.3 it loads cannot be "
			"told\n", what, name, res.path);
		return refuse(what, out);
	}
	if (same_file(res.path, own))
		return 0;
	fprintf(out, "umad: %s: %s would load %s (%s%s%s, needed by %s), not this umad's %s: "
		"it would run on another library, without the simulated fabric\n", what, name,
		res.path, lib_where_name(res.where), res.via[0] ? " of " : "", res.via,
		res.requester, own->real);
	if (prog.secure)
		fprintf(out, "umad: %s: %s is %s: the loader ignores LD_LIBRARY_PATH for it\n",
			what, prog.path, prog.secure_why);
	else if (res.where == LIB_RPATH)
		fprintf(out, "umad: %s: DT_RPATH is searched before LD_LIBRARY_PATH (DT_RUNPATH "
			"would come after it)\n", what);
	return refuse(what, out);
}
