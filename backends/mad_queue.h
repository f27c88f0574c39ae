/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A port's receive side for backends without a kernel: a queue of whole
 * umad buffers and of pending send timeouts behind one pollable file
 * descriptor (an epoll set over an eventfd and a timerfd).
 *
 * The eventfd costs a write(2) and a read(2) per MAD, so it is signalled
 * only while someone may be blocked on the descriptor: a thread inside
 * mad_queue_wait(), or an application that took the descriptor to poll it
 * itself (mad_queue_watch(), for good).  While there is one, poll(2) on the
 * descriptor is readable exactly when mad_queue_pop() has something; with
 * none, a queued MAD leaves it unreadable (a due timeout or a MAD whose
 * time has come makes it readable always: the timer is armed regardless).
 * No wake-up is lost: a waiter announces itself under the queue's lock
 * after finding the queue empty, and a push, under the same lock, signals
 * when it sees a waiter.
 *
 * A MAD may also be queued to arrive later (mad_queue_push_at(): a delay
 * on its way): it waits in flight, ordered by its arrival time, and joins
 * the queue when that time comes, in time order with the timeouts falling
 * due and before anything pushed after it came.  The timer is set for the
 * earliest of the timeouts and the arrivals; every one of them yields a
 * message for mad_queue_pop(), so readiness stays exact.
 *
 * The queue and the MADs in flight are rings of fixed slots that grow only
 * when full, so the steady state allocates nothing per MAD; messages
 * longer than one MAD (RMPP) carry their own buffer.
 */
#ifndef LIBUMAD_MAD_QUEUE_H
#define LIBUMAD_MAD_QUEUE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <infiniband/umad.h>
#include <infiniband/umad_types.h>

#define MAD_QUEUE_HDR	sizeof(struct ib_user_mad)	/* 64 */
#define MAD_QUEUE_MAD	sizeof(struct umad_packet)	/* one MAD, a slot's inline room */
#define MAD_QUEUE_ETIMEDOUT 110				/* the kernel's status for a timed-out send */

struct mad_queue_slot {
	size_t len;			/* header + MAD */
	uint8_t *big;			/* when len exceeds the inline room */
	uint8_t data[MAD_QUEUE_HDR + MAD_QUEUE_MAD];
};

struct mad_queue_timeout {
	uint64_t deadline_ns;
	int is_response;
	int answered;			/* claimed by a response still in flight */
	/* A request resent on its timeouts (mad_queue_add_resending): */
	uint64_t resend_ns;		/* its next resend is due then (no deadline till it is made); 0: none left */
	uint32_t resends_left;
	size_t msg_len;			/* its whole length; 0: only its MAD header is kept */
	uint8_t *big;			/* the whole request, when longer than one MAD */
	/* The header, then the request's MAD (its first MAD_QUEUE_MAD bytes, or its MAD header). */
	uint8_t umad[MAD_QUEUE_HDR + MAD_QUEUE_MAD];
};

/* A MAD on its way (mad_queue_push_at()): it joins the queue at due_ns. */
struct mad_queue_flight {
	uint64_t due_ns;
	int completes;			/* it answers a request claimed for it, which ends on arrival */
	struct mad_queue_slot slot;
};

struct mad_queue {
	int fd;				/* the pollable descriptor (the portid) */
	int event_fd, timer_fd;
	pthread_mutex_t lock;
	struct mad_queue_slot *slots;
	size_t cap, head, count;
	struct mad_queue_timeout *timeouts;
	size_t n_timeouts, cap_timeouts;
	atomic_size_t n_waiting;	/* n_timeouts, readable without the lock */
	atomic_size_t n_resending;	/* timeouts with a resend to come, readable without it */
	struct mad_queue_flight *flights;	/* a ring sorted by due_ns (ties: push order) */
	size_t cap_flights, head_flight, n_flights;
	uint64_t armed_ns;		/* earliest deadline or arrival the timer is set for, 0 if none */
	unsigned waiters;		/* threads in mad_queue_wait(), + 1 once watched */
	int watched;			/* the application polls fd itself */
	int signalled;			/* the eventfd's counter is non-zero (then count > 0) */
	int failed;			/* -errno every pop returns once the queue is empty; 0 */
};

/* 0 or -errno. */
int mad_queue_open(struct mad_queue *q);
/* Close the pollable descriptor; the queue stays usable until mad_queue_free(). */
void mad_queue_close_fd(struct mad_queue *q);
/* Free what is queued and the queue itself (its descriptor closed first). */
void mad_queue_free(struct mad_queue *q);

/*
 * A message to queue: len bytes at mad, of which the first head_len (if
 * any) come from head instead, as a receiver's kernel rewrites a header.
 */
struct mad_queue_msg {
	const void *mad;
	size_t len;
	const void *head;
	size_t head_len;
};

/*
 * Queue a received MAD: hdr (64 bytes) then mad_len bytes, its transaction
 * ID replaced by tid (big-endian, as on the wire) unless tid is NULL.
 * 0 or -ENOMEM.
 */
int mad_queue_push_with_tid(struct mad_queue *q, const struct ib_user_mad *hdr, const void *mad,
			    size_t mad_len, const uint8_t *tid);

/*
 * A MAD that arrives at due_ns (CLOCK_MONOTONIC, as mad_queue_now_ns(); 0
 * or a time past: now): mad_queue_pop() sees it from then on.  completes:
 * it is the response a mad_queue_claim_request() with that arrival time
 * claimed a waiting request for (hdr->agent_id the request's agent): the
 * request ends when it arrives.  0 or -ENOMEM.
 */
int mad_queue_push_at(struct mad_queue *q, const struct ib_user_mad *hdr, const void *mad,
		      size_t mad_len, uint64_t due_ns, int completes);
/* The same for a message whose header is rewritten (struct mad_queue_msg). */
int mad_queue_push_msg_at(struct mad_queue *q, const struct ib_user_mad *hdr,
			  const struct mad_queue_msg *m, uint64_t due_ns, int completes);

/*
 * A send that will get no answer: timeout_ms * (retries + 1) after sent_ns
 * (0: now) the sender receives its header with status ETIMEDOUT and the
 * common header of its MAD, as the kernel reports it.  0 or -ENOMEM.
 */
int mad_queue_add_timeout(struct mad_queue *q, const struct ib_user_mad *hdr, const uint8_t *mad,
			  int is_response, uint64_t sent_ns);

/*
 * A request that is resent as the kernel's MAD layer resends it: each time
 * its timeout expires with no answer, a timeout after it went out (at
 * sent_ns) or was last resent, hdr->retries times (the resends are
 * mad_queue_take_resend()'s to make); it times out a timeout after the
 * last of them, and never before it was made.  msg:
 * the whole request as it went out (msg_len bytes, at least a MAD; its
 * TID as on the wire).  A response that claims it ends its resends too.
 * 0 or -ENOMEM.
 */
int mad_queue_add_resending(struct mad_queue *q, const struct ib_user_mad *hdr,
			    const uint8_t *msg, size_t msg_len, uint64_t sent_ns);

/*
 * The resends due by now, one a call: the request's header and whole MAD
 * copied into buf (MAD_QUEUE_HDR + MAD_QUEUE_MAD bytes), or, for one longer
 * than a MAD, into *big (malloc()ed: the caller frees it; NULL otherwise);
 * its length (header included), the next resend of the request scheduled
 * a timeout from now (its timeout too: mad_queue_resent() sets them again
 * once it went out).
 * A request claimed by a response still in flight is resent too, as the
 * kernel, which cannot know of it, would.  0 when none is due: *next_ns is
 * then the time the next one falls due (0: none), -ENOMEM.
 */
ssize_t mad_queue_take_resend(struct mad_queue *q, uint64_t now, uint8_t *buf, uint8_t **big,
			      uint64_t *next_ns);

/*
 * A resend mad_queue_take_resend() gave (umad: its header and MAD) went
 * out at sent_ns: the request, if it still waits, waits a whole timeout
 * from then for its answer before its next resend or its timeout, as the
 * kernel's timer starts when a send is done.
 */
void mad_queue_resent(struct mad_queue *q, const uint8_t *umad, uint64_t sent_ns);

/*
 * 1 when a send still waiting for its timeout makes this one a duplicate,
 * as the kernel judges it: a request with the same class, agent and TID
 * (the kernel owns the TID's upper half, per agent), or a response with the
 * same class and TID to the same destination.
 */
int mad_queue_is_outstanding(struct mad_queue *q, const struct ib_user_mad *hdr,
			     const uint8_t *mad, int is_response);

/*
 * A response arrived: if a request of the same class and TID waits for its
 * timeout here, it is answered: the wait ends, *agent_id is its agent, 1.
 * 0 when none waits (the kernel drops such a response), its deadline
 * having passed included (the timeout is reported even if not read yet).
 */
int mad_queue_claim_request(struct mad_queue *q, const uint8_t *resp, uint32_t *agent_id);

/*
 * A response that will arrive at arrive_ns (0 or a time past: now, as
 * mad_queue_claim_request()).  A request that waits and whose timeout is
 * later is claimed for it: *agent_id is its agent, 1, and the response is
 * to be pushed with mad_queue_push_at(..., arrive_ns, 1); the request
 * stays outstanding (a duplicate send is refused) until it arrives.  0
 * when none waits or the timeout comes first (the late response will
 * find no request, as on hardware).
 */
int mad_queue_claim_request_at(struct mad_queue *q, const uint8_t *resp, uint64_t arrive_ns,
			       uint32_t *agent_id);
/* read(2) semantics of a umad port (see backend.h): bytes, -EAGAIN, -ENOSPC or -EINVAL. */
ssize_t mad_queue_pop(struct mad_queue *q, void *buf, size_t len);

/* 1 when mad_queue_pop() would return a MAD or a timeout now (one that arrived included). */
int mad_queue_pending(struct mad_queue *q);

/*
 * Wait until mad_queue_pop() has something or timeout_ms passes (negative:
 * for ever), polling fd, the queue's descriptor as the caller knows it.
 * 0 when it has (or fd was closed meanwhile: the pop says so), -ETIMEDOUT,
 * or -errno of poll(2).
 */
int mad_queue_wait(struct mad_queue *q, int fd, int timeout_ms);

/*
 * Whatever fed the queue is gone for good (a shared fabric's server): once
 * what is queued is taken, pops return err and waits end at once.
 */
void mad_queue_fail(struct mad_queue *q, int err);

/* The application polls the descriptor itself from now on: its readiness stays exact for good. */
void mad_queue_watch(struct mad_queue *q);

uint64_t mad_queue_now_ns(void);

#endif /* LIBUMAD_MAD_QUEUE_H */
