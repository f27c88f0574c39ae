/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The replay index: requests in an open-addressing hash table whose slots
 * hold a request's hash and id side by side (a probe that meets another key
 * reads no request); keys packed one after another in one arena; answers
 * in one array, each request's chained through 'next'; kept answers' bytes
 * packed in file order in chunks that never move.  Everything grows by
 * doubling or by whole chunks, so loading a capture costs a few
 * allocations, not one per record.
 *
 * Loading writes each array once from start to end: the pages they grow
 * into are asked for a run at a time (MADV_POPULATE_WRITE) rather than one
 * fault at a time, which on a virtual machine costs several times the
 * writing.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backends/replay_index.h"

#define KEY_LEN_MAX	UINT16_MAX
#define FIRST_SLOTS	1024u	/* a power of two */
#define CHUNK_SIZE	(1u << 20)	/* kept answers' bytes, per allocation */

struct request {
	uint32_t key_at;	/* in the arena */
	uint16_t key_len;
	uint32_t last, cursor;	/* answers, REPLAY_NO_ANSWER when none */
};

/* A slot: the request's hash (high half) and its id + 1 (low half); 0 is free. */
typedef uint64_t slot_t;

/* Kept answer bytes: answers asked again in their recorded order read along one chunk. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	uint8_t bytes[];
};

struct replay_index {
	slot_t *slots;
	size_t n_slots;
	struct request *requests;
	size_t n_requests, cap_requests, requests_ready;
	uint8_t *arena;
	size_t arena_used, arena_cap, arena_ready;
	struct replay_answer *answers;
	size_t n_answers, cap_answers, answers_ready;
	int may_own;			/* some answer may have an owned buffer to free */
	uint32_t hint;			/* the request after the one last looked up */
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

/*
 * Map in the whole pages of [p, p + n) now, in one call; a kernel without
 * MADV_POPULATE_WRITE (before 5.14) leaves them to fault in as written.
 */
static void populate(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	static size_t page;
	uintptr_t start, end;

	if (!page) {
		long size = sysconf(_SC_PAGESIZE);

		page = size > 0 ? (size_t)size : 4096;
	}
	start = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	end = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
	/* Worth a system call only for several pages. */
	if (end > start && end - start >= 16 * page)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
#else
	(void)p, (void)n;
#endif
}

/*
 * An array written from start to end has its pages mapped in POPULATE_STEP
 * at a time ahead of the writing ('ready' bytes are), not all it may grow
 * to: a doubled array's unused half stays unmapped.
 */
#define POPULATE_STEP	(1u << 20)

static void populate_ahead(void *array, size_t *ready, size_t need, size_t cap)
{
	size_t to = *ready + POPULATE_STEP;

	if (need <= *ready)
		return;
	if (to < need)
		to = need;
	if (to > cap)
		to = cap;
	populate((uint8_t *)array + *ready, to - *ready);
	*ready = to;
}

/* Make room for one more of an array of elements of size 'size'. */
static int room_for_one(void **array, size_t *cap, size_t *ready, size_t used, size_t size,
			size_t first)
{
	size_t cap2;
	void *grown;

	if (used >= *cap) {
		cap2 = *cap ? 2 * *cap : first;
		if (cap2 > SIZE_MAX / size || cap2 > UINT32_MAX - 1)
			return -ENOMEM;
		grown = realloc(*array, cap2 * size);
		if (!grown)
			return -ENOMEM;
		*array = grown;
		*cap = cap2;
	}
	populate_ahead(*array, ready, (used + 1) * size, *cap * size);
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
	for (i = 0; idx->may_own && i < idx->n_answers; i++)
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

/* n slots (a power of two), every request placed again by the hash its slot kept. */
static int resize_slots(struct replay_index *idx, size_t n)
{
	size_t mask = n - 1, i, s;
	slot_t *slots;

	if (n > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	populate(slots, n * sizeof(*slots));
	for (i = 0; i < idx->n_slots; i++) {
		slot_t v = idx->slots[i];

		if (!v)
			continue;
		for (s = (v >> 32) & mask; slots[s]; s = (s + 1) & mask)
			;
		slots[s] = v;
	}
	free(idx->slots);
	idx->slots = slots;
	idx->n_slots = n;
	return 0;
}

int replay_index_expect(struct replay_index *idx, size_t requests)
{
	size_t n = idx->n_slots;

	if (requests > UINT32_MAX / 2)
		return -EINVAL;
	/* At most half the slots used, as replay_index_request() keeps them. */
	while (n < 2 * requests)
		n *= 2;
	if (n > idx->n_slots && resize_slots(idx, n) < 0)
		return -ENOMEM;
	if (requests > idx->cap_requests) {
		struct request *grown = realloc(idx->requests, requests * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		idx->requests = grown;
		idx->cap_requests = requests;
	}
	return 0;
}

int64_t replay_index_request(struct replay_index *idx, const uint8_t *key, size_t len, int create)
{
	uint32_t h;
	size_t mask, s;
	slot_t v;
	struct request *r;

	if (len == 0 || len > KEY_LEN_MAX)
		return -EINVAL;
	/*
	 * A tool asking again what it asked when recorded asks in about the
	 * same order: the request after the last one found is tried first,
	 * which reads along the requests and keys rather than a random slot.
	 */
	if (!create && idx->hint < idx->n_requests) {
		r = &idx->requests[idx->hint];
		if (r->key_len == len && !memcmp(idx->arena + r->key_at, key, len))
			return idx->hint++;
	}
	h = hash_key(key, len);
	mask = idx->n_slots - 1;
	for (s = h & mask; (v = idx->slots[s]) != 0; s = (s + 1) & mask) {
		if (v >> 32 != h)
			continue;
		r = &idx->requests[(uint32_t)v - 1];
		if (r->key_len == len && !memcmp(idx->arena + r->key_at, key, len)) {
			idx->hint = (uint32_t)v;
			return (uint32_t)v - 1;
		}
	}
	if (!create)
		return -ENOENT;

	/* At most half the slots used, so that probes stay short. */
	if (2 * (idx->n_requests + 1) > idx->n_slots) {
		if (resize_slots(idx, idx->n_slots * 2) < 0)
			return -ENOMEM;
		mask = idx->n_slots - 1;
		for (s = h & mask; idx->slots[s]; s = (s + 1) & mask)
			;
	}
	if (room_for_one((void **)&idx->requests, &idx->cap_requests, &idx->requests_ready,
			 idx->n_requests, sizeof(*idx->requests), 256) < 0)
		return -ENOMEM;
	while (idx->arena_cap - idx->arena_used < len) {
		size_t cap = idx->arena_cap ? 2 * idx->arena_cap : 64 * 1024;
		uint8_t *grown;

		if (cap > UINT32_MAX)
			return -ENOMEM;		/* key_at is 32 bits */
		grown = realloc(idx->arena, cap);
		if (!grown)
			return -ENOMEM;
		idx->arena = grown;
		idx->arena_cap = cap;
	}
	populate_ahead(idx->arena, &idx->arena_ready, idx->arena_used + len, idx->arena_cap);
	r = &idx->requests[idx->n_requests];
	r->key_at = (uint32_t)idx->arena_used;
	r->key_len = (uint16_t)len;
	r->last = r->cursor = REPLAY_NO_ANSWER;
	memcpy(idx->arena + idx->arena_used, key, len);
	idx->arena_used += len;
	idx->slots[s] = (slot_t)h << 32 | (uint32_t)++idx->n_requests;
	return (int64_t)idx->n_requests - 1;
}

int64_t replay_index_add_answer(struct replay_index *idx, uint32_t id, const struct replay_answer *a)
{
	struct request *r;
	uint32_t aid;

	if (id >= idx->n_requests)
		return -EINVAL;
	if (room_for_one((void **)&idx->answers, &idx->cap_answers, &idx->answers_ready,
			 idx->n_answers, sizeof(*idx->answers), 256) < 0)
		return -ENOMEM;
	r = &idx->requests[id];
	aid = (uint32_t)idx->n_answers++;
	idx->answers[aid] = *a;
	idx->answers[aid].next = REPLAY_NO_ANSWER;
	if (a->owned)
		idx->may_own = 1;
	if (r->last == REPLAY_NO_ANSWER)
		r->cursor = aid;
	else
		idx->answers[r->last].next = aid;
	r->last = aid;
	return aid;
}

struct replay_answer *replay_index_answer(struct replay_index *idx, uint32_t answer_id)
{
	if (answer_id >= idx->n_answers)
		return NULL;
	idx->may_own = 1;	/* the caller may give it an owned buffer */
	return &idx->answers[answer_id];
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
		populate(c->bytes, size);
		c->used = 0;
		c->size = size;
		c->next = idx->chunks;
		idx->chunks = c;
	}
	memcpy(c->bytes + c->used, bytes, len);
	c->used += len;
	return c->bytes + c->used - len;
}
