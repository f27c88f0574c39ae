/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Forked-child test runner: see child.h. */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/child.h"

char child_failure[512];


/* Run fn in a child with the given environment; collect its verdict and stderr. */
void run_child(int (*fn)(void), const char *backend, const char *module_dir,
		      struct child_result *res)
{
	int verdict[2], errpipe[2], status;
	ssize_t n;
	size_t got = 0;
	pid_t pid, parent = getpid();

	memset(res, 0, sizeof(*res));
	assert_int_equal(pipe(verdict), 0);
	assert_int_equal(pipe(errpipe), 0);
	/* A child that ends with exit() must not print this process's pending output again. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* A test program that dies (killed, crashed) takes its child with it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		close(verdict[0]);
		close(errpipe[0]);
		dup2(errpipe[1], 2);
		if (backend)
			setenv("UMAD_BACKEND", backend, 1);
		else
			unsetenv("UMAD_BACKEND");
		if (module_dir)
			setenv("UMAD_MODULE_DIR", module_dir, 1);
		else
			unsetenv("UMAD_MODULE_DIR");
		if (fn() < 0) {
			n = write(verdict[1], child_failure, strlen(child_failure));
			(void)n;
		}
		_exit(0);
	}
	close(verdict[1]);
	close(errpipe[1]);
	while ((n = read(errpipe[0], res->stderr_text + got,
			 sizeof(res->stderr_text) - 1 - got)) > 0)
		got += (size_t)n;
	n = read(verdict[0], res->failure, sizeof(res->failure) - 1);
	(void)n;
	close(verdict[0]);
	close(errpipe[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the child %s %d\nchild stderr:\n%s",
			 WIFEXITED(status) ? "exited with status" : "was killed by signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), res->stderr_text);
}

void expect_child_ok(int (*fn)(void), const char *backend, const char *module_dir,
			    struct child_result *res)
{
	run_child(fn, backend, module_dir, res);
	if (res->failure[0])
		fail_msg("%s\nchild stderr:\n%s", res->failure, res->stderr_text);
}

