/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Faults through libumad-sim (infiniband/umad_sim.h) on the embedded
 * default fabric with the built-in SM: a link taken down loses the
 * LID-routed MADs across it and sends Trap 128, which the built-in SM
 * answers by sweeping again once the link is back; seeded drops repeat;
 * an SM agent of the process receives the traps once the built-in SM has
 * stepped aside; a subscriber of the built-in SA (InformInfo) gets its
 * Reports; bad names and ports get their errors.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sim.h>
#include <infiniband/umad_sm.h>

#include "libumad/mad_wire.h"

#define PORTINFO_OFF_LID	16	/* PortInfo:LID in the SMP data */

struct msg {
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
};

static int portid, agent;

static uint8_t *mad_of(struct msg *m)
{
	return umad_get_mad(m->buf);
}

static void smp(struct msg *m, uint8_t cls, uint16_t attr, uint16_t dlid, const char *path,
		uint32_t tid)
{
	uint8_t *mad = mad_of(m);
	int hops = 0;

	memset(m->buf, 0, sizeof(m->buf));
	umad_set_addr(m->buf, dlid, QP0_SMI, 0, 0);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = cls;
	mad[MAD_OFF_CLASS_VERSION] = SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, attr);
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
	while (path && *path) {
		char *end;

		mad[SMP_OFF_INITIAL_PATH + ++hops] = (uint8_t)strtoul(path, &end, 10);
		path = *end ? end + 1 : end;
	}
	mad[SMP_OFF_HOP_CNT] = (uint8_t)hops;
}

/* Send, wait for the answer or the timeout: the umad status (0: answered). */
static int round_trip(struct msg *m, int timeout_ms)
{
	int len = MAD_SIZE;

	assert_int_equal(umad_send(portid, agent, m->buf, MAD_SIZE, timeout_ms, 0), 0);
	assert_int_equal(umad_recv(portid, m->buf, &len, -1), agent);
	return umad_status(m->buf);
}

/* Hca3's LID, read over the directed route Hca1 -> Switch1:7 -> Switch2:1. */
static uint16_t hca3_lid(void)
{
	struct msg m;

	smp(&m, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_SM_ATTR_PORT_INFO, LID_PERMISSIVE, "1,7,1", 1);
	assert_int_equal(round_trip(&m, 1000), 0);
	return get_be16(mad_of(&m) + SMP_OFF_DATA + PORTINFO_OFF_LID);
}

/* NodeInfo of a LID, LID-routed: 0 when answered. */
static int lid_routed_get(uint16_t lid, uint32_t tid)
{
	struct msg m;

	smp(&m, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_SM_ATTR_NODE_INFO, lid, NULL, tid);
	return round_trip(&m, 30);
}

static int setup(void **state)
{
	(void)state;
	assert_int_equal(umad_init(), 0);
	portid = umad_open_port("sim0", 1);
	assert_true(portid >= 0);
	agent = umad_register(portid, UMAD_CLASS_SUBN_DIRECTED_ROUTE, 1, 0, NULL);
	assert_true(agent >= 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	umad_close_port(portid);
	umad_done();
	return 0;
}

static void test_bad_names(void **state)
{
	(void)state;
	assert_int_equal(umad_sim_link_down("NoSuchNode", 1), -ENOENT);
	assert_int_equal(umad_sim_link_down("Hca3", 9), -EINVAL);
	assert_int_equal(umad_sim_link_down("Hca3", 0), -EINVAL);
	assert_int_equal(umad_sim_link_down("Hca3", 2), -ENOTCONN);
	assert_int_equal(umad_sim_drop_rate("Hca3", 1, 1.5, 1), -EINVAL);
	assert_int_equal(umad_sim_add_errors("Hca3", 1, "NoSuchCounter", 1), -EINVAL);
	assert_int_equal(umad_sim_send_trap("Hca3", 1, 99), -EINVAL);
	assert_int_equal(umad_sim_node_down(NULL), -ENOENT);
}

/* Down: LID-routed MADs to Hca3 time out; up: the built-in SM sweeps, and they arrive again. */
static void test_link_down_up(void **state)
{
	uint16_t lid = hca3_lid();

	(void)state;
	assert_true(lid != 0);
	assert_int_equal(lid_routed_get(lid, 10), 0);
	assert_int_equal(umad_sim_link_down("Hca3", 1), 0);
	assert_int_equal(lid_routed_get(lid, 11), ETIMEDOUT);
	assert_int_equal(umad_sim_link_up("Hca3", 1), 0);
	assert_int_equal(lid_routed_get(lid, 12), 0);
	/* A whole node: the same. */
	assert_int_equal(umad_sim_node_down("Hca3"), 0);
	assert_int_equal(lid_routed_get(lid, 13), ETIMEDOUT);
	assert_int_equal(umad_sim_node_up("Hca3"), 0);
	assert_int_equal(lid_routed_get(lid, 14), 0);
}

/* An inter-switch link down: the built-in SM routes around it over the other one. */
static void test_reroute(void **state)
{
	uint16_t lid = hca3_lid();
	int i;

	(void)state;
	assert_int_equal(umad_sim_link_down("Switch1", 7), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(lid_routed_get(lid, 20 + (uint32_t)i), 0);
	assert_int_equal(umad_sim_link_down("Switch1", 8), 0);
	assert_int_equal(lid_routed_get(lid, 30), ETIMEDOUT);
	assert_int_equal(umad_sim_link_up("Switch1", 7), 0);
	assert_int_equal(umad_sim_link_up("Switch1", 8), 0);
	assert_int_equal(lid_routed_get(lid, 31), 0);
}

/* Drops at a rate, from a seed: the same seed loses the same MADs. */
static void drop_pattern(uint64_t seed, char *pattern, int n)
{
	uint16_t lid = hca3_lid();
	int i;

	assert_int_equal(umad_sim_drop_rate("Switch2", 1, 0.5, seed), 0);
	for (i = 0; i < n; i++)
		pattern[i] = lid_routed_get(lid, 100 + (uint32_t)i) ? 'x' : '.';
	pattern[n] = '\0';
	assert_int_equal(umad_sim_drop_rate("Switch2", 1, 0, 0), 0);
}

static void test_drops_repeat(void **state)
{
	char a[33], b[33], c[33];

	(void)state;
	drop_pattern(42, a, 32);
	drop_pattern(42, b, 32);
	drop_pattern(7, c, 32);
	assert_string_equal(a, b);
	assert_true(strchr(a, 'x') && strchr(a, '.'));
	assert_string_not_equal(a, c);
	/* Rate 0: nothing lost. */
	assert_int_equal(lid_routed_get(hca3_lid(), 200), 0);
}

/* InformInfo fields the subscription sets. */
#define II_LID_BEGIN	16
#define II_IS_GENERIC	22
#define II_SUBSCRIBE	23
#define II_TYPE		24
#define II_TRAP_NUM	26
#define II_PRODUCER	33

/* Subscribed to Trap 128 through the built-in SA, an agent gets a Report when a link goes down. */
static void test_inform_report(void **state)
{
	long mask[16 / sizeof(long)] = { 0 };
	umad_port_t port;
	struct msg m;
	uint8_t *mad = mad_of(&m), *ii = mad + SA_HDR_END;
	int sa, len = MAD_SIZE;

	(void)state;
	mask[UMAD_METHOD_REPORT / (8 * sizeof(long))] |= 1L << (UMAD_METHOD_REPORT % (8 * sizeof(long)));
	sa = umad_register(portid, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, 0, mask);
	assert_true(sa >= 0);
	assert_int_equal(umad_get_port("sim0", 1, &port), 0);

	memset(m.buf, 0, sizeof(m.buf));
	umad_set_addr(m.buf, (int)port.sm_lid, QP1_GSI, 0, UMAD_QKEY);
	umad_release_port(&port);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	mad[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_SET;
	put_be32(mad + MAD_OFF_TID_LOW, 0x800);
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_ATTR_INFORM_INFO);
	put_be16(ii + II_LID_BEGIN, 0xffff);		/* any issuer */
	ii[II_IS_GENERIC] = 1;
	ii[II_SUBSCRIBE] = 1;
	put_be16(ii + II_TYPE, 0xffff);			/* any type */
	put_be16(ii + II_TRAP_NUM, TRAP_LINK_STATE_CHANGE);
	put_be24(ii + II_PRODUCER, 0xffffff);		/* any producer */
	assert_int_equal(umad_send(portid, sa, m.buf, MAD_SIZE, 1000, 0), 0);
	assert_int_equal(umad_recv(portid, m.buf, &len, 1000), sa);
	assert_int_equal(umad_status(m.buf), 0);
	assert_int_equal(mad_status(mad), 0);

	/* Not for a trap it did not ask for. */
	assert_int_equal(umad_sim_send_trap("Switch2", 3, TRAP_LINK_INTEGRITY), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 200), -ETIMEDOUT);

	assert_int_equal(umad_sim_link_down("Hca4", 1), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 1000), sa);
	assert_int_equal(mad_method(mad), UMAD_METHOD_REPORT);
	assert_int_equal(mad_attr_id(mad), UMAD_ATTR_NOTICE);
	assert_int_equal(get_be16(mad + SA_HDR_END + NOTICE_OFF_TRAP_NUM), TRAP_LINK_STATE_CHANGE);
	assert_int_equal(get_be24(mad + SA_HDR_END + NOTICE_OFF_PRODUCER), NOTICE_PRODUCER_SWITCH);
	assert_int_equal(umad_sim_link_up("Hca4", 1), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 1000), sa);	/* and its return */
	umad_unregister(portid, sa);
}

/* What an SM answers a trap with: TrapRepress to the issuer, with the trap's TID. */
static void repress(int sm_agent, struct msg *trap)
{
	struct msg r;

	memcpy(r.buf, trap->buf, sizeof(r.buf));
	umad_set_addr(r.buf, get_be16(mad_of(trap) + SMP_OFF_DATA + NOTICE_OFF_ISSUER_LID), QP0_SMI,
		      0, 0);
	mad_of(&r)[MAD_OFF_METHOD] = UMAD_METHOD_TRAP_REPRESS;
	assert_int_equal(umad_send(portid, sm_agent, r.buf, MAD_SIZE, 0, 0), 0);
}

/* With an SM of its own (issm held, a trap agent), the process receives Trap 128 from the switch. */
static void test_trap_to_sm_agent(void **state)
{
	long mask[16 / sizeof(long)] = { 0 };
	char issm[256];
	struct msg m;
	int fd, sm_agent, len = MAD_SIZE;
	uint8_t *notice;

	(void)state;
	assert_int_equal(umad_get_issm_path("sim0", 1, issm, sizeof(issm)), 0);
	fd = open(issm, O_RDWR);
	assert_true(fd >= 0);
	mask[UMAD_METHOD_TRAP / (8 * sizeof(long))] |= 1L << (UMAD_METHOD_TRAP % (8 * sizeof(long)));
	sm_agent = umad_register(portid, UMAD_CLASS_SUBN_LID_ROUTED, 1, 0, mask);
	assert_true(sm_agent >= 0);

	assert_int_equal(umad_sim_link_down("Hca4", 1), 0);
	assert_int_equal(umad_recv(portid, m.buf, &len, 1000), sm_agent);
	assert_int_equal(len, MAD_SIZE);
	notice = mad_of(&m) + SMP_OFF_DATA;
	assert_int_equal(mad_method(mad_of(&m)), UMAD_METHOD_TRAP);
	assert_int_equal(mad_attr_id(mad_of(&m)), UMAD_ATTR_NOTICE);
	assert_int_equal(get_be16(notice + NOTICE_OFF_TRAP_NUM), TRAP_LINK_STATE_CHANGE);
	assert_int_equal(notice[NOTICE_OFF_GENERIC_TYPE] & NOTICE_GENERIC, NOTICE_GENERIC);
	assert_int_equal(get_be24(notice + NOTICE_OFF_PRODUCER), NOTICE_PRODUCER_SWITCH);
	assert_true(get_be16(notice + NOTICE_OFF_ISSUER_LID) != 0);
	assert_int_equal(get_be16(notice + NOTICE_OFF_DETAILS + TRAP128_OFF_LID),
			 get_be16(notice + NOTICE_OFF_ISSUER_LID));
	repress(sm_agent, &m);

	/* An injected trap 129 names the port. */
	assert_int_equal(umad_sim_send_trap("Switch2", 3, TRAP_LINK_INTEGRITY), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 1000), sm_agent);
	notice = mad_of(&m) + SMP_OFF_DATA;
	assert_int_equal(get_be16(notice + NOTICE_OFF_TRAP_NUM), TRAP_LINK_INTEGRITY);
	assert_int_equal(notice[NOTICE_OFF_DETAILS + TRAP129_OFF_PORT], 3);

	/* Not repressed, the trap comes again (same TID) once its time is up and we talk. */
	{
		uint8_t tid[MAD_TID_SIZE];
		struct msg r, q;
		int i, got, traps = 0, answers = 0;

		memcpy(tid, mad_of(&m) + MAD_OFF_TID, MAD_TID_SIZE);
		usleep(1200 * 1000);	/* the switch's SubnetTimeout: 4.096 us * 2^18 */
		smp(&q, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_SM_ATTR_NODE_INFO, LID_PERMISSIVE, "", 40);
		assert_int_equal(umad_send(portid, agent, q.buf, MAD_SIZE, 1000, 0), 0);
		for (i = 0; i < 2; i++) {
			len = MAD_SIZE;
			got = umad_recv(portid, r.buf, &len, 1000);
			if (got == agent) {
				answers++;
				continue;
			}
			assert_int_equal(got, sm_agent);
			traps++;
			assert_memory_equal(mad_of(&r) + MAD_OFF_TID, tid, MAD_TID_SIZE);
			assert_int_equal(get_be16(mad_of(&r) + SMP_OFF_DATA + NOTICE_OFF_TRAP_NUM),
					 TRAP_LINK_INTEGRITY);
			repress(sm_agent, &r);
		}
		assert_int_equal(traps, 1);
		assert_int_equal(answers, 1);
		/* Repressed, it does not come again. */
		usleep(1200 * 1000);
		assert_int_equal(lid_routed_get(hca3_lid(), 41), 0);
		len = MAD_SIZE;
		assert_int_equal(umad_recv(portid, r.buf, &len, 300), -ETIMEDOUT);
	}

	/* With the built-in SM retired nobody reroutes: the link stays as the fault left it. */
	assert_int_equal(umad_sim_link_up("Hca4", 1), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 1000), sm_agent);
	umad_unregister(portid, sm_agent);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_link_down_up),
		cmocka_unit_test(test_reroute),
		cmocka_unit_test(test_drops_repeat),
		cmocka_unit_test(test_inform_report),
		/* Last: it retires the built-in SM. */
		cmocka_unit_test(test_trap_to_sm_agent),
	};

	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_MODULE_DIR", MODULE_DIR, 1);
	unsetenv("UMAD_SIM_SM");
	unsetenv("UMAD_SIM_HOST");
	unsetenv("UMAD_SIM_TOPOLOGY");
	return cmocka_run_group_tests(tests, setup, teardown);
}
