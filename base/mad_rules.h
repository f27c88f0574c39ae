/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel's rules for agent registrations and sends, as pure functions,
 * for backends that have no kernel to apply them (sim, replay, and the
 * shared fabric's server): what the umad device's REGISTER_AGENT ioctls
 * and write(2) refuse, and with which errno; which agent receives what;
 * and how a message arrives (its length, and the RMPP header a receiving
 * kernel shows on one it reassembled).  libumad(7) lists them.
 */
#ifndef UMAD_BASE_MAD_RULES_H
#define UMAD_BASE_MAD_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "base/backend.h"
#include "base/mad_wire.h"

/* The umad header size of ports emulated in user space (P_Key index support on). */
#define MAD_RULES_HDR_SIZE	sizeof(struct ib_user_mad)

/* The kernel's hi_tids (the upper TID half of an agent's requests) are 24 bits wide, 0 its own. */
#define MAD_RULES_HI_TID_MAX	0xffffffu

/*
 * A method that answers (its response bit, TrapRepress, a BM response): the
 * kernel never matches answers to those, so their only completion is a
 * timeout; and it leaves their TIDs as written, where it gives every other
 * MAD's upper half the sending agent's hi_tid.
 */
static inline int mad_rules_method_is_response(uint8_t mgmt_class, uint8_t method,
					       uint32_t attr_mod)
{
	return mad_method_is_response(method) || method == UMAD_METHOD_TRAP_REPRESS ||
	       (mgmt_class == UMAD_CLASS_BM && (attr_mod & BM_ATTR_MOD_RESPONSE));
}

/* The kernel does RMPP for the agent: it segments its sends and reassembles what it receives. */
static inline int mad_rules_kernel_rmpp(const struct umad_agent_req *agent)
{
	return agent->rmpp_version && !(agent->flags & UMAD_USER_RMPP);
}

/*
 * Whether the registration request may be made at all (not whether it
 * conflicts with another agent): 0 or -EINVAL.  For a non-legacy request
 * with flags the kernel does not know, req->flags becomes the supported set.
 */
int mad_rules_check_registration(struct umad_agent_req *req);

/* Two registrations that would both receive some unsolicited MAD: the kernel refuses the second. */
int mad_rules_registrations_conflict(const struct umad_agent_req *a,
				     const struct umad_agent_req *b);

/*
 * Does agent a take an unsolicited MAD (a request, trap or report, len
 * bytes) arriving on QP qpn?  The kernel's receive rules: same QP, class
 * and class version, the method in its mask, and for vendor range 2 its OUI.
 */
int mad_rules_agent_receives(const struct umad_agent_req *a, unsigned qpn, const uint8_t *mad,
			     size_t len);

/*
 * The checks of a send by a registered agent: the MAD is mad_len bytes (at
 * least the RMPP header), and mad holds at least MAD_SIZE bytes, zeroes after
 * a shorter MAD (the kernel pads it so); the host port is a switch's port 0
 * (is_switch) or port port_num of an end node.  0 or -EINVAL.
 */
int mad_rules_check_send(const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len,
			 int is_switch, unsigned port_num);

/*
 * Messages the kernel segments (RMPP active, sent by an agent that lets the
 * kernel do RMPP) travel the fabric whole, at their own length, which the
 * receiving kernel gives back when it reassembles them; any other MAD is
 * one MAD on the wire, padded to MAD_SIZE.
 *
 * mad_rules_send_len: the length a checked send travels with.
 * mad_rules_arrival_len: the same judged from the message alone, for one
 * that reaches a fabric already sized so (an RMPP-active message shorter
 * than one MAD can only be a whole one).
 */
size_t mad_rules_send_len(const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len);
size_t mad_rules_arrival_len(const uint8_t *mad, size_t mad_len);

/*
 * The RMPP header (the first RMPP_HDR_END bytes, into out) that a receiver's
 * kernel shows on a whole message of len bytes it reassembled: its first
 * segment's, RMPP version 1, DATA, Active and First (Last too when one
 * segment held it), segment 1, PayloadLength the whole payload.
 */
void mad_rules_rmpp_whole_header(uint8_t *out, const uint8_t *msg, size_t len);

#endif /* UMAD_BASE_MAD_RULES_H */
