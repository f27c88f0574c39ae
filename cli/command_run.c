/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/command_run.h"

int command_signal_fd(const int *signals, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (; *signals; signals++)
		sigaddset(&set, *signals);
	sigprocmask(SIG_BLOCK, &set, old);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

void command_forward_signals(int sfd, pid_t child)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD && child > 0)
			kill(child, (int)si.ssi_signo);
}

int command_reap(pid_t child, int *status)
{
	int st, done = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid != child)
			continue;
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
		done = 1;
	}
	return done;
}

/* Send sig to every child of this process (COMMAND's orphans were adopted). */
static void signal_children(int sig)
{
	char path[64];
	FILE *f;
	long pid;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)getpid());
	f = fopen(path, "re");
	if (!f)
		return;
	while (fscanf(f, "%ld", &pid) == 1)
		kill((pid_t)pid, sig);
	fclose(f);
}

void command_end_descendants(const char *what, command_serve_fn serve, void *arg, int sfd)
{
	int sig = SIGTERM, waited = 0, r;

	for (;;) {
		pid_t pid;

		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (pid < 0)
			return;		/* ECHILD: all gone */
		if (waited % 1000 == 0)
			signal_children(sig);
		if (waited >= COMMAND_END_GRACE_MS && sig == SIGTERM) {
			fprintf(stderr, "umad: %s: processes left by the command did not end; "
				"killing them\n", what);
			sig = SIGKILL;
			signal_children(sig);
		} else if (waited >= COMMAND_END_GRACE_MS + 2000) {
			return;
		}
		r = serve(arg, sfd, 100);
		if (r == 1)
			command_forward_signals(sfd, -1);
		else if (r < 0)
			usleep(100 * 1000);	/* no serving: the grace still counts in time */
		waited += 100;
	}
}
