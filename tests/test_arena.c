/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fabric's shared memory (simfabric/arena.h): allocation, the model's
 * allocator choosing heap or arena by owner, a second process mapping the
 * same arena at the same address and seeing (and making) the same
 * changes, refusals, a lock whose holder died, a lock that cannot be had,
 * and a file sealed whole and checked before it is mapped.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "simfabric/arena.h"
#include "simfabric/fabric.h"
#include "simfabric/topology.h"
#include "tests/arena_lock.h"

#define ARENA_SIZE	(64u << 20)

static struct sim_arena *new_arena(void)
{
	struct sim_arena *a;

	assert_int_equal(sim_arena_create(ARENA_SIZE, &a), 0);
	assert_non_null(a);
	return a;
}

static void test_alloc(void **state)
{
	struct sim_arena *a = new_arena();
	uint8_t *small, *big, *grown;
	char *s;
	size_t i;

	(void)state;
	small = sim_arena_alloc(a, 24);
	assert_non_null(small);
	assert_true(sim_arena_holds(a, small, 24));
	assert_int_equal((uintptr_t)small % 16, 0);
	for (i = 0; i < 24; i++)
		assert_int_equal(small[i], 0);
	/* A big block starts on a page: its untouched tail stays sparse. */
	big = sim_arena_alloc(a, 3 * 4096);
	assert_non_null(big);
	assert_int_equal((uintptr_t)big % 4096, 0);
	/* The model's allocator: memory where the owner lives. */
	memcpy(small, "0123456789", 10);
	grown = sim_mem_realloc(small, small, 100);
	assert_true(sim_arena_holds(a, grown, 100));
	assert_memory_equal(grown, "0123456789", 10);
	assert_int_equal(grown[50], 0);
	s = sim_mem_strdup(big, "node");
	assert_true(sim_arena_holds(a, s, 5));
	assert_string_equal(s, "node");
	assert_true(sim_mem_shared(s));
	sim_mem_free(s);	/* a no-op in the arena */
	assert_string_equal(s, "node");
	/* Owned by something on the heap: the heap. */
	s = sim_mem_strdup(&i, "heap");
	assert_false(sim_mem_shared(s));
	assert_false(sim_arena_holds(a, s, 5));
	sim_mem_free(s);
	/* Full: NULL, and what was there stays. */
	assert_null(sim_arena_alloc(a, ARENA_SIZE));
	assert_null(sim_mem_calloc(big, SIZE_MAX / 2, 4));
	assert_string_equal((char *)grown, "0123456789");
	sim_arena_release(a);
}

/* A fabric loaded into an arena: every object of it lies inside. */
static void test_fabric_in_arena(void **state)
{
	struct sim_arena *a = new_arena();
	struct sim_topology_options opts = { .arena = a };
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = sim_topology_parse_opts(sim_default_topology, "default", &errors,
						       &opts);
	size_t i;

	(void)state;
	assert_non_null(f);
	assert_true(sim_arena_holds(a, f, sizeof(*f)));
	assert_true(sim_arena_holds(a, f->nodes, f->n_nodes * sizeof(*f->nodes)));
	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		assert_true(sim_arena_holds(a, n, sizeof(*n)));
		assert_true(sim_arena_holds(a, n->name, strlen(n->name) + 1));
		assert_true(sim_arena_holds(a, n->ports, (n->num_ports + 1u) * sizeof(*n->ports)));
		if (n->sw) {
			assert_true(sim_arena_holds(a, n->sw, sizeof(*n->sw)));
			/* The LFT, made on first write, also lands there, all of it reserved. */
			assert_int_equal(sim_switch_lft_reserve(n->sw, 100), 0);
			assert_true(sim_arena_holds(a, n->sw->lft, SIM_LFT_CAP));
			assert_int_equal(sim_switch_lft_get(n->sw, 99), SIM_LFT_NO_ROUTE);
			n->sw->lft[5] = 3;
			assert_int_equal(sim_switch_lft_reserve(n->sw, 1000), 0);
			assert_int_equal(sim_switch_lft_get(n->sw, 5), 3);
			assert_int_equal(sim_switch_lft_get(n->sw, 999), SIM_LFT_NO_ROUTE);
			/* So do the SLtoVL tables per input port, made on the first that differs. */
			assert_int_equal(sim_port_sl2vl_set(&n->ports[1], 2, n->ports[1].sl2vl + 1), 0);
			assert_true(sim_arena_holds(a, n->ports[1].sl2vl_in,
						    (n->num_ports + 1u) * sizeof(*n->ports[1].sl2vl_in)));
			assert_int_equal(sim_port_sl2vl(&n->ports[1], 2), n->ports[1].sl2vl + 1);
			assert_int_equal(sim_port_sl2vl(&n->ports[1], 3), n->ports[1].sl2vl);
		}
	}
	/* Freeing a fabric in an arena leaves it to the arena. */
	sim_fabric_free(f);
	assert_true(f->n_nodes > 0);
	sim_arena_release(a);
}

/*
 * Another process maps the arena at its address: it reads what this one
 * wrote and writes what this one then reads, under the shared lock.
 */
static void test_second_process_shares_it(void **state)
{
	struct sim_arena *a = new_arena();
	uint64_t **root = sim_arena_alloc(a, sizeof(*root));
	uint64_t *counter = sim_arena_alloc(a, sizeof(*counter));
	uint64_t base = sim_arena_base(a);
	int pipefd[2], status, i;
	pid_t pid;

	(void)state;
	*counter = 41;
	/* The root never changes (sim_arena_set_root): it points at what does. */
	*root = counter;
	assert_int_equal(sim_arena_set_root(a, root, sizeof(*root)), 0);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* A fresh process would have nothing there: unmap what fork left first. */
		struct sim_arena *b;
		int fd = dup(sim_arena_fd(a));
		uint64_t *c;

		sim_arena_release(a);
		if (sim_arena_attach(fd, base, &b, NULL) != 0)
			_exit(10);
		if (sim_arena_root(b) != (void *)root)
			_exit(11);
		c = *(uint64_t **)sim_arena_root(b);
		if (c != counter || *c != 41)
			_exit(11);
		/* Seen: now both count. */
		if (write(pipefd[1], "r", 1) != 1)
			_exit(12);
		for (i = 0; i < 100000; i++) {
			if (sim_arena_lock(b) != 0)
				_exit(13);
			(*c)++;
			sim_arena_unlock(b);
		}
		_exit(0);
	}
	{
		char ready;

		assert_int_equal(read(pipefd[0], &ready, 1), 1);
	}
	for (i = 0; i < 100000; i++) {
		assert_int_equal(sim_arena_lock(a), 0);
		(*counter)++;
		sim_arena_unlock(a);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(*counter, 41 + 200000);
	close(pipefd[0]);
	close(pipefd[1]);
	sim_arena_release(a);
}

/* A process that dies holding the lock does not stop the others. */
static void test_holder_died(void **state)
{
	struct sim_arena *a = new_arena();
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(sim_arena_lock(a) == 0 ? 0 : 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	alarm(10);	/* a hang fails the test rather than the suite's time */
	assert_int_equal(sim_arena_lock(a), 0);
	sim_arena_unlock(a);
	assert_int_equal(sim_arena_lock(a), 0);
	sim_arena_unlock(a);
	alarm(0);
	sim_arena_release(a);
}

/*
 * A lock that cannot be had is an error, never a lock: one its holder left
 * inconsistent (a process that took it over from a dead holder and let it
 * go without saying the model was whole, as a hostile one sharing the
 * memory may), and one whose memory was written over.
 */
static void test_broken_lock_is_an_error(void **state)
{
	struct sim_arena *a = new_arena();
	size_t off = arena_lock_offset();

	(void)state;
	assert_true(off != (size_t)-1);
	alarm(10);
	assert_int_equal(arena_lock_break((void *)(uintptr_t)(sim_arena_base(a) + off)), 0);
	assert_int_equal(sim_arena_lock(a), -ENOTRECOVERABLE);
	assert_int_equal(sim_arena_lock(a), -ENOTRECOVERABLE);
	sim_arena_release(a);

	if (!ARENA_LOCK_UNDER_TSAN) {
		a = new_arena();
		memset((void *)(uintptr_t)(sim_arena_base(a) + off), 0xff, sizeof(pthread_mutex_t));
		assert_int_equal(sim_arena_lock(a), -ENOTRECOVERABLE);
		sim_arena_release(a);
	}
	alarm(0);
}

/*
 * The arena's file is sealed whole: no process it is handed to can grow
 * it, shrink it, or seal it further (against writes: no later process
 * could map it writable).
 */
static void test_file_is_sealed_whole(void **state)
{
	struct sim_arena *a = new_arena();
	int fd = sim_arena_fd(a);
	struct stat st;

	(void)state;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, ARENA_SIZE);
	assert_int_equal(fcntl(fd, F_GET_SEALS), F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	assert_int_equal(ftruncate(fd, ARENA_SIZE + 4096), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(pwrite(fd, "x", 1, ARENA_SIZE), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(fd, 4096), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, ARENA_SIZE);
	sim_arena_release(a);
}

/*
 * A copy of an arena's file (its header, its size) sealed otherwise than
 * an arena is, or another user's, is refused before it is mapped, saying
 * why.
 */
static void test_attach_checks_the_file(void **state)
{
	struct sim_arena *a = new_arena(), *b;
	uint64_t base = sim_arena_base(a);
	struct umad_err why = UMAD_ERR_INIT;
	static const int seals[] = {
		F_SEAL_SHRINK, F_SEAL_SHRINK | F_SEAL_GROW, F_SEAL_SHRINK | F_SEAL_SEAL,
		F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL | F_SEAL_FUTURE_WRITE,
	};
	size_t i;
	int fd;

	(void)state;
	for (i = 0; i < sizeof(seals) / sizeof(seals[0]); i++) {
		fd = memfd_create("copy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, ARENA_SIZE), 0);
		assert_int_equal(pwrite(fd, (void *)(uintptr_t)base, 4096, 0), 4096);
		assert_int_equal(fcntl(fd, F_ADD_SEALS, seals[i]), 0);
		assert_int_equal(sim_arena_attach(fd, base, &b, &why), -EINVAL);
		assert_null(b);
		assert_non_null(strstr(umad_err_text(&why), "not sealed as an arena is"));
		close(fd);
	}
	if (geteuid() == 0) {
		/* Another user's (as root, who can give it away). */
		fd = memfd_create("copy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, ARENA_SIZE), 0);
		assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
				 0);
		assert_int_equal(fchown(fd, 65534, 65534), 0);
		assert_int_equal(sim_arena_attach(fd, base, &b, &why), -EPERM);
		assert_non_null(strstr(umad_err_text(&why), "belongs to user 65534"));
		close(fd);
	}
	sim_arena_release(a);
}

static void test_attach_refusals(void **state)
{
	struct sim_arena *a = new_arena(), *b;
	uint64_t base = sim_arena_base(a);
	int fd = memfd_create("not-an-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	/* Not sealed: refused before anything is mapped. */
	assert_int_equal(sim_arena_attach(fd, 0x500000000000ull, &b, NULL), -EINVAL);
	assert_null(b);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
	/* Sealed, but no arena in it. */
	assert_int_equal(sim_arena_attach(fd, 0x500000000000ull, &b, NULL), -EINVAL);
	/* An address not a page's. */
	assert_int_equal(sim_arena_attach(fd, 0x500000000123ull, &b, NULL), -EINVAL);
	/* The arena at another address than its own. */
	assert_int_equal(sim_arena_attach(sim_arena_fd(a), base + (1ull << 32), &b, NULL),
			 -EINVAL);
	/* Something else of this process where it goes. */
	{
		void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		assert_true(m != MAP_FAILED);
		assert_int_equal(sim_arena_attach(sim_arena_fd(a), (uintptr_t)m, &b, NULL),
				 -EADDRINUSE);
		munmap(m, 4096);
	}
	/* The same arena again in this process: shared, released twice. */
	assert_int_equal(sim_arena_attach(sim_arena_fd(a), base, &b, NULL), 0);
	assert_ptr_equal(b, a);
	sim_arena_release(b);
	assert_true(sim_arena_holds(a, (void *)(uintptr_t)base, 8));
	close(fd);
	sim_arena_release(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_fabric_in_arena),
		cmocka_unit_test(test_second_process_shares_it),
		cmocka_unit_test(test_holder_died),
		cmocka_unit_test(test_attach_refusals),
		cmocka_unit_test(test_broken_lock_is_an_error),
		cmocka_unit_test(test_file_is_sealed_whole),
		cmocka_unit_test(test_attach_checks_the_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
