/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * When a wait for another process spins (simfabric/peer_wait.h), on a
 * clock the test sets: the budget learns from hits and halves on spins
 * that run out, down to its floor; one spin in PEER_WAIT_PROBE_EVERY may
 * take the longest; a spin that finds itself preempted stops and none
 * begins for a back-off that doubles while it keeps happening and is
 * reset by a hit; a wait without a budget never spins.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "simfabric/peer_wait.h"

#define MIN_NS	1000u
#define MAX_NS	40000u

/* Spin from `from` looking every `step` ns until peer_spin_again_at says stop: when it stopped. */
static uint64_t spin_out(struct peer_wait *w, struct peer_spin *s, uint64_t from, uint64_t step)
{
	uint64_t now = from;

	do
		now += step;
	while (peer_spin_again_at(w, s, now));
	return now;
}

static void test_budget_learns_and_halves(void **state)
{
	struct peer_wait w;
	struct peer_spin s;
	uint64_t t = 1000000, end;
	unsigned i;

	(void)state;
	peer_wait_init(&w, MIN_NS, MAX_NS);
	assert_int_equal(w.budget_ns, MAX_NS);
	/* Spins that run out: the first lasts the whole budget, then each half as long, to the floor. */
	assert_true(peer_spin_begin(&w, &s, t));
	end = spin_out(&w, &s, t, 100);
	assert_true(end - t >= MAX_NS && end - t < MAX_NS + 200);
	assert_int_equal(w.budget_ns, MAX_NS / 2);
	for (i = 0; i < 10; i++) {
		t = end + 1000;
		assert_true(peer_spin_begin(&w, &s, t));
		end = spin_out(&w, &s, t, 100);
	}
	assert_int_equal(w.budget_ns, MIN_NS);
	/* A hit after 3 us: four times that, not more than the most. */
	t = end + 1000;
	assert_true(peer_spin_begin(&w, &s, t));
	peer_spin_hit(&w, &s, t + 3000);
	assert_int_equal(w.budget_ns, 12000);
	t += 10000;
	assert_true(peer_spin_begin(&w, &s, t));
	peer_spin_hit(&w, &s, t + 30000);
	assert_int_equal(w.budget_ns, MAX_NS);
	/* A short hit does not lower it. */
	t += 100000;
	assert_true(peer_spin_begin(&w, &s, t));
	peer_spin_hit(&w, &s, t + 10);
	assert_int_equal(w.budget_ns, MAX_NS);
	assert_int_equal(w.hits, 3);
	assert_int_equal(w.preempted, 0);
}

static void test_some_spins_probe_the_longest(void **state)
{
	struct peer_wait w;
	struct peer_spin s;
	uint64_t t = 1000000, end, longest = 0;
	unsigned i;

	(void)state;
	peer_wait_init(&w, MIN_NS, MAX_NS);
	w.budget_ns = MIN_NS;
	for (i = 0; i < 2 * PEER_WAIT_PROBE_EVERY; i++) {
		assert_true(peer_spin_begin(&w, &s, t));
		end = spin_out(&w, &s, t, 100);
		if (end - t > longest)
			longest = end - t;
		t = end + 1000;
	}
	/* Most ran out at the floor; the probes ran the whole most. */
	assert_true(longest >= MAX_NS);
	assert_int_equal(w.budget_ns, MIN_NS);
	/* A probe that hits late teaches the budget that wait. */
	while ((w.spins + 1) % PEER_WAIT_PROBE_EVERY != 0) {
		assert_true(peer_spin_begin(&w, &s, t));
		t = spin_out(&w, &s, t, 100) + 1000;
	}
	assert_true(peer_spin_begin(&w, &s, t));
	assert_true(peer_spin_again_at(&w, &s, t + 5000));	/* beyond the floor: a probe */
	peer_spin_hit(&w, &s, t + 8000);
	assert_int_equal(w.budget_ns, 32000);
}

static void test_preempted_backs_off(void **state)
{
	struct peer_wait w;
	struct peer_spin s;
	uint64_t t = 1000000;

	(void)state;
	peer_wait_init(&w, MIN_NS, MAX_NS);
	assert_true(peer_spin_begin(&w, &s, t));
	assert_true(peer_spin_again_at(&w, &s, t + 500));
	/* Two looks far apart: off the CPU meanwhile. */
	t += 500 + PEER_WAIT_PREEMPTED_NS + 1;
	assert_false(peer_spin_again_at(&w, &s, t));
	assert_int_equal(w.preempted, 1);
	assert_int_equal(w.budget_ns, MAX_NS);	/* not the budget's fault */
	assert_false(peer_spin_begin(&w, &s, t + 1));
	assert_false(peer_spin_begin(&w, &s, t + PEER_WAIT_PAUSE_MIN_NS - 1));
	t += PEER_WAIT_PAUSE_MIN_NS;
	assert_true(peer_spin_begin(&w, &s, t));
	/* Again at once: twice as long. */
	t += PEER_WAIT_PREEMPTED_NS + 1;
	assert_false(peer_spin_again_at(&w, &s, t));
	assert_false(peer_spin_begin(&w, &s, t + 2 * PEER_WAIT_PAUSE_MIN_NS - 1));
	t += 2 * PEER_WAIT_PAUSE_MIN_NS;
	assert_true(peer_spin_begin(&w, &s, t));
	/* A hit resets it. */
	peer_spin_hit(&w, &s, t + 100);
	t += 1000;
	assert_true(peer_spin_begin(&w, &s, t));
	t += PEER_WAIT_PREEMPTED_NS + 1;
	assert_false(peer_spin_again_at(&w, &s, t));
	assert_false(peer_spin_begin(&w, &s, t + PEER_WAIT_PAUSE_MIN_NS - 1));
	assert_true(peer_spin_begin(&w, &s, t + PEER_WAIT_PAUSE_MIN_NS));
	/* It never grows past the most. */
	for (int i = 0; i < 20; i++) {
		t += PEER_WAIT_PAUSE_MAX_NS;
		assert_true(peer_spin_begin(&w, &s, t));
		t += PEER_WAIT_PREEMPTED_NS + 1;
		assert_false(peer_spin_again_at(&w, &s, t));
	}
	assert_true(w.backoff_ns <= PEER_WAIT_PAUSE_MAX_NS);
	assert_false(peer_spin_begin(&w, &s, t + PEER_WAIT_PAUSE_MAX_NS - 1));
}

static void test_no_budget_never_spins(void **state)
{
	struct peer_wait w;
	struct peer_spin s;

	(void)state;
	peer_wait_init(&w, 0, 0);
	assert_false(peer_spin_begin(&w, &s, 1000000));
	assert_false(peer_spin_begin(&w, &s, 5000000000ull));
	assert_true(peer_wait_cpu() <= 4096u);	/* a CPU plus one, or 0 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_learns_and_halves),
		cmocka_unit_test(test_some_spins_probe_the_longest),
		cmocka_unit_test(test_preempted_backs_off),
		cmocka_unit_test(test_no_budget_never_spins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
