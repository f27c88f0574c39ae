/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The kernel's registration and send rules for user-space ports (see mad_rules.h). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <infiniband/umad_sm.h>
#include <infiniband/umad_types.h>

#include "backends/mad_rules.h"

/* Class versions a registration may name: 0..7. */
#define MAX_CLASS_VERSION	8
/* Classes below this may be registered; above it only the directed-route SMP class. */
#define FIRST_UNREGISTRABLE_CLASS 0x50
/* BM: bit 0 of the attribute modifier marks a response. */
#define BM_ATTR_MOD_RESPONSE	1u
/* RMPP header fields, after the common MAD header. */
#define RMPP_FLAGS_OFFSET	(sizeof(struct umad_hdr) + offsetof(struct umad_rmpp_hdr, rmpp_rtime_flags))
/* SMP fields. */
#define SMP_STATUS_OFFSET	offsetof(struct umad_smp, status)
#define SMP_HOP_PTR_OFFSET	offsetof(struct umad_smp, hop_ptr)
#define SMP_HOP_CNT_OFFSET	offsetof(struct umad_smp, hop_cnt)
#define SMP_DR_SLID_OFFSET	offsetof(struct umad_smp, dr_slid)
#define SMP_DR_DLID_OFFSET	offsetof(struct umad_smp, dr_dlid)
#define SMP_INITIAL_PATH_OFFSET	offsetof(struct umad_smp, initial_path)
#define SMP_RETURN_PATH_OFFSET	offsetof(struct umad_smp, return_path)
#define LID_PERMISSIVE		0xffff

int mad_rules_class_is_rmpp(uint8_t mgmt_class)
{
	return mgmt_class == UMAD_CLASS_SUBN_ADM || mgmt_class == UMAD_CLASS_DEVICE_MGMT ||
	       mgmt_class == UMAD_CLASS_DEVICE_ADM || mgmt_class == UMAD_CLASS_BIS ||
	       (mgmt_class >= UMAD_CLASS_VENDOR_RANGE2_START &&
		mgmt_class <= UMAD_CLASS_VENDOR_RANGE2_END);
}

int mad_rules_class_is_smp(uint8_t mgmt_class)
{
	return mgmt_class == UMAD_CLASS_SUBN_LID_ROUTED ||
	       mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE;
}

static int is_vendor_range2(uint8_t mgmt_class)
{
	return mgmt_class >= UMAD_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= UMAD_CLASS_VENDOR_RANGE2_END;
}

int mad_rules_method_is_response(uint8_t mgmt_class, uint8_t method, uint32_t attr_mod)
{
	return (method & UMAD_METHOD_RESP_MASK) || method == UMAD_METHOD_TRAP_REPRESS ||
	       (mgmt_class == UMAD_CLASS_BM && (attr_mod & BM_ATTR_MOD_RESPONSE));
}

int mad_rules_check_registration(struct umad_agent_req *req)
{
	uint8_t mgmt_class = req->mgmt_class;

	if (req->qpn > 1)
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
	if (is_vendor_range2(mgmt_class) && !(req->oui & 0xffffffu))
		return -EINVAL;
	if (req->rmpp_version && !mad_rules_class_is_rmpp(mgmt_class))
		return -EINVAL;
	/* SMPs belong to QP0, everything else to QP1. */
	if (mad_rules_class_is_smp(mgmt_class) != (req->qpn == 0))
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
	if (is_vendor_range2(a->mgmt_class) && (a->oui & 0xffffffu) != (b->oui & 0xffffffu))
		return 0;	/* vendor range 2: told apart by OUI */
	return (a->method_mask[0] & b->method_mask[0]) || (a->method_mask[1] & b->method_mask[1]);
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * A directed-route SMP leaving this port (C14-9 going out, C14-13 coming
 * back): the kernel refuses one that its own port would have to drop.
 * Only the step at the sending port is checked; the fabric applies the
 * rest hop by hop.
 */
static int dr_smp_may_leave(const uint8_t *mad, int is_switch, unsigned port_num)
{
	unsigned hop_cnt = mad[SMP_HOP_CNT_OFFSET], hop_ptr = mad[SMP_HOP_PTR_OFFSET];
	int returning = get_be16(mad + SMP_STATUS_OFFSET) & UMAD_SMP_DIRECTION;
	uint16_t dr_slid = get_be16(mad + SMP_DR_SLID_OFFSET);
	uint16_t dr_dlid = get_be16(mad + SMP_DR_DLID_OFFSET);

	/* Only an SMP whose directed part starts (or ends) here is checked. */
	if ((returning ? dr_dlid : dr_slid) != LID_PERMISSIVE)
		return 1;
	if (hop_cnt >= UMAD_SMP_MAX_HOPS)
		return 0;
	if (!returning) {
		if (hop_cnt && hop_ptr == 0)
			return is_switch || mad[SMP_INITIAL_PATH_OFFSET + 1] == port_num;
		if (hop_ptr && hop_ptr < hop_cnt)
			return is_switch;
		if (hop_ptr == hop_cnt)
			return is_switch || dr_dlid == LID_PERMISSIVE;
		return hop_ptr == hop_cnt + 1;
	}
	if (hop_cnt && hop_ptr == hop_cnt + 1)
		return is_switch || mad[SMP_RETURN_PATH_OFFSET + hop_cnt] == port_num;
	if (hop_ptr >= 2 && hop_ptr <= hop_cnt)
		return is_switch;
	if (hop_ptr == 1)
		return is_switch || dr_slid == LID_PERMISSIVE;
	return hop_ptr == 0;
}

int mad_rules_check_send(const struct umad_agent_req *agent, const uint8_t *mad, size_t mad_len,
			 int is_switch, unsigned port_num)
{
	uint8_t mgmt_class = mad[offsetof(struct umad_hdr, mgmt_class)];
	int kernel_rmpp = agent->rmpp_version && !(agent->flags & UMAD_USER_RMPP);
	int rmpp_active = 0;

	/* An agent registered for RMPP sends nothing but RMPP classes. */
	if (agent->rmpp_version && !mad_rules_class_is_rmpp(mgmt_class))
		return -EINVAL;
	if (kernel_rmpp && mad_rules_class_is_rmpp(mgmt_class))
		rmpp_active = mad[RMPP_FLAGS_OFFSET] & UMAD_RMPP_FLAG_ACTIVE;
	/* Longer than one MAD only when the kernel is to segment it. */
	if (mad_len > MAD_RULES_MAD_SIZE && !rmpp_active)
		return -EINVAL;
	if (mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE && !dr_smp_may_leave(mad, is_switch, port_num))
		return -EINVAL;
	return 0;
}
