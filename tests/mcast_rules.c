/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A fixed sequence of MCMemberRecord joins (SubnAdmSet) and leaves
 * (SubnAdmDelete) sent to whichever SA the fabric has, one at a time, from
 * the first two devices (A and B); one line per request with the status the
 * SA answered and, for an accepted one, what the answer says of the group
 * and the membership.  Each request tries one rule of joining, creating or
 * leaving: missing components, invalid MTU or rate, a PortGID of another
 * subnet or of no port, invalid P_Keys, each component compared with an
 * existing group, MTU and rate selectors, JoinState rules, joins by proxy,
 * the MGID rules of creation, the IPoIB rule (a group under IPoIB's MGID
 * signature must agree with its partition's broadcast group), the MTU and
 * rate a creator may ask for, and the lifetime of groups; then a burst of
 * joins as ibsim's mcast_storm sends them, and a re-registration.  The
 * output carries no LIDs or MLIDs, so that two SAs' runs compare line for
 * line (tests/mcast_rules.sh runs it against the built-in SA and opensm).
 *
 * Exit: 0 when every request got an answer, 1 when one did not, 2 on a
 * setup error.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>
#include <infiniband/umad_types.h>

#include "base/mad_wire.h"

#define TIMEOUT_MS	3000
#define SM_WAIT_TRIES	100		/* times SM_WAIT_US: ten seconds for the SM's LID */
#define SM_WAIT_US	100000
#define STORM_PORTS	8		/* mcast_storm -I 7: the own GUID and the next seven */
#define STORM_GROUPS	8		/* ...times the broadcast MGID and the next seven */

#define BCAST		"ff12:401b:ffff::ffff:ffff"

#define COMP(name)	UMAD_SA_MCM_COMP_MASK_##name

/* Components every join and leave names, and those a creation needs besides. */
#define JOIN		(COMP(MGID) | COMP(PORT_GID) | COMP(JOIN_STATE))
#define CREATE		(JOIN | COMP(QKEY) | COMP(TCLASS) | COMP(PKEY) | COMP(FLOW_LABEL) | \
			 COMP(SL))
#define MTU_COMPS	(COMP(MTU_SEL) | COMP(MTU))
#define RATE_COMPS	(COMP(RATE_SEL) | COMP(RATE))

/* JoinState bits, short. */
#define FULL	UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER
#define NON	UMAD_SA_MCM_JOIN_STATE_NON_MEMBER
#define SONM	UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER
#define SOFM	UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_FULL_MEMBER

/* Selectors: the two bits above an MTU or a rate. */
#define GT(v)		((uint8_t)(UMAD_SA_SELECTOR_GREATER_THAN << 6 | (v)))
#define LT(v)		((uint8_t)(UMAD_SA_SELECTOR_LESS_THAN << 6 | (v)))
#define EQ(v)		((uint8_t)(UMAD_SA_SELECTOR_EXACTLY << 6 | (v)))
#define BEST(v)		((uint8_t)(UMAD_SA_SELECTOR_LARGEST_AVAIL << 6 | (v)))

enum who {
	A,		/* the first device's port */
	B,		/* the second's */
	NOBODY,		/* a GUID no port has */
};

/* PortGID prefixes: the port's own, or another subnet's. */
enum prefix { OWN_PREFIX, FOREIGN_PREFIX };

struct step {
	const char *name;
	uint8_t method;		/* UMAD_METHOD_SET (join) or UMAD_SA_METHOD_DELETE (leave) */
	enum who from;		/* who sends it */
	enum who port;		/* whose PortGID it names */
	const char *mgid;	/* "::": none, for the SA to make up */
	uint8_t join;
	uint64_t comps;
	/* The record's other fields, sent whether or not a component names them. */
	uint32_t qkey;
	uint16_t pkey;
	uint8_t tclass, sl, hop, mtu, rate, life, scope;
	uint32_t flow;
	enum prefix prefix;
};

/* A join by a port for itself, a leave the same, and a request by A for B. */
#define JOINS(who_, mgid_, state_)	\
	.method = UMAD_METHOD_SET, .from = who_, .port = who_, .mgid = mgid_, .join = state_
#define LEAVES(who_, mgid_, state_)	\
	.method = UMAD_SA_METHOD_DELETE, .from = who_, .port = who_, .mgid = mgid_, .join = state_
#define A_FOR_B(method_, state_)	\
	.method = method_, .from = A, .port = B, .mgid = BCAST, .join = state_

/* A new group's values: its own Q_Key; or what the broadcast group has, for IPoIB's groups. */
#define OWN_KEYS	.qkey = 0x1234, .pkey = 0xffff
#define BCAST_KEYS	.qkey = IPOIB_QKEY, .pkey = 0xffff

static const struct step steps[] = {
	/* Components and values checked before anything else. */
	{ "join-without-joinstate", JOINS(A, BCAST, FULL), .comps = JOIN & ~COMP(JOIN_STATE) },
	{ "leave-without-joinstate", LEAVES(A, BCAST, FULL), .comps = JOIN & ~COMP(JOIN_STATE) },
	{ "join-without-portgid", JOINS(A, BCAST, FULL), .comps = JOIN & ~COMP(PORT_GID) },
	{ "join-mtu-0", JOINS(A, BCAST, FULL), .comps = JOIN | MTU_COMPS, .mtu = EQ(0) },
	{ "join-mtu-6", JOINS(A, BCAST, FULL), .comps = JOIN | MTU_COMPS, .mtu = EQ(6) },
	{ "join-rate-1", JOINS(A, BCAST, FULL), .comps = JOIN | RATE_COMPS, .rate = EQ(1) },
	{ "leave-mtu-7", LEAVES(A, BCAST, FULL), .comps = JOIN | MTU_COMPS, .mtu = EQ(7) },
	{ "join-foreign-prefix", JOINS(A, BCAST, FULL), .comps = JOIN, .prefix = FOREIGN_PREFIX },
	{ "leave-foreign-prefix", LEAVES(A, BCAST, FULL), .comps = JOIN, .prefix = FOREIGN_PREFIX },
	{ "join-unknown-port", .method = UMAD_METHOD_SET, .from = A, .port = NOBODY, .mgid = BCAST,
	  .join = FULL, .comps = JOIN },
	{ "join-pkey-0", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(PKEY), .pkey = 0 },
	{ "join-pkey-8000", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(PKEY), .pkey = 0x8000 },

	/* An existing group (IPoIB's broadcast group): each component must agree with it. */
	{ "bcast-qkey", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(QKEY), .qkey = 0x80010000 },
	{ "bcast-pkey-other", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(PKEY), .pkey = 0x8001 },
	{ "bcast-tclass", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(TCLASS), .tclass = 1 },
	{ "bcast-sl", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(SL), .sl = 1 },
	{ "bcast-flow", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(FLOW_LABEL), .flow = 1 },
	{ "bcast-hop", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(HOP_LIMIT), .hop = 1 },
	{ "bcast-mtu-gt-2048", JOINS(A, BCAST, FULL), .comps = JOIN | MTU_COMPS, .mtu = GT(4) },
	{ "bcast-mtu-lt-2048", JOINS(A, BCAST, FULL), .comps = JOIN | MTU_COMPS, .mtu = LT(4) },
	{ "bcast-mtu-selector-alone", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(MTU_SEL),
	  .mtu = LT(0) },
	{ "bcast-rate-gt-10", JOINS(A, BCAST, FULL), .comps = JOIN | RATE_COMPS, .rate = GT(3) },
	{ "bcast-rate-lt-10", JOINS(A, BCAST, FULL), .comps = JOIN | RATE_COMPS, .rate = LT(3) },
	{ "bcast-rate-eq-2.5", JOINS(A, BCAST, FULL), .comps = JOIN | RATE_COMPS, .rate = EQ(2) },
	{ "bcast-rate-lt-30", JOINS(A, BCAST, FULL), .comps = JOIN | RATE_COMPS, .rate = LT(4) },
	{ "bcast-joinstate-0", JOINS(A, BCAST, 0), .comps = JOIN },
	{ "bcast-rate-0-no-selector", JOINS(A, BCAST, FULL), .comps = JOIN | COMP(RATE),
	  .rate = EQ(0) },
	{ "bcast-full-all-comps", JOINS(A, BCAST, FULL),
	  .comps = CREATE | MTU_COMPS | RATE_COMPS | COMP(HOP_LIMIT), BCAST_KEYS, .mtu = EQ(4),
	  .rate = EQ(3) },
	{ "bcast-limited-pkey", JOINS(B, BCAST, FULL), .comps = JOIN | COMP(PKEY), .pkey = 0x7fff },
	{ "bcast-add-nonmember", JOINS(B, BCAST, NON), .comps = JOIN | MTU_COMPS, .mtu = LT(5) },
	{ "bcast-mtu-largest", JOINS(B, BCAST, NON), .comps = JOIN | MTU_COMPS, .mtu = BEST(1) },
	{ "bcast-rate-gt-2.5", JOINS(B, BCAST, NON), .comps = JOIN | RATE_COMPS, .rate = GT(2) },

	/* Leaving: states held, and only by whom may. */
	{ "leave-state-not-held", LEAVES(B, BCAST, SONM), .comps = JOIN },
	{ "leave-extra-state", LEAVES(B, BCAST, FULL | SONM), .comps = JOIN },
	{ "leave-state-0", LEAVES(B, BCAST, 0), .comps = JOIN },
	{ "leave-others-membership", A_FOR_B(UMAD_SA_METHOD_DELETE, FULL), .comps = JOIN },
	{ "join-others-membership", A_FOR_B(UMAD_METHOD_SET, SONM), .comps = JOIN },
	{ "leave-full-keep-non", LEAVES(B, BCAST, FULL), .comps = JOIN },
	{ "leave-last-full", LEAVES(A, BCAST, FULL), .comps = JOIN },
	{ "leave-non-after-last-full", LEAVES(B, BCAST, NON), .comps = JOIN },

	/* Joins by proxy: A for B (they share the default partition). */
	{ "proxy-join", A_FOR_B(UMAD_METHOD_SET, FULL), .comps = JOIN },
	{ "proxied-joins-itself", JOINS(B, BCAST, NON), .comps = JOIN },
	{ "proxy-leave", A_FOR_B(UMAD_SA_METHOD_DELETE, FULL | NON), .comps = JOIN },

	/* Creation: who may, with which components and MGIDs. */
	{ "create-few-comps", JOINS(A, "ff15:1234::1", FULL), .comps = JOIN | COMP(QKEY),
	  OWN_KEYS },
	{ "create-by-nonmember", JOINS(A, "ff15:1234::1", NON), .comps = CREATE, OWN_KEYS },
	{ "create-send-only-full", JOINS(A, "ff15:1234::1", SOFM), .comps = CREATE, OWN_KEYS,
	  .hop = 3, .life = 7, .scope = 5 },
	{ "create-not-multicast", JOINS(A, "fe15:1234::2", FULL), .comps = CREATE, OWN_KEYS },
	{ "create-reserved-flags", JOINS(A, "ff35:1234::3", FULL), .comps = CREATE, OWN_KEYS },
	{ "create-sa-signature-link", JOINS(A, "ff12:a01b::4", FULL), .comps = CREATE, OWN_KEYS },
	{ "create-sa-signature-site", JOINS(A, "ff15:a01b::5", FULL), .comps = CREATE, OWN_KEYS },
	{ "create-sa-makes-mgid", JOINS(A, "::", FULL), .comps = CREATE, OWN_KEYS },
	{ "create-sa-makes-mgid-scope", JOINS(A, "::", FULL), .comps = CREATE | COMP(SCOPE),
	  OWN_KEYS, .scope = 8 },
	{ "join-hop-of-creator", JOINS(B, "ff15:1234::1", NON), .comps = JOIN | COMP(HOP_LIMIT),
	  .hop = 3 },

	/* The IPoIB rule: groups under IPoIB's signature against their broadcast group. */
	{ "ipoib-qkey", JOINS(A, "ff12:401b:ffff::1", FULL), .comps = CREATE, .qkey = 0x80010000,
	  .pkey = 0xffff },
	{ "ipoib-like-bcast", JOINS(A, "ff12:401b:ffff::1", FULL), .comps = CREATE, BCAST_KEYS },
	{ "ipv6-sl", JOINS(A, "ff12:601b:ffff::1:ff00:2", FULL), .comps = CREATE, BCAST_KEYS,
	  .sl = 1 },
	{ "ipv6-like-bcast", JOINS(A, "ff12:601b:ffff::1:ff00:2", FULL), .comps = CREATE,
	  BCAST_KEYS },
	{ "ipoib-pkey-other", JOINS(A, "ff12:401b:ffff::3", FULL), .comps = CREATE,
	  .qkey = IPOIB_QKEY, .pkey = 0x8001 },
	{ "ipoib-hop-named", JOINS(A, "ff12:401b:ffff::4", FULL), .comps = CREATE | COMP(HOP_LIMIT),
	  BCAST_KEYS, .hop = 5 },
	{ "ipoib-hop-not-named", JOINS(A, "ff12:401b:ffff::4", FULL), .comps = CREATE, BCAST_KEYS,
	  .hop = 5 },
	{ "ipoib-site-no-bcast", JOINS(A, "ff15:401b:ffff::1", FULL), .comps = CREATE, BCAST_KEYS },
	{ "ipoib-8001-no-bcast", JOINS(A, "ff12:401b:8001::1", FULL), .comps = CREATE,
	  .qkey = 0x12345, .pkey = 0xffff },
	{ "ipoib-8001-bcast", JOINS(A, "ff12:401b:8001::ffff:ffff", FULL), .comps = CREATE,
	  .qkey = 0x12345, .pkey = 0xffff },
	{ "ipoib-8001-like-bcast", JOINS(A, "ff12:401b:8001::1", FULL), .comps = CREATE,
	  .qkey = 0x12345, .pkey = 0xffff },
	{ "ipoib-8001-qkey", JOINS(A, "ff12:401b:8001::2", FULL), .comps = CREATE, BCAST_KEYS },
	{ "ipoib-unflagged-bcast", JOINS(A, "ff02:401b:ffff::ffff:ffff", FULL), .comps = CREATE,
	  .qkey = 0x77, .pkey = 0xffff },

	/* P_Keys of a new group. */
	{ "create-limited-pkey", JOINS(A, "ff15:1234::6", FULL), .comps = CREATE, .qkey = 0x1234,
	  .pkey = 0x7fff },
	{ "join-both-limited", JOINS(B, "ff15:1234::6", NON), .comps = JOIN | COMP(PKEY),
	  .pkey = 0x7fff },
	{ "join-limited-full-group-key", JOINS(B, "ff15:1234::6", NON), .comps = JOIN | COMP(PKEY),
	  .pkey = 0xffff },
	{ "create-outside-partition", JOINS(A, "ff15:1234::7", FULL), .comps = CREATE,
	  .qkey = 0x1234, .pkey = 0x8001 },
	{ "join-refused-creation", JOINS(B, "ff15:1234::7", FULL), .comps = JOIN },

	/* The MTU and rate a creator asks for, against its port's (4096, 40 Gb/s). */
	{ "create-mtu-gt-4096", JOINS(A, "ff15:1234::8", FULL), .comps = CREATE | MTU_COMPS,
	  OWN_KEYS, .mtu = GT(5) },
	{ "create-mtu-lt-256", JOINS(A, "ff15:1234::8", FULL), .comps = CREATE | MTU_COMPS,
	  OWN_KEYS, .mtu = LT(1) },
	{ "create-mtu-eq-256", JOINS(A, "ff15:1234::8", FULL), .comps = CREATE | MTU_COMPS,
	  OWN_KEYS, .mtu = EQ(1) },
	{ "create-mtu-lt-4096", JOINS(A, "ff15:1234::9", FULL), .comps = CREATE | MTU_COMPS,
	  OWN_KEYS, .mtu = LT(5) },
	{ "create-mtu-gt-256", JOINS(A, "ff15:1234::19", FULL), .comps = CREATE | MTU_COMPS,
	  OWN_KEYS, .mtu = GT(1) },
	{ "create-mtu-no-selector", JOINS(A, "ff15:1234::29", FULL), .comps = CREATE | COMP(MTU),
	  OWN_KEYS, .mtu = EQ(1) },
	{ "create-rate-gt-600", JOINS(A, "ff15:1234::a", FULL), .comps = CREATE | RATE_COMPS,
	  OWN_KEYS, .rate = GT(22) },
	{ "create-rate-lt-2.5", JOINS(A, "ff15:1234::a", FULL), .comps = CREATE | RATE_COMPS,
	  OWN_KEYS, .rate = LT(2) },
	{ "create-rate-eq-600", JOINS(A, "ff15:1234::a", FULL), .comps = CREATE | RATE_COMPS,
	  OWN_KEYS, .rate = EQ(22) },
	{ "create-rate-lt-25", JOINS(A, "ff15:1234::a", FULL), .comps = CREATE | RATE_COMPS,
	  OWN_KEYS, .rate = LT(15) },
	{ "create-rate-lt-40", JOINS(A, "ff15:1234::f", FULL), .comps = CREATE | RATE_COMPS,
	  OWN_KEYS, .rate = LT(7) },
	{ "create-rate-lt-60", JOINS(A, "ff15:1234::b", FULL), .comps = CREATE | RATE_COMPS,
	  OWN_KEYS, .rate = LT(8) },
	{ "create-rate-gt-10", JOINS(A, "ff15:1234::c", FULL), .comps = CREATE | RATE_COMPS,
	  OWN_KEYS, .rate = GT(3) },
	{ "create-rate-largest", JOINS(A, "ff15:1234::d", FULL), .comps = CREATE | RATE_COMPS,
	  OWN_KEYS, .rate = BEST(2) },
	{ "join-slower-group-rate-lt-25", JOINS(B, "ff15:1234::a", NON), .comps = JOIN | RATE_COMPS,
	  .rate = LT(15) },
	{ "join-group-rate-gt-25", JOINS(B, "ff15:1234::a", NON), .comps = JOIN | RATE_COMPS,
	  .rate = GT(15) },
	{ "join-group-rate-gt-20", JOINS(B, "ff15:1234::a", NON), .comps = JOIN | RATE_COMPS,
	  .rate = GT(6) },

	/* A group lives while it has a full member. */
	{ "group-add-nonmember", JOINS(B, "ff15:1234::1", NON), .comps = JOIN },
	{ "group-last-full-leaves", LEAVES(A, "ff15:1234::1", SOFM), .comps = JOIN },
	{ "group-gone-nonmember-leaves", LEAVES(B, "ff15:1234::1", NON), .comps = JOIN },
	{ "group-gone-join", JOINS(B, "ff15:1234::1", FULL), .comps = JOIN },
	{ "create-two-states", JOINS(A, "ff15:1234::e", FULL | NON), .comps = CREATE, OWN_KEYS },
	{ "leave-one-state", LEAVES(A, "ff15:1234::e", NON), .comps = JOIN },
	{ "join-state-again", JOINS(A, "ff15:1234::e", FULL), .comps = JOIN },
	{ "leave-last-state", LEAVES(A, "ff15:1234::e", FULL), .comps = JOIN },
	{ "leave-gone-group", LEAVES(A, "ff15:1234::e", FULL), .comps = JOIN },
};

/* The storm's creations: what mcast_storm's joins carry (MTU and rate without selectors). */
static const struct step storm = {
	"storm", .method = UMAD_METHOD_SET, .join = FULL,
	.comps = CREATE | COMP(MTU) | COMP(RATE),
	.qkey = 0x80010000, .pkey = 0xffff, .mtu = 4, .rate = 3,
};

struct device {
	int portid, agent;
	uint16_t sm_lid;
	uint64_t prefix, guid;
};

static struct device dev[2];
static uint32_t next_tid = 1;

/* Port 1 of a device, once an SM has given it the SM's LID (an SM just up may not have yet). */
static int open_device(const char *ca, struct device *d)
{
	umad_port_t port;
	unsigned tries;

	for (tries = 0; tries < SM_WAIT_TRIES; tries++) {
		if (umad_get_port(ca, 1, &port) < 0) {
			fprintf(stderr, "mcast_rules: %s port 1: no such port\n", ca);
			return -1;
		}
		d->sm_lid = (uint16_t)port.sm_lid;
		d->prefix = be64toh(port.gid_prefix);
		d->guid = be64toh(port.port_guid);
		umad_release_port(&port);
		if (d->sm_lid)
			break;
		usleep(SM_WAIT_US);
	}
	if (!d->sm_lid) {
		fprintf(stderr, "mcast_rules: %s: no SM LID on port 1\n", ca);
		return -1;
	}
	d->portid = umad_open_port(ca, 1);
	if (d->portid < 0) {
		fprintf(stderr, "mcast_rules: cannot open %s port 1\n", ca);
		return -1;
	}
	d->agent = umad_register(d->portid, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, 0, NULL);
	if (d->agent < 0) {
		fprintf(stderr, "mcast_rules: cannot register an SA agent on %s\n", ca);
		return -1;
	}
	return 0;
}

static void put_gid(uint8_t *gid, uint64_t prefix, uint64_t guid)
{
	uint64_t be = htobe64(prefix);

	memcpy(gid, &be, 8);
	be = htobe64(guid);
	memcpy(gid + 8, &be, 8);
}

/* The record of a step, its MGID given (NULL: the step's own). */
static void build_record(const struct step *s, const uint8_t *mgid, uint64_t guid,
			 struct umad_sa_mcmember_record *rec)
{
	const struct device *port = &dev[s->port == B];

	memset(rec, 0, sizeof(*rec));
	if (mgid)
		memcpy(rec->mgid, mgid, sizeof(rec->mgid));
	else if (inet_pton(AF_INET6, s->mgid, rec->mgid) != 1)
		abort();	/* the table's MGIDs are all valid text */
	if (!guid)
		guid = s->port == NOBODY ? dev[0].guid + 0x1000000 : port->guid;
	put_gid(rec->portgid, s->prefix == FOREIGN_PREFIX ? 0xfec0000000000000ULL : port->prefix,
		guid);
	rec->qkey = htobe32(s->qkey);
	rec->mtu = s->mtu;
	rec->tclass = s->tclass;
	rec->pkey = htobe16(s->pkey);
	rec->rate = s->rate;
	rec->pkt_life = s->life;
	rec->sl_flow_hop = umad_sa_mcm_set_sl_flow_hop(s->sl, s->flow, s->hop);
	rec->scope_state = umad_sa_mcm_set_scope_state(s->scope, s->join);
}

/* Send one request and print its answer; 0, or -1 when no answer came. */
static int run(const char *name, const struct step *s, const uint8_t *mgid, uint64_t guid)
{
	struct device *d = &dev[s->from == B];
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	uint8_t *mad = umad_get_mad(buf);
	struct umad_sa_mcmember_record rec, ans;
	uint32_t tid = next_tid++;
	uint64_t comps = htobe64(s->comps);
	int len = MAD_SIZE;

	build_record(s, mgid, guid, &rec);
	memset(buf, 0, sizeof(buf));
	umad_set_addr(buf, d->sm_lid, QP1_GSI, 0, UMAD_QKEY);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	mad[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = s->method;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SA_ATTR_MCMEMBER_REC);
	memcpy(mad + SA_OFF_COMP_MASK, &comps, sizeof(comps));
	memcpy(mad + SA_HDR_END, &rec, sizeof(rec));
	if (umad_send(d->portid, d->agent, buf, MAD_SIZE, TIMEOUT_MS, 0) < 0) {
		printf("%-30s send failed\n", name);
		return -1;
	}
	if (umad_recv(d->portid, buf, &len, -1) < 0) {
		printf("%-30s receive failed\n", name);
		return -1;
	}
	if (umad_status(buf)) {
		printf("%-30s no answer: %s\n", name, strerror(umad_status(buf)));
		return -1;
	}
	if (get_be32(mad + MAD_OFF_TID_LOW) != tid) {
		printf("%-30s an answer to another request\n", name);
		return -1;
	}
	printf("%-30s %-6s from %c: status 0x%04x", name,
	       s->method == UMAD_METHOD_SET ? "join" : "leave", s->from == B ? 'B' : 'A',
	       mad_status(mad));
	memcpy(&ans, mad + SA_HDR_END, sizeof(ans));
	if (!mad_status(mad)) {
		/* What an accepted request tells: the membership, and for a join the group. */
		printf(" state %x", ans.scope_state & 0xf);
		if (s->method == UMAD_METHOD_SET)
			printf(" mgid %02x%02x:%02x%02x qkey %#x pkey %#x mtu %#x rate %#x"
			       " tclass %u sl_flow_hop %#x life %#x scope %x",
			       ans.mgid[0], ans.mgid[1], ans.mgid[2], ans.mgid[3],
			       be32toh(ans.qkey), be16toh(ans.pkey), ans.mtu, ans.rate, ans.tclass,
			       be32toh(ans.sl_flow_hop), ans.pkt_life, ans.scope_state >> 4);
	}
	printf("\n");
	return 0;
}

int main(void)
{
	char names[2][UMAD_CA_NAME_LEN];
	uint8_t mgid[16];
	unsigned i, j, n;
	int bad = 0;
	uint64_t low;

	if (umad_init() < 0 || umad_get_cas_names(names, 2) != 2) {
		fprintf(stderr, "mcast_rules: needs two devices (UMAD_SIM_HOST=NODE,NODE)\n");
		return 2;
	}
	if (open_device(names[0], &dev[0]) < 0 || open_device(names[1], &dev[1]) < 0)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		bad |= run(steps[i].name, &steps[i], NULL, 0);

	/* mcast_storm's joins: ports by GUID from A's up, groups from the broadcast MGID up. */
	for (i = 0; i < STORM_PORTS; i++) {
		for (j = 0; j < STORM_GROUPS; j++) {
			char name[40];

			if (inet_pton(AF_INET6, BCAST, mgid) != 1)
				return 2;
			low = get_be64(mgid + 8) + j;
			put_be64(mgid + 8, low);
			snprintf(name, sizeof(name), "storm-guid+%u-mgid+%u", i, j);
			bad |= run(name, &storm, mgid, dev[0].guid + i);
		}
	}
	/* A re-registration: leave and join again, then leave. */
	{
		static const struct step rereg[] = {
			{ "rereg-leave", LEAVES(A, BCAST, FULL), .comps = JOIN },
			{ "rereg-join", JOINS(A, BCAST, FULL), .comps = JOIN },
			{ "rereg-leave-again", LEAVES(A, BCAST, FULL), .comps = JOIN },
		};

		for (n = 0; n < sizeof(rereg) / sizeof(rereg[0]); n++)
			bad |= run(rereg[n].name, &rereg[n], NULL, 0);
	}
	umad_close_port(dev[0].portid);
	umad_close_port(dev[1].portid);
	umad_done();
	return bad ? 1 : 0;
}
