/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MultiPathRecord: a SubnAdmGetMulti names SGIDCount source and DGIDCount
 * destination GIDs (after the record's head, over as many RMPP segments
 * as the request took) and the constraints of a PathRecord query; the
 * answer is the PathRecords of every source to every destination, in that
 * order, NumbPath of them at most in all.  The constraints become a
 * PathRecord query, so the paths are the ones sa_path.c finds.  The
 * statuses are opensm's: both counts are needed (else
 * ERR_REQ_INSUFFICIENT_COMPONENTS), neither may be 0 nor name more GIDs
 * than the request holds (ERR_REQ_INVALID), and every GID must name a port
 * of this subnet by a link-local prefix or the subnet's (ERR_REQ_INVALID_GID:
 * a multicast GID, an unknown GUID, a foreign prefix).  IndependenceSelector
 * is not looked at: the simulated subnet has one set of links.
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "simfabric/sa_common.h"

/* Most GIDs a request may name: SGIDCount and DGIDCount are a byte each. */
#define MPR_MAX_GIDS	(2 * 255)

/* A constraint of the MultiPathRecord and the PathRecord component it becomes. */
static const struct {
	mad_field_t from, to;
	uint8_t from_index, to_index;
} constraints[] = {
#define C(mpr, pr)	{ MPR_##mpr, PR_##pr, MPR_##mpr##_INDEX, PR_##pr##_INDEX }
	C(RAW_TRAFFIC, RAW_TRAFFIC), C(FLOW_LABEL, FLOW_LABEL), C(HOP_LIMIT, HOP_LIMIT),
	C(TCLASS, TCLASS), C(REVERSIBLE, REVERSIBLE), C(P_KEY, P_KEY),
	C(QOS_CLASS, QOS_CLASS), C(SL, SL), C(MTU_SELECTOR, MTU_SELECTOR), C(MTU, MTU),
	C(RATE_SELECTOR, RATE_SELECTOR), C(RATE, RATE), C(PKT_LIFE_SELECTOR, PKT_LIFE_SELECTOR),
	C(PKT_LIFE, PKT_LIFE),
#undef C
};

/* The PathRecord query the MultiPathRecord's constraints make: its record and mask. */
static uint64_t path_query(const uint8_t *mpr, uint64_t mask, uint8_t *pr)
{
	uint64_t pr_mask = 0, id;
	size_t i;

	memset(pr, 0, SA_PATH_REC_SIZE);
	for (i = 0; i < sizeof(constraints) / sizeof(constraints[0]); i++) {
		if (!(mask & SA_COMP(constraints[i].from_index)))
			continue;
		mad_set(pr, constraints[i].to, mad_get(mpr, constraints[i].from));
		pr_mask |= SA_COMP(constraints[i].to_index);
	}
	/* The ServiceID comes in two pieces; the path's record carries it whole. */
	if (mask & SA_MPR_COMP_SERVICE_ID) {
		id = mad_get(mpr, MPR_SERVICE_ID_8MSB) << MAD_FIELD_BITS(MPR_SERVICE_ID_56LSB) |
		     mad_get(mpr, MPR_SERVICE_ID_56LSB);
		mad_set(pr, PR_SERVICE_ID, id);
		pr_mask |= SA_PR_COMP_SERVICE_ID;
	}
	return pr_mask;
}

int sa_multipath_not_multi(struct sa_query *q)
{
	(void)q;
	return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
}

int sa_multipath_records(struct sa_query *q)
{
	struct sim_port *ends[MPR_MAX_GIDS];
	const uint8_t *mpr = q->rec, *saved_rec = q->rec;
	uint64_t saved_mask = q->comp_mask;
	uint8_t pr[SA_PATH_REC_SIZE];
	unsigned ns, nd, i, j, limit = UINT_MAX;

	if ((q->comp_mask & (SA_MPR_COMP_SGID_COUNT | SA_MPR_COMP_DGID_COUNT)) !=
	    (SA_MPR_COMP_SGID_COUNT | SA_MPR_COMP_DGID_COUNT))
		return SA_STATUS(UMAD_SA_STATUS_INSUF_COMPS);
	ns = (unsigned)mad_get(mpr, MPR_SGID_COUNT);
	nd = (unsigned)mad_get(mpr, MPR_DGID_COUNT);
	if (!ns || !nd || q->rec_len < SA_MULTI_PATH_REC_HEAD ||
	    (q->rec_len - SA_MULTI_PATH_REC_HEAD) / GID_SIZE < ns + nd)
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	for (i = 0; i < ns + nd; i++) {
		const uint8_t *gid = MAD_AT(mpr, MPR_GIDS) + (size_t)i * GID_SIZE;

		ends[i] = mad_get(gid, MGID_PREFIX) == MGID_PREFIX_BYTE ? NULL :
			  sa_port_by_path_gid(q->sa, gid);
		if (!ends[i])
			return SA_STATUS(UMAD_SA_STATUS_INVALID_GID);
	}
	if (q->comp_mask & SA_MPR_COMP_NUMB_PATH)
		limit = (unsigned)mad_get(mpr, MPR_NUMB_PATH);

	/* The pairs' paths, each found as a PathRecord GetMulti would: q's answer takes them. */
	q->comp_mask = path_query(mpr, saved_mask, pr);
	q->rec = pr;
	for (i = 0; i < ns && limit && !q->error; i++)
		for (j = 0; j < nd && limit && !q->error; j++)
			limit -= sa_paths_between(q, ends[i], ends[ns + j], limit);
	q->rec = saved_rec;
	q->comp_mask = saved_mask;
	return q->error;
}
