/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend's footprint on the host: UMAD_SIM_CA_NAME cannot lead
 * the fake sysfs tree out of UMAD_SIM_SYSFS, and the private run-time
 * directories of processes that died without exit handlers do not pile up.
 * Each case runs in forked children (the backend starts once per process).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>

#include "backends/sysfs_writer.h"
#include "tests/child.h"

static char base[256];

/* Entries of dir whose name starts with prefix. */
static int count_entries(const char *dir, const char *prefix)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && !strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

/* --- UMAD_SIM_CA_NAME ----------------------------------------------------------------- */

static int init_fails(void)
{
	CHECK_EQ(umad_init(), -EINVAL);
	return 0;
}

static int init_works(void)
{
	char names[2][UMAD_CA_NAME_LEN];

	CHECK_EQ(umad_init(), 0);
	CHECK_EQ(umad_get_cas_names(names, 2), 1);
	CHECK(!strcmp(names[0], getenv("UMAD_SIM_CA_NAME")));
	return 0;
}

static void test_ca_name_stays_inside(void **state)
{
	static const char *const bad[] = {
		"../../x", "..", ".", "a/b", "name_of_twenty_chars", "sp ace", "new\nline",
	};
	char sysfs[300], outside[400];
	struct child_result res;
	size_t i;

	(void)state;
	snprintf(sysfs, sizeof(sysfs), "%s/tree", base);
	setenv("UMAD_SIM_SYSFS", sysfs, 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("UMAD_SIM_CA_NAME", bad[i], 1);
		expect_child_ok(init_fails, "sim", MODULE_DIR, &res);
		assert_non_null(strstr(res.stderr_text, "UMAD_SIM_CA_NAME="));
		/* Nothing written, inside or out. */
		assert_int_equal(count_entries(base, ""), 0);
	}
	/* The longest name that fits, and the usual kind. */
	setenv("UMAD_SIM_CA_NAME", "nineteen_chars_mlx5", 1);
	expect_child_ok(init_works, "sim", MODULE_DIR, &res);
	setenv("UMAD_SIM_CA_NAME", "mlx5_0", 1);
	expect_child_ok(init_works, "sim", MODULE_DIR, &res);
	assert_int_equal(sysfs_ca_path(outside, sizeof(outside), sysfs, "mlx5_0", SYS_NODE_TYPE), 0);
	assert_int_equal(access(outside, F_OK), 0);
	unsetenv("UMAD_SIM_CA_NAME");
	unsetenv("UMAD_SIM_SYSFS");
}

/* --- private run-time directories ---------------------------------------------------- */

/* A child that starts the sim, then dies as told: 'k' by SIGKILL, '_' by _exit, 'x' by exit. */
static pid_t start_sim_child(int how, int *ready_fd)
{
	int ready[2];
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		/* The one that waits to be killed dies with this program, should a check fail first. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		c = umad_init() == 0 ? 'y' : 'n';
		close(ready[0]);
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		if (how == 'w')
			pause();	/* lives until killed */
		if (how == 'k')
			raise(SIGKILL);
		if (how == '_')
			_exit(0);
		exit(0);
	}
	close(ready[1]);
	*ready_fd = ready[0];
	return pid;
}

static void wait_started(int ready_fd)
{
	char c = 0;

	assert_int_equal(read(ready_fd, &c, 1), 1);
	assert_int_equal(c, 'y');
	close(ready_fd);
}

/* The run-time directories in base are exactly those of these processes. */
static void expect_dirs_of(const pid_t *pids, int n)
{
	char prefix[64];
	int i;

	assert_int_equal(count_entries(base, "libumad-sim."), n);
	for (i = 0; i < n; i++) {
		snprintf(prefix, sizeof(prefix), "libumad-sim.%d.", (int)pids[i]);
		assert_int_equal(count_entries(base, prefix), 1);
	}
}

static void test_dead_processes_leave_nothing(void **state)
{
	int ready, status;
	pid_t killed, no_handlers, alive, pid;

	(void)state;
	setenv("XDG_RUNTIME_DIR", base, 1);
	/* Killed: its directory stays, until the next process starts and removes it. */
	killed = start_sim_child('k', &ready);
	wait_started(ready);
	assert_int_equal(waitpid(killed, &status, 0), killed);
	expect_dirs_of(&killed, 1);
	no_handlers = start_sim_child('_', &ready);
	wait_started(ready);
	assert_int_equal(waitpid(no_handlers, &status, 0), no_handlers);
	expect_dirs_of(&no_handlers, 1);
	/* A live process's directory is left alone by the others. */
	alive = start_sim_child('w', &ready);
	wait_started(ready);
	expect_dirs_of(&alive, 1);
	pid = start_sim_child('x', &ready);
	wait_started(ready);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	expect_dirs_of(&alive, 1);
	kill(alive, SIGKILL);
	assert_int_equal(waitpid(alive, &status, 0), alive);
	/* A process exiting normally removes its own (and the dead one's). */
	pid = start_sim_child('x', &ready);
	wait_started(ready);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	expect_dirs_of(NULL, 0);
	unsetenv("XDG_RUNTIME_DIR");
}

/*
 * A forked child of a process on the sim that exits normally runs the exit
 * handlers it inherited: the parent's directory (its issm files) stays.
 */
static void test_forked_child_keeps_parent_dir(void **state)
{
	char issm[256];
	int status;
	pid_t parent, child;

	(void)state;
	setenv("XDG_RUNTIME_DIR", base, 1);
	parent = fork();
	assert_true(parent >= 0);
	if (parent == 0) {
		if (umad_init() < 0 || umad_get_issm_path(NULL, 1, issm, sizeof(issm)) < 0 ||
		    access(issm, F_OK) < 0)
			_exit(2);
		child = fork();
		if (child == 0)
			exit(0);
		if (child < 0 || waitpid(child, &status, 0) != child)
			_exit(3);
		_exit(access(issm, F_OK) == 0 ? 0 : 4);
	}
	assert_int_equal(waitpid(parent, &status, 0), parent);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	unsetenv("XDG_RUNTIME_DIR");
}

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "%s/umad-sim-runtime-XXXXXX", P_tmpdir);
	if (!mkdtemp(base))
		return -1;
	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_MODULE_DIR", MODULE_DIR, 1);
	unsetenv("UMAD_SIM_TOPOLOGY");
	unsetenv("UMAD_SIM_HOST");
	unsetenv("UMAD_CAPTURE");
	return 0;
}

static int remove_entry(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	return system(cmd);
}

static int teardown(void **state)
{
	(void)state;
	return remove_entry(base) == 0 ? 0 : -1;
}

static int fresh_base(void **state)
{
	(void)state;
	unsetenv("UMAD_SIM_CA_NAME");
	unsetenv("UMAD_SIM_SYSFS");
	unsetenv("XDG_RUNTIME_DIR");
	if (remove_entry(base) != 0)
		return -1;
	return mkdir(base, 0700);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ca_name_stays_inside, fresh_base),
		cmocka_unit_test_setup(test_dead_processes_leave_nothing, fresh_base),
		cmocka_unit_test_setup(test_forked_child_keeps_parent_dir, fresh_base),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
