/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * umad doctor [--kernel] [COMMAND [ARGS...]]: what this machine gives umad.
 *   - the libibumad.so.3 this umad runs on, and whether it is its own;
 *   - the backend modules in the module directory, and whether each loads;
 *   - for umad kernel and umad sim --kernel: /dev/fuse, fusermount3, user
 *     and mount namespaces, and a FUSE mount inside them, tried in a child;
 *   - with COMMAND: which libibumad.so.3 it loads, found as the loader
 *     finds it (every step told), run as it is here and under umad sim.
 * Exit status 0 when what was asked for works: umad on its own library,
 * COMMAND (when given) under umad sim, and with --kernel the FUSE mount.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/command_check.h"
#include "cli/doctor.h"
#include "cli/lib_search.h"
#include "cli/own_library.h"
#include "base/backend.h"
#ifdef UMAD_CLI_KERNEL
#include "cli/kernel_ns.h"
#endif

#ifndef UMAD_MODULE_DIR
#error "the build defines UMAD_MODULE_DIR, the installed module directory"
#endif

#define MODULE_PREFIX	"backend-"
#define MODULE_SUFFIX	".so"
#define LIBIBUMAD	"libibumad.so.3"

static int own_library(struct own_library *own)
{
	char why[PATH_MAX + 64];

	printf("umad %s\n", PACKAGE_VERSION);
	if (own_library_find(own, why, sizeof(why)) < 0) {
		printf("  runs on: cannot be told: %s\n  FAIL\n", why);
		return -1;
	}
	printf("  runs on %s (%s)\n", own->path, own->real);
	if (own_library_is_ours(own)) {
		printf("  which is libumad %s, its own: ok\n", own->version);
		return 0;
	}
	if (own->version[0])
		printf("  which is libumad %s, another version: FAIL (install umad and the library "
		       "from one build)\n", own->version);
	else
		printf("  which is not libumad's (rdma-core's?): FAIL (the loader found it before "
		       "umad's own; see umad(1), \"Which library\")\n");
	return -1;
}

/* Each backend-NAME.so: does it load, and is it a backend of this ABI? */
static int backends(void)
{
	const char *env = getenv("UMAD_MODULE_DIR");
	const char *dir = env && *env ? env : UMAD_MODULE_DIR;
	struct dirent *d;
	DIR *dp;
	int n = 0, sim = 0;

	printf("backends: kernel (built into libibumad.so.3); modules in %s%s:\n", dir,
	       env && *env ? " (UMAD_MODULE_DIR)" : "");
	dp = opendir(dir);
	if (!dp) {
		printf("  %s: %s\n", dir, strerror(errno));
		return 0;
	}
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);
		char path[PATH_MAX], symbol[128], name[64];
		const struct umad_backend *be;
		void *h;

		if (strncmp(d->d_name, MODULE_PREFIX, strlen(MODULE_PREFIX)) ||
		    len <= strlen(MODULE_PREFIX) + strlen(MODULE_SUFFIX) ||
		    strcmp(d->d_name + len - strlen(MODULE_SUFFIX), MODULE_SUFFIX) ||
		    len - strlen(MODULE_PREFIX) - strlen(MODULE_SUFFIX) >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s",
			 (int)(len - strlen(MODULE_PREFIX) - strlen(MODULE_SUFFIX)),
			 d->d_name + strlen(MODULE_PREFIX));
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		snprintf(symbol, sizeof(symbol), "umad_backend_%s", name);
		n++;
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			printf("  %s: does not load: %s\n", name, dlerror());
			continue;
		}
		be = dlsym(h, symbol);
		if (!be)
			printf("  %s: %s has no %s\n", name, path, symbol);
		else if (be->abi != UMAD_BACKEND_ABI)
			printf("  %s: backend ABI %u, this library's is %u: refused\n", name, be->abi,
			       UMAD_BACKEND_ABI);
		else {
			printf("  %s: loads (%s)\n", name, path);
			sim |= !strcmp(name, "sim");
		}
		/* Left loaded: a module's threads or destructors are not for a check to undo. */
	}
	closedir(dp);
	if (!n)
		printf("  none\n");
	return sim;
}

#ifdef UMAD_CLI_KERNEL
/* In a child, as umad kernel does it: the namespaces, /dev/fuse opened inside, a FUSE mount. */
static int try_kernel_mount(char *why, size_t size)
{
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe(fds) < 0) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		struct umad_err err = UMAD_ERR_INIT;
		int fd, r;

		close(fds[0]);
		r = kns_enter(&err);
		if (r == 0) {
			fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
			if (fd < 0)
				r = umad_err_set(&err, -errno, "/dev/fuse (inside the namespaces): %s",
						 strerror(errno));
			else if ((r = kns_fuse_mount_detached(fd, "umad-doctor", &err)) >= 0)
				r = 0;
		}
		if (r < 0 && write(fds[1], umad_err_text(&err), strlen(umad_err_text(&err))) < 0)
			_exit(2);
		_exit(r < 0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		snprintf(why, size, "fork: %s", strerror(errno));
		return -1;
	}
	n = read(fds[0], why, size - 1);
	why[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!why[0])
			snprintf(why, size, "the child trying it failed");
		return -1;
	}
	return 0;
}
#endif

/* /dev/fuse, fusermount3, the namespaces: -1 when umad kernel cannot work here. */
static int kernel_files(void)
{
	char where[PATH_MAX];
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC), r = 0;
	struct stat st;

	printf("umad kernel, umad sim --kernel (FUSE):\n");
	if (fd >= 0) {
		printf("  /dev/fuse: opens\n");
		close(fd);
	} else {
		printf("  /dev/fuse: %s\n", strerror(errno));
	}
	command_find_in_path("fusermount3", where, sizeof(where));
	if (where[0] && stat(where, &st) == 0)
		printf("  fusermount3: %s%s (umad kernel --mount DIR, when not root)\n", where,
		       st.st_mode & S_ISUID ? ", set-user-ID" : ", not set-user-ID");
	else
		printf("  fusermount3: not in PATH (umad kernel --mount DIR needs it when not "
		       "root; umad kernel -- COMMAND does not)\n");
#ifdef UMAD_CLI_KERNEL
	{
		char why[1024];

		if (try_kernel_mount(why, sizeof(why)) == 0) {
			printf("  %s namespace and a FUSE mount in it: work\n",
			       geteuid() ? "user and mount" : "mount");
		} else {
			printf("  %s namespace and a FUSE mount in it: do not work: %s\n",
			       geteuid() ? "user and mount" : "mount", why);
			r = -1;
		}
	}
#else
	printf("  umad kernel: not in this build (configure found no libfuse3 or mount API)\n");
	r = -1;
#endif
	return r;
}

static void trace_line(void *arg, const char *line)
{
	(void)arg;
	printf("    %s\n", line);
}

/* Which libibumad.so.3 COMMAND loads with LD_LIBRARY_PATH ld_path (NULL: unset). */
static void show_search(const struct command_program *prog, const char *ld_path,
			const struct own_library *own)
{
	struct lib_search_env env;
	struct lib_search_result res;
	struct umad_err err = UMAD_ERR_INIT;
	struct stat a, b;

	command_search_env(&env, ld_path, prog->secure);
	if (lib_search(prog->path, LIBIBUMAD, &env, &res, trace_line, NULL, &err) < 0) {
		printf("    %s\n", umad_err_text(&err));
		return;
	}
	switch (res.outcome) {
	case LIB_NOT_NEEDED:
		printf("  loads no %s\n", LIBIBUMAD);
		return;
	case LIB_STATIC:
		printf("  a static program: loads no library\n");
		return;
	case LIB_NOT_FOUND:
		printf("  finds no %s (needed by %s): it would not start\n", LIBIBUMAD,
		       res.requester);
		return;
	case LIB_FOUND:
		break;
	}
	printf("  loads %s (%s%s%s, needed by %s)%s\n", res.path, lib_where_name(res.where),
	       res.via[0] ? " of " : "", res.via, res.requester,
	       res.uncertain ? ", unless a path umad cannot expand ($LIB) has one" : "");
	if (stat(res.path, &a) == 0 && own->real[0] && stat(own->real, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		printf("  which is this umad's own\n");
	else if (res.umad_version[0])
		printf("  which is libumad %s, not this umad's own\n", res.umad_version);
	else
		printf("  which is not libumad's (rdma-core's?)\n");
}

static int command(char **argv, const struct own_library *own, int own_ok)
{
	struct command_program prog;
	char why[2 * PATH_MAX];
	const char *old = getenv("LD_LIBRARY_PATH");
	char *sim_path = NULL;
	int r;

	printf("COMMAND %s:\n", argv[0]);
	if (command_find(argv[0], &prog, why, sizeof(why)) < 0) {
		printf("  %s\n  FAIL\n", why);
		return -1;
	}
	if (!prog.path[0]) {
		printf("  not found in PATH: FAIL\n");
		return -1;
	}
	if (prog.script[0])
		printf("  %s is a script: the loader runs its interpreter %s, looked at in its "
		       "place\n", prog.script, prog.path);
	else
		printf("  %s\n", prog.path);
	if (prog.secure)
		printf("  %s: the loader runs it in secure-execution mode (no LD_LIBRARY_PATH, "
		       "no LD_PRELOAD with a '/')\n", prog.secure_why);
	printf(" run as it is here (LD_LIBRARY_PATH%s%s):\n", old ? "=" : " unset", old ? old : "");
	show_search(&prog, old, own);
	if (!own_ok) {
		printf(" under umad sim: cannot be told while umad is not on its own library: FAIL\n");
		return -1;
	}
	sim_path = own_library_search_path(own);
	if (!sim_path) {
		printf(" under umad sim: cannot tell where this umad's library is: FAIL\n");
		return -1;
	}
	printf(" under umad sim (LD_LIBRARY_PATH=%s):\n", sim_path);
	show_search(&prog, sim_path, own);
	fflush(stdout);
	r = command_check("doctor", argv[0], sim_path, own, stdout);
	free(sim_path);
	printf("  umad sim -- %s: %s\n", argv[0], r < 0 ? "refused: FAIL" : "runs");
	return r;
}

static gboolean want_kernel;

static const GOptionEntry doctor_options[] = {
	{ "kernel", 0, 0, G_OPTION_ARG_NONE, &want_kernel,
	  "Check what umad kernel and umad sim --kernel need (FUSE, namespaces): exit 1 without",
	  NULL },
	G_OPTION_ENTRY_NULL
};

/* argv[1...]: COMMAND and its arguments, when given. */
static int doctor_run(int argc, char **argv, char **unused)
{
	struct own_library own;
	int i = 1, kernel = want_kernel, status = 0, own_ok, sim;

	(void)unused;
	own_ok = own_library(&own) == 0;
	status |= !own_ok;
	sim = backends();
	if (kernel_files() < 0 && kernel)
		status = 1;
	if (i < argc && !kernel && !sim) {
		printf("COMMAND %s: umad sim needs the sim backend module, which does not load: "
		       "FAIL (UMAD_MODULE_DIR names where it is)\n", argv[i]);
		status = 1;
	}
	if (i < argc && !kernel && command(argv + i, &own, own_ok) < 0)
		status = 1;
	else if (i < argc && kernel)
		printf("COMMAND %s: with --kernel, it reaches the fabric through the files, "
		       "whatever library it loads\n", argv[i]);
	printf("%s\n", status ? "doctor: something asked for cannot work here (FAIL above)"
			      : "doctor: ok");
	return status;
}

/* Any library: which one umad runs on is what it tells. */
const struct umad_command doctor_command = {
	.name = "doctor",
	.summary = "which libibumad.so.3 umad and COMMAND run on (and why), the backends, FUSE",
	.params = "[COMMAND [ARGS...]]",
	.description = "Also the user namespaces umad kernel needs; exit 1 when what is asked for "
		       "cannot work.",
	.options = doctor_options,
	.flags = CMD_OPTIONS_FIRST | CMD_ANY_LIBRARY,
	.run = doctor_run,
};
