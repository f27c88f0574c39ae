/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * When a wait for another process looks again and again without sleeping
 * (spins), and for how long: the shared fabric's client and server waiting
 * for each other (fabric_client.c, fabric_server.c).
 *
 * A sleep and a wake-up cost a system call on each side and, when the
 * sleeper's CPU is idle, that CPU's wake-up: more than a whole round trip
 * between two processes that both run.  Spinning wins only while the peer
 * runs on another CPU.  On the peer's own CPU the spinner keeps it off;
 * on a busy machine the spinner takes time a process that waits for a CPU
 * needs, and spends the priority a sleeper gets when it wakes.  So a wait
 * spins only
 *  - where the peer can be seen (the mailbox), while it is seen running on
 *    another CPU: its CPU differs, its beat advances (the caller's test);
 *  - within a budget learnt from the spins that ended with the answer (a
 *    hit raises it to four times that wait; a spin that ran out halves it,
 *    down to a floor; one spin in PEER_WAIT_PROBE_EVERY may take the
 *    longest, so that a wait longer than the budget is learnt too);
 *  - while this CPU is its own: a spin that finds it was preempted (two
 *    looks at the clock PEER_WAIT_PREEMPTED_NS apart) stops, and none
 *    starts until a back-off has passed, twice as long each time it
 *    happens again before a spin ends with the answer.
 * Otherwise the wait blocks (futex, epoll), and the peer wakes it.
 *
 * One struct peer_wait per waiting side, used under that side's own lock
 * (or by one thread).  Times are CLOCK_MONOTONIC nanoseconds.
 */
#ifndef SIMFABRIC_PEER_WAIT_H
#define SIMFABRIC_PEER_WAIT_H

#include <stdint.h>

/* Two looks this far apart: the spinner was off its CPU meanwhile. */
#define PEER_WAIT_PREEMPTED_NS	20000u
#define PEER_WAIT_PROBE_EVERY	32u	/* a power of two */
/* After a preemption, no spin for this long, doubling to the max while it recurs. */
#define PEER_WAIT_PAUSE_MIN_NS	1000000u
#define PEER_WAIT_PAUSE_MAX_NS	64000000u

struct peer_wait {
	uint32_t budget_ns;		/* the longest spin worth trying now */
	uint32_t min_ns, max_ns;	/* the budget's bounds */
	uint32_t backoff_ns;		/* the next back-off after a preemption */
	uint64_t calm_at_ns;		/* no spin before then: preempted while spinning */
	uint64_t spins, hits, preempted;	/* counts, for tests and benches */
};

/* One spin under way. */
struct peer_spin {
	uint64_t start_ns, last_ns, until_ns;
	unsigned looks;
};

void peer_wait_init(struct peer_wait *w, uint32_t min_ns, uint32_t max_ns);

/* Begin a spin at now: 1, or 0 when none is worth trying (block at once). */
int peer_spin_begin(struct peer_wait *w, struct peer_spin *s, uint64_t now);

/*
 * A look found nothing: 1 to look again, 0 to stop and block (the budget
 * spent: it halves; or preempted: the back-off begins).  Reads the clock
 * on every fourth call.
 */
int peer_spin_again(struct peer_wait *w, struct peer_spin *s);

/* The same with the clock read by the caller (now), as every call reads it. */
int peer_spin_again_at(struct peer_wait *w, struct peer_spin *s, uint64_t now);

/* The spin ended with what it waited for, at now: the budget learns from the wait. */
void peer_spin_hit(struct peer_wait *w, const struct peer_spin *s, uint64_t now);

/* The CPU this thread runs on, plus one (0: unknown): what a peer compares its own with. */
uint32_t peer_wait_cpu(void);

#endif /* SIMFABRIC_PEER_WAIT_H */
