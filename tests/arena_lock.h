/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Where an arena's lock lies in its memory file (simfabric/arena.h), for
 * tests that write over it as a hostile process sharing the memory would.
 * Found, not assumed: the bytes of a fresh arena's header that match a
 * fresh robust process-shared mutex.
 */
#ifndef TESTS_ARENA_LOCK_H
#define TESTS_ARENA_LOCK_H

#include <stddef.h>

/* The lock's offset from the start of every arena's file, or (size_t)-1 when not found. */
size_t arena_lock_offset(void);

#endif /* TESTS_ARENA_LOCK_H */
