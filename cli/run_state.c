/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* A run's private directory, and the tools' state in it (run_state.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/command_check.h"
#include "cli/run_state.h"

/* The variables that say where the tools keep their state, and where in the tools' directory. */
static const struct {
	const char *var, *sub;
} state_vars[] = {
	{ "OSM_CACHE_DIR", "cache" },	/* opensm's guid2lid, guid2mkey, neighbors */
	{ "OSM_TMP_DIR", "log" },	/* opensm's dumps (its default: /var/log, with its log) */
	{ "TMPDIR", "tmp" },		/* everyone else's temporary files */
};
#define N_STATE_VARS	(sizeof(state_vars) / sizeof(state_vars[0]))

/* What "set" means for them: not empty (an empty one is as good as none to its reader). */
static int user_set(const char *var)
{
	const char *v = getenv(var);

	return v && *v;
}

/* The subdirectories, mode 0700 (the tools' directory is ours and 0700 already). */
static int make_subdirs(const char *state)
{
	char path[PATH_MAX + 16];
	size_t i;

	for (i = 0; i < N_STATE_VARS; i++) {
		snprintf(path, sizeof(path), "%s/%s", state, state_vars[i].sub);
		if (mkdir(path, 0700) < 0)
			return -errno;
	}
	return 0;
}

/*
 * opensm as a script of COMMAND's runs it (sh -c 'opensm -B; ...'): found
 * first on PATH, DIR/bin/opensm, which runs the opensm PATH had with its
 * log in the tools' directory unless its options say where it goes.  None
 * when PATH has no opensm, or its path or the log's would need quoting.
 */
static const char shim_text[] =
	"#!/bin/sh\n"
	"# opensm under umad sim or umad kernel: its log in the run's directory,\n"
	"# unless its options say where it goes.\n"
	"for a in \"$@\"; do\n"
	"\tcase $a in\n"
	"\t-f*|-F*|--log_file|--log_file=*|--config|--config=*) exec '%s' \"$@\" ;;\n"
	"\tesac\n"
	"done\n"
	"exec '%s' --log_file '%s' \"$@\"\n";

/* The opensm PATH finds, as execvp finds it, in real (a buffer of PATH_MAX); 0, or -ENOENT. */
static int find_opensm(char *real)
{
	char found[PATH_MAX];

	if (command_find_in_path("opensm", found, sizeof(found)) < 0 || !realpath(found, real))
		return -ENOENT;
	return 0;
}

static int make_shim(struct run_state *rs)
{
	char real[PATH_MAX], file[PATH_MAX + 16];
	FILE *out;
	int fd;

	if (find_opensm(real) < 0 || strchr(real, '\'') || strchr(rs->log, '\''))
		return 0;
	if (snprintf(rs->bin, sizeof(rs->bin), "%s/bin", rs->dir.path) >= (int)sizeof(rs->bin) ||
	    mkdir(rs->bin, 0700) < 0)
		goto none;
	snprintf(file, sizeof(file), "%s/opensm", rs->bin);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		if (fd >= 0)
			close(fd);
		goto none;
	}
	fprintf(out, shim_text, real, real, rs->log);
	if (fclose(out) == 0)
		return 0;
none:
	rs->bin[0] = '\0';	/* opensm in a script logs where it would */
	return 0;
}

/* Kept state: umad-state.XXXXXX beside DIR, which the sweep of DIR's prefix leaves alone. */
static int make_kept(struct run_state *rs)
{
	char base[PATH_MAX];

	snprintf(base, sizeof(base), "%s", rs->dir.path);
	if (snprintf(rs->state, sizeof(rs->state), "%s/umad-state.XXXXXX", dirname(base)) >=
	    (int)sizeof(rs->state))
		return -ENAMETOOLONG;
	return mkdtemp(rs->state) ? 0 : -errno;
}

int run_state_open(struct run_state *rs, const char *what, const char *prefix, int keep)
{
	const char *bases[] = { getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"), "/tmp" };
	int r;

	memset(rs, 0, sizeof(*rs));
	rs->dir.lock_fd = -1;
	rs->keep = keep;
	r = runtime_dir_create(&rs->dir, bases, sizeof(bases) / sizeof(bases[0]), prefix);
	if (r < 0) {
		fprintf(stderr, "umad: %s: cannot make a private directory for the run in "
			"XDG_RUNTIME_DIR, TMPDIR or /tmp: %s\n", what, strerror(-r));
		return -1;
	}
	if (keep)
		r = make_kept(rs);
	else if (snprintf(rs->state, sizeof(rs->state), "%s/state", rs->dir.path) >=
		 (int)sizeof(rs->state))
		r = -ENAMETOOLONG;
	else
		r = mkdir(rs->state, 0700) < 0 ? -errno : 0;
	if (r == 0)
		r = make_subdirs(rs->state);
	if (r < 0) {
		fprintf(stderr, "umad: %s: cannot make the tools' directory %s: %s\n", what,
			rs->state, strerror(-r));
		if (keep && rs->state[0])
			rmdir(rs->state);
		rs->state[0] = '\0';
		runtime_dir_remove(&rs->dir);
		return -1;
	}
	snprintf(rs->log, sizeof(rs->log), "%s/log/opensm.log", rs->state);
	make_shim(rs);
	if (keep)
		fprintf(stderr, "umad: %s: the tools' state (opensm's cache and log) is kept in %s\n",
			what, rs->state);
	return 0;
}

void run_state_enter(const struct run_state *rs)
{
	char path[PATH_MAX * 2];
	size_t i;

	if (!rs->state[0])
		return;
	for (i = 0; i < N_STATE_VARS; i++) {
		if (user_set(state_vars[i].var))
			continue;
		snprintf(path, sizeof(path), "%s/%s", rs->state, state_vars[i].sub);
		setenv(state_vars[i].var, path, 1);
	}
	if (rs->bin[0]) {
		const char *old = getenv("PATH");

		snprintf(path, sizeof(path), "%s%s%s", rs->bin, old && *old ? ":" : "",
			 old ? old : "");
		setenv("PATH", path, 1);
	}
	/* dup() does not copy close-on-exec: COMMAND holds the lock, and so does what it starts. */
	if (rs->dir.lock_fd >= 0) {
		int held = dup(rs->dir.lock_fd);

		(void)held;
	}
}

/* Whether opensm's options (argv[1]...) say where its log goes: -f, --log_file, -F, --config. */
static int names_log(char *const *argv)
{
	static const char *const longs[] = { "--log_file", "--config" };
	size_t i, n;

	for (; *argv; argv++) {
		const char *a = *argv;

		/* -f FILE, -fFILE, -F FILE, -FFILE: opensm has no other option with those letters. */
		if (a[0] == '-' && (a[1] == 'f' || a[1] == 'F'))
			return 1;
		for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
			n = strlen(longs[i]);
			if (!strncmp(a, longs[i], n) && (a[n] == '\0' || a[n] == '='))
				return 1;
		}
	}
	return 0;
}

char **run_state_command(const struct run_state *rs, char **argv)
{
	const char *name = strrchr(argv[0], '/');
	char **out;
	size_t n = 0;

	name = name ? name + 1 : argv[0];
	if (!rs->state[0] || strcmp(name, "opensm") || names_log(argv + 1))
		return argv;
	while (argv[n])
		n++;
	out = calloc(n + 3, sizeof(*out));
	if (!out)
		return NULL;
	out[0] = argv[0];
	out[1] = "--log_file";
	out[2] = (char *)rs->log;
	memcpy(out + 3, argv + 1, n * sizeof(*out));	/* the rest and its NULL */
	return out;
}

void run_state_close(struct run_state *rs)
{
	runtime_dir_remove(&rs->dir);
	rs->state[0] = '\0';
}
