/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the SA's record types share (sa_common.h), below them and below
 * the front (sa.c) that calls them: the SA's clock, the generic
 * component-mask matcher and the answer's records, the port and P_Key
 * look-ups, and the rates' order.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simfabric/sa_common.h"

uint64_t sa_now(const struct sim_sa *sa)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec + sa->clock_offset;
}

/* --- the matcher and the answer ----------------------------------------------------- */

static int field_matches(const struct sa_query *q, unsigned i, const uint8_t *rec)
{
	const struct sa_components *c = q->comps;
	mad_field_t f = c->fields[i];
	uint64_t want, have;

	if ((c->lid | c->lid2 | c->cap_mask) & SA_COMP(i)) {
		want = mad_get(q->rec, f);
		have = mad_get(rec, f);
		if (c->cap_mask & SA_COMP(i)) {
			if (q->attr_mod & SA_PIR_MOD_CAP_MASK_MATCH)
				return (want & have) == want;
			return want == have;
		}
		return want >= have && want < have + (1u << q->lmc[(c->lid2 & SA_COMP(i)) != 0]);
	}
	return mad_field_equal(q->rec, rec, f);
}

int sa_matches(const struct sa_query *q, const uint8_t *rec)
{
	uint64_t asked;

	if (!q->comps)
		return 1;
	/* Components past the table (reserved ones, fields not modelled) do not narrow. */
	asked = q->comps->n < 64 ? q->comp_mask & (SA_COMP(q->comps->n) - 1) : q->comp_mask;
	for (; asked; asked &= asked - 1)
		if (!field_matches(q, (unsigned)__builtin_ctzll(asked), rec))
			return 0;
	return 1;
}

int sa_add(struct sa_query *q, const uint8_t *rec)
{
	if (q->error)
		return q->error;
	if (q->len + q->rec_size > q->cap) {
		size_t cap = q->cap * 2;
		uint8_t *grown;

		while (cap < q->len + q->rec_size)
			cap *= 2;
		grown = realloc(q->buf, cap);
		if (!grown)
			return q->error = -ENOMEM;
		memset(grown + q->cap, 0, cap - q->cap);
		q->buf = grown;
		q->cap = cap;
	}
	memcpy(q->buf + q->len, rec, q->rec_size);
	q->len += q->rec_size;
	q->count++;
	return 0;
}

int sa_emit(struct sa_query *q, const uint8_t *rec)
{
	if (sa_done(q) || !sa_matches(q, rec))
		return q->error;
	return sa_add(q, rec);
}

/* --- ports ---------------------------------------------------------------------------- */

int sa_port_known(const struct sim_port *p)
{
	if (p->node->type == NODE_TYPE_SWITCH)
		return p->num == 0 && p->lid != 0;
	return p->num != 0 && p->lid != 0 && sim_port_link_up(p);
}

uint64_t sa_port_guid(const struct sim_port *p)
{
	return p->node->type == NODE_TYPE_SWITCH ? p->node->node_guid : p->guid;
}

void sa_port_gid(const struct sim_port *p, uint8_t *gid)
{
	mad_set(gid, GID_PREFIX, sim_mgmt_port(p->node, p->num)->gid_prefix);
	mad_set(gid, GID_GUID, sa_port_guid(p));
}

struct sim_port *sa_next_end_port(const struct sim_sa *sa, size_t *node, unsigned *port)
{
	for (; *node < sa->f->n_nodes; (*node)++, *port = 0) {
		struct sim_node *n = sa->f->nodes[*node];

		if (n->type == NODE_TYPE_SWITCH) {
			/* One end port, port 0: *port 1 marks it seen. */
			if (*port == 0) {
				*port = 1;
				if (sa_port_known(&n->ports[0]))
					return &n->ports[0];
			}
			continue;
		}
		while (*port < n->num_ports) {
			struct sim_port *p = &n->ports[++*port];

			if (sa_port_known(p))
				return p;
		}
	}
	return NULL;
}

struct sim_port *sa_port_by_lid(const struct sim_sa *sa, uint16_t lid)
{
	uint8_t num = 0;
	struct sim_node *n = sim_fabric_node_by_lid(sa->f, lid, &num);
	struct sim_port *p;

	if (!n || num > n->num_ports)
		return NULL;
	p = sim_mgmt_port(n, num);
	return sa_port_known(p) ? p : NULL;
}

struct sim_port *sa_port_by_guid(const struct sim_sa *sa, uint64_t guid)
{
	size_t i;
	unsigned num, k;

	if (!guid)
		return NULL;
	for (i = 0; i < sa->f->n_nodes; i++) {
		struct sim_node *n = sa->f->nodes[i];

		if (n->type == NODE_TYPE_SWITCH) {
			if (n->node_guid == guid && sa_port_known(&n->ports[0]))
				return &n->ports[0];
			continue;
		}
		for (num = 1; num <= n->num_ports; num++) {
			struct sim_port *p = &n->ports[num];

			if (!sa_port_known(p))
				continue;
			for (k = 0; k < SIM_GUID_CAP; k++)
				if (sim_port_guid_at(p, k) == guid)
					return p;
		}
	}
	return NULL;
}

struct sim_port *sa_port_by_gid(const struct sim_sa *sa, const uint8_t *gid)
{
	uint64_t prefix = mad_get(gid, GID_PREFIX);
	struct sim_port *p = sa_port_by_guid(sa, mad_get(gid, GID_GUID));

	/* The link-local prefix names any port of the subnet, whatever prefix the SM gave it. */
	if (p && prefix != GID_PREFIX_LINK_LOCAL &&
	    prefix != sim_mgmt_port(p->node, p->num)->gid_prefix)
		return NULL;
	return p;
}

int sa_gid_link_local(const uint8_t *gid)
{
	return (mad_get(gid, GID_PREFIX) & GID_PREFIX_LINK_LOCAL_SCOPE) == GID_PREFIX_LINK_LOCAL;
}

struct sim_port *sa_port_by_path_gid(const struct sim_sa *sa, const uint8_t *gid)
{
	if (sa_gid_link_local(gid))
		return sa_port_by_guid(sa, mad_get(gid, GID_GUID));
	return sa_port_by_gid(sa, gid);
}

struct sim_port *sa_requester_port(const struct sa_query *q)
{
	if (!q->from)
		return NULL;
	if (q->from->port)
		return q->from->port;
	return sa_port_by_lid(q->sa, q->from->lid);
}

int sa_port_has_pkey(const struct sim_port *p, uint16_t pkey, int full)
{
	/* An entry takes a limited member's key only when it is a full member's itself. */
	return sim_port_pkey_find(sim_mgmt_port(p->node, p->num),
				  full ? pkey_partition(pkey) : pkey_as_full(pkey)) >= 0;
}

int sa_ports_share_pkey(const struct sim_port *a, const struct sim_port *b, uint16_t pkey)
{
	return sa_port_has_pkey(a, pkey, 0) && sa_port_has_pkey(b, pkey, 0) &&
	       (sa_port_has_pkey(a, pkey, 1) || sa_port_has_pkey(b, pkey, 1));
}

int sa_common_pkey(const struct sim_port *a, const struct sim_port *b, int one_full,
		   uint16_t *pkey)
{
	const struct sim_port *t = sim_mgmt_port(a->node, a->num);
	unsigned i;

	for (i = 0; i < SIM_PKEY_TABLE_SIZE; i++) {
		uint16_t k = sim_port_pkey(t, i);

		if (!pkey_partition(k))
			continue;
		if (one_full ? sa_ports_share_pkey(a, b, k) : sa_port_has_pkey(b, k, 0)) {
			if (pkey)
				*pkey = k;
			return 1;
		}
	}
	return 0;
}

/* --- rates ------------------------------------------------------------------------------ */

/*
 * Every rate the PathRecord encoding has, slowest first, in Gb/s * 10, and
 * whether it is a rate of SDR, DDR or QDR lanes, whose 8b/10b coding carries
 * four fifths of it in data (FDR and later code 64b/66b, named by what they carry).
 */
static const struct {
	uint8_t rate;
	uint16_t x10;
	uint8_t coded_8b10b;
} rates[] = {
	{ SA_RATE_2_5_GBPS, 25, 1 }, { SA_RATE_5_GBPS, 50, 1 }, { SA_RATE_10_GBPS, 100, 1 },
	{ SA_RATE_14_GBPS, 140, 0 }, { SA_RATE_20_GBPS, 200, 1 }, { SA_RATE_25_GBPS, 250, 0 },
	{ SA_RATE_28_GBPS, 280, 0 }, { SA_RATE_30_GBPS, 300, 1 }, { SA_RATE_40_GBPS, 400, 1 },
	{ SA_RATE_50_GBPS, 500, 0 }, { SA_RATE_56_GBPS, 560, 0 }, { SA_RATE_60_GBPS, 600, 1 },
	{ SA_RATE_80_GBPS, 800, 1 }, { SA_RATE_100_GBPS, 1000, 0 }, { SA_RATE_112_GBPS, 1120, 0 },
	{ SA_RATE_120_GBPS, 1200, 1 }, { SA_RATE_168_GBPS, 1680, 0 }, { SA_RATE_200_GBPS, 2000, 0 },
	{ SA_RATE_300_GBPS, 3000, 0 }, { SA_RATE_400_GBPS, 4000, 0 }, { SA_RATE_600_GBPS, 6000, 0 },
	{ SA_RATE_800_GBPS, 8000, 0 }, { SA_RATE_1200_GBPS, 12000, 0 },
};
#define N_RATES		(sizeof(rates) / sizeof(rates[0]))

uint8_t sa_rate_from_x10(unsigned x10)
{
	size_t i;
	uint8_t best = SA_RATE_2_5_GBPS;

	for (i = 0; i < N_RATES && rates[i].x10 <= x10; i++)
		best = rates[i].rate;
	return best;
}

static const size_t NO_RATE = N_RATES;

static size_t rate_index(uint8_t rate)
{
	size_t i;

	for (i = 0; i < N_RATES; i++)
		if (rates[i].rate == rate)
			return i;
	return NO_RATE;
}

unsigned sa_rate_x10(uint8_t rate)
{
	size_t i = rate_index(rate);

	return i == NO_RATE ? 0 : rates[i].x10;
}

/* The data a rate of the table carries, in Gb/s * 50 (integral for 8b/10b too). */
static unsigned entry_data(size_t i)
{
	return rates[i].x10 * (rates[i].coded_8b10b ? 4u : 5u);
}

/* The same for a rate's encoding; 0 for none. */
static unsigned rate_data(uint8_t rate)
{
	size_t i = rate_index(rate);

	return i == NO_RATE ? 0 : entry_data(i);
}

int sa_rate_cmp(uint8_t a, uint8_t b)
{
	unsigned da = rate_data(a), db = rate_data(b);

	return (da > db) - (da < db);
}

uint8_t sa_rate_below(uint8_t rate)
{
	unsigned d = rate_data(rate), best_d = 0;
	uint8_t best = 0;
	size_t i;

	for (i = 0; i < N_RATES; i++) {
		if (entry_data(i) < d && entry_data(i) > best_d) {
			best_d = entry_data(i);
			best = rates[i].rate;
		}
	}
	return best;
}
