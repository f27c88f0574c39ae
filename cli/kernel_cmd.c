/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * umad kernel: a simulated host's device files and sysfs tree through
 * FUSE (kfs.h), for programs that do not load this library.
 *
 *   umad kernel [-t FILE | --fabric WHERE] [--host NODE] [--sm builtin|none] -- CMD
 *       CMD runs in a private mount namespace (and a user namespace when
 *       not root) where /dev/infiniband, /sys/class/infiniband and
 *       /sys/class/infiniband_mad are the host's; the rest is as outside.
 *   umad kernel ... --mount DIR
 *       the files at DIR (DIR/dev/infiniband, DIR/sys/class/...), until
 *       SIGINT or SIGTERM, for programs that take a sysfs root.
 *
 * The host is the sim backend's: a fabric of this process's own (-t, or
 * the embedded default), or a served one (--fabric or UMAD_SIM_FABRIC),
 * at NODE (by default its first CA).  CMD gets the environment umad kernel
 * was given, not the settings it made for its own backend.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/umad.h>

#include "cli/command_run.h"
#include "cli/kernel_cmd.h"
#include "cli/kernel_ns.h"
#include "cli/kfs.h"
#include "cli/run_state.h"

#ifndef UMAD_MODULE_DIR
#error "the build defines UMAD_MODULE_DIR, the installed module directory"
#endif

#define SIM_MODULE	"backend-sim.so"
#define SIM_SYMBOL	"umad_backend_sim"

struct kernel_options {
	char *topology, *fabric, *host, *sm, *mount;
	char **command;		/* CMD and its arguments; NULL: none (--mount) */
	gboolean keep_state;	/* --keep-state: the tools' state outlives the run */
};

/*
 * The options' values, as the command table's parser sets them (one
 * command a process).  FILENAME, not STRING: a value is taken as the bytes
 * given, in any locale, as the sim backend takes them.
 */
static struct kernel_options opts;

static const GOptionEntry kernel_options[] = {
	{ "topology", 't', 0, G_OPTION_ARG_FILENAME, &opts.topology,
	  "A fabric of its own, from FILE (default: the embedded one)", "FILE" },
	{ "fabric", 0, 0, G_OPTION_ARG_FILENAME, &opts.fabric,
	  "The served fabric at WHERE: a socket of fabric serve, or tcp:HOST:PORT", "WHERE" },
	{ "host", 0, 0, G_OPTION_ARG_FILENAME, &opts.host,
	  "The host is the node NODE (default: the fabric's first CA)", "NODE" },
	{ "sm", 0, 0, G_OPTION_ARG_FILENAME, &opts.sm,
	  "The fabric's subnet manager, as UMAD_SIM_SM: builtin or none", "builtin|none" },
	{ "mount", 0, 0, G_OPTION_ARG_FILENAME, &opts.mount,
	  "Serve the host's files at DIR until SIGINT or SIGTERM, instead of a COMMAND", "DIR" },
	{ "keep-state", 0, 0, G_OPTION_ARG_NONE, &opts.keep_state,
	  "The tools' state (opensm's log, caches) outlives the run", NULL },
	G_OPTION_ENTRY_NULL
};

/* The variables this command sets for its own backend, restored for CMD. */
static const char *const own_vars[] = {
	"UMAD_BACKEND", "UMAD_SIM_TOPOLOGY", "UMAD_SIM_FABRIC", "UMAD_SIM_HOST", "UMAD_SIM_SM",
};
#define N_OWN_VARS	(sizeof(own_vars) / sizeof(own_vars[0]))

struct saved_env {
	char *values[N_OWN_VARS];	/* NULL: unset */
};

static void save_env(struct saved_env *s)
{
	size_t i;

	for (i = 0; i < N_OWN_VARS; i++) {
		const char *v = getenv(own_vars[i]);

		s->values[i] = v ? strdup(v) : NULL;
	}
}

static void restore_env(const struct saved_env *s)
{
	size_t i;

	for (i = 0; i < N_OWN_VARS; i++) {
		if (s->values[i])
			setenv(own_vars[i], s->values[i], 1);
		else
			unsetenv(own_vars[i]);
	}
}

static void free_env(struct saved_env *s)
{
	size_t i;

	for (i = 0; i < N_OWN_VARS; i++)
		free(s->values[i]);
}

static void kernel_usage(FILE *out)
{
	fprintf(out,
		"       umad kernel [-t FILE | --fabric WHERE] [--host NODE] [--sm builtin|none]\n"
		"                   (--mount DIR | [--keep-state] -- COMMAND [ARGS...])\n");
}

static int usage_error(void)
{
	fputs("usage: umad kernel [-t FILE | --fabric WHERE] [--host NODE] [--sm builtin|none]\n"
	      "                   (--mount DIR | [--keep-state] -- COMMAND [ARGS...])\n", stderr);
	return 2;
}

static int parse(int argc, char **argv, char **command, struct kernel_options *o)
{
	if (argc > 1) {
		fprintf(stderr, "umad: kernel: unexpected argument '%s'\n", argv[1]);
		return usage_error();
	}
	o->command = command;
	if (o->command && !o->command[0]) {
		fprintf(stderr, "umad: kernel: missing the command to run after --\n");
		return usage_error();
	}
	if (o->keep_state && o->mount) {
		fprintf(stderr, "umad: kernel: --keep-state goes with -- COMMAND (--mount runs none)\n");
		return usage_error();
	}
	if (!o->command == !o->mount) {
		fprintf(stderr, "umad: kernel: %s\n", o->mount ? "--mount DIR or -- COMMAND, not both"
			: "missing --mount DIR or -- COMMAND");
		return usage_error();
	}
	if (o->topology && o->fabric) {
		fprintf(stderr, "umad: kernel: -t FILE loads a fabric of its own; --fabric attaches "
			"to a served one: not both\n");
		return usage_error();
	}
	if (o->sm && strcmp(o->sm, "builtin") && strcmp(o->sm, "none")) {
		fprintf(stderr, "umad: kernel: --sm %s: expected builtin or none\n", o->sm);
		return usage_error();
	}
	return 0;
}

/*
 * This process's own backend: the sim backend, on the fabric and at the
 * host asked for.  Through the environment, for want of a call: libibumad
 * chooses its backend from UMAD_BACKEND (libumad/dispatch.c) and the sim
 * backend reads its fabric and host from UMAD_SIM_* when it starts, and
 * neither has a function to be told otherwise.  COMMAND gets the
 * environment back as it was (restore_env).
 */
static void set_backend_env(const struct kernel_options *o)
{
	setenv("UMAD_BACKEND", "sim", 1);
	if (o->topology)
		setenv("UMAD_SIM_TOPOLOGY", o->topology, 1);
	if (o->fabric)
		setenv("UMAD_SIM_FABRIC", o->fabric, 1);
	if (o->host)
		setenv("UMAD_SIM_HOST", o->host, 1);
	if (o->sm)
		setenv("UMAD_SIM_SM", o->sm, 1);
}

/* The sim backend's table, once the library has started it.  NULL after saying why. */
static const struct umad_backend *sim_backend(void)
{
	const char *dir = getenv("UMAD_MODULE_DIR");
	const struct umad_backend *be;
	char path[PATH_MAX];
	void *handle;

	if (umad_init() < 0) {
		fprintf(stderr, "umad: kernel: the sim backend did not start\n");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : UMAD_MODULE_DIR, SIM_MODULE);
	handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	be = handle ? dlsym(handle, SIM_SYMBOL) : NULL;
	if (!be || be->abi != UMAD_BACKEND_ABI) {
		fprintf(stderr, "umad: kernel: %s is not the sim backend this umad was built with\n",
			path);
		be = NULL;
	}
	/* The library loaded it for good (RTLD_NODELETE): the table outlives this handle. */
	if (handle)
		dlclose(handle);
	return be;
}

/*
 * Where the server and COMMAND run: on one CPU, by default the one this
 * process starts on (UMAD_KERNEL_CPU=N: CPU N; any: wherever the scheduler
 * puts them).  Every MAD is three FUSE requests, each a wake-up of the
 * server and then of the program: on one CPU each is a switch of tasks,
 * where across CPUs it waits for an idle CPU to wake.  Before any thread
 * starts, so that all of them, and COMMAND, stay there.  0, or -1 after
 * saying why.
 */
static int place_on_cpu(void)
{
	const char *v = getenv("UMAD_KERNEL_CPU");
	cpu_set_t one;
	long cpu;
	char *end;

	if (v && !strcmp(v, "any"))
		return 0;
	if (v && *v) {
		errno = 0;
		cpu = strtol(v, &end, 10);
		if (errno || *end || cpu < 0 || cpu >= CPU_SETSIZE) {
			fprintf(stderr, "umad: kernel: UMAD_KERNEL_CPU=%s: expected a CPU number or "
				"any\n", v);
			return -1;
		}
	} else {
		cpu = sched_getcpu();
		if (cpu < 0)
			return 0;	/* no CPU to name: left to the scheduler */
	}
	CPU_ZERO(&one);
	CPU_SET((int)cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0) {
		fprintf(stderr, "umad: kernel: cannot run on CPU %ld (UMAD_KERNEL_CPU): %s\n", cpu,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* SIGINT, SIGTERM and SIGCHLD on a descriptor the loop watches. */
static const int kernel_signals[] = { SIGINT, SIGTERM, SIGCHLD, 0 };

static int serve_mount(struct kfs *k, const char *dir, int sfd)
{
	struct umad_err err = UMAD_ERR_INIT;
	struct signalfd_siginfo si;
	int r, stop = 0;

	r = kfs_mount(k, dir, &err);
	if (r < 0) {
		umad_err_print("umad: kernel", &err);
		return 1;
	}
	fprintf(stderr, "umad: kernel: serving the host's files at %s until SIGINT or SIGTERM\n",
		dir);
	while (!stop) {
		r = kfs_serve(k, sfd, -1);
		if (r == 1) {
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				stop |= si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM;
		} else {
			if (r < 0)
				fprintf(stderr, "umad: kernel: %s\n", strerror(-r));
			stop = 1;
		}
	}
	kfs_unmount(k);
	return r < 0 ? 1 : 0;
}

/* command_end_descendants' serving: the host's files (0 once unmounted: no serving). */
static int serve_files(void *arg, int sfd, int timeout_ms)
{
	int r = kfs_serve(arg, sfd, timeout_ms);

	return r == -ETIMEDOUT ? 0 : r == 0 ? -ENOTCONN : r;
}

/* In the child: the host's directories in place, then COMMAND. */
static void run_command(int tree_fd, char **argv, const struct saved_env *env,
			const struct run_state *rs, const sigset_t *old, pid_t server)
{
	static const char *const shown[][2] = {
		{ "dev/infiniband", "/dev/infiniband" },
		{ "sys/class/infiniband", "/sys/class/infiniband" },
		{ "sys/class/infiniband_mad", "/sys/class/infiniband_mad" },
	};
	struct umad_err err = UMAD_ERR_INIT;
	size_t i;

	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		if (kns_show(tree_fd, shown[i][0], shown[i][1], &err) < 0) {
			umad_err_print("umad: kernel", &err);
			_exit(126);
		}
	}
	close(tree_fd);
	/* Its files die with the server: so does COMMAND, rather than see them broken. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != server)
		_exit(126);
	sigprocmask(SIG_SETMASK, old, NULL);
	restore_env(env);
	run_state_enter(rs);
	execvp(argv[0], argv);
	fprintf(stderr, "umad: kernel: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int serve_command(struct kfs *k, int fuse_fd, int tree_fd, char **argv,
			 const struct saved_env *env, const struct run_state *rs, int sfd,
			 const sigset_t *old)
{
	struct umad_err err = UMAD_ERR_INIT;
	int status = 1, done = 0, r;
	pid_t child, server;

	r = kfs_attach(k, fuse_fd, &err);
	if (r < 0) {
		umad_err_print("umad: kernel", &err);
		return 1;
	}
	/* What COMMAND leaves running (an SM in the background) is adopted here, to be ended. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	server = getpid();
	child = fork();
	if (child == 0) {
		close(sfd);
		run_command(tree_fd, argv, env, rs, old, server);
	}
	close(tree_fd);
	if (child < 0) {
		fprintf(stderr, "umad: kernel: cannot start %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	while (!done) {
		r = kfs_serve(k, sfd, -1);
		if (r != 1) {
			fprintf(stderr, "umad: kernel: the host's files cannot be served on: %s\n",
				r < 0 ? strerror(-r) : "unmounted");
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			break;
		}
		command_forward_signals(sfd, child);
		done = command_reap(child, &status);
	}
	command_end_descendants("kernel", serve_files, k, sfd);
	return status;
}

/*
 * The run's directory and the tools' state in it (run_state.h), and
 * COMMAND as it runs (opensm with its log there).  0, or -1 after saying why.
 */
static int open_state(const struct kernel_options *o, struct run_state *rs, char ***command)
{
	if (run_state_open(rs, "kernel", "umad-kernel", o->keep_state) < 0)
		return -1;
	*command = run_state_command(rs, o->command);
	if (!*command) {
		fprintf(stderr, "umad: kernel: out of memory\n");
		run_state_close(rs);
		return -1;
	}
	return 0;
}

static void close_state(struct run_state *rs, char **command, char **argv_command)
{
	if (command && command != argv_command)
		free(command);
	run_state_close(rs);
}

static int kernel_run(int argc, char **argv, char **cmd)
{
	struct umad_err err = UMAD_ERR_INIT;
	struct kernel_options o = opts;
	const struct umad_backend *be;
	struct saved_env env;
	struct run_state rs = { .dir.lock_fd = -1 };
	struct kfs *k = NULL;
	char **command = NULL;
	sigset_t old;
	int r = parse(argc, argv, cmd, &o), fuse_fd = -1, tree_fd = -1, status = 1, sfd;

	if (r)
		return r;
	/* COMMAND's own directory, made as the user, before any namespace. */
	if (o.command && open_state(&o, &rs, &command) < 0)
		return 1;
	/*
	 * The signals go to a descriptor, blocked before any thread starts (the
	 * backend's among them): a thread that did not block SIGCHLD would take
	 * it, and COMMAND's end would never be seen.
	 */
	if (o.command && place_on_cpu() < 0) {
		close_state(&rs, command, o.command);
		return 1;
	}
	sfd = command_signal_fd(kernel_signals, &old);
	if (sfd < 0) {
		fprintf(stderr, "umad: kernel: signalfd: %s\n", strerror(errno));
		close_state(&rs, command, o.command);
		return 1;
	}
	save_env(&env);
	/* The namespaces first: a process may enter a user namespace only while it has one thread. */
	if (o.command) {
		r = kns_enter(&err);
		if (r == 0) {
			fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
			if (fuse_fd < 0)
				r = umad_err_set(&err, -errno, "/dev/fuse: %s", strerror(errno));
		}
		if (r == 0) {
			tree_fd = kns_fuse_mount_detached(fuse_fd, "umad-kernel", &err);
			r = tree_fd < 0 ? tree_fd : 0;
		}
		if (r < 0) {
			umad_err_print("umad: kernel", &err);
			goto out;
		}
	}
	set_backend_env(&o);
	be = sim_backend();
	if (!be)
		goto out;
	r = kfs_new(be, &k, &err);
	if (r < 0) {
		umad_err_print("umad: kernel", &err);
		goto out;
	}
	status = o.command ? serve_command(k, fuse_fd, tree_fd, command, &env, &rs, sfd, &old)
			   : serve_mount(k, o.mount, sfd);
	tree_fd = -1;
out:
	kfs_free(k);
	if (tree_fd >= 0)
		close(tree_fd);
	if (fuse_fd >= 0)
		close(fuse_fd);
	free_env(&env);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close_state(&rs, command, o.command);
	return status;
}

const struct umad_command kernel_command = {
	.name = "kernel",
	.summary = "a simulated host's /dev/infiniband and /sys/class/infiniband through FUSE",
	.params = "(--mount DIR | -- COMMAND [ARGS...])",
	.description = "For any program: COMMAND in a mount namespace that shows the host's files,\n"
		       "or the files at DIR.",
	.options = kernel_options,
	.flags = CMD_RUNS_COMMAND,
	.run = kernel_run,
	.usage = kernel_usage,
};
