/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* When a wait for another process spins, and for how long (peer_wait.h). */
#include "config.h"

#include <sched.h>

#include "simfabric/net.h"
#include "simfabric/peer_wait.h"

void peer_wait_init(struct peer_wait *w, uint32_t min_ns, uint32_t max_ns)
{
	*w = (struct peer_wait){
		.budget_ns = max_ns, .min_ns = min_ns, .max_ns = max_ns,
		.backoff_ns = PEER_WAIT_PAUSE_MIN_NS,
	};
}

int peer_spin_begin(struct peer_wait *w, struct peer_spin *s, uint64_t now)
{
	uint32_t budget = w->budget_ns;

	if (!w->max_ns || now < w->calm_at_ns)
		return 0;
	/* Now and then the longest spin: a budget that only halves would never learn a longer wait. */
	if ((++w->spins & (PEER_WAIT_PROBE_EVERY - 1)) == 0)
		budget = w->max_ns;
	*s = (struct peer_spin){ .start_ns = now, .last_ns = now, .until_ns = now + budget };
	return 1;
}

int peer_spin_again_at(struct peer_wait *w, struct peer_spin *s, uint64_t now)
{
	if (now - s->last_ns > PEER_WAIT_PREEMPTED_NS) {
		/* Off this CPU meanwhile: someone else wants it; block for a while. */
		w->preempted++;
		w->calm_at_ns = now + w->backoff_ns;
		if (w->backoff_ns < PEER_WAIT_PAUSE_MAX_NS)
			w->backoff_ns *= 2;
		return 0;
	}
	s->last_ns = now;
	if (now < s->until_ns)
		return 1;
	w->budget_ns = w->budget_ns / 2 > w->min_ns ? w->budget_ns / 2 : w->min_ns;
	return 0;
}

int peer_spin_again(struct peer_wait *w, struct peer_spin *s)
{
	if ((++s->looks & 3) != 0)
		return 1;
	return peer_spin_again_at(w, s, sim_net_now_ns());
}

void peer_spin_hit(struct peer_wait *w, const struct peer_spin *s, uint64_t now)
{
	uint64_t want = 4 * (now - s->start_ns);

	w->hits++;
	w->backoff_ns = PEER_WAIT_PAUSE_MIN_NS;
	if (want > w->budget_ns)
		w->budget_ns = want < w->max_ns ? (uint32_t)want : w->max_ns;
}

uint32_t peer_wait_cpu(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : (uint32_t)cpu + 1;
}
