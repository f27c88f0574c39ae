/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Trap 128 and SwitchInfo:PortStateChange when a switch port's state
 * changes, whatever changes it: an SM's PortInfo Set of PortPhysicalState
 * (Disabled, then Polling) or of PortState Down, the port at the other end
 * of the cable changing, a fault.  The default fabric is configured as an
 * SM at Hca1 port 1 would leave it, and that SM is a program's agent there
 * (the net's endpoint here), which records the traps it receives:
 *
 *   Hca1[1]-[1]Switch1[7]=[7]Switch2[1]-[1]Hca3
 *   Hca2[1]-[2]Switch1[8]=[8]Switch2[2]-[1]Hca4
 *
 * Every change must leave both ends in the states hardware shows, set
 * PortStateChange on each switch involved, and bring the SM one trap from
 * each of those switches, however many of its ports changed.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/fault.h"
#include "simfabric/net.h"
#include "simfabric/subnet_up.h"
#include "simfabric/topology.h"

#define MAX_TRAPS	16

struct fixture {
	struct sim_fabric *f;
	struct sim_net net;
	struct sim_port *sm;		/* Hca1 port 1: where the SM's agent is */
	unsigned via;			/* the inter-switch port the test's SMPs to Switch2 take */
	uint16_t issuers[MAX_TRAPS];	/* the issuer LID of each Trap 128 received */
	unsigned n_traps, other_mads;
	uint32_t tid;
};

/* The SM's agent: a Trap(Notice) on QP0 at its port is recorded; anything else counted. */
static int receive(void *arg, const struct sim_net_msg *m)
{
	struct fixture *fx = arg;
	const uint8_t *notice = m->data + SMP_OFF_DATA;

	if (m->port != fx->sm || m->dqpn != QP0_SMI || mad_method(m->data) != UMAD_METHOD_TRAP ||
	    mad_attr_id(m->data) != UMAD_ATTR_NOTICE ||
	    mad_get(notice, NTC_TRAP_NUMBER) != TRAP_LINK_STATE_CHANGE) {
		fx->other_mads++;
		return 0;
	}
	/* The details name the switch too: its LID, the issuer's. */
	assert_int_equal(get_be16(MAD_AT(notice, NTC_DATA_DETAILS) + TRAP128_OFF_LID),
			 mad_get(notice, NTC_ISSUER_LID));
	assert_int_equal(mad_get(notice, NTC_PRODUCER_TYPE), NOTICE_PRODUCER_SWITCH);
	assert_true(fx->n_traps < MAX_TRAPS);
	fx->issuers[fx->n_traps++] = (uint16_t)mad_get(notice, NTC_ISSUER_LID);
	return 1;
}

static int setup(void **state)
{
	struct sim_net_endpoint_ops ep = { .receive = receive };
	struct umad_err err = UMAD_ERR_INIT;
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->f = sim_topology_parse(sim_default_topology, "default", &err);
	assert_non_null(fx->f);
	fx->sm = &sim_fabric_find(fx->f, "Hca1")->ports[1];
	assert_int_equal(sim_subnet_bring_up(fx->f, fx->sm, &err), 0);
	/* No built-in SM: the traps go to the agent at the SM's port. */
	ep.arg = fx;
	assert_int_equal(sim_net_init(&fx->net, fx->f, 0, NULL, &ep, &err), 0);
	/* Switch2 reaches the SM over one of its links to Switch1; the tests leave that one up. */
	fx->via = sim_switch_lft_get(sim_fabric_find(fx->f, "Switch2")->sw, fx->sm->lid);
	assert_true(fx->via == 7 || fx->via == 8);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	sim_net_fini(&fx->net);
	sim_fabric_free(fx->f);
	free(fx);
	return 0;
}

static struct sim_node *node(struct fixture *fx, const char *name)
{
	struct sim_node *n = sim_fabric_find(fx->f, name);

	assert_non_null(n);
	return n;
}

static struct sim_port *port(struct fixture *fx, const char *name, unsigned num)
{
	return &node(fx, name)->ports[num];
}

/* The LID of a node: its port 0's for a switch, else port 1's. */
static uint16_t lid_of(struct fixture *fx, const char *name)
{
	struct sim_node *n = node(fx, name);

	return n->ports[n->type == NODE_TYPE_SWITCH ? 0 : 1].lid;
}

/* An SMP's header in mad, its data left as it is. */
static void smp_header(uint8_t *mad, uint8_t cls, uint8_t method, uint16_t attr, uint32_t mod,
		       uint32_t tid)
{
	memset(mad, 0, SMP_OFF_DATA);
	memset(mad + SMP_OFF_INITIAL_PATH, 0, SMP_OFF_RETURN_PATH - SMP_OFF_INITIAL_PATH);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = cls;
	mad[MAD_OFF_CLASS_VERSION] = SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = method;
	put_be64(mad + MAD_OFF_TID, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, attr);
	put_be32(mad + MAD_OFF_ATTR_MOD, mod);
}

/*
 * A directed-route SMP from the SM's port to node `name`, carried by the
 * net; its answer in mad.  The status.  Directed: a link the test takes
 * down may be where LID routes lead, and Switch2 is reached over the
 * other inter-switch link (fx->via), which the tests leave up.
 */
static int smp(struct fixture *fx, uint8_t method, uint16_t attr, uint32_t mod, const char *name,
	       uint8_t *mad)
{
	struct sim_net_msg m = {
		.port = fx->sm, .slid = fx->sm->lid, .dlid = LID_PERMISSIVE, .sqpn = QP0_SMI,
		.dqpn = QP0_SMI, .pkey = PKEY_DEFAULT, .data = mad, .len = MAD_SIZE,
	};
	struct sim_net_reply reply;
	uint8_t *path = mad + SMP_OFF_INITIAL_PATH;

	smp_header(mad, UMAD_CLASS_SUBN_DIRECTED_ROUTE, method, attr, mod, ++fx->tid);
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
	/* Hca1[1] leads to Switch1[1]; Hca2 hangs off Switch1[2], Switch2 off fx->via. */
	path[1] = 1;
	if (!strcmp(name, "Switch2"))
		path[2] = (uint8_t)fx->via;
	else if (!strcmp(name, "Hca2"))
		path[2] = 2;
	else
		assert_string_equal(name, "Switch1");
	mad[SMP_OFF_HOP_CNT] = path[2] ? 2 : 1;
	assert_int_equal(sim_net_send(&fx->net, &m, mad, &reply), SIM_NET_ANSWERED);
	sim_net_reply_release(&reply);
	assert_int_equal(mad_method(mad), UMAD_METHOD_GET_RESP);
	return mad_status(mad) & ~UMAD_SMP_DIRECTION;
}

/* PortInfo Set of port num of node `name`: the states asked (0: no change), the rest as read. */
static void set_port_state(struct fixture *fx, const char *name, unsigned num, unsigned state,
			   unsigned phys)
{
	uint8_t mad[MAD_SIZE] = { 0 };

	assert_int_equal(smp(fx, UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, num, name, mad), 0);
	mad_set(mad + SMP_OFF_DATA, PI_PORT_STATE, state);
	mad_set(mad + SMP_OFF_DATA, PI_PORT_PHYS_STATE, phys);
	/* Leave the rates as they are: the Set changes the states alone. */
	mad_set(mad + SMP_OFF_DATA, PI_LINK_WIDTH_ENABLED, 0);
	mad_set(mad + SMP_OFF_DATA, PI_LINK_SPEED_ENABLED, 0);
	mad_set(mad + SMP_OFF_DATA, PI_LINK_SPEED_EXT_ENABLED, 0);
	assert_int_equal(smp(fx, UMAD_METHOD_SET, UMAD_SM_ATTR_PORT_INFO, num, name, mad), 0);
}

/* SwitchInfo:PortStateChange of a switch, as the SMA answers it. */
static unsigned port_state_change(struct fixture *fx, const char *name)
{
	uint8_t mad[MAD_SIZE] = { 0 };

	assert_int_equal(smp(fx, UMAD_METHOD_GET, UMAD_SM_ATTR_SWITCH_INFO, 0, name, mad), 0);
	return (unsigned)mad_get(mad + SMP_OFF_DATA, SI_PORT_STATE_CHANGE);
}

/* What an SM does after a sweep: PortStateChange cleared (written as 1) on every switch. */
static void clear_port_state_change(struct fixture *fx)
{
	static const char *const switches[] = { "Switch1", "Switch2" };
	unsigned i;

	for (i = 0; i < 2; i++) {
		uint8_t mad[MAD_SIZE] = { 0 };

		assert_int_equal(smp(fx, UMAD_METHOD_GET, UMAD_SM_ATTR_SWITCH_INFO, 0, switches[i],
				     mad), 0);
		mad_set(mad + SMP_OFF_DATA, SI_PORT_STATE_CHANGE, 1);
		assert_int_equal(smp(fx, UMAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, switches[i],
				     mad), 0);
		assert_int_equal(mad_get(mad + SMP_OFF_DATA, SI_PORT_STATE_CHANGE), 0);
	}
	fx->n_traps = 0;
}

/* The traps received since the last look came from exactly these switches, one each. */
static void expect_traps(struct fixture *fx, const char *first, const char *second)
{
	const char *names[2] = { first, second };
	unsigned i, j, want = second ? 2 : first ? 1 : 0;

	assert_int_equal(fx->n_traps, want);
	for (i = 0; i < want; i++) {
		unsigned from = 0;

		for (j = 0; j < fx->n_traps; j++)
			from += fx->issuers[j] == lid_of(fx, names[i]);
		assert_int_equal(from, 1);
	}
	assert_int_equal(fx->other_mads, 0);
	fx->n_traps = 0;
}

static void expect_port(struct fixture *fx, const char *name, unsigned num, unsigned state,
			unsigned phys)
{
	assert_int_equal(port(fx, name, num)->state, state);
	assert_int_equal(port(fx, name, num)->phys_state, phys);
}

/*
 * The link between the switches' ports p changed: Switch1's end is as
 * state1/phys1, Switch2's as state2/phys2, both switches set
 * PortStateChange, and each sent one trap.
 */
static void expect_link_change(struct fixture *fx, unsigned p, unsigned state1, unsigned phys1,
			       unsigned state2, unsigned phys2)
{
	expect_port(fx, "Switch1", p, state1, phys1);
	expect_port(fx, "Switch2", p, state2, phys2);
	assert_int_equal(port_state_change(fx, "Switch1"), 1);
	assert_int_equal(port_state_change(fx, "Switch2"), 1);
	expect_traps(fx, "Switch1", "Switch2");
}

/*
 * The inter-switch link Switch2 does not route the SM's LID over: both
 * switches' traps can then reach the SM while it is down, and the test's
 * SMPs reach Switch2 over the other (fx->via).
 */
static unsigned spare_link(struct fixture *fx)
{
	return fx->via == 7 ? 8 : 7;
}

/* Disabled, then Polling again: ibportstate's disable and enable. */
static void test_disable_enable(void **state)
{
	struct fixture *fx = *state;
	unsigned p = spare_link(fx);

	clear_port_state_change(fx);
	set_port_state(fx, "Switch1", p, 0, PHYS_STATE_DISABLED);
	/*
	 * Down at both ends: the disabled one stays so, the other polls.  The
	 * switch whose port was set traps, and so does the one at the other end.
	 */
	expect_link_change(fx, p, PORT_STATE_DOWN, PHYS_STATE_DISABLED, PORT_STATE_DOWN,
			   PHYS_STATE_POLLING);

	/* Disabled again: nothing changes, and nobody is told. */
	clear_port_state_change(fx);
	set_port_state(fx, "Switch1", p, 0, PHYS_STATE_DISABLED);
	assert_int_equal(port_state_change(fx, "Switch1"), 0);
	assert_int_equal(port_state_change(fx, "Switch2"), 0);
	expect_traps(fx, NULL, NULL);

	/* Polling: the link trains up to Init at both ends, for the SM to bring Active. */
	set_port_state(fx, "Switch1", p, 0, PHYS_STATE_POLLING);
	expect_link_change(fx, p, PORT_STATE_INIT, PHYS_STATE_LINKUP, PORT_STATE_INIT,
			   PHYS_STATE_LINKUP);

	/* The SM arming and activating the ports is no change of the link's. */
	clear_port_state_change(fx);
	set_port_state(fx, "Switch1", p, PORT_STATE_ARMED, 0);
	set_port_state(fx, "Switch1", p, PORT_STATE_ACTIVE, 0);
	expect_port(fx, "Switch1", p, PORT_STATE_ACTIVE, PHYS_STATE_LINKUP);
	assert_int_equal(port_state_change(fx, "Switch1"), 0);
	expect_traps(fx, NULL, NULL);
}

/* PortState Down: the link drops and trains again to Init, at both ends. */
static void test_link_down(void **state)
{
	struct fixture *fx = *state;
	unsigned p = spare_link(fx);

	clear_port_state_change(fx);
	set_port_state(fx, "Switch2", p, PORT_STATE_DOWN, 0);
	expect_link_change(fx, p, PORT_STATE_INIT, PHYS_STATE_LINKUP, PORT_STATE_INIT,
			   PHYS_STATE_LINKUP);
}

/*
 * A CA's port taken Down (its link retrains, so that the answer comes
 * back): the switch at the other end reports it; a CA sends no Trap 128.
 */
static void test_peer_change(void **state)
{
	struct fixture *fx = *state;

	clear_port_state_change(fx);
	set_port_state(fx, "Hca2", 1, PORT_STATE_DOWN, 0);
	expect_port(fx, "Hca2", 1, PORT_STATE_INIT, PHYS_STATE_LINKUP);
	expect_port(fx, "Switch1", 2, PORT_STATE_INIT, PHYS_STATE_LINKUP);
	assert_int_equal(port_state_change(fx, "Switch1"), 1);
	assert_int_equal(port_state_change(fx, "Switch2"), 0);
	expect_traps(fx, "Switch1", NULL);
}

/* Faults change the states through the same machine, and trap the same way. */
static void test_faults(void **state)
{
	struct fixture *fx = *state;
	unsigned p = spare_link(fx);

	clear_port_state_change(fx);
	assert_int_equal(sim_fault_link(&fx->net, port(fx, "Switch1", p), 0), 0);
	expect_link_change(fx, p, PORT_STATE_DOWN, PHYS_STATE_POLLING, PORT_STATE_DOWN,
			   PHYS_STATE_POLLING);
	/* Down already: no change, no trap. */
	assert_int_equal(sim_fault_link(&fx->net, port(fx, "Switch1", p), 0), 0);
	expect_traps(fx, NULL, NULL);
	clear_port_state_change(fx);
	assert_int_equal(sim_fault_link(&fx->net, port(fx, "Switch1", p), 1), 0);
	expect_link_change(fx, p, PORT_STATE_INIT, PHYS_STATE_LINKUP, PORT_STATE_INIT,
			   PHYS_STATE_LINKUP);
	/* Up already: a link that is up is left as it is (not knocked back to Init). */
	set_port_state(fx, "Switch1", p, PORT_STATE_ARMED, 0);
	assert_int_equal(sim_fault_link(&fx->net, port(fx, "Switch1", p), 1), 0);
	expect_port(fx, "Switch1", p, PORT_STATE_ARMED, PHYS_STATE_LINKUP);
	expect_traps(fx, NULL, NULL);

	/* Switch2 down: Switch1 loses both its links to it, and says so once. */
	clear_port_state_change(fx);
	assert_int_equal(sim_fault_node(&fx->net, node(fx, "Switch2"), 0), 0);
	expect_port(fx, "Switch1", 7, PORT_STATE_DOWN, PHYS_STATE_POLLING);
	expect_port(fx, "Switch1", 8, PORT_STATE_DOWN, PHYS_STATE_POLLING);
	assert_int_equal(port_state_change(fx, "Switch1"), 1);
	expect_traps(fx, "Switch1", NULL);
}

/*
 * An SMP a client of a shared fabric carried itself (no net: hooks only)
 * leaves the switches it changed owing their trap; the owner of the net,
 * told of the change (as the server is, by FP_NOTE_CHANGED), sends it once.
 */
static void test_carried_elsewhere(void **state)
{
	struct fixture *fx = *state;
	unsigned p = spare_link(fx);
	uint8_t mad[MAD_SIZE] = { 0 };
	uint16_t slid;
	uint64_t delay_ns;

	clear_port_state_change(fx);
	smp_header(mad, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_METHOD_SET, UMAD_SM_ATTR_PORT_INFO, p,
		   ++fx->tid);
	mad_set(mad + SMP_OFF_DATA, PI_PORT_PHYS_STATE, PHYS_STATE_DISABLED);
	/* LID-routed, as a client's SMP is carried: Switch1 is reached over Hca1's own link. */
	assert_int_equal(sim_net_sma_round_trip(fx->f, fx->sm, lid_of(fx, "Switch1"), mad, NULL,
						&slid, &delay_ns), 1);
	expect_port(fx, "Switch2", p, PORT_STATE_DOWN, PHYS_STATE_POLLING);
	expect_traps(fx, NULL, NULL);
	assert_int_equal(sim_net_link_trap(&fx->net, node(fx, "Switch2")), 0);
	expect_traps(fx, "Switch2", NULL);
	/* Told again, or told of a node that owes nothing: nothing more. */
	assert_int_equal(sim_net_link_trap(&fx->net, node(fx, "Switch2")), 0);
	assert_int_equal(sim_net_link_trap(&fx->net, node(fx, "Hca1")), 0);
	expect_traps(fx, NULL, NULL);
	assert_int_equal(sim_net_link_trap(&fx->net, node(fx, "Switch1")), 0);
	expect_traps(fx, "Switch1", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_disable_enable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_carried_elsewhere, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
