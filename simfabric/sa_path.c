/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * PathRecord: the path between two end ports as the switches' LFTs route
 * it, walked hop by hop: the smallest MTU and rate of its links, whether
 * the SL asked for can cross it, whether a route leads back (Reversible),
 * a P_Key both ends share.  The query's selectors (greater, less, exactly,
 * best) for MTU, rate and packet lifetime narrow or pick the values, as
 * the spec's table for PathRecord says.  Ends are named by GID or LID or
 * not at all (every end port); a multicast DGID asks for the group's path.
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "simfabric/route.h"
#include "simfabric/sa_common.h"

/* What a walk found on the links it crossed. */
struct path_walk {
	uint8_t mtu;
	unsigned rate_x10;
	int sl;			/* the SL to check, or -1 */
	int sl_ok;
	unsigned in;		/* the port the walk came into its current node by (0 at the start) */
};

static uint8_t port_mtu(const struct sim_port *p)
{
	return p->neighbor_mtu < p->mtu_cap ? p->neighbor_mtu : p->mtu_cap;
}

static void path_hop(void *arg, const struct sim_port *out, const struct sim_port *in)
{
	struct path_walk *w = arg;
	unsigned rate = sim_port_rate_x10(out);

	if (port_mtu(out) < w->mtu)
		w->mtu = port_mtu(out);
	if (port_mtu(in) < w->mtu)
		w->mtu = port_mtu(in);
	if (rate < w->rate_x10)
		w->rate_x10 = rate;
	/* An SL the table of this input and output port maps to VL15 is dropped there. */
	if (w->sl >= 0 && sim_sl2vl_vl(sim_port_sl2vl(out, w->in), (unsigned)w->sl) == LRH_VL_SMP)
		w->sl_ok = 0;
	w->in = in->num;
}

/* Does the LID route from s to dlid end at port d?  Fills w. */
static int walk(const struct sim_sa *sa, const struct sim_port *s, const struct sim_port *d,
		uint16_t dlid, struct path_walk *w)
{
	struct sim_hop_end end;

	if (sim_route_walk(sa->f, s->node, s->num, dlid, path_hop, w, &end) < 0)
		return 0;
	return end.node == d->node && (d->node->type == NODE_TYPE_SWITCH || end.port == d->num);
}

/* The largest rate below `x10`, or 0. */
static uint8_t rate_below(unsigned x10)
{
	uint8_t r = sa_rate_from_x10(x10 - 1);

	return x10 > 1 && sa_rate_x10(r) < x10 ? r : 0;
}

/*
 * Apply a selector to what the path offers (*have), for the fields whose
 * codes order their values from 1 up (MTU, packet lifetime): 0 when the
 * path cannot satisfy it; "less than" and "exactly" may lower *have to
 * suit.  The fourth selector takes what the path has (the largest MTU, the
 * smallest lifetime).
 */
static int select_ordered(uint8_t sel, uint8_t want, uint8_t *have)
{
	switch (sel) {
	case UMAD_SA_SELECTOR_GREATER_THAN:
		return *have > want;
	case UMAD_SA_SELECTOR_LESS_THAN:
		if (*have < want)
			return 1;
		if (want <= 1)
			return 0;	/* nothing below the first code */
		*have = (uint8_t)(want - 1);
		return 1;
	case UMAD_SA_SELECTOR_EXACTLY:
		if (*have < want)
			return 0;
		*have = want;
		return 1;
	default:
		return 1;
	}
}

static int select_rate(uint8_t sel, uint8_t want, uint8_t *have)
{
	unsigned h = sa_rate_x10(*have), w = sa_rate_x10(want);

	switch (sel) {
	case UMAD_SA_SELECTOR_GREATER_THAN:
		return h > w;
	case UMAD_SA_SELECTOR_LESS_THAN:
		if (h < w)
			return 1;
		*have = rate_below(w);
		return *have != 0;
	case UMAD_SA_SELECTOR_EXACTLY:
		if (h < w || !w)
			return 0;
		*have = want;
		return 1;
	default:
		return 1;
	}
}

/* Both the selector and the value given: the query constrains the field. */
static int constrained(const struct sa_query *q, uint64_t sel_comp, uint64_t value_comp)
{
	return (q->comp_mask & sel_comp) && (q->comp_mask & value_comp);
}

/* The path s -> d between slid and dlid, added when it exists and suits the query. */
static int pair_path(struct sa_query *q, const struct sim_port *s, const struct sim_port *d,
		     uint16_t slid, uint16_t dlid, uint8_t preference)
{
	const uint8_t *r = q->rec;
	uint64_t mask = q->comp_mask;
	struct path_walk w = {
		.mtu = SA_MTU_4096, .rate_x10 = UINT_MAX,
		.sl = (mask & SA_PR_COMP_SL) ? (int)mad_get(r, PR_SL) : -1, .sl_ok = 1,
	};
	struct path_walk back = { .mtu = SA_MTU_4096, .rate_x10 = UINT_MAX, .sl = w.sl, .sl_ok = 1 };
	int reversible;
	uint8_t rec[SA_PATH_REC_SIZE] = { 0 }, mtu, rate, life;
	uint16_t pkey;

	if (!walk(q->sa, s, d, dlid, &w) || !w.sl_ok)
		return 0;
	/* No link crossed (a port to itself): the port's own MTU and rate. */
	if (w.rate_x10 == UINT_MAX) {
		w.mtu = port_mtu(s);
		w.rate_x10 = sim_port_rate_x10(s);
	}
	reversible = walk(q->sa, d, s, slid, &back) && back.sl_ok;
	if ((mask & SA_PR_COMP_REVERSIBLE) && mad_get(r, PR_REVERSIBLE) && !reversible)
		return 0;
	if (mask & SA_PR_COMP_PKEY) {
		pkey = (uint16_t)mad_get(r, PR_P_KEY);
		if (!sa_ports_share_pkey(s, d, pkey))
			return 0;
	} else if (!sa_common_pkey(s, d, 1, &pkey)) {
		return 0;
	}

	mtu = w.mtu;
	rate = sa_rate_from_x10(w.rate_x10);
	/* Loopback paths have lifetime 0; others the subnet timeout, as opensm gives them. */
	life = s == d ? 0 : q->sa->sm_port ? q->sa->sm_port->subnet_timeout : 0;
	if (constrained(q, SA_PR_COMP_MTU_SEL, SA_PR_COMP_MTU) &&
	    !select_ordered((uint8_t)mad_get(r, PR_MTU_SELECTOR), (uint8_t)mad_get(r, PR_MTU), &mtu))
		return 0;
	if (constrained(q, SA_PR_COMP_RATE_SEL, SA_PR_COMP_RATE) &&
	    !select_rate((uint8_t)mad_get(r, PR_RATE_SELECTOR), (uint8_t)mad_get(r, PR_RATE), &rate))
		return 0;
	if (constrained(q, SA_PR_COMP_PKT_LIFE_SEL, SA_PR_COMP_PKT_LIFE) &&
	    !select_ordered((uint8_t)mad_get(r, PR_PKT_LIFE_SELECTOR),
			    (uint8_t)mad_get(r, PR_PKT_LIFE), &life))
		return 0;

	if (mask & SA_PR_COMP_SERVICE_ID)
		mad_field_copy(rec, r, PR_SERVICE_ID);
	/* GIDs as asked (an alias GUID stays), else the ports' own. */
	if (mask & SA_PR_COMP_DGID)
		mad_field_copy(rec, r, PR_DGID);
	else
		sa_port_gid(d, MAD_AT(rec, PR_DGID));
	if (mask & SA_PR_COMP_SGID)
		mad_field_copy(rec, r, PR_SGID);
	else
		sa_port_gid(s, MAD_AT(rec, PR_SGID));
	mad_set(rec, PR_DLID, dlid);
	mad_set(rec, PR_SLID, slid);
	/* Inside the subnet: no hop limit; raw traffic, flow label, traffic class as asked. */
	if (mask & SA_PR_COMP_RAW_TRAFFIC)
		mad_set(rec, PR_RAW_TRAFFIC, mad_get(r, PR_RAW_TRAFFIC));
	if (mask & SA_PR_COMP_FLOW_LABEL)
		mad_set(rec, PR_FLOW_LABEL, mad_get(r, PR_FLOW_LABEL));
	if (mask & SA_PR_COMP_TCLASS)
		mad_set(rec, PR_TCLASS, mad_get(r, PR_TCLASS));
	/* NumbPath reads back 0: the record says only whether it is reversible. */
	mad_set(rec, PR_REVERSIBLE, reversible);
	mad_set(rec, PR_P_KEY, pkey);
	mad_set(rec, PR_SL, w.sl >= 0 ? (unsigned)w.sl : 0);
	sa_put_exactly(rec, PR_MTU_SELECTOR, PR_MTU, mtu);
	sa_put_exactly(rec, PR_RATE_SELECTOR, PR_RATE, rate);
	sa_put_exactly(rec, PR_PKT_LIFE_SELECTOR, PR_PKT_LIFE, life);
	mad_set(rec, PR_PREFERENCE, preference);
	return sa_add(q, rec) == 0;
}

static void lid_range(const struct sim_port *p, uint16_t *lo, uint16_t *hi)
{
	uint8_t lmc = p->node->type == NODE_TYPE_SWITCH ? 0 : p->lmc;

	*lo = p->lid;
	*hi = (uint16_t)(p->lid + (1u << lmc) - 1);
}

/*
 * The paths between two ports: with an LMC, the LID pairs that differ in
 * both ends first (preference 0), then the rest (preference 2); up to limit.
 */
unsigned sa_paths_between(struct sa_query *q, const struct sim_port *s, const struct sim_port *d,
			  unsigned limit)
{
	uint16_t slo, shi, dlo, dhi;
	unsigned found = 0, i, a, b;

	lid_range(s, &slo, &shi);
	lid_range(d, &dlo, &dhi);
	if (q->comp_mask & SA_PR_COMP_SLID)
		slo = shi = (uint16_t)mad_get(q->rec, PR_SLID);
	if (q->comp_mask & SA_PR_COMP_DLID)
		dlo = dhi = (uint16_t)mad_get(q->rec, PR_DLID);

	for (i = 0; slo + i <= shi && dlo + i <= dhi && found < limit && !sa_done(q); i++)
		found += (unsigned)pair_path(q, s, d, (uint16_t)(slo + i), (uint16_t)(dlo + i), 0);
	for (a = slo; a <= shi && found < limit && !sa_done(q); a++)
		for (b = dlo; b <= dhi && found < limit && !sa_done(q); b++)
			if (a - slo != b - dlo)
				found += (unsigned)pair_path(q, s, d, (uint16_t)a, (uint16_t)b, 2);
	return found;
}

/* As many paths between two ports as NumbPath asks, one for a Get. */
static void port_pair_paths(struct sa_query *q, const struct sim_port *s,
			    const struct sim_port *d)
{
	unsigned limit = UINT_MAX;

	if (q->method == UMAD_METHOD_GET)
		limit = 1;
	else if (q->comp_mask & SA_PR_COMP_NUMB_PATH)
		limit = (unsigned)mad_get(q->rec, PR_NUMB_PATH);
	sa_paths_between(q, s, d, limit);
}

/* The path from a port to a multicast group: the group's parameters, its MLID. */
static int mcast_path(struct sa_query *q, const struct sim_port *s)
{
	const struct sa_group *g = sa_group_by_mgid(q->sa, MAD_AT(q->rec, PR_DGID));
	uint8_t rec[SA_PATH_REC_SIZE] = { 0 };
	const uint8_t *m;

	if (!g || !s)
		return 0;
	m = g->rec;
	memcpy(MAD_AT(rec, PR_DGID), MAD_AT(m, MCR_MGID), GID_SIZE);
	sa_port_gid(s, MAD_AT(rec, PR_SGID));
	mad_set(rec, PR_DLID, g->mlid);
	mad_set(rec, PR_SLID, s->lid);
	mad_set(rec, PR_FLOW_LABEL, mad_get(m, MCR_FLOW_LABEL));
	mad_set(rec, PR_HOP_LIMIT, mad_get(m, MCR_HOP_LIMIT));
	mad_set(rec, PR_TCLASS, mad_get(m, MCR_TCLASS));
	mad_set(rec, PR_NUMB_PATH, 1);
	mad_set(rec, PR_P_KEY, mad_get(m, MCR_P_KEY));
	mad_set(rec, PR_SL, mad_get(m, MCR_SL));
	mad_set(rec, PR_MTU_SELECTOR, mad_get(m, MCR_MTU_SELECTOR));
	mad_set(rec, PR_MTU, mad_get(m, MCR_MTU));
	mad_set(rec, PR_RATE_SELECTOR, mad_get(m, MCR_RATE_SELECTOR));
	mad_set(rec, PR_RATE, mad_get(m, MCR_RATE));
	mad_set(rec, PR_PKT_LIFE_SELECTOR, mad_get(m, MCR_PKT_LIFE_SELECTOR));
	mad_set(rec, PR_PKT_LIFE, mad_get(m, MCR_PKT_LIFE));
	return sa_add(q, rec);
}

/*
 * An end the query names by GID and/or LID: 1 with *p (NULL: any), 0 for
 * none, or a status.  A GID of another subnet has no end here (no router
 * leads out of the simulated subnet): no paths, as opensm answers.
 */
static int query_end(struct sa_query *q, uint64_t gid_comp, mad_field_t gid, uint64_t lid_comp,
		     mad_field_t lid, struct sim_port **p)
{
	*p = NULL;
	if (q->comp_mask & gid_comp) {
		const uint8_t *g = MAD_AT(q->rec, gid);

		*p = sa_port_by_path_gid(q->sa, g);
		if (!*p && !sa_gid_link_local(g) && q->sa->sm_port &&
		    mad_get(g, GID_PREFIX) != sim_mgmt_port(q->sa->sm_port->node,
							    q->sa->sm_port->num)->gid_prefix)
			return 0;
		if (!*p)
			return SA_STATUS(UMAD_SA_STATUS_INVALID_GID);
	}
	if (q->comp_mask & lid_comp) {
		struct sim_port *by_lid = sa_port_by_lid(q->sa, (uint16_t)mad_get(q->rec, lid));

		if (!by_lid || (*p && *p != by_lid))
			return 0;
		*p = by_lid;
	}
	return 1;
}

int sa_path_records(struct sa_query *q)
{
	struct sim_port *src, *dst, *s, *d;
	size_t sn = 0, dn;
	unsigned sp = 0, dp;
	int r;

	q->comps = NULL;
	r = query_end(q, SA_PR_COMP_SGID, PR_SGID, SA_PR_COMP_SLID, PR_SLID, &src);
	if (r != 1)
		return r;
	if ((q->comp_mask & SA_PR_COMP_DGID) &&
	    mad_get(MAD_AT(q->rec, PR_DGID), MGID_PREFIX) == MGID_PREFIX_BYTE)
		return mcast_path(q, src ? src : sa_requester_port(q));
	r = query_end(q, SA_PR_COMP_DGID, PR_DGID, SA_PR_COMP_DLID, PR_DLID, &dst);
	if (r != 1)
		return r;
	for (s = src ? src : sa_next_end_port(q->sa, &sn, &sp); s && !sa_done(q);
	     s = src ? NULL : sa_next_end_port(q->sa, &sn, &sp)) {
		dn = 0;
		dp = 0;
		for (d = dst ? dst : sa_next_end_port(q->sa, &dn, &dp); d && !sa_done(q);
		     d = dst ? NULL : sa_next_end_port(q->sa, &dn, &dp))
			port_pair_paths(q, s, d);
	}
	return q->error;
}
