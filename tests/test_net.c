/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Who a GMP reaches (simfabric/net.c, which the sim backend and the shared
 * fabric's server both send through): on the default fabric brought up by
 * the built-in SM, from Hca1 port 1, the PMA, the SA and a program's agent
 * (the endpoint) take requests on QP1 with the well-known Q_Key alone; sent
 * to QP 0, 2 or any other, or with another Q_Key, a request or a response
 * reaches no one and is counted lost; nor one whose P_Key the receiving
 * port's table does not take (another partition, or two limited members).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/umad_sa.h>
#include <infiniband/umad_types.h>

#include "base/mad_wire.h"
#include "simfabric/net.h"
#include "simfabric/topology.h"

#define PING_CLASS	0x32		/* a vendor class (range 2), as ibping's */
#define PMA_OFF_PORT_SELECT	1	/* PortCounters:PortSelect in the attribute data */

/* What the endpoint (a program's agents at the attached ports) was given. */
static struct {
	unsigned received;
	uint32_t dqpn;
} endpoint;

static int endpoint_receive(void *arg, const struct sim_net_msg *m)
{
	(void)arg;
	endpoint.received++;
	endpoint.dqpn = m->dqpn;
	return 1;
}

static const struct sim_net_endpoint_ops endpoint_ops = { .receive = endpoint_receive };

static struct {
	struct sim_fabric *f;
	struct sim_net net;
	struct sim_port *from;		/* Hca1 port 1 */
	uint16_t hca3_lid, sm_lid;
	uint8_t mad[MAD_SIZE];
} fx;

static struct sim_port *port_of(const char *node, unsigned port)
{
	struct sim_node *n = sim_fabric_find(fx.f, node);

	assert_non_null(n);
	return sim_mgmt_port(n, port);
}

static int setup(void **state)
{
	struct umad_err errors = UMAD_ERR_INIT;

	(void)state;
	memset(&endpoint, 0, sizeof(endpoint));
	fx.f = sim_topology_parse(sim_default_topology, "default", &errors);
	assert_non_null(fx.f);
	assert_int_equal(sim_net_init(&fx.net, fx.f, 1, NULL, &endpoint_ops, &errors), 0);
	fx.from = port_of("Hca1", 1);
	fx.hca3_lid = port_of("Hca3", 1)->lid;
	fx.sm_lid = fx.from->sm_lid;
	assert_true(fx.from->lid && fx.hca3_lid && fx.sm_lid);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sim_net_fini(&fx.net);
	sim_fabric_free(fx.f);
	return 0;
}

/* A GMP header in fx.mad. */
static void gmp(uint8_t mgmt_class, uint8_t class_version, uint8_t method, uint16_t attr)
{
	memset(fx.mad, 0, sizeof(fx.mad));
	fx.mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	fx.mad[MAD_OFF_CLASS] = mgmt_class;
	fx.mad[MAD_OFF_CLASS_VERSION] = class_version;
	fx.mad[MAD_OFF_METHOD] = method;
	put_be32(fx.mad + MAD_OFF_TID_LOW, 0x1234);
	put_be16(fx.mad + MAD_OFF_ATTR_ID, attr);
}

static void pma_get(void)
{
	gmp(UMAD_CLASS_PERF_MGMT, PMA_CLASS_VERSION, UMAD_METHOD_GET, PMA_ATTR_PORT_COUNTERS);
	fx.mad[PMA_OFF_DATA + PMA_OFF_PORT_SELECT] = 1;
}

static void sa_get(void)
{
	gmp(UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, UMAD_METHOD_GET, UMAD_ATTR_CLASS_PORT_INFO);
}

/* Send fx.mad from Hca1 port 1 to dlid, QP dqpn, with qkey and pkey; how it ended. */
static enum sim_net_result send_with_pkey(uint16_t dlid, uint32_t dqpn, uint32_t qkey,
					  uint16_t pkey)
{
	struct sim_net_msg m = {
		.port = fx.from, .slid = fx.from->lid, .dlid = dlid,
		.sqpn = QP1_GSI, .dqpn = dqpn, .qkey = qkey, .pkey = pkey,
		.data = fx.mad, .len = MAD_SIZE,
	};
	struct sim_net_reply reply;
	enum sim_net_result r = sim_net_send(&fx.net, &m, fx.mad, &reply);

	sim_net_reply_release(&reply);
	return r;
}

static enum sim_net_result send_to(uint16_t dlid, uint32_t dqpn, uint32_t qkey)
{
	return send_with_pkey(dlid, dqpn, qkey, PKEY_DEFAULT);
}

static const uint32_t other_qps[] = { 2, 3, 0x10, 0x123456, 0xffffff };

/* The PMA answers on QP1 alone. */
static void test_pma_on_qp1_only(void **state)
{
	uint64_t lost;
	size_t i;

	(void)state;
	pma_get();
	assert_int_equal(send_to(fx.hca3_lid, QP1_GSI, UMAD_QKEY), SIM_NET_ANSWERED);
	for (i = 0; i < sizeof(other_qps) / sizeof(other_qps[0]); i++) {
		lost = fx.net.lost_no_taker;
		pma_get();
		assert_int_equal(send_to(fx.hca3_lid, other_qps[i], UMAD_QKEY), SIM_NET_LOST);
		pma_get();
		assert_int_equal(send_to(fx.hca3_lid, other_qps[i], 0), SIM_NET_LOST);
		assert_int_equal(fx.net.lost_no_taker, lost + 2);
	}
	/* QP0 takes SMPs only. */
	pma_get();
	assert_int_equal(send_to(fx.hca3_lid, QP0_SMI, UMAD_QKEY), SIM_NET_LOST);
	assert_int_equal(endpoint.received, 0);
}

/* The SA answers on QP1 alone too. */
static void test_sa_on_qp1_only(void **state)
{
	size_t i;

	(void)state;
	sa_get();
	assert_int_equal(send_to(fx.sm_lid, QP1_GSI, UMAD_QKEY), SIM_NET_ANSWERED);
	for (i = 0; i < sizeof(other_qps) / sizeof(other_qps[0]); i++) {
		sa_get();
		assert_int_equal(send_to(fx.sm_lid, other_qps[i], UMAD_QKEY), SIM_NET_LOST);
	}
	assert_int_equal(endpoint.received, 0);
}

/* QP1 with any other Q_Key: lost, counted at the port (PortInfo:Q_KeyViolations). */
static void test_qp1_needs_its_qkey(void **state)
{
	struct sim_port *hca3 = port_of("Hca3", 1);
	uint64_t lost = fx.net.lost_qkey;
	uint16_t violations = hca3->q_key_violations;

	(void)state;
	pma_get();
	assert_int_equal(send_to(fx.hca3_lid, QP1_GSI, 0), SIM_NET_LOST);
	pma_get();
	assert_int_equal(send_to(fx.hca3_lid, QP1_GSI, UMAD_QKEY + 1), SIM_NET_LOST);
	assert_int_equal(fx.net.lost_qkey, lost + 2);
	assert_int_equal(hca3->q_key_violations, violations + 2);
}

/* A program's agent: a request or a response reaches it on QP1 alone. */
static void test_program_agents_on_qp1_only(void **state)
{
	static const uint8_t methods[] = {
		UMAD_METHOD_GET, UMAD_METHOD_SEND, UMAD_METHOD_GET_RESP,
	};
	size_t i, q;

	(void)state;
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		endpoint.received = 0;
		gmp(PING_CLASS, 1, methods[i], 0);
		assert_int_equal(send_to(fx.hca3_lid, QP1_GSI, UMAD_QKEY), SIM_NET_DELIVERED);
		assert_int_equal(endpoint.received, 1);
		assert_int_equal(endpoint.dqpn, QP1_GSI);
		for (q = 0; q < sizeof(other_qps) / sizeof(other_qps[0]); q++) {
			gmp(PING_CLASS, 1, methods[i], 0);
			assert_int_equal(send_to(fx.hca3_lid, other_qps[q], UMAD_QKEY),
					 SIM_NET_LOST);
		}
		assert_int_equal(endpoint.received, 1);
	}
}

/*
 * The receiver's P_Key check: Hca3 holds partition 1 as a limited member
 * and partition 2 as a full one; a request gets in when its P_Key names one
 * of them and the two are not both limited, and is counted a violation
 * otherwise.  The P_Key index a receiver reports is that of the partition.
 */
static void test_receiver_takes_the_partition(void **state)
{
	static const struct {
		uint16_t pkey;
		int taken;
	} cases[] = {
		{ 0x8001, 1 }, { 0x0001, 0 }, { 0x8002, 1 }, { 0x0002, 1 },
		{ 0x8003, 0 }, { 0x0000, 0 }, { 0x8000, 0 }, { 0xffff, 0 },
	};
	struct sim_port *hca3 = port_of("Hca3", 1);
	uint64_t lost;
	uint16_t violations;
	size_t i;

	(void)state;
	hca3->pkeys = calloc(SIM_PKEY_TABLE_SIZE, sizeof(uint16_t));
	assert_non_null(hca3->pkeys);
	hca3->pkeys[3] = 0x0001;
	hca3->pkeys[5] = 0x8002;
	/* Hca1 a full member of both, so that the answers come back. */
	fx.from->pkeys = calloc(SIM_PKEY_TABLE_SIZE, sizeof(uint16_t));
	assert_non_null(fx.from->pkeys);
	fx.from->pkeys[0] = 0x8001;
	fx.from->pkeys[1] = 0x8002;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lost = fx.net.lost_pkey;
		violations = hca3->p_key_violations;
		pma_get();
		assert_int_equal(send_with_pkey(fx.hca3_lid, QP1_GSI, UMAD_QKEY, cases[i].pkey),
				 cases[i].taken ? SIM_NET_ANSWERED : SIM_NET_LOST);
		assert_int_equal(fx.net.lost_pkey, lost + !cases[i].taken);
		assert_int_equal(hca3->p_key_violations, violations + !cases[i].taken);
	}
	assert_int_equal(sim_port_pkey_index(hca3, 0x8001), 3);
	assert_int_equal(sim_port_pkey_index(hca3, 0x0002), 5);
	assert_int_equal(sim_port_pkey_index(hca3, 0xffff), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pma_on_qp1_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_receiver_takes_the_partition, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sa_on_qp1_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qp1_needs_its_qkey, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_agents_on_qp1_only, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
