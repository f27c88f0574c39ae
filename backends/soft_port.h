/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * umad ports emulated in user space, for backends without a kernel (sim,
 * replay): the table of open ports by portid, their agents, and the
 * kernel's rules for registrations and sends (mad_rules.h).
 *
 * Lifetime: a port is found by soft_port_get(), which takes a reference
 * that soft_port_put() drops.  soft_port_close() removes it from the table
 * and closes its descriptor at once, so that later calls get -EBADF as on a
 * closed file; calls already inside it finish on their reference, and the
 * last reference frees it.  So a port closed while other threads send or
 * receive on it is never used after it is freed.
 */
#ifndef LIBUMAD_SOFT_PORT_H
#define LIBUMAD_SOFT_PORT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/backend.h"
#include "backends/mad_queue.h"
#include "base/mad_rules.h"

#define SOFT_PORT_MAX_AGENTS	UMAD_CA_MAX_AGENTS	/* per opened port, as the kernel's */

struct soft_port {
	atomic_uint refs;		/* the table's one, and one per call inside; 0: closed */
	atomic_int portid;		/* -1 once closed (the memory is reused, never freed) */
	struct soft_port *next_free;
	struct mad_queue q;		/* q.fd is the portid */
	const void *device_port;	/* the host port it is open on (the backend's object) */
	int is_switch;			/* a switch's port 0 */
	unsigned port_num;
	void *data;			/* the backend's, per opened port */
	pthread_mutex_t agents_lock;
	struct umad_agent_req agents[SOFT_PORT_MAX_AGENTS];
	uint8_t agent_used[SOFT_PORT_MAX_AGENTS];
	/* The upper TID half each agent's requests go out with (soft_port_set_hi_tid); 0: none. */
	uint32_t hi_tid[SOFT_PORT_MAX_AGENTS];
};

/*
 * Open a port on device_port (registrations conflict among the ports open
 * on one device_port).  The portid, or -EIO with *open_errno set.
 */
int soft_port_open(const void *device_port, int is_switch, unsigned port_num, void *data,
		   int *open_errno);
/* 0, or -EBADF when portid is not open. */
int soft_port_close(int portid);
/* What feeds every open port is gone: their receives fail with err once drained (mad_queue_fail). */
void soft_port_fail_all(int err);
/* Close every port (backend fini). */
void soft_port_close_all(void);

/* The open port, referenced; NULL when portid is not open. */
struct soft_port *soft_port_get(int portid);
void soft_port_put(struct soft_port *p);
/* Another reference to a port the caller holds one of (to keep it past the call). */
void soft_port_hold(struct soft_port *p);

/* REGISTER_AGENT with the kernel's checks; 0 and *agent_id, or -errno. */
int soft_port_register(int portid, struct umad_agent_req *req, uint32_t *agent_id);
int soft_port_unregister(int portid, uint32_t agent_id);
/*
 * The agent's hi_tid, as the kernel gives each agent one: every request
 * it sends (not a response or a TrapRepress) goes out, and is seen by
 * the program again (its answer, its timeout), with the upper half of
 * its TID replaced by it.  Set by the backend after registering the
 * agent; an agent whose hi_tid stays 0 sends TIDs as they are written.
 */
void soft_port_set_hi_tid(struct soft_port *p, uint32_t agent_id, uint32_t hi_tid);
/* The backend contract's hi_tid(): an agent's hi_tid, 0 for none (or no such agent). */
uint32_t soft_port_hi_tid(int portid, uint32_t agent_id);

/*
 * What a backend does with a send that passed the kernel's checks: hdr is
 * the caller's umad header, agent the sending agent's registration, mad
 * a copy of the MAD the backend may answer in (MAD_SIZE bytes, zero-padded
 * past mad_len).  0 or -errno.
 */
typedef int (*soft_port_deliver_fn)(struct soft_port *p, const struct ib_user_mad *hdr,
				    const struct umad_agent_req *agent, uint8_t *mad,
				    size_t mad_len);

/*
 * A backend's send operation: the kernel's write() checks (length, agent,
 * sizes per class and agent, directed route), the TID's upper half
 * rewritten as the kernel does (soft_port_set_hi_tid), the check for a
 * duplicate outstanding request, then deliver, on a port held for the
 * while.  deliver finds the first MAD as rewritten in mad; the message
 * behind hdr is rewritten too only when it is longer than one MAD (the
 * only case a deliver function reads it).  len or -errno.
 */
ssize_t soft_port_send(int portid, const void *umad, size_t len, soft_port_deliver_fn deliver);

/*
 * A checked send that gets no answer: with a timeout it completes with
 * ETIMEDOUT timeout_ms * (retries + 1) after it was sent, at sent_ns (0:
 * now), resent meanwhile where resends are on (soft_port_resend_with());
 * without one, not at all.  mad: the first MAD as it went out (MAD_SIZE
 * bytes), unless the send is the one soft_port_send() carries on this
 * thread, which kept its own copy of the whole message before the deliver
 * function could answer in mad.  A resend's loss changes nothing: the
 * request it resends still waits.  0 or -ENOMEM.
 */
int soft_port_no_answer(struct soft_port *p, const struct ib_user_mad *hdr, const uint8_t *mad,
			uint64_t sent_ns);

/*
 * Resends, as the kernel's MAD layer makes them for umad_send()'s retries:
 * a request sent with a timeout and retries N that gets no answer in time
 * is sent again, the same bytes with the same TID, each time its timeout
 * expires, up to N times, by a thread of the backend's own (started at the
 * first such request, blocking until the next resend falls due); the
 * first answer completes it, later ones are dropped, and one that never
 * gets an answer completes once, with ETIMEDOUT, timeout_ms * (N + 1)
 * after it was sent.  A backend turns them on by calling
 * soft_port_resend_with() once, at init, with its name (for messages) and
 * the function its sends are carried by (soft_port_send's deliver) and
 * hook (umad_backend_host's resent, or NULL): a
 * resend goes through it as the send did, and whatever it answers with
 * (soft_port_answer_at(), soft_port_no_answer()) completes the request it
 * resends, or is dropped when that request is complete.  hook, if not
 * NULL, is told of each resend as it goes out (umad: its header and
 * message, len bytes), from the resending thread.  Without resends (the
 * replay backend: a recording holds its retries' outcome already),
 * requests time out after timeout_ms * (N + 1) with no resend.
 */
void soft_port_resend_with(const char *backend, soft_port_deliver_fn deliver,
			   void (*hook)(int portid, const void *umad, size_t len));
/* Stop resending and wait for a resend under way (backend fini, before the fabric goes). */
void soft_port_resend_stop(void);
/*
 * Is hdr the header of a resend being carried (by a deliver function, on
 * this thread)?  Its answer comes back at once, not posted for later: what
 * it completes is known only while it is carried.
 */
int soft_port_is_resend(const struct ib_user_mad *hdr);

/* wait() and watch_fd() of the backend contract: lazy signalling of the descriptor (mad_queue.h). */
int soft_port_wait(int portid, int timeout_ms);
void soft_port_watch_fd(int portid);

/* recv() and pending() of the backend contract. */
ssize_t soft_port_recv(int portid, void *umad, size_t len);
int soft_port_pending(int portid);

/*
 * A message for an agent of p (hdr: its umad header, agent id set): queued
 * whole for an agent the kernel does RMPP for (its RMPP header as that
 * kernel shows a reassembled message), or as the RMPP segments it travels
 * in for one that reassembles them itself.  0 or -ENOMEM.
 */
int soft_port_queue_message(struct soft_port *p, const struct ib_user_mad *hdr,
			    const struct umad_agent_req *agent, const uint8_t *msg, size_t len);
/*
 * The same, arriving at due_ns (CLOCK_MONOTONIC; 0: now); completes as for
 * mad_queue_push_at() (a response a request was claimed for).
 */
int soft_port_queue_message_at(struct soft_port *p, const struct ib_user_mad *hdr,
			       const struct umad_agent_req *agent, const uint8_t *msg, size_t len,
			       uint64_t due_ns, int completes);

/*
 * The answer to a checked send of p (req_hdr: as the deliver function got
 * it, its timeout set; req_mad: the request's MAD header as it went out,
 * before an answer was written over it; sent at sent_ns, 0: now) that the
 * backend made itself, to arrive at due_ns (0: now), hdr its umad header.
 * Later than now, the send waits for it as for an answer from elsewhere:
 * outstanding until it arrives, or timed out instead when its timeout
 * comes first (the answer then finds no request and is dropped).  The
 * answer to a resend (soft_port_is_resend(req_hdr)) completes the request
 * it resends if that still waits, and is dropped if not.  0 or -ENOMEM.
 */
int soft_port_answer_at(struct soft_port *p, const struct ib_user_mad *req_hdr,
			const uint8_t *req_mad, const struct ib_user_mad *hdr,
			const struct umad_agent_req *agent, const uint8_t *msg, size_t len,
			uint64_t due_ns, uint64_t sent_ns);

/*
 * A MAD arriving from the fabric at device_port on QP qpn, with the umad
 * header the receiver gets (agent id aside): a response goes to the agent
 * whose request of that class and TID waits for it, anything else to the
 * agent registered to receive it (mad_rules_agent_receives), across every
 * port open on device_port.  1 when an agent took it, 0 when none did
 * (also when len is shorter than a MAD's header: nothing of it is read).
 * It arrives at due_ns (0: now): the agent is chosen now and the MAD queued
 * for it then; a response claims a request whose timeout comes later than
 * due_ns (mad_queue_claim_request_at()).
 */
int soft_port_receive_at(const void *device_port, unsigned qpn, const struct ib_user_mad *hdr,
			 const uint8_t *msg, size_t len, uint64_t due_ns);

#endif /* LIBUMAD_SOFT_PORT_H */
