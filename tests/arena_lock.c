/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Where an arena's lock lies (arena_lock.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simfabric/arena.h"
#include "tests/arena_lock.h"

size_t arena_lock_offset(void)
{
	pthread_mutexattr_t attr;
	pthread_mutex_t fresh;
	struct sim_arena *a;
	const uint8_t *header;
	size_t off, found = (size_t)-1;

	memset(&fresh, 0, sizeof(fresh));
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&fresh, &attr);
	pthread_mutexattr_destroy(&attr);
	if (sim_arena_create(1 << 20, &a) < 0)
		return found;
	/* The header: from the file's start up to the first block handed out. */
	header = (const uint8_t *)(uintptr_t)sim_arena_base(a);
	for (off = 0; off + sizeof(fresh) <= 4096 && found == (size_t)-1;
	     off += _Alignof(pthread_mutex_t))
		if (!memcmp(header + off, &fresh, sizeof(fresh)))
			found = off;
	sim_arena_release(a);
	return found;
}

int arena_lock_break(void *lock)
{
	pthread_mutex_t *m = lock;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(pthread_mutex_lock(m) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	if (pthread_mutex_lock(m) != EOWNERDEAD)
		return -1;
	/* Not made consistent: unrecoverable from now on. */
	return pthread_mutex_unlock(m) == 0 ? 0 : -1;
}
