/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/own_server.h"

/* The server's life, in the child; never returns. */
static void __attribute__((noreturn)) serve_forever(const char *path,
						    const struct fabric_server_options *opts,
						    rlim_t descriptors, int cpu)
{
	struct rlimit few = { descriptors, descriptors };
	struct umad_err err = UMAD_ERR_INIT;
	struct fabric_server *s;
	cpu_set_t set;

	/* A test that fails before it stops the server leaves none behind. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (descriptors && setrlimit(RLIMIT_NOFILE, &few) < 0)
		_exit(1);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			_exit(1);
	}
	if (fabric_server_new(opts, &s, &err) < 0 || fabric_server_listen(s, path, &err) < 0)
		_exit(1);
	for (;;)
		fabric_server_poll(s, -1, -1);
}

void own_server_start(struct own_server *o, const struct fabric_server_options *opts,
		      rlim_t descriptors, int cpu)
{
	int i;

	snprintf(o->dir, sizeof(o->dir), "/tmp/umad-fabric-test.XXXXXX");
	assert_non_null(mkdtemp(o->dir));
	snprintf(o->path, sizeof(o->path), "%s/s/socket", o->dir);
	o->pid = fork();
	assert_true(o->pid >= 0);
	if (o->pid == 0)
		serve_forever(o->path, opts, descriptors, cpu);
	for (i = 0; i < 500 && access(o->path, F_OK); i++)
		usleep(10000);
}

void own_server_stop(struct own_server *o)
{
	char cmd[128];

	kill(o->pid, SIGKILL);
	waitpid(o->pid, NULL, 0);
	o->pid = 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", o->dir);
	assert_int_equal(system(cmd), 0);
}
