/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The replay backend's index (backends/replay_index.c): requests found by
 * their key however many there are, answers given in recorded order with
 * the last repeated, reassembled answers owned and freed by the index.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backends/replay_index.h"

static int setup(void **state)
{
	*state = replay_index_new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	replay_index_free(*state);
	return 0;
}

static struct replay_answer at(uint32_t mark)
{
	struct replay_answer a = { .src_qp = mark, .len = 256, .next = 12345 };

	return a;
}

static void test_find_and_create(void **state)
{
	struct replay_index *idx = *state;
	const uint8_t k1[] = { 1, 0x81, 1, 1, 0, 0x11 }, k2[] = { 1, 0x81, 1, 1, 0, 0x12 };
	int64_t a, b;

	assert_int_equal(replay_index_request(idx, k1, sizeof(k1), 0), -ENOENT);
	a = replay_index_request(idx, k1, sizeof(k1), 1);
	assert_true(a >= 0);
	assert_int_equal(replay_index_request(idx, k1, sizeof(k1), 0), a);
	assert_int_equal(replay_index_request(idx, k1, sizeof(k1), 1), a);
	/* A key one byte shorter, or one byte different, is another request. */
	assert_int_equal(replay_index_request(idx, k1, sizeof(k1) - 1, 0), -ENOENT);
	b = replay_index_request(idx, k2, sizeof(k2), 1);
	assert_true(b >= 0 && b != a);
	assert_int_equal(replay_index_requests(idx), 2);
	assert_int_equal(replay_index_request(idx, k1, 0, 1), -EINVAL);
}

static void test_answers_in_order_last_repeats(void **state)
{
	struct replay_index *idx = *state;
	const uint8_t key[] = "PortInfo port 3";
	const struct replay_answer *got;
	struct replay_answer timeout = { .timeout = 1 };
	int64_t id = replay_index_request(idx, key, sizeof(key), 1);

	assert_true(id >= 0);
	/* Recorded but never answered (a capture cut short): no answer. */
	assert_null(replay_index_take(idx, (uint32_t)id));
	assert_true(replay_index_add_answer(idx, (uint32_t)id, &timeout) >= 0);
	assert_true(replay_index_add_answer(idx, (uint32_t)id, &(struct replay_answer){ .src_qp = 100 }) >= 0);
	assert_true(replay_index_add_answer(idx, (uint32_t)id, &(struct replay_answer){ .src_qp = 200 }) >= 0);
	got = replay_index_take(idx, (uint32_t)id);
	assert_non_null(got);
	assert_int_equal(got->timeout, 1);
	assert_int_equal(replay_index_take(idx, (uint32_t)id)->src_qp, 100);
	assert_int_equal(replay_index_take(idx, (uint32_t)id)->src_qp, 200);
	assert_int_equal(replay_index_take(idx, (uint32_t)id)->src_qp, 200);
	assert_int_equal(replay_index_take(idx, (uint32_t)id)->src_qp, 200);
	assert_null(replay_index_take(idx, 999999));
	assert_int_equal(replay_index_add_answer(idx, 999999, &timeout), -EINVAL);
}

/* Enough requests to grow every array many times, answers interleaved between them. */
static void test_many_requests(void **state)
{
	struct replay_index *idx = *state;
	enum { N = 200000 };
	char key[64];
	int64_t id;
	size_t i, len;

	for (i = 0; i < N; i++) {
		struct replay_answer a = at(i);

		len = (size_t)snprintf(key, sizeof(key), "request %zu%s", i, i % 7 ? "" : " long key tail");
		id = replay_index_request(idx, (const uint8_t *)key, len, 1);
		assert_int_equal(id, (int64_t)i);
		assert_true(replay_index_add_answer(idx, (uint32_t)id, &a) >= 0);
	}
	/* A second answer for every third request, added after all the firsts. */
	for (i = 0; i < N; i += 3) {
		struct replay_answer a = at(N + i);

		assert_true(replay_index_add_answer(idx, (uint32_t)i, &a) >= 0);
	}
	assert_int_equal(replay_index_requests(idx), N);
	assert_int_equal(replay_index_answers(idx), N + (N + 2) / 3);
	for (i = 0; i < N; i++) {
		len = (size_t)snprintf(key, sizeof(key), "request %zu%s", i, i % 7 ? "" : " long key tail");
		id = replay_index_request(idx, (const uint8_t *)key, len, 0);
		assert_int_equal(id, (int64_t)i);
		assert_int_equal(replay_index_take(idx, (uint32_t)id)->src_qp, i);
		assert_int_equal(replay_index_take(idx, (uint32_t)id)->src_qp, i % 3 ? i : N + i);
	}
}

/* A reassembled answer grows in place through its id and is freed with the index. */
static void test_owned_answers(void **state)
{
	struct replay_index *idx = *state;
	int64_t id = replay_index_request(idx, (const uint8_t *)"sa", 2, 1), aid;
	struct replay_answer a = { .owned = malloc(256), .len = 256 }, *stored;
	uint8_t *grown;

	assert_non_null(a.owned);
	memset(a.owned, 0xab, 256);
	aid = replay_index_add_answer(idx, (uint32_t)id, &a);
	assert_true(aid >= 0);
	stored = replay_index_answer(idx, (uint32_t)aid);
	assert_non_null(stored);
	grown = realloc(stored->owned, 456);
	assert_non_null(grown);
	memset(grown + 256, 0xcd, 200);
	stored->owned = grown;
	stored->len = 456;
	assert_int_equal(replay_index_take(idx, (uint32_t)id)->len, 456);
	assert_int_equal(replay_index_take(idx, (uint32_t)id)->owned[455], 0xcd);
	assert_null(replay_index_answer(idx, (uint32_t)aid + 1));
}

/* Kept bytes: copies that stay put while more are kept, across chunks, large ones too. */
static void test_kept_answers(void **state)
{
	struct replay_index *idx = *state;
	const uint8_t *kept[3000];
	uint8_t mad[256], big[3u << 20];
	const uint8_t *b;
	size_t i;

	for (i = 0; i < 3000; i++) {
		memset(mad, (int)(i & 0xff), sizeof(mad));
		mad[0] = (uint8_t)(i >> 8);
		kept[i] = replay_index_keep(idx, mad, sizeof(mad));
		assert_non_null(kept[i]);
	}
	memset(big, 0x5a, sizeof(big));
	b = replay_index_keep(idx, big, sizeof(big));
	assert_non_null(b);
	assert_memory_equal(b, big, sizeof(big));
	for (i = 0; i < 3000; i++) {
		assert_int_equal(kept[i][0], (uint8_t)(i >> 8));
		assert_int_equal(kept[i][255], (uint8_t)(i & 0xff));
	}
	/* Packed in the order kept (within a chunk). */
	assert_ptr_equal(kept[1], kept[0] + sizeof(mad));
}

/* Key i of the lookup tests (key i is a prefix of key 10 i + d). */
static size_t lookup_key(size_t i, char *key, size_t size)
{
	return (size_t)snprintf(key, size, "key %zu", i);
}

/*
 * Lookups in recorded order (the next request tried first), in reverse,
 * with jumps, repeated, and of keys never added: always the id the key was
 * given, whatever was looked up before.
 */
static void test_lookups_in_any_order(void **state)
{
	struct replay_index *idx = *state;
	enum { N = 5000 };
	char key[32];
	size_t i, len;

	for (i = 0; i < N; i++) {
		len = lookup_key(i, key, sizeof(key));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 1), (int64_t)i);
	}
	for (i = 0; i < N; i++) {
		len = lookup_key(i, key, sizeof(key));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 0), (int64_t)i);
	}
	for (i = N; i-- > 0;) {
		len = lookup_key(i, key, sizeof(key));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 0), (int64_t)i);
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 0), (int64_t)i);
	}
	for (i = 0; i < N; i += 1 + i % 7) {
		/* The key after i is tried first: its prefix, a longer key and a missing one are not it. */
		len = lookup_key(i, key, sizeof(key));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 0), (int64_t)i);
		len = lookup_key(i + 1, key, sizeof(key));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len - 1, 0),
				 i + 1 < 10 ? -ENOENT : (int64_t)((i + 1) / 10));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 0),
				 i + 1 < N ? (int64_t)(i + 1) : -ENOENT);
		len = lookup_key(N + i, key, sizeof(key));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 0), -ENOENT);
	}
	/* Creating a key that exists gives its id, after a lookup of its predecessor too. */
	len = lookup_key(41, key, sizeof(key));
	assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 0), 41);
	len = lookup_key(42, key, sizeof(key));
	assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 1), 42);
	assert_int_equal(replay_index_requests(idx), N);
}

/* Room made ahead: the requests expected and many more than that all fit and are found. */
static void test_expect(void **state)
{
	struct replay_index *idx = *state;
	enum { N = 20000 };
	char key[32];
	size_t i, len;

	assert_int_equal(replay_index_expect(idx, SIZE_MAX / 2), -EINVAL);
	assert_int_equal(replay_index_expect(idx, 0), 0);
	assert_int_equal(replay_index_expect(idx, N / 8), 0);
	for (i = 0; i < N; i++) {
		len = lookup_key(i, key, sizeof(key));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 1), (int64_t)i);
		if (i == N / 2)	/* expected again, fewer than there are: nothing lost */
			assert_int_equal(replay_index_expect(idx, N / 4), 0);
	}
	for (i = N; i-- > 0;) {
		len = lookup_key(i, key, sizeof(key));
		assert_int_equal(replay_index_request(idx, (const uint8_t *)key, len, 0), (int64_t)i);
	}
	assert_int_equal(replay_index_requests(idx), N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_find_and_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answers_in_order_last_repeats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owned_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kept_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookups_in_any_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expect, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
