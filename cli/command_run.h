/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What `umad sim` and `umad kernel` do alike around the COMMAND they run
 * while serving: signals read from a descriptor, passed on to COMMAND,
 * its end seen, and what it left running ended.
 */
#ifndef CLI_COMMAND_RUN_H
#define CLI_COMMAND_RUN_H

#include <signal.h>
#include <sys/types.h>

/*
 * Block the signals of the 0-ended list (the mask before in *old) and read
 * them from the descriptor returned (-1 with errno when it cannot be made).
 * Before any thread starts: one that has them unblocked would take them.
 */
int command_signal_fd(const int *signals, sigset_t *old);
/* Pass what arrived on sfd to child (none when child <= 0); SIGCHLD only wakes the loop. */
void command_forward_signals(int sfd, pid_t child);
/* Reap ended children: 1 when child is among them, its status in *status (128 + signal when killed). */
int command_reap(pid_t child, int *status);

/* Serve for up to timeout_ms: 1 when sfd is readable, 0 when the time passed, < 0 when it cannot. */
typedef int (*command_serve_fn)(void *arg, int sfd, int timeout_ms);
/*
 * After COMMAND: what it left running (adopted: the caller is a subreaper)
 * is asked to end (SIGTERM), served while it does -- an SM leaving still
 * talks to the fabric -- and killed when it takes longer than
 * COMMAND_END_GRACE_MS; what says whose processes those were.
 */
#define COMMAND_END_GRACE_MS	5000
void command_end_descendants(const char *what, command_serve_fn serve, void *arg, int sfd);

#endif /* CLI_COMMAND_RUN_H */
