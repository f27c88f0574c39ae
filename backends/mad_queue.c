/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* A pollable receive queue for backends without a kernel (see mad_queue.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "backends/mad_queue.h"
#include "base/mad_wire.h"

uint64_t mad_queue_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int mad_queue_open(struct mad_queue *q)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	memset(q, 0, sizeof(*q));
	q->fd = epoll_create1(EPOLL_CLOEXEC);
	q->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	q->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (q->fd < 0 || q->event_fd < 0 || q->timer_fd < 0 ||
	    epoll_ctl(q->fd, EPOLL_CTL_ADD, q->event_fd, &ev) < 0 ||
	    epoll_ctl(q->fd, EPOLL_CTL_ADD, q->timer_fd, &ev) < 0) {
		err = errno;
		if (q->fd >= 0)
			close(q->fd);
		if (q->event_fd >= 0)
			close(q->event_fd);
		if (q->timer_fd >= 0)
			close(q->timer_fd);
		return -err;
	}
	pthread_mutex_init(&q->lock, NULL);
	return 0;
}

void mad_queue_close_fd(struct mad_queue *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}

void mad_queue_free(struct mad_queue *q)
{
	size_t i;

	mad_queue_close_fd(q);
	for (i = 0; i < q->count; i++)
		free(q->slots[(q->head + i) % q->cap].big);
	for (i = 0; i < q->n_flights; i++)
		free(q->flights[(q->head_flight + i) % q->cap_flights].slot.big);
	for (i = 0; i < q->n_timeouts; i++)
		free(q->timeouts[i].big);
	free(q->slots);
	free(q->flights);
	free(q->timeouts);
	close(q->event_fd);
	close(q->timer_fd);
	pthread_mutex_destroy(&q->lock);
}

/* Make the eventfd readable: the queue holds something and someone may wait. Lock held. */
static void signal_set(struct mad_queue *q)
{
	uint64_t one = 1;
	ssize_t n;

	n = write(q->event_fd, &one, sizeof(one));
	(void)n;
	q->signalled = 1;
}

/* After a push: signal only when someone may be blocked on the descriptor. Lock held. */
static void signal_nonempty(struct mad_queue *q)
{
	if (q->waiters && !q->signalled)
		signal_set(q);
}

/* After a pop: the descriptor is never readable over an empty queue. Lock held. */
static void signal_empty(struct mad_queue *q)
{
	uint64_t value;
	ssize_t n;

	if (q->count == 0 && q->signalled && !q->failed) {
		n = read(q->event_fd, &value, sizeof(value));
		(void)n;
		q->signalled = 0;
	}
}

/* Something for mad_queue_pop: a MAD, or a timeout that is due. Lock held. */
static int ready_locked(const struct mad_queue *q)
{
	return q->count > 0 || q->failed || (q->armed_ns && q->armed_ns <= mad_queue_now_ns());
}

void mad_queue_fail(struct mad_queue *q, int err)
{
	uint64_t one = 1;
	ssize_t n;

	pthread_mutex_lock(&q->lock);
	q->failed = err;
	/* Readable for good: no pop clears an eventfd that is signalled twice over. */
	n = write(q->event_fd, &one, sizeof(one));
	(void)n;
	pthread_mutex_unlock(&q->lock);
}

int mad_queue_wait(struct mad_queue *q, int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t deadline = timeout_ms > 0 ? mad_queue_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
	int n, err, left = timeout_ms;

	for (;;) {
		pthread_mutex_lock(&q->lock);
		if (ready_locked(q)) {
			pthread_mutex_unlock(&q->lock);
			return 0;
		}
		/* Announced with the queue seen empty, under the lock every push takes. */
		q->waiters++;
		pthread_mutex_unlock(&q->lock);
		n = poll(&pfd, 1, left);
		err = errno;
		pthread_mutex_lock(&q->lock);
		q->waiters--;
		if (n > 0 && !ready_locked(q)) {
			/*
			 * Woken for nothing (another thread took the MAD, or the
			 * descriptor was left readable): clear it and wait on for
			 * the time left.
			 */
			uint64_t drained;
			ssize_t got;

			signal_empty(q);
			got = read(q->timer_fd, &drained, sizeof(drained));
			(void)got;
			n = -2;
		}
		pthread_mutex_unlock(&q->lock);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (n == -1 && err != EINTR)
			return -err;
		if (timeout_ms > 0) {
			uint64_t now = mad_queue_now_ns();

			if (now >= deadline)
				return -ETIMEDOUT;
			left = (int)((deadline - now + 999999u) / 1000000u);
		}
	}
}

void mad_queue_watch(struct mad_queue *q)
{
	pthread_mutex_lock(&q->lock);
	if (!q->watched) {
		q->watched = 1;
		q->waiters++;
	}
	/* What is queued already must show now. */
	if (q->count && !q->signalled)
		signal_set(q);
	pthread_mutex_unlock(&q->lock);
}

/* A free slot at the tail, growing the ring when full. Lock held. */
static struct mad_queue_slot *tail_slot(struct mad_queue *q)
{
	if (q->count == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16, i;
		struct mad_queue_slot *grown = malloc(cap * sizeof(*grown));

		if (!grown)
			return NULL;
		for (i = 0; i < q->count; i++)
			grown[i] = q->slots[(q->head + i) % q->cap];
		free(q->slots);
		q->slots = grown;
		q->cap = cap;
		q->head = 0;
	}
	return &q->slots[(q->head + q->count) % q->cap];
}

/* A message's bytes into a slot (the slot's own room, or a buffer of its own); NULL on ENOMEM. */
/* The slot holds hdr then the MAD, its first head_len bytes taken from head (if any). */
static uint8_t *fill_slot(struct mad_queue_slot *s, const struct ib_user_mad *hdr,
			  const struct mad_queue_msg *m)
{
	size_t mad_len = m->len;

	uint8_t *dst = s->data;

	s->len = MAD_QUEUE_HDR + mad_len;
	s->big = NULL;
	if (s->len > sizeof(s->data)) {
		s->big = malloc(s->len);
		if (!s->big)
			return NULL;
		dst = s->big;
	}
	memcpy(dst, hdr, MAD_QUEUE_HDR);
	((struct ib_user_mad *)dst)->length = (uint32_t)s->len;
	memcpy(dst + MAD_QUEUE_HDR, m->mad, mad_len);
	if (m->head_len)
		memcpy(dst + MAD_QUEUE_HDR, m->head, m->head_len < mad_len ? m->head_len : mad_len);
	return dst;
}

static const uint8_t *slot_bytes(const struct mad_queue_slot *s)
{
	return s->big ? s->big : s->data;
}

/* Append a message; its bytes in the queue (to patch before unlocking), or NULL. Lock held. */
static uint8_t *append_locked(struct mad_queue *q, const struct ib_user_mad *hdr,
			      const struct mad_queue_msg *m)
{
	struct mad_queue_slot *s = tail_slot(q);
	uint8_t *dst;

	if (!s)
		return NULL;
	dst = fill_slot(s, hdr, m);
	if (!dst)
		return NULL;
	q->count++;
	signal_nonempty(q);
	return dst;
}

/* Append a filled slot (an arrival), taking over its buffer; its bytes, or NULL. Lock held. */
static const uint8_t *append_slot_locked(struct mad_queue *q, const struct mad_queue_slot *from)
{
	struct mad_queue_slot *s = tail_slot(q);

	if (!s)
		return NULL;
	s->len = from->len;
	s->big = from->big;
	if (!s->big)
		memcpy(s->data, from->data, s->len);
	q->count++;
	signal_nonempty(q);
	return slot_bytes(s);
}

static struct mad_queue_flight *flight_at(const struct mad_queue *q, size_t i)
{
	return &q->flights[(q->head_flight + i) % q->cap_flights];
}

/* The deadline of a request with resends to come: it times out only after its last one. */
#define NEVER	UINT64_MAX

/* Set the timer to the earliest deadline or arrival (or disarm it). Lock held. */
static void arm_timer(struct mad_queue *q)
{
	struct itimerspec its = { 0 };
	uint64_t first = 0;
	size_t i;

	for (i = 0; i < q->n_timeouts; i++)
		if (q->timeouts[i].deadline_ns != NEVER &&
		    (!first || q->timeouts[i].deadline_ns < first))
			first = q->timeouts[i].deadline_ns;
	/* The flights are sorted: the first one arrives first. */
	if (q->n_flights && (!first || flight_at(q, 0)->due_ns < first))
		first = flight_at(q, 0)->due_ns;
	if (first == q->armed_ns)
		return;
	q->armed_ns = first;
	if (first) {
		its.it_value.tv_sec = (time_t)(first / 1000000000u);
		its.it_value.tv_nsec = (long)(first % 1000000000u);
	}
	timerfd_settime(q->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void remove_timeout(struct mad_queue *q, size_t i)
{
	struct mad_queue_timeout *t = &q->timeouts[i];

	if (t->resend_ns)
		atomic_fetch_sub_explicit(&q->n_resending, 1, memory_order_relaxed);
	free(t->big);
	*t = q->timeouts[--q->n_timeouts];
	atomic_store_explicit(&q->n_waiting, q->n_timeouts, memory_order_relaxed);
}

/* Does a waiting send's stored request have the class and TID of this response? */
static int answers(const struct mad_queue_timeout *t, const uint8_t *resp)
{
	const uint8_t *tm = t->umad + MAD_QUEUE_HDR;

	return !t->is_response && mad_class(tm) == mad_class(resp) &&
	       !memcmp(tm + MAD_OFF_TID, resp + MAD_OFF_TID, MAD_TID_SIZE);
}

/* A response in flight for a claimed request arrived (umad: it, whole): the request ends. */
static void complete_request(struct mad_queue *q, const uint8_t *umad)
{
	const struct ib_user_mad *hdr = (const struct ib_user_mad *)umad;
	size_t i;

	for (i = 0; i < q->n_timeouts; i++) {
		const struct mad_queue_timeout *t = &q->timeouts[i];

		if (t->answered && answers(t, umad + MAD_QUEUE_HDR) &&
		    ((const struct ib_user_mad *)t->umad)->agent_id == hdr->agent_id) {
			remove_timeout(q, i);
			arm_timer(q);	/* its deadline, the fallback, may have been the one set */
			return;
		}
	}
}

/* The TID's lower half: the kernel puts its own per-agent value in the upper one. */
static uint32_t tid_low(const uint8_t *mad)
{
	return get_be32(mad + MAD_OFF_TID_LOW);
}

int mad_queue_is_outstanding(struct mad_queue *q, const struct ib_user_mad *hdr,
			     const uint8_t *mad, int is_response)
{
	size_t i;
	int found = 0;

	/* Most ports have no send waiting: no lock for them. */
	if (!atomic_load_explicit(&q->n_waiting, memory_order_relaxed))
		return 0;
	pthread_mutex_lock(&q->lock);
	for (i = 0; i < q->n_timeouts && !found; i++) {
		const struct mad_queue_timeout *t = &q->timeouts[i];
		const struct ib_user_mad *th = (const struct ib_user_mad *)t->umad;
		const uint8_t *tm = t->umad + MAD_QUEUE_HDR;

		if (t->is_response != is_response ||
		    mad_class(tm) != mad_class(mad))
			continue;
		if (!is_response)
			found = th->agent_id == hdr->agent_id && tid_low(tm) == tid_low(mad);
		else
			found = !memcmp(tm + MAD_OFF_TID, mad + MAD_OFF_TID, MAD_TID_SIZE) &&
				th->addr.lid == hdr->addr.lid &&
				th->addr.grh_present == hdr->addr.grh_present &&
				(!hdr->addr.grh_present ||
				 !memcmp(th->addr.gid, hdr->addr.gid, sizeof(hdr->addr.gid)));
	}
	pthread_mutex_unlock(&q->lock);
	return found;
}

/* A new timeout record, its header and MAD header copied; NULL on ENOMEM. Lock held. */
static struct mad_queue_timeout *add_timeout_locked(struct mad_queue *q,
						    const struct ib_user_mad *hdr,
						    const uint8_t *mad, int is_response,
						    uint64_t sent_ns)
{
	struct mad_queue_timeout *t;

	if (q->n_timeouts == q->cap_timeouts) {
		size_t cap = q->cap_timeouts ? q->cap_timeouts * 2 : 8;
		struct mad_queue_timeout *grown = realloc(q->timeouts, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		q->timeouts = grown;
		q->cap_timeouts = cap;
	}
	t = &q->timeouts[q->n_timeouts++];
	atomic_store_explicit(&q->n_waiting, q->n_timeouts, memory_order_relaxed);
	t->is_response = is_response;
	t->answered = 0;
	t->resend_ns = 0;
	t->resends_left = 0;
	t->msg_len = 0;
	t->big = NULL;
	t->deadline_ns = sent_ns +
			 (uint64_t)hdr->timeout_ms * 1000000u * ((uint64_t)hdr->retries + 1);
	memcpy(t->umad, hdr, MAD_QUEUE_HDR);
	memcpy(t->umad + MAD_QUEUE_HDR, mad, sizeof(struct umad_hdr));
	return t;
}

int mad_queue_add_timeout(struct mad_queue *q, const struct ib_user_mad *hdr, const uint8_t *mad,
			  int is_response, uint64_t sent_ns)
{
	int r = 0;

	pthread_mutex_lock(&q->lock);
	if (add_timeout_locked(q, hdr, mad, is_response, sent_ns ? sent_ns : mad_queue_now_ns()))
		arm_timer(q);
	else
		r = -ENOMEM;
	pthread_mutex_unlock(&q->lock);
	return r;
}

/*
 * The kernel's rhythm: a request sent (or resent) at sent_ns waits a whole
 * timeout for its answer, then is resent while it has resends left, and
 * times out only after the last.  Lock held.
 */
static void rearm(struct mad_queue *q, struct mad_queue_timeout *t, uint64_t sent_ns)
{
	uint64_t timeout_ns = (uint64_t)((const struct ib_user_mad *)t->umad)->timeout_ms * 1000000u;

	if (t->resend_ns) {
		t->resend_ns = sent_ns + timeout_ns;
		t->deadline_ns = NEVER;
	} else {
		t->deadline_ns = sent_ns + timeout_ns;
	}
	arm_timer(q);
}

int mad_queue_add_resending(struct mad_queue *q, const struct ib_user_mad *hdr,
			    const uint8_t *msg, size_t msg_len, uint64_t sent_ns)
{
	struct mad_queue_timeout *t;
	uint8_t *big = NULL;
	int r = 0;

	if (msg_len < MAD_QUEUE_MAD)
		return -EINVAL;
	/* A long request (RMPP) is kept whole; allocated before the lock, and rarely. */
	if (msg_len > MAD_QUEUE_MAD && hdr->retries) {
		big = malloc(msg_len);
		if (!big)
			return -ENOMEM;
		memcpy(big, msg, msg_len);
	}
	if (!sent_ns)
		sent_ns = mad_queue_now_ns();
	pthread_mutex_lock(&q->lock);
	t = add_timeout_locked(q, hdr, msg, 0, sent_ns);
	if (!t) {
		r = -ENOMEM;
	} else {
		if (hdr->retries) {
			memcpy(t->umad + MAD_QUEUE_HDR, msg, MAD_QUEUE_MAD);
			t->msg_len = msg_len;
			t->big = big;
			big = NULL;
			t->resends_left = hdr->retries;
			t->resend_ns = 1;
			atomic_fetch_add_explicit(&q->n_resending, 1, memory_order_relaxed);
		}
		rearm(q, t, sent_ns);
	}
	pthread_mutex_unlock(&q->lock);
	free(big);
	return r;
}

void mad_queue_resent(struct mad_queue *q, const uint8_t *umad, uint64_t sent_ns)
{
	const struct ib_user_mad *hdr = (const struct ib_user_mad *)umad;
	const uint8_t *mad = umad + MAD_QUEUE_HDR;
	size_t i;

	pthread_mutex_lock(&q->lock);
	for (i = 0; i < q->n_timeouts; i++) {
		struct mad_queue_timeout *t = &q->timeouts[i];

		if (t->msg_len && answers(t, mad) &&
		    ((const struct ib_user_mad *)t->umad)->agent_id == hdr->agent_id) {
			rearm(q, t, sent_ns);
			break;
		}
	}
	pthread_mutex_unlock(&q->lock);
}

ssize_t mad_queue_take_resend(struct mad_queue *q, uint64_t now, uint8_t *buf, uint8_t **big,
			      uint64_t *next_ns)
{
	struct mad_queue_timeout *t = NULL;
	ssize_t len = 0;
	uint64_t next = 0;
	size_t i;

	*big = NULL;
	*next_ns = 0;
	if (!atomic_load_explicit(&q->n_resending, memory_order_relaxed))
		return 0;
	pthread_mutex_lock(&q->lock);
	for (i = 0; i < q->n_timeouts; i++) {
		struct mad_queue_timeout *c = &q->timeouts[i];

		if (!c->resend_ns)
			continue;
		if (c->resend_ns <= now && (!t || c->resend_ns < t->resend_ns))
			t = c;
		else if (c->resend_ns > now && (!next || c->resend_ns < next))
			next = c->resend_ns;
	}
	if (t) {
		len = (ssize_t)(MAD_QUEUE_HDR + t->msg_len);
		if (t->big) {
			*big = malloc((size_t)len);
			if (!*big) {
				pthread_mutex_unlock(&q->lock);
				return -ENOMEM;
			}
			memcpy(*big, t->umad, MAD_QUEUE_HDR);
			memcpy(*big + MAD_QUEUE_HDR, t->big, t->msg_len);
		} else {
			memcpy(buf, t->umad, (size_t)len);
		}
		if (!--t->resends_left) {
			t->resend_ns = 0;
			atomic_fetch_sub_explicit(&q->n_resending, 1, memory_order_relaxed);
		}
		rearm(q, t, now);
	}
	pthread_mutex_unlock(&q->lock);
	if (!t)
		*next_ns = next;
	return len;
}

/*
 * Move what fell due into the queue, in time order: MADs in flight that
 * arrived, timeouts that passed (an arrival first when the two coincide).
 * The timer is set for the earliest of them, so nothing is due before it.
 * Lock held.
 */
static void expire(struct mad_queue *q)
{
	uint64_t now, ticks;
	ssize_t n;

	if (!q->armed_ns || q->armed_ns > (now = mad_queue_now_ns()))
		return;
	for (;;) {
		struct mad_queue_flight *f = q->n_flights ? flight_at(q, 0) : NULL;
		size_t i, t = q->n_timeouts;

		for (i = 0; i < q->n_timeouts; i++)
			if (q->timeouts[i].deadline_ns <= now &&
			    (t == q->n_timeouts ||
			     q->timeouts[i].deadline_ns < q->timeouts[t].deadline_ns))
				t = i;
		if (f && f->due_ns > now)
			f = NULL;
		if (f && (t == q->n_timeouts || f->due_ns <= q->timeouts[t].deadline_ns)) {
			const uint8_t *arrived = append_slot_locked(q, &f->slot);
			int completes = f->completes;

			if (!arrived)
				break;		/* retried on the next pop */
			q->head_flight = (q->head_flight + 1) % q->cap_flights;
			q->n_flights--;
			if (completes)
				complete_request(q, arrived);
		} else if (t < q->n_timeouts) {
			struct mad_queue_timeout *to = &q->timeouts[t];
			struct ib_user_mad *hdr = (struct ib_user_mad *)to->umad;

			struct mad_queue_msg common = {
				.mad = to->umad + MAD_QUEUE_HDR, .len = sizeof(struct umad_hdr),
			};

			hdr->status = MAD_QUEUE_ETIMEDOUT;
			if (!append_locked(q, hdr, &common))
				break;
			remove_timeout(q, t);
		} else {
			break;
		}
	}
	n = read(q->timer_fd, &ticks, sizeof(ticks));	/* clear its readiness */
	(void)n;
	q->armed_ns = 0;
	arm_timer(q);
}

/* Append a message after what fell due before it. Lock held. */
static uint8_t *push_locked(struct mad_queue *q, const struct ib_user_mad *hdr,
			    const struct mad_queue_msg *m)
{
	expire(q);
	return append_locked(q, hdr, m);
}

int mad_queue_push_with_tid(struct mad_queue *q, const struct ib_user_mad *hdr, const void *mad,
			    size_t mad_len, const uint8_t *tid)
{
	uint8_t head[MAD_OFF_TID + MAD_TID_SIZE];
	struct mad_queue_msg m = { .mad = mad, .len = mad_len };

	if (tid && mad_len >= sizeof(head)) {
		memcpy(head, mad, MAD_OFF_TID);
		memcpy(head + MAD_OFF_TID, tid, MAD_TID_SIZE);
		m.head = head;
		m.head_len = sizeof(head);
	}
	return mad_queue_push_msg_at(q, hdr, &m, 0, 0);
}

/* Room for one more flight, the ring grown when full. 0 or -ENOMEM. Lock held. */
static int flights_reserve(struct mad_queue *q)
{
	struct mad_queue_flight *grown;
	size_t cap, i;

	if (q->n_flights < q->cap_flights)
		return 0;
	cap = q->cap_flights ? q->cap_flights * 2 : 8;
	grown = malloc(cap * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	for (i = 0; i < q->n_flights; i++)
		grown[i] = *flight_at(q, i);
	free(q->flights);
	q->flights = grown;
	q->cap_flights = cap;
	q->head_flight = 0;
	return 0;
}

/*
 * Put a MAD in flight after those due no later than it: searched from the
 * tail, where a constant delay puts every new one.  Lock held.
 */
static int fly(struct mad_queue *q, const struct ib_user_mad *hdr, const struct mad_queue_msg *m,
	       uint64_t due_ns, int completes)
{
	struct mad_queue_flight f = { .due_ns = due_ns, .completes = completes };
	size_t i;

	if (flights_reserve(q) < 0 || !fill_slot(&f.slot, hdr, m))
		return -ENOMEM;
	for (i = q->n_flights; i > 0 && flight_at(q, i - 1)->due_ns > due_ns; i--)
		*flight_at(q, i) = *flight_at(q, i - 1);
	*flight_at(q, i) = f;
	q->n_flights++;
	arm_timer(q);
	return 0;
}

int mad_queue_push_at(struct mad_queue *q, const struct ib_user_mad *hdr, const void *mad,
		      size_t mad_len, uint64_t due_ns, int completes)
{
	struct mad_queue_msg m = { .mad = mad, .len = mad_len };

	return mad_queue_push_msg_at(q, hdr, &m, due_ns, completes);
}

int mad_queue_push_msg_at(struct mad_queue *q, const struct ib_user_mad *hdr,
			  const struct mad_queue_msg *m, uint64_t due_ns, int completes)
{
	uint8_t *queued;
	int r = 0;

	pthread_mutex_lock(&q->lock);
	if (due_ns && due_ns > mad_queue_now_ns()) {
		r = fly(q, hdr, m, due_ns, completes);
	} else {
		queued = push_locked(q, hdr, m);
		if (!queued)
			r = -ENOMEM;
		else if (completes)
			complete_request(q, queued);
	}
	pthread_mutex_unlock(&q->lock);
	return r;
}

ssize_t mad_queue_pop(struct mad_queue *q, void *buf, size_t len)
{
	struct mad_queue_slot *s;
	const uint8_t *src;
	ssize_t r;

	if (len < MAD_QUEUE_HDR)
		return -EINVAL;
	pthread_mutex_lock(&q->lock);
	expire(q);
	if (!q->count) {
		r = q->failed ? q->failed : -EAGAIN;
		pthread_mutex_unlock(&q->lock);
		return r;
	}
	s = &q->slots[q->head];
	src = s->big ? s->big : s->data;
	if (s->len > len) {
		/* The kernel's protocol: the header with the whole length; the message stays. */
		memcpy(buf, src, MAD_QUEUE_HDR);
		r = len >= MAD_QUEUE_HDR + MAD_SIZE ? -ENOSPC : -EINVAL;
	} else {
		memcpy(buf, src, s->len);
		r = (ssize_t)s->len;
		free(s->big);
		q->head = (q->head + 1) % q->cap;
		q->count--;
		signal_empty(q);
	}
	pthread_mutex_unlock(&q->lock);
	return r;
}

int mad_queue_pending(struct mad_queue *q)
{
	int r;

	pthread_mutex_lock(&q->lock);
	r = ready_locked(q);
	pthread_mutex_unlock(&q->lock);
	return r;
}

int mad_queue_claim_request(struct mad_queue *q, const uint8_t *resp, uint32_t *agent_id)
{
	return mad_queue_claim_request_at(q, resp, 0, agent_id);
}

int mad_queue_claim_request_at(struct mad_queue *q, const uint8_t *resp, uint64_t arrive_ns,
			       uint32_t *agent_id)
{
	uint64_t now;
	size_t i;
	int later, found = 0;

	if (!atomic_load_explicit(&q->n_waiting, memory_order_relaxed))
		return 0;
	pthread_mutex_lock(&q->lock);
	now = mad_queue_now_ns();
	later = arrive_ns > now;
	for (i = 0; i < q->n_timeouts; i++) {
		struct mad_queue_timeout *t = &q->timeouts[i];

		if (t->answered || !answers(t, resp))
			continue;
		/* Timed out already (not yet popped), or first: the response finds nothing. */
		if (t->deadline_ns <= (later ? arrive_ns : now))
			break;
		*agent_id = ((const struct ib_user_mad *)t->umad)->agent_id;
		found = 1;
		if (later) {
			/* Outstanding until the response arrives; its deadline stays as a fallback. */
			t->answered = 1;
		} else {
			remove_timeout(q, i);
			arm_timer(q);	/* its deadline may have been the one set */
		}
		break;
	}
	pthread_mutex_unlock(&q->lock);
	return found;
}
