/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fabric's traffic: where a MAD sent from a port goes and who answers
 * it.  SMPs go to the SMA of the node they reach; GMPs are LID-routed hop
 * by hop through the switches' forwarding tables (multicast through the
 * MFTs), checked against the destination port's P_Keys, taken only on QP1
 * (where every agent lives: one sent to another QP reaches no one) with
 * its well-known Q_Key, and answered by the node's firmware agents (PMA,
 * congestion control), by
 * the built-in SA at the SM's port, or handed to an agent a program
 * registered at an attached port (the owner's endpoints).  Answers travel
 * back the same way; a MAD that finds no route, a dead link or no taker is
 * lost, and its sender's timeout fires.  A MAD crossing ports with a delay
 * (fault.h) carries the sum of their delays for its owner to deliver it
 * that much later; the fabric's own agents answer at once all the same.
 *
 * The built-in SM (UMAD_SIM_SM=builtin) configures the fabric at start and
 * serves SMInfo and the SA until a real SM appears; sim_net_sm_step_aside()
 * retires it.
 *
 * Locking: none of its own; the owner serialises every call with the
 * fabric's lock, and the endpoint operations are called with it held.
 */
#ifndef SIMFABRIC_NET_H
#define SIMFABRIC_NET_H

#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "simfabric/fabric.h"
#include "simfabric/sma.h"

/* A MAD on its way: the addressing of its packet headers, and the message. */
struct sim_net_msg {
	struct sim_port *port;		/* the port it leaves from, or arrives at */
	uint16_t slid, dlid;
	uint32_t sqpn, dqpn;
	uint32_t qkey;
	uint16_t pkey;
	uint8_t sl;
	const uint8_t *data;		/* the MAD (whole message for RMPP classes) */
	size_t len;
	/*
	 * Set by the net: how late it arrives, the delays (fault.h) of the
	 * ports it left on its way; for an answer, there and back.  The owner
	 * delivers it that much later.
	 */
	uint64_t delay_ns;
};

/* The ports a program is attached at, as the owner (the sim backend) sees them. */
struct sim_net_endpoint_ops {
	/*
	 * A MAD arrived at port m->port and no agent of the fabric took it: give
	 * it to the program's agent it is for (the kernel's receive rules).
	 * 1 when one took it, 0 when none did.  Must not call back into the net.
	 */
	int (*receive)(void *arg, const struct sim_net_msg *m);
	void *arg;
};

struct sim_sa;

/*
 * A trap a real SM's agent received and has not repressed yet: the issuer
 * sends it again, same TID, every resend_ns until TrapRepress comes back.
 */
#define SIM_NET_TRAPS_PENDING	64
#define SIM_NET_TRAP_RESENDS	16	/* then the issuer gives up */
struct sim_net_trap {
	struct sim_node *node;
	unsigned port;
	unsigned resends;
	uint64_t due_ns;
	uint8_t smp[MAD_SIZE];
};

/* Nodes one SMP can change: the one its SMA runs on, and the far end of a link it changed. */
#define SIM_NET_CHANGED_MAX	2

struct sim_net {
	struct sim_fabric *f;
	const struct sim_sma_hooks *sma_hooks;	/* the owner's */
	/*
	 * The hooks the SMA is given: the owner's, and the switches an SMP
	 * changed noted, to send the Trap 128 they owe once it is answered.
	 */
	struct sim_sma_hooks hooks;
	struct sim_node *changed[SIM_NET_CHANGED_MAX];
	unsigned n_changed;
	struct sim_net_endpoint_ops ep;
	/* The built-in SM and SA: sm_port is where they sit; active until a real SM came. */
	struct sim_port *sm_port;
	int sm_active;
	struct sim_sa *sa;
	/* Counts of what was lost, by cause, for tests and the CLI. */
	uint64_t lost_no_route, lost_pkey, lost_qkey, lost_no_taker;
	uint64_t traps_sent;
	struct sim_net_trap pending[SIM_NET_TRAPS_PENDING];
	unsigned n_pending;
};

/* How a send ended. */
enum sim_net_result {
	SIM_NET_LOST = 0,		/* no route, a dead link, refused, or no taker */
	SIM_NET_ANSWERED,		/* answered at once: the answer is in the reply */
	SIM_NET_DELIVERED,		/* taken by a program's agent; any answer comes later */
};

/* An answer given at once.  Short answers use the inline room; long ones (SA tables) the heap. */
struct sim_net_reply {
	struct sim_net_msg msg;		/* msg.data points at inline or heap */
	uint8_t *heap;
	uint8_t inline_mad[MAD_SIZE];
};

/*
 * Set the net up on a loaded fabric.  builtin_sm: configure the fabric as an
 * SM would and run the built-in SM and SA (at the first CA port whose link
 * is up, else the first switch's port 0); otherwise leave the power-on state.
 * 0 or -errno with why in err.
 */
int sim_net_init(struct sim_net *net, struct sim_fabric *f, int builtin_sm,
		 const struct sim_sma_hooks *sma_hooks, const struct sim_net_endpoint_ops *ep,
		 struct umad_err *err);
void sim_net_fini(struct sim_net *net);

/*
 * Send m (from m->port, to m->dlid/m->dqpn).  The MAD buffer of an SMP
 * request (MAD_SIZE bytes, writable) is answered in place, as the SMA
 * does; every other answer goes to *reply, which the caller releases with
 * sim_net_reply_release().
 */
enum sim_net_result sim_net_send(struct sim_net *net, const struct sim_net_msg *m,
				 uint8_t *mad, struct sim_net_reply *reply);
void sim_net_reply_release(struct sim_net_reply *reply);

/*
 * Is this MAD (sent from QP sqpn to dqpn) an SMP request that the SMA at
 * the end of its route answers, whatever the programs on the fabric do: a
 * Get or Set, and not SMInfo LID-routed (which a real SM's agent answers)?
 * Those a process can carry itself with sim_net_sma_round_trip(), where
 * sim_net_send() would do the same with nothing else to it.
 */
int sim_net_sma_answers(uint32_t sqpn, uint32_t dqpn, const uint8_t *mad, size_t len);

/*
 * Carry such an SMP from port `from` to its SMA and back, answered in
 * place (MAD_SIZE bytes): 1 with the answer's source LID and how late the
 * links made it, 0 when it was lost.  Under the model's lock.  Without a
 * net to send traps, the nodes the SMP changed are told to hooks alone:
 * the caller has the owner of the net send the Trap 128 a changed switch
 * owes (sim_net_link_trap).
 */
int sim_net_sma_round_trip(struct sim_fabric *f, struct sim_port *from, uint16_t dlid,
			   uint8_t *mad, const struct sim_sma_hooks *hooks, uint16_t *slid,
			   uint64_t *delay_ns);

/* A real SM came: the built-in SM and SA stop answering (SMInfo, the SA class). */
void sim_net_sm_step_aside(struct sim_net *net);

/*
 * Send trap `number` (TRAP_*) from port `port` of node (0: a switch) to its
 * SM, with DataDetails `details` (NOTICE_DETAILS_SIZE bytes, or NULL for
 * zeros).  The built-in SM takes it (after a link change it sweeps again:
 * routes around what went down, activates what came up) and its SA reports
 * it to the subscribers; a real SM's agent on an attached port receives it
 * as an SMP Trap(Notice).  0, or -EHOSTUNREACH when no SM got it.
 */
int sim_net_trap(struct sim_net *net, struct sim_node *node, unsigned port, unsigned number,
		 const uint8_t *details);

/*
 * Switch n's ports changed state (the port state machine set
 * sim_switch.link_trap_owed): it sends its SM Trap 128 now, its LID in the
 * details, once however many of its ports changed.  The net does so itself
 * after an SMP it carries (sim_net_send); a fault (fault.c) and the owner
 * of an SMP carried elsewhere (sim_net_sma_round_trip) call it.  0 when
 * sent or when n owes none (a CA, a switch that did not change),
 * -EHOSTUNREACH when no SM got it.
 */
int sim_net_link_trap(struct sim_net *net, struct sim_node *n);

/*
 * Port p's CapabilityMask changed from old_capmask (a program took or left
 * the IsSM device, say): a port that supports IsCapabilityMaskNotice tells
 * its SM with Trap 144 (LIDAddr, the new CapabilityMask and
 * CapabilityMask2, no other local changes).  None while the port has no
 * SM LID, or when the SM LID is the port's own (an SM is not told of its
 * own port by a trap).  0 when sent, 1 when there is none to send,
 * -EHOSTUNREACH when no SM got it.
 */
int sim_net_capmask_changed(struct sim_net *net, struct sim_port *p, uint32_t old_capmask);

/* Trap 144's DataDetails for port p (NOTICE_DETAILS_SIZE bytes): its LID and capability masks. */
void sim_net_trap144_details(struct sim_port *p, uint8_t *details);

/*
 * Send again the traps whose time has come (now_ns, CLOCK_MONOTONIC).  The
 * fabric has no clock of its own: the owner calls this as the program
 * sends, so traps are repeated while it talks to the fabric.
 */
void sim_net_tick(struct sim_net *net, uint64_t now_ns);
uint64_t sim_net_now_ns(void);

#endif /* SIMFABRIC_NET_H */
