/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the fabric's shared memory as a client of the same
 * user may leave it (simfabric/arena.h): any bytes over the header's
 * fields (magic, base, size, used, root, root size; the lock is left
 * alone, as a lock written over is sim_arena_lock's to refuse) and over
 * the root object, in an arena this process mapped, or in the file
 * before another process maps it.  Never a crash: the lock is refused
 * with a reason unless the header and the root are as they were (or only
 * "used" grew, within the arena), attaching refuses a header that does
 * not make sense, and memory handed out afterwards lies in the arena,
 * past the header's page, clear of the root.
 *
 * Sources: tests/fuzz/fuzz_arena_header.c simfabric/arena.c
 * ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simfabric/arena.h"
#include "tests/fuzz/take_input.h"

#define ARENA_BYTES	(64u << 10)
#define PAGE		4096u
#define FIELDS		48u	/* the header's six words before its lock */
#define ROOT_BYTES	48u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What sim_arena_alloc handed out: in the arena, past the header's page, clear of root (if known). */
static void check_block(struct sim_arena *a, const uint8_t *p, size_t len, const uint8_t *root)
{
	uintptr_t base = (uintptr_t)sim_arena_base(a);

	if (!p)
		return;
	if (!sim_arena_holds(a, p, len) || (uintptr_t)p < base + PAGE ||
	    (root && (uintptr_t)p < (uintptr_t)root + ROOT_BYTES &&
	     (uintptr_t)p + len > (uintptr_t)root))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t fields[FIELDS], before[FIELDS], root_before[ROOT_BYTES], root_bytes[ROOT_BYTES];
	int in_file = take8(&in) & 1, fd, r, changed;
	size_t want = take8(&in) * 64u;
	struct sim_arena *a;
	uint64_t used_before, used_after;
	uint8_t *root, *h;
	uint64_t base;

	if (sim_arena_create(ARENA_BYTES, &a) < 0)
		return 0;
	root = sim_arena_alloc(a, ROOT_BYTES);
	if (!root)
		abort();
	memset(root, 0x5a, ROOT_BYTES);
	if (sim_arena_set_root(a, root, ROOT_BYTES) < 0)
		abort();
	h = (uint8_t *)(uintptr_t)sim_arena_base(a);
	base = sim_arena_base(a);
	memcpy(before, h, FIELDS);
	memcpy(root_before, root, ROOT_BYTES);
	memcpy(fields, before, FIELDS);
	memcpy(root_bytes, root_before, ROOT_BYTES);
	/* The input's bytes over the fields and the root, as far as it goes; the rest as they were. */
	for (size_t i = 0; i < FIELDS && in.left; i++)
		fields[i] = take8(&in);
	for (size_t i = 0; i < ROOT_BYTES && in.left; i++)
		root_bytes[i] = take8(&in);
	memcpy(&used_before, before + 24, 8);
	memcpy(&used_after, fields + 24, 8);
	changed = memcmp(root_bytes, root_before, ROOT_BYTES) != 0 ||
		  memcmp(fields, before, 24) != 0 || memcmp(fields + 32, before + 32, 16) != 0 ||
		  used_after < used_before || used_after > ARENA_BYTES;

	if (!in_file) {
		/* Written over in this process's mapping, as another's would be. */
		memcpy(h, fields, FIELDS);
		memcpy(root, root_bytes, ROOT_BYTES);
		r = sim_arena_lock(a);
		if (r == 0) {
			if (changed || sim_arena_damage(a)[0])
				abort();
			check_block(a, sim_arena_alloc(a, want), want, root);
			sim_arena_unlock(a);
		} else if (r != -ENOTRECOVERABLE || !changed || !sim_arena_damage(a)[0] ||
			   sim_arena_alloc(a, want)) {
			abort();
		}
		sim_arena_release(a);
		return 0;
	}
	/* In the file, before a process maps it: attaching reads the header first. */
	fd = dup(sim_arena_fd(a));
	sim_arena_release(a);
	if (fd < 0)
		return 0;
	if (pwrite(fd, fields, FIELDS, 0) != (ssize_t)FIELDS ||
	    pwrite(fd, root_bytes, ROOT_BYTES, (off_t)((uintptr_t)root - base)) !=
	    (ssize_t)ROOT_BYTES) {
		close(fd);
		return 0;
	}
	if (sim_arena_attach(fd, base, &a, NULL) == 0) {
		uint8_t *their_root = sim_arena_root(a);

		/* Whatever root it names lies in the arena, past the header's page. */
		if (their_root && (!sim_arena_holds(a, their_root, 1) ||
				   (uintptr_t)their_root < base + PAGE))
			abort();
		if (sim_arena_lock(a) == 0) {
			check_block(a, sim_arena_alloc(a, want), want, NULL);
			sim_arena_unlock(a);
		}
		sim_arena_release(a);
	}
	close(fd);
	return 0;
}
