/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The SMA and the routes to it: every attribute's Get and Set, the MAD
 * statuses for what is not supported, M_Key per protection level,
 * directed routes (hop pointer, return path, LID-routed parts, links that
 * are down) and the port state machine.  Everything runs on the default
 * fabric, sent from Hca1 port 1 as the sim backend sends:
 *
 *   Hca1[1]-[1]Switch1[7]=[7]Switch2[1]-[1]Hca3
 *   Hca2[1]-[2]Switch1[8]=[8]Switch2[2]-[1]Hca4
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
#include "simfabric/fabric.h"
#include "simfabric/port_state.h"
#include "simfabric/route.h"
#include "simfabric/sma.h"
#include "simfabric/topology.h"

#define LOST (-1)

struct fixture {
	struct sim_fabric *f;
	struct sim_port *host;		/* Hca1 port 1 */
	uint8_t mad[MAD_SIZE];
	uint64_t m_key;			/* what requests carry */
	uint16_t dr_slid, dr_dlid;
	int changes;			/* node_changed hook calls */
};

static struct fixture *fx;

static void count_change(void *arg, struct sim_node *n)
{
	(void)n;
	((struct fixture *)arg)->changes++;
}

static struct sim_sma_hooks hooks = { .node_changed = count_change };

static int setup(void **state)
{
	struct umad_err errors = UMAD_ERR_INIT;

	fx = calloc(1, sizeof(*fx));
	fx->f = sim_topology_parse(sim_default_topology, "default", &errors);
	if (!fx->f)
		return -1;
	fx->host = &sim_fabric_find(fx->f, "Hca1")->ports[1];
	fx->dr_slid = fx->dr_dlid = LID_PERMISSIVE;
	hooks.arg = fx;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sim_fabric_free(fx->f);
	free(fx);
	return 0;
}

static struct sim_node *node(const char *name)
{
	struct sim_node *n = sim_fabric_find(fx->f, name);

	assert_non_null(n);
	return n;
}

/* Build a directed-route SMP in fx->mad; path lists the ports out of each hop (not path[0]). */
static uint8_t *dr_smp(uint8_t method, uint16_t attr, uint32_t mod, const char *path)
{
	uint8_t *m = fx->mad;
	unsigned hops = 0;

	memset(m, 0, MAD_SIZE);
	m[MAD_OFF_BASE_VERSION] = 1;
	m[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	m[MAD_OFF_CLASS_VERSION] = 1;
	m[MAD_OFF_METHOD] = method;
	put_be64(m + MAD_OFF_TID, 0x1234);
	put_be16(m + MAD_OFF_ATTR_ID, attr);
	put_be32(m + MAD_OFF_ATTR_MOD, mod);
	put_be64(m + SMP_OFF_MKEY, fx->m_key);
	put_be16(m + SMP_OFF_DR_SLID, fx->dr_slid);
	put_be16(m + SMP_OFF_DR_DLID, fx->dr_dlid);
	for (; *path; path++) {
		if (*path >= '0' && *path <= '9') {
			unsigned port = (unsigned)strtoul(path, (char **)&path, 10);

			m[SMP_OFF_INITIAL_PATH + ++hops] = (uint8_t)port;
			path--;
		}
	}
	m[SMP_OFF_HOP_CNT] = (uint8_t)hops;
	return m + SMP_OFF_DATA;
}

/* A LID-routed SMP. */
static uint8_t *lid_smp(uint8_t method, uint16_t attr, uint32_t mod)
{
	uint8_t *d = dr_smp(method, attr, mod, "");

	fx->mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_LID_ROUTED;
	memset(fx->mad + SMP_OFF_DR_SLID, 0, 4);
	return d;
}

/* Send fx->mad to `dlid`; the answer's status (without the D bit), or LOST. */
static int send_to(uint16_t dlid)
{
	uint16_t slid = 0;

	if (!sim_smp_round_trip(fx->f, fx->host, dlid, fx->mad, &slid, &hooks))
		return LOST;
	assert_int_equal(fx->mad[MAD_OFF_METHOD], UMAD_METHOD_GET_RESP);
	assert_int_equal(get_be64(fx->mad + MAD_OFF_TID), 0x1234);
	if (fx->mad[MAD_OFF_CLASS] == UMAD_CLASS_SUBN_DIRECTED_ROUTE) {
		/* Answers come back with the direction bit set and the hop pointer consumed. */
		assert_true(fx->mad[MAD_OFF_STATUS] & 0x80);
		assert_int_equal(slid, LID_PERMISSIVE);
	}
	return get_be16(fx->mad + MAD_OFF_STATUS) & 0x7fff;
}

static int send_dr(void)
{
	return send_to(LID_PERMISSIVE);
}

static uint8_t *data(void)
{
	return fx->mad + SMP_OFF_DATA;
}

/* PortInfo of a node by DR, read into buf (64 bytes). */
static void get_port_info(const char *path, unsigned port, uint8_t *buf)
{
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, port, path);
	assert_int_equal(send_dr(), 0);
	memcpy(buf, data(), SMP_DATA_SIZE);
}

/* PortInfo to change and Set back, as an SM writes it: PortState and PortPhysicalState NoChange. */
static void port_info_for_set(const char *path, unsigned port, uint8_t *buf)
{
	get_port_info(path, port, buf);
	buf[32] &= 0xf0;
	buf[33] &= 0x0f;
}

/* Set PortInfo from buf; the status. */
static int set_port_info(const char *path, unsigned port, const uint8_t *buf)
{
	memcpy(dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_PORT_INFO, port, path), buf, SMP_DATA_SIZE);
	return send_dr();
}

/* --- NodeDescription, NodeInfo --------------------------------------------- */

static void test_node_description(void **state)
{
	(void)state;
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_DESC, 0, "1,7");
	assert_int_equal(send_dr(), 0);
	assert_string_equal((char *)data(), "Switch2");
	dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_NODE_DESC, 0, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

static void test_node_info(void **state)
{
	uint8_t *d;

	(void)state;
	/* The host itself (0 hops): a CA, local port 1. */
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(d[0], 1);
	assert_int_equal(d[1], 1);
	assert_int_equal(d[2], NODE_TYPE_CA);
	assert_int_equal(d[3], 2);
	assert_int_equal(get_be64(d + 12), 0x100000);
	assert_int_equal(get_be64(d + 20), 0x100001);
	assert_int_equal(d[36], 1);
	/* Switch2, reached over Switch1's port 8: it says it was reached through its port 8. */
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,8");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(d[2], NODE_TYPE_SWITCH);
	assert_int_equal(d[3], 8);
	assert_int_equal(get_be64(d + 12), 0x200001);
	assert_int_equal(get_be64(d + 20), 0x200001);
	assert_int_equal(d[36], 8);
	/* Hca4 across both switches: its own port GUID. */
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,7,2");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be64(d + 20), node("Hca4")->ports[1].guid);
	dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

/* --- PortInfo ----------------------------------------------------------------- */

static void test_port_info_get(void **state)
{
	uint8_t pi[64];

	(void)state;
	/* An end port: modifier 0 is the port asked through. */
	get_port_info("", 0, pi);
	assert_int_equal(pi[28], 1);			/* LocalPortNum */
	assert_int_equal(pi[32] & 0xf, PORT_STATE_INIT);
	assert_int_equal(pi[33] >> 4, PHYS_STATE_LINKUP);
	assert_int_equal(pi[31], LINK_WIDTH_4X);		/* LinkWidthActive */
	assert_int_equal(pi[35] >> 4, LINK_SPEED_SDR);	/* LinkSpeedActive */
	assert_int_equal(pi[41] & 0xf, 5);		/* MTUCap 4096 */
	/* Port 2 of the host is not cabled. */
	get_port_info("", 2, pi);
	assert_int_equal(pi[32] & 0xf, PORT_STATE_DOWN);
	assert_int_equal(pi[33] >> 4, PHYS_STATE_POLLING);
	/* A switch answers for any of its ports, 0 included. */
	get_port_info("1", 7, pi);
	assert_int_equal(pi[32] & 0xf, PORT_STATE_INIT);
	/* Port 0, with no link of its own, is Active from power-on (a base port 0). */
	get_port_info("1", 0, pi);
	assert_int_equal(pi[32] & 0xf, PORT_STATE_ACTIVE);
	assert_int_equal(pi[33] >> 4, PHYS_STATE_LINKUP);
	get_port_info("1", 3, pi);
	assert_int_equal(pi[32] & 0xf, PORT_STATE_DOWN);
	/* Out of range. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, 9, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, 3, "");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
}

static void test_port_info_set(void **state)
{
	uint8_t pi[64], back[64];

	(void)state;
	/* LID, LMC, SM LID and SL, M_Key (level 0), neighbour MTU, operational VLs. */
	port_info_for_set("", 0, pi);
	put_be16(pi + 16, 0x10);	/* LID */
	pi[34] = 2;			/* LMC */
	put_be16(pi + 18, 0x1);		/* MasterSMLID */
	pi[36] = (uint8_t)(4 << 4 | 3);	/* NeighborMTU 2048, MasterSMSL 3 */
	pi[43] = (uint8_t)(2 << 4);	/* OperationalVLs VL0-1 */
	put_be64(pi + 8, 0xfe80000000000000ull);
	fx->changes = 0;
	assert_int_equal(set_port_info("", 0, pi), 0);
	assert_int_equal(fx->changes, 1);
	get_port_info("", 0, back);
	assert_int_equal(get_be16(back + 16), 0x10);
	assert_int_equal(back[34] & 7, 2);
	assert_int_equal(get_be16(back + 18), 1);
	assert_int_equal(back[36], 4 << 4 | 3);
	assert_int_equal(back[43] >> 4, 2);
	assert_int_equal(get_be64(back + 8), 0xfe80000000000000ull);
	/* The LID range now reaches the port: LIDs 0x10..0x13. */
	{
		uint8_t port = 0;

		assert_ptr_equal(sim_fabric_node_by_lid(fx->f, 0x13, &port), node("Hca1"));
		assert_int_equal(port, 1);
		assert_null(sim_fabric_node_by_lid(fx->f, 0x14, &port));
	}
	/* A switch's LID is set through port 0 (LMC stays 0); its other ports keep none. */
	port_info_for_set("1", 0, pi);
	put_be16(pi + 16, 0x20);
	pi[34] = 1;
	assert_int_equal(set_port_info("1", 0, pi), 0);
	get_port_info("1", 5, back);
	assert_int_equal(get_be16(back + 16), 0x20);	/* every port shows the switch's LID */
	assert_int_equal(back[34] & 7, 0);
	assert_int_equal(node("Switch1")->ports[0].lid, 0x20);
	assert_int_equal(node("Switch1")->ports[5].lid, 0);
	/*
	 * Rates: enable 1x only on the host port.  The link keeps its width
	 * until it trains again (PortPhysicalState Polling), then runs at 1x
	 * at both ends.
	 */
	port_info_for_set("", 0, pi);
	pi[29] = LINK_WIDTH_1X;
	assert_int_equal(set_port_info("", 0, pi), 0);
	get_port_info("", 0, back);
	assert_int_equal(back[29], LINK_WIDTH_1X);
	assert_int_equal(back[31], LINK_WIDTH_4X);
	assert_int_equal(node("Switch1")->ports[1].width_active, LINK_WIDTH_4X);
	port_info_for_set("", 0, pi);
	pi[33] = PHYS_STATE_POLLING << 4;
	assert_int_equal(set_port_info("", 0, pi), 0);
	get_port_info("", 0, back);
	assert_int_equal(back[31], LINK_WIDTH_1X);
	assert_int_equal(back[32] & 0xf, PORT_STATE_INIT);	/* trained up again: Init */
	assert_int_equal(node("Switch1")->ports[1].width_active, LINK_WIDTH_1X);
	/* 0xff: enable everything supported; the next training takes 4x again. */
	pi[29] = 0xff;
	pi[33] = PHYS_STATE_POLLING << 4;
	assert_int_equal(set_port_info("", 0, pi), 0);
	assert_int_equal(fx->host->width_active, LINK_WIDTH_4X);
}

static void test_port_info_set_invalid(void **state)
{
	uint8_t pi[64], back[64];

	(void)state;
	port_info_for_set("", 0, pi);
	/* Each invalid field refuses the whole Set, answered with the unchanged attribute. */
	{
		struct { unsigned offset; uint8_t value; } bad[] = {
			{ 29, 0x20 },				/* a width no port supports (reserved bit) */
			{ 36, 6 << 4 },				/* NeighborMTU above MTUCap */
			{ 43, 6 << 4 },				/* OperationalVLs above VLCap */
			{ 32, PORT_STATE_INIT },			/* Init cannot be set */
			{ 32, PORT_STATE_ACTIVE },		/* Init -> Active skips Armed */
			{ 32, 7 },				/* reserved state */
			{ 33, PHYS_STATE_SLEEP << 4 },		/* phys state not settable */
			{ 33, 3 },				/* LinkDownDefault reserved */
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			uint8_t req[64];

			memcpy(req, pi, sizeof(req));
			put_be16(req + 16, 0x77);	/* a LID that must not be applied */
			req[bad[i].offset] = bad[i].value;
			assert_int_equal(set_port_info("", 0, req), UMAD_STATUS_INVALID_ATTR_VALUE);
			assert_int_equal(get_be16(data() + 16), 0);
			get_port_info("", 0, back);
			assert_int_equal(get_be16(back + 16), 0);
			assert_int_equal(back[32] & 0xf, PORT_STATE_INIT);
		}
	}
}

/* --- the port state machine --------------------------------------------------- */

static void set_state(const char *path, unsigned port, unsigned state, unsigned phys, int expect)
{
	uint8_t pi[64];

	port_info_for_set(path, port, pi);
	pi[32] = (uint8_t)((pi[32] & 0xf0) | state);
	pi[33] = (uint8_t)(phys << 4 | (pi[33] & 0xf));
	assert_int_equal(set_port_info(path, port, pi), expect);
}

static void test_port_states(void **state)
{
	struct sim_port *sw_port = &node("Switch1")->ports[1];

	(void)state;
	/* Init -> Armed -> Active, and staying there; Armed again from Active is refused. */
	set_state("", 0, PORT_STATE_ARMED, 0, 0);
	assert_int_equal(fx->host->state, PORT_STATE_ARMED);
	set_state("", 0, PORT_STATE_ARMED, 0, 0);
	set_state("", 0, PORT_STATE_ACTIVE, 0, 0);
	assert_int_equal(fx->host->state, PORT_STATE_ACTIVE);
	set_state("", 0, PORT_STATE_ACTIVE, 0, 0);
	set_state("", 0, PORT_STATE_ARMED, 0, UMAD_STATUS_INVALID_ATTR_VALUE);
	set_state("", 0, PORT_STATE_NOCHANGE, 0, 0);
	assert_int_equal(fx->host->state, PORT_STATE_ACTIVE);
	/* The switch side too; the SM arming and activating it is no PortStateChange. */
	node("Switch1")->sw->port_state_change = 0;
	set_state("1", 1, PORT_STATE_ARMED, 0, 0);
	set_state("1", 1, PORT_STATE_ACTIVE, 0, 0);
	assert_int_equal(sw_port->state, PORT_STATE_ACTIVE);
	assert_int_equal(node("Switch1")->sw->port_state_change, 0);
	/* Down: the link drops and trains again, both ends back to Init, and the flag goes up. */
	set_state("1", 1, PORT_STATE_DOWN, 0, 0);
	assert_int_equal(sw_port->state, PORT_STATE_INIT);
	assert_int_equal(fx->host->state, PORT_STATE_INIT);
	assert_int_equal(fx->host->phys_state, PHYS_STATE_LINKUP);
	assert_int_equal(node("Switch1")->sw->port_state_change, 1);
	/*
	 * A switch's port 0 has no link: Active from power-on, Down sets it back
	 * to Init, and from Init it goes Active with or without arming (nobody
	 * to arm with); Armed from Active is refused as on any port.  Its phys
	 * state cannot be set.
	 */
	assert_int_equal(node("Switch1")->ports[0].state, PORT_STATE_ACTIVE);
	set_state("1", 0, PORT_STATE_ARMED, 0, UMAD_STATUS_INVALID_ATTR_VALUE);
	set_state("1", 0, PORT_STATE_DOWN, 0, 0);
	assert_int_equal(node("Switch1")->ports[0].state, PORT_STATE_INIT);
	set_state("1", 0, PORT_STATE_ACTIVE, 0, 0);
	assert_int_equal(node("Switch1")->ports[0].state, PORT_STATE_ACTIVE);
	set_state("1", 0, PORT_STATE_DOWN, 0, 0);
	set_state("1", 0, PORT_STATE_ARMED, 0, 0);
	set_state("1", 0, PORT_STATE_ACTIVE, 0, 0);
	assert_int_equal(node("Switch1")->ports[0].state, PORT_STATE_ACTIVE);
	set_state("1", 0, PORT_STATE_NOCHANGE, PHYS_STATE_DISABLED, UMAD_STATUS_INVALID_ATTR_VALUE);
}

static void test_link_disabled(void **state)
{
	struct sim_port *a = &node("Switch1")->ports[7], *b = &node("Switch2")->ports[7];

	(void)state;
	/* Disable Switch1 port 7: both ends go down; SMPs over it are lost. */
	set_state("1", 7, PORT_STATE_NOCHANGE, PHYS_STATE_DISABLED, 0);
	assert_int_equal(a->phys_state, PHYS_STATE_DISABLED);
	assert_int_equal(a->state, PORT_STATE_DOWN);
	assert_int_equal(b->phys_state, PHYS_STATE_POLLING);
	assert_int_equal(b->state, PORT_STATE_DOWN);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,7");
	assert_int_equal(send_dr(), LOST);
	/* The redundant link still reaches Switch2. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,8");
	assert_int_equal(send_dr(), 0);
	/* Polling re-enables it: the link trains to Init. */
	set_state("1", 7, PORT_STATE_NOCHANGE, PHYS_STATE_POLLING, 0);
	assert_int_equal(a->phys_state, PHYS_STATE_LINKUP);
	assert_int_equal(b->state, PORT_STATE_INIT);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,7");
	assert_int_equal(send_dr(), 0);
	/* A pulled cable loses the SMP too, and plugging it back brings the link up. */
	sim_port_cable(a, 0, NULL);
	assert_null(b->peer);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,7");
	assert_int_equal(send_dr(), LOST);
	sim_port_cable(a, 1, b);
	assert_int_equal(b->state, PORT_STATE_INIT);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,7");
	assert_int_equal(send_dr(), 0);
}

/* --- switches: SwitchInfo, LFT, MFT ------------------------------------------- */

static void test_switch_info(void **state)
{
	uint8_t *d;

	(void)state;
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SWITCH_INFO, 0, "1");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be16(d + 0), SIM_LFT_CAP);
	assert_int_equal(get_be16(d + 4), SIM_MFT_CAP);
	assert_int_equal(get_be16(d + 6), 0);
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, "1");
	put_be16(d + 6, 0x40);		/* LinearFDBTop */
	d[8] = 7;			/* DefaultPort */
	d[11] = 5 << 3 | 0x04;		/* LifeTimeValue, clear PortStateChange */
	put_be16(d + 18, 0xc010);	/* MulticastFDBTop */
	node("Switch1")->sw->port_state_change = 1;
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be16(d + 6), 0x40);
	assert_int_equal(d[8], 7);
	assert_int_equal(d[11], 5 << 3);
	assert_int_equal(get_be16(d + 18), 0xc010);
	/* Tops beyond the caps. */
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, "1");
	put_be16(d + 6, SIM_LFT_CAP);
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, "1");
	put_be16(d + 18, 0xbfff);
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	/* A CA is no switch. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SWITCH_INFO, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

static void test_enhanced_port0(void **state)
{
	struct sim_fabric *f = sim_topology_parse("Switch 2 \"S\" # enhanced port 0\n", "t", NULL);
	uint8_t mad[MAD_SIZE] = { 0 };

	(void)state;
	assert_non_null(f);
	mad[MAD_OFF_BASE_VERSION] = 1;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_SWITCH_INFO);
	assert_int_equal(sim_sma_process(f, f->nodes[0], 0, mad, NULL), 1);
	assert_int_equal(mad[SMP_OFF_DATA + 16] & 0x08, 0x08);
	sim_fabric_free(f);
}

static void test_linear_ft(void **state)
{
	uint8_t *d;
	int i;

	(void)state;
	/* Unset entries read as 0xff (no route). */
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_LINEAR_FT, 1, "1");
	assert_int_equal(send_dr(), 0);
	for (i = 0; i < 64; i++)
		assert_int_equal(d[i], 0xff);
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_LINEAR_FT, 1, "1");
	for (i = 0; i < 64; i++)
		d[i] = (uint8_t)(i % 9);
	assert_int_equal(send_dr(), 0);
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_LINEAR_FT, 1, "1");
	assert_int_equal(send_dr(), 0);
	for (i = 0; i < 64; i++)
		assert_int_equal(d[i], i % 9);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_LINEAR_FT, SIM_LFT_CAP / 64, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_LINEAR_FT, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

static void test_mcast_ft(void **state)
{
	uint8_t *d;
	int i;

	(void)state;
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_MCAST_FT, 3, "1");
	assert_int_equal(send_dr(), 0);
	for (i = 0; i < 64; i++)
		assert_int_equal(d[i], 0);
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_MCAST_FT, 3, "1");
	for (i = 0; i < 32; i++)
		put_be16(d + 2 * i, (uint16_t)(1u << (i % 9)));
	assert_int_equal(send_dr(), 0);
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_MCAST_FT, 3, "1");
	assert_int_equal(send_dr(), 0);
	for (i = 0; i < 32; i++)
		assert_int_equal(get_be16(d + 2 * i), 1u << (i % 9));
	/* Position 1 (ports 16..31) does not exist on an 8-port switch; nor block 32. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_MCAST_FT, 1u << 28 | 3, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_MCAST_FT, SIM_MFT_CAP / 32, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_MCAST_FT, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

/* --- GUIDInfo, P_KeyTable, SL2VL, VLArbitration --------------------------------- */

static void test_guid_info(void **state)
{
	uint8_t *d;

	(void)state;
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_GUID_INFO, 0, "");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be64(d), 0x100001);
	assert_int_equal(get_be64(d + 8), 0);
	/* Alias GUIDs are set; GUID 0 (the port GUID) is read-only. */
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_GUID_INFO, 0, "");
	put_be64(d, 0xdead);
	put_be64(d + 8, 0xabcdef);
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be64(d), 0x100001);
	assert_int_equal(get_be64(d + 8), 0xabcdef);
	assert_int_equal(sim_port_guid_at(fx->host, 1), 0xabcdef);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_GUID_INFO, 1, "");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	/* A switch's is its port 0's. */
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_GUID_INFO, 0, "1");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be64(d), 0x200000);
}

static void test_pkey_table(void **state)
{
	uint8_t *d;

	(void)state;
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PKEY_TABLE, 0, "");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be16(d), 0xffff);
	assert_int_equal(get_be16(d + 2), 0);
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_PKEY_TABLE, 1, "");
	put_be16(d + 4, 0x8001);
	assert_int_equal(send_dr(), 0);
	assert_int_equal(sim_port_pkey(fx->host, 34), 0x8001);
	assert_int_equal(sim_port_pkey(fx->host, 0), 0xffff);
	/* A switch port by the modifier's upper half. */
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_PKEY_TABLE, 7u << 16, "1");
	put_be16(d, 0x7fff);
	assert_int_equal(send_dr(), 0);
	assert_int_equal(sim_port_pkey(&node("Switch1")->ports[7], 0), 0x7fff);
	assert_int_equal(sim_port_pkey(&node("Switch1")->ports[6], 0), 0xffff);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PKEY_TABLE, 9u << 16, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PKEY_TABLE, SIM_PKEY_TABLE_SIZE / 32, "");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
}

/* Set the SLtoVL table of Switch1 for (in, out) to SL i on VL base + i (mod 16); the status. */
static int set_switch_sl2vl(unsigned in, unsigned out, unsigned base)
{
	uint8_t *d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SLVL_TABLE, in << 8 | out, "1");
	unsigned sl;

	for (sl = 0; sl < SL2VL_SLS; sl++)
		mad_set_elem(d, SL2VL_VL_OF_SL0, sl, (base + sl) % SL2VL_SLS);
	return send_dr();
}

/* Get the table of Switch1 for (in, out): the VL of SL sl, or -1 with a bad status. */
static int switch_vl(unsigned in, unsigned out, unsigned sl)
{
	uint8_t *d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SLVL_TABLE, in << 8 | out, "1");

	if (send_dr() != 0)
		return -1;
	return (int)mad_get_elem(d, SL2VL_VL_OF_SL0, sl);
}

static void test_sl2vl(void **state)
{
	struct sim_port *out7 = &node("Switch1")->ports[7];
	uint8_t *d;
	unsigned in, out;
	int i;

	(void)state;
	/* An end port: one table, the modifier's ports reserved. */
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SLVL_TABLE, 0, "");
	for (i = 0; i < 8; i++)
		d[i] = (uint8_t)(i << 4 | (7 - i));
	assert_int_equal(send_dr(), 0);
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SLVL_TABLE, 0, "");
	assert_int_equal(send_dr(), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(d[i], i << 4 | (7 - i));
	assert_int_equal(sim_sl2vl_vl(sim_port_sl2vl(fx->host, 0), 3), 7 - 1);
	assert_null(fx->host->sl2vl_in);

	/* A switch: input port in bits 15:8, output port in 7:0, a table per pair. */
	assert_int_equal(switch_vl(2, 7, 0), 0);		/* the default: SL i on VL i % 8 */
	assert_int_equal(switch_vl(2, 7, 9), 1);
	/* The same table from one input port as from all others costs nothing. */
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SLVL_TABLE, 3u << 8 | 7, "1");
	for (i = 0; i < SL2VL_SLS; i++)
		mad_set_elem(d, SL2VL_VL_OF_SL0, (unsigned)i, (unsigned)i % 8);
	assert_int_equal(send_dr(), 0);
	assert_null(out7->sl2vl_in);
	/* One that differs: every other input port keeps the old one. */
	assert_int_equal(set_switch_sl2vl(2, 7, 1), 0);
	assert_non_null(out7->sl2vl_in);
	assert_int_equal(switch_vl(2, 7, 0), 1);
	assert_int_equal(switch_vl(2, 7, 15), 0);
	assert_int_equal(switch_vl(3, 7, 0), 0);
	assert_int_equal(switch_vl(0, 7, 9), 1);
	assert_null(node("Switch1")->ports[6].sl2vl_in);	/* other output ports untouched */
	/* Every pair of a switch its own table, port 0 included, read back whole. */
	for (out = 0; out <= 8; out++)
		for (in = 0; in <= 8; in++)
			assert_int_equal(set_switch_sl2vl(in, out, in * 9 + out), 0);
	for (out = 0; out <= 8; out++)
		for (in = 0; in <= 8; in++)
			for (i = 0; i < SL2VL_SLS; i++)
				assert_int_equal(switch_vl(in, out, (unsigned)i),
						 (in * 9 + out + (unsigned)i) % SL2VL_SLS);
	/* The Set's answer is the table as kept. */
	assert_int_equal(set_switch_sl2vl(4, 5, 2), 0);
	assert_int_equal(mad_get_elem(data(), SL2VL_VL_OF_SL0, 0), 2);
	/* Ports beyond the switch's, and the bits that name all ports at once, are refused. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SLVL_TABLE, 9, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SLVL_TABLE, 9u << 8 | 1, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SLVL_TABLE, 1u << 16, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SLVL_TABLE, 1u << 17 | 1, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	assert_int_equal(switch_vl(0, 1, 0), (0 * 9 + 1) % SL2VL_SLS);
}

static void test_vl_arbitration(void **state)
{
	uint8_t *d;
	int block;

	(void)state;
	for (block = 1; block <= 4; block++) {
		d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_VL_ARB_TABLE, (uint32_t)block << 16, "");
		assert_int_equal(send_dr(), 0);
		assert_int_equal(d[0], 0);
		d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_VL_ARB_TABLE, (uint32_t)block << 16, "");
		d[0] = (uint8_t)block;		/* VL */
		d[1] = (uint8_t)(block * 10);	/* weight */
		d[62] = 0xf7;			/* reserved nibble dropped */
		d[63] = 1;
		assert_int_equal(send_dr(), 0);
	}
	for (block = 1; block <= 4; block++) {
		d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_VL_ARB_TABLE, (uint32_t)block << 16, "");
		assert_int_equal(send_dr(), 0);
		assert_int_equal(d[0], block);
		assert_int_equal(d[1], block * 10);
		assert_int_equal(d[62], 7);
	}
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_VL_ARB_TABLE, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_VL_ARB_TABLE, 5u << 16, "");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	/* A switch's output port in the low half. */
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_VL_ARB_TABLE, 1u << 16 | 8, "1");
	d[1] = 99;
	assert_int_equal(send_dr(), 0);
	assert_int_equal(node("Switch1")->ports[8].vlarb[0][0][1], 99);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_VL_ARB_TABLE, 1u << 16 | 9, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
}

/* --- SMInfo, LedInfo ---------------------------------------------------------- */

static void test_sm_info(void **state)
{
	struct sim_node *hca = node("Hca1");
	uint8_t *d;

	(void)state;
	/* No SM on the port: not supported. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SM_INFO, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	/* With IsSM: the SM's GUID, priority and state; its SM_Key hidden from a wrong M_Key. */
	fx->host->capmask |= PORT_CAP_IS_SM;
	hca->sminfo.guid = 0x100001;
	hca->sminfo.sm_key = 0x5555;
	hca->sminfo.act_count = 42;
	hca->sminfo.priority = 5;
	hca->sminfo.state = 3;
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_SM_INFO, 0, "");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be64(d), 0x100001);
	assert_int_equal(get_be64(d + 8), 0x5555);
	assert_int_equal(get_be32(d + 16), 42);
	assert_int_equal(d[20], 5 << 4 | 3);
	dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SM_INFO, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

static void test_led_info(void **state)
{
	uint8_t *d;

	(void)state;
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_LED_INFO, 3, "1");
	d[0] = 0x80;
	assert_int_equal(send_dr(), 0);
	assert_int_equal(node("Switch1")->ports[3].led, 1);
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_LED_INFO, 3, "1");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(d[0], 0x80);
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_LED_INFO, 4, "1");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(d[0], 0);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_LED_INFO, 9, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
}

/* --- statuses for what is not supported ----------------------------------------- */

static void test_unsupported(void **state)
{
	(void)state;
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_RANDOM_FT, 0, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_VENDOR_DIAG, 0, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	dr_smp(UMAD_METHOD_GET, 0xff00, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	dr_smp(0x03, UMAD_SM_ATTR_NODE_INFO, 0, "1");		/* Send */
	assert_int_equal(send_dr(), UMAD_STATUS_METHOD_NOT_SUPPORTED);
	dr_smp(UMAD_METHOD_TRAP, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_METHOD_NOT_SUPPORTED);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	fx->mad[MAD_OFF_CLASS_VERSION] = 2;
	assert_int_equal(send_dr(), UMAD_STATUS_BAD_VERSION);
	/* Responses and TrapRepress are never answered. */
	dr_smp(UMAD_METHOD_GET_RESP, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_dr(), LOST);
	dr_smp(UMAD_METHOD_TRAP_REPRESS, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_dr(), LOST);
}

/* --- MlnxExtPortInfo -------------------------------------------------------------- */

/* A fabric of Mellanox nodes, FDR10 on the switch's port 1, and one CA of another vendor. */
static const char mlnx_topology[] =
	"vendid=0x2c9\n"
	"devid=0xd2f0\n"
	"Switch 3 \"S1\"\n"
	"[1] \"H1\"[1] # 4xFDR10\n"
	"[2] \"H2\"[1] # 4xQDR\n"
	"[3] \"H3\"[1] # 4xQDR\n"
	"\n"
	"devid=0x101b\n"
	"Hca 1 \"H1\"\n"
	"[1] \"S1\"[1] # 4xFDR10\n"
	"\n"
	"Hca 1 \"H2\"\n"
	"[1] \"S1\"[2] # 4xQDR\n"
	"\n"
	"vendid=0x1175\n"
	"Hca 1 \"H3\"\n"
	"[1] \"S1\"[3] # 4xQDR\n";

/* The fixture's fabric replaced by text's, the host at node host's port 1. */
static void use_fabric(const char *text, const char *host)
{
	struct umad_err errors = UMAD_ERR_INIT;

	sim_fabric_free(fx->f);
	fx->f = sim_topology_parse(text, "t.net", &errors);
	if (!fx->f)
		fail_msg("%s", umad_err_text(&errors));
	fx->host = &node(host)->ports[1];
}

/*
 * MlnxExtPortInfo's bytes as libibmad reads them: StateChangeEnable,
 * LinkSpeedSupported, LinkSpeedEnabled and LinkSpeedActive, each the low
 * byte of a 32-bit word; FDR10 is bit 0.
 */
#define MEPI_BYTE_STATE_CHANGE	3
#define MEPI_BYTE_SUPPORTED	7
#define MEPI_BYTE_ENABLED	11
#define MEPI_BYTE_ACTIVE	15

static uint8_t *get_mepi(const char *path, unsigned port, int expect)
{
	uint8_t *d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_MLNX_EXT_PORT_INFO, port, path);

	assert_int_equal(send_dr(), expect);
	return d;
}

static void assert_mepi(const uint8_t *d, unsigned change, unsigned supported, unsigned enabled,
			unsigned active)
{
	unsigned i;

	assert_int_equal(d[MEPI_BYTE_STATE_CHANGE], change);
	assert_int_equal(d[MEPI_BYTE_SUPPORTED], supported);
	assert_int_equal(d[MEPI_BYTE_ENABLED], enabled);
	assert_int_equal(d[MEPI_BYTE_ACTIVE], active);
	/* Everything else reserved: 0. */
	for (i = 0; i < SMP_DATA_SIZE; i++)
		if (i != MEPI_BYTE_STATE_CHANGE && i != MEPI_BYTE_SUPPORTED &&
		    i != MEPI_BYTE_ENABLED && i != MEPI_BYTE_ACTIVE)
			assert_int_equal(d[i], 0);
}

static void test_mlnx_ext_port_info_get(void **state)
{
	uint8_t pi[SMP_DATA_SIZE], *lft;

	(void)state;
	use_fabric(mlnx_topology, "H1");
	/* The CA's own port (modifier 0: the port asked through), and the switch's end. */
	assert_mepi(get_mepi("", 0, 0), 0, 0x01, 0x01, 0x01);
	assert_mepi(get_mepi("", 1, 0), 0, 0x01, 0x01, 0x01);
	assert_mepi(get_mepi("1", 1, 0), 0, 0x01, 0x01, 0x01);
	/* PortInfo shows QDR under FDR10. */
	get_port_info("1", 1, pi);
	assert_int_equal(mad_get(pi, PI_LINK_SPEED_ACTIVE), LINK_SPEED_QDR);
	assert_int_equal(mad_get(pi, PI_LINK_SPEED_EXT_ACTIVE), 0);
	assert_string_equal(sim_speed_name(&node("S1")->ports[1]), "FDR10");
	assert_int_equal(sim_port_rate_x10(&node("S1")->ports[1]), 400);
	/* A QDR port of a Mellanox node: no FDR10; the switch's port 0 has no speeds. */
	assert_mepi(get_mepi("1", 2, 0), 0, 0, 0, 0);
	assert_string_equal(sim_speed_name(&node("S1")->ports[2]), "QDR");
	assert_mepi(get_mepi("1", 0, 0), 0, 0, 0, 0);
	/* LID-routed as well (ibportstate asks so): H1 LID 1, S1 LID 2 with a route back. */
	port_info_for_set("", 0, pi);
	put_be16(pi + 16, 1);
	assert_int_equal(set_port_info("", 0, pi), 0);
	port_info_for_set("1", 0, pi);
	put_be16(pi + 16, 2);
	assert_int_equal(set_port_info("1", 0, pi), 0);
	lft = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_LINEAR_FT, 0, "1");
	memset(lft, 0xff, 64);
	lft[1] = 1;
	lft[2] = 0;
	assert_int_equal(send_dr(), 0);
	node("S1")->sw->lft_top = 2;
	lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_MLNX_EXT_PORT_INFO, 1);
	assert_int_equal(send_to(2), 0);
	assert_mepi(data(), 0, 0x01, 0x01, 0x01);
	/* Out of range. */
	get_mepi("1", 4, UMAD_STATUS_INVALID_ATTR_VALUE);
	get_mepi("", 2, UMAD_STATUS_INVALID_ATTR_VALUE);
	/* A node of another vendor does not know the attribute, Get or Set. */
	get_mepi("1,3", 1, UMAD_STATUS_ATTR_NOT_SUPPORTED);
	dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_MLNX_EXT_PORT_INFO, 1, "1,3");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

static uint8_t *mepi_for_set(const char *path, unsigned port, unsigned change, unsigned enabled)
{
	uint8_t *d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_MLNX_EXT_PORT_INFO, port, path);

	d[MEPI_BYTE_STATE_CHANGE] = (uint8_t)change;
	d[MEPI_BYTE_ENABLED] = (uint8_t)enabled;
	return d;
}

/* Set: the enabled speeds change at once, the active one when the link trains again. */
static void test_mlnx_ext_port_info_set(void **state)
{
	struct sim_port *sw1;

	(void)state;
	use_fabric(mlnx_topology, "H2");	/* asking from beside the link */
	sw1 = &node("S1")->ports[1];
	fx->changes = 0;
	mepi_for_set("1", 1, 1, 0);
	assert_int_equal(send_dr(), 0);
	assert_mepi(data(), 1, 0x01, 0x00, 0x01);
	assert_int_equal(fx->changes, 1);
	assert_int_equal(sim_port_set_phys(sw1, PHYS_STATE_POLLING), 1);	/* it trains again */
	assert_mepi(get_mepi("1", 1, 0), 1, 0x01, 0x00, 0x00);
	assert_mepi(get_mepi("1,1", 1, 0), 0, 0x01, 0x01, 0x00);
	assert_string_equal(sim_speed_name(sw1), "QDR");
	/* Enabled again: FDR10 after the next training (a disable and enable of the port). */
	mepi_for_set("1", 1, 1, 0x01);
	assert_int_equal(send_dr(), 0);
	assert_int_equal(sim_port_set_phys(sw1, PHYS_STATE_DISABLED), 1);
	assert_mepi(get_mepi("1", 1, 0), 1, 0x01, 0x01, 0x00);
	assert_int_equal(sim_port_set_phys(sw1, PHYS_STATE_POLLING), 1);
	assert_mepi(get_mepi("1", 1, 0), 1, 0x01, 0x01, 0x01);
	/* A speed the port does not support: refused, the attribute as it was. */
	mepi_for_set("1", 2, 0, 0x01);
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	assert_mepi(data(), 0, 0, 0, 0);
	mepi_for_set("1", 1, 0, 0x02);
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
	assert_mepi(data(), 1, 0x01, 0x01, 0x01);
	assert_int_equal(fx->changes, 2);
}

/* --- M_Key ------------------------------------------------------------------------ */

static void protect_host(uint64_t key, unsigned level)
{
	uint8_t pi[64];

	port_info_for_set("", 0, pi);
	put_be64(pi, key);
	pi[34] = (uint8_t)(level << 6);
	assert_int_equal(set_port_info("", 0, pi), 0);
}

static void test_m_key(void **state)
{
	unsigned level;

	(void)state;
	for (level = 0; level <= 3; level++) {
		uint16_t violations;

		fx->m_key = 0;
		protect_host(0xcafe, level);
		violations = fx->host->m_key_violations;
		/* A wrong key: Gets pass at levels 0 and 1 (1 hides the key), fail above. */
		fx->m_key = 0x1111;
		dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, 0, "");
		if (level <= 1) {
			assert_int_equal(send_dr(), 0);
			assert_int_equal(get_be64(data()), level == 0 ? 0xcafe : 0);
			assert_int_equal(fx->host->m_key_violations, violations);
		} else {
			assert_int_equal(send_dr(), LOST);
			assert_int_equal(fx->host->m_key_violations, violations + 1);
		}
		/* Sets fail at every level, silently, and are counted. */
		violations = fx->host->m_key_violations;
		dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_LED_INFO, 0, "");
		data()[0] = 0x80;
		assert_int_equal(send_dr(), LOST);
		assert_int_equal(fx->host->led, 0);
		assert_int_equal(fx->host->m_key_violations, violations + 1);
		/* Other nodes are not protected. */
		dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_LED_INFO, 1, "1");
		assert_int_equal(send_dr(), 0);
		/* The right key does everything and sees the key; then clear it. */
		fx->m_key = 0xcafe;
		dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, 0, "");
		assert_int_equal(send_dr(), 0);
		assert_int_equal(get_be64(data()), 0xcafe);
		protect_host(0, 0);
	}
	/* A switch is protected as a whole, by its port 0. */
	fx->m_key = 0;
	{
		uint8_t pi[64];

		port_info_for_set("1", 0, pi);
		put_be64(pi, 0x77);
		pi[34] = 3 << 6;
		assert_int_equal(set_port_info("1", 0, pi), 0);
	}
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_dr(), LOST);
	fx->m_key = 0x77;
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_dr(), 0);
	/* ...but not the nodes behind it. */
	fx->m_key = 0;
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,7");
	assert_int_equal(send_dr(), 0);
}

/* --- directed routes ------------------------------------------------------------------ */

static void test_dr_hops(void **state)
{
	struct sim_hop_end end;
	struct sim_hop_end dr_end;
	uint8_t *m = fx->mad;

	(void)state;
	/* The outgoing walk: hop pointer at hop count + 1, the return path records arrival ports. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,8,2");
	assert_int_equal(sim_dr_outgoing(fx->f, fx->host, LID_PERMISSIVE, m, &end, &dr_end), 0);
	assert_ptr_equal(end.node, node("Hca4"));
	assert_int_equal(end.port, 1);
	assert_ptr_equal(dr_end.node, node("Hca4"));
	assert_int_equal(dr_end.port, 1);
	assert_int_equal(m[SMP_OFF_HOP_PTR], 4);
	assert_int_equal(m[SMP_OFF_RETURN_PATH + 1], 1);	/* into Switch1 through port 1 */
	assert_int_equal(m[SMP_OFF_RETURN_PATH + 2], 8);	/* into Switch2 through port 8 */
	assert_int_equal(m[SMP_OFF_RETURN_PATH + 3], 1);	/* into Hca4 through port 1 */
	/* The answer goes back along that path to the host, hop pointer back to 0. */
	assert_int_equal(sim_sma_process(fx->f, end.node, end.port, m, NULL), 1);
	{
		struct sim_hop_end back;

		assert_int_equal(sim_dr_return(fx->f, &end, &dr_end, m, &back), 0);
		assert_ptr_equal(back.node, node("Hca1"));
		assert_int_equal(back.port, 1);
		assert_int_equal(m[SMP_OFF_HOP_PTR], 0);
	}
	/* Zero hops: the host's own SMA. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "");
	assert_int_equal(sim_dr_outgoing(fx->f, fx->host, LID_PERMISSIVE, m, &end, &dr_end), 0);
	assert_ptr_equal(end.node, node("Hca1"));
	assert_int_equal(m[SMP_OFF_HOP_PTR], 1);
	/* The longest legal path: 63 hops, bouncing between the two switches. */
	{
		char path[256] = "1";
		int i;

		for (i = 1; i < 63; i++)
			strcat(path, ",7");
		dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, path);
		assert_int_equal(m[SMP_OFF_HOP_CNT], 63);
		assert_int_equal(send_dr(), 0);
		/* 1 + 62 hops across the 7-7 link ends at Switch1 (an even number of crossings). */
		assert_int_equal(get_be64(data() + 12), 0x200000);
	}
	/* Lost: 64 hops, a request with the D bit or a non-zero hop pointer, an end node in the
	 * middle, the first hop out of another port than the one sent from, a port beyond the
	 * switch or uncabled. */
	{
		char path[256] = "1";
		int i;

		for (i = 1; i < 64; i++)
			strcat(path, ",7");
		dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, path);
		assert_int_equal(send_dr(), LOST);
	}
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	m[MAD_OFF_STATUS] = 0x80;
	assert_int_equal(send_dr(), LOST);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	m[SMP_OFF_HOP_PTR] = 1;
	assert_int_equal(send_dr(), LOST);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,2,1");	/* through Hca2 */
	assert_int_equal(send_dr(), LOST);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "2");	/* host sends from port 1 */
	assert_int_equal(send_dr(), LOST);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,9");
	assert_int_equal(send_dr(), LOST);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,3");
	assert_int_equal(send_dr(), LOST);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,0");
	assert_int_equal(send_dr(), LOST);
	/* A switch can send back out of the port the SMP came in by. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,1");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be64(data() + 12), 0x100000);
}

/* Give every node a LID and every switch routes, as an SM would, by SMPs. */
static void assign_lids(void)
{
	static const struct { const char *path; uint16_t lid; } nodes[] = {
		{ "", 1 }, { "1", 2 }, { "1,7", 3 }, { "1,2", 4 }, { "1,7,1", 5 }, { "1,7,2", 6 },
	};
	/* LFTs: Switch1 (LID 2) and Switch2 (LID 3), LIDs 1..6. */
	static const uint8_t lft1[7] = { 0xff, 1, 0, 7, 2, 7, 7 };
	static const uint8_t lft2[7] = { 0xff, 7, 7, 0, 7, 1, 2 };
	uint8_t pi[64], *d;
	size_t i;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		port_info_for_set(nodes[i].path, 0, pi);
		put_be16(pi + 16, nodes[i].lid);
		assert_int_equal(set_port_info(nodes[i].path, 0, pi), 0);
	}
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, "1");
	put_be16(d + 6, 6);
	assert_int_equal(send_dr(), 0);
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_SWITCH_INFO, 0, "1,7");
	put_be16(d + 6, 6);
	assert_int_equal(send_dr(), 0);
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_LINEAR_FT, 0, "1");
	memset(d, 0xff, 64);
	memcpy(d, lft1, sizeof(lft1));
	assert_int_equal(send_dr(), 0);
	d = dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_LINEAR_FT, 0, "1,7");
	memset(d, 0xff, 64);
	memcpy(d, lft2, sizeof(lft2));
	assert_int_equal(send_dr(), 0);
}

static void test_lid_routed(void **state)
{
	uint16_t slid = 0;
	uint8_t *d;

	(void)state;
	assign_lids();
	/* LID-routed SMPs to each LID, the answer routed back to LID 1. */
	d = lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0);
	assert_int_equal(sim_smp_round_trip(fx->f, fx->host, 6, fx->mad, &slid, NULL), 1);
	assert_int_equal(slid, 6);
	assert_int_equal(get_be64(d + 12), node("Hca4")->node_guid);
	d = lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0);
	assert_int_equal(send_to(3), 0);
	assert_int_equal(get_be64(d + 12), 0x200001);
	/* Beyond LinearFDBTop, an unrouted or unknown LID: lost. */
	lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0);
	assert_int_equal(send_to(7), LOST);
	node("Switch1")->sw->lft_top = 4;
	lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0);
	assert_int_equal(send_to(5), LOST);
	lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0);
	assert_int_equal(send_to(4), 0);
	node("Switch1")->sw->lft_top = 6;
	/* The answer needs a way back: without a route to LID 1 on Switch2 it is lost. */
	node("Switch2")->sw->lft[1] = 0xff;
	lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0);
	assert_int_equal(send_to(6), LOST);
	node("Switch2")->sw->lft[1] = 7;
	lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0);
	assert_int_equal(send_to(6), 0);
	/* A host without a LID gets no LID-routed answer. */
	fx->host->lid = 0;
	lid_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0);
	assert_int_equal(send_to(6), LOST);
	fx->host->lid = 1;
}

static void test_dr_lid_routed_parts(void **state)
{
	uint8_t *d;

	(void)state;
	assign_lids();
	/* DrSLID = the host's LID: LID-routed to Switch2 (LID 3), then directed out of port 2. */
	fx->dr_slid = 1;
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "2");
	assert_int_equal(send_to(3), 0);
	assert_int_equal(get_be64(d + 12), node("Hca4")->node_guid);
	assert_int_equal(d[36], 1);
	/* Zero hops with a LID-routed first part: Switch2 answers itself. */
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "");
	assert_int_equal(send_to(3), 0);
	assert_int_equal(get_be64(d + 12), 0x200001);
	/* The first part cannot start the directed part at an end node with hops left. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_to(6), LOST);
	/* An unrouted LID loses it. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "2");
	assert_int_equal(send_to(9), LOST);
	fx->dr_slid = LID_PERMISSIVE;

	/* DrDLID: directed to Switch1, then LID-routed to LID 6 (Hca4); back the same way. */
	fx->dr_dlid = 6;
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be64(d + 12), node("Hca4")->node_guid);
	/* Zero hops: the host LID-routes it itself. */
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(get_be64(d + 12), node("Hca4")->node_guid);
	/* The directed part may not end at an end node with a LID-routed part to follow. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,2");
	assert_int_equal(send_dr(), LOST);
	fx->dr_dlid = 9;
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1");
	assert_int_equal(send_dr(), LOST);
	fx->dr_dlid = LID_PERMISSIVE;
}

/* Each port counts the SMPs that cross its link. */
static void test_link_counters(void **state)
{
	struct sim_port *sw_in = &node("Switch1")->ports[1];
	uint64_t before = sw_in->rcv_pkts;

	(void)state;
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO, 0, "1,7");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(sw_in->rcv_pkts, before + 1);
	assert_int_equal(sw_in->xmit_pkts, 1);
	assert_int_equal(fx->host->xmit_data, SIM_MAD_PACKET_WORDS);
}

/* An HDR switch with a 4x HDR CA and a split (2x) port, in ibnetdiscover's words. */
static const char hdr_fabric[] =
	"vendid=0x2c9\ndevid=0xd2f0\n"
	"switchguid=0x10(10)\n"
	"Switch\t41 \"S-0000000000000010\"\t\t# \"leaf\" enhanced port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000000020\"[1](20) \t\t# \"hca\" lid 2 4xHDR\n"
	"[2]\t\"H-0000000000000030\"[1](30) \t\t# \"split\" lid 3 2xHDR\n"
	"\nvendid=0x2c9\ndevid=0x101b\ncaguid=0x20\n"
	"Ca\t1 \"H-0000000000000020\"\t\t# \"hca\"\n"
	"[1](20) \t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"leaf\" lid 1 4xHDR\n"
	"\nvendid=0x2c9\ndevid=0x101b\ncaguid=0x30\n"
	"Ca\t1 \"H-0000000000000030\"\t\t# \"split\"\n"
	"[1](30) \t\"S-0000000000000010\"[2]\t\t# lid 3 lmc 0 \"leaf\" lid 1 2xHDR\n";

static void test_port_info_ext_speeds(void **state)
{
	struct umad_err errors = UMAD_ERR_INIT;
	uint8_t pi[64], back[64];

	(void)state;
	sim_fabric_free(fx->f);
	fx->f = sim_topology_parse(hdr_fabric, "hdr", &errors);
	assert_non_null(fx->f);
	fx->host = &sim_fabric_find(fx->f, "H-0000000000000020")->ports[1];

	/* The CA announces extended speeds, 2X and HDR; the switch does so on port 0. */
	get_port_info("", 0, back);
	assert_true(mad_get(back, PI_CAPABILITY_MASK) & PORT_CAP_IS_EXT_SPEEDS);
	assert_true(mad_get(back, PI_CAPABILITY_MASK) & PORT_CAP_HAS_CAP_MASK2);
	assert_int_equal(mad_get(back, PI_CAPABILITY_MASK2),
			 PORT_CAP2_IS_LINK_WIDTH_2X | PORT_CAP2_IS_LINK_SPEED_HDR |
			 PORT_CAP2_IS_PORT_INFO_EXT);
	assert_int_equal(mad_get(back, PI_LINK_SPEED_EXT_ACTIVE), LINK_SPEED_EXT_HDR);
	assert_int_equal(mad_get(back, PI_LINK_WIDTH_ACTIVE), LINK_WIDTH_4X);
	assert_int_equal(mad_get(back, PI_LINK_WIDTH_SUPPORTED),
			 LINK_WIDTH_1X | LINK_WIDTH_2X | LINK_WIDTH_4X);
	get_port_info("1", 0, back);
	assert_true(mad_get(back, PI_CAPABILITY_MASK) & PORT_CAP_IS_EXT_SPEEDS);
	assert_int_equal(mad_get(back, PI_CAPABILITY_MASK2),
			 PORT_CAP2_IS_LINK_WIDTH_2X | PORT_CAP2_IS_LINK_SPEED_HDR |
			 PORT_CAP2_IS_PORT_INFO_EXT);
	/* The split port runs at 2X and supports no 4X. */
	get_port_info("1", 2, back);
	assert_int_equal(mad_get(back, PI_LINK_WIDTH_ACTIVE), LINK_WIDTH_2X);
	assert_int_equal(mad_get(back, PI_LINK_WIDTH_SUPPORTED), LINK_WIDTH_1X | LINK_WIDTH_2X);

	/* SMSupportsExtendedSpeeds in the modifier is taken; 30 turns extended speeds off. */
	port_info_for_set("", 0, pi);
	mad_set(pi, PI_LINK_SPEED_EXT_ENABLED, PORT_LINK_SPEED_EXT_DISABLED);
	memcpy(dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_PORT_INFO, PI_MOD_SM_SUPPORTS_EXT_SPEEDS, ""),
	       pi, SMP_DATA_SIZE);
	assert_int_equal(send_dr(), 0);
	get_port_info("", 0, back);
	assert_int_equal(mad_get(back, PI_LINK_SPEED_EXT_ENABLED), 0);
	assert_int_equal(mad_get(back, PI_LINK_SPEED_EXT_ACTIVE), LINK_SPEED_EXT_HDR);
	/* Trained again, the link runs at QDR, the fastest speed both ends enable. */
	port_info_for_set("", 0, pi);
	mad_set(pi, PI_PORT_PHYS_STATE, PHYS_STATE_POLLING);
	assert_int_equal(set_port_info("", 0, pi), 0);
	get_port_info("", 0, back);
	assert_int_equal(mad_get(back, PI_LINK_SPEED_EXT_ACTIVE), 0);
	assert_int_equal(mad_get(back, PI_LINK_SPEED_ACTIVE), LINK_SPEED_QDR);
	/* 31: every supported extended speed again, HDR at the next training. */
	port_info_for_set("", 0, pi);
	mad_set(pi, PI_LINK_SPEED_EXT_ENABLED, PORT_LINK_SPEED_EXT_ENABLED_SUPPORTED);
	mad_set(pi, PI_PORT_PHYS_STATE, PHYS_STATE_POLLING);
	assert_int_equal(set_port_info("", 0, pi), 0);
	get_port_info("", 0, back);
	assert_int_equal(mad_get(back, PI_LINK_SPEED_EXT_ENABLED),
			 LINK_SPEED_EXT_FDR | LINK_SPEED_EXT_EDR | LINK_SPEED_EXT_HDR);
	assert_int_equal(mad_get(back, PI_LINK_SPEED_EXT_ACTIVE), LINK_SPEED_EXT_HDR);
	/* A Get with bit 31 in the modifier names no port. */
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO, PI_MOD_SM_SUPPORTS_EXT_SPEEDS, "");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);
}

/* PortInfoExtended where CapabilityMask2 says it is: an HDR port's FEC modes; EDR ports refuse it. */
static void test_port_info_extended(void **state)
{
	struct umad_err errors = UMAD_ERR_INIT;
	const unsigned hdr_modes = 1u << FEC_MODE_NONE | 1u << FEC_MODE_RS_528_514 |
				   1u << FEC_MODE_LOW_LATENCY_RS | 1u << FEC_MODE_RS_544_514;
	uint8_t back[SMP_DATA_SIZE], *d;
	unsigned i;

	(void)state;
	sim_fabric_free(fx->f);
	fx->f = sim_topology_parse(hdr_fabric, "hdr", &errors);
	assert_non_null(fx->f);
	fx->host = &sim_fabric_find(fx->f, "H-0000000000000020")->ports[1];
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO_EXT, 0, "");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(mad_get(d, PIE_CAPABILITY_MASK), PIE_CAP_IS_FEC_MODE_SUPPORTED);
	assert_int_equal(mad_get(d, PIE_FEC_MODE_ACTIVE), FEC_MODE_RS_544_514);
	assert_int_equal(mad_get(d, PIE_HDR_FEC_MODE_SUPPORTED), hdr_modes);
	assert_int_equal(mad_get(d, PIE_HDR_FEC_MODE_ENABLED), hdr_modes);
	assert_int_equal(mad_get(d, PIE_FDR_FEC_MODE_SUPPORTED),
			 1u << FEC_MODE_NONE | 1u << FEC_MODE_FIRECODE);
	assert_int_equal(mad_get(d, PIE_NDR_FEC_MODE_SUPPORTED), 0);	/* no NDR here */
	for (i = MAD_FIELD_BYTE(PIE_RESERVED_22); i < SMP_DATA_SIZE; i++)
		assert_int_equal(d[i], 0);
	/* The switch's port 2, through the switch; a Set is refused (read-only here). */
	d = dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO_EXT, 2, "1");
	assert_int_equal(send_dr(), 0);
	assert_int_equal(mad_get(d, PIE_FEC_MODE_ACTIVE), FEC_MODE_RS_544_514);
	dr_smp(UMAD_METHOD_SET, UMAD_SM_ATTR_PORT_INFO_EXT, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO_EXT, 42, "1");
	assert_int_equal(send_dr(), UMAD_STATUS_INVALID_ATTR_VALUE);

	/* The fixture's fabric has no HDR port: no CapabilityMask2 bit, and not supported. */
	sim_fabric_free(fx->f);
	fx->f = sim_topology_parse(sim_default_topology, "default", &errors);
	assert_non_null(fx->f);
	fx->host = &sim_fabric_find(fx->f, "Hca1")->ports[1];
	get_port_info("", 0, back);
	assert_false(mad_get(back, PI_CAPABILITY_MASK2) & PORT_CAP2_IS_PORT_INFO_EXT);
	dr_smp(UMAD_METHOD_GET, UMAD_SM_ATTR_PORT_INFO_EXT, 0, "");
	assert_int_equal(send_dr(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_node_description),
		T(test_node_info),
		T(test_port_info_get),
		T(test_port_info_set),
		T(test_port_info_set_invalid),
		T(test_port_info_ext_speeds),
		T(test_port_states),
		T(test_link_disabled),
		T(test_switch_info),
		T(test_enhanced_port0),
		T(test_linear_ft),
		T(test_mcast_ft),
		T(test_guid_info),
		T(test_pkey_table),
		T(test_sl2vl),
		T(test_vl_arbitration),
		T(test_sm_info),
		T(test_led_info),
		T(test_unsupported),
		T(test_mlnx_ext_port_info_get),
		T(test_mlnx_ext_port_info_set),
		T(test_m_key),
		T(test_dr_hops),
		T(test_lid_routed),
		T(test_dr_lid_routed_parts),
		T(test_link_counters),
		T(test_port_info_extended),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
