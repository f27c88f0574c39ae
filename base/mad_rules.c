/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The kernel's registration and send rules for user-space ports (see mad_rules.h). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "base/mad_rules.h"
#include "base/mad_wire.h"

/* Class versions a registration may name: 0..7. */
#define MAX_CLASS_VERSION	8
/* Classes below this may be registered; above it only the directed-route SMP class. */
#define FIRST_UNREGISTRABLE_CLASS (UMAD_CLASS_VENDOR_RANGE2_END + 1)

int mad_rules_check_registration(struct umad_agent_req *req)
{
	uint8_t mgmt_class = req->mgmt_class;

	if (req->qpn > QP1_GSI)
		return -EINVAL;
	if (!req->legacy) {
		if (req->flags & ~(uint32_t)UMAD_USER_RMPP) {
			req->flags = UMAD_USER_RMPP;	/* the kernel writes back what it supports */
			return -EINVAL;
		}
		if (req->oui & 0xff000000u)
			return -EINVAL;
	}
	if (req->rmpp_version && req->rmpp_version != UMAD_RMPP_VERSION)
		return -EINVAL;
	if (!mgmt_class)	/* a send-only agent */
		return !req->legacy && (req->flags & UMAD_USER_RMPP) ? -EINVAL : 0;
	if (req->mgmt_class_version >= MAX_CLASS_VERSION)
		return -EINVAL;
	if (mgmt_class >= FIRST_UNREGISTRABLE_CLASS && mgmt_class != UMAD_CLASS_SUBN_DIRECTED_ROUTE)
		return -EINVAL;
	if (mad_class_is_vendor_range2(mgmt_class) && !(req->oui & 0xffffffu))
		return -EINVAL;
	if (req->rmpp_version && !mad_class_is_rmpp(mgmt_class))
		return -EINVAL;
	/* SMPs belong to QP0, everything else to QP1. */
	if (mad_class_is_smp(mgmt_class) != (req->qpn == QP0_SMI))
		return -EINVAL;
	return 0;
}

int mad_rules_registrations_conflict(const struct umad_agent_req *a,
				     const struct umad_agent_req *b)
{
	if (!a->mgmt_class || !b->mgmt_class)
		return 0;	/* send-only agents receive nothing unsolicited */
	if (a->qpn != b->qpn || a->mgmt_class != b->mgmt_class ||
	    a->mgmt_class_version != b->mgmt_class_version)
		return 0;
	if (mad_class_is_vendor_range2(a->mgmt_class) &&
	    (a->oui & 0xffffffu) != (b->oui & 0xffffffu))
		return 0;	/* vendor range 2: told apart by OUI */
	return (a->method_mask[0] & b->method_mask[0]) || (a->method_mask[1] & b->method_mask[1]);
}

int mad_rules_agent_receives(const struct umad_agent_req *a, unsigned qpn, const uint8_t *mad,
			     size_t len)
{
	uint8_t method = mad_method(mad);

	if (!a->mgmt_class || a->qpn != qpn || a->mgmt_class != mad_class(mad) ||
	    a->mgmt_class_version != mad[MAD_OFF_CLASS_VERSION])
		return 0;
	if (mad_class_is_vendor_range2(a->mgmt_class) &&
	    (len < VENDOR_HDR_END || (a->oui & 0xffffffu) != get_be24(mad + VENDOR_OFF_OUI)))
		return 0;
	return (int)((a->method_mask[method / 64] >> (method % 64)) & 1);
}

/*
 * A directed-route SMP leaving this port (C14-9 going out, C14-13 coming
 * back): the kernel refuses one that its own port would have to drop.
 * Only the step at the sending port is checked; the fabric applies the
 * rest hop by hop.
 */
static int dr_smp_may_leave(const uint8_t *mad, int is_switch, unsigned port_num)
{
	unsigned hop_cnt = mad[SMP_OFF_HOP_CNT], hop_ptr = mad[SMP_OFF_HOP_PTR];
	int returning = mad_status(mad) & UMAD_SMP_DIRECTION;
	uint16_t dr_slid = get_be16(mad + SMP_OFF_DR_SLID);
	uint16_t dr_dlid = get_be16(mad + SMP_OFF_DR_DLID);

	/* Only an SMP whose directed part starts (or ends) here is checked. */
	if ((returning ? dr_dlid : dr_slid) != LID_PERMISSIVE)
		return 1;
	if (hop_cnt >= UMAD_SMP_MAX_HOPS)
		return 0;
	if (!returning) {
		const uint8_t *initial = mad + SMP_OFF_INITIAL_PATH;	/* [hop]: the port out */

		if (hop_cnt && hop_ptr == 0)
			return is_switch || initial[1] == port_num;
		if (hop_ptr && hop_ptr < hop_cnt)
			return is_switch;
		if (hop_ptr == hop_cnt)
			return is_switch || dr_dlid == LID_PERMISSIVE;
		return hop_ptr == hop_cnt + 1;
	}
	if (hop_cnt && hop_ptr == hop_cnt + 1)
		return is_switch || mad[SMP_OFF_RETURN_PATH + hop_cnt] == port_num;
	if (hop_ptr >= 2 && hop_ptr <= hop_cnt)
		return is_switch;
	if (hop_ptr == 1)
		return is_switch || dr_slid == LID_PERMISSIVE;
	return hop_ptr == 0;
}

int mad_rules_check_send(const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len,
			 int is_switch, unsigned port_num)
{
	uint8_t mgmt_class = mad_class(mad);
	int kernel_rmpp = mad_rules_kernel_rmpp(agent);
	int rmpp_active = 0;

	/* An agent registered for RMPP sends nothing but RMPP classes. */
	if (agent->rmpp_version && !mad_class_is_rmpp(mgmt_class))
		return -EINVAL;
	if (kernel_rmpp && mad_class_is_rmpp(mgmt_class))
		rmpp_active = mad[RMPP_OFF_FLAGS] & UMAD_RMPP_FLAG_ACTIVE;
	/* Longer than one MAD only when the kernel is to segment it. */
	if (mad_len > MAD_SIZE && !rmpp_active)
		return -EINVAL;
	if (mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE && !dr_smp_may_leave(mad, is_switch, port_num))
		return -EINVAL;
	return 0;
}

/* An RMPP class message with the Active flag, at least its RMPP header long. */
static int rmpp_active(const uint8_t *mad, size_t mad_len)
{
	return mad_len >= RMPP_HDR_END && mad_class_is_rmpp(mad_class(mad)) &&
	       (mad[RMPP_OFF_FLAGS] & UMAD_RMPP_FLAG_ACTIVE);
}

size_t mad_rules_send_len(const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len)
{
	if (mad_len > MAD_SIZE || (mad_rules_kernel_rmpp(agent) && rmpp_active(mad, mad_len)))
		return mad_len;
	return MAD_SIZE;
}

size_t mad_rules_arrival_len(const uint8_t *mad, size_t mad_len)
{
	return mad_len >= MAD_SIZE || rmpp_active(mad, mad_len) ? mad_len : MAD_SIZE;
}

void mad_rules_rmpp_whole_header(uint8_t *out, const uint8_t *msg, size_t len)
{
	size_t head = mad_rmpp_header_len(mad_class(msg));
	size_t room = MAD_SIZE - head, payload = len > head ? len - head : 0;
	uint8_t flags = UMAD_RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST;

	if (payload <= room)
		flags |= RMPP_FLAG_LAST;
	memcpy(out, msg, RMPP_HDR_END);
	out[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
	out[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
	out[RMPP_OFF_FLAGS] = (uint8_t)((msg[RMPP_OFF_FLAGS] & ~RMPP_FLAGS_MASK) | flags);
	out[RMPP_OFF_STATUS] = 0;
	put_be32(out + RMPP_OFF_SEG_NUM, 1);
	put_be32(out + RMPP_OFF_PAYLEN, (uint32_t)(len - RMPP_HDR_END));
}
