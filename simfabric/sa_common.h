/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the SA's files share (defined in sa_common.c, or inline here): its
 * state, the query being answered, the
 * component tables the generic matcher runs on, and the look-ups of ports
 * by LID and GID.  Not for use outside simfabric/sa*.c.
 */
#ifndef SIMFABRIC_SA_COMMON_H
#define SIMFABRIC_SA_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "base/mad_layout.h"
#include <infiniband/umad_sa_mcm.h>
#include "simfabric/fabric.h"
#include "simfabric/sa_types.h"

/* The SA status of umad_sa.h as a MAD status. */
#define SA_STATUS(code)	((uint16_t)((code) << SA_STATUS_SHIFT))

/* --- state ---------------------------------------------------------------------- */

struct sa_member {
	struct sim_port *port;
	uint8_t gid[16];		/* the PortGID it joined with (an alias GUID possibly) */
	uint8_t join_state;
	uint8_t proxy;			/* joined by another port */
};

struct sa_group {
	uint8_t rec[SA_MCMEMBER_REC_SIZE];	/* the group's parameters; PortGID, JoinState 0 */
	uint16_t mlid;
	int permanent;			/* created by the SA, stays without members */
	struct sa_member *members;
	size_t n_members, cap_members;
};

struct sa_service {
	uint8_t rec[SA_SERVICE_REC_SIZE];
	uint64_t expires;		/* SA clock second it lapses at; 0: never */
};

struct sa_subscription {
	uint8_t rec[SA_INFORM_INFO_REC_SIZE];	/* InformInfoRecord: subscriber GID, the InformInfo */
	uint16_t lid;			/* where Reports go */
	uint32_t qpn;
};

struct sim_sa {
	struct sim_fabric *f;
	struct sim_port *sm_port;
	struct sim_sa_hooks hooks;
	uint64_t sm_key;
	uint64_t clock_offset;		/* seconds added by sim_sa_age */
	uint64_t report_tid;
	uint32_t mgid_counter;		/* for MGIDs the SA makes up */
	struct sa_group *groups;	/* sorted by MLID */
	size_t n_groups, cap_groups;
	struct sa_service *services;
	size_t n_services, cap_services;
	struct sa_subscription *subs;
	size_t n_subs, cap_subs;
	struct sim_port **member_buf;	/* for the mcast_changed hook */
	size_t cap_member_buf;
};

/* --- component tables and the query ----------------------------------------------- */

/*
 * A record type's components: the fields of its list (mad_layout.h), one
 * per ComponentMask bit in order, and which of them compare otherwise than
 * bit for bit.
 */
struct sa_components {
	const mad_field_t *fields;
	unsigned n;
	uint64_t lid;		/* a LID in the record's range (base .. base + 2^LMC - 1) */
	uint64_t lid2;		/* the same, with the record's second LMC (LinkRecord's ToLID) */
	uint64_t cap_mask;	/* with SA_PIR_MOD_CAP_MASK_MATCH: the query's bits all set */
};

struct sa_query {
	struct sim_sa *sa;
	const struct sim_sa_requester *from;
	uint8_t method;
	uint32_t attr_mod;
	uint64_t comp_mask;
	int trusted;			/* the request carried the SA's SM_Key */
	const uint8_t *rec;		/* the query's record (SA_DATA_SIZE bytes) */
	size_t rec_len;			/* the request's data after the SA header, >= SA_DATA_SIZE */
	const struct sa_components *comps;	/* of the record type; NULL: not matched by them */
	unsigned rec_size;
	uint8_t lmc[2];			/* of the record being matched (SA_MATCH_LID, _LID2) */
	/* The answer being built: records after the SA header. */
	uint8_t *buf;
	size_t len, cap;
	size_t count;
	int error;			/* -ENOMEM on the way */
};

/* Does rec match every component the query selects? */
int sa_matches(const struct sa_query *q, const uint8_t *rec);
/* Add rec to the answer (q->rec_size bytes); -ENOMEM. */
int sa_add(struct sa_query *q, const uint8_t *rec);
/* Add rec if it matches; 0 or -ENOMEM. */
int sa_emit(struct sa_query *q, const uint8_t *rec);
/* Enough found: a Get that already has two records (one too many) stops looking. */
static inline int sa_done(const struct sa_query *q)
{
	return q->error || (q->method == UMAD_METHOD_GET && q->count > 1);
}

/* Set a value a record states exactly (MTU, rate, lifetime), with its selector. */
MAD_FIELD_INLINE void sa_put_exactly(uint8_t *rec, mad_field_t selector, mad_field_t field,
				     uint8_t v)
{
	mad_set(rec, selector, UMAD_SA_SELECTOR_EXACTLY);
	mad_set(rec, field, v);
}

/* --- ports ------------------------------------------------------------------------ */

/* An end port the SA reports: a LID (a switch: port 0's) and, off a switch, a live link. */
int sa_port_known(const struct sim_port *p);
/* The port's GUID as its GID carries it (a switch's: the node GUID), and the GID itself. */
uint64_t sa_port_guid(const struct sim_port *p);
void sa_port_gid(const struct sim_port *p, uint8_t *gid);
/* Known end ports in fabric order: start with *node = *port = 0; NULL after the last. */
struct sim_port *sa_next_end_port(const struct sim_sa *sa, size_t *node, unsigned *port);
/* Known end ports by LID (any in its LMC range), by GUID (alias GUIDs too), by GID; NULL. */
struct sim_port *sa_port_by_lid(const struct sim_sa *sa, uint16_t lid);
struct sim_port *sa_port_by_guid(const struct sim_sa *sa, uint64_t guid);
struct sim_port *sa_port_by_gid(const struct sim_sa *sa, const uint8_t *gid);
/* Is the GID's prefix link-local in scope (fe80::/10, whatever its other bits)? */
int sa_gid_link_local(const uint8_t *gid);
/*
 * The end port a path query names by a unicast GID: by its GUID alone when
 * the prefix is link-local in scope (opensm's rule: fe80:0:0:ff:: names a
 * port of this subnet too), else as sa_port_by_gid.
 */
struct sim_port *sa_port_by_path_gid(const struct sim_sa *sa, const uint8_t *gid);
/* The port a request came from; NULL when unknown. */
struct sim_port *sa_requester_port(const struct sa_query *q);
/* Is the P_Key's partition in the port's table?  full: as a full member. */
int sa_port_has_pkey(const struct sim_port *p, uint16_t pkey, int full);
/* Are both ports in pkey's partition, at least one of them as a full member? */
int sa_ports_share_pkey(const struct sim_port *a, const struct sim_port *b, uint16_t pkey);
/*
 * A P_Key of a's table whose partition b is in too (and, with one_full, as
 * sa_ports_share_pkey says): 1 with *pkey (when not NULL), or 0.
 */
int sa_common_pkey(const struct sim_port *a, const struct sim_port *b, int one_full,
		   uint16_t *pkey);

/* The SA's clock, in seconds. */
uint64_t sa_now(const struct sim_sa *sa);

/* Rates: the PathRecord encoding of a rate in Gb/s * 10 (rounded down to one), and back. */
uint8_t sa_rate_from_x10(unsigned x10);
unsigned sa_rate_x10(uint8_t rate);
/*
 * Rates by the data they carry, as opensm orders them (30 Gb/s of SDR 12x
 * below 25 of EDR 1x): -1, 0, 1; and the next slower rate (0: none).
 */
int sa_rate_cmp(uint8_t a, uint8_t b);
uint8_t sa_rate_below(uint8_t rate);

/* --- the record types (one file each, or sa_records.c) ---------------------------- */

/*
 * Get/GetTable of the fabric's records; each fills q's table and walks the
 * fabric: 0, -ENOMEM, or a MAD status (P_KeyTableRecords for the untrusted).
 */
int sa_node_records(struct sa_query *q);
int sa_port_info_records(struct sa_query *q);
int sa_switch_info_records(struct sa_query *q);
int sa_sm_info_records(struct sa_query *q);
int sa_link_records(struct sa_query *q);
int sa_guid_info_records(struct sa_query *q);
int sa_pkey_table_records(struct sa_query *q);
int sa_slvl_records(struct sa_query *q);
int sa_vl_arb_records(struct sa_query *q);
int sa_lft_records(struct sa_query *q);
int sa_mft_records(struct sa_query *q);

/* The rest return a MAD status (>= 0) or -ENOMEM. */
int sa_path_records(struct sa_query *q);
/*
 * Up to limit paths from s to d that suit q's record and components (read
 * as a PathRecord's), added to the answer; returns how many.
 */
unsigned sa_paths_between(struct sa_query *q, const struct sim_port *s, const struct sim_port *d,
			  unsigned limit);
/* SubnAdmGetMulti of MultiPathRecord: PathRecords for every source and destination GID. */
int sa_multipath_records(struct sa_query *q);
/* A MultiPathRecord Get or GetTable: refused, as opensm refuses it (ERR_REQ_INVALID). */
int sa_multipath_not_multi(struct sa_query *q);

int sa_mcast_init(struct sim_sa *sa);
void sa_mcast_free(struct sim_sa *sa);
int sa_mcmember_query(struct sa_query *q);
int sa_mcmember_join(struct sa_query *q);
int sa_mcmember_leave(struct sa_query *q);
/* The group with this MGID, or NULL. */
struct sa_group *sa_group_by_mgid(const struct sim_sa *sa, const uint8_t *mgid);

int sa_service_query(struct sa_query *q);
int sa_service_set(struct sa_query *q);
int sa_service_delete(struct sa_query *q);
void sa_service_free(struct sim_sa *sa);

int sa_inform_set(struct sa_query *q);
int sa_inform_records(struct sa_query *q);
void sa_inform_free(struct sim_sa *sa);
/* A notice the SA itself raises (traps 66 and 67 for groups made and gone). */
void sa_notice_gid(struct sim_sa *sa, uint16_t trap, const uint8_t *gid);

#endif /* SIMFABRIC_SA_COMMON_H */
