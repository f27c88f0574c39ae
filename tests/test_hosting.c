/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The owner of a fabric (simfabric/hosting.h), driven as its two front ends
 * drive it, on the default fabric with the built-in SM: where a program
 * attaches and what it may not attach at; IsSM following the issm devices
 * held, and the built-in SM stepping aside for one, or for an SA server
 * registered; an agent that clashes with another program's refused; a
 * request handed to another program's agent and its response routed back
 * to the waiting sender only; the programs at a node told when a fault
 * changes it; a program that goes taking its issm device with it.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_rules.h"
#include "base/mad_wire.h"
#include "simfabric/hosting.h"
#include "simfabric/topology.h"

/* What the hosting told a program. */
struct program {
	unsigned delivered, changed;
	uint32_t last_host, last_changed;
	uint64_t last_tid;
};

static int deliver(void *owner, uint32_t host, const struct sim_net_msg *m)
{
	struct program *p = owner;
	struct umad_hdr h;

	memcpy(&h, m->data, sizeof(h));
	p->delivered++;
	p->last_host = host;
	p->last_tid = be64toh(h.tid);
	return 1;
}

static void node_changed(void *owner, uint32_t host)
{
	struct program *p = owner;

	p->changed++;
	p->last_changed = host;
}

static const struct sim_attachment_ops ops = { .deliver = deliver, .node_changed = node_changed };

static struct sim_hosting *new_hosting(int builtin_sm)
{
	struct umad_err err = UMAD_ERR_INIT;
	struct sim_fabric *f = sim_topology_parse(sim_default_topology, "<default>", &err);
	struct sim_hosting *h = NULL;

	assert_non_null(f);
	assert_int_equal(sim_hosting_new(f, builtin_sm, &h, &err), 0);
	return h;
}

static struct sim_attachment *attach(struct sim_hosting *h, const char *name, struct program *p)
{
	struct sim_attachment *a = NULL;
	const char *names[1] = { name };

	assert_int_equal(sim_hosting_attach(h, names, name ? 1 : 0, &ops, p, &a, NULL), 0);
	return a;
}

static struct sim_port *port_of(struct sim_attachment *a, uint32_t port)
{
	return &sim_attachment_node(a, 0)->ports[port];
}

static void test_where_a_program_attaches(void **state)
{
	struct sim_hosting *h = new_hosting(1);
	struct umad_err err = UMAD_ERR_INIT;
	struct sim_attachment *a = NULL;
	const char *twice[2] = { "Hca2", "Hca2" }, *none[1] = { "NoSuchNode" };
	struct program p = { 0 };

	(void)state;
	a = attach(h, NULL, &p);
	assert_ptr_equal(sim_attachment_node(a, 0), sim_fabric_default_host(sim_hosting_fabric(h)));
	assert_int_equal(sim_attachment_node(a, 0)->attached, 1);
	assert_int_equal(sim_hosting_attach(h, twice, 2, &ops, &p, &a, &err), -EINVAL);
	assert_non_null(strstr(umad_err_text(&err), "is attached at twice"));
	assert_int_equal(sim_hosting_attach(h, none, 1, &ops, &p, &a, &err), -ENODEV);
	assert_non_null(strstr(umad_err_text(&err), "'NoSuchNode' names no node of the fabric"));
	/* A port a program may not open: a CA's port 0. */
	a = attach(h, "Hca3", &p);
	assert_int_equal(sim_hosting_open(a, 0, 0), -EINVAL);
	assert_true(sim_hosting_open(a, 0, 1) >= 0);
	sim_hosting_free(h);
}

static void test_issm_held_retires_the_builtin_sm(void **state)
{
	struct sim_hosting *h = new_hosting(1);
	struct program p = { 0 }, q = { 0 };
	struct sim_attachment *a, *b;

	(void)state;
	a = attach(h, "Hca2", &p);
	b = attach(h, "Hca2", &q);
	assert_true(sim_hosting_net(h)->sm_active);
	assert_false(port_of(a, 1)->capmask & PORT_CAP_IS_SM);
	/* Two programs hold it: IsSM stays until both let go. */
	assert_int_equal(sim_hosting_issm(a, 0, 1, 1), 0);
	assert_int_equal(sim_hosting_issm(b, 0, 1, 1), 0);
	assert_false(sim_hosting_net(h)->sm_active);
	assert_true(port_of(a, 1)->capmask & PORT_CAP_IS_SM);
	assert_int_equal(sim_hosting_issm(a, 0, 1, 0), 0);
	assert_true(port_of(a, 1)->capmask & PORT_CAP_IS_SM);
	/* The one left goes: its issm device with it. */
	sim_hosting_detach(b);
	assert_false(port_of(a, 1)->capmask & PORT_CAP_IS_SM);
	assert_int_equal(sim_hosting_issm(a, 0, 9, 1), -EINVAL);
	sim_hosting_free(h);
}

static void test_sa_server_retires_the_builtin_sm(void **state)
{
	struct sim_hosting *h = new_hosting(1);
	struct umad_agent_req client = { .qpn = 1, .mgmt_class = UMAD_CLASS_SUBN_ADM,
					 .mgmt_class_version = 2 };
	struct umad_agent_req server = client;
	struct program p = { 0 };
	struct sim_attachment *a = attach(h, "Hca2", &p);
	int handle = sim_hosting_open(a, 0, 1);

	(void)state;
	assert_true(handle >= 0);
	/* A client receiving Reports does not count; a server of Gets does. */
	client.method_mask[0] = 1ull << UMAD_METHOD_REPORT;
	assert_true(sim_hosting_register(a, (uint32_t)handle, 0, &client, NULL) > 0);
	assert_true(sim_hosting_net(h)->sm_active);
	server.method_mask[0] = 1ull << UMAD_METHOD_GET;
	assert_true(sim_hosting_register(a, (uint32_t)handle, 1, &server, NULL) > 0);
	assert_false(sim_hosting_net(h)->sm_active);
	sim_hosting_free(h);
}

/* A MAD of class CM from an attachment's port to a LID, its TID given. */
static enum sim_net_result send_cm(struct sim_attachment *a, int handle, uint16_t dlid,
				   uint8_t method, uint64_t tid, uint32_t wait_ms)
{
	struct sim_hosting_send q = { .handle = (uint32_t)handle, .sqpn = 1, .dqpn = 1,
				      .qkey = UMAD_QKEY, .dlid = dlid, .wait_ms = wait_ms };
	struct umad_hdr hdr = { .base_version = 1, .mgmt_class = UMAD_CLASS_CM, .class_version = 2,
				.method = method, .tid = htobe64(tid) };
	uint8_t mad[MAD_SIZE] = { 0 };
	struct sim_net_reply reply;
	enum sim_net_result result;

	memcpy(mad, &hdr, sizeof(hdr));
	assert_int_equal(sim_hosting_send(a, &q, mad, NULL, MAD_SIZE, &reply, &result), 0);
	sim_net_reply_release(&reply);
	return result;
}

/* Every agent of every program gets its own hi_tid, 24 bits, handed out cyclically. */
static void test_hi_tids_are_distinct(void **state)
{
	struct sim_hosting *h = new_hosting(1);
	struct umad_agent_req smi = { .qpn = 0, .mgmt_class = UMAD_CLASS_SUBN_DIRECTED_ROUTE,
				      .mgmt_class_version = 1 };
	struct program pa = { 0 }, pb = { 0 };
	struct sim_attachment *a = attach(h, "Hca1", &pa), *b = attach(h, "Hca2", &pb);
	int ha = sim_hosting_open(a, 0, 1), hb = sim_hosting_open(b, 0, 1);
	int seen[6], i, k, again;

	(void)state;
	assert_true(ha >= 0 && hb >= 0);
	for (i = 0; i < 6; i++) {
		seen[i] = sim_hosting_register(i % 2 ? b : a, (uint32_t)(i % 2 ? hb : ha),
					       (uint32_t)(i / 2), &smi, NULL);
		assert_true(seen[i] > 0 && seen[i] <= (int)MAD_RULES_HI_TID_MAX);
		for (k = 0; k < i; k++)
			assert_int_not_equal(seen[i], seen[k]);
	}
	/* Registered again, an agent gets the next one, not one in use. */
	assert_int_equal(sim_hosting_unregister(a, (uint32_t)ha, 0), 0);
	again = sim_hosting_register(a, (uint32_t)ha, 0, &smi, NULL);
	for (k = 1; k < 6; k++)
		assert_int_not_equal(again, seen[k]);
	assert_int_not_equal(again, seen[0]);
	sim_hosting_free(h);
}

static void test_requests_and_responses_are_routed(void **state)
{
	struct sim_hosting *h = new_hosting(1);
	struct umad_agent_req cm = { .qpn = 1, .mgmt_class = UMAD_CLASS_CM, .mgmt_class_version = 2 };
	struct umad_err err = UMAD_ERR_INIT;
	struct program pa = { 0 }, pb = { 0 }, pc = { 0 };
	struct sim_attachment *a = attach(h, "Hca1", &pa), *b = attach(h, "Hca2", &pb);
	struct sim_attachment *c = attach(h, "Hca2", &pc);
	int ha = sim_hosting_open(a, 0, 1), hb = sim_hosting_open(b, 0, 1);
	int hc = sim_hosting_open(c, 0, 1);
	uint16_t lid_a = port_of(a, 1)->lid, lid_b = port_of(b, 1)->lid;

	(void)state;
	assert_true(ha >= 0 && hb >= 0 && hc >= 0 && lid_a && lid_b);
	cm.method_mask[0] = 1ull << UMAD_METHOD_GET;
	assert_true(sim_hosting_register(b, (uint32_t)hb, 0, &cm, NULL) > 0);
	/* Another program on the same port may not take the same MADs. */
	assert_int_equal(sim_hosting_register(c, (uint32_t)hc, 0, &cm, &err), -EINVAL);
	assert_non_null(strstr(umad_err_text(&err), "another process has an agent"));
	/* Nobody takes it at A's port: lost. */
	assert_int_equal(send_cm(b, hb, lid_a, UMAD_METHOD_GET, 7, 100), SIM_NET_LOST);
	/* A's request reaches B's agent and waits for its response. */
	assert_int_equal(send_cm(a, ha, lid_b, UMAD_METHOD_GET, 42, 1000), SIM_NET_DELIVERED);
	assert_int_equal(pb.delivered, 1);
	assert_int_equal(pb.last_tid, 42);
	assert_int_equal(sim_hosting_waiting(h), 1);
	/* A response nobody waits for goes nowhere; the awaited one goes to A, once. */
	send_cm(b, hb, lid_a, UMAD_METHOD_GET_RESP, 43, 0);
	assert_int_equal(pa.delivered, 0);
	send_cm(b, hb, lid_a, UMAD_METHOD_GET_RESP, 42, 0);
	assert_int_equal(pa.delivered, 1);
	assert_int_equal(pa.last_tid, 42);
	assert_int_equal(sim_hosting_waiting(h), 0);
	send_cm(b, hb, lid_a, UMAD_METHOD_GET_RESP, 42, 0);
	assert_int_equal(pa.delivered, 1);
	/* A sender whose port closed waits no more. */
	assert_int_equal(send_cm(a, ha, lid_b, UMAD_METHOD_GET, 44, 1000), SIM_NET_DELIVERED);
	assert_int_equal(sim_hosting_close(a, (uint32_t)ha), 0);
	assert_int_equal(sim_hosting_waiting(h), 0);
	assert_int_equal(sim_hosting_close(a, (uint32_t)ha), -EBADF);
	sim_hosting_free(h);
}

static void test_programs_learn_their_node_changed(void **state)
{
	struct sim_hosting *h = new_hosting(1);
	struct sim_fault_req down = { .op = SIM_FAULT_LINK, .port = 1, .up = 0 };
	struct program pa = { 0 }, pb = { 0 };
	const char *names[2] = { "Hca3", "Hca1" };
	struct sim_attachment *a = NULL;

	(void)state;
	assert_int_equal(sim_hosting_attach(h, names, 2, &ops, &pa, &a, NULL), 0);
	attach(h, "Hca4", &pb);
	strcpy(down.node, "Hca1");
	assert_int_equal(sim_hosting_control(h, &down, NULL), 0);
	/* Every program hears of a fault that changes ports; each of its nodes by its index. */
	assert_true(pa.changed >= 2);
	assert_true(pb.changed >= 1);
	pa.changed = pb.changed = 0;
	sim_hosting_node_changed(h, sim_attachment_node(a, 1));
	assert_int_equal(pa.changed, 1);
	assert_int_equal(pa.last_changed, 1);
	assert_int_equal(pb.changed, 0);
	sim_hosting_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where_a_program_attaches),
		cmocka_unit_test(test_issm_held_retires_the_builtin_sm),
		cmocka_unit_test(test_sa_server_retires_the_builtin_sm),
		cmocka_unit_test(test_hi_tids_are_distinct),
		cmocka_unit_test(test_requests_and_responses_are_routed),
		cmocka_unit_test(test_programs_learn_their_node_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
