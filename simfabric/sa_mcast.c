/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MCMemberRecord: multicast groups keyed by MGID.  A Set joins (creating
 * the group when a full member asks with every component creation needs),
 * a Delete leaves, Get/GetTable query.  A group lives while it has a full
 * member (IPoIB's broadcast group stays without).  MLIDs are handed out
 * lowest free first from the first multicast LID; every membership change
 * goes to the owner's mcast_changed hook so it can program the MFTs, and a
 * group's first full member and its last raise traps 66 and 67 to
 * subscribers.  The checks follow the spec's rules for joins and leaves
 * (o15-0.1.x, o15-0.2.x) in opensm's order and with its statuses, and so
 * does the IPoIB rule; doc/sim-subnet.md lists what differs.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simfabric/sa_common.h"

/* What a join, a leave and a creation must name. */
#define JOIN_COMPS	(UMAD_SA_MCM_COMP_MASK_MGID | UMAD_SA_MCM_COMP_MASK_PORT_GID | \
			 UMAD_SA_MCM_COMP_MASK_JOIN_STATE)
#define CREATE_COMPS	(JOIN_COMPS | UMAD_SA_MCM_COMP_MASK_QKEY | UMAD_SA_MCM_COMP_MASK_TCLASS | \
			 UMAD_SA_MCM_COMP_MASK_PKEY | UMAD_SA_MCM_COMP_MASK_FLOW_LABEL | \
			 UMAD_SA_MCM_COMP_MASK_SL)

#define FULL_STATES	(UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER | \
			 UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_FULL_MEMBER)

/* The port GUID of a GID (a member's PortGID). */
static uint64_t gid_guid(const uint8_t *gid)
{
	return mad_get(gid, GID_GUID);
}

static int is_full(uint8_t join_state)
{
	return (join_state & FULL_STATES) != 0;
}

/* --- groups --------------------------------------------------------------------------- */

struct sa_group *sa_group_by_mgid(const struct sim_sa *sa, const uint8_t *mgid)
{
	size_t i;

	for (i = 0; i < sa->n_groups; i++)
		if (!memcmp(MAD_AT(sa->groups[i].rec, MCR_MGID), mgid, GID_SIZE))
			return &sa->groups[i];
	return NULL;
}

static struct sa_group *group_by_mlid(const struct sim_sa *sa, uint16_t mlid)
{
	size_t i;

	for (i = 0; i < sa->n_groups; i++)
		if (sa->groups[i].mlid == mlid)
			return &sa->groups[i];
	return NULL;
}

/* The MLID for a new group: the one asked for if free, else the lowest free one; 0: none. */
static uint16_t free_mlid(const struct sim_sa *sa, uint16_t wanted)
{
	unsigned mlid;

	if (wanted >= LID_MCAST_START && wanted < LID_MCAST_START + SIM_MFT_CAP &&
	    !group_by_mlid(sa, wanted))
		return wanted;
	for (mlid = LID_MCAST_START; mlid < LID_MCAST_START + SIM_MFT_CAP; mlid++)
		if (!group_by_mlid(sa, (uint16_t)mlid))
			return (uint16_t)mlid;
	return 0;
}

/* Insert a group, the array kept in MLID order; NULL on ENOMEM. */
static struct sa_group *add_group(struct sim_sa *sa, const uint8_t *rec, uint16_t mlid)
{
	struct sa_group *g;
	size_t at;

	if (sa->n_groups == sa->cap_groups) {
		size_t cap = sa->cap_groups ? sa->cap_groups * 2 : 8;
		struct sa_group *grown = realloc(sa->groups, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		sa->groups = grown;
		sa->cap_groups = cap;
	}
	for (at = 0; at < sa->n_groups && sa->groups[at].mlid < mlid; at++)
		;
	memmove(&sa->groups[at + 1], &sa->groups[at], (sa->n_groups - at) * sizeof(*g));
	sa->n_groups++;
	g = &sa->groups[at];
	memset(g, 0, sizeof(*g));
	memcpy(g->rec, rec, SA_MCMEMBER_REC_SIZE);
	/* A member's parts are not the group's. */
	memset(MAD_AT(g->rec, MCR_PORT_GID), 0, MAD_FIELD_SIZE(MCR_PORT_GID));
	mad_set(g->rec, MCR_JOIN_STATE, 0);
	mad_set(g->rec, MCR_PROXY_JOIN, 0);
	mad_set(g->rec, MCR_RESERVED_49, 0);
	mad_set(g->rec, MCR_MLID, mlid);
	g->mlid = mlid;
	return g;
}

static void remove_group(struct sim_sa *sa, struct sa_group *g)
{
	size_t at = (size_t)(g - sa->groups);

	free(g->members);
	memmove(g, g + 1, (sa->n_groups - at - 1) * sizeof(*g));
	sa->n_groups--;
}

static struct sa_member *find_member(const struct sa_group *g, uint64_t guid)
{
	size_t i;

	for (i = 0; i < g->n_members; i++)
		if (gid_guid(g->members[i].gid) == guid)
			return &g->members[i];
	return NULL;
}

/* Room for one more member, in the group and in the hook's list; -ENOMEM. */
static int member_room(struct sim_sa *sa, struct sa_group *g)
{
	if (g->n_members == g->cap_members) {
		size_t cap = g->cap_members ? g->cap_members * 2 : 4;
		struct sa_member *grown = realloc(g->members, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		g->members = grown;
		g->cap_members = cap;
	}
	if (sa->cap_member_buf < g->n_members + 1) {
		size_t cap = g->cap_members;
		struct sim_port **grown = realloc(sa->member_buf, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		sa->member_buf = grown;
		sa->cap_member_buf = cap;
	}
	return 0;
}

/* Tell the owner who is in the group at mlid now (g NULL: the group is gone). */
static void members_changed(struct sim_sa *sa, uint16_t mlid, const struct sa_group *g)
{
	size_t i, n = g ? g->n_members : 0;

	if (!sa->hooks.mcast_changed)
		return;
	for (i = 0; i < n; i++)
		sa->member_buf[i] = g->members[i].port;
	sa->hooks.mcast_changed(sa->hooks.arg, mlid, sa->member_buf, n);
}

int sa_mcast_init(struct sim_sa *sa)
{
	uint8_t rec[SA_MCMEMBER_REC_SIZE] = { 0 };
	struct sa_group *g;
	uint8_t life = sa->sm_port ? sa->sm_port->subnet_timeout : 0;

	/* IPoIB's broadcast group of the default partition, as opensm makes it. */
	mad_set(MAD_AT(rec, MCR_MGID), GID_PREFIX, IPOIB_BCAST_MGID_HIGH);
	mad_set(MAD_AT(rec, MCR_MGID), GID_GUID, IPOIB_BCAST_MGID_LOW);
	mad_set(rec, MCR_Q_KEY, IPOIB_QKEY);
	sa_put_exactly(rec, MCR_MTU_SELECTOR, MCR_MTU, SA_MTU_2048);
	mad_set(rec, MCR_P_KEY, PKEY_DEFAULT);
	sa_put_exactly(rec, MCR_RATE_SELECTOR, MCR_RATE, SA_RATE_10_GBPS);
	sa_put_exactly(rec, MCR_PKT_LIFE_SELECTOR, MCR_PKT_LIFE, life);
	mad_set(rec, MCR_SCOPE, UMAD_SA_MCM_ADDR_SCOPE_LINK_LOCAL);
	g = add_group(sa, rec, LID_MCAST_START);
	if (!g)
		return -ENOMEM;
	g->permanent = 1;
	return 0;
}

void sa_mcast_free(struct sim_sa *sa)
{
	size_t i;

	for (i = 0; i < sa->n_groups; i++)
		free(sa->groups[i].members);
	free(sa->groups);
	free(sa->member_buf);
}

size_t sim_sa_mcast_members(const struct sim_sa *sa, uint16_t mlid, struct sim_port **out,
			    size_t max)
{
	const struct sa_group *g = group_by_mlid(sa, mlid);
	size_t i;

	if (!g)
		return 0;
	for (i = 0; i < g->n_members && i < max; i++)
		out[i] = g->members[i].port;
	return g->n_members;
}

/* --- checks shared by joins, leaves and queries ---------------------------------------- */

/* The components the query names that the group does not have (o15-0.2.4 item 5). */
static int other_fields_match(const struct sa_query *q, const uint8_t *grec)
{
	const uint8_t *r = q->rec;
	uint64_t mask = q->comp_mask;

	if ((mask & UMAD_SA_MCM_COMP_MASK_QKEY) && !mad_field_equal(r, grec, MCR_Q_KEY))
		return 0;
	/* The same partition, and not two limited members. */
	if ((mask & UMAD_SA_MCM_COMP_MASK_PKEY) &&
	    !pkey_match((uint16_t)mad_get(r, MCR_P_KEY), (uint16_t)mad_get(grec, MCR_P_KEY)))
		return 0;
	if ((mask & UMAD_SA_MCM_COMP_MASK_TCLASS) && !mad_field_equal(r, grec, MCR_TCLASS))
		return 0;
	if ((mask & UMAD_SA_MCM_COMP_MASK_SL) && !mad_field_equal(r, grec, MCR_SL))
		return 0;
	if ((mask & UMAD_SA_MCM_COMP_MASK_FLOW_LABEL) && !mad_field_equal(r, grec, MCR_FLOW_LABEL))
		return 0;
	if ((mask & UMAD_SA_MCM_COMP_MASK_HOP_LIMIT) && !mad_field_equal(r, grec, MCR_HOP_LIMIT))
		return 0;
	return 1;
}

/* A selector of the query, given how the group's value compares with the query's (-1, 0, 1). */
static int selector_holds(uint8_t sel, int group_vs_query)
{
	switch (sel) {
	case UMAD_SA_SELECTOR_GREATER_THAN:
		return group_vs_query > 0;
	case UMAD_SA_SELECTOR_LESS_THAN:
		return group_vs_query < 0;
	case UMAD_SA_SELECTOR_EXACTLY:
		return group_vs_query == 0;
	default:
		return 1;
	}
}

static int compare(unsigned a, unsigned b)
{
	return (a > b) - (a < b);
}

/*
 * MTU and rate selectors the query gives, against the group's.  A selector
 * counts without its value's component (the value is then what the record
 * holds), as in opensm.
 */
static int selectors_match(const struct sa_query *q, const uint8_t *grec)
{
	const uint8_t *r = q->rec;

	if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_MTU_SEL) &&
	    !selector_holds((uint8_t)mad_get(r, MCR_MTU_SELECTOR),
			    compare((unsigned)mad_get(grec, MCR_MTU),
				    (unsigned)mad_get(r, MCR_MTU))))
		return 0;
	if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_RATE_SEL) &&
	    !selector_holds((uint8_t)mad_get(r, MCR_RATE_SELECTOR),
			    sa_rate_cmp((uint8_t)mad_get(grec, MCR_RATE),
					(uint8_t)mad_get(r, MCR_RATE))))
		return 0;
	return 1;
}

static uint8_t port_mtu(const struct sim_port *p)
{
	return p->neighbor_mtu < p->mtu_cap ? p->neighbor_mtu : p->mtu_cap;
}

static uint8_t port_rate(const struct sim_port *p)
{
	return sa_rate_from_x10(sim_port_rate_x10(p));
}

/* Can the port carry the group's traffic (its MTU and rate at least the group's)? */
static int port_fits(const struct sim_port *p, const uint8_t *grec)
{
	return port_mtu(p) >= mad_get(grec, MCR_MTU) &&
	       sa_rate_cmp(port_rate(p), (uint8_t)mad_get(grec, MCR_RATE)) >= 0;
}

/* MTU and rate given with a selector must be encodings that exist. */
static int values_valid(const struct sa_query *q)
{
	uint64_t mtu = mad_get(q->rec, MCR_MTU);

	if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_MTU_SEL) &&
	    (q->comp_mask & UMAD_SA_MCM_COMP_MASK_MTU) && (mtu < SA_MTU_256 || mtu > SA_MTU_4096))
		return 0;
	if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_RATE_SEL) &&
	    (q->comp_mask & UMAD_SA_MCM_COMP_MASK_RATE) &&
	    !sa_rate_x10((uint8_t)mad_get(q->rec, MCR_RATE)))
		return 0;
	return 1;
}

/* The PortGID's prefix must be the subnet's (or the link-local one). */
static int port_gid_prefix_ok(const struct sim_sa *sa, const uint8_t *gid)
{
	uint64_t prefix = mad_get(gid, GID_PREFIX);
	const struct sim_port *sm = sa->sm_port;

	return prefix == GID_PREFIX_LINK_LOCAL ||
	       (sm && prefix == sim_mgmt_port(sm->node, sm->num)->gid_prefix);
}

/*
 * May the requester change this member (o15-0.2.1)?  One that joined for
 * itself only by itself; one joined by proxy by any port of its partition.
 */
static int may_modify(const struct sa_group *g, const struct sa_member *m,
		      const struct sim_port *requester)
{
	if (!m->proxy)
		return requester == m->port;
	return sa_port_has_pkey(requester, (uint16_t)mad_get(g->rec, MCR_P_KEY), 0);
}

/* --- creation ------------------------------------------------------------------------------- */

/*
 * A requested MGID: multicast, reserved flags clear, the SA's signature not
 * link-local (link-local ones are the SA's own making); IPoIB's signatures
 * are taken as they come.
 */
static int mgid_valid(const uint8_t *mgid)
{
	uint64_t signature = mad_get(mgid, MGID_SIGNATURE);

	if (mad_get(mgid, MGID_PREFIX) != MGID_PREFIX_BYTE)
		return 0;
	if (signature == MGID_SIGNATURE_IPV4 || signature == MGID_SIGNATURE_IPV6)
		return 1;
	if (mad_get(mgid, MGID_FLAGS) & ~MGID_FLAG_TRANSIENT)
		return 0;
	return !(signature == MGID_SIGNATURE_SA &&
		 mad_get(mgid, MGID_SCOPE) == UMAD_SA_MCM_ADDR_SCOPE_LINK_LOCAL);
}

/*
 * An MGID of the SA's making: transient, the scope asked for (else
 * link-local, which no requester may ask for under this signature), the SA
 * signature, the subnet prefix, a counter.
 */
static int make_mgid(struct sim_sa *sa, const struct sa_query *q, uint8_t *mgid)
{
	uint8_t scope = UMAD_SA_MCM_ADDR_SCOPE_LINK_LOCAL;
	uint64_t prefix = sa->sm_port ? sim_mgmt_port(sa->sm_port->node, sa->sm_port->num)->gid_prefix
				      : GID_PREFIX_LINK_LOCAL;
	unsigned tries;

	if (q->comp_mask & UMAD_SA_MCM_COMP_MASK_SCOPE)
		scope = (uint8_t)mad_get(q->rec, MCR_SCOPE);
	for (tries = 0; tries < SIM_MFT_CAP * 2; tries++) {
		mad_set(mgid, MGID_PREFIX, MGID_PREFIX_BYTE);
		mad_set(mgid, MGID_FLAGS, MGID_FLAG_TRANSIENT);
		mad_set(mgid, MGID_SCOPE, scope);
		mad_set(mgid, MGID_SIGNATURE, MGID_SIGNATURE_SA);
		mad_set(mgid, MGID_SA_PREFIX, prefix);
		mad_set(mgid, MGID_SA_COUNTER, sa->mgid_counter++);
		if (!sa_group_by_mgid(sa, mgid))
			return 1;
	}
	return 0;
}

/*
 * The IPoIB rule: a group under IPoIB's signatures belongs to the IPoIB link
 * of the partition and scope its MGID names.  Unless it is that link's
 * broadcast group itself, the broadcast group must exist and agree with the
 * components the request names.  A status, 0 when the rule holds.
 */
static int ipoib_rule(const struct sa_query *q, const uint8_t *mgid)
{
	uint64_t signature = mad_get(mgid, MGID_SIGNATURE);
	const struct sa_group *bcast;
	uint8_t bcast_mgid[GID_SIZE];

	if (signature != MGID_SIGNATURE_IPV4 && signature != MGID_SIGNATURE_IPV6)
		return 0;
	mad_set(bcast_mgid, GID_PREFIX, IPOIB_BCAST_MGID_HIGH);
	mad_set(bcast_mgid, GID_GUID, IPOIB_BCAST_MGID_LOW);
	mad_set(bcast_mgid, MGID_SCOPE, mad_get(mgid, MGID_SCOPE));
	mad_set(bcast_mgid, IPOIB_MGID_P_KEY, mad_get(mgid, IPOIB_MGID_P_KEY));
	if (!memcmp(bcast_mgid, mgid, GID_SIZE))
		return 0;
	bcast = sa_group_by_mgid(q->sa, bcast_mgid);
	if (!bcast || !other_fields_match(q, bcast->rec))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	return 0;
}

/*
 * The MTU and rate of a group a port creates: the port's, or what the
 * query's selector makes of its value: greater than it, the port's when the
 * port's is greater; less than it, the port's when that is less, else the
 * next below the value; exactly the value.  0 when that is no MTU or rate.
 */
static int realizable(const struct sa_query *q, const struct sim_port *p, uint8_t *mtu,
		      uint8_t *rate)
{
	const uint8_t *r = q->rec;
	uint8_t sel, want;

	*mtu = port_mtu(p);
	if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_MTU) &&
	    (q->comp_mask & UMAD_SA_MCM_COMP_MASK_MTU_SEL) &&
	    (sel = (uint8_t)mad_get(r, MCR_MTU_SELECTOR)) != UMAD_SA_SELECTOR_LARGEST_AVAIL) {
		want = (uint8_t)mad_get(r, MCR_MTU);
		if (sel == UMAD_SA_SELECTOR_GREATER_THAN) {
			if (want >= *mtu)
				return 0;
		} else if (sel == UMAD_SA_SELECTOR_LESS_THAN) {
			if (want <= *mtu)
				*mtu = (uint8_t)(want - 1);
		} else {
			*mtu = want;
		}
		if (*mtu < SA_MTU_256 || *mtu > SA_MTU_4096)
			return 0;
	}
	*rate = port_rate(p);
	if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_RATE) &&
	    (q->comp_mask & UMAD_SA_MCM_COMP_MASK_RATE_SEL) &&
	    (sel = (uint8_t)mad_get(r, MCR_RATE_SELECTOR)) != UMAD_SA_SELECTOR_LARGEST_AVAIL) {
		want = (uint8_t)mad_get(r, MCR_RATE);
		if (sel == UMAD_SA_SELECTOR_GREATER_THAN) {
			if (sa_rate_cmp(want, *rate) >= 0)
				return 0;
		} else if (sel == UMAD_SA_SELECTOR_LESS_THAN) {
			if (sa_rate_cmp(want, *rate) <= 0)
				*rate = sa_rate_below(want);
		} else {
			*rate = want;
		}
		if (!sa_rate_x10(*rate))
			return 0;
	}
	return 1;
}

/*
 * A new group from a join's record, as the creator sent it (hop limit,
 * lifetime and scope too, named or not, as opensm keeps them) but for the
 * MGID the SA makes when given none, the MTU and rate realizable on the
 * creator's port, and an MLID (the one the record names if free); a status,
 * 0 with *gp on success.
 */
static int create_group(struct sa_query *q, const struct sim_port *creator, struct sa_group **gp)
{
	struct sim_sa *sa = q->sa;
	uint8_t rec[SA_MCMEMBER_REC_SIZE];
	uint8_t mtu, rate;
	uint16_t mlid;
	int status;

	memcpy(rec, q->rec, sizeof(rec));
	if (!memcmp(MAD_AT(rec, MCR_MGID), (const uint8_t[GID_SIZE]){ 0 }, GID_SIZE)) {
		if (!make_mgid(sa, q, MAD_AT(rec, MCR_MGID)))
			return SA_STATUS(UMAD_SA_STATUS_NO_RESOURCES);
	} else if (!mgid_valid(MAD_AT(rec, MCR_MGID))) {
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	} else if ((status = ipoib_rule(q, MAD_AT(rec, MCR_MGID)))) {
		return status;
	}
	if (!realizable(q, creator, &mtu, &rate))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	mlid = free_mlid(sa, (uint16_t)mad_get(rec, MCR_MLID));
	if (!mlid)
		return SA_STATUS(UMAD_SA_STATUS_NO_RESOURCES);
	sa_put_exactly(rec, MCR_MTU_SELECTOR, MCR_MTU, mtu);
	sa_put_exactly(rec, MCR_RATE_SELECTOR, MCR_RATE, rate);
	mad_set(rec, MCR_PKT_LIFE_SELECTOR, UMAD_SA_SELECTOR_EXACTLY);
	*gp = add_group(sa, rec, mlid);
	return *gp ? 0 : -ENOMEM;
}

/* Does the group have a full member, `except` aside? */
static int has_full_member(const struct sa_group *g, const struct sa_member *except)
{
	size_t i;

	for (i = 0; i < g->n_members; i++)
		if (&g->members[i] != except && is_full(g->members[i].join_state))
			return 1;
	return 0;
}

/* --- Set: join --------------------------------------------------------------------------------- */

/*
 * The answer to a join or leave: the group's parameters, the request's
 * PortGID and ProxyJoin, and the JoinState the member has now (0: it is gone).
 */
static int member_answer(struct sa_query *q, const struct sa_group *g, uint8_t join_state)
{
	uint8_t rec[SA_MCMEMBER_REC_SIZE];

	memcpy(rec, g->rec, sizeof(rec));
	mad_field_copy(rec, q->rec, MCR_PORT_GID);
	mad_set(rec, MCR_JOIN_STATE, join_state);
	mad_set(rec, MCR_PROXY_JOIN, mad_get(q->rec, MCR_PROXY_JOIN));
	return sa_add(q, rec);
}

int sa_mcmember_join(struct sa_query *q)
{
	struct sim_sa *sa = q->sa;
	const uint8_t *r = q->rec;
	uint8_t join = (uint8_t)mad_get(r, MCR_JOIN_STATE);
	struct sim_port *port, *requester;
	struct sa_group *g;
	struct sa_member *m;
	int created = 0, status, changed, had_full;

	if ((q->comp_mask & JOIN_COMPS) != JOIN_COMPS)
		return SA_STATUS(UMAD_SA_STATUS_INSUF_COMPS);
	if (!values_valid(q))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	if (!port_gid_prefix_ok(sa, MAD_AT(r, MCR_PORT_GID)))
		return SA_STATUS(UMAD_SA_STATUS_INVALID_GID);
	port = sa_port_by_guid(sa, gid_guid(MAD_AT(r, MCR_PORT_GID)));
	requester = sa_requester_port(q);
	if (!port || !requester)
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	/* Joining for another port takes a partition of both, one of them a full member. */
	if (port != requester && !sa_common_pkey(requester, port, 1, NULL))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_PKEY) &&
	    !pkey_partition((uint16_t)mad_get(r, MCR_P_KEY)))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);

	g = sa_group_by_mgid(sa, MAD_AT(r, MCR_MGID));
	if (!g) {
		/* Only a full member creates, and only with every component creation needs. */
		if (!is_full(join))
			return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
		if ((q->comp_mask & CREATE_COMPS) != CREATE_COMPS)
			return SA_STATUS(UMAD_SA_STATUS_INSUF_COMPS);
		status = create_group(q, port, &g);
		if (status)
			return status;
		created = 1;
	} else if (!other_fields_match(q, g->rec)) {
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	}
	m = find_member(g, gid_guid(MAD_AT(r, MCR_PORT_GID)));
	/*
	 * The group's MTU and rate must suit the query and the port, the port be
	 * in its partition, and a member be changed by whom may (o15-0.2.1).
	 */
	if (!selectors_match(q, g->rec) || !port_fits(port, g->rec) || !join ||
	    !sa_port_has_pkey(port, (uint16_t)mad_get(g->rec, MCR_P_KEY), 0) ||
	    (m && !may_modify(g, m, requester))) {
		if (created)
			remove_group(sa, g);
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	}
	if (!m && member_room(sa, g) < 0) {
		if (created)
			remove_group(sa, g);
		return SA_STATUS(UMAD_SA_STATUS_NO_RESOURCES);
	}
	/* The answer first: without memory for it, nothing changes. */
	status = member_answer(q, g, (uint8_t)((m ? m->join_state : 0) | join));
	if (status < 0) {
		if (created)
			remove_group(sa, g);
		return status;
	}
	had_full = has_full_member(g, NULL);
	if (!m) {
		m = &g->members[g->n_members++];
		memset(m, 0, sizeof(*m));
		m->port = port;
		memcpy(m->gid, MAD_AT(r, MCR_PORT_GID), sizeof(m->gid));
		m->proxy = port != requester;
	}
	changed = (m->join_state | join) != m->join_state;
	m->join_state |= join;
	if (changed)
		members_changed(sa, g->mlid, g);
	if (!had_full && is_full(m->join_state))
		sa_notice_gid(sa, UMAD_SM_MGID_CREATED_TRAP, MAD_AT(g->rec, MCR_MGID));
	return 0;
}

/* --- Delete: leave ------------------------------------------------------------------------------- */

/*
 * The group's last full member left: the group goes, and its other members
 * with it; IPoIB's broadcast group stays, empty.
 */
static void group_ends(struct sim_sa *sa, struct sa_group *g)
{
	uint8_t mgid[GID_SIZE];
	uint16_t mlid = g->mlid;

	memcpy(mgid, MAD_AT(g->rec, MCR_MGID), sizeof(mgid));
	if (g->permanent) {
		g->n_members = 0;
		members_changed(sa, mlid, g);
	} else {
		remove_group(sa, g);
		members_changed(sa, mlid, NULL);
	}
	sa_notice_gid(sa, UMAD_SM_MGID_DESTROYED_TRAP, mgid);
}

int sa_mcmember_leave(struct sa_query *q)
{
	struct sim_sa *sa = q->sa;
	const uint8_t *r = q->rec;
	uint8_t leave = (uint8_t)mad_get(r, MCR_JOIN_STATE), left;
	struct sim_port *requester;
	struct sa_group *g;
	struct sa_member *m;
	int status, was_full;

	if ((q->comp_mask & JOIN_COMPS) != JOIN_COMPS)
		return SA_STATUS(UMAD_SA_STATUS_INSUF_COMPS);
	if (!values_valid(q))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	if (!port_gid_prefix_ok(sa, MAD_AT(r, MCR_PORT_GID)))
		return SA_STATUS(UMAD_SA_STATUS_INVALID_GID);
	g = sa_group_by_mgid(sa, MAD_AT(r, MCR_MGID));
	requester = sa_requester_port(q);
	if (!g || !requester)
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	m = find_member(g, gid_guid(MAD_AT(r, MCR_PORT_GID)));
	/* o15-0.1.14: a member, leaving states it has (some, and no others), allowed to. */
	if (!m || !(leave & m->join_state) || (leave & ~m->join_state) ||
	    !may_modify(g, m, requester))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);

	/* What it keeps it keeps while it or another member is a full member. */
	left = (uint8_t)(m->join_state & ~leave);
	if (!is_full(left) && !has_full_member(g, m))
		left = 0;
	status = member_answer(q, g, left);
	if (status < 0)
		return status;
	was_full = is_full(m->join_state);
	m->join_state = left;
	if (!left)
		*m = g->members[--g->n_members];
	if (was_full && !has_full_member(g, NULL))
		group_ends(sa, g);
	else
		members_changed(sa, g->mlid, g);
	return 0;
}

/* --- Get, GetTable ------------------------------------------------------------------------------------ */

/* One record of a group: its parameters with a member's PortGID, JoinState, ProxyJoin. */
static void query_record(struct sa_query *q, const struct sa_group *g, const struct sa_member *m)
{
	uint8_t rec[SA_MCMEMBER_REC_SIZE];

	memcpy(rec, g->rec, sizeof(rec));
	if (m) {
		memcpy(MAD_AT(rec, MCR_PORT_GID), m->gid, sizeof(m->gid));
		mad_set(rec, MCR_JOIN_STATE, m->join_state);
		mad_set(rec, MCR_PROXY_JOIN, m->proxy);
	}
	/* Only a trusted requester sees who the members are. */
	if (!q->trusted) {
		memset(MAD_AT(rec, MCR_PORT_GID), 0, MAD_FIELD_SIZE(MCR_PORT_GID));
		mad_set(rec, MCR_JOIN_STATE, 0);
		mad_set(rec, MCR_PROXY_JOIN, 0);
	}
	sa_add(q, rec);
}

/* Do a scope and a join state pass the query's Scope and JoinState components? */
static int scope_state_matches(const struct sa_query *q, uint8_t scope, uint8_t join_state)
{
	if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_SCOPE) && mad_get(q->rec, MCR_SCOPE) != scope)
		return 0;
	return !(q->comp_mask & UMAD_SA_MCM_COMP_MASK_JOIN_STATE) ||
	       mad_get(q->rec, MCR_JOIN_STATE) == join_state;
}

int sa_mcmember_query(struct sa_query *q)
{
	const struct sim_port *requester = sa_requester_port(q);
	const uint8_t *r = q->rec;
	size_t i, k;

	q->comps = NULL;
	if (!values_valid(q))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	for (i = 0; i < q->sa->n_groups && !sa_done(q); i++) {
		const struct sa_group *g = &q->sa->groups[i];
		uint8_t scope = (uint8_t)mad_get(g->rec, MCR_SCOPE);

		if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_MGID) && !mad_field_equal(r, g->rec, MCR_MGID))
			continue;
		if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_MLID) && mad_get(r, MCR_MLID) != g->mlid)
			continue;
		/* A requester sees the groups of its partitions. */
		if (requester &&
		    !sa_port_has_pkey(requester, (uint16_t)mad_get(g->rec, MCR_P_KEY), 0))
			continue;
		if (!other_fields_match(q, g->rec) || !selectors_match(q, g->rec))
			continue;
		if ((q->comp_mask & UMAD_SA_MCM_COMP_MASK_PROXY_JOIN) && mad_get(r, MCR_PROXY_JOIN))
			continue;
		if (q->comp_mask & UMAD_SA_MCM_COMP_MASK_PORT_GID) {
			const struct sa_member *m = find_member(g, gid_guid(MAD_AT(r, MCR_PORT_GID)));

			if (m && scope_state_matches(q, scope, m->join_state))
				query_record(q, g, m);
		} else if (q->trusted) {
			/* Trusted: a record per member. */
			for (k = 0; k < g->n_members && !sa_done(q); k++)
				if (scope_state_matches(q, scope, g->members[k].join_state))
					query_record(q, g, &g->members[k]);
		} else if (scope_state_matches(q, scope, 0)) {
			query_record(q, g, NULL);
		}
	}
	return q->error;
}
