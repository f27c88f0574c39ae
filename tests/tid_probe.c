/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What a program sees of the kernel's TID rewriting, through libibumad's
 * API only (so that any libibumad, on any backend, can run it):
 *
 *   tid_probe agents          two agents (two opened ports) each send a
 *                             request whose TID's upper half the program
 *                             set; prints the upper halves their answers
 *                             carry: "hi_tid A B".  Fails unless both are
 *                             kernel-style (24 bits, not 0, not what was
 *                             written) and differ, and the lower halves
 *                             come back as written.
 *   tid_probe outstanding N   N SMPs sent before any answer is read; each
 *                             answer read back once, its TID one of them.
 *   tid_probe storm N         the re-registration storm: N port GIDs
 *                             (this port's GUID and the N - 1 after it)
 *                             leave and join the IPoIB broadcast group;
 *                             an error answer whose whole 64-bit TID is
 *                             one the program wrote for a join makes it
 *                             leave and join again.  Under the kernel no
 *                             answer carries a TID as written, so the
 *                             storm ends; fails when it resends more than
 *                             STORM_RESEND_LIMIT times N or runs 60 s.
 *
 * Exits 0 when the run is as the kernel makes it, 1 otherwise (why on stderr).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>

#include "base/mad_layout.h"
#include "base/mad_wire.h"
#include "include/infiniband/umad_sa.h"
#include "include/infiniband/umad_sa_mcm.h"

#define TIMEOUT_MS		200
#define STORM_RESEND_LIMIT	20
#define STORM_SECONDS		60
#define WRITTEN_HIGH		0xdeadbeefu	/* an upper TID half the kernel replaces */

struct msg {
	struct ib_user_mad hdr;
	uint8_t mad[MAD_SIZE];
};

static int fail(const char *what)
{
	fprintf(stderr, "tid_probe: %s\n", what);
	return 1;
}

static uint64_t tid_of(const struct msg *m)
{
	return get_be64(m->mad + MAD_OFF_TID);
}

/* A directed-route NodeInfo Get to the port itself (hop 0). */
static void node_info_smp(struct msg *m, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	umad_set_addr(m, LID_PERMISSIVE, 0, 0, 0);
	m->mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	m->mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	m->mad[MAD_OFF_CLASS_VERSION] = 1;
	m->mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be64(m->mad + MAD_OFF_TID, tid);
	put_be16(m->mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_NODE_INFO);
	put_be16(m->mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(m->mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
}

static int open_dr_agent(int *agent)
{
	int fd = umad_open_port(NULL, 0);

	if (fd < 0)
		return fd;
	*agent = umad_register(fd, UMAD_CLASS_SUBN_DIRECTED_ROUTE, 1, 0, NULL);
	if (*agent < 0) {
		umad_close_port(fd);
		return *agent;
	}
	return fd;
}

/* One request and its answer; the answer's TID, or 0 after a failure (reported). */
static uint64_t ask(int fd, int agent, uint32_t low)
{
	struct msg m;
	int len = MAD_SIZE;

	node_info_smp(&m, (uint64_t)WRITTEN_HIGH << 32 | low);
	if (umad_send(fd, agent, &m, MAD_SIZE, TIMEOUT_MS, 2) < 0 ||
	    umad_recv(fd, &m, &len, 5000) != agent || umad_status(&m) != 0) {
		fail("a NodeInfo request got no answer");
		return 0;
	}
	return tid_of(&m);
}

static int kernel_style(uint64_t tid, uint32_t low)
{
	uint32_t high = (uint32_t)(tid >> 32);

	return (uint32_t)tid == low && high && high <= 0xffffffu && high != WRITTEN_HIGH;
}

static int agents(void)
{
	int a1, a2, fd1 = open_dr_agent(&a1), fd2 = open_dr_agent(&a2);
	uint64_t t1, t2;

	if (fd1 < 0 || fd2 < 0)
		return fail("cannot open the port and register an agent");
	t1 = ask(fd1, a1, 0x55);
	t2 = ask(fd2, a2, 0x55);
	if (!t1 || !t2)
		return 1;
	printf("hi_tid 0x%" PRIx64 " 0x%" PRIx64 "\n", t1 >> 32, t2 >> 32);
	if (!kernel_style(t1, 0x55) || !kernel_style(t2, 0x55))
		return fail("an answer's TID is not the kernel's (24-bit hi_tid, the low half as written)");
	if (t1 >> 32 == t2 >> 32)
		return fail("two agents share a hi_tid");
	umad_close_port(fd1);
	umad_close_port(fd2);
	return 0;
}

static int outstanding(unsigned n)
{
	int agent, fd = open_dr_agent(&agent), len;
	uint8_t *seen = calloc(n + 1, 1);
	uint32_t high = 0;
	unsigned i;
	struct msg m;

	if (fd < 0 || !seen)
		return fail("cannot open the port and register an agent");
	for (i = 1; i <= n; i++) {
		node_info_smp(&m, i);
		if (umad_send(fd, agent, &m, MAD_SIZE, 5000, 0) < 0)
			return fail("a send was refused");
	}
	for (i = 0; i < n; i++) {
		uint64_t tid;

		len = MAD_SIZE;
		if (umad_recv(fd, &m, &len, 10000) != agent)
			return fail("fewer answers than requests");
		tid = tid_of(&m);
		if (umad_status(&m) || (uint32_t)tid == 0 || (uint32_t)tid > n || seen[(uint32_t)tid])
			return fail("an answer that is no request's, or a second one");
		seen[(uint32_t)tid] = 1;
		if (!high)
			high = (uint32_t)(tid >> 32);
		if ((uint32_t)(tid >> 32) != high || !kernel_style(tid, (uint32_t)tid))
			return fail("an answer without the agent's hi_tid");
	}
	len = MAD_SIZE;
	if (umad_recv(fd, &m, &len, 300) >= 0)
		return fail("an answer more than there were requests");
	printf("outstanding %u answered once each\n", n);
	free(seen);
	umad_close_port(fd);
	return 0;
}

/* --- the re-registration storm -------------------------------------------------------- */

struct storm {
	int fd, agent;
	uint16_t sm_lid;
	uint64_t prefix, guid;
	uint32_t next_tid;
	uint64_t *join_tid;	/* the TID written for each GID's last join */
	unsigned n, sent, resent;
};

static int send_member(struct storm *s, unsigned i, uint8_t method, uint64_t *written)
{
	static const uint8_t broadcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					       0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	struct msg m;
	uint8_t *rec = m.mad + SA_HDR_END;
	uint64_t tid = (uint64_t)rand() << 32 | ++s->next_tid;

	memset(&m, 0, sizeof(m));
	umad_set_addr(&m, s->sm_lid, QP1_GSI, 0, UMAD_QKEY);
	m.mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	m.mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	m.mad[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	m.mad[MAD_OFF_METHOD] = method;
	put_be64(m.mad + MAD_OFF_TID, tid);
	put_be16(m.mad + MAD_OFF_ATTR_ID, UMAD_SA_ATTR_MCMEMBER_REC);
	put_be64(m.mad + SA_OFF_COMP_MASK, UMAD_SA_MCM_COMP_MASK_MGID |
		 UMAD_SA_MCM_COMP_MASK_PORT_GID | UMAD_SA_MCM_COMP_MASK_JOIN_STATE);
	memcpy(MAD_AT(rec, MCR_MGID), broadcast, sizeof(broadcast));
	put_be64(MAD_AT(rec, MCR_PORT_GID), s->prefix);
	put_be64(MAD_AT(rec, MCR_PORT_GID) + 8, s->guid + i);
	mad_set(rec, MCR_JOIN_STATE, UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER);
	if (umad_send(s->fd, s->agent, &m, MAD_SIZE, TIMEOUT_MS, 0) < 0)
		return -1;
	s->sent++;
	if (written)
		*written = tid;
	return 0;
}

static int rereg(struct storm *s, unsigned i)
{
	if (send_member(s, i, UMAD_SA_METHOD_DELETE, NULL) < 0 ||
	    send_member(s, i, UMAD_METHOD_SET, &s->join_tid[i]) < 0)
		return fail("an SA request was refused");
	return 0;
}

static int storm(unsigned n)
{
	struct storm s = { .n = n };
	umad_port_t port;
	time_t start = time(NULL);
	unsigned i, quiet = 0;
	struct msg m;

	if (umad_get_port(NULL, 0, &port) < 0)
		return fail("cannot read the port");
	s.sm_lid = (uint16_t)port.sm_lid;
	s.prefix = be64toh(port.gid_prefix);
	s.guid = be64toh(port.port_guid);
	umad_release_port(&port);
	if (!s.sm_lid)
		return fail("the port knows no SM");
	s.fd = umad_open_port(NULL, 0);
	s.agent = s.fd < 0 ? -1 : umad_register(s.fd, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION,
						0, NULL);
	s.join_tid = calloc(n, sizeof(*s.join_tid));
	if (s.agent < 0 || !s.join_tid)
		return fail("cannot open the port and register an SA agent");
	for (i = 0; i < n; i++)
		if (rereg(&s, i))
			return 1;
	/* Until the SA has been quiet for a while: answers come, or timeouts. */
	while (quiet < 4) {
		int len = MAD_SIZE;
		uint64_t tid;

		if (time(NULL) - start > STORM_SECONDS)
			return fail("the storm did not end in time");
		if (umad_recv(s.fd, &m, &len, TIMEOUT_MS) < 0) {
			quiet++;
			continue;
		}
		quiet = 0;
		if (!umad_status(&m) && !get_be16(m.mad + MAD_OFF_STATUS))
			continue;
		tid = tid_of(&m);
		for (i = 0; i < n && s.join_tid[i] != tid; i++)
			;
		if (i == n)
			continue;	/* not a TID the program wrote: nothing to resend */
		if (++s.resent > STORM_RESEND_LIMIT * n)
			return fail("an error answer carried the TID as written, again and again: the storm does not end");
		if (rereg(&s, i))
			return 1;
	}
	printf("storm of %u GIDs ended: %u requests, %u resent\n", n, s.sent, s.resent);
	free(s.join_tid);
	umad_close_port(s.fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;

	if (umad_init() < 0)
		return fail("umad_init failed");
	if (argc == 2 && !strcmp(argv[1], "agents"))
		return agents();
	if (argc == 3 && n && n <= 100000 && !strcmp(argv[1], "outstanding"))
		return outstanding((unsigned)n);
	if (argc == 3 && n && n <= 100000 && !strcmp(argv[1], "storm"))
		return storm((unsigned)n);
	fprintf(stderr, "usage: tid_probe agents | outstanding N | storm N\n");
	return 2;
}
