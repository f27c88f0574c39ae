/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The replay index: requests in an open-addressing hash table whose slots
 * hold request ids; keys packed one after another in one arena; answers in
 * one array, each request's chained through 'next'; the answers' bytes
 * packed in file order in chunks that never move.  Everything grows by
 * doubling or by whole chunks, so loading a capture costs a few allocations,
 * not one per record.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/replay_index.h"

#define KEY_LEN_MAX	UINT16_MAX
#define FIRST_SLOTS	1024u	/* a power of two */
#define CHUNK_SIZE	(1u << 20)	/* kept answers' bytes, per allocation */

struct request {
	uint64_t key_at;	/* in the arena */
	uint32_t hash;
	uint16_t key_len;
	uint32_t first, last, cursor;	/* answers, REPLAY_NO_ANSWER when none */
};

/* Kept answer bytes: answers asked again in their recorded order read along one chunk. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	uint8_t bytes[];
};

struct replay_index {
	uint32_t *slots;	/* request id + 1; 0 is free */
	size_t n_slots;
	struct request *requests;
	size_t n_requests, cap_requests;
	uint8_t *arena;
	size_t arena_used, arena_cap;
	struct replay_answer *answers;
	size_t n_answers, cap_answers;
	struct chunk *chunks;		/* the newest first */
};

/* FNV-1a: keys are short and mostly differ in their last bytes (paths, LIDs). */
static uint32_t hash_key(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* Make room for one more of an array of elements of size 'size'. */
static int room_for_one(void **array, size_t *cap, size_t used, size_t size, size_t first)
{
	size_t cap2;
	void *grown;

	if (used < *cap)
		return 0;
	cap2 = *cap ? 2 * *cap : first;
	if (cap2 > SIZE_MAX / size || cap2 > UINT32_MAX - 1)
		return -ENOMEM;
	grown = realloc(*array, cap2 * size);
	if (!grown)
		return -ENOMEM;
	*array = grown;
	*cap = cap2;
	return 0;
}

struct replay_index *replay_index_new(void)
{
	struct replay_index *idx = calloc(1, sizeof(*idx));

	if (!idx)
		return NULL;
	idx->slots = calloc(FIRST_SLOTS, sizeof(*idx->slots));
	if (!idx->slots) {
		free(idx);
		return NULL;
	}
	idx->n_slots = FIRST_SLOTS;
	return idx;
}

void replay_index_free(struct replay_index *idx)
{
	size_t i;

	if (!idx)
		return;
	for (i = 0; i < idx->n_answers; i++)
		free(idx->answers[i].owned);
	while (idx->chunks) {
		struct chunk *c = idx->chunks;

		idx->chunks = c->next;
		free(c);
	}
	free(idx->answers);
	free(idx->arena);
	free(idx->requests);
	free(idx->slots);
	free(idx);
}

/* Twice the slots, every request placed again by its kept hash. */
static int grow_slots(struct replay_index *idx)
{
	size_t n = idx->n_slots * 2, mask = n - 1, i, s;
	uint32_t *slots;

	if (n > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < idx->n_requests; i++) {
		for (s = idx->requests[i].hash & mask; slots[s]; s = (s + 1) & mask)
			;
		slots[s] = (uint32_t)i + 1;
	}
	free(idx->slots);
	idx->slots = slots;
	idx->n_slots = n;
	return 0;
}

int64_t replay_index_request(struct replay_index *idx, const uint8_t *key, size_t len, int create)
{
	uint32_t h;
	size_t mask, s;
	struct request *r;

	if (len == 0 || len > KEY_LEN_MAX)
		return -EINVAL;
	h = hash_key(key, len);
	mask = idx->n_slots - 1;
	for (s = h & mask; idx->slots[s]; s = (s + 1) & mask) {
		r = &idx->requests[idx->slots[s] - 1];
		if (r->hash == h && r->key_len == len && !memcmp(idx->arena + r->key_at, key, len))
			return idx->slots[s] - 1;
	}
	if (!create)
		return -ENOENT;

	/* At most half the slots used, so that probes stay short. */
	if (2 * (idx->n_requests + 1) > idx->n_slots) {
		if (grow_slots(idx) < 0)
			return -ENOMEM;
		mask = idx->n_slots - 1;
		for (s = h & mask; idx->slots[s]; s = (s + 1) & mask)
			;
	}
	if (room_for_one((void **)&idx->requests, &idx->cap_requests, idx->n_requests,
			 sizeof(*idx->requests), 256) < 0)
		return -ENOMEM;
	while (idx->arena_cap - idx->arena_used < len) {
		size_t cap = idx->arena_cap ? 2 * idx->arena_cap : 64 * 1024;
		uint8_t *grown = realloc(idx->arena, cap);

		if (!grown)
			return -ENOMEM;
		idx->arena = grown;
		idx->arena_cap = cap;
	}
	r = &idx->requests[idx->n_requests];
	r->key_at = idx->arena_used;
	r->key_len = (uint16_t)len;
	r->hash = h;
	r->first = r->last = r->cursor = REPLAY_NO_ANSWER;
	memcpy(idx->arena + idx->arena_used, key, len);
	idx->arena_used += len;
	idx->slots[s] = (uint32_t)++idx->n_requests;
	return (int64_t)idx->n_requests - 1;
}

int64_t replay_index_add_answer(struct replay_index *idx, uint32_t id, const struct replay_answer *a)
{
	struct request *r;
	uint32_t aid;

	if (id >= idx->n_requests)
		return -EINVAL;
	if (room_for_one((void **)&idx->answers, &idx->cap_answers, idx->n_answers,
			 sizeof(*idx->answers), 256) < 0)
		return -ENOMEM;
	r = &idx->requests[id];
	aid = (uint32_t)idx->n_answers++;
	idx->answers[aid] = *a;
	idx->answers[aid].next = REPLAY_NO_ANSWER;
	if (r->last == REPLAY_NO_ANSWER)
		r->first = r->cursor = aid;
	else
		idx->answers[r->last].next = aid;
	r->last = aid;
	return aid;
}

struct replay_answer *replay_index_answer(struct replay_index *idx, uint32_t answer_id)
{
	return answer_id < idx->n_answers ? &idx->answers[answer_id] : NULL;
}

const struct replay_answer *replay_index_take(struct replay_index *idx, uint32_t id)
{
	struct request *r;
	const struct replay_answer *a;

	if (id >= idx->n_requests)
		return NULL;
	r = &idx->requests[id];
	if (r->cursor == REPLAY_NO_ANSWER)
		return NULL;
	a = &idx->answers[r->cursor];
	if (a->next != REPLAY_NO_ANSWER)
		r->cursor = a->next;
	return a;
}

size_t replay_index_requests(const struct replay_index *idx)
{
	return idx->n_requests;
}

size_t replay_index_answers(const struct replay_index *idx)
{
	return idx->n_answers;
}

const uint8_t *replay_index_keep(struct replay_index *idx, const uint8_t *bytes, size_t len)
{
	struct chunk *c = idx->chunks;

	if (!c || c->size - c->used < len) {
		size_t size = len > CHUNK_SIZE ? len : CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		c->next = idx->chunks;
		idx->chunks = c;
	}
	memcpy(c->bytes + c->used, bytes, len);
	c->used += len;
	return c->bytes + c->used - len;
}
