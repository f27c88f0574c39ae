/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * An arena's lock (simfabric/arena.h) as a hostile process sharing the
 * memory could leave it, for the tests of what the others then do.
 */
#ifndef TESTS_ARENA_LOCK_H
#define TESTS_ARENA_LOCK_H

#include <stddef.h>

/*
 * The lock's offset from the start of every arena's file, or (size_t)-1
 * when not found.  Found, not assumed: the bytes of a fresh arena's header
 * that match a fresh robust process-shared mutex.
 */
size_t arena_lock_offset(void);

/*
 * Leave the lock at `lock` (mapped here) unrecoverable, as a process does
 * that takes it over from a holder that died and lets it go without saying
 * the model is whole: a child takes it and dies, then this process takes
 * and lets it go.  0, or -1.
 */
int arena_lock_break(void *lock);

/* ThreadSanitizer reports a mutex written over, rightly: tests that write over one skip. */
#if defined(__SANITIZE_THREAD__)
#define ARENA_LOCK_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ARENA_LOCK_UNDER_TSAN 1
#endif
#endif
#ifndef ARENA_LOCK_UNDER_TSAN
#define ARENA_LOCK_UNDER_TSAN 0
#endif

#endif /* TESTS_ARENA_LOCK_H */
