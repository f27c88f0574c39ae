/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Faults through libumad-sim (infiniband/umad_sim.h) on the embedded
 * default fabric with the built-in SM, the process attached at Hca1 (sim0)
 * and Hca2 (sim1): a link taken down loses the LID-routed MADs across it
 * and sends Trap 128, which the built-in SM answers by sweeping again once
 * the link is back, and so does a port an SMP disabled and enabled again;
 * seeded drops repeat; delayed ports make SMPs, their answers and GMPs
 * between agents arrive that much later (or the send time out); an SM
 * agent of the process receives the traps once the built-in SM has
 * stepped aside; a subscriber of the built-in SA (InformInfo) gets its
 * Reports; bad names and ports get their errors.
 * Times are asserted as lower bounds only.
 *
 * First, on a fabric of its own (no umad_init), the one request every
 * caller goes through (sim_fault_apply, sim_fault_target of
 * simfabric/fault.h): each operation, and each way a request is refused.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sim.h>
#include <infiniband/umad_sm.h>

#include "base/mad_wire.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/fault.h"
#include "simfabric/net.h"
#include "simfabric/pma.h"
#include "simfabric/scenario.h"
#include "simfabric/topology.h"
#include "tests/own_net.h"

#define PORTINFO_OFF_LID	16	/* PortInfo:LID in the SMP data */
#define PORTINFO_OFF_CAPMASK	20	/* PortInfo:CapabilityMask */
#define PORTINFO_OFF_STATE	32	/* LinkSpeedSupported:4 PortState:4 */
#define PORTINFO_OFF_PHYS	33	/* PortPhysicalState:4 LinkDownDefaultState:4 */
#define CAP_IS_SM		0x00000002u	/* CapabilityMask.IsSM */
#define MS			1000000ull	/* nanoseconds */
#define PING_CLASS		0x32		/* a vendor class (range 2), as ibping's */

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

/* --- the request: sim_fault_apply on a fabric of the test's own ---------------------------- */

static struct sim_port *port_of(struct own_net *o, const char *node, unsigned port)
{
	struct sim_node *n = sim_fabric_find(o->f, node);

	assert_non_null(n);
	assert_true(port <= n->num_ports);
	return &n->ports[port];
}

/* Apply rq; the result, and why in msg (nothing told on success). */
static int apply(struct own_net *o, const struct sim_fault_req *rq, struct umad_err *msg)
{
	int r;

	umad_err_clear(msg);
	r = sim_fault_apply(&o->net, rq, msg);
	if (r == 0)
		assert_string_equal(umad_err_text(msg), "");
	return r;
}

static void test_req_link_node(void **state)
{
	struct own_net *o = *state;
	struct sim_port *sw1_7 = port_of(o, "Switch1", 7), *sw2_7 = port_of(o, "Switch2", 7);
	struct sim_port *hca2 = port_of(o, "Hca2", 1);
	struct umad_err msg = UMAD_ERR_INIT;
	uint64_t traps = o->net.traps_sent;

	assert_true(sim_port_link_up(sw1_7));
	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_LINK, .node = "Switch1",
							  .port = 7, .up = 0 }, &msg), 0);
	assert_false(sim_port_link_up(sw1_7));
	assert_false(sim_port_link_up(sw2_7));
	assert_true(sw1_7->failed);
	/* Both switches tell their SM (Trap 128). */
	assert_true(o->net.traps_sent >= traps + 2);
	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_LINK, .node = "Switch1",
							  .port = 7, .up = 1 }, &msg), 0);
	assert_true(sim_port_link_up(sw1_7));
	assert_false(sw1_7->failed);

	/* A node ignores the port it is given. */
	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_NODE, .node = "Hca2",
							  .port = 99, .up = 0 }, &msg), 0);
	assert_false(sim_port_link_up(hca2));
	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_NODE, .node = "Hca2",
							  .up = 1 }, &msg), 0);
	assert_true(sim_port_link_up(hca2));
}

static void test_req_drop_delay(void **state)
{
	struct own_net *o = *state;
	struct sim_port *p = port_of(o, "Switch1", 8);
	struct sim_fault_req rq = { .op = SIM_FAULT_DROP, .node = "Switch1", .port = 8,
				    .rate = 0.5, .seed = 3 };
	struct umad_err msg = UMAD_ERR_INIT;

	assert_null(p->fault);
	assert_int_equal(apply(o, &rq, &msg), 0);
	assert_non_null(p->fault);
	assert_int_equal(p->fault->drop_threshold, 1u << 31);
	assert_int_equal(p->fault->rng, 3);
	/* Delays count whole microseconds: 1.5 us is 2, as scenarios always had it. */
	rq = (struct sim_fault_req){ .op = SIM_FAULT_DELAY, .node = "Switch1", .port = 8,
				     .delay_ns = 1500 };
	assert_int_equal(apply(o, &rq, &msg), 0);
	assert_int_equal(p->fault->delay_ns, 2000);
	/* A packet leaving the port puts the delay on the meter of this thread's trip. */
	sim_trip_delay_ns = 0;
	(void)sim_link_fault_drops(p->fault);
	assert_int_equal(sim_trip_delay_ns, 2000);
	/* Up to a minute (SIM_FAULT_MAX_DELAY_US), the one limit of every way in; past it, refused. */
	rq.delay_ns = (uint64_t)SIM_FAULT_MAX_DELAY_US * 1000u;
	assert_int_equal(apply(o, &rq, &msg), 0);
	assert_int_equal(p->fault->delay_ns, 60000000000ull);
	rq.delay_ns++;
	assert_int_equal(apply(o, &rq, &msg), -EINVAL);
	assert_string_equal(umad_err_text(&msg), "a delay of 60000000001 ns is longer than a minute (at most 60000000 microseconds)");
	rq.delay_ns = UINT64_MAX;
	assert_int_equal(apply(o, &rq, &msg), -EINVAL);
	rq.delay_ns = 60001000000ull;
	assert_int_equal(apply(o, &rq, &msg), -EINVAL);
	assert_string_equal(umad_err_text(&msg), "a delay of 60001000 microseconds is longer than a minute (at most 60000000 microseconds)");
	assert_int_equal(p->fault->delay_ns, 60000000000ull);
	assert_int_equal(sim_fault_delay(p, SIM_FAULT_MAX_DELAY_US + 1), -EINVAL);
	assert_int_equal(sim_fault_delay(p, UINT32_MAX), -EINVAL);
	assert_int_equal(p->fault->delay_ns, 60000000000ull);
	/* Both ended: the record goes. */
	rq.delay_ns = 0;
	assert_int_equal(apply(o, &rq, &msg), 0);
	assert_non_null(p->fault);
	rq = (struct sim_fault_req){ .op = SIM_FAULT_DROP, .node = "Switch1", .port = 8 };
	assert_int_equal(apply(o, &rq, &msg), 0);
	assert_null(p->fault);
}

static void test_req_counter_trap(void **state)
{
	struct own_net *o = *state;
	struct sim_port *hca3 = port_of(o, "Hca3", 1), *sw1_0 = port_of(o, "Switch1", 0);
	struct umad_err msg = UMAD_ERR_INIT;
	uint64_t traps;

	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_COUNTER, .node = "Hca3",
							  .port = 1, .counter = "SymbolErrorCounter",
							  .count = 4 }, &msg), 0);
	assert_int_equal(sim_pma_counter_get(hca3, SIM_PMA_SYMBOL_ERRORS), 4);
	/* Port 0 of a switch: its own counters. */
	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_COUNTER, .node = "Switch1",
							  .port = 0, .counter = "portxmitdiscards",
							  .count = 2 }, &msg), 0);
	assert_int_equal(sim_pma_counter_get(sw1_0, SIM_PMA_XMIT_DISCARDS), 2);
	/* This one is trapped too (Trap 129). */
	traps = o->net.traps_sent;
	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_COUNTER, .node = "Hca3",
							  .port = 1, .counter = "LocalLinkIntegrityErrors",
							  .count = 1 }, &msg), 0);
	assert_int_equal(o->net.traps_sent, traps + 1);

	traps = o->net.traps_sent;
	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_TRAP, .node = "Switch1",
							  .port = 0, .trap = TRAP_LINK_STATE_CHANGE },
			       &msg), 0);
	assert_int_equal(o->net.traps_sent, traps + 1);
	assert_int_equal(apply(o, &(struct sim_fault_req){ .op = SIM_FAULT_TRAP, .node = "Hca3",
							  .port = 1, .trap = TRAP_SYS_IMAGE_GUID },
			       &msg), 0);
	assert_int_equal(o->net.traps_sent, traps + 2);
}

/* Refused: the code and the message, and the fabric as it was. */
static void refused(struct own_net *o, const struct sim_fault_req *rq, int err, const char *want)
{
	uint64_t traps = o->net.traps_sent;
	struct umad_err msg = UMAD_ERR_INIT;

	assert_int_equal(apply(o, rq, &msg), err);
	assert_string_equal(umad_err_text(&msg), want);
	assert_int_equal(o->net.traps_sent, traps);
	/* sim_fault_target says the same, without a net, and sets nothing. */
	{
		struct sim_node *n = NULL;
		struct sim_port *p = NULL;

		umad_err_clear(&msg);
		assert_int_equal(sim_fault_target(o->f, rq, &n, &p, &msg), err);
		assert_string_equal(umad_err_text(&msg), want);
		assert_null(p);
	}
}

static void test_req_refused(void **state)
{
	struct own_net *o = *state;
	struct sim_fault_req rq = { .op = SIM_FAULT_LINK, .node = "Switch1", .port = 1 };
	struct umad_err msg = UMAD_ERR_INIT;
	int i;

	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_LINK, .port = 1 }, -EINVAL,
		"no node named");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_TRAP, .node = "NoSuchNode", .port = 1,
					    .trap = TRAP_LINK_INTEGRITY },
		-ENOENT, "'NoSuchNode' names no node of the fabric");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_NODE, .node = "Bad\001Name" }, -ENOENT,
		"'Bad?Name' names no node of the fabric");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_NODE,
					    .node = "0123456789012345678901234567890123456789ABCDEF" },
		-ENOENT, "'0123456789012345678901234567890123456789A...' names no node of the fabric");
	refused(o, &(struct sim_fault_req){ .node = "Switch1", .port = 1 }, -EINVAL,
		"unknown fault operation 0");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_N_OPS, .node = "Switch1", .port = 1 },
		-EINVAL, "unknown fault operation 7");
	/* A missing node is told before an op that does not exist (the server always did). */
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_N_OPS, .node = "Nobody" }, -ENOENT,
		"'Nobody' names no node of the fabric");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_DELAY, .node = "Switch1", .port = 40,
					    .delay_ns = 1000 },
		-EINVAL, "\"Switch1\" has ports 1..8, no port 40");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_LINK, .node = "Hca3", .port = 2 },
		-ENOTCONN, "port 2 of \"Hca3\" has no cable");

	/* Port 0: a switch's own, for counters and traps only; a CA has none. */
	for (i = SIM_FAULT_LINK; i < SIM_FAULT_N_OPS; i++) {
		rq = (struct sim_fault_req){ .op = (enum sim_fault_op)i, .node = "Switch1", .port = 0,
					     .rate = 0.25, .delay_ns = 1000,
					     .counter = "SymbolErrorCounter", .count = 1,
					     .trap = TRAP_LINK_INTEGRITY };
		if (i == SIM_FAULT_COUNTER || i == SIM_FAULT_TRAP || i == SIM_FAULT_NODE)
			assert_int_equal(sim_fault_target(o->f, &rq, NULL, NULL, &msg), 0);
		else
			refused(o, &rq, -EINVAL, "port 0 of \"Switch1\" is the switch's own, with no link");
		strcpy(rq.node, "Hca1");
		if (i == SIM_FAULT_NODE)
			assert_int_equal(sim_fault_target(o->f, &rq, NULL, NULL, &msg), 0);
		else
			refused(o, &rq, -EINVAL, "port 0 is a switch's own, and \"Hca1\" is a CA");
	}
	assert_null(port_of(o, "Switch1", 0)->fault);

	/* The operations' own arguments. */
	rq = (struct sim_fault_req){ .op = SIM_FAULT_DROP, .node = "Hca1", .port = 1, .rate = 1.5 };
	refused(o, &rq, -EINVAL, "rate 1.5 out of range 0..1");
	rq.rate = -0.25;
	refused(o, &rq, -EINVAL, "rate -0.25 out of range 0..1");
	rq.rate = NAN;
	refused(o, &rq, -EINVAL, "rate nan out of range 0..1");
	assert_null(port_of(o, "Hca1", 1)->fault);
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_COUNTER, .node = "Hca1", .port = 1,
					    .count = 1 },
		-EINVAL, "no counter named");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_COUNTER, .node = "Hca1", .port = 1,
					    .counter = "NoSuchCounter", .count = 1 },
		-EINVAL, "unknown counter \"NoSuchCounter\": COUNTER is an error counter, e.g. "
		"SymbolErrorCounter (umad --help lists them)");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_COUNTER, .node = "Hca1", .port = 1,
					    .counter = "PortRcvData", .count = 1 },
		-EINVAL, "PortRcvData counts the traffic through the port, and cannot be raised: "
		"COUNTER is an error counter, e.g. SymbolErrorCounter (umad --help lists them)");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_TRAP, .node = "Hca1", .port = 1,
					    .trap = 99 },
		-EINVAL, "no trap 99 (128-131, 144 or 145)");
	refused(o, &(struct sim_fault_req){ .op = SIM_FAULT_TRAP, .node = "Hca1", .port = 1,
					    .trap = TRAP_LINK_STATE_CHANGE },
		-EINVAL, "only switches send trap 128, and \"Hca1\" is a CA");

	/* No net, no request; no message wanted. */
	assert_int_equal(sim_fault_apply(NULL, &rq, &msg), -EINVAL);
	assert_int_equal(sim_fault_apply(&o->net, NULL, &msg), -EINVAL);
	assert_int_equal(sim_fault_target(NULL, &rq, NULL, NULL, NULL), -EINVAL);
	rq = (struct sim_fault_req){ .op = SIM_FAULT_LINK, .node = "Nobody", .port = 1 };
	assert_int_equal(sim_fault_apply(&o->net, &rq, NULL), -ENOENT);
	assert_int_equal(apply(o, &rq, &msg), -ENOENT);
	assert_string_equal(umad_err_text(&msg), "'Nobody' names no node of the fabric");
}

/* A scenario's steps are requests too: checked and applied by the same rules. */
static void test_req_from_scenario(void **state)
{
	static const char text[] = "0 delay Switch1 8 1500ns\n"
				   "1 counter Switch1 0 SymbolErrorCounter 3\n";
	/* The parser refuses port 0 for these; a step made by hand meets the fault API's rule. */
	struct sim_scenario_step made[] = {
		{ .line = 7, .req = { .op = SIM_FAULT_DROP, .node = "Switch1", .port = 0, .rate = 0.5 } },
		{ .line = 8, .req = { .op = SIM_FAULT_LINK, .node = "Switch1", .port = 0 } },
	};
	struct sim_scenario by_hand = { .name = "t.scn", .steps = made, .n_steps = 2 };
	struct own_net *o = *state;
	struct sim_scenario *sc = NULL;
	struct umad_err errors = UMAD_ERR_INIT;

	assert_int_equal(sim_scenario_parse(text, sizeof(text) - 1, "t.scn", &sc, &errors), 0);
	assert_int_equal(sim_scenario_check(sc, o->f, &errors), 0);
	assert_int_equal(sim_scenario_apply(&o->net, &sc->steps[0]), 0);
	assert_int_equal(port_of(o, "Switch1", 8)->fault->delay_ns, 2000);
	assert_int_equal(sim_scenario_apply(&o->net, &sc->steps[1]), 0);
	assert_int_equal(sim_pma_counter_get(port_of(o, "Switch1", 0), SIM_PMA_SYMBOL_ERRORS), 3);
	sim_scenario_free(sc);

	assert_int_equal(sim_scenario_check(&by_hand, o->f, &errors), -EINVAL);
	assert_string_equal(umad_err_text(&errors),
			    "t.scn:7: drop: port 0 of \"Switch1\" is the switch's own, with no link\n"
			    "t.scn:8: link: port 0 of \"Switch1\" is the switch's own, with no link\n");
	umad_err_clear(&errors);
	assert_int_equal(sim_scenario_apply(&o->net, &made[0]), -EINVAL);
	assert_null(port_of(o, "Switch1", 0)->fault);
	assert_int_equal(sim_scenario_apply(&o->net, &made[1]), -EINVAL);
}

static void test_req_delay_us(void **state)
{
	(void)state;
	assert_int_equal(sim_fault_delay_us(0), 0);
	assert_int_equal(sim_fault_delay_us(1), 1);
	assert_int_equal(sim_fault_delay_us(1000), 1);
	assert_int_equal(sim_fault_delay_us(1001), 2);
	assert_int_equal(sim_fault_delay_us((uint64_t)UINT32_MAX * 1000u), UINT32_MAX);
	assert_int_equal(sim_fault_delay_us((uint64_t)UINT32_MAX * 1000u + 1), UINT32_MAX);
}

/* --- through libumad-sim ---------------------------------------------------------------- */

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

/* A request through the shared fabric's message and back: each op keeps what it carries. */
static void test_req_on_the_wire(void **state)
{
	static const struct sim_fault_req reqs[] = {
		{ .op = SIM_FAULT_LINK, .node = "Switch1", .port = 7, .up = 1 },
		{ .op = SIM_FAULT_NODE, .node = "Hca2", .up = 0 },
		{ .op = SIM_FAULT_DROP, .node = "S-0x2", .port = 3, .rate = 0.25, .seed = 99 },
		{ .op = SIM_FAULT_DELAY, .node = "0x100007", .port = 1, .delay_ns = 2500 },
		{ .op = SIM_FAULT_COUNTER, .node = "Hca1", .port = 1, .counter = "SymbolErrorCounter",
		  .count = 12 },
		{ .op = SIM_FAULT_TRAP, .node = "Switch2", .port = 0, .trap = 128 },
	};
	struct sim_fault_req back, bad;
	uint8_t buf[SIM_FAULT_WIRE_MAX];
	struct umad_err err = UMAD_ERR_INIT;
	size_t i;
	int len;

	(void)state;
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		const struct sim_fault_req *rq = &reqs[i];

		len = sim_fault_encode(rq, buf, sizeof(buf));
		assert_true(len >= SIM_FAULT_WIRE_MIN && len <= SIM_FAULT_WIRE_MAX);
		umad_err_clear(&err);
		assert_int_equal(sim_fault_decode(buf, (size_t)len, &back, &err), 0);
		assert_string_equal(umad_err_text(&err), "");
		assert_int_equal(back.op, rq->op);
		assert_string_equal(back.node, rq->node);
		assert_int_equal(back.port, rq->port);
		switch (rq->op) {
		case SIM_FAULT_LINK:
		case SIM_FAULT_NODE:	assert_int_equal(back.up, rq->up); break;
		case SIM_FAULT_DROP:
			assert_true(back.rate == rq->rate);
			assert_int_equal(back.seed, rq->seed);
			break;
		case SIM_FAULT_DELAY:	/* as asked: rounded to whole microseconds where applied */
			assert_int_equal(back.delay_ns, 2500);
			break;
		case SIM_FAULT_COUNTER:
			assert_string_equal(back.counter, rq->counter);
			assert_int_equal(back.count, rq->count);
			break;
		default:		assert_int_equal(back.trap, rq->trap); break;
		}
		/* Every field, the ones the op ignores too. */
		assert_true(sim_fault_same(&back, rq));
	}
	/* What the message cannot carry is refused: names without their NUL, no room. */
	bad = reqs[0];
	memset(bad.node, 'x', sizeof(bad.node));
	assert_int_equal(sim_fault_encode(&bad, buf, sizeof(buf)), -EINVAL);
	bad = reqs[4];
	memset(bad.counter, 'c', sizeof(bad.counter));
	assert_int_equal(sim_fault_encode(&bad, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sim_fault_encode(&reqs[0], buf, SIM_FAULT_WIRE_MIN), -EINVAL);
	/* An unknown op crosses as it is, for the fabric to refuse. */
	bad = reqs[0];
	bad.op = SIM_FAULT_N_OPS;
	len = sim_fault_encode(&bad, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(sim_fault_decode(buf, (size_t)len, &back, &err), 0);
	assert_int_equal(back.op, SIM_FAULT_N_OPS);
}

/*
 * A delay past the limit stays past it on the wire, and the server's
 * do_control (sim_fault_decode, then sim_fault_apply) refuses it, with
 * the limit in the message.
 */
static void test_req_delay_on_the_wire(void **state)
{
	struct own_net *o = *state;
	struct sim_fault_req rq = { .op = SIM_FAULT_DELAY, .node = "Switch1", .port = 8,
				    .delay_ns = (uint64_t)UINT32_MAX * 1000u + 1 }, back;
	uint8_t buf[SIM_FAULT_WIRE_MAX];
	struct umad_err msg = UMAD_ERR_INIT;
	int len;

	len = sim_fault_encode(&rq, buf, sizeof(buf));
	assert_int_equal(sim_fault_decode(buf, (size_t)len, &back, &msg), 0);
	assert_int_equal(back.delay_ns, (uint64_t)UINT32_MAX * 1000u + 1);
	assert_int_equal(apply(o, &back, &msg), -EINVAL);
	assert_string_equal(umad_err_text(&msg), "a delay of 4294967295001 ns is longer than a minute (at most 60000000 microseconds)");
	rq.delay_ns = ((uint64_t)SIM_FAULT_MAX_DELAY_US + 1) * 1000u;
	len = sim_fault_encode(&rq, buf, sizeof(buf));
	assert_int_equal(sim_fault_decode(buf, (size_t)len, &back, &msg), 0);
	assert_int_equal(apply(o, &back, &msg), -EINVAL);
	assert_string_equal(umad_err_text(&msg), "a delay of 60000001 microseconds is longer than a minute (at most 60000000 microseconds)");
	assert_null(port_of(o, "Switch1", 8)->fault);
	rq.delay_ns = (uint64_t)SIM_FAULT_MAX_DELAY_US * 1000u;
	len = sim_fault_encode(&rq, buf, sizeof(buf));
	assert_int_equal(sim_fault_decode(buf, (size_t)len, &back, &msg), 0);
	assert_int_equal(apply(o, &back, &msg), 0);
	assert_int_equal(port_of(o, "Switch1", 8)->fault->delay_ns, 60000000000ull);
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
	assert_int_equal(umad_sim_delay("NoSuchNode", 1, 1000), -ENOENT);
	assert_int_equal(umad_sim_delay(NULL, 1, 1000), -EINVAL);
	assert_int_equal(umad_sim_delay("Hca3", 9, 1000), -EINVAL);
	assert_int_equal(umad_sim_delay("Hca3", 0, 1000), -EINVAL);
	assert_int_equal(umad_sim_delay("Switch1", 0, 1000), -EINVAL);	/* its own port: no link */
	assert_int_equal(umad_sim_delay("Switch1", 9, 0), -EINVAL);
	/* Up to a minute, as umad fabric delay and scenario files; past it, refused. */
	assert_int_equal(umad_sim_delay("Hca3", 1, UMAD_SIM_MAX_DELAY_US + 1), -EINVAL);
	assert_int_equal(umad_sim_delay("Hca3", 1, UINT32_MAX), -EINVAL);
	assert_int_equal(umad_sim_delay("Hca3", 1, UMAD_SIM_MAX_DELAY_US), 0);
	assert_int_equal(umad_sim_delay("Hca3", 1, 0), 0);
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

/* PortInfo of port `port` at the end of a directed route: the SMP's data, after the answer. */
static uint8_t *port_info_dr(struct msg *m, const char *path, unsigned port, uint32_t tid)
{
	smp(m, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_SM_ATTR_PORT_INFO, LID_PERMISSIVE, path, tid);
	put_be32(mad_of(m) + MAD_OFF_ATTR_MOD, port);
	assert_int_equal(round_trip(m, 1000), 0);
	return mad_of(m) + SMP_OFF_DATA;
}

/* A PortInfo Set of PortPhysicalState there, the rest as read, as ibportstate sends it. */
static void set_phys_dr(const char *path, unsigned port, unsigned phys, uint32_t tid)
{
	struct msg m;
	uint8_t read[SMP_DATA_SIZE], *pi;

	memcpy(read, port_info_dr(&m, path, port, tid), sizeof(read));
	smp(&m, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_SM_ATTR_PORT_INFO, LID_PERMISSIVE, path,
	    tid + 1);
	put_be32(mad_of(&m) + MAD_OFF_ATTR_MOD, port);
	mad_of(&m)[MAD_OFF_METHOD] = UMAD_METHOD_SET;
	pi = mad_of(&m) + SMP_OFF_DATA;
	memcpy(pi, read, sizeof(read));
	mad_set(pi, PI_PORT_STATE, PORT_STATE_NOCHANGE);
	mad_set(pi, PI_PORT_PHYS_STATE, phys);
	assert_int_equal(round_trip(&m, 1000), 0);
	assert_int_equal(mad_status(mad_of(&m)) & ~UMAD_SMP_DIRECTION, 0);
}

/*
 * ibportstate's disable, then enable, of Switch2's port to Hca3, on the
 * process's own fabric: Switch2 traps (128) to the built-in SM both
 * times; told, it sweeps, and the port comes back Active, with the route.
 */
static void test_smp_disable_enable(void **state)
{
	uint16_t lid = hca3_lid();
	struct msg m;
	uint8_t *pi;

	(void)state;
	assert_int_equal(lid_routed_get(lid, 50), 0);
	set_phys_dr("1,7", 1, PHYS_STATE_DISABLED, 51);
	pi = port_info_dr(&m, "1,7", 1, 53);
	assert_int_equal(mad_get(pi, PI_PORT_STATE), PORT_STATE_DOWN);
	assert_int_equal(mad_get(pi, PI_PORT_PHYS_STATE), PHYS_STATE_DISABLED);
	assert_int_equal(lid_routed_get(lid, 54), ETIMEDOUT);
	set_phys_dr("1,7", 1, PHYS_STATE_POLLING, 55);
	pi = port_info_dr(&m, "1,7", 1, 57);
	assert_int_equal(mad_get(pi, PI_PORT_PHYS_STATE), PHYS_STATE_LINKUP);
	assert_int_equal(mad_get(pi, PI_PORT_STATE), PORT_STATE_ACTIVE);
	pi = port_info_dr(&m, "1,7,1", 1, 58);
	assert_int_equal(mad_get(pi, PI_PORT_STATE), PORT_STATE_ACTIVE);
	assert_int_equal(lid_routed_get(lid, 59), 0);
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An SMP's round trip: its umad status, and how long from the send to the answer or timeout. */
static int timed_round_trip(struct msg *m, int timeout_ms, uint64_t *took)
{
	uint64_t t0 = now_ns();
	int status = round_trip(m, timeout_ms);

	*took = now_ns() - t0;
	return status;
}

/*
 * Delays out of Switch2 towards Hca3 (the request's way) and out of Hca3
 * (the answer's): an SMP to Hca3, directed or LID-routed, is answered no
 * earlier than their sum; one way alone, no earlier than its own; a
 * timeout shorter than the sum ends the send, and its late answer never
 * comes; delay 0 gives the answer at once again.
 */
static void test_delay_smp(void **state)
{
	uint16_t lid = hca3_lid();
	uint64_t took;
	struct msg m;
	int len;

	(void)state;
	assert_int_equal(umad_sim_delay("Switch2", 1, 40000), 0);
	assert_int_equal(umad_sim_delay("Hca3", 1, 60000), 0);
	/* Ending drops that were never asked for leaves the delay alone. */
	assert_int_equal(umad_sim_drop_rate("Hca3", 1, 0, 0), 0);
	smp(&m, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_SM_ATTR_NODE_INFO, LID_PERMISSIVE, "1,7,1", 300);
	assert_int_equal(timed_round_trip(&m, 2000, &took), 0);
	assert_true(took >= 100 * MS);
	assert_int_equal(mad_method(mad_of(&m)), UMAD_METHOD_GET_RESP);
	smp(&m, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_SM_ATTR_NODE_INFO, lid, NULL, 301);
	assert_int_equal(timed_round_trip(&m, 2000, &took), 0);
	assert_true(took >= 100 * MS);
	assert_int_equal(get_be16(mad_of(&m) + MAD_OFF_STATUS), 0);

	/* Later than the timeout: the send times out, and the answer is lost on arrival. */
	smp(&m, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_SM_ATTR_NODE_INFO, lid, NULL, 302);
	assert_int_equal(timed_round_trip(&m, 50, &took), ETIMEDOUT);
	assert_true(took >= 50 * MS);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 300), -ETIMEDOUT);

	/* The answer's way alone. */
	assert_int_equal(umad_sim_delay("Switch2", 1, 0), 0);
	smp(&m, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_SM_ATTR_NODE_INFO, lid, NULL, 303);
	assert_int_equal(timed_round_trip(&m, 2000, &took), 0);
	assert_true(took >= 60 * MS);

	/* No delay left: the answer is there when umad_send returns. */
	assert_int_equal(umad_sim_delay("Hca3", 1, 0), 0);
	smp(&m, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_SM_ATTR_NODE_INFO, lid, NULL, 304);
	assert_int_equal(umad_send(portid, agent, m.buf, MAD_SIZE, 1000, 0), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 0), agent);
	assert_int_equal(umad_status(m.buf), 0);
	/* A delay on a link no route crosses changes nothing. */
	assert_int_equal(umad_sim_delay("Hca4", 1, 500000), 0);
	smp(&m, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_SM_ATTR_NODE_INFO, lid, NULL, 305);
	assert_int_equal(umad_send(portid, agent, m.buf, MAD_SIZE, 1000, 0), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 0), agent);
	assert_int_equal(umad_sim_delay("Hca4", 1, 0), 0);
}

static int reg_ping(int port, uint8_t method)
{
	long mask[16 / sizeof(long)] = { 0 };
	uint8_t oui[3] = { UMAD_OPENIB_OUI >> 16, (UMAD_OPENIB_OUI >> 8) & 0xff,
			   UMAD_OPENIB_OUI & 0xff };

	if (method)
		mask[method / (8 * sizeof(long))] |= 1L << (method % (8 * sizeof(long)));
	return umad_register_oui(port, PING_CLASS, 0, oui, mask);
}

static void ping_mad(struct msg *m, uint16_t dlid, uint8_t method, uint32_t tid)
{
	uint8_t *mad = mad_of(m);

	memset(m->buf, 0, sizeof(m->buf));
	umad_set_addr(m->buf, dlid, QP1_GSI, 0, UMAD_QKEY);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = PING_CLASS;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = method;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	put_be24(mad + VENDOR_OFF_OUI, UMAD_OPENIB_OUI);
}

static uint16_t port_lid(const char *ca)
{
	umad_port_t port;
	uint16_t lid;

	assert_int_equal(umad_get_port(ca, 1, &port), 0);
	lid = (uint16_t)port.base_lid;
	umad_release_port(&port);
	return lid;
}

/* The server at sim1 answers the request it received (its GetResp to where it came from). */
static void answer(int server, int s_agent, struct msg *req)
{
	struct msg resp;

	memcpy(resp.buf, req->buf, sizeof(resp.buf));
	umad_set_addr(resp.buf, be16toh(umad_get_mad_addr(req->buf)->lid), QP1_GSI, 0, UMAD_QKEY);
	mad_of(&resp)[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
	assert_int_equal(umad_send(server, s_agent, resp.buf, MAD_SIZE, 0, 0), 0);
}

/*
 * GMPs between agents of the process (Hca1 to Hca2 and back): the request
 * reaches the server no earlier than the delay on its way, the answer the
 * client no earlier than the delay on the way back; a client whose timeout
 * runs out before the answer arrives gets ETIMEDOUT, and the answer is lost.
 */
static void test_delay_agents(void **state)
{
	int server = umad_open_port("sim1", 1);
	int c_agent = reg_ping(portid, 0), s_agent;
	uint16_t server_lid = port_lid("sim1");
	struct msg m;
	uint64_t t0, t1;
	int len;

	(void)state;
	assert_true(server >= 0);
	s_agent = reg_ping(server, UMAD_METHOD_GET);
	assert_true(c_agent >= 0 && s_agent >= 0);
	assert_int_equal(umad_sim_delay("Switch1", 2, 50000), 0);	/* towards Hca2 */
	assert_int_equal(umad_sim_delay("Hca2", 1, 30000), 0);		/* back */

	ping_mad(&m, server_lid, UMAD_METHOD_GET, 400);
	t0 = now_ns();
	assert_int_equal(umad_send(portid, c_agent, m.buf, MAD_SIZE, 2000, 0), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(server, m.buf, &len, 2000), s_agent);
	assert_true(now_ns() - t0 >= 50 * MS);
	t1 = now_ns();
	answer(server, s_agent, &m);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 2000), c_agent);
	assert_true(now_ns() - t1 >= 30 * MS);
	assert_int_equal(umad_status(m.buf), 0);
	assert_int_equal(mad_method(mad_of(&m)), UMAD_METHOD_GET_RESP);
	assert_int_equal(get_be32(mad_of(&m) + MAD_OFF_TID_LOW), 400);

	/* The answer would come after the client's timeout: it times out, the answer is lost. */
	ping_mad(&m, server_lid, UMAD_METHOD_GET, 401);
	t0 = now_ns();
	assert_int_equal(umad_send(portid, c_agent, m.buf, MAD_SIZE, 60, 0), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(server, m.buf, &len, 2000), s_agent);
	answer(server, s_agent, &m);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 2000), c_agent);
	assert_int_equal(umad_status(m.buf), ETIMEDOUT);
	assert_true(now_ns() - t0 >= 60 * MS);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 300), -ETIMEDOUT);

	assert_int_equal(umad_sim_delay("Switch1", 2, 0), 0);
	assert_int_equal(umad_sim_delay("Hca2", 1, 0), 0);
	umad_unregister(portid, c_agent);
	umad_unregister(server, s_agent);
	umad_close_port(server);
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
	assert_int_equal(mad_get(mad + SA_HDR_END, NTC_TRAP_NUMBER), TRAP_LINK_STATE_CHANGE);
	assert_int_equal(mad_get(mad + SA_HDR_END, NTC_PRODUCER_TYPE), NOTICE_PRODUCER_SWITCH);
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
	umad_set_addr(r.buf, mad_get(mad_of(trap) + SMP_OFF_DATA, NTC_ISSUER_LID), QP0_SMI,
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
	assert_int_equal(mad_get(notice, NTC_TRAP_NUMBER), TRAP_LINK_STATE_CHANGE);
	assert_int_equal(mad_get(notice, NTC_IS_GENERIC), 1);
	assert_int_equal(mad_get(notice, NTC_PRODUCER_TYPE), NOTICE_PRODUCER_SWITCH);
	assert_true(mad_get(notice, NTC_ISSUER_LID) != 0);
	assert_int_equal(get_be16(MAD_AT(notice, NTC_DATA_DETAILS) + TRAP128_OFF_LID),
			 mad_get(notice, NTC_ISSUER_LID));
	repress(sm_agent, &m);

	/* An injected trap 129 names the port. */
	assert_int_equal(umad_sim_send_trap("Switch2", 3, TRAP_LINK_INTEGRITY), 0);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 1000), sm_agent);
	notice = mad_of(&m) + SMP_OFF_DATA;
	assert_int_equal(mad_get(notice, NTC_TRAP_NUMBER), TRAP_LINK_INTEGRITY);
	assert_int_equal(MAD_AT(notice, NTC_DATA_DETAILS)[TRAP129_OFF_PORT], 3);

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
			assert_int_equal(mad_get(mad_of(&r) + SMP_OFF_DATA, NTC_TRAP_NUMBER),
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

/* A port's CapabilityMask as umad_get_port() shows it (IsSM brought in line with issm). */
static uint32_t capmask_of(const char *ca)
{
	umad_port_t port;
	uint32_t capmask;

	assert_int_equal(umad_get_port(ca, 1, &port), 0);
	capmask = be32toh(port.capmask);
	umad_release_port(&port);
	return capmask;
}

/* A Trap 144 for the SM agent, from the port with that LID and CapabilityMask; repressed. */
static void expect_trap144(int sm_agent, uint16_t lid, uint32_t capmask)
{
	struct msg m;
	uint8_t *notice, *details;
	int len = MAD_SIZE;

	assert_int_equal(umad_recv(portid, m.buf, &len, 1000), sm_agent);
	notice = mad_of(&m) + SMP_OFF_DATA;
	details = MAD_AT(notice, NTC_DATA_DETAILS);
	assert_int_equal(mad_class(mad_of(&m)), UMAD_CLASS_SUBN_LID_ROUTED);
	assert_int_equal(mad_method(mad_of(&m)), UMAD_METHOD_TRAP);
	assert_int_equal(mad_attr_id(mad_of(&m)), UMAD_ATTR_NOTICE);
	assert_int_equal(mad_get(notice, NTC_IS_GENERIC), 1);
	assert_int_equal(mad_get(notice, NTC_TYPE), NOTICE_TYPE_INFO);
	assert_int_equal(mad_get(notice, NTC_PRODUCER_TYPE), NOTICE_PRODUCER_CA);
	assert_int_equal(mad_get(notice, NTC_TRAP_NUMBER), TRAP_CAPABILITY_CHANGE);
	assert_int_equal(mad_get(notice, NTC_ISSUER_LID), lid);
	assert_int_equal(get_be16(details + TRAP144_OFF_LID), lid);
	assert_int_equal(get_be32(details + TRAP144_OFF_CAPMASK), capmask);
	/* The capability mask itself changed, nothing else of the node. */
	assert_int_equal(details[TRAP144_OFF_LOCAL_CHANGES], 0);
	assert_int_equal(get_be16(details + TRAP144_OFF_CHANGE_FLAGS), 0);
	repress(sm_agent, &m);
}

/*
 * A program taking or leaving the issm device of a port changes its
 * CapabilityMask.IsSM, which the port's SMA traps (144) to its SM: the SM
 * agent at sim0 (where the SM LID points) receives one when Hca2's changes
 * either way, none when its own port's does.  An SM's PortInfo Set cannot
 * change CapabilityMask (it is read-only), so that sends none either.
 */
static void test_capmask_trap(void **state)
{
	long mask[16 / sizeof(long)] = { 0 };
	char issm0[256], issm1[256];
	uint16_t lid1 = port_lid("sim0"), lid2 = port_lid("sim1");
	uint32_t cap2;
	struct msg m;
	uint8_t *data = mad_of(&m) + SMP_OFF_DATA;
	int fd0, fd1, sm_agent, len;

	(void)state;
	mask[UMAD_METHOD_TRAP / (8 * sizeof(long))] |= 1L << (UMAD_METHOD_TRAP % (8 * sizeof(long)));
	sm_agent = umad_register(portid, UMAD_CLASS_SUBN_LID_ROUTED, 1, 0, mask);
	assert_true(sm_agent >= 0);
	assert_int_equal(umad_get_issm_path("sim0", 1, issm0, sizeof(issm0)), 0);
	assert_int_equal(umad_get_issm_path("sim1", 1, issm1, sizeof(issm1)), 0);
	assert_true(lid1 && lid2 && lid1 != lid2);

	fd1 = open(issm1, O_RDWR);
	assert_true(fd1 >= 0);
	cap2 = capmask_of("sim1");
	assert_true(cap2 & CAP_IS_SM);
	expect_trap144(sm_agent, lid2, cap2);

	/* The SM's own port: its SMA does not trap to itself. */
	fd0 = open(issm0, O_RDWR);
	assert_true(fd0 >= 0);
	assert_true(capmask_of("sim0") & CAP_IS_SM);
	close(fd0);
	assert_false(capmask_of("sim0") & CAP_IS_SM);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 300), -ETIMEDOUT);

	/* A PortInfo Set with another CapabilityMask: answered with the port's own, no trap. */
	smp(&m, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_SM_ATTR_PORT_INFO, LID_PERMISSIVE, "1,2", 500);
	assert_int_equal(round_trip(&m, 1000), 0);
	assert_int_equal(get_be32(data + PORTINFO_OFF_CAPMASK), cap2);
	smp(&m, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_SM_ATTR_PORT_INFO, LID_PERMISSIVE, "1,2", 501);
	assert_int_equal(round_trip(&m, 1000), 0);
	mad_of(&m)[MAD_OFF_METHOD] = UMAD_METHOD_SET;
	mad_of(&m)[MAD_OFF_STATUS] = 0;
	mad_of(&m)[MAD_OFF_STATUS + 1] = 0;
	mad_of(&m)[SMP_OFF_HOP_PTR] = 0;
	put_be32(mad_of(&m) + MAD_OFF_TID_LOW, 502);
	put_be32(data + PORTINFO_OFF_CAPMASK, cap2 & ~CAP_IS_SM);
	data[PORTINFO_OFF_STATE] &= 0xf0;		/* PortState: no change */
	data[PORTINFO_OFF_PHYS] &= 0x0f;		/* PortPhysicalState: no change */
	umad_set_addr(m.buf, LID_PERMISSIVE, QP0_SMI, 0, 0);
	assert_int_equal(round_trip(&m, 1000), 0);
	assert_int_equal(mad_status(mad_of(&m)) & ~UMAD_SMP_DIRECTION, 0);
	assert_int_equal(get_be32(data + PORTINFO_OFF_CAPMASK), cap2);
	assert_int_equal(capmask_of("sim1"), cap2);
	len = MAD_SIZE;
	assert_int_equal(umad_recv(portid, m.buf, &len, 300), -ETIMEDOUT);

	/* Hca2 leaves it: a trap again, IsSM clear. */
	close(fd1);
	cap2 = capmask_of("sim1");
	assert_false(cap2 & CAP_IS_SM);
	expect_trap144(sm_agent, lid2, cap2);
	umad_unregister(portid, sm_agent);
}

int main(void)
{
	int r;
	const struct CMUnitTest own[] = {
		cmocka_unit_test(test_req_delay_us),
		cmocka_unit_test(test_req_on_the_wire),
		cmocka_unit_test_setup_teardown(test_req_link_node, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_req_drop_delay, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_req_delay_on_the_wire, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_req_counter_trap, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_req_refused, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_req_from_scenario, own_setup, own_teardown),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_link_down_up),
		cmocka_unit_test(test_reroute),
		cmocka_unit_test(test_smp_disable_enable),
		cmocka_unit_test(test_drops_repeat),
		cmocka_unit_test(test_delay_smp),
		cmocka_unit_test(test_delay_agents),
		cmocka_unit_test(test_inform_report),
		/* Last: they need the built-in SM retired (the first retires it). */
		cmocka_unit_test(test_trap_to_sm_agent),
		cmocka_unit_test(test_capmask_trap),
	};

	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_MODULE_DIR", MODULE_DIR, 1);
	unsetenv("UMAD_SIM_SM");
	setenv("UMAD_SIM_HOST", "Hca1,Hca2", 1);
	unsetenv("UMAD_SIM_TOPOLOGY");
	r = cmocka_run_group_tests_name("the request", own, NULL, NULL);
	return cmocka_run_group_tests_name("libumad-sim", tests, setup, teardown) || r;
}
