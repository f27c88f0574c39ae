/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Run-time directories (backends/runtime_dir.h) against what another user
 * or a dead process leaves: a base others could change entries of is not
 * used; the sweep removes a dead process's directory of ours whose lock
 * nobody holds, and nothing else (a live process's, one whose lock a
 * process still holds, another user's, a symbolic link, a file).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "backends/runtime_dir.h"

#define PREFIX	"test-run"

static char base[256];

static void path_in(char *out, size_t size, const char *name)
{
	assert_true(snprintf(out, size, "%s/%s", base, name) < (int)size);
}

/* A process id that was just used and is gone. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void make_dir(const char *name, mode_t mode)
{
	char path[512];

	path_in(path, sizeof(path), name);
	assert_int_equal(mkdir(path, mode), 0);
	assert_int_equal(chmod(path, mode), 0);	/* whatever the umask */
}

static int exists(const char *name)
{
	char path[512];
	struct stat st;

	path_in(path, sizeof(path), name);
	return lstat(path, &st) == 0;
}

/* --- bases ---------------------------------------------------------------------------- */

static void test_base_others_may_change(void **state)
{
	struct runtime_dir d;
	char open_base[512], sticky_base[512];
	const char *bases[2];
	struct stat st;

	(void)state;
	make_dir("open", 0777);
	make_dir("sticky", 01777);
	path_in(open_base, sizeof(open_base), "open");
	path_in(sticky_base, sizeof(sticky_base), "sticky");

	/* Writable by all and not sticky: anyone could rename ours away. */
	bases[0] = open_base;
	assert_int_equal(runtime_dir_create(&d, bases, 1, PREFIX), -EPERM);
	assert_string_equal(d.path, "");

	/* The next base is used instead; sticky (as /tmp is) will do. */
	bases[1] = sticky_base;
	assert_int_equal(runtime_dir_create(&d, bases, 2, PREFIX), 0);
	assert_memory_equal(d.path, sticky_base, strlen(sticky_base));
	assert_int_equal(stat(d.path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	runtime_dir_remove(&d);
}

static void test_base_of_another_user(void **state)
{
	struct runtime_dir d;
	char other[512];
	const char *bases[1] = { other };

	(void)state;
	if (geteuid() != 0)
		skip();	/* only root can give a directory away */
	make_dir("other", 0755);
	path_in(other, sizeof(other), "other");
	assert_int_equal(chown(other, 65534, 65534), 0);
	assert_int_equal(runtime_dir_create(&d, bases, 1, PREFIX), -EPERM);
}

/* --- the sweep ------------------------------------------------------------------------ */

static void test_sweep_takes_only_the_dead(void **state)
{
	char name[128], path[512], target[512];
	pid_t dead = dead_pid(), holder;
	int pipefd[2], fd;
	char c;

	(void)state;
	/* A dead process's, ours, lock free: goes, with what is in it. */
	snprintf(name, sizeof(name), PREFIX ".%d.stale", (int)dead);
	make_dir(name, 0700);
	path_in(path, sizeof(path), name);
	strcat(path, "/inside");
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	/* A live process's (this one's parent: not the sweeper itself). */
	snprintf(name, sizeof(name), PREFIX ".%d.alive", (int)getppid());
	make_dir(name, 0700);
	/* A symbolic link and a file, in the form of a dead process's. */
	make_dir("target", 0700);
	path_in(target, sizeof(target), "target");
	snprintf(name, sizeof(name), PREFIX ".%d.link", (int)dead);
	path_in(path, sizeof(path), name);
	assert_int_equal(symlink(target, path), 0);
	snprintf(name, sizeof(name), PREFIX ".%d.file", (int)dead);
	path_in(path, sizeof(path), name);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);

	assert_int_equal(runtime_dir_sweep(base, PREFIX), 1);
	snprintf(name, sizeof(name), PREFIX ".%d.stale", (int)dead);
	assert_false(exists(name));
	snprintf(name, sizeof(name), PREFIX ".%d.alive", (int)getppid());
	assert_true(exists(name));
	snprintf(name, sizeof(name), PREFIX ".%d.link", (int)dead);
	assert_true(exists(name));
	assert_true(exists("target"));
	snprintf(name, sizeof(name), PREFIX ".%d.file", (int)dead);
	assert_true(exists(name));

	/* A dead process's whose lock another process holds (what it started): stays until let go. */
	snprintf(name, sizeof(name), PREFIX ".%d.held", (int)dead);
	make_dir(name, 0700);
	path_in(path, sizeof(path), name);
	assert_int_equal(pipe(pipefd), 0);
	holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		fd = open(path, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || flock(fd, LOCK_EX) < 0)
			_exit(1);
		(void)!write(pipefd[1], "l", 1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	close(pipefd[0]);
	assert_int_equal(runtime_dir_sweep(base, PREFIX), 0);
	assert_true(exists(name));
	kill(holder, SIGKILL);
	assert_int_equal(waitpid(holder, NULL, 0), holder);
	assert_int_equal(runtime_dir_sweep(base, PREFIX), 1);
	assert_false(exists(name));
}

static void test_sweep_leaves_another_users(void **state)
{
	char name[128], path[512];
	pid_t dead = dead_pid();

	(void)state;
	if (geteuid() != 0)
		skip();
	snprintf(name, sizeof(name), PREFIX ".%d.other", (int)dead);
	make_dir(name, 0700);
	path_in(path, sizeof(path), name);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(runtime_dir_sweep(base, PREFIX), 0);
	assert_true(exists(name));
}

/* --- set-up --------------------------------------------------------------------------- */

static int remove_base(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd);
}

static int fresh_base(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "%s/test-runtime-dir-XXXXXX", P_tmpdir);
	return mkdtemp(base) ? 0 : -1;
}

static int drop_base(void **state)
{
	(void)state;
	return remove_base() == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_base_others_may_change, fresh_base, drop_base),
		cmocka_unit_test_setup_teardown(test_base_of_another_user, fresh_base, drop_base),
		cmocka_unit_test_setup_teardown(test_sweep_takes_only_the_dead, fresh_base, drop_base),
		cmocka_unit_test_setup_teardown(test_sweep_leaves_another_users, fresh_base, drop_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
