/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Memory the fabric's model can live in so that several processes use it
 * at once: one memory file, mapped at the same address in every process
 * (so the model's pointers hold everywhere), with one process-shared lock.
 *
 * The shared fabric's server loads its fabric into an arena; its clients
 * map it and answer SMPs themselves, under the arena's lock, with no
 * round trip to the server.  The address range is reserved sparse: only
 * the pages the model touches take memory.
 *
 * The model allocates through sim_mem_*(), naming any object of the
 * model as the owner: memory for a model that lives in an arena comes
 * from that arena, otherwise from the heap.  Memory in an arena is never
 * given back one piece at a time; it all goes with the arena.
 */
#ifndef SIMFABRIC_ARENA_H
#define SIMFABRIC_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"

struct sim_arena;

/*
 * A new arena of `size` bytes (rounded up to pages) in a fresh memory file,
 * sized once and for all (sparse) and sealed against shrinking, growing
 * and any further seal, so that no process it is handed to can change how
 * the others map it.  0 or -errno.
 */
int sim_arena_create(size_t size, struct sim_arena **out);

/*
 * Map the arena in memory file fd at `base` in this process.  The file
 * must be this user's, sealed as sim_arena_create seals it, and hold an
 * arena made for that address, of the file's size: -EPERM or -EINVAL
 * otherwise.  -EADDRINUSE when something else of this process sits there
 * (the caller then does without), or -errno; why in err either way.  An
 * arena this process has mapped already (inherited over fork) is shared.
 */
int sim_arena_attach(int fd, uint64_t base, struct sim_arena **out, struct umad_err *err);

/* Unmap (the last user in this process) and forget the arena. */
void sim_arena_release(struct sim_arena *a);

int sim_arena_fd(const struct sim_arena *a);
uint64_t sim_arena_base(const struct sim_arena *a);

/* Is p inside the arena (a pointer a client may follow)? */
int sim_arena_holds(const struct sim_arena *a, const void *p, size_t len);

/*
 * The root object the creator stored (the fabric), or NULL: this
 * process's own copy of where it is, never the shared header's.
 */
void *sim_arena_root(const struct sim_arena *a);
/*
 * Store the root object, size bytes inside the arena past its header's
 * page (256 at most), whose bytes never change from now on: every
 * process keeps a copy and checks them when it takes the lock.  0, or
 * -EINVAL.
 */
int sim_arena_set_root(struct sim_arena *a, void *root, size_t size);

/*
 * The lock every process takes around any access to the model inside.
 * A holder that died is survived: its half-done change stays as it was.
 * Once taken, the shared header is checked against what this process
 * knows of it (each process keeps its own copy: the arena's base and
 * size, the root and its bytes, and how much was handed out, which only
 * grows).  0, or -ENOTRECOVERABLE when the lock cannot be had (left
 * inconsistent, or its memory written over) or the header was written
 * over (zeroed through a mapping, or a hole punched in the file): the
 * caller then must not touch the model, and says so (sim_arena_damage
 * tells what was found).  Once written over, it stays so for this process.
 */
int sim_arena_lock(struct sim_arena *a) __attribute__((warn_unused_result));
void sim_arena_unlock(struct sim_arena *a);

/* Why sim_arena_lock failed ("" while it has not). */
const char *sim_arena_damage(const struct sim_arena *a);

/*
 * Zeroed memory in the arena; NULL when full, or when the header's count
 * of what was handed out went back or past the end, or sim_arena_lock
 * found the header written over.
 * Caller holds the lock (or is alone).
 */
void *sim_arena_alloc(struct sim_arena *a, size_t size);

/* --- the model's allocator --------------------------------------------------------- */

/* Zeroed memory where `owner` (an object of the model) lives; NULL on ENOMEM. */
void *sim_mem_calloc(const void *owner, size_t n, size_t size);
/* As realloc(), where `owner` lives; new bytes are zero in an arena, undefined on the heap. */
void *sim_mem_realloc(const void *owner, void *ptr, size_t size);
char *sim_mem_strdup(const void *owner, const char *s);
/* Does p live in an arena (the model it belongs to is shared)? */
int sim_mem_shared(const void *p);
/* Give memory back (a no-op for memory in an arena). */
void sim_mem_free(void *ptr);

#endif /* SIMFABRIC_ARENA_H */
